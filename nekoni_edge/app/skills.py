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


# What creating or changing each kind stores, and the reply nekoni's apps expect for it.
_SAVES: dict[type, tuple[str, str, Callable[[Any, Any], Awaitable[Any]]]] = {
    m.SkillCreate: ("skill_response", "skill",
                    lambda db, x: db.create_skill(x.name, x.prompt, x.description)),
    m.SkillUpdate: ("skill_response", "skill", lambda db, x: db.update_skill(x.id, x.fields)),
    m.CronCreate: ("cron_response", "job",
                   lambda db, x: db.create_job(x.skill_id, x.cron_expression, x.enabled)),
    m.CronUpdate: ("cron_response", "job", lambda db, x: db.update_job(x.id, x.fields)),
}


@handles(*_SAVES)
@_skill_replies(changes=True)
async def save(ctx: Context, message: Any) -> dict[str, Any]:
    reply, field, store = _SAVES[type(message)]
    return {"type": reply, field: (await store(ctx.box.db, message)).wire()}


@handles(m.SkillDelete, m.CronDelete)
@_skill_replies(changes=True)
async def delete(ctx: Context, message: m.SkillDelete | m.CronDelete) -> dict[str, Any]:
    # nekoni's apps drop the item from their list on this reply: an unknown id is an error.
    skill = isinstance(message, m.SkillDelete)
    remove = ctx.box.db.delete_skill if skill else ctx.box.db.delete_job
    if not await remove(message.id):
        raise SkillError(f"no {'skill' if skill else 'cron job'} {str(message.id)[:64]!r}",
                         not_found=True)
    return {"type": f"{message.TYPE}_response", "id": message.id}


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
