"""Runs skills on their cron schedules inside the daemon's event loop (no extra thread).

Schedules are in UTC (a local 02:30 would run twice on the autumn DST day). A job whose time
passed while the box was off runs once at start, not once per missed slot.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing

from nekoni_edge.agent.chat import SKILL_SESSION, ChatService
from nekoni_edge.aio import cancel_and_wait
from nekoni_edge.config import Settings
from nekoni_edge.store.skills import CronJob, Skill, SkillStore

_LOGGER = logging.getLogger(__name__)

TICK_S = Settings.cron_tick_s


def skill_session(skill: Skill) -> str:
    return f"{SKILL_SESSION}{skill.id}"


def next_fire_ms(expression: str, after_ms: int) -> int:
    """The first time strictly after ``after_ms`` (UTC) that the expression fires."""
    from croniter import croniter

    start = dt.datetime.fromtimestamp(after_ms / 1000, tz=dt.UTC)
    fire: dt.datetime = croniter(expression, start).get_next(dt.datetime)
    return int(fire.timestamp() * 1000)


def due(job: CronJob, now_ms: int) -> bool:
    """True if the job has a fire time in (last run or creation, now]."""
    return job.enabled and next_fire_ms(job.cron_expression, job.last_run or job.created_at) \
        <= now_ms


async def run_skill(chat: ChatService, skill: Skill) -> AsyncGenerator[str, None]:
    """A skill's prompt through the same agent loop, in session ``skill:{id}``."""
    session = skill_session(skill)
    await chat.tracer.emit(session, "skill_event", {"phase": "start", "skillId": skill.id,
                                                    "name": skill.name})
    started = time.monotonic()
    try:
        async with aclosing(chat.reply(session, skill.prompt)) as pieces:
            async for piece in pieces:
                yield piece
    finally:
        await chat.tracer.emit(session, "skill_event", {
            "phase": "complete", "skillId": skill.id,
            "durationMs": round((time.monotonic() - started) * 1000)})


class Scheduler:
    """Checks the jobs every tick; runs each due job's skill once."""

    def __init__(
        self,
        store: SkillStore,
        run: Callable[[Skill], Awaitable[str]],
        *,
        clock_ms: Callable[[], int],
        tick_s: float = TICK_S,
    ) -> None:
        self._store = store
        self._run = run
        self._clock_ms = clock_ms
        self._tick_s = tick_s
        self._task: asyncio.Task[None] | None = None
        self._broken: set[str] = set()  # jobs already reported as unschedulable

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._forever())

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None

    async def _forever(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                _LOGGER.exception("scheduler tick failed")
            await asyncio.sleep(self._tick_s)

    async def tick(self) -> list[str]:
        """Run every due job once; return the ids of the jobs that ran."""
        ran = []
        for job in await self._store.jobs():
            now = self._clock_ms()
            try:
                if not due(job, now):
                    continue
            except ValueError as exc:  # an expression with no next date: only that job waits
                if job.id not in self._broken:
                    self._broken.add(job.id)
                    _LOGGER.warning("cron %s: %r cannot be scheduled (%s); the other jobs run",
                                    job.id, job.cron_expression, exc)
                continue
            # Marked before running: a power cut mid-run does not run it again at start.
            await self._store.mark_run(job.id, now)
            skill = await self._store.skill(job.skill_id)
            _LOGGER.info("cron %s: running skill %s (%s)", job.id, skill.id, skill.name)
            try:
                await self._run(skill)
            except Exception:
                _LOGGER.exception("cron %s: skill %s failed", job.id, skill.id)
            ran.append(job.id)
        return ran
