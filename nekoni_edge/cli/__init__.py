"""The ``nekoni-edge`` command: the box's administration (``admin``), a phone client
(``phone``) and the demo (``demo``), each command registered once."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from nekoni_edge import __version__
from nekoni_edge.cli.admin import (
    _ask,
    _config,
    _cron,
    _devices,
    _docs,
    _doctor,
    _identity,
    _ingest,
    _press,
    _qr,
    _request,
    _serve,
    _skills,
    _traces,
)
from nekoni_edge.cli.common import _add_settings_args, _settings_args_after
from nekoni_edge.cli.demo import DEFAULT_QUESTION, _demo
from nekoni_edge.cli.phone import _add_box_args, _chat, _client_key_cmd, _discover, _pair, box_url
from nekoni_edge.errors import NekoniError

__all__ = ["box_url", "build_parser", "cli_entry_point", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The whole command line."""
    parser = argparse.ArgumentParser(
        prog="nekoni-edge",
        description="nekoni_edge: an offline LLM agent in a box, reached from a paired phone "
        "over WebRTC.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--log-level", default=None, help="DEBUG, INFO, WARNING or ERROR")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the daemon until SIGTERM")
    serve.set_defaults(func=_serve)
    _add_settings_args(serve)
    serve.add_argument("--host", help="address to listen on (default 0.0.0.0)")
    serve.add_argument("--port", type=int, help="HTTP/signaling port (default 8470)")
    serve.add_argument("--model", type=Path, help="GGUF model file (default: the embedded one)")

    demo = sub.add_parser(
        "demo", help="start a box on a temporary dir, pair a phone client, stream one answer"
    )
    demo.set_defaults(func=_demo)
    demo.add_argument("--question", default=DEFAULT_QUESTION)
    demo.add_argument("--model", type=Path, help="GGUF model file (default: the embedded one)")

    chat = sub.add_parser("chat", help="chat with a box as a phone would")
    chat.set_defaults(func=_chat)
    _add_box_args(chat)
    chat.add_argument("--session", help="conversation id (default: this client's own)")
    chat.add_argument("message", nargs="*", help="ask this and exit (default: read lines)")

    pair = sub.add_parser("pair", help="ask a box to pair this client; then press its button")
    pair.set_defaults(func=_pair)
    _add_box_args(pair)
    pair.add_argument("--device-name", default="", help="how the box lists this client")

    discover = sub.add_parser("discover", help="list the boxes on this network (mDNS)")
    discover.set_defaults(func=_discover)
    discover.add_argument("--timeout", type=float, default=3.0, help="seconds to listen")
    discover.add_argument("--interface", action="append", default=[],
                          help="only this local address (repeatable)")

    press = sub.add_parser("press", help="simulate the box's button (on the box itself)")
    press.set_defaults(func=_press)
    _add_settings_args(press)
    press.add_argument("--long", action="store_true", help="a long press: clear all pairings")

    code = sub.add_parser("qr", help="show the QR code nekoni's apps scan to add this box "
                                      "(on the box itself, while it runs)")
    code.set_defaults(func=_qr)
    _add_settings_args(code)
    code.add_argument("--app", choices=("mobile", "web"), default="mobile",
                      help="which nekoni app scans it (default: mobile)")
    code.add_argument("--png", type=Path, metavar="FILE", help="also write it as a PNG image")
    code.add_argument("--text", action="store_true", help="print only the code's text")
    code.add_argument("--label", action="store_true",
                      help="the label's code, with the box's setup code: a phone that scans it "
                           "is paired by a press whoever else asks (keep it with the box)")

    key = sub.add_parser("client-key", help="print this client's public key (to approve it)")
    key.set_defaults(func=_client_key_cmd)
    key.add_argument("--key-file", type=Path, help="this client's key (created if missing)")

    ingest = sub.add_parser("ingest", help="add documents (text, Markdown, PDF) to the box's "
                            "knowledge base")
    ingest.set_defaults(func=_ingest)
    _add_settings_args(ingest)
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")

    docs = sub.add_parser("docs", help="list or delete documents in the knowledge base")
    docs.set_defaults(func=_docs)
    _add_settings_args(docs)
    docs_sub = docs.add_subparsers(dest="action", required=True, metavar="ACTION")
    docs_sub.add_parser("list", help="list documents")
    docs_delete = docs_sub.add_parser("delete", help="delete a document by id")
    docs_delete.add_argument("doc_id")

    ask = sub.add_parser("ask", help="show the knowledge-base chunks a question retrieves")
    ask.set_defaults(func=_ask)
    _add_settings_args(ask)
    ask.add_argument("question")
    ask.add_argument("--top-k", type=int, default=None, help="how many chunks (default 5)")

    request = sub.add_parser("request", help="send any message to the box as a phone would "
                                             "(JSON), print its replies (one JSON line each)")
    request.set_defaults(func=_request)
    _add_settings_args(request)
    request.add_argument("message", help='e.g. \'{"type": "device_rename", "mobilePubKey": '
                                         '"...", "name": "Kitchen tablet"}\'')
    request.add_argument("--model", action="store_true",
                         help="load the model when no daemon serves (a chat, a skill run)")

    config = sub.add_parser("config", help="show the effective configuration")
    config.set_defaults(func=_config)
    _add_settings_args(config)
    config.add_argument("action", choices=["show"])

    doctor = sub.add_parser("doctor", help="check what the box needs; non-zero exit on failure")
    doctor.set_defaults(func=_doctor)
    _add_settings_args(doctor)
    doctor.add_argument("--json", action="store_true", help="machine-readable output")

    identity = sub.add_parser("identity", help="create (if needed) and show the box's key "
                              "and default name")
    identity.set_defaults(func=_identity)
    _add_settings_args(identity)

    skills = sub.add_parser("skills", help="owner-defined skills: a named prompt")
    skills.set_defaults(func=_skills)
    _add_settings_args(skills)
    skills_sub = skills.add_subparsers(dest="action", required=True, metavar="ACTION")
    skills_sub.add_parser("list", help="list skills")
    create = skills_sub.add_parser("create", help="create a skill")
    create.add_argument("name")
    create.add_argument("prompt")
    create.add_argument("--description", default="")
    for verb in ("delete", "run"):
        p = skills_sub.add_parser(verb, help=f"{verb} a skill")
        p.add_argument("skill_id")

    cron = sub.add_parser("cron", help="run skills on a schedule (UTC cron expressions)")
    cron.set_defaults(func=_cron)
    _add_settings_args(cron)
    cron_sub = cron.add_subparsers(dest="action", required=True, metavar="ACTION")
    cron_sub.add_parser("list", help="list cron jobs")
    cron_create = cron_sub.add_parser("create", help="schedule a skill")
    cron_create.add_argument("skill_id")
    cron_create.add_argument("expression", help="five fields, e.g. '0 7 * * *'")
    cron_create.add_argument("--disabled", action="store_true")
    cron_delete = cron_sub.add_parser("delete", help="delete a cron job")
    cron_delete.add_argument("job_id")

    traces = sub.add_parser("traces", help="what the agent did, step by step")
    traces.set_defaults(func=_traces)
    _add_settings_args(traces)
    traces.add_argument("--session", help="only this session")
    traces.add_argument("--follow", action="store_true", help="keep printing new events")
    traces.add_argument("--limit", type=int, default=50)

    devices = sub.add_parser("devices", help="approve, list and revoke phones by hand")
    devices.set_defaults(func=_devices)
    _add_settings_args(devices)
    dsub = devices.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = dsub.add_parser("add", help="approve a phone's public key")
    add.add_argument("pub_key")
    add.add_argument("--name", default="")
    dsub.add_parser("list", help="list approved phones")
    remove = dsub.add_parser("remove", help="revoke a phone's key")
    remove.add_argument("pub_key")
    for actions in (docs_sub, skills_sub, cron_sub, dsub):
        _settings_args_after(actions)
    return parser


def _keys_last(argv: Sequence[str]) -> list[str]:
    """``devices add/remove``: a key may start with '-' (base64url), which argparse would take
    for an option; move such a key behind ``--``, where it can only be the positional."""
    args = list(argv)
    if "devices" not in args or "--" in args:
        return args
    from nekoni_edge.protocol.canonical import is_valid_public_key

    keys = [a for a in args if a.startswith("-") and is_valid_public_key(a)]
    if len(keys) != 1:
        return args
    args.remove(keys[0])
    return [*args, "--", keys[0]]


async def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run one command; return the exit code."""
    from nekoni_edge.log import setup_logging

    args = build_parser().parse_args(_keys_last(sys.argv[1:] if argv is None else argv))
    # Only the daemon logs its INFO lines; every other command prints its own words.
    setup_logging(args.log_level or ("INFO" if args.command == "serve" else "WARNING"))
    import aiohttp

    try:
        return int(await args.func(args))
    except NekoniError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except aiohttp.ServerFingerprintMismatch as exc:
        print(f"error: the box's TLS certificate (sha256 {exc.got.hex()}) is not the one with "
              "the fingerprint given; refusing to talk to it", file=sys.stderr)
    except (aiohttp.ClientError, OSError) as exc:
        print(f"error: cannot reach the box: {exc}", file=sys.stderr)
    return 1


def cli_entry_point() -> None:
    """Console script: run ``main`` and exit with its code."""
    try:
        sys.exit(asyncio.run(main()))
    except KeyboardInterrupt:
        sys.exit(130)
