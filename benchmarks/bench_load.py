"""Does a crowd of strangers slow the owner? The owner's time to first token and token
interval, alone and while 50 unapproved keys try to connect at once, in one run.
Run: ``.venv/bin/python -m benchmarks.bench_load``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.config import load_settings
from nekoni_edge.daemon import Daemon
from nekoni_edge.errors import SignalingError
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.ratelimit import FailureLimiter

QUESTION = "Write a short paragraph about lighthouses."


async def owner_turn(phone: PhoneClient, session: str) -> tuple[float, float]:
    """(time to first token, median interval between tokens) of one answer."""
    started = time.perf_counter()
    stamps: list[float] = []
    phone.send({"type": "message", "content": QUESTION, "sessionId": session})
    while (await phone.recv())["type"] == "chunk":
        stamps.append(time.perf_counter())
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    return stamps[0] - started, statistics.median(gaps)


async def stranger(url: str) -> None:
    client = PhoneClient(Ed25519PrivateKey.generate(), url)
    try:
        await client.connect()
    except SignalingError:
        pass
    finally:
        await client.close()


async def crowd_worker(url: str, strangers: int) -> None:
    """In its own process (strangers are other devices): wait for "go", then all at once."""
    from nekoni_edge.transport.ice import pin_host_addresses

    pin_host_addresses(["127.0.0.1"])
    loop = asyncio.get_running_loop()
    while True:
        print("ready", flush=True)
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if line.strip() != "go":
            return
        await asyncio.gather(*(stranger(url) for _ in range(strangers)))


async def run(rounds: int, strangers: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(env={}, data_dir=Path(tmp), host="127.0.0.1", port=0,
                                 ice_addresses=("127.0.0.1",), mdns=False, gpio="off",
                                 rag=False, tools=False, max_tokens=96, temperature=0.0)
        box = Daemon(settings)
        await box.start()
        # Every stranger shares the loopback address here; on a LAN each has its own, so the
        # address block (which would refuse them early and cheaply) is lifted for the measure.
        assert box.peers is not None
        box.peers.limiter = FailureLimiter(max_failures=10**9)
        try:
            assert box.db is not None
            key = Ed25519PrivateKey.generate()
            await box.db.approve_device(public_key_b64(key))
            url = f"http://127.0.0.1:{box.port}"
            async with PhoneClient(key, url) as phone:
                await owner_turn(phone, "warm-up")
                alone = [await owner_turn(phone, f"a{i}") for i in range(rounds)]
                crowd = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "benchmarks.bench_load", "--crowd", url,
                    "--strangers", str(strangers), stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE)
                assert crowd.stdin is not None
                assert crowd.stdout is not None
                crowded = []
                for i in range(rounds):
                    assert (await crowd.stdout.readline()).strip() == b"ready"
                    crowd.stdin.write(b"go\n")
                    await crowd.stdin.drain()
                    await asyncio.sleep(0.05)  # let the crowd get going
                    crowded.append(await owner_turn(phone, f"c{i}"))
                crowd.stdin.write(b"stop\n")
                await crowd.stdin.drain()
                await crowd.wait()
        finally:
            await box.stop()
    rows = [("alone", alone), (f"with {strangers} strangers", crowded)]
    print(f"owner's answers, {rounds} rounds each (medians, ms)")
    print(f"{'condition':<22}{'TTFT':>10}{'token gap':>12}")
    for name, results in rows:
        print(f"{name:<22}{statistics.median(r[0] for r in results) * 1000:>10.1f}"
              f"{statistics.median(r[1] for r in results) * 1000:>12.1f}")
    gap = statistics.median(r[1] for r in alone)
    delay = statistics.median(r[0] for r in crowded) - statistics.median(r[0] for r in alone)
    print(f"first token delayed by {delay * 1000:.1f} ms = {delay / gap:.1f} token intervals")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--strangers", type=int, default=50)
    parser.add_argument("--crowd", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.crowd:
        asyncio.run(crowd_worker(args.crowd, args.strangers))
        return
    asyncio.run(run(args.rounds, args.strangers))


if __name__ == "__main__":
    main()
