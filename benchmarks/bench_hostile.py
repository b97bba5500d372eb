"""What crafted frames cost the box to refuse, against their size: the cost must stay linear.

Each shape is decoded as a peer frame would be (``protocol.messages.decode``: size cap, nesting
scan, JSON); median of 5 per size. Run: ``.venv/bin/python -m benchmarks.bench_hostile``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from nekoni_edge.errors import NekoniError
from nekoni_edge.protocol.messages import decode

KIB = 1024


def escaped_quotes_deep_first(size: int) -> str:
    return "[" * 33 + '"' + '\\"' * ((size - 34) // 2)


def escaped_quotes_deep_last(size: int) -> str:
    body = '\\"' * ((size - 90) // 2)
    return '{"a":"' + body + '","b":' + "[" * 33 + "]" * 33 + "}"


def backslashes_then_brackets(size: int) -> str:
    return '"' + "\\\\" * ((size - 80) // 2) + '"' + "[" * 40


def brackets_in_a_string(size: int) -> str:
    return '{"type":"message","content":"' + '[{\\"[' * ((size - 60) // 6) + '"}'


SHAPES: dict[str, Callable[[int], str]] = {
    "[×33 then an unterminated string of \\\"": escaped_quotes_deep_first,
    "a string of \\\" then [×33": escaped_quotes_deep_last,
    "a string of \\\\ then [×40": backslashes_then_brackets,
    "brackets and escapes inside one string (valid)": brackets_in_a_string,
}


def cost_ms(frame: str) -> float:
    times = []
    for _ in range(5):
        started = time.perf_counter()
        try:
            decode(frame)
        except NekoniError:
            pass
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    sizes = [4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 63 * KIB]
    print("| frame | " + " | ".join(f"{s // KIB} KiB ms" for s in sizes) +
          " | µs per KiB at 4 / 63 KiB |")
    print("|---|" + "---:|" * (len(sizes) + 1))
    for name, make in SHAPES.items():
        costs = [cost_ms(make(size)) for size in sizes]
        per_kib = [costs[0] * 1000 / 4, costs[-1] * 1000 / 63]
        print(f"| {name} | " + " | ".join(f"{c:.2f}" for c in costs) +
              f" | {per_kib[0]:.0f} / {per_kib[1]:.0f} |")
    print("\nLinear: the cost per KiB stays flat as the frame grows (a quadratic scan's grows "
          "with the size; the string regex it replaced took 36 s for the first shape at 64 KB).")


if __name__ == "__main__":
    main()
