"""Connections before trust, bounded: per address and in all, below the descriptor limit.

The box accepts TCP itself (aiohttp's site would take every connection the kernel hands it):
an address may hold ``per_address`` connections and strangers ``strangers`` in all, and the
addresses paired phones were last seen at (a signed join proves them) have room of their own,
so a crowd of half-open sockets cannot take the descriptors a phone needs. A connection whose
first request is not whole within ``FIRST_REQUEST_S`` (a TLS handshake too) is cut: a neighbour
sending half a request line held each descriptor for the 15 s keep-alive timeout before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import ssl
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

_LOGGER = logging.getLogger(__name__)

FIRST_REQUEST_S = 5.0  # to send a whole first request (and finish a TLS handshake)
PER_ADDRESS = 32  # a phone needs a few: the page, /api, the signaling WebSocket
RESERVED_FDS = 256  # the box's own: the database, the model, peers' UDP sockets, logs
MAX_STRANGERS = 1024  # what a Raspberry Pi-class box holds of open connections, by memory
MAX_TRUSTED_ADDRESSES = 64
SWEEP_S = 0.5  # the least time between two sweeps of every connection for closed ones
HEADERS_END = b"\r\n\r\n"


@dataclass(frozen=True, slots=True)
class Limits:
    """How many connections: from one address, from strangers in all, and in all."""

    per_address: int
    strangers: int
    total: int

    @classmethod
    def for_descriptors(cls, nofile: int) -> Limits:
        """Sized below ``nofile``: the box's own descriptors first, then a quarter of the rest
        kept for paired phones' addresses."""
        budget = max(4 * PER_ADDRESS, nofile - RESERVED_FDS)
        return cls(PER_ADDRESS, min(MAX_STRANGERS, budget * 3 // 4), budget)


def descriptor_limit() -> int:
    """This process's soft limit on open files."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class ConnectionGate:
    """Which accepted connections to keep (sans-IO but for the sockets it counts)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._open: dict[str, list[socket.socket]] = {}
        self._count = 0
        self._swept = 0.0
        self._trusted: OrderedDict[str, None] = OrderedDict()
        self.refused = 0

    def trust(self, address: str | None) -> None:
        """A paired key proved itself from ``address``: its connections get room of their own."""
        if address is None:
            return
        self._trusted[address] = None
        self._trusted.move_to_end(address)
        while len(self._trusted) > MAX_TRUSTED_ADDRESSES:
            self._trusted.popitem(last=False)

    @property
    def count(self) -> int:
        return self._count

    def held(self, address: str) -> int:
        return len(self._sweep_address(address))

    def _sweep_address(self, address: str) -> list[socket.socket]:
        held = self._open.get(address, [])
        alive = [s for s in held if s.fileno() != -1]
        self._count -= len(held) - len(alive)
        if alive:
            self._open[address] = alive
        else:
            self._open.pop(address, None)
        return alive

    def _sweep(self) -> None:
        now = self._clock()
        if now - self._swept < SWEEP_S:
            return
        self._swept = now
        for address in list(self._open):
            self._sweep_address(address)

    def _strangers(self) -> int:
        return self._count - sum(len(self._open.get(a, ())) for a in self._trusted)

    def admit(self, address: str, sock: socket.socket) -> bool:
        """Keep ``sock`` (accepted from ``address``) or refuse it (the caller closes it)."""
        trusted = address in self._trusted
        per_address = self.limits.per_address * (2 if trusted else 1)
        if len(self._sweep_address(address)) >= per_address:
            return self._refuse(address, "this address holds too many connections")
        if self._count >= self.limits.total or (
                not trusted and self._strangers() >= self.limits.strangers):
            self._sweep()
            if self._count >= self.limits.total or (
                    not trusted and self._strangers() >= self.limits.strangers):
                return self._refuse(address, "the box holds as many connections as it takes")
        self._open.setdefault(address, []).append(sock)
        self._count += 1
        return True

    def _refuse(self, address: str, why: str) -> bool:
        self.refused += 1
        if self.refused & (self.refused - 1) == 0:  # 1, 2, 4, 8…: a flood is one log line a bit
            _LOGGER.warning("connection from %s refused: %s (%d refused so far)", address, why,
                            self.refused)
        return False


class FirstRequestDeadline(asyncio.Protocol):
    """Cut the connection unless its first request's headers are whole within ``deadline_s``
    (aiohttp has no such timeout: its keep-alive timeout held a half-sent request for 15 s).
    Stands in front of aiohttp's protocol and passes everything on."""

    def __init__(self, inner: Any, loop: asyncio.AbstractEventLoop, deadline_s: float) -> None:
        self._inner = inner
        self._loop = loop
        self._deadline_s = deadline_s
        self._tail = b""
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._inner.connection_made(transport)
        self._timer = self._loop.call_later(self._deadline_s, self._cut, transport)

    def data_received(self, data: bytes) -> None:
        if self._timer is not None:
            seen = self._tail + data
            if HEADERS_END in seen:
                self._timer.cancel()
                self._timer = None
            else:
                self._tail = seen[-(len(HEADERS_END) - 1):]
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()  # type: ignore[no-any-return]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    def _cut(self, transport: asyncio.BaseTransport) -> None:
        _LOGGER.info("connection cut: no whole request within %.0f s", self._deadline_s)
        self._timer = None
        if isinstance(transport, asyncio.WriteTransport):
            transport.abort()
        else:
            transport.close()


class _Listener:
    """What ``BaseSite.stop`` and the daemon read of a server: its sockets; ``close``."""

    def __init__(self, sock: socket.socket, task: asyncio.Task[None]) -> None:
        self.sockets = [sock]
        self._task = task

    def close(self) -> None:
        self._task.cancel()
        self.sockets[0].close()


class GatedSite(web.BaseSite):
    """A TCP site whose connections pass the gate (TLS when ``ssl_context`` is given)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, gate: ConnectionGate, *,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        super().__init__(runner, ssl_context=ssl_context, backlog=512)
        self._host, self._port, self._gate = host, port, gate
        self._handshakes: set[asyncio.Task[Any]] = set()

    @property
    def name(self) -> str:
        return f"{'https' if self._ssl_context else 'http'}://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self._host, self._port))
        sock.listen(self._backlog)
        sock.setblocking(False)
        self._server = _Listener(sock, loop.create_task(self._accept(sock)))  # type: ignore[assignment]

    async def _accept(self, listening: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None  # the runner is set up before its sites start
        while True:
            try:
                sock, peer = await loop.sock_accept(listening)
            except OSError as exc:  # out of descriptors, or the like: the gate is sized below
                _LOGGER.warning("accept failed: %s", exc)
                await asyncio.sleep(0.1)
                continue
            if self._gate.admit(str(peer[0]), sock):
                protocol = FirstRequestDeadline(server(), loop, FIRST_REQUEST_S)
                task = loop.create_task(self._connect(sock, protocol))
                self._handshakes.add(task)
                task.add_done_callback(self._handshakes.discard)
            else:
                sock.close()
            # sock_accept returns at once while connections wait: without this a flood that
            # reconnects as fast as it is refused held the event loop for seconds
            await asyncio.sleep(0)

    async def _connect(self, sock: socket.socket, protocol: Any) -> None:
        loop = asyncio.get_running_loop()
        try:
            await loop.connect_accepted_socket(
                lambda: protocol, sock, ssl=self._ssl_context,
                ssl_handshake_timeout=FIRST_REQUEST_S if self._ssl_context else None)
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError) as exc:
            _LOGGER.debug("connection dropped before it was made: %s", exc)
            with contextlib.suppress(OSError):
                sock.close()

    async def stop(self) -> None:
        for task in list(self._handshakes):
            task.cancel()
        await super().stop()
