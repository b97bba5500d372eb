"""One process that runs chat turns with a scripted model and marks, with a ``getcwd`` system
call, when each turn starts, when the model is first asked and when the turn ends: run under
``strace -e trace=fsync,fdatasync,getcwd`` it shows which fsyncs each turn waits for, and where.
Used by ``tests/store/test_fsyncs.py`` and ``benchmarks/bench_fsync.py``.

    python -m benchmarks.turn_fsyncs DATA_DIR TURNS [--all-durable]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Any

from nekoni_edge.agent.chat import ChatService
from nekoni_edge.llm.provider import ChatTurn
from nekoni_edge.llm.scripted import ScriptedProvider
from nekoni_edge.store.database import Database

# Each moment is a system call strace shows between the fsyncs (nothing else here makes them).
MARKS = {"getcwd": "start", "uname": "model", "getpriority": "end"}
TRACED = "fsync,fdatasync," + ",".join(MARKS)


def mark(moment: str) -> None:
    """A turn starts, the model is asked, or the turn is over (its answer durable)."""
    if moment == "start":
        os.getcwd()
    elif moment == "model":
        os.uname()
    else:
        os.getpriority(os.PRIO_PROCESS, 0)


def fsyncs_per_turn(trace: str) -> list[tuple[int, int]]:
    """From an strace log: each marked turn's fsyncs (before the model was asked, in all)."""
    turns: list[tuple[int, int]] = []
    before = total = 0
    asked = in_turn = False
    for line in trace.splitlines():
        call = line.split(None, 1)[-1].split("(", 1)[0]
        if MARKS.get(call) == "start":
            before, total, asked, in_turn = 0, 0, False, True
        elif MARKS.get(call) == "model":
            asked = True
        elif MARKS.get(call) == "end" and in_turn:
            turns.append((before, total))
            in_turn = False
        elif call in ("fsync", "fdatasync") and in_turn:
            total += 1
            before += not asked
    return turns


class MarkingProvider(ScriptedProvider):
    """Marks the moment the model is first asked for an answer."""

    async def stream_chat(self, messages: Sequence[ChatTurn], *args: Any, **kwargs: Any
                          ) -> AsyncIterator[str]:
        mark("model")
        async with aclosing(super().stream_chat(messages, *args, **kwargs)) as stream:
            async for piece in stream:
                yield piece


async def run(data_dir: Path, turns: int, all_durable: bool) -> list[float]:
    """Seconds from each turn's start to its first piece."""
    firsts = []
    async with await Database.open(data_dir / "nekoni.db") as db:
        if all_durable:  # the old behaviour, for comparison: every write waits for the disk
            write = db.write

            async def durable_write(fn: Any, *, durable: bool = True) -> Any:
                return await write(fn)

            db.write = durable_write  # type: ignore[method-assign]
        chat = ChatService(db, MarkingProvider([["Fine, ", "thanks."]] * (turns + 1)),
                           system_prompt="S", context_messages=20, n_ctx=4096, max_tokens=32)
        for n in range(turns + 1):
            if n:
                mark("start")  # (the first turn warms up, unmarked)
            started = time.perf_counter()
            first = None
            async with aclosing(chat.reply(f"s{n}", "How are you?")) as stream:
                async for _ in stream:
                    first = first or time.perf_counter() - started
            if n:
                mark("end")  # the turn is over: its answer is durable
                firsts.append(first or 0.0)
    return firsts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("turns", type=int)
    parser.add_argument("--all-durable", action="store_true")
    args = parser.parse_args()
    firsts = asyncio.run(run(args.data_dir, args.turns, args.all_durable))
    print(" ".join(f"{f:.4f}" for f in firsts))


if __name__ == "__main__":
    main()
