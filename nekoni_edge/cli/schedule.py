"""Skills and cron jobs at the box: ``skills`` and ``cron``."""

from __future__ import annotations

import argparse
import time
from typing import Any

from nekoni_edge.cli.common import (
    _at_the_box,
    _reply,
    _said,
    _settings,
    _settings_args_after,
    command,
)


async def _skills(args: argparse.Namespace) -> int:
    settings = _settings(args)
    messages: dict[str, dict[str, Any]] = {
        "list": {"type": "skill_list"},
        "create": {"type": "skill_create", "name": args.name if args.action == "create" else "",
                   "prompt": getattr(args, "prompt", ""),
                   "description": getattr(args, "description", "")},
        "delete": {"type": "skill_delete", "id": getattr(args, "skill_id", "")},
        "run": {"type": "skill_run", "id": getattr(args, "skill_id", "")},
    }
    replies = await _at_the_box(settings, messages[args.action],
                                with_model=args.action == "run")
    return _print_skill_replies(args.action, replies)


def _deleted(replies: list[dict[str, Any]]) -> int:
    """A delete's answer: "not found" (exit 1) for an unknown id, else as ``_said``."""
    if any(r.get("type") == "skill_error" and r.get("code") == "NOT_FOUND" for r in replies):
        print("not found")
        return 1
    code = _said(replies, "", "", "")
    if code is not None:
        return code
    print("deleted")
    return 0


def _print_skill_replies(action: str, replies: list[dict[str, Any]]) -> int:
    if action == "delete":
        return _deleted(replies)
    code = _said(replies, "", "", "")
    if code is not None:
        return code
    if action == "create":
        print(_reply(replies, "skill_response")["skill"]["id"])
    elif action == "run":
        print(_reply(replies, "skill_run_response")["result"])
    else:
        for skill in _reply(replies, "skill_list_response")["skills"]:
            print(f"{skill['id']}  {skill['name']}  {skill['prompt'][:60]!r}")
    return 0


async def _cron(args: argparse.Namespace) -> int:
    settings = _settings(args)
    messages: dict[str, dict[str, Any]] = {
        "list": {"type": "cron_list"},
        "create": {"type": "cron_create", "skillId": getattr(args, "skill_id", ""),
                   "cronExpression": getattr(args, "expression", ""),
                   "enabled": not getattr(args, "disabled", False)},
        "delete": {"type": "cron_delete", "id": getattr(args, "job_id", "")},
    }
    replies = await _at_the_box(settings, messages[args.action])
    if args.action == "delete":
        return _deleted(replies)
    code = _said(replies, "", "", "")
    if code is not None:
        return code
    if args.action == "create":
        print(_reply(replies, "cron_response")["job"]["id"])
    else:
        for job in _reply(replies, "cron_list_response")["jobs"]:
            _print_job(job["id"], job["skillId"], job["cronExpression"], job["enabled"],
                       job["lastRun"])
    return 0


def _print_job(job_id: str, skill_id: str, expression: str, enabled: bool,
               last_run: int | None) -> None:
    last = time.strftime("%Y-%m-%d %H:%M", time.gmtime(last_run / 1000)) if last_run else "never"
    print(f"{job_id}  {skill_id}  {expression!r:<16} {'on ' if enabled else 'off'}  "
          f"last run {last} UTC")


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register this module's commands, each with its handler."""
    skills = command(sub, _skills, "skills", help="owner-defined skills: a named prompt")
    skills_sub = skills.add_subparsers(dest="action", required=True, metavar="ACTION")
    skills_sub.add_parser("list", help="list skills")
    create = skills_sub.add_parser("create", help="create a skill")
    create.add_argument("name")
    create.add_argument("prompt")
    create.add_argument("--description", default="")
    for verb in ("delete", "run"):
        p = skills_sub.add_parser(verb, help=f"{verb} a skill")
        p.add_argument("skill_id")

    cron = command(sub, _cron, "cron", help="run skills on a schedule (UTC cron expressions)")
    cron_sub = cron.add_subparsers(dest="action", required=True, metavar="ACTION")
    cron_sub.add_parser("list", help="list cron jobs")
    cron_create = cron_sub.add_parser("create", help="schedule a skill")
    cron_create.add_argument("skill_id")
    cron_create.add_argument("expression", help="five fields, e.g. '0 7 * * *'")
    cron_create.add_argument("--disabled", action="store_true")
    cron_delete = cron_sub.add_parser("delete", help="delete a cron job")
    cron_delete.add_argument("job_id")
    for actions in (skills_sub, cron_sub,):
        _settings_args_after(actions)
