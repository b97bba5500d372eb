"""The local control socket: ``nekoni-edge press`` on a box without a real button.

A Unix socket in the data directory, mode 0600, and the peer's uid is checked (root or the
daemon's own user), so only the box's owner can simulate presses.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path

_LOGGER = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
COMMANDS = ("press", "long_press")


def _peer_uid(writer: asyncio.StreamWriter) -> int | None:
    sock = writer.get_extra_info("socket")
    if sock is None:
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


class ControlServer:
    """Accepts ``press`` / ``long_press`` lines from the box's owner."""

    def __init__(self, path: Path, handlers: dict[str, Callable[[], Awaitable[None]]]) -> None:
        self.path = path
        self._handlers = handlers
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
            line = (await asyncio.wait_for(reader.readline(), 5)).decode("ascii", "replace")
            command = line.strip()
            handler = self._handlers.get(command)
            if handler is None:
                writer.write(f"error: commands are {', '.join(COMMANDS)}\n".encode())
                return
            await handler()
            writer.write(b"ok\n")
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        if self.path.exists():
            self.path.unlink()


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
