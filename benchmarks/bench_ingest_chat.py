"""A chat turn while a document is being added: first-piece time of the real agent (the
embedded GGUF, the real MiniLM, a real store with the household documents) when the box is
quiet, during an ingest that waits for chat turns (the box), and during one that does not.

Run: ``.venv/bin/python -m benchmarks.bench_ingest_chat [--turns 5] [--mib 0.5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.agent_corpus import DOCUMENTS, KNOWLEDGE
from benchmarks.bench_ingest import household_text

if TYPE_CHECKING:
    from nekoni_edge.agent.chat import ChatService

THREADS = 2


async def first_piece_ms(chat: ChatService, session: str, question: str) -> float:
    started = time.perf_counter()
    first = None
    async with aclosing(chat.reply(session, question)) as stream:
        async for _ in stream:
            first = first or time.perf_counter()
    assert first is not None
    return (first - started) * 1000


async def run(turns: int, mib: float) -> None:
    from nekoni_edge.agent.builtins import register_builtins
    from nekoni_edge.agent.chat import ChatService
    from nekoni_edge.agent.tools import ToolRegistry
    from nekoni_edge.foreground import Foreground
    from nekoni_edge.llm.llama import LlamaProvider
    from nekoni_edge.llm.models import default_gguf
    from nekoni_edge.rag.embed import Embedder
    from nekoni_edge.rag.knowledge import KnowledgeBase
    from nekoni_edge.store.database import Database

    questions = list(KNOWLEDGE)
    provider = await LlamaProvider.load(default_gguf(), n_threads=THREADS, n_ctx=2048,
                                        temperature=0.0)
    embedder = await Embedder.open(THREADS)
    rows: list[tuple[str, float, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with await Database.open(Path(tmp) / "box.db") as db:
            knowledge = KnowledgeBase(embedder, db)
            for name, text in DOCUMENTS.items():
                await knowledge.ingest(name, text.encode())
            tools = ToolRegistry()
            register_builtins(tools, data_dir=Path(tmp))
            chat = ChatService(db, provider, system_prompt="You are a helpful assistant.",
                               context_messages=20, n_ctx=2048, max_tokens=60, tools=tools,
                               knowledge=knowledge)
            await first_piece_ms(chat, "warm", "Hello!")
            for label, ingest_kb in (("quiet", None), ("during an ingest (box: it waits)",
                                                       knowledge),
                                     ("during an ingest that does not wait",
                                      KnowledgeBase(embedder, knowledge.store,
                                                    foreground=Foreground()))):
                task = None
                if ingest_kb is not None:
                    text = household_text(mib, seed=len(rows) + 1).encode()
                    task = asyncio.create_task(ingest_kb.ingest(f"{label}.txt", text))
                    await asyncio.sleep(2.0)  # under way
                times = []
                for i in range(turns):
                    times.append(await first_piece_ms(chat, f"{label}{i}",
                                                      questions[i % len(questions)]))
                    await asyncio.sleep(0.5)
                overlapped = task is not None and not task.done()
                if task is not None:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
                rows.append((label + ("" if overlapped or task is None else " (ended early)"),
                             statistics.median(times), turns))
    embedder.close()
    await provider.aclose()
    quiet = rows[0][1]
    print(f"## First piece of an answer, {turns} household questions each, {THREADS} threads")
    print(f"{'condition':<44}{'median ms':>10}{'× quiet':>9}")
    for label, ms, _ in rows:
        print(f"{label:<44}{ms:>10.0f}{ms / quiet:>9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--mib", type=float, default=0.5, help="text added meanwhile")
    args = parser.parse_args()
    asyncio.run(run(args.turns, args.mib))


if __name__ == "__main__":
    main()
