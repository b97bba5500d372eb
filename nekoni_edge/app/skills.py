"""Skills (a named prompt) and cron jobs that run them; nekoni's ``skill_*`` / ``cron_*``."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

from nekoni_edge.app.registry import Context, handles, require_trusted
from nekoni_edge.errors import NekoniError
from nekoni_edge.protocol import skill_messages as sm
from nekoni_edge.skills.scheduler import run_skill
from nekoni_edge.store.skills import CronJob, Skill, SkillError

_LOGGER = logging.getLogger(__name__)

SkillHandler = Callable[[Context, Any], Awaitable[sm.SkillReply | dict[str, Any]]]


def _skill_replies(*, changes: bool) -> Callable[[SkillHandler], SkillHandler]:
    """What every skill and cron handler shares: a device on probation may not do it yet
    (skills are the household's: their prompts and runs may hold secrets, so it neither
    changes nor reads nor runs them), and every failure is ``skill_error`` with a code (the
    only error nekoni's apps show for skills)."""

    def wrap(handler: SkillHandler) -> SkillHandler:
        @functools.wraps(handler)
        async def guarded(ctx: Context, message: Any) -> sm.SkillReply | dict[str, Any]:
            try:
                await require_trusted(ctx, "change skills and cron jobs" if changes
                                      else "see and run the household's skills")
                return await handler(ctx, message)
            except SkillError as exc:
                return exc.reply()
            except NekoniError as exc:  # probation, the model, the store: words and a code
                reply = exc.reply() or {}
                return {"type": "skill_error", "message": str(exc),
                        "code": str(reply.get("code") or "INTERNAL_ERROR")}
            except Exception:
                _LOGGER.exception("%s: %s failed", ctx.label, message.TYPE)
                return {"type": "skill_error", "message": f"{message.TYPE} failed on the box; "
                                                          "see its log", "code": "INTERNAL_ERROR"}

        return guarded

    return wrap


def _skill(skill: Skill) -> sm.SkillView:
    return sm.SkillView(skill.id, skill.name, skill.prompt, skill.description, skill.created_at)


def _job(job: CronJob) -> sm.CronJobView:
    return sm.CronJobView(job.id, job.skill_id, job.cron_expression, job.enabled, job.last_run,
                          job.created_at)


@handles(sm.SkillList)
@_skill_replies(changes=False)
async def skill_list(ctx: Context, message: sm.SkillList) -> sm.SkillListResponse:
    return sm.SkillListResponse(tuple(_skill(s) for s in await ctx.box.db.skills()))


@handles(sm.SkillCreate, sm.SkillUpdate)
@_skill_replies(changes=True)
async def save_skill(ctx: Context, message: sm.SkillCreate | sm.SkillUpdate
                     ) -> sm.SkillResponse:
    db = ctx.box.db
    if isinstance(message, sm.SkillCreate):
        skill = await db.create_skill(message.name, message.prompt, message.description)
    else:
        skill = await db.update_skill(message.id, message.name, message.prompt,
                                      message.description)
    return sm.SkillResponse(_skill(skill))


@handles(sm.CronCreate, sm.CronUpdate)
@_skill_replies(changes=True)
async def save_job(ctx: Context, message: sm.CronCreate | sm.CronUpdate) -> sm.CronResponse:
    db = ctx.box.db
    if isinstance(message, sm.CronCreate):
        job = await db.create_job(message.skill_id, message.cron_expression, message.enabled)
    else:
        job = await db.update_job(message.id, message.cron_expression, message.enabled)
    return sm.CronResponse(_job(job))


@handles(sm.SkillDelete, sm.CronDelete)
@_skill_replies(changes=True)
async def delete(ctx: Context, message: sm.SkillDelete | sm.CronDelete) -> sm.Deleted:
    # nekoni's apps drop the item from their list on this reply: an unknown id is an error.
    skill = isinstance(message, sm.SkillDelete)
    remove = ctx.box.db.delete_skill if skill else ctx.box.db.delete_job
    if not await remove(message.id):
        raise SkillError(f"no {'skill' if skill else 'cron job'} {message.id[:64]!r}",
                         not_found=True)
    return sm.Deleted("skill" if skill else "cron", message.id)


@handles(sm.SkillRun)
@_skill_replies(changes=False)
async def skill_run(ctx: Context, message: sm.SkillRun) -> sm.SkillRunResponse:
    # As nekoni's agent: nothing streams (its web app shows any ``chunk`` as a chat bubble);
    # the result comes whole in the reply, and the run is kept in the skill's session.
    skill = await ctx.box.db.skill(message.id)
    async with aclosing(run_skill(ctx.box.chat, skill)) as stream:
        pieces = [piece async for piece in stream]
    return sm.SkillRunResponse(skill.id, "".join(pieces).strip())


@handles(sm.CronList)
@_skill_replies(changes=False)
async def cron_list(ctx: Context, message: sm.CronList) -> sm.CronListResponse:
    jobs = await ctx.box.db.jobs()
    if message.skill_id is not None:  # nekoni's optional filter
        jobs = [j for j in jobs if j.skill_id == message.skill_id]
    return sm.CronListResponse(tuple(_job(j) for j in jobs))
