"""Progress in words: an estimate of the time left, and a pace a phone can show."""

from __future__ import annotations

from nekoni_edge.progress import Eta, Throttle, in_words


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_eta_from_the_rate_so_far() -> None:
    clock = Clock()
    eta = Eta(1000, clock)
    assert eta.seconds_left(0) is None
    clock.now += 0.5
    assert eta.seconds_left(10) is None  # too early to say
    clock.now += 9.5
    assert eta.seconds_left(100) == 90.0  # 10 s for 100, 900 to go
    assert eta.seconds_left(1000) == 0.0


def test_in_words() -> None:
    assert in_words(None) == ""
    assert in_words(0.2) == "about 1 s left"
    assert in_words(42) == "about 42 s left"
    assert in_words(150) == "about 2 min left"
    assert in_words(5400) == "about 1.5 h left"


def test_throttle_passes_one_a_second_and_always_the_last() -> None:
    clock = Clock()
    throttle = Throttle(1.0, clock)
    passed = []
    for step in range(1, 101):
        clock.now += 0.05
        if throttle.ready(last_step=step == 100):
            passed.append(step)
    assert passed[0] == 1
    assert passed[-1] == 100
    assert len(passed) <= 7  # 5 s of steps: about one a second, plus the last
