"""Documents at the box: ``ingest`` (files and folders, with progress), ``docs``, ``ask``."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from nekoni_edge.cli.common import (
    _at_the_box,
    _change_or_list,
    _here,
    _printed_refusal,
    _reply,
    _settings,
    _settings_args_after,
    command,
)


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
    from nekoni_edge.rag.extract import ExtractError
    from nekoni_edge.transport.control import NO_DAEMON, ControlDoor

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


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register this module's commands, each with its handler."""
    ingest = command(sub, _ingest, "ingest",
                    help="add documents (text, Markdown, PDF) to the box's knowledge base")
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")

    docs = command(sub, _docs, "docs",
                    help="list or delete documents in the knowledge base")
    docs_sub = docs.add_subparsers(dest="action", required=True, metavar="ACTION")
    docs_sub.add_parser("list", help="list documents")
    docs_delete = docs_sub.add_parser("delete", help="delete a document by id")
    docs_delete.add_argument("doc_id")

    ask = command(sub, _ask, "ask",
                    help="show the knowledge-base chunks a question retrieves")
    ask.add_argument("question")
    ask.add_argument("--top-k", type=int, default=None, help="how many chunks (default 5)")
    for actions in (docs_sub,):
        _settings_args_after(actions)
