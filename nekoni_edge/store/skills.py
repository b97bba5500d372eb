"""Skills and cron jobs in SQLite; cron expressions are checked before they are stored."""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Any

from nekoni_edge.errors import NekoniError
from nekoni_edge.store.access import Access, now_ms

MAX_NAME = 100
MAX_PROMPT = 4000


class SkillError(NekoniError):
    """A skill or cron request was refused; the message says why."""

    def __init__(self, message: str, *, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found

    def reply(self) -> dict[str, Any]:
        # nekoni's apps read only ``message``; (edge) ``code`` tells tools what kind of refusal.
        return {"type": "skill_error", "message": str(self),
                "code": "NOT_FOUND" if self.not_found else "INVALID_REQUEST"}


@dataclass(frozen=True, slots=True)
class Skill:
    id: str
    name: str
    description: str
    prompt: str
    created_at: int



@dataclass(frozen=True, slots=True)
class CronJob:
    id: str
    skill_id: str
    cron_expression: str
    enabled: bool
    last_run: int | None
    created_at: int



NEVER = dt.timedelta(days=5 * 365)


def check_cron(expression: object) -> str:
    """A valid five-field cron expression, or SkillError saying what is wrong."""
    from croniter import croniter

    if not isinstance(expression, str) or not expression.strip():
        raise SkillError("cronExpression must be a non-empty string")
    if len(expression.split()) != 5 or not croniter.is_valid(expression):
        raise SkillError(f"invalid cron expression {expression!r}: use five fields, "
                         "e.g. '0 7 * * *' for 07:00 every day (UTC)")
    # Valid fields can still name a day that never comes (30 February): such a job would
    # fail every scheduler tick, so it is refused here.
    now = dt.datetime.now(dt.UTC)
    try:
        fire: dt.datetime = croniter(expression, now).get_next(dt.datetime)
    except ValueError:  # croniter's CroniterBadDateError: no such date in its search
        fire = now + NEVER
    if fire - now >= NEVER:
        raise SkillError(f"cron expression {expression!r} never fires (no such date within "
                         f"{NEVER.days // 365} years)")
    return expression.strip()


def _text(value: object, name: str, limit: int, *, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()) or len(value) > limit:
        raise SkillError(f"{name} must be a non-empty string of at most {limit} characters"
                         if required else f"{name} must be a string of at most {limit}")
    return value.strip()


class SkillStore(Access):
    """CRUD for skills and cron jobs."""

    async def skills(self) -> list[Skill]:
        rows = await self._fetchall(
            "SELECT id, name, description, prompt, created_at FROM skills ORDER BY created_at")
        return [Skill(*r) for r in rows]

    async def skill(self, skill_id: object) -> Skill:
        rows = await self._fetchall(
            "SELECT id, name, description, prompt, created_at FROM skills WHERE id = ?",
            (str(skill_id),))
        if not rows:
            raise SkillError(f"no skill {str(skill_id)[:64]!r}", not_found=True)
        return Skill(*rows[0])

    async def create_skill(self, name: object, prompt: object, description: object = None
                           ) -> Skill:
        skill = Skill(f"sk_{secrets.token_hex(6)}", _text(name, "name", MAX_NAME),
                      _text(description, "description", MAX_PROMPT, required=False),
                      _text(prompt, "prompt", MAX_PROMPT), now_ms())
        await self.write(lambda conn: conn.execute(
            "INSERT INTO skills (id, name, description, prompt, created_at) VALUES (?, ?, ?, ?, ?)",
            (skill.id, skill.name, skill.description, skill.prompt, skill.created_at)))
        return skill

    async def update_skill(self, skill_id: str, name: str | None, prompt: str | None,
                           description: str | None) -> Skill:
        """Change the fields given (None: unchanged)."""
        current = await self.skill(skill_id)
        await self.write(lambda conn: conn.execute(
            "UPDATE skills SET name = ?, prompt = ?, description = ? WHERE id = ?",
            (name or current.name, prompt or current.prompt,
             current.description if description is None else description, current.id)))
        return await self.skill(current.id)

    async def delete_skill(self, skill_id: object) -> bool:
        def delete(conn: Any) -> bool:
            conn.execute("DELETE FROM cron_jobs WHERE skill_id = ?", (str(skill_id),))
            return bool(conn.execute("DELETE FROM skills WHERE id = ?",
                                     (str(skill_id),)).rowcount == 1)

        return await self.write(delete)

    async def jobs(self) -> list[CronJob]:
        rows = await self._fetchall(
            "SELECT id, skill_id, cron_expression, enabled, last_run, created_at FROM cron_jobs "
            "ORDER BY created_at")
        return [CronJob(r[0], r[1], r[2], bool(r[3]), r[4], r[5]) for r in rows]

    async def job(self, job_id: object) -> CronJob:
        for job in await self.jobs():
            if job.id == job_id:
                return job
        raise SkillError(f"no cron job {str(job_id)[:64]!r}", not_found=True)

    async def create_job(self, skill_id: object, expression: object, enabled: object = True,
                         now: int | None = None) -> CronJob:
        skill = await self.skill(skill_id)
        if not isinstance(enabled, bool):
            raise SkillError("enabled must be true or false")
        job = CronJob(f"cr_{secrets.token_hex(6)}", skill.id, check_cron(expression), enabled,
                      None, now if now is not None else now_ms())
        await self.write(lambda conn: conn.execute(
            "INSERT INTO cron_jobs (id, skill_id, cron_expression, enabled, last_run, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (job.id, job.skill_id, job.cron_expression, int(enabled), None, job.created_at)))
        return job

    async def update_job(self, job_id: str, expression: str | None, enabled: bool | None
                         ) -> CronJob:
        """Change the fields given (None: unchanged); the expression is checked here."""
        job = await self.job(job_id)
        expression = job.cron_expression if expression is None else check_cron(expression)
        enabled = job.enabled if enabled is None else enabled
        await self.write(lambda conn: conn.execute(
            "UPDATE cron_jobs SET cron_expression = ?, enabled = ? WHERE id = ?",
            (expression, int(enabled), job.id)))
        return await self.job(job.id)

    async def delete_job(self, job_id: object) -> bool:
        deleted: bool = await self.write(lambda conn: conn.execute(
            "DELETE FROM cron_jobs WHERE id = ?", (str(job_id),)).rowcount == 1)
        return deleted

    async def mark_run(self, job_id: str, when_ms: int) -> None:
        await self.write(lambda conn: conn.execute(
            "UPDATE cron_jobs SET last_run = ? WHERE id = ?", (when_ms, job_id)))
