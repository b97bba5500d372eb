"""The connection gate: per address, strangers in all, room for paired phones' addresses;
the first-request deadline on a real loopback connection."""

from __future__ import annotations

import asyncio
import itertools
import socket

from nekoni_edge.transport.gate import ConnectionGate, FirstRequestDeadline, Limits


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def sockets(n: int) -> list[socket.socket]:
    return [socket.socket() for _ in range(n)]


def test_limits_are_sized_below_the_descriptor_limit() -> None:
    limits = Limits.for_descriptors(1024)
    assert limits.total < 1024
    assert limits.strangers < limits.total  # room kept for paired phones' addresses
    assert Limits.for_descriptors(4096).strangers == 1024


def test_one_address_and_strangers_in_all_are_bounded() -> None:
    clock = Clock()
    gate = ConnectionGate(Limits(per_address=3, strangers=5, total=8), clock)
    held = sockets(12)
    try:
        assert [gate.admit("10.0.0.9", s) for s in held[:4]] == [True, True, True, False]
        assert [gate.admit("10.0.0.8", s) for s in held[4:7]] == [True, True, False]
        assert gate.count == 5
        gate.trust("10.0.0.2")  # a paired phone's address: room of its own
        assert [gate.admit("10.0.0.2", s) for s in held[7:10]] == [True, True, True]
        # a closed connection frees its place (swept at most every half second in all)
        held[0].close()
        assert gate.admit("10.0.0.9", held[10])
        held[4].close()
        assert not gate.admit("10.0.0.7", held[11])  # not swept yet
        clock.now += 1.0
        assert gate.admit("10.0.0.7", held[11])
    finally:
        for s in held:
            s.close()


async def test_a_half_sent_request_is_cut_at_the_deadline() -> None:
    loop = asyncio.get_running_loop()
    got: list[bytes] = []
    lost = asyncio.Event()

    class Echo(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            got.append(data)

        def connection_lost(self, exc: Exception | None) -> None:
            lost.set()

    server = await loop.create_server(lambda: FirstRequestDeadline(Echo(), loop, 0.3),
                                      "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        # whole headers: kept past the deadline
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: box\r\n\r\n")
        await asyncio.sleep(0.6)
        assert not lost.is_set()
        writer.close()
        await lost.wait()
        lost.clear()
        # half a request line: cut
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHo")
        async with asyncio.timeout(5):
            assert await reader.read() == b""
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
    assert got


async def test_a_flood_of_connections_does_not_hold_the_event_loop() -> None:
    """Connections waiting in the backlog are accepted one per turn of the loop: accepting
    each at once, a flood that reconnected as it was refused blocked the box for seconds."""
    from aiohttp import web

    from nekoni_edge.transport.gate import GatedSite

    runner = web.AppRunner(web.Application())
    await runner.setup()
    gate = ConnectionGate(Limits(per_address=1, strangers=1, total=2))
    site = GatedSite(runner, "127.0.0.1", 0, gate)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    seen: list[int] = []

    async def watch() -> None:
        while True:
            seen.append(gate.refused)
            await asyncio.sleep(0)

    watcher = asyncio.create_task(watch())
    flood: list[socket.socket] = []
    try:
        for _ in range(100):  # queued in the kernel's backlog before the loop runs again
            sock = socket.socket()
            sock.connect(("127.0.0.1", port))
            flood.append(sock)
        async with asyncio.timeout(30):
            while True:  # this task's turns count too: the last jump may be seen only here
                seen.append(gate.refused)
                if gate.refused >= 99:
                    break
                await asyncio.sleep(0.01)
        steps = [b - a for a, b in itertools.pairwise(seen)]
        assert max(steps) <= 2, f"{max(steps)} connections refused in one turn of the loop"
    finally:
        watcher.cancel()
        for sock in flood:
            sock.close()
        await runner.cleanup()
