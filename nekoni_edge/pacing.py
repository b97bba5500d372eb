"""Text pieces joined for sending: the first at once, later ones at most every interval.

Sans-IO: the caller says what time it is and sends what ``take`` returns. The app paces the
chunks a phone receives with it, the model's thread the pieces it hands to the event loop.
"""

from __future__ import annotations

import math


class Joiner:
    """Holds pieces and says when the held text may go."""

    def __init__(self, interval_s: float, *, at_once: int = 1) -> None:
        """``at_once``: how many texts go as soon as they come before pacing starts."""
        self.interval_s = interval_s
        self.at_once = at_once
        self._held: list[str] = []
        self._last = -math.inf
        self.taken = 0  # texts taken (sent)

    def push(self, piece: str, now: float) -> float:
        """Hold ``piece``; return the seconds until the held text may go (≤ 0: now)."""
        self._held.append(piece)
        if self.taken < self.at_once:
            return 0.0
        return self._last + self.interval_s - now

    def take(self, now: float) -> str:
        """What is held, joined ("" when nothing is); it counts as sent at ``now``."""
        if not self._held:
            return ""
        text = "".join(self._held)
        self._held.clear()
        self._last = now
        self.taken += 1
        return text
