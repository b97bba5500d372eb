"""The ``nekoni-edge`` command: serve, demo, chat, devices."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Any

from nekoni_edge import __version__
from nekoni_edge.config import Settings, load_settings
from nekoni_edge.errors import NekoniError

DEFAULT_CONFIG = Path("/etc/nekoni-edge/config.toml")
DEFAULT_QUESTION = "In one sentence, what is a cat?"


def _client_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "nekoni-edge"


def _add_settings_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help=f"TOML config file (default {DEFAULT_CONFIG})")
    parser.add_argument("--data-dir", type=Path, help="where the database and key live")


def _settings(args: argparse.Namespace, **overrides: Any) -> Settings:
    config = args.config
    if config is None and DEFAULT_CONFIG.is_file():
        config = DEFAULT_CONFIG
    return load_settings(config, data_dir=args.data_dir, **overrides)


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
    _add_settings_args(serve)
    serve.add_argument("--host", help="address to listen on (default 0.0.0.0)")
    serve.add_argument("--port", type=int, help="HTTP/signaling port (default 8470)")
    serve.add_argument("--model", type=Path, help="GGUF model file (default: the embedded one)")

    demo = sub.add_parser(
        "demo", help="start a box on a temporary dir, pair a phone client, stream one answer"
    )
    demo.add_argument("--question", default=DEFAULT_QUESTION)
    demo.add_argument("--model", type=Path, help="GGUF model file (default: the embedded one)")

    chat = sub.add_parser("chat", help="chat with a box as a phone would")
    chat.add_argument("--host", required=True, help="the box's address")
    chat.add_argument("--port", type=int, default=8470)
    chat.add_argument("--key-file", type=Path, help="this client's key (created if missing)")
    chat.add_argument("--session", default="cli", help="conversation id (default: cli)")
    chat.add_argument("message", nargs="*", help="ask this and exit (default: read lines)")

    key = sub.add_parser("client-key", help="print this client's public key (to approve it)")
    key.add_argument("--key-file", type=Path, help="this client's key (created if missing)")

    devices = sub.add_parser("devices", help="approve, list and revoke phones by hand")
    _add_settings_args(devices)
    dsub = devices.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = dsub.add_parser("add", help="approve a phone's public key")
    add.add_argument("pub_key")
    add.add_argument("--name", default="")
    dsub.add_parser("list", help="list approved phones")
    remove = dsub.add_parser("remove", help="revoke a phone's key")
    remove.add_argument("pub_key")
    return parser


async def _serve(args: argparse.Namespace) -> int:
    from nekoni_edge.daemon import Daemon  # noqa: PLC0415 - keeps --help fast

    settings = _settings(args, host=args.host, port=args.port, model_path=args.model)
    await Daemon(settings).serve_forever()
    return 0


def _client_key(path: Path | None) -> tuple[Path, object]:
    from nekoni_edge.identity import load_or_create_key  # noqa: PLC0415

    path = path or _client_dir() / "client-key.pem"
    return path, load_or_create_key(path)


async def _stream_answer(client: object, question: str, session: str) -> str:
    from nekoni_edge.client.phone import PhoneClient  # noqa: PLC0415

    assert isinstance(client, PhoneClient)  # noqa: S101
    pieces: list[str] = []
    async with aclosing(client.ask(question, session)) as stream:
        async for piece in stream:
            pieces.append(piece)
            sys.stdout.write(piece)
            sys.stdout.flush()
    sys.stdout.write("\n")
    return "".join(pieces)


async def _chat(args: argparse.Namespace) -> int:
    from nekoni_edge.client.phone import PhoneClient  # noqa: PLC0415

    _, key = _client_key(args.key_file)
    base_url = f"http://{args.host}:{args.port}"
    known_path = _client_dir() / "known_boxes.json"
    known: dict[str, str] = json.loads(known_path.read_text()) if known_path.is_file() else {}
    client = PhoneClient(key, base_url, agent_pub_key=known.get(base_url))  # type: ignore[arg-type]
    async with client:
        if base_url not in known and client.agent_pub_key:
            known[base_url] = client.agent_pub_key
            known_path.parent.mkdir(parents=True, exist_ok=True)
            known_path.write_text(json.dumps(known, indent=2))
        if args.message:
            await _stream_answer(client, " ".join(args.message), args.session)
            return 0
        loop = asyncio.get_running_loop()
        while True:
            sys.stdout.write("> ")
            sys.stdout.flush()
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return 0
            if line.strip():
                await _stream_answer(client, line.strip(), args.session)


async def _client_key_cmd(args: argparse.Namespace) -> int:
    from nekoni_edge.protocol.canonical import public_key_b64  # noqa: PLC0415

    path, key = _client_key(args.key_file)
    print(public_key_b64(key))  # type: ignore[arg-type]
    print(f"(key file {path})", file=sys.stderr)
    return 0


async def _devices(args: argparse.Namespace) -> int:
    from nekoni_edge.protocol.canonical import is_valid_public_key  # noqa: PLC0415
    from nekoni_edge.store.database import Database  # noqa: PLC0415

    settings = _settings(args)
    async with await Database.open(settings.db_path) as db:
        if args.action == "add":
            if not is_valid_public_key(args.pub_key):
                print("error: not a public key (base64url of 32 bytes)", file=sys.stderr)
                return 2
            added = await db.approve_device(args.pub_key, args.name)
            print("approved" if added else "already approved")
        elif args.action == "remove":
            removed = await db.remove_device(args.pub_key)
            print("removed" if removed else "not found")
            return 0 if removed else 1
        else:
            for d in await db.list_devices():
                seen = time.strftime("%Y-%m-%d %H:%M", time.localtime(d.last_seen / 1000)) \
                    if d.last_seen else "never"
                print(f"{d.pub_key}  {d.name or '-'}  last seen {seen}")
    return 0


async def _demo(args: argparse.Namespace) -> int:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: PLC0415
        Ed25519PrivateKey,
    )

    from nekoni_edge.client.phone import PhoneClient  # noqa: PLC0415
    from nekoni_edge.daemon import Daemon  # noqa: PLC0415
    from nekoni_edge.pairing.control import send_command  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="nekoni-demo-") as tmp:
        settings = load_settings(
            env={}, data_dir=Path(tmp), host="127.0.0.1", port=0,
            ice_addresses=("127.0.0.1",), model_path=args.model, mdns=False, gpio="off",
        )
        daemon = Daemon(settings)
        await daemon.start()
        try:
            assert daemon.db is not None  # noqa: S101
            if daemon.chat is None or daemon.chat.provider is None:
                print(f"error: {daemon.chat.model_error if daemon.chat else 'no model'}",
                      file=sys.stderr)
                return 1
            print(f"box {daemon.pub_key} on 127.0.0.1:{daemon.port}, "
                  f"model {daemon.chat.provider.name}", file=sys.stderr)
            client = PhoneClient(Ed25519PrivateKey.generate(), f"http://127.0.0.1:{daemon.port}")
            try:
                pairing = asyncio.create_task(client.pair("demo phone", poll_s=0.1))
                while daemon.pairing is not None and not daemon.pairing.window.is_open:  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
                print("phone asked to pair; pressing the box's button (simulated, as "
                      "'nekoni-edge press' does)", file=sys.stderr)
                await send_command(settings.control_path, "press")
                print(f"pairing: {await pairing}", file=sys.stderr)
                started = time.monotonic()
                await client.connect()
                print(f"phone connected over WebRTC in {time.monotonic() - started:.2f} s; "
                      "handshake passed", file=sys.stderr)
                print(f"you> {args.question}")
                sys.stdout.write("box> ")
                started = time.monotonic()
                answer = await _stream_answer(client, args.question, "demo")
                print(f"({len(answer)} characters streamed in "
                      f"{time.monotonic() - started:.2f} s)", file=sys.stderr)
            finally:
                await client.close()
            return 0 if answer.strip() else 1
        finally:
            await daemon.stop()


async def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run one command; return the exit code."""
    from nekoni_edge.log import setup_logging  # noqa: PLC0415

    args = build_parser().parse_args(argv)
    setup_logging(args.log_level or ("WARNING" if args.command in ("demo", "chat") else "INFO"))
    handlers = {"serve": _serve, "demo": _demo, "chat": _chat, "devices": _devices,
                "client-key": _client_key_cmd}
    try:
        return await handlers[args.command](args)
    except NekoniError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def cli_entry_point() -> None:
    """Console script: run ``main`` and exit with its code."""
    try:
        sys.exit(asyncio.run(main()))
    except KeyboardInterrupt:
        sys.exit(130)
