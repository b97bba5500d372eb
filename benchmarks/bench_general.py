"""General questions straight to the model, as the box asks them (its system prompt, the
question alone, no notes): how many of the sets' ``general`` turns each sampling temperature
answers right by the turn's ``expect``. Seeds are fixed, so a row is repeatable; two seeds a
temperature show how much of a difference is chance.

Run: ``.venv/bin/python -m benchmarks.bench_general [--runs 0.7:1 0.7:2 0.3:1 0.3:2 0:1]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

from benchmarks.bench_docs import expand
from nekoni_edge.config import DEFAULT_SYSTEM_PROMPT, Settings
from nekoni_edge.llm.llama import LlamaProvider
from nekoni_edge.llm.models import default_gguf
from nekoni_edge.llm.provider import ChatTurn

SETS = Path(__file__).parent / "sets"
MAX_TOKENS = 96  # a general answer's first sentences; the judge reads the whole of it


def questions(folders: list[Path]) -> list[tuple[str, str]]:
    """Every general turn with an ``expect``, in the sets' order."""
    found = []
    for folder in folders:
        cases = json.loads((folder / "cases.json").read_text())
        for session in cases.get("sessions", []):
            if session.get("kind") == "general":
                found += [(t["q"], t["expect"]) for t in session["turns"] if t.get("expect")]
    return found


async def right(temperature: float, seed: int, asked: list[tuple[str, str]]) -> int:
    provider = await LlamaProvider.load(default_gguf(), n_threads=Settings().n_threads,
                                        n_ctx=Settings().n_ctx, temperature=temperature,
                                        seed=seed)
    try:
        count = 0
        for question, expect in asked:
            answer = ""
            async for piece in provider.stream_chat(
                    [ChatTurn("system", DEFAULT_SYSTEM_PROMPT), ChatTurn("user", question)],
                    max_tokens=MAX_TOKENS, plain_text=True):
                answer += piece
            count += re.search(expand(expect), answer, re.IGNORECASE | re.DOTALL) is not None
        return count
    finally:
        await provider.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", nargs="+", default=["0.7:1", "0.7:2", "0.3:1", "0.3:2", "0:1"],
                        help="temperature:seed pairs")
    parser.add_argument("folders", nargs="*", type=Path)
    args = parser.parse_args()
    folders = args.folders or sorted(p for p in SETS.iterdir() if (p / "cases.json").exists())
    asked = questions(folders)
    print("| temperature | seed | general right |")
    print("|---:|---:|---:|")
    for run in args.runs:
        temperature, seed = run.split(":")
        count = asyncio.run(right(float(temperature), int(seed), asked))
        print(f"| {float(temperature):.1f} | {seed} | {count}/{len(asked)} |", flush=True)


if __name__ == "__main__":
    main()
