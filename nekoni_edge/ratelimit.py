"""Failure rate limits: too many failures from one key or address in a minute block it."""

from __future__ import annotations

import logging
from collections import OrderedDict, deque

_LOGGER = logging.getLogger(__name__)

MAX_FAILURES = 5
FAILURE_WINDOW_S = 60.0
BLOCK_S = 300.0
MAX_TRACKED = 4096  # a LAN flood of fresh keys cannot grow this without bound


class FailureLimiter:
    """Sans-IO: record failures per identity, answer whether an identity is blocked."""

    def __init__(
        self,
        max_failures: int = MAX_FAILURES,
        window_s: float = FAILURE_WINDOW_S,
        block_s: float = BLOCK_S,
        max_tracked: int = MAX_TRACKED,
    ) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self.block_s = block_s
        self.max_tracked = max_tracked
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._blocked: OrderedDict[str, float] = OrderedDict()

    def is_blocked(self, *idents: str | None, now: float) -> bool:
        """True if any of ``idents`` is blocked."""
        for ident in idents:
            if ident is None:
                continue
            until = self._blocked.get(ident)
            if until is not None:
                if until > now:
                    return True
                del self._blocked[ident]
        return False

    def failure(self, *idents: str | None, now: float) -> bool:
        """Record one failure for each identity; True if this blocked one of them."""
        blocked = False
        for ident in idents:
            if ident is None:
                continue
            times = self._failures.pop(ident, None) or deque(maxlen=self.max_failures)
            times.append(now)
            self._failures[ident] = times
            while len(self._failures) > self.max_tracked:
                self._failures.popitem(last=False)
            if len(times) >= self.max_failures and now - times[0] <= self.window_s:
                self._blocked[ident] = now + self.block_s
                self._blocked.move_to_end(ident)
                while len(self._blocked) > self.max_tracked:
                    self._blocked.popitem(last=False)
                times.clear()
                blocked = True
                _LOGGER.warning("blocking %s for %.0f s after %d failures",
                                ident[:24], self.block_s, self.max_failures)
        return blocked

    def forgive(self, *idents: str | None) -> None:
        """Lift any block and forget the failures of ``idents`` (the owner vouched for them)."""
        for ident in idents:
            if ident is None:
                continue
            if self._blocked.pop(ident, None) is not None:
                _LOGGER.info("unblocking %s: the owner approved it", ident[:24])
            self._failures.pop(ident, None)
