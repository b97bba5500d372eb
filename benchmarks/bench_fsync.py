"""What a chat turn waits for on an SD card: fsyncs per turn (before the model is asked, and in
all) and the first piece with a delay injected into every fsync (``strace --inject``; 30 ms,
an SD card's), for the box as it is and, in the same run, with every write durable (as before).
A scripted model, so that only the disk's share of the first piece is measured.
Run: ``.venv/bin/python -m benchmarks.bench_fsync [--delay-ms 30] [--turns 20]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.turn_fsyncs import TRACED, fsyncs_per_turn


def measure(turns: int, delay_ms: int, all_durable: bool) -> tuple[list[tuple[int, int]],
                                                                    list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "strace.log"
        command = ["strace", "-f", "-e", f"trace={TRACED}", "-o", str(log)]
        if delay_ms:
            command += [f"--inject=fsync,fdatasync:delay_enter={delay_ms * 1000}"]
        command += [sys.executable, "-m", "benchmarks.turn_fsyncs", tmp, str(turns)]
        if all_durable:
            command.append("--all-durable")
        out = subprocess.run(command, capture_output=True, text=True, check=True)
        firsts = [float(x) for x in out.stdout.split()]
        return fsyncs_per_turn(log.read_text()), firsts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay-ms", type=int, default=30)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    rows = {}
    for label, all_durable in (("every write durable (before)", True),
                               ("the box (one durable write a turn)", False)):
        rows[label] = measure(args.turns, args.delay_ms, all_durable)
    print(f"\n{args.turns} turns each, {args.delay_ms} ms injected into every fsync\n")
    print("| run | fsyncs before the model (median) | fsyncs a turn (median, max) | "
          "first piece ms (median) |")
    print("|---|---:|---:|---:|")
    for label, (counts, firsts) in rows.items():
        print(f"| {label} | {statistics.median(b for b, _ in counts):.0f} | "
              f"{statistics.median(t for _, t in counts):.0f}, {max(t for _, t in counts)} | "
              f"{1000 * statistics.median(firsts):.1f} |")
    before, after = (statistics.median(f) for _, f in rows.values())
    print(f"\nfirst piece, the box / before: {after / before:.3f}")


if __name__ == "__main__":
    main()
