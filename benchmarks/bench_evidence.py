"""The answers' picks without the model: for each set's questions that open a session (facts
and unanswerables), what the box would hold its answer to, from ``ChatService.explain``. A
fact is right when the sentence(s) it would tell match the turn's ``expect``; an
unanswerable is declined when the box would decline it with no model call. Seconds per set
rather than minutes, so a change to the picking can be checked on every set at once; what
reaches the user still needs ``bench_docs`` (the model's own words, follow-ups).

Run: ``.venv/bin/python -m benchmarks.bench_evidence benchmarks/sets/docs_a [more folders]``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.bench_agent import open_box
from benchmarks.bench_docs import documents, expand, load_cases

VERDICTS = ("right", "wrong", "declined", "model", "unanswerable declined",
            "unanswerable told", "unanswerable to the model")


async def run_set(folder: Path, verbose: bool) -> Counter[str]:
    tally: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        box = await open_box(False, Path(tmp), documents(folder))
        assert box.chat is not None
        try:
            for group in load_cases(folder):
                case = group[0]
                if case.kind not in ("rag", "followup", "abstain"):
                    continue
                _reading, turn_plan, found = await box.chat.explain(case.question)
                told = (found.told or found.sentence) if found is not None else ""
                if case.kind == "abstain":
                    verdict = "unanswerable declined" if turn_plan.decline else \
                        "unanswerable told" if found is not None else "unanswerable to the model"
                elif turn_plan.decline:
                    verdict = "declined"
                elif found is None:
                    verdict = "model"
                else:
                    flags = re.IGNORECASE | re.DOTALL
                    right = case.expect is not None and re.search(
                        expand(case.expect), told, flags) and not (
                        case.forbid and re.search(case.forbid, told, flags))
                    verdict = "right" if right else "wrong"
                tally[verdict] += 1
                if verbose and verdict not in ("right", "unanswerable declined"):
                    print(f"  {folder.name} {verdict}: {case.question} -> {told[:150]!r}")
        finally:
            await box.stop()
    return tally


async def run(folders: list[Path], verbose: bool) -> None:
    rows = [(folder.name, await run_set(folder, verbose)) for folder in folders]
    total: Counter[str] = Counter()
    for _, tally in rows:
        total.update(tally)
    print("| set | facts right | wrong | declined | to the model | unanswerable declined "
          "| told | to the model |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, tally in [*rows, ("all", total)]:
        facts = sum(tally[v] for v in VERDICTS[:4])
        unanswerable = sum(tally[v] for v in VERDICTS[4:])
        print(f"| {name} | {tally['right']}/{facts} | {tally['wrong']} | {tally['declined']} | "
              f"{tally['model']} | {tally['unanswerable declined']}/{unanswerable} | "
              f"{tally['unanswerable told']} | {tally['unanswerable to the model']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    args = parser.parse_args()
    asyncio.run(run(args.folders, args.verbose))


if __name__ == "__main__":
    main()
