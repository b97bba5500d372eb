"""Cron with an injected clock: next fire, a missed run runs once, disabled, deleted, refused."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.skills.scheduler import Scheduler, next_fire_ms
from nekoni_edge.store.database import Database
from nekoni_edge.store.skills import Skill, SkillError


def ms(*args: int) -> int:
    return int(dt.datetime(*args, tzinfo=dt.UTC).timestamp() * 1000)


def test_next_fire_times_are_utc() -> None:
    assert next_fire_ms("0 7 * * *", ms(2026, 12, 2, 6, 59)) == ms(2026, 12, 2, 7, 0)
    assert next_fire_ms("0 7 * * *", ms(2026, 12, 2, 7, 0)) == ms(2026, 12, 3, 7, 0)
    assert next_fire_ms("*/15 * * * *", ms(2026, 12, 2, 7, 1)) == ms(2026, 12, 2, 7, 15)
    # the DST night of Europe changes nothing in UTC: one run a day
    assert next_fire_ms("30 2 * * *", ms(2026, 10, 25, 2, 30)) == ms(2026, 10, 26, 2, 30)


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
async def setup(tmp_path: Path) -> Any:
    async with await Database.open(tmp_path / "db") as db:
        store = db
        ran: list[str] = []

        async def run(skill: Skill) -> str:
            ran.append(skill.id)
            return "done"

        clock = Clock(ms(2026, 12, 2, 6, 0))
        yield store, Scheduler(store, run, clock_ms=clock), clock, ran


async def test_fires_at_its_time_and_once(setup: Any) -> None:
    store, scheduler, clock, ran = setup
    skill = await store.create_skill("Morning", "Give me a morning summary.")
    await store.create_job(skill.id, "0 7 * * *", now=clock.now)
    assert await scheduler.tick() == []
    clock.now = ms(2026, 12, 2, 7, 0, 5)
    assert len(await scheduler.tick()) == 1
    assert await scheduler.tick() == []  # not twice for the same slot
    assert ran == [skill.id]
    [job] = await store.jobs()
    assert job.last_run == clock.now


async def test_missed_runs_after_downtime_run_once(setup: Any) -> None:
    store, scheduler, clock, ran = setup
    skill = await store.create_skill("Hourly", "Check the house.")
    await store.create_job(skill.id, "0 * * * *", now=clock.now)
    clock.now += 10 * 3600 * 1000  # the box was unplugged for ten hours
    await scheduler.tick()
    await scheduler.tick()
    assert ran == [skill.id]


async def test_disabled_and_deleted_jobs_do_not_fire(setup: Any) -> None:
    store, scheduler, clock, ran = setup
    skill = await store.create_skill("S", "prompt")
    off = await store.create_job(skill.id, "* * * * *", enabled=False, now=clock.now)
    gone = await store.create_job(skill.id, "* * * * *", now=clock.now)
    assert await store.delete_job(gone.id)
    clock.now += 3600 * 1000
    assert await scheduler.tick() == []
    await store.update_job(off.id, None, True)
    assert await scheduler.tick() == [off.id]
    assert await store.delete_skill(skill.id)
    assert await store.jobs() == []  # a skill's jobs go with it


async def test_invalid_cron_refused(setup: Any) -> None:
    store, *_ = setup
    skill = await store.create_skill("S", "prompt")
    for bad in ("every morning", "61 * * * *", "* * * *", "", 5, "0 0 30 2 *", "0 0 31 4 *"):
        with pytest.raises(SkillError, match="cron"):
            await store.create_job(skill.id, bad)
    with pytest.raises(SkillError, match="no skill"):
        await store.create_job("sk_missing", "* * * * *")
    with pytest.raises(SkillError, match="name"):
        await store.create_skill("", "prompt")


async def test_a_job_that_can_never_fire_does_not_stop_the_others(setup: Any) -> None:
    """One stored before creation refused them (or written by hand): it failed every tick and
    the every-minute job never ran."""
    store, scheduler, clock, ran = setup
    skill = await store.create_skill("S", "prompt")
    minute = await store.create_job(skill.id, "* * * * *", now=clock.now)
    await store.write(lambda conn: conn.execute(  # an old row, as stored
        "INSERT INTO cron_jobs (id, skill_id, cron_expression, enabled, created_at) "
        "VALUES ('cj_feb30', ?, '0 0 30 2 *', 1, ?)", (skill.id, clock.now)))
    clock.now += 120 * 1000
    assert await scheduler.tick() == [minute.id]
    clock.now += 120 * 1000
    assert await scheduler.tick() == [minute.id]
    assert ran == [skill.id, skill.id]
