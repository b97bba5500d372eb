"""The box's own door: requests from the owner at the box (the CLI, through the daemon's
control socket) go to the same handlers as a phone's, with no device key and nobody to ask
for approvals."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from nekoni_edge.app.registry import Box, dispatch
from nekoni_edge.errors import BadMessage, NekoniError
from nekoni_edge.protocol import messages as m
from nekoni_edge.rag.upload import UploadAssembler


class NotAtTheBox(NekoniError):
    """A request that only makes sense over a DataChannel (live traces)."""

    def reply(self) -> dict[str, Any]:
        return m.error_reply("NOT_AVAILABLE", str(self))


class LocalDoor:
    """Collects the replies of one request made at the box."""

    device_key: str | None = None

    def __init__(self, box: Box, label: str = "control",
                 on_reply: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.label = label
        self._on_reply = on_reply  # each reply as it is made (a conversation), besides keeping it
        self.box = box
        self.closed = False
        self.generations: dict[str, deque[asyncio.Task[None]]] = {}
        self.approvals: dict[str, asyncio.Future[bool]] = {}
        self.uploads = UploadAssembler()
        self.replies: list[dict[str, Any]] = []
        self._tasks: list[asyncio.Task[None]] = []

    def send(self, reply: m.Reply | dict[str, Any]) -> None:
        wire = reply if isinstance(reply, dict) else reply.wire()
        self.replies.append(wire)
        if self._on_reply is not None:
            self._on_reply(wire)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.append(task)
        return task

    def set_tracing(self, on: bool, *, own_only_until: int = 0) -> None:
        raise NotAtTheBox("live traces stream to a phone; at the box use 'nekoni-edge traces'")

    async def approve(self, tool: str, arguments: dict[str, Any]) -> bool:
        return False  # nobody to ask: a tool that needs approval does not run

    def upload_activity(self) -> None:
        return None

    async def settle(self) -> None:
        """Wait for everything the request started."""
        while self._tasks:
            await self._tasks.pop(0)


async def request(box: Box, obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Answer one decoded request at the box: every reply it produced, in order."""
    door = LocalDoor(box)
    try:
        message = m.parse(obj)
    except BadMessage as exc:
        return [exc.reply()]
    dispatch(door, message)
    await door.settle()
    return door.replies


async def conversation(box: Box, messages: AsyncIterator[dict[str, Any]],
                       on_reply: Callable[[dict[str, Any]], None]) -> None:
    """Several requests through one door, each reply handed on as it is made: what an upload
    needs (its start and segments on one door, then the ingest's progress and result)."""
    door = LocalDoor(box, on_reply=on_reply)
    async for obj in messages:
        try:
            message = m.parse(obj)
        except BadMessage as exc:
            door.send(exc.reply())
            continue
        dispatch(door, message)
    await door.settle()
