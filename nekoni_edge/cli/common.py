"""What every command at the box shares: its settings options, and its one way to the box's
handlers (the running daemon's, or the same handlers here when none serves)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nekoni_edge.config import Settings, load_settings

DEFAULT_CONFIG = Path("/etc/nekoni-edge/config.toml")


def _add_settings_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help=f"TOML config file (default {DEFAULT_CONFIG})")
    parser.add_argument("--data-dir", type=Path, help="where the database and key live")


def command(sub: argparse._SubParsersAction, func: Any, name: str,  # type: ignore[type-arg]
            *, help: str, at_the_box: bool = True) -> argparse.ArgumentParser:
    """A command and its handler, registered once; one at the box takes the settings
    options (``--config``, ``--data-dir``)."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help)
    parser.set_defaults(func=func)
    if at_the_box:
        _add_settings_args(parser)
    return parser


def _settings_args_after(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Accept --config and --data-dir after an action too (``devices remove KEY --data-dir
    D``); given nowhere there, the command's own value stands."""
    for leaf in actions.choices.values():
        leaf.add_argument("--config", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        leaf.add_argument("--data-dir", type=Path, default=argparse.SUPPRESS,
                          help=argparse.SUPPRESS)


def _settings(args: argparse.Namespace, **overrides: Any) -> Settings:
    config = args.config
    if config is None and DEFAULT_CONFIG.is_file():
        config = DEFAULT_CONFIG
    return load_settings(config, data_dir=args.data_dir, **overrides)


async def _at_the_box(settings: Settings, message: dict[str, Any], *,
                      with_model: bool = False) -> list[dict[str, Any]]:
    """The box's replies to ``message``: the running daemon's, or, when no daemon serves this
    data dir, the same handlers run here on a box over its files (the model loaded only if
    ``with_model``). A daemon that answers and refuses raises ``ControlRefused``."""
    from nekoni_edge.app import local
    from nekoni_edge.transport.control import NO_DAEMON, send_request

    try:
        return await send_request(settings.control_path, message)
    except NO_DAEMON:
        pass
    daemon, box = await _here(settings, with_model=with_model)
    try:
        return await local.request(box, message)
    finally:
        await daemon.stop()


async def _daemon_serves(settings: Settings) -> bool:
    """True if a daemon answers on this data dir's control socket."""
    from nekoni_edge.transport.control import NO_DAEMON, send_request

    try:
        await send_request(settings.control_path, {"type": "ping"})
    except NO_DAEMON:
        return False
    return True


async def _here(settings: Settings, *, with_model: bool) -> tuple[Any, Any]:
    """No daemon serves the data dir: a box started here (no network) for the same handlers,
    and the ``Box`` its requests go through; said on stderr."""
    from nekoni_edge.daemon import Daemon

    print(f"(no daemon serves {settings.data_dir}: the box's handlers run here)",
          file=sys.stderr)
    daemon = Daemon(dataclasses.replace(settings, mdns=False, gpio="off"))
    return daemon, await daemon.start_local(with_model=with_model)


def _refused(replies: list[dict[str, Any]]) -> str | None:
    """The words of an error reply among ``replies``, if any."""
    for reply in replies:
        if reply.get("type") in ("error", "skill_error", "rag_error"):
            return str(reply.get("message"))
    return None


def _printed_refusal(replies: list[dict[str, Any]]) -> bool:
    """Print the words of an error reply among ``replies`` (the one way a refusal is shown);
    True if there was one."""
    if (refusal := _refused(replies)) is None:
        return False
    print(f"error: {refusal}", file=sys.stderr)
    return True


def _reply(replies: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(r for r in replies if r.get("type") == kind)


def _said(replies: list[dict[str, Any]], kind: str, flag: str, done: str) -> int | None:
    """The daemon's answer to a change: 2 printed with its words if refused; with ``kind``,
    ``done`` or "not found" by the reply's ``flag`` (exit 0 or 1); None: the caller prints."""
    if _printed_refusal(replies):
        return 2
    if not kind:
        return None
    ok = bool(_reply(replies, kind)[flag])
    print(done if ok else "not found")
    return 0 if ok else 1


async def _change_or_list(settings: Settings, change: dict[str, Any] | None,
                          changed: tuple[str, str], listing: str, field: str,
                          show: Callable[[dict[str, Any]], None]) -> int:
    """``change`` (its reply's type and the flag saying it was done, printed as the flag's
    name or "not found"), or, with none, the ``listing`` request's ``field``, each shown."""
    replies = await _at_the_box(settings, change or {"type": listing})
    kind, flag = changed
    code = _said(replies, kind if change is not None else "", flag, flag)
    if code is not None:
        return code
    for item in _reply(replies, f"{listing}_response")[field]:
        show(item)
    return 0
