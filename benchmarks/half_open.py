"""A neighbour holding connections that send half a request line (run as its own process, so
its descriptors are not the box's): ``python -m benchmarks.half_open HOST PORT COUNT ADDR...``.
Each connection is reopened when the box closes it; prints ``ready`` once COUNT are open."""

from __future__ import annotations

import asyncio
import resource
import sys

HALF = b"GET /api/info HTTP/1.1\r\nHost: bo"


async def hold(host: str, port: int, local: str, opened: list[int], held: list[int],
               ready: asyncio.Event, count: int) -> None:
    while True:
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(local, 0))
        except OSError:
            await asyncio.sleep(0.2)
            continue
        opened[0] += 1
        held[0] += 1
        if opened[0] >= count:
            ready.set()
        try:
            writer.write(HALF)
            await reader.read()  # until the box closes it
        except OSError:
            pass
        finally:
            held[0] -= 1
            writer.close()
        await asyncio.sleep(0.05)


async def main() -> None:
    host, port, count, addresses = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count * 2 + 256), hard))
    opened, held = [0], [0]
    ready = asyncio.Event()
    tasks = []
    for n in range(count):
        tasks.append(asyncio.create_task(hold(host, port, addresses[n % len(addresses)],
                                              opened, held, ready, count)))
        if n % 50 == 49:
            await asyncio.sleep(0.01)
    await ready.wait()
    print("ready", flush=True)
    while True:
        await asyncio.sleep(1.0)
        print("held", held[0], flush=True)


if __name__ == "__main__":
    asyncio.run(main())
