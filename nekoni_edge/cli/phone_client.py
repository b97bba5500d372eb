"""The phone client on the command line: find a box, pair with it, chat; its key and known boxes."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from contextlib import aclosing
from pathlib import Path
from typing import Any

from nekoni_edge.cli.common import command
from nekoni_edge.errors import NekoniError


def _client_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "nekoni-edge"


def _fingerprint(text: str) -> str:
    """A certificate's SHA-256 as 64 hex digits ('AB:CD:…' accepted), or a clear refusal."""
    digits = text.replace(":", "").strip().lower()
    if len(digits) != 64 or any(c not in "0123456789abcdef" for c in digits):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a SHA-256 fingerprint: 64 hex digits, as the box's /api/info "
            "shows in tlsFingerprint")
    return digits


def _add_box_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="the box's address, host:port, or its URL such as "
                        "https://192.168.1.20:8470 (default: find it by mDNS)")
    parser.add_argument("--port", type=int, default=8470,
                        help="with a bare --host, for plain HTTP (default 8470)")
    parser.add_argument("--tls-fingerprint", type=_fingerprint,
                        help="with an https --host: the SHA-256 of the box's certificate (its "
                        "/api/info and mDNS TXT say it), 64 hex digits, colons allowed")
    parser.add_argument("--name", help="with several boxes on the network, the one to use")
    parser.add_argument("--key-file", type=Path, help="this client's key (created if missing)")


def _client_key(path: Path | None) -> tuple[Path, object]:
    from nekoni_edge.identity import load_or_create_key

    path = path or _client_dir() / "client-key.pem"
    return path, load_or_create_key(path)


async def _stream_answer(client: object, question: str, session: str | None) -> str:
    from nekoni_edge.client.phone import PhoneClient

    assert isinstance(client, PhoneClient)
    pieces: list[str] = []
    async with aclosing(client.ask(question, session)) as stream:
        async for piece in stream:
            pieces.append(piece)
            sys.stdout.write(piece)
            sys.stdout.flush()
    sys.stdout.write("\n")
    return "".join(pieces)


class KnownBoxes:
    """The box keys this client pinned on first pairing (trust on first use)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.keys: dict[str, str] = (
            json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        )

    def pin(self, name: str, pub_key: str) -> None:
        if self.keys.get(name) == pub_key:
            return
        self.keys[name] = pub_key
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.keys, indent=2), encoding="utf-8")


def box_url(host: str, port: int) -> str:
    """``--host`` as a base URL: a URL as given, ``host:port``, ``[v6]:port`` or a bare host
    (with ``--port``)."""
    if "://" in host:
        return host.rstrip("/")
    name, sep, tail = host.rpartition(":")
    if sep and tail.isdigit() and (name.endswith("]") or ":" not in name):
        return f"http://{name}:{tail}"
    return f"http://[{host}]:{port}" if ":" in host and not host.startswith("[") \
        else f"http://{host}:{port}"


async def _find_box(args: argparse.Namespace) -> tuple[str, str, str | None]:
    """(base URL, box name, TLS fingerprint) from --host, or by browsing mDNS."""
    if args.host:
        return box_url(args.host, args.port), args.name or args.host, args.tls_fingerprint
    from nekoni_edge.discovery import browse

    boxes = await browse()
    if args.name:
        boxes = [b for b in boxes if b.name == args.name or b.txt.get("agentName") == args.name]
    if not boxes:
        raise NekoniError("no nekoni box found on this network (is it plugged in? try --host)")
    if len(boxes) > 1:
        names = ", ".join(b.name for b in boxes)
        raise NekoniError(f"several boxes found ({names}): choose one with --name")
    return boxes[0].base_url, boxes[0].name, boxes[0].tls_fingerprint


async def _connected_client(args: argparse.Namespace) -> tuple[Any, KnownBoxes, str]:
    from nekoni_edge.client.phone import PhoneClient

    _, key = _client_key(args.key_file)
    base_url, name, fingerprint = await _find_box(args)
    known = KnownBoxes(_client_dir() / "known_boxes.json")
    client = PhoneClient(key, base_url, agent_pub_key=known.keys.get(name),  # type: ignore[arg-type]
                         tls_fingerprint=fingerprint)
    return client, known, name


async def _pair(args: argparse.Namespace) -> int:
    client, known, name = await _connected_client(args)
    pinned, client.agent_pub_key = client.agent_pub_key, None  # pairing (re)pins on purpose
    try:
        await client.fetch_info()
        if pinned and pinned != client.agent_pub_key:
            print(f"warning: {name} now presents a different key than when it was paired; "
                  "pairing again will trust the new key", file=sys.stderr)
        print(f"asking {name} to pair; press the button on the box (within 2 minutes)…",
              file=sys.stderr)
        status = await client.pair(args.device_name)
        known.pin(name, client.agent_pub_key)
        print(status)
    finally:
        await client.close()
    return 0


async def _chat(args: argparse.Namespace) -> int:
    client, known, name = await _connected_client(args)
    async with client:
        known.pin(name, client.agent_pub_key)
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


async def _discover(args: argparse.Namespace) -> int:
    from nekoni_edge.discovery import browse

    boxes = await browse(args.timeout, args.interface)
    for box in boxes:
        print(f"{box.name}\t{box.base_url}\t"
              f"agentPubKey={box.txt.get('agentPubKey', '?')}\t"
              f"tlsFingerprint={box.tls_fingerprint or '-'}")
    if not boxes:
        print("no nekoni box found", file=sys.stderr)
    return 0 if boxes else 1


async def _client_key_cmd(args: argparse.Namespace) -> int:
    from nekoni_edge.protocol.canonical import public_key_b64

    path, key = _client_key(args.key_file)
    print(public_key_b64(key))  # type: ignore[arg-type]
    print(f"(key file {path})", file=sys.stderr)
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register this module's commands, each with its handler."""
    chat = command(sub, _chat, "chat",
                    help="chat with a box as a phone would",
                    at_the_box=False)
    _add_box_args(chat)
    chat.add_argument("--session", help="conversation id (default: this client's own)")
    chat.add_argument("message", nargs="*", help="ask this and exit (default: read lines)")

    pair = command(sub, _pair, "pair",
                    help="ask a box to pair this client; then press its button",
                    at_the_box=False)
    _add_box_args(pair)
    pair.add_argument("--device-name", default="", help="how the box lists this client")

    discover = command(sub, _discover, "discover",
                    help="list the boxes on this network (mDNS)",
                    at_the_box=False)
    discover.add_argument("--timeout", type=float, default=3.0, help="seconds to listen")
    discover.add_argument("--interface", action="append", default=[],
                          help="only this local address (repeatable)")

    key = command(sub, _client_key_cmd, "client-key",
                    help="print this client's public key (to approve it)",
                    at_the_box=False)
    key.add_argument("--key-file", type=Path, help="this client's key (created if missing)")
