"""A clock and timers that move only when a test says so: no real sleeps in unit tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Timer:
    when: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class FakeTimers:
    """``now()`` is the clock; ``call_later`` schedules; ``advance`` runs what falls due."""

    time: float = 0.0
    _pending: list[_Timer] = field(default_factory=list)

    def now(self) -> float:
        return self.time

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(self.time + delay, callback)
        self._pending.append(timer)
        return timer

    @property
    def scheduled(self) -> int:
        return sum(not t.cancelled for t in self._pending)

    def advance(self, seconds: float) -> None:
        self.time += seconds
        due = sorted((t for t in self._pending if t.when <= self.time and not t.cancelled),
                     key=lambda t: t.when)
        self._pending = [t for t in self._pending if t not in due and not t.cancelled]
        for timer in due:
            timer.callback()
