"""The box's administration at the box: serve, the button, its QR codes, devices, documents,
skills, cron, traces, configuration."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from nekoni_edge.cli.common import (
    _at_the_box,
    _change_or_list,
    _daemon_serves,
    _printed_refusal,
    _refused,
    _reply,
    _settings,
    _settings_args_after,
    command,
)


async def _serve(args: argparse.Namespace) -> int:
    from nekoni_edge.daemon import Daemon  # keeps --help fast

    settings = _settings(args, host=args.host, port=args.port, model_path=args.model)
    await Daemon(settings).serve_forever()
    return 0


async def _press(args: argparse.Namespace) -> int:
    from nekoni_edge.transport.control import send_command

    settings = _settings(args)
    try:
        answer = await send_command(settings.control_path, "long_press" if args.long else "press")
    except OSError as exc:
        print(f"error: cannot reach the daemon at {settings.control_path}: {exc}",
              file=sys.stderr)
        return 1
    print(answer)
    return 0 if answer == "ok" else 1


async def _qr(args: argparse.Namespace) -> int:
    from nekoni_edge import qr
    from nekoni_edge.transport.control import send_request

    settings = _settings(args)
    try:  # the box's ports and addresses are the running daemon's
        replies = await send_request(settings.control_path, {"type": "pair_code",
                                                             "app": args.app,
                                                             "label": args.label})
    except OSError as exc:
        print(f"error: the box is not running (no daemon at {settings.control_path}: {exc}); "
              "start it first", file=sys.stderr)
        return 1
    if _printed_refusal(replies):
        return 2
    text = str(_reply(replies, "pair_code_response")["text"])
    if args.text:
        print(text)
        return 0
    inverted = args.app == "web"  # nekoni's web app reads only light-on-dark codes
    if args.png is not None:
        await asyncio.to_thread(qr.png, text, args.png, inverted=inverted)
        print(f"(written to {args.png})", file=sys.stderr)
    print(qr.terminal(text))
    print(f"Scan this with nekoni's {args.app} app (Add agent), then press the box's button.")
    if args.label:
        print("This is the box's own code: whoever scans it can pair with a press, so keep it "
              "with the box (print it on the label), never on a shared screen.")
    if args.app == "web":
        print("The web app's scanner reads light-on-dark codes: use --png, or the box's page.")
    return 0


async def _request(args: argparse.Namespace) -> int:
    """Any message, through the same door as every command: every new message reaches the
    box from the command line without a change here."""
    try:
        message = json.loads(args.message)
    except ValueError as exc:
        print(f"error: the message is not JSON: {exc}", file=sys.stderr)
        return 2
    if not isinstance(message, dict):
        print("error: the message must be a JSON object with a type", file=sys.stderr)
        return 2
    replies = await _at_the_box(_settings(args), message, with_model=args.model)
    for reply in replies:
        print(json.dumps(reply, ensure_ascii=False))
    return 2 if _refused(replies) is not None else 0


async def _devices(args: argparse.Namespace) -> int:

    settings = _settings(args)
    if args.action == "add":  # the box's owner approves a key by hand, through the handlers
        replies = await _at_the_box(settings, {"type": "device_add",
                                               "mobilePubKey": args.pub_key, "name": args.name})
        if _printed_refusal(replies):
            return 2
        print("approved" if _reply(replies, "device_add_response")["added"]
              else "already approved: confirmed (no longer on probation)")
        return 0
    remove = {"type": "device_remove", "mobilePubKey": args.pub_key} \
        if args.action == "remove" else None
    return await _change_or_list(
        settings, remove, ("device_remove_response", "removed"), "device_list", "devices",
        lambda d: _print_device(d["mobilePubKey"], d["name"], d["lastSeen"]))


def _print_device(pub_key: str, name: str, last_seen: int | None) -> None:
    seen = time.strftime("%Y-%m-%d %H:%M", time.localtime(last_seen / 1000)) \
        if last_seen else "never"
    print(f"{pub_key}  {name or '-'}  last seen {seen}")


async def _traces(args: argparse.Namespace) -> int:
    settings = _settings(args)
    after = 0
    while True:
        request: dict[str, Any] = {"type": "trace_list", "afterId": after,
                                   "limit": args.limit if not after else 1000}
        if args.session:
            request["sessionId"] = args.session
        replies = await _at_the_box(settings, request)
        if _printed_refusal(replies):
            return 2
        for event in _reply(replies, "trace_list_response")["events"]:
            after = max(after, int(event["row"]))
            stamp = time.strftime("%H:%M:%S", time.localtime(event["timestamp"] / 1000))
            phase = event["data"].get("phase", "")
            extra = {k: v for k, v in event["data"].items() if k != "phase"}
            print(f"{stamp} {event['sessionId'][:20]:<20} {event['type']:<11} {phase:<8} "
                  f"{json.dumps(extra, ensure_ascii=False)[:120]}", flush=True)
        if not args.follow:
            return 0
        if not await _daemon_serves(settings):
            # Nothing writes traces without a daemon: following would start and stop the
            # box's handlers here every half second to read the same rows.
            print(f"(no daemon serves {settings.data_dir}: no new events will come)",
                  file=sys.stderr)
            return 0
        await asyncio.sleep(0.5)


async def _config(args: argparse.Namespace) -> int:
    from nekoni_edge.config import describe

    print(describe(_settings(args)))
    return 0


async def _doctor(args: argparse.Namespace) -> int:
    from nekoni_edge.doctor import as_dicts, as_table, run_checks

    checks = await asyncio.get_running_loop().run_in_executor(None, run_checks, _settings(args))
    print(json.dumps(as_dicts(checks), indent=2) if args.json else as_table(checks))
    return 1 if any(c.status == "fail" for c in checks) else 0


async def _identity(args: argparse.Namespace) -> int:
    from nekoni_edge.identity import box_name, load_or_create_key
    from nekoni_edge.protocol.canonical import public_key_b64

    key = load_or_create_key(_settings(args).key_path)
    print(f"pubKey {public_key_b64(key)}")
    print(f"name {box_name(key)}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register this module's commands, each with its handler."""
    serve = command(sub, _serve, "serve",
                    help="run the daemon until SIGTERM")
    serve.add_argument("--host", help="address to listen on (default 0.0.0.0)")
    serve.add_argument("--port", type=int, help="HTTP/signaling port (default 8470)")
    serve.add_argument("--model", type=Path, help="GGUF model file (default: the embedded one)")

    press = command(sub, _press, "press",
                    help="simulate the box's button (on the box itself)")
    press.add_argument("--long", action="store_true", help="a long press: clear all pairings")

    code = command(sub, _qr, "qr",
                    help="show the QR code nekoni's apps scan to add this box (on the box itself, "
                         "while it runs)")
    code.add_argument("--app", choices=("mobile", "web"), default="mobile",
                      help="which nekoni app scans it (default: mobile)")
    code.add_argument("--png", type=Path, metavar="FILE", help="also write it as a PNG image")
    code.add_argument("--text", action="store_true", help="print only the code's text")
    code.add_argument("--label", action="store_true",
                      help="the label's code, with the box's setup code: a phone that scans it "
                           "is paired by a press whoever else asks (keep it with the box)")

    request = command(sub, _request, "request",
                    help="send any message to the box as a phone would (JSON), print its replies "
                         "(one JSON line each)")
    request.add_argument("message", help='e.g. \'{"type": "device_rename", "mobilePubKey": '
                                         '"...", "name": "Kitchen tablet"}\'')
    request.add_argument("--model", action="store_true",
                         help="load the model when no daemon serves (a chat, a skill run)")

    config = command(sub, _config, "config",
                    help="show the effective configuration")
    config.add_argument("action", choices=["show"])

    doctor = command(sub, _doctor, "doctor",
                    help="check what the box needs; non-zero exit on failure")
    doctor.add_argument("--json", action="store_true", help="machine-readable output")

    command(sub, _identity, "identity",
                    help="create (if needed) and show the box's key and default name")

    traces = command(sub, _traces, "traces",
                    help="what the agent did, step by step")
    traces.add_argument("--session", help="only this session")
    traces.add_argument("--follow", action="store_true", help="keep printing new events")
    traces.add_argument("--limit", type=int, default=50)

    devices = command(sub, _devices, "devices",
                    help="approve, list and revoke phones by hand")
    dsub = devices.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = dsub.add_parser("add", help="approve a phone's public key")
    add.add_argument("pub_key")
    add.add_argument("--name", default="")
    dsub.add_parser("list", help="list approved phones")
    remove = dsub.add_parser("remove", help="revoke a phone's key")
    remove.add_argument("pub_key")
    for actions in (dsub,):
        _settings_args_after(actions)
