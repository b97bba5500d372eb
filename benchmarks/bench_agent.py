"""The agent as a user meets it: default settings, the real default model, the household set.

Per question: fact found, JSON leaked, time to first piece, model calls, prompt tokens
llama.cpp evaluated (its own count); a five-turn conversation's evaluated tokens per turn
against that turn's new tokens; the same run with ``tools = false`` beside it; the router's
threshold sweep on a labelled set. Run: ``.venv/bin/python -m benchmarks.bench_agent``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import re
import statistics
import tempfile
import time
from contextlib import aclosing
from pathlib import Path
from typing import Any

from benchmarks.agent_corpus import CHAT, CONVERSATION, DOCUMENTS, KNOWLEDGE, LABELLED, STATUS, TIME
from nekoni_edge.agent.answer import looks_like_json
from nekoni_edge.agent.chat import ChatService
from nekoni_edge.config import load_settings
from nekoni_edge.daemon import Daemon


@dataclasses.dataclass
class Row:
    kind: str
    question: str
    answer: str
    found: bool | None
    leaked: bool
    first_s: float
    calls: int
    evaluated: int
    tools: list[str]


def time_regex() -> str:
    """The box's current hour and minute (either side of a minute boundary), 24 or 12 h."""
    now = dt.datetime.now().astimezone()
    stamps = {now - dt.timedelta(minutes=1), now, now + dt.timedelta(minutes=1)}
    forms = set()
    for t in stamps:
        forms.add(t.strftime("%H:%M"))
        forms.add(f"{t.hour % 12 or 12}:{t.minute:02d}")
    return "|".join(re.escape(f) for f in forms)


async def ask(chat: ChatService, session: str, question: str) -> tuple[str, float]:
    started = time.perf_counter()
    first = 0.0
    pieces = []
    async with aclosing(chat.reply(session, question)) as stream:
        async for piece in stream:
            if not pieces:
                first = time.perf_counter() - started
            pieces.append(piece)
    return "".join(pieces), first


async def run_config(tools: bool, verbose: bool) -> tuple[list[Row], list[tuple[int, int, int]]]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = dataclasses.replace(load_settings(env={}), data_dir=Path(tmp), tools=tools,
                                       mdns=False, gpio="off")
        daemon = Daemon(settings)
        await daemon.start_local()
        try:
            chat = daemon.chat
            assert chat is not None
            assert chat.knowledge is not None
            for name, text in DOCUMENTS.items():
                await chat.knowledge.ingest(name, text.encode())
            rows: list[Row] = []
            sets: list[tuple[str, dict[str, str | None]]] = [
                ("knowledge", dict(KNOWLEDGE)), ("time", dict.fromkeys(TIME, "")),
                ("status", dict.fromkeys(STATUS)), ("chat", dict.fromkeys(CHAT))]
            n = 0
            for kind, questions in sets:
                for question, regex in questions.items():
                    n += 1
                    answer, first = await ask(chat, f"bench-{n}", question)
                    stats = chat.last_stats
                    assert stats is not None
                    if kind == "time":
                        regex = time_regex()
                    found = (re.search(regex, answer, re.IGNORECASE) is not None
                             if regex is not None else None)
                    leaked = looks_like_json(answer) or '"tool_call"' in answer or "{" in answer
                    rows.append(Row(kind, question, answer, found, leaked, first,
                                    stats.llm_calls, stats.evaluated_tokens, list(stats.tools)))
                    if verbose:
                        print(f"  [{kind}] {question} -> {answer[:160]!r}", flush=True)
            turns: list[tuple[int, int, int]] = []
            provider = chat.provider
            assert provider is not None
            for question in CONVERSATION:
                answer, _ = await ask(chat, "conversation", question)
                stats = chat.last_stats
                assert stats is not None
                new = await provider.count_tokens(question)
                shown = await provider.count_tokens(stats.new_prompt)
                turns.append((stats.evaluated_tokens, new, shown - new))
                if verbose:
                    print(f"  [turn] {question} -> {answer[:160]!r}", flush=True)
            return rows, turns
        finally:
            await daemon.stop()


async def router_sweep() -> None:
    """Each labelled request's best score per tool; accuracy at each threshold."""
    from nekoni_edge.agent.builtins import register_builtins
    from nekoni_edge.agent.router import ROUTE_THRESHOLD, ToolRouter
    from nekoni_edge.agent.tools import ToolRegistry
    from nekoni_edge.rag.embed import Embedder

    tools = ToolRegistry()
    register_builtins(tools, data_dir=Path("."))
    embedder = await Embedder.open(2)
    try:
        router = ToolRouter(tools)
        await router.prepare(embedder.embed)
        vectors = await embedder.embed(list(LABELLED))
        print("\nRouter on the labelled set (requests none of the tools' examples):")
        print("| threshold | right | tool requests missed | other requests routed |")
        print("|---:|---:|---:|---:|")
        for threshold in (0.45, 0.5, 0.55, 0.6, 0.65, 0.7):
            router.threshold = threshold
            right = missed = wrong = 0
            for label, vector in zip(LABELLED.values(), vectors, strict=True):
                chosen = [r.tool.name for r in router.route(vector)]
                ok = chosen[:1] == ([label] if label else [])
                right += ok
                missed += bool(label) and not chosen
                wrong += bool(chosen) and chosen[0] != label
            mark = " (default)" if threshold == ROUTE_THRESHOLD else ""
            print(f"| {threshold}{mark} | {right}/{len(LABELLED)} | {missed} | {wrong} |")
        router.threshold = ROUTE_THRESHOLD
        for (request, label), vector in zip(LABELLED.items(), vectors, strict=True):
            scores = router.scores(vector)
            chosen = [r.tool.name for r in router.route(vector)]
            if chosen[:1] != ([label] if label else []):
                print(f"  miss: {request!r} expected {label}, got {chosen}, "
                      f"{ {k: round(v[0], 3) for k, v in scores.items()} }")
    finally:
        embedder.close()


def table(label: str, rows: list[Row], turns: list[tuple[int, int, int]]) -> dict[str, Any]:
    print(f"\n### {label}\n")
    print("| kind | question | fact | JSON | first piece s | calls | evaluated | tools |")
    print("|---|---|:-:|:-:|---:|---:|---:|---|")
    for r in rows:
        fact = "—" if r.found is None else ("yes" if r.found else "no")
        print(f"| {r.kind} | {r.question} | {fact} | {'LEAK' if r.leaked else 'no'} | "
              f"{r.first_s:.2f} | {r.calls} | {r.evaluated} | {','.join(r.tools) or '—'} |")
    print("\n| turn | evaluated | new tokens | retrieved + facts | limit (new + retrieved + 32) |")
    print("|---:|---:|---:|---:|---:|")
    for i, (evaluated, new, retrieved) in enumerate(turns, 1):
        print(f"| {i} | {evaluated} | {new} | {retrieved} | {new + retrieved + 32} |")
    knowledge = [r for r in rows if r.kind == "knowledge"]
    timed = [r for r in rows if r.kind == "time"]
    summary = {
        "facts": sum(bool(r.found) for r in knowledge), "of": len(knowledge),
        "time": sum(bool(r.found) for r in timed), "time_of": len(timed),
        "leaked": sum(r.leaked for r in rows),
        "first": statistics.median(r.first_s for r in rows),
        "calls": statistics.mean(r.calls for r in rows),
        "turns_ok": sum(e <= n + k + 32 for e, n, k in turns[1:]),
    }
    print(f"\nfacts {summary['facts']}/{summary['of']}; time {summary['time']}/"
          f"{summary['time_of']}; JSON leaked {summary['leaked']}; median first piece "
          f"{summary['first']:.2f} s; model calls per turn {summary['calls']:.2f}; turns 2-5 "
          f"within the limit {summary['turns_ok']}/4")
    return summary


async def main_async(verbose: bool, sweep: bool) -> None:
    if sweep:
        await router_sweep()
    rows_on, turns_on = await run_config(True, verbose)
    rows_off, turns_off = await run_config(False, verbose)
    on = table("default settings (tools on)", rows_on, turns_on)
    off = table("tools = false", rows_off, turns_off)
    print("\n| run | facts /12 | time /5 | JSON leaked | median first piece s | calls/turn |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, s in (("default (tools on)", on), ("tools = false", off)):
        print(f"| {label} | {s['facts']} | {s['time']} | {s['leaked']} | {s['first']:.2f} | "
              f"{s['calls']:.2f} |")
    print(f"\nfirst-piece ratio, default / tools=false: {on['first'] / off['first']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every answer")
    parser.add_argument("--no-sweep", action="store_true", help="skip the router sweep")
    args = parser.parse_args()
    asyncio.run(main_async(args.verbose, not args.no_sweep))


if __name__ == "__main__":
    main()
