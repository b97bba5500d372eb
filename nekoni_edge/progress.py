"""Progress of long work in words a person wants: how far, and about how long is left."""

from __future__ import annotations

import time
from collections.abc import Callable

MIN_ELAPSED_S = 1.0  # an estimate from less than this is a guess, not said


class Eta:
    """Seconds left for ``total`` steps at the rate seen so far (None until it means much)."""

    def __init__(self, total: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self._clock = clock
        self._started = clock()

    def seconds_left(self, done: int) -> float | None:
        elapsed = self._clock() - self._started
        if done <= 0 or elapsed < MIN_ELAPSED_S:
            return None
        return max(0.0, elapsed / done * (self.total - done))


def in_words(seconds: float | None) -> str:
    """``about 3 min left``; empty while there is no estimate."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"about {max(1, round(seconds))} s left"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"


class Throttle:
    """True at most once per ``every_s`` (and always for the last step): progress for a phone
    at a pace it can show, not one message per chunk."""

    def __init__(self, every_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self._clock = clock
        self._last = -float("inf")

    def ready(self, last_step: bool = False) -> bool:
        now = self._clock()
        if last_step or now - self._last >= self.every_s:
            self._last = now
            return True
        return False
