"""Does a crowd of strangers slow the owner? The owner's time to first token and token
interval, alone and while 50 unapproved keys try to connect at once, in one run.
Run: ``.venv/bin/python -m benchmarks.bench_load``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.agent.fair import FairTurns
from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.config import load_settings
from nekoni_edge.daemon import Daemon
from nekoni_edge.protocol import signaling as sig
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.ratelimit import FailureLimiter
from nekoni_edge.store.database import now_ms

QUESTION = "Write a short paragraph about lighthouses."
COST_BURSTS = 4


async def owner_turn(phone: PhoneClient, session: str) -> tuple[float, float]:
    """(time to first token, median interval between tokens) of one answer."""
    started = time.perf_counter()
    stamps: list[float] = []
    phone.send({"type": "message", "content": QUESTION, "sessionId": session})
    while (await phone.recv())["type"] == "chunk":
        stamps.append(time.perf_counter())
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    return stamps[0] - started, statistics.median(gaps)


def stranger_join(room_id: str) -> dict[str, Any]:
    """A fresh unapproved key's signed join, made before the clock starts: on a LAN that work
    happens on the strangers' own devices, not on the box."""
    join = {"type": "join", "roomId": room_id, "clientId": f"mobile-{secrets.token_hex(4)}",
            "ts": now_ms()}
    return sig.signed_by_client(Ed25519PrivateKey.generate(), join)


async def stranger(http: aiohttp.ClientSession, url: str, join: dict[str, Any]) -> None:
    """What the box sees of a stranger's phone app: /api/info, /signal, join, sent away."""
    async with http.get(f"{url}/api/info") as resp:
        await resp.read()
    async with http.ws_connect(url.replace("http", "ws", 1) + "/signal") as ws:
        await ws.send_json(join)
        refused = json.loads((await ws.receive()).data)
        assert refused.get("code") == "NOT_APPROVED", refused
        assert (await ws.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)


async def crowd_worker(url: str, strangers: int) -> None:
    """In its own process (strangers are other devices): wait for "go", then all at once."""
    loop = asyncio.get_running_loop()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        async with http.get(f"{url}/api/info") as resp:
            info = await resp.json()
        while True:
            crowd = [stranger_join(info["roomId"]) for _ in range(strangers)]
            print("ready", flush=True)
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if line.strip() != "go":
                return
            await asyncio.gather(*(stranger(http, url, join) for join in crowd))
            print("done", flush=True)


Turns = list[tuple[float, float]]


async def crowded_turns(phone: PhoneClient, url: str, strangers: int, rounds: int,
                        nice: int) -> tuple[float, Turns, Turns]:
    """The box's CPU seconds per stranger, and the owner's turns alone and while the crowd
    (another process, at ``nice``) connects at once, in pairs: an alone turn just before each
    crowded one, so that drift of the machine over the run cancels out of the difference."""
    crowd = await asyncio.create_subprocess_exec(
        "nice", "-n", str(nice), sys.executable, "-m", "benchmarks.bench_load", "--crowd", url,
        "--strangers", str(strangers), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE)
    assert crowd.stdin is not None
    assert crowd.stdout is not None

    async def burst() -> None:
        assert crowd.stdin is not None
        assert crowd.stdout is not None
        assert (await crowd.stdout.readline()).strip() == b"ready"
        crowd.stdin.write(b"go\n")
        await crowd.stdin.drain()

    async def burst_done() -> None:
        assert crowd.stdout is not None
        assert (await crowd.stdout.readline()).strip() == b"done"

    # The box's own CPU for crowds with nobody chatting: what each stranger costs it.
    await burst()
    await burst_done()  # the first connections of a process cost more than later ones
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(COST_BURSTS):
        await burst()
        await burst_done()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / COST_BURSTS
    alone, crowded = [], []
    for i in range(rounds):
        alone.append(await owner_turn(phone, f"a{nice}-{i}"))
        await burst()
        await asyncio.sleep(0.05)  # let the crowd get going
        crowded.append(await owner_turn(phone, f"c{nice}-{i}"))
        await burst_done()
    crowd.stdin.write(b"stop\n")
    await crowd.stdin.drain()
    await crowd.wait()
    return cpu / strangers, alone, crowded


def loopback_box(data_dir: str, threads: int, max_tokens: int) -> Daemon:
    """A box on loopback answering with the real model, deterministically, tools and
    documents off (what is measured is the order and the doors, not the answers)."""
    return Daemon(load_settings(env={}, data_dir=Path(data_dir), host="127.0.0.1", port=0,
                                ice_addresses=("127.0.0.1",), mdns=False, gpio="off",
                                rag=False, tools=False, max_tokens=max_tokens,
                                temperature=0.0, n_threads=threads))


async def run(rounds: int, strangers: int, threads: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        box = loopback_box(tmp, threads, 96)
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
                crowded = {nice: await crowded_turns(phone, url, strangers, rounds, nice)
                           for nice in (0, 19)}
        finally:
            await box.stop()
    print(f"owner's answers, {rounds} pairs of rounds per crowd (medians, ms): an answer")
    print("alone, then one while the crowd connects. The strangers' messages are signed")
    print("before the clock starts (on a LAN their devices do that); their process shares")
    print("the box's cores, so the nice-19 row keeps its I/O work from competing too.")
    print("delay: median of (crowded - alone) TTFT over the pairs; intervals: delay / token")
    print(f"gap alone; box CPU: the box's CPU (ms) per stranger, over {COST_BURSTS} crowds")
    print(f"{'condition':<30}{'TTFT':>8}{'token gap':>11}{'delay':>8}{'intervals':>11}"
          f"{'box CPU':>9}")
    def row(label: str, results: Turns, delay: str = "", intervals: str = "",
            cost: str = "") -> None:
        ttft = statistics.median(r[0] for r in results)
        step = statistics.median(r[1] for r in results)
        print(f"{label:<30}{ttft * 1000:>8.1f}{step * 1000:>11.1f}{delay:>8}{intervals:>11}"
              f"{cost:>9}")

    for nice, (cpu, alone, crowd) in crowded.items():
        gap = statistics.median(r[1] for r in alone)
        delay = statistics.median(c[0] - a[0] for a, c in zip(alone, crowd, strict=True))
        row("  alone", alone)
        row(f"  {strangers} strangers" + (f", nice {nice}" if nice else ""), crowd,
            f"{delay * 1000:.1f}", f"{delay / gap:.1f}", f"{cpu * 1000:.2f}")


LONG = "Write a long story about a lighthouse keeper and his cat."
HOG_SESSIONS = 24


class ArrivalOrder(FairTurns):
    """The order before turns were taken by device: first come, first served, no cap (the
    device that asked first stays first while it has turns waiting)."""

    def __init__(self) -> None:
        super().__init__(per_device=10**6)

    def _next(self) -> None:
        while self._running is None and self._waiting:
            first = next(iter(self._waiting))
            queue = self._waiting[first]
            ready = queue.popleft()
            if not queue:
                del self._waiting[first]
            if not ready.done():
                self._running = first
                ready.set_result(None)


async def starve_row(box: Daemon, owner: PhoneClient, hog: PhoneClient,
                     turns: FairTurns) -> tuple[float, int, int]:
    """The owner's first token while one paired device has a long question in each of
    HOG_SESSIONS sessions: (seconds, the hog's answers before it, the hog's refusals)."""
    assert box.chat is not None
    box.chat.turns = turns
    for i in range(HOG_SESSIONS):
        hog.send({"type": "message", "content": LONG, "sessionId": f"hog-{id(turns)}-{i}"})
    await asyncio.sleep(0.5)  # the hog's questions are in (the first is being answered)
    started = time.perf_counter()
    owner.send({"type": "message", "content": QUESTION, "sessionId": f"owner-{id(turns)}"})
    while (await owner.recv())["type"] != "chunk":
        pass
    first = time.perf_counter() - started
    answered = refused = 0
    while True:  # what the hog got meanwhile
        try:
            msg = await hog.recv(wait=0.01)
        except TimeoutError:
            break
        answered += msg["type"] == "message_end"
        refused += msg.get("code") == "BUSY" and msg["type"] == "error"
    owner.send({"type": "cancel", "sessionId": f"owner-{id(turns)}"})
    for i in range(HOG_SESSIONS):
        hog.send({"type": "cancel", "sessionId": f"hog-{id(turns)}-{i}"})
    await asyncio.sleep(1.0)
    return first, answered, refused


async def starve(threads: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        box = loopback_box(tmp, threads, 200)
        await box.start()
        try:
            assert box.db is not None
            keys = [Ed25519PrivateKey.generate() for _ in range(2)]
            for key in keys:
                await box.db.approve_device(public_key_b64(key))
            url = f"http://127.0.0.1:{box.port}"
            async with PhoneClient(keys[0], url) as owner, PhoneClient(keys[1], url) as hog:
                alone = [(await owner_turn(owner, f"alone-{i}"))[0] for i in range(3)]
                rows = {"arrival order (before)": await starve_row(box, owner, hog,
                                                                  ArrivalOrder()),
                        "in turn by device (the box)": await starve_row(box, owner, hog,
                                                                       FairTurns())}
        finally:
            await box.stop()
    print(f"\nthe owner's first token while one paired device asks a long question in each of "
          f"{HOG_SESSIONS} sessions (one run each)")
    print("| order | owner's first token s | the device's answers before it | refused (BUSY) |")
    print("|---|---:|---:|---:|")
    print(f"| owner alone | {statistics.median(alone):.2f} | — | — |")
    for label, (first, answered, refused) in rows.items():
        print(f"| {label} | {first:.2f} | {answered} | {refused} |")


QR_LOOPS = 32


async def qr_loops_worker(url: str) -> None:
    """In its own process: QR_LOOPS clients fetching the pairing code back to back."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        async def loop() -> None:
            while True:
                async with http.get(f"{url}/api/pair/qr?app=web") as resp:
                    await resp.read()

        print("ready", flush=True)
        await asyncio.gather(*(loop() for _ in range(QR_LOOPS)))


class DrawnEachTime(dict[str, str]):
    """The code before the cache: every request drew the SVG again."""

    def __setitem__(self, key: str, value: str) -> None:
        return None


async def qr_flood(threads: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        box = loopback_box(tmp, threads, 48)
        await box.start()
        try:
            assert box.db is not None
            key = Ed25519PrivateKey.generate()
            await box.db.approve_device(public_key_b64(key))
            url = f"http://127.0.0.1:{box.port}"
            rows: dict[str, float] = {}
            async with PhoneClient(key, url) as owner:
                await owner_turn(owner, "warm-up")
                rows["owner alone"] = statistics.median(
                    [(await owner_turn(owner, f"alone-{i}"))[0] for i in range(rounds)])
                for label, drawn in (("drawn for each request (before)", DrawnEachTime()),
                                     ("drawn once (the box)", {})):
                    assert box.http is not None
                    box.http.qr_drawn = drawn  # the one thing compared
                    loops = await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "benchmarks.bench_load", "--qr-loops", url,
                        stdout=asyncio.subprocess.PIPE)
                    assert loops.stdout is not None
                    assert (await loops.stdout.readline()).strip() == b"ready"
                    await asyncio.sleep(1.0)
                    rows[label] = statistics.median(
                        [(await owner_turn(owner, f"{label}-{i}"))[0] for i in range(rounds)])
                    loops.kill()
                    await loops.wait()
        finally:
            await box.stop()
    print(f"\nthe owner's first token while {QR_LOOPS} unauthenticated loops fetch "
          f"/api/pair/qr (medians of {rounds}, one run)")
    print("| condition | owner's first token s | vs alone |")
    print("|---|---:|---:|")
    for label, first in rows.items():
        print(f"| {label} | {first:.2f} | {first / rows['owner alone']:.1f}x |")


WINDOW_S = 4.0


async def keep_asking(url: str, address: str, stop: asyncio.Event) -> None:
    """The waiting stranger: one pair request from ``address``, then its signed status every
    0.3 s, and a new request (with a new key) whenever that says its request no longer waits
    (it was refused, its window ended, or it was paired and is held)."""
    from nekoni_edge.protocol.canonical import sign_message

    key = Ed25519PrivateKey.generate()

    def signed() -> dict[str, Any]:
        return sign_message(key, {"mobilePubKey": public_key_b64(key), "ts": now_ms()})

    connector = aiohttp.TCPConnector(local_addr=(address, 0))
    async with aiohttp.ClientSession(connector=connector) as http:
        async with http.post(f"{url}/api/pair", json=signed()) as resp:
            await resp.read()
        while not stop.is_set():
            query = {k: str(v) for k, v in signed().items()}
            async with http.get(f"{url}/api/pair/status", params=query) as resp:
                status = (await resp.json()).get("status")
            if status != "pending_approval":
                key = Ed25519PrivateKey.generate()
                async with http.post(f"{url}/api/pair", json=signed()) as resp:
                    await resp.read()
            await asyncio.sleep(0.3)


async def owner_pairs(box: Daemon, url: str, *, request_first: bool) -> tuple[float, str]:
    """A new phone pairs (request first: it asks, then the press; else the press first) and
    connects: (seconds from its first ask to connected, how it was paired)."""
    assert box.pairing is not None
    key = Ed25519PrivateKey.generate()
    started = time.perf_counter()
    how = "plain"
    plain = PhoneClient(key, url)
    try:
        if request_first:
            asking = asyncio.create_task(plain.pair("owner", poll_s=0.3))
            await asyncio.sleep(1.0)
            await box.pairing.press()
        else:
            await box.pairing.press()
            asking = asyncio.create_task(plain.pair("owner", poll_s=0.3))
        try:
            await asking
        except Exception:  # refused: the owner scans the label, as the refusal tells them
            how = "label code"
    finally:
        await plain.close()
    if how != "plain":
        coded = PhoneClient(key, f"{url}/p/{box.setup_code}")
        try:
            await coded.pair("owner", poll_s=0.3)
        finally:
            await coded.close()
    async with PhoneClient(key, url):
        pass  # connected
    return time.perf_counter() - started, how


async def neighbour(threads: int, rounds: int) -> None:
    """The owner's pairing and first token, quiet and against a neighbour who keeps a pair
    request waiting or holds 1,010 half-sent connections from four addresses (the box at
    1,024 descriptors, as the issue measured it), in one run."""
    import resource
    import subprocess

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    rows: list[tuple[str, list[float], list[float], str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        box = loopback_box(tmp, threads, 32)
        await box.start()
        url = f"http://127.0.0.1:{box.port}"
        try:
            assert box.db is not None
            key = Ed25519PrivateKey.generate()
            await box.db.approve_device(public_key_b64(key))

            # Windows of 4 s (not 120), each round after the last one's window has closed: a
            # round is one pairing as a household makes it, not a second phone in a window.
            assert box.pairing is not None
            box.pairing.window.window_s = WINDOW_S
            # Every owner's phone here asks from 127.0.0.1; on a LAN each has its own address,
            # so the per-address limit on new keys is lifted for the measure.
            box.pairing.asks = FailureLimiter(max_failures=10**9)

            async def measure(label: str) -> None:
                pair_s, first_s, hows = [], [], set()
                for n in range(rounds):
                    await asyncio.sleep(WINDOW_S + 0.5)
                    took, how = await owner_pairs(box, url, request_first=n % 2 == 1)
                    pair_s.append(took)
                    hows.add(how)
                    started = time.perf_counter()
                    async with PhoneClient(key, url) as phone:
                        connected = time.perf_counter() - started
                        ttft, _ = await owner_turn(phone, f"{label}-{n}")
                    first_s.append(connected + ttft)
                rows.append((label, pair_s, first_s, ", ".join(sorted(hows))))

            await measure("quiet")
            stop = asyncio.Event()
            stranger = asyncio.create_task(keep_asking(url, "127.0.0.66", stop))
            await asyncio.sleep(1.0)
            await measure("a stranger keeps asking")
            stop.set()
            await stranger
            flood = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "benchmarks.half_open", "127.0.0.1", str(box.port),
                "1010", *(f"127.0.0.{n}" for n in range(71, 75)), stdout=subprocess.PIPE)
            assert flood.stdout is not None
            await flood.stdout.readline()  # "ready": 1,010 opened
            await measure("1,010 half-open connections")
            held = box.gate.count
            flood.kill()
            await flood.wait()
        finally:
            await box.stop()
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    print(f"the owner's phone, {rounds} rounds each (press first and request first in turn):")
    print("pair = from its first ask to a connected channel (median / max, s); first token =")
    print("connecting a paired phone and its first answer piece (median / max, s); ratio =")
    print(f"median against quiet. The box held {held} of the half-open connections.")
    print(f"{'condition':<30}{'pair':>14}{'first token':>14}{'ratio':>7}  paired by")
    quiet = statistics.median(rows[0][2])
    for label, pair_s, first_s, hows in rows:
        print(f"{label:<30}{statistics.median(pair_s):>7.2f} /{max(pair_s):>5.2f}"
              f"{statistics.median(first_s):>7.2f} /{max(first_s):>5.2f}"
              f"{statistics.median(first_s) / quiet:>7.2f}  {hows}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--strangers", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument("--crowd", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--starve", action="store_true",
                        help="one paired device with a question in every session, instead")
    parser.add_argument("--qr-flood", action="store_true",
                        help=f"{QR_LOOPS} loops fetching the pairing code, instead")
    parser.add_argument("--qr-loops", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--neighbour", action="store_true",
                        help="the owner's pairing and first token against a waiting stranger "
                             "and a half-open connection flood, instead")
    args = parser.parse_args()
    if args.neighbour:
        asyncio.run(neighbour(args.threads, 6))
        return
    if args.qr_loops:
        asyncio.run(qr_loops_worker(args.qr_loops))
        return
    if args.qr_flood:
        asyncio.run(qr_flood(args.threads, 5))
        return
    if args.starve:
        asyncio.run(starve(args.threads))
        return
    if args.crowd:
        asyncio.run(crowd_worker(args.crowd, args.strangers))
        return
    asyncio.run(run(args.rounds, args.strangers, args.threads))


if __name__ == "__main__":
    main()
