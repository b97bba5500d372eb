"""The local control socket: ``nekoni-edge press`` on a box without a real button, and the
CLI's requests to the running daemon (one JSON message per line, answered by the same
handlers as a phone's, all replies as one JSON array line).

A Unix socket in the data directory, mode 0600, and the peer's uid is checked (root or the
daemon's own user), so only the box's owner can use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from nekoni_edge.errors import BadMessage, NekoniError
from nekoni_edge.protocol.messages import decode

_LOGGER = logging.getLogger(__name__)

COMMANDS = ("press", "long_press")
Requests = Callable[[dict[str, Any]], Awaitable[list[dict[str, Any]]]]
# A conversation: the messages as they arrive, and where each reply goes as it is made.
Conversation = Callable[[AsyncIterator[dict[str, Any]], Callable[[dict[str, Any]], None]],
                        Awaitable[None]]
DOOR = "door"  # the first line of a conversation; then one JSON message a line until EOF
DOOR_IDLE_S = 60.0  # between two lines of a conversation (an upload's segments come fast)


class ControlRefused(NekoniError):
    """The running daemon answered, and refused (not the box's owner, a garbled line): the
    caller reports it, never mistakes it for "no daemon"."""


# What means "no daemon serves this data dir", and nothing else does.
NO_DAEMON = (FileNotFoundError, ConnectionRefusedError)


def _peer_uid(writer: asyncio.StreamWriter) -> int | None:
    sock = writer.get_extra_info("socket")
    if sock is None:
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


class ControlServer:
    """Accepts ``press`` / ``long_press`` lines from the box's owner."""

    def __init__(self, path: Path, handlers: dict[str, Callable[[], Awaitable[None]]],
                 requests: Requests | None = None,
                 conversation: Conversation | None = None) -> None:
        self.path = path
        self._handlers = handlers
        self._requests = requests
        self._conversation = conversation
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        if self.path.exists():
            self.path.unlink()
        self._server = await asyncio.start_unix_server(self._client, path=str(self.path))
        os.chmod(self.path, 0o600)
        _LOGGER.info("control socket %s (simulate the button: nekoni-edge press)", self.path)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            uid = _peer_uid(writer)
            if uid not in (0, os.getuid()):
                writer.write(b"error: not allowed\n")
                return
            raw = await asyncio.wait_for(reader.readline(), 5)
            if raw.startswith(b"{") and self._requests is not None:
                try:
                    replies = await self._requests(decode(raw))
                except BadMessage as exc:
                    replies = [exc.reply()]
                writer.write(json.dumps(replies).encode() + b"\n")
                return
            command = raw.decode("ascii", "replace").strip()
            if command == DOOR and self._conversation is not None:
                await self._converse(reader, writer)
                return
            handler = self._handlers.get(command)
            if handler is None:
                writer.write(f"error: commands are {', '.join(COMMANDS)}\n".encode())
                return
            await handler()
            writer.write(b"ok\n")
        except (TimeoutError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()

    async def _converse(self, reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
        """One door for the whole connection: each line a message, each reply a line as it
        is made; at the client's EOF, what the messages started is waited for."""
        assert self._conversation is not None  # checked by the caller

        def reply(message: dict[str, Any]) -> None:
            writer.write(json.dumps(message).encode() + b"\n")

        async def messages() -> AsyncIterator[dict[str, Any]]:
            while raw := await asyncio.wait_for(reader.readline(), DOOR_IDLE_S):
                try:
                    yield decode(raw)
                except BadMessage as exc:
                    reply(exc.reply())
                await writer.drain()

        await self._conversation(messages(), reply)
        await writer.drain()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        if self.path.exists():
            self.path.unlink()


def _answer(line: bytes, kind: type, what: str) -> Any:
    """A line the daemon wrote: JSON of ``kind``, or its refusal in words (raised)."""
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if not isinstance(answer, kind):
        said = line.decode("utf-8", "replace").strip().removeprefix("error: ")
        raise ControlRefused(f"the running box refused the {what}: {said or 'no answer'}")
    return answer


async def send_command(path: Path, command: str) -> str:
    """Send one command to a running daemon; return its answer line."""
    reader, writer = await asyncio.open_unix_connection(str(path))
    try:
        writer.write(command.encode("ascii") + b"\n")
        await writer.drain()
        return (await asyncio.wait_for(reader.readline(), 30)).decode().strip()
    finally:
        writer.close()
        await writer.wait_closed()


async def send_request(path: Path, message: dict[str, Any]) -> list[dict[str, Any]]:
    """Send one request to the running daemon; return every reply it produced."""
    reader, writer = await asyncio.open_unix_connection(str(path), limit=2**24)
    try:
        writer.write(json.dumps(message).encode() + b"\n")
        await writer.drain()
        replies: list[dict[str, Any]] = _answer(await reader.readline(), list, "request")
        return replies
    finally:
        writer.close()
        await writer.wait_closed()


class ControlDoor:
    """The client's end of a conversation with the running daemon (``DOOR``)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    @classmethod
    async def open(cls, path: Path) -> ControlDoor:
        """Raises one of ``NO_DAEMON`` when no daemon serves ``path``."""
        reader, writer = await asyncio.open_unix_connection(str(path), limit=2**24)
        writer.write(DOOR.encode("ascii") + b"\n")
        return cls(reader, writer)

    async def send(self, message: dict[str, Any]) -> None:
        self._writer.write(json.dumps(message).encode() + b"\n")
        await self._writer.drain()

    async def done_sending(self) -> None:
        """No more messages: the daemon finishes what they started, then closes."""
        self._writer.write_eof()
        await self._writer.drain()

    async def reply(self) -> dict[str, Any] | None:
        """The next reply, or None once the daemon has finished and closed."""
        line = await self._reader.readline()
        if not line:
            return None
        message: dict[str, Any] = _answer(line, dict, "conversation")
        return message

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()
