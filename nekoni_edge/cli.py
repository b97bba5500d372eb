"""The ``nekoni-edge`` command: serve, demo, chat, devices."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
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
    _add_box_args(chat)
    chat.add_argument("--session", help="conversation id (default: this client's own)")
    chat.add_argument("message", nargs="*", help="ask this and exit (default: read lines)")

    pair = sub.add_parser("pair", help="ask a box to pair this client; then press its button")
    _add_box_args(pair)
    pair.add_argument("--device-name", default="", help="how the box lists this client")

    discover = sub.add_parser("discover", help="list the boxes on this network (mDNS)")
    discover.add_argument("--timeout", type=float, default=3.0, help="seconds to listen")
    discover.add_argument("--interface", action="append", default=[],
                          help="only this local address (repeatable)")

    press = sub.add_parser("press", help="simulate the box's button (on the box itself)")
    _add_settings_args(press)
    press.add_argument("--long", action="store_true", help="a long press: clear all pairings")

    code = sub.add_parser("qr", help="show the QR code nekoni's apps scan to add this box "
                                      "(on the box itself, while it runs)")
    _add_settings_args(code)
    code.add_argument("--app", choices=("mobile", "web"), default="mobile",
                      help="which nekoni app scans it (default: mobile)")
    code.add_argument("--png", type=Path, metavar="FILE", help="also write it as a PNG image")
    code.add_argument("--text", action="store_true", help="print only the code's text")
    code.add_argument("--label", action="store_true",
                      help="the label's code, with the box's setup code: a phone that scans it "
                           "is paired by a press whoever else asks (keep it with the box)")

    key = sub.add_parser("client-key", help="print this client's public key (to approve it)")
    key.add_argument("--key-file", type=Path, help="this client's key (created if missing)")

    ingest = sub.add_parser("ingest", help="add documents (text, Markdown, PDF) to the box's "
                            "knowledge base")
    _add_settings_args(ingest)
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")

    docs = sub.add_parser("docs", help="list or delete documents in the knowledge base")
    _add_settings_args(docs)
    docs_sub = docs.add_subparsers(dest="action", required=True, metavar="ACTION")
    docs_sub.add_parser("list", help="list documents")
    docs_delete = docs_sub.add_parser("delete", help="delete a document by id")
    docs_delete.add_argument("doc_id")

    ask = sub.add_parser("ask", help="show the knowledge-base chunks a question retrieves")
    _add_settings_args(ask)
    ask.add_argument("question")
    ask.add_argument("--top-k", type=int, default=None, help="how many chunks (default 5)")

    request = sub.add_parser("request", help="send any message to the box as a phone would "
                                             "(JSON), print its replies (one JSON line each)")
    _add_settings_args(request)
    request.add_argument("message", help='e.g. \'{"type": "device_rename", "mobilePubKey": '
                                         '"...", "name": "Kitchen tablet"}\'')
    request.add_argument("--model", action="store_true",
                         help="load the model when no daemon serves (a chat, a skill run)")

    config = sub.add_parser("config", help="show the effective configuration")
    _add_settings_args(config)
    config.add_argument("action", choices=["show"])

    doctor = sub.add_parser("doctor", help="check what the box needs; non-zero exit on failure")
    _add_settings_args(doctor)
    doctor.add_argument("--json", action="store_true", help="machine-readable output")

    identity = sub.add_parser("identity", help="create (if needed) and show the box's key "
                              "and default name")
    _add_settings_args(identity)

    skills = sub.add_parser("skills", help="owner-defined skills: a named prompt")
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
    _add_settings_args(traces)
    traces.add_argument("--session", help="only this session")
    traces.add_argument("--follow", action="store_true", help="keep printing new events")
    traces.add_argument("--limit", type=int, default=50)

    devices = sub.add_parser("devices", help="approve, list and revoke phones by hand")
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


async def _serve(args: argparse.Namespace) -> int:
    from nekoni_edge.daemon import Daemon  # keeps --help fast

    settings = _settings(args, host=args.host, port=args.port, model_path=args.model)
    await Daemon(settings).serve_forever()
    return 0


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


async def _press(args: argparse.Namespace) -> int:
    from nekoni_edge.pairing.control import send_command

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
    from nekoni_edge.pairing.control import send_request

    settings = _settings(args)
    try:  # the box's ports and addresses are the running daemon's
        replies = await send_request(settings.control_path, {"type": "pair_code",
                                                             "app": args.app,
                                                             "label": args.label})
    except OSError as exc:
        print(f"error: the box is not running (no daemon at {settings.control_path}: {exc}); "
              "start it first", file=sys.stderr)
        return 1
    if (refusal := _refused(replies)) is not None:
        print(f"error: {refusal}", file=sys.stderr)
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


async def _client_key_cmd(args: argparse.Namespace) -> int:
    from nekoni_edge.protocol.canonical import public_key_b64

    path, key = _client_key(args.key_file)
    print(public_key_b64(key))  # type: ignore[arg-type]
    print(f"(key file {path})", file=sys.stderr)
    return 0


async def _at_the_box(settings: Settings, message: dict[str, Any], *,
                      with_model: bool = False) -> list[dict[str, Any]]:
    """The box's replies to ``message``: the running daemon's, or, when no daemon serves this
    data dir, the same handlers run here on a box over its files (the model loaded only if
    ``with_model``). A daemon that answers and refuses raises ``ControlRefused``."""
    from nekoni_edge.app import local
    from nekoni_edge.pairing.control import NO_DAEMON, send_request

    try:
        return await send_request(settings.control_path, message)
    except NO_DAEMON:
        pass
    daemon, box = await _here(settings, with_model=with_model)
    try:
        return await local.request(box, message)
    finally:
        await daemon.stop()


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


def _reply(replies: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(r for r in replies if r.get("type") == kind)


def _said(replies: list[dict[str, Any]], kind: str, flag: str, done: str) -> int | None:
    """The daemon's answer to a change: 2 printed with its words if refused; with ``kind``,
    ``done`` or "not found" by the reply's ``flag`` (exit 0 or 1); None: the caller prints."""
    if (refusal := _refused(replies)) is not None:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    if not kind:
        return None
    ok = bool(_reply(replies, kind)[flag])
    print(done if ok else "not found")
    return 0 if ok else 1


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


async def _devices(args: argparse.Namespace) -> int:

    settings = _settings(args)
    if args.action == "add":  # the box's owner approves a key by hand, through the handlers
        replies = await _at_the_box(settings, {"type": "device_add",
                                               "mobilePubKey": args.pub_key, "name": args.name})
        if (refusal := _refused(replies)) is not None:
            print(f"error: {refusal}", file=sys.stderr)
            return 2
        print("approved" if _reply(replies, "device_add_response")["added"]
              else "already approved")
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


async def _demo(args: argparse.Namespace) -> int:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
    )

    from nekoni_edge.client.phone import PhoneClient
    from nekoni_edge.daemon import Daemon
    from nekoni_edge.pairing.control import send_command

    with tempfile.TemporaryDirectory(prefix="nekoni-demo-") as tmp:
        settings = load_settings(
            env={}, data_dir=Path(tmp), host="127.0.0.1", port=0,
            ice_addresses=("127.0.0.1",), model_path=args.model, mdns=False, gpio="off",
        )
        daemon = Daemon(settings)
        await daemon.start()
        try:
            assert daemon.db is not None
            if daemon.chat is None or daemon.chat.provider is None:
                print(f"error: {daemon.chat.model_error if daemon.chat else 'no model'}",
                      file=sys.stderr)
                return 1
            print(f"box {daemon.pub_key} on 127.0.0.1:{daemon.port}, "
                  f"model {daemon.chat.provider.name}", file=sys.stderr)
            client = PhoneClient(Ed25519PrivateKey.generate(), f"http://127.0.0.1:{daemon.port}")
            try:
                pairing = asyncio.create_task(client.pair("demo phone", poll_s=0.1))
                # The LED's fast blink: the phone is asking right now, so a press approves it.
                while daemon.pairing is not None and not daemon.pairing.someone_asking():  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
                print("phone asks to pair; pressing the box's button (simulated, as "
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


def _files(paths: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file()
                                and not any(part.startswith(".") for part in p.parts)))
        else:
            found.append(path)
    return found


def _progress_bar(name: str) -> Any:
    from nekoni_edge.progress import Eta, in_words

    eta: Eta | None = None

    def show(done: int, total: int) -> None:
        nonlocal eta
        eta = eta or Eta(total)
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r  {name[:40]:<40} [{'#' * filled}{'.' * (width - filled)}] "
                         f"{done}/{total} chunks {in_words(eta.seconds_left(done)):<22}")
        sys.stderr.flush()
    return show


class _HereDoor:
    """A conversation with the box's own handlers run in this process (no daemon serves the
    data dir): the same messages and replies as through the daemon's control socket."""

    def __init__(self, box: Any) -> None:
        from nekoni_edge.app import local

        self._in: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(
            local.conversation(box, self._messages(), self._out.put_nowait))

    async def _messages(self) -> AsyncIterator[dict[str, Any]]:
        while (message := await self._in.get()) is not None:
            yield message

    async def send(self, message: dict[str, Any]) -> None:
        await self._in.put(message)

    async def done_sending(self) -> None:
        await self._in.put(None)

    async def reply(self) -> dict[str, Any] | None:
        while self._out.empty() and not self._task.done():
            waiting = asyncio.ensure_future(self._out.get())
            await asyncio.wait({waiting, self._task}, return_when=asyncio.FIRST_COMPLETED)
            if waiting.done():
                return waiting.result()
            waiting.cancel()
        if not self._out.empty():
            return self._out.get_nowait()
        self._task.result()  # what the conversation raised, if anything
        return None

    async def close(self) -> None:
        await self.done_sending()
        await asyncio.wait({self._task})


async def _upload(door: Any, name: str, data: bytes) -> dict[str, Any]:
    """One file as a phone sends it (``rag_upload_start``, base64 segments), then the replies
    up to its result; the ingest's progress shows as a bar. Raises ExtractError on refusal."""
    import base64

    from nekoni_edge.rag.extract import ExtractError
    from nekoni_edge.rag.upload import MAX_SEGMENT_CHARS

    segment = MAX_SEGMENT_CHARS * 3 // 4
    parts = [data[i : i + segment] for i in range(0, len(data), segment)] or [b""]
    upload_id = f"cli-{os.getpid()}-{time.monotonic_ns()}"
    await door.send({"type": "rag_upload_start", "uploadId": upload_id, "filename": name,
                     "totalChunks": len(parts)})
    for index, part in enumerate(parts):
        await door.send({"type": "rag_upload_chunk", "uploadId": upload_id, "index": index,
                         "content": base64.b64encode(part).decode("ascii")})
    await door.done_sending()
    show = _progress_bar(name)
    while (reply := await door.reply()) is not None:
        kind = reply.get("type")
        if kind == "rag_ingest_progress":
            show(int(reply["chunksDone"]), int(reply["chunksTotal"]))
        elif kind == "rag_upload_response":
            result: dict[str, Any] = reply
            return result
        elif kind in ("rag_error", "error"):
            raise ExtractError(name, str(reply.get("message")))
    raise ExtractError(name, "the box closed the conversation without a result")


async def _ingest(args: argparse.Namespace) -> int:
    """Each file goes to the box as a phone's upload does: through the running daemon (its
    one writer), or, when none serves the data dir, through the same handlers run here."""
    from nekoni_edge.daemon import Daemon
    from nekoni_edge.pairing.control import NO_DAEMON, ControlDoor
    from nekoni_edge.rag.extract import ExtractError

    settings = _settings(args)
    files = _files(args.paths)
    failed = 0
    here: Daemon | None = None
    try:
        for number, path in enumerate(files, start=1):
            print(f"[{number}/{len(files)}] {path}", file=sys.stderr)
            door: Any
            try:
                data = _read_document(path, settings.rag_max_file_bytes)
                try:
                    door = await ControlDoor.open(settings.control_path)
                except NO_DAEMON:
                    if here is None:
                        here, box = await _here(settings, with_model=False)
                    door = _HereDoor(box)
                try:
                    result = await _upload(door, path.name, data)
                finally:
                    await door.close()
            except (ExtractError, OSError) as exc:
                failed += 1
                print(f"\n  error: {exc}", file=sys.stderr)
                continue
            print(f"\n  stored: {result['docId']} ({result['chunks']} chunks)", file=sys.stderr)
    finally:
        if here is not None:
            await here.stop()
    print(f"{len(files) - failed} of {len(files)} documents ingested", file=sys.stderr)
    return 1 if failed else 0


def _read_document(path: Path, limit: int) -> bytes:
    from nekoni_edge.rag.extract import ExtractError

    if path.stat().st_size > limit:
        raise ExtractError(path.name, f"is larger than rag_max_file_bytes ({limit} bytes)")
    return path.read_bytes()


async def _docs(args: argparse.Namespace) -> int:
    delete = {"type": "rag_delete", "docId": args.doc_id} if args.action == "delete" else None
    return await _change_or_list(
        _settings(args), delete, ("rag_delete_response", "deleted"), "rag_list", "documents",
        lambda d: print(f"{d['doc_id']}  {d['chunks']:>5} chunks  {d['source']}"))


async def _ask(args: argparse.Namespace) -> int:
    settings = _settings(args)
    replies = await _at_the_box(settings, {"type": "rag_search", "query": args.question,
                                           "topK": args.top_k})
    if (refusal := _refused(replies)) is not None:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    hits = _reply(replies, "rag_search_response")["hits"]
    if not hits:
        print(f"nothing in the knowledge base scores above {settings.rag_min_score}",
              file=sys.stderr)
        return 1
    for hit in hits:
        where = f"{hit['source']}" + (f" p.{hit['page']}" if hit["page"] else "")
        print(f"{hit['score']:.3f}  [{where}]  {hit['content'][:300]}")
    return 0


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


async def _traces(args: argparse.Namespace) -> int:
    settings = _settings(args)
    after = 0
    while True:
        request: dict[str, Any] = {"type": "trace_list", "afterId": after,
                                   "limit": args.limit if not after else 1000}
        if args.session:
            request["sessionId"] = args.session
        replies = await _at_the_box(settings, request)
        if (refusal := _refused(replies)) is not None:
            print(f"error: {refusal}", file=sys.stderr)
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
    handlers = {"serve": _serve, "demo": _demo, "chat": _chat, "devices": _devices,
                "client-key": _client_key_cmd, "pair": _pair, "discover": _discover,
                "press": _press, "qr": _qr, "ingest": _ingest, "docs": _docs, "ask": _ask,
                "config": _config, "doctor": _doctor, "identity": _identity,
                "skills": _skills, "cron": _cron, "traces": _traces, "request": _request}
    import aiohttp

    try:
        return await handlers[args.command](args)
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
