"""The document benchmark's judge: what counts as a fact stated."""

from __future__ import annotations

from benchmarks.bench_docs import Case, Row, judge


def _fact(expect: str, answer: str) -> bool:
    row = Row(Case("s", "rag", "q?", expect, None), answer, 0.1)
    judge(row, set(), set())
    return row.judged["fact"]


def test_the_cited_documents_name_states_nothing() -> None:
    # "hat" is in "family-chat.txt", not in what the box said.
    assert not _fact("hat|towel", "Swimming moved to 4.15 this week. (from family-chat.txt)")


def test_the_answers_own_words_state_the_fact() -> None:
    assert _fact("hat|towel", "Swimmers need their club hat and a towel. (from letter.pdf)")
    assert _fact("4\\.15", "Swimming moved to 4.15 this week.")
