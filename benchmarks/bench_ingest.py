"""Ingest memory and speed: a generated household text of N MiB into a fresh box database,
with the real int8 MiniLM, in a child process per size; prints the peak RSS over the idle RSS
(after the embedder is loaded) and chunks per second.

Run: ``.venv/bin/python -m benchmarks.bench_ingest [--sizes 1 3 25]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOMS = ["kitchen", "garage", "attic", "garden shed", "hallway", "bathroom", "cellar"]
THINGS = ["spare key", "fuse box", "water valve", "ladder", "first-aid kit", "torch",
          "boiler manual", "bike pump", "paint tins", "router"]
DOINGS = ["is kept", "was moved", "should be checked", "gets serviced", "is stored"]
WHEN = ["every Tuesday", "in spring", "after storms", "on the first of the month", "at dawn"]


def household_text(mib: float, seed: int = 7) -> str:
    """Paragraphs of plausible household notes, ``mib`` MiB of UTF-8."""
    rng = random.Random(seed)
    out, size = [], 0
    while size < mib * 2**20:
        sentences = [f"The {rng.choice(THINGS)} {rng.choice(DOINGS)} in the "
                     f"{rng.choice(ROOMS)} {rng.choice(WHEN)}." for _ in range(rng.randint(3, 9))]
        paragraph = " ".join(sentences) + "\n\n"
        out.append(paragraph)
        size += len(paragraph)
    return "".join(out)


def rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


async def child(mib: float, fold: bool) -> dict[str, float]:
    from nekoni_edge.memory import return_freed_memory
    from nekoni_edge.rag.embed import Embedder
    from nekoni_edge.rag.knowledge import KnowledgeBase
    from nekoni_edge.store.database import Database

    data = household_text(mib).encode("utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "box.db")
        embedder = await Embedder.open(2, fold_weights=fold)
        kb = KnowledgeBase(embedder, db)
        await embedder.embed(["warm up the model once"])
        await asyncio.to_thread(return_freed_memory)
        await asyncio.to_thread(Path("/proc/self/clear_refs").write_text, "5")  # VmHWM from here
        idle = rss_kib("VmRSS")
        started = time.monotonic()
        result = await kb.ingest("notes.txt", data)
        seconds = time.monotonic() - started
        peak = rss_kib("VmHWM")
        embedder.close()
        await db.close()
    return {"mib": mib, "chunks": result.chunks, "seconds": seconds,
            "idle_mib": idle / 1024, "peak_over_idle_mib": (peak - idle) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=float, nargs="+", default=[1.0, 3.0])
    parser.add_argument("--fold", action="store_true", help="embedder_fold_weights = true")
    parser.add_argument("--child", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(asyncio.run(child(args.child, args.fold))))
        return
    print(f"{'text MiB':>9}{'chunks':>8}{'seconds':>9}{'chunks/s':>10}{'idle MiB':>10}"
          f"{'peak over idle MiB':>20}")
    for mib in args.sizes:
        fold = ["--fold"] if args.fold else []
        out = subprocess.run([sys.executable, "-m", "benchmarks.bench_ingest", "--child",
                              str(mib), *fold], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{r['mib']:>9.1f}{r['chunks']:>8}{r['seconds']:>9.1f}"
              f"{r['chunks'] / r['seconds']:>10.1f}{r['idle_mib']:>10.0f}"
              f"{r['peak_over_idle_mib']:>20.0f}")


if __name__ == "__main__":
    main()
