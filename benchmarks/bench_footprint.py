"""The box's footprint: cold start to ready (model mmapped or read), idle RSS, RSS during a
generation, database size after 10k messages; against the Pi 4 (2 GiB) budget of model size
+ 150 MiB idle overhead. Run: ``.venv/bin/python -m benchmarks.bench_footprint``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.llm.models import default_gguf
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.store.database import Database
from nekoni_edge.transport.ice import pin_host_addresses

BUDGET_OVERHEAD_MIB = 150
# (row, mmap, kv_cache_type, documents): f16 is what "auto" picks on this machine, q8_0 on a
# 2 GiB Pi 4. With documents the turn is a question the box searches them for: the embedder
# (onnxruntime and MiniLM) is loaded for it, and released after ``embedder_keep_s`` idle.
CONFIGS = (("mmap, f16", True, "f16", False), ("read, f16", False, "f16", False),
           ("mmap, q8_0", True, "q8_0", False), ("q8_0, documents", True, "q8_0", True))
PORT = 18470
STORY = "Write a long story about a lighthouse."
QUESTION = "When is the boiler serviced, and who does it?"
NOTE = ("The boiler is a Worcester Bosch combi in the utility room. It is serviced every "
        "November by Hendry Heating; the pressure should read 1 to 1.5 bar.\n")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_daemon(data_dir: Path, mmap: bool, kv: str = "auto", keep_s: float = 300.0
                 ) -> tuple[subprocess.Popen[bytes], float, Path]:
    """Start `nekoni-edge serve`; return it and the seconds until it sent READY=1."""
    notify = data_dir.parent / f"notify-{time.monotonic_ns()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(120)
    env = {**os.environ, "NOTIFY_SOCKET": str(notify), "NEKONI_MODEL_MMAP": str(mmap).lower(),
           "NEKONI_ICE_ADDRESSES": "127.0.0.1", "NEKONI_MDNS": "false", "NEKONI_GPIO": "off",
           "NEKONI_MAX_TOKENS": "128", "NEKONI_TEMPERATURE": "0", "NEKONI_KV_CACHE_TYPE": kv,
           "NEKONI_EMBEDDER_KEEP_S": str(keep_s)}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "nekoni_edge", "serve", "--data-dir",
                             str(data_dir), "--host", "127.0.0.1", "--port", str(PORT)],
                            env=env, stderr=subprocess.DEVNULL)
    try:
        while b"READY=1" not in sock.recv(4096):
            pass
    finally:
        sock.close()
    return proc, time.perf_counter() - started, notify


async def rss_during_generation(pid: int, key: Ed25519PrivateKey, text: str = STORY) -> float:
    pin_host_addresses(["127.0.0.1"])
    peak = rss_mib(pid)
    async with PhoneClient(key, f"http://127.0.0.1:{PORT}") as phone:
        phone.send({"type": "message", "content": text, "sessionId": "bench"})
        while True:
            try:
                msg = await phone.recv(wait=0.05)
            except TimeoutError:
                msg = {"type": "wait"}
            peak = max(peak, rss_mib(pid))
            if msg["type"] in ("message_end", "message", "error"):
                return peak


async def db_size_after(messages: int, path: Path) -> int:
    async with await Database.open(path) as db:
        for i in range(messages):
            await db.append_message(f"s{i % 20}", "user" if i % 2 else "assistant",
                                    f"message number {i}: " + "lorem ipsum dolor sit amet " * 4)
        await db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--keep", type=float, default=6.0,
                        help="embedder_keep_s in the documents row (the box's default is 300)")
    args = parser.parse_args()
    model_mib = default_gguf().stat().st_size / 2**20
    with tempfile.TemporaryDirectory() as tmp:
        rows = {}
        released: list[float] = []
        for name, mmap, kv, documents in CONFIGS:
            starts, idles, peaks, afters = [], [], [], []
            for run in range(args.runs):
                data_dir = Path(tmp) / f"box-{mmap}-{kv}-{documents}-{run}"
                key = Ed25519PrivateKey.generate()
                subprocess.run([sys.executable, "-m", "nekoni_edge", "devices", "--data-dir",
                                str(data_dir), "add", public_key_b64(key)], check=True,
                               capture_output=True)
                if documents:
                    note = Path(tmp) / "boiler.txt"
                    note.write_text(NOTE)
                    subprocess.run([sys.executable, "-m", "nekoni_edge", "ingest",
                                    "--data-dir", str(data_dir), str(note)], check=True,
                                   capture_output=True)
                proc, ready_s, _ = start_daemon(data_dir, mmap, kv,
                                                args.keep if documents else 300.0)
                try:
                    time.sleep(2)
                    idles.append(rss_mib(proc.pid))
                    peaks.append(asyncio.run(rss_during_generation(
                        proc.pid, key, QUESTION if documents else STORY)))
                    time.sleep(2)  # settled: the phone left, the turn's buffers were freed
                    afters.append(rss_mib(proc.pid))
                    if documents:
                        time.sleep(args.keep + 2)  # the embedder released
                        released.append(rss_mib(proc.pid))
                finally:
                    proc.terminate()
                    proc.wait(30)
                starts.append(ready_s)
            rows[name] = (statistics.median(starts), statistics.median(idles),
                          statistics.median(peaks), statistics.median(afters))
        db_bytes = asyncio.run(db_size_after(args.messages, Path(tmp) / "size.sqlite"))

    print(f"model {default_gguf().name}: {model_mib:.0f} MiB; medians of {args.runs} runs")
    print("RSS in MiB; idle = after start, before any use; used = settled after one turn")
    print(f"{'model, KV cache':<20}{'start→READY s':>14}{'idle':>7}{'gen.':>7}{'used':>7}"
          f"{'overhead idle/used':>20}{'budget':>9}")
    for name, (start, idle, peak, after) in rows.items():
        worst = max(idle, after) - model_mib
        verdict = "within" if worst <= BUDGET_OVERHEAD_MIB else "OVER"
        print(f"{name:<20}{start:>14.2f}{idle:>7.0f}{peak:>7.0f}{after:>7.0f}"
              f"{idle - model_mib:>12.0f} / {after - model_mib:<6.0f}{verdict:>9}")
    if released:
        after = statistics.median(released)
        print(f"q8_0, documents: {after:.0f} MiB ({after - model_mib:.0f} overhead) "
              f"{args.keep:.0f} s after the turn, the embedder released (embedder_keep_s)")
    print("a turn is the story request with no documents (no tool's words: not embedded), "
          "a question about a note with documents (embedded for the search and the router)")
    print(f"budget (Pi 4, 2 GiB): model + {BUDGET_OVERHEAD_MIB} MiB overhead, idle and used; "
          "kv_cache_type = auto picks q8_0 on boards under 3 GiB")
    print(f"database after {args.messages} messages: {db_bytes / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
