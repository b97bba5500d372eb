"""Skills (a named prompt) and cron jobs that run them; nekoni's ``skill_*`` / ``cron_*``."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

from nekoni_edge.app.registry import Context, handles, require_trusted
from nekoni_edge.errors import NekoniError
from nekoni_edge.protocol import messages as m
from nekoni_edge.skills.scheduler import run_skill
from nekoni_edge.store.skills import SkillError

_LOGGER = logging.getLogger(__name__)

SkillHandler = Callable[[Context, Any], Awaitable[dict[str, Any]]]


def _skill_replies(*, changes: bool) -> Callable[[SkillHandler], SkillHandler]:
    """What every skill and cron handler shares: a device on probation may not do it yet
    (skills are the household's: their prompts and runs may hold secrets, so it neither
    changes nor reads nor runs them), and every failure is ``skill_error`` with a code (the
    only error nekoni's apps show for skills)."""

    def wrap(handler: SkillHandler) -> SkillHandler:
        @functools.wraps(handler)
        async def guarded(ctx: Context, message: Any) -> dict[str, Any]:
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


@handles(m.SkillList)
@_skill_replies(changes=False)
async def skill_list(ctx: Context, message: m.SkillList) -> dict[str, Any]:
    skills = await ctx.box.db.skills()
    return {"type": "skill_list_response", "skills": [s.wire() for s in skills]}


@handles(m.SkillCreate)
@_skill_replies(changes=True)
async def skill_create(ctx: Context, message: m.SkillCreate) -> dict[str, Any]:
    skill = await ctx.box.db.create_skill(message.name, message.prompt,
                                                      message.description)
    return {"type": "skill_response", "skill": skill.wire()}


@handles(m.SkillUpdate)
@_skill_replies(changes=True)
async def skill_update(ctx: Context, message: m.SkillUpdate) -> dict[str, Any]:
    skill = await ctx.box.db.update_skill(message.id, message.fields)
    return {"type": "skill_response", "skill": skill.wire()}


@handles(m.SkillDelete)
@_skill_replies(changes=True)
async def skill_delete(ctx: Context, message: m.SkillDelete) -> dict[str, Any]:
    # nekoni's apps drop the skill from their list on this reply: an unknown id is an error.
    if not await ctx.box.db.delete_skill(message.id):
        raise SkillError(f"no skill {str(message.id)[:64]!r}", not_found=True)
    return {"type": "skill_delete_response", "id": message.id}


@handles(m.SkillRun)
@_skill_replies(changes=False)
async def skill_run(ctx: Context, message: m.SkillRun) -> dict[str, Any]:
    # As nekoni's agent: nothing streams (its web app shows any ``chunk`` as a chat bubble);
    # the result comes whole in the reply, and the run is kept in the skill's session.
    skill = await ctx.box.db.skill(message.id)
    async with aclosing(run_skill(ctx.box.chat, skill)) as stream:
        pieces = [piece async for piece in stream]
    return {"type": "skill_run_response", "id": skill.id, "result": "".join(pieces).strip()}


@handles(m.CronList)
@_skill_replies(changes=False)
async def cron_list(ctx: Context, message: m.CronList) -> dict[str, Any]:
    jobs = await ctx.box.db.jobs()
    if message.skill_id is not None:  # nekoni's optional filter
        jobs = [j for j in jobs if j.skill_id == message.skill_id]
    return {"type": "cron_list_response", "jobs": [j.wire() for j in jobs]}


@handles(m.CronCreate)
@_skill_replies(changes=True)
async def cron_create(ctx: Context, message: m.CronCreate) -> dict[str, Any]:
    job = await ctx.box.db.create_job(message.skill_id, message.cron_expression,
                                                  message.enabled)
    return {"type": "cron_response", "job": job.wire()}


@handles(m.CronUpdate)
@_skill_replies(changes=True)
async def cron_update(ctx: Context, message: m.CronUpdate) -> dict[str, Any]:
    job = await ctx.box.db.update_job(message.id, message.fields)
    return {"type": "cron_response", "job": job.wire()}


@handles(m.CronDelete)
@_skill_replies(changes=True)
async def cron_delete(ctx: Context, message: m.CronDelete) -> dict[str, Any]:
    if not await ctx.box.db.delete_job(message.id):
        raise SkillError(f"no cron job {str(message.id)[:64]!r}", not_found=True)
    return {"type": "cron_delete_response", "id": message.id}
