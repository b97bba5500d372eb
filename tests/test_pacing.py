"""Joining pieces for sending: the first at once, then at most one text every interval."""

from __future__ import annotations

from nekoni_edge.pacing import Joiner


def test_the_first_piece_goes_at_once_then_joined() -> None:
    joiner = Joiner(0.05)
    handed: list[str] = []
    for now, piece in [(0.0, "Cats"), (0.01, " like"), (0.03, " boxes"), (0.06, "."),
                       (0.08, " They"), (0.09, " hide")]:
        if joiner.push(piece, now) <= 0:
            handed.append(joiner.take(now))
    assert handed == ["Cats", " like boxes."]  # the first at once; then at most one every 50 ms
    handed.append(joiner.take(0.1))
    assert joiner.take(0.1) == ""  # nothing held: nothing handed
    assert handed == ["Cats", " like boxes.", " They hide"]
    assert joiner.taken == 3


def test_it_says_how_long_the_held_text_waits() -> None:
    joiner = Joiner(0.1)
    assert joiner.push("a", 5.0) <= 0
    joiner.take(5.0)
    assert abs(joiner.push("b", 5.03) - 0.07) < 1e-9


def test_the_first_texts_can_go_at_once_before_the_pacing_starts() -> None:
    joiner = Joiner(0.1, at_once=3)
    sent = []
    for i, now in enumerate((0.0, 0.001, 0.002, 0.003)):
        if joiner.push(f"t{i}", now) <= 0:
            sent.append(joiner.take(now))
    assert sent == ["t0", "t1", "t2"]  # the fourth waits for the interval
    assert joiner.push("t4", 0.004) > 0
