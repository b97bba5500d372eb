"""Skills (a named prompt) and cron jobs that run them; nekoni's ``skill_*`` / ``cron_*``."""

from __future__ import annotations

import logging
from contextlib import aclosing
from typing import Any

from nekoni_edge.app.registry import Context, handles, require_trusted
from nekoni_edge.errors import NekoniError
from nekoni_edge.protocol import messages as m
from nekoni_edge.skills.scheduler import run_skill
from nekoni_edge.store.skills import SkillError, SkillStore

_LOGGER = logging.getLogger(__name__)

# What a device on probation may not do yet: skills are the household's (their prompts and
# runs may hold secrets), so it neither changes nor reads nor runs them.
CHANGES = frozenset({"skill_create", "skill_update", "skill_delete", "cron_create",
                     "cron_update", "cron_delete"})
READS = frozenset({"skill_list", "skill_run", "cron_list"})


@handles(m.SkillRequest)
async def skill_request(ctx: Context, message: m.SkillRequest) -> dict[str, Any]:
    """Every failure is ``skill_error``: the only error nekoni's apps show for skills."""
    try:
        return await _skill_request(ctx, message)
    except SkillError as exc:
        return exc.reply()
    except NekoniError as exc:  # probation, the model, the store: said in words, with a code
        reply = exc.reply() or {}
        return {"type": "skill_error", "message": str(exc),
                "code": str(reply.get("code") or "INTERNAL_ERROR")}
    except Exception:
        _LOGGER.exception("%s: %s failed", ctx.label, message.type)
        return {"type": "skill_error", "message": f"{message.type} failed on the box; "
                                                  "see its log", "code": "INTERNAL_ERROR"}


async def _skill_request(ctx: Context, message: m.SkillRequest) -> dict[str, Any]:
    store = SkillStore(ctx.box.db)
    kind, f = message.type, message.fields
    if kind in CHANGES:
        await require_trusted(ctx, "change skills and cron jobs")
    if kind in READS:
        await require_trusted(ctx, "see and run the household's skills")
    if kind == "skill_list":
        return {"type": "skill_list_response", "skills": [s.wire() for s in await store.skills()]}
    if kind == "skill_create":
        skill = await store.create_skill(f.get("name"), f.get("prompt"), f.get("description"))
        return {"type": "skill_response", "skill": skill.wire()}
    if kind == "skill_update":
        return {"type": "skill_response",
                "skill": (await store.update_skill(f.get("id"), f)).wire()}
    if kind == "skill_delete":
        # nekoni's apps drop the skill from their list on this reply: an unknown id is an error.
        if not await store.delete_skill(f.get("id")):
            raise SkillError(f"no skill {str(f.get('id'))[:64]!r}", not_found=True)
        return {"type": "skill_delete_response", "id": f.get("id")}
    if kind == "skill_run":
        # As nekoni's agent: nothing streams (its web app shows any ``chunk`` as a chat bubble);
        # the result comes whole in the reply, and the run is kept in the skill's session.
        skill = await store.skill(f.get("id"))
        async with aclosing(run_skill(ctx.box.chat, skill)) as stream:
            pieces = [piece async for piece in stream]
        return {"type": "skill_run_response", "id": skill.id,
                "result": "".join(pieces).strip()}
    if kind == "cron_list":
        jobs = await store.jobs()
        if f.get("skillId") is not None:  # nekoni's optional filter
            jobs = [j for j in jobs if j.skill_id == f.get("skillId")]
        return {"type": "cron_list_response", "jobs": [j.wire() for j in jobs]}
    if kind == "cron_create":
        job = await store.create_job(f.get("skillId"), f.get("cronExpression"),
                                     f.get("enabled", True))
        return {"type": "cron_response", "job": job.wire()}
    if kind == "cron_update":
        return {"type": "cron_response", "job": (await store.update_job(f.get("id"), f)).wire()}
    if kind == "cron_delete":
        if not await store.delete_job(f.get("id")):
            raise SkillError(f"no cron job {str(f.get('id'))[:64]!r}", not_found=True)
        return {"type": "cron_delete_response", "id": f.get("id")}
    raise AssertionError(f"skill request {kind!r} parsed but not handled")  # SKILL_TYPES
