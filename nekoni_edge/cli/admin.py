"""The box's administration at the box: serve, the button, its QR codes, devices, documents,
skills, cron, traces, configuration."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from nekoni_edge.cli.common import (
    _at_the_box,
    _daemon_serves,
    _here,
    _printed_refusal,
    _refused,
    _reply,
    _said,
    _settings,
)
from nekoni_edge.config import Settings


async def _serve(args: argparse.Namespace) -> int:
    from nekoni_edge.daemon import Daemon  # keeps --help fast

    settings = _settings(args, host=args.host, port=args.port, model_path=args.model)
    await Daemon(settings).serve_forever()
    return 0


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
    if _printed_refusal(replies):
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
