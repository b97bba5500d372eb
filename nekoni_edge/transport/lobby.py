"""Sockets that have opened ``/signal`` but not joined yet: a deadline each, and a cap.

Only a paired phone gets past ``join``, and it joins in its first message. Anyone on the LAN can
open sockets and say nothing, each one a file descriptor of the box's 1024; so a socket waits at
most ``JOIN_DEADLINE_S``, and when ``MAX_WAITING`` already wait the oldest is sent away. The
oldest, not the newcomer: a phone that joins right after it opens is never the oldest, so a
crowd has to open more sockets than that within one round trip of the phone's to keep it out.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

JOIN_DEADLINE_S = 10.0  # like the DataChannel's hello: a phone joins within a round trip
MAX_WAITING = 64

T = TypeVar("T")


class Lobby(Generic[T]):
    """Sans-IO: who waits to join since when; says whom to send away and when to look again."""

    def __init__(self, capacity: int = MAX_WAITING, deadline_s: float = JOIN_DEADLINE_S) -> None:
        if capacity < 1:
            raise ValueError("a lobby holds at least one socket")
        self.capacity = capacity
        self.deadline_s = deadline_s
        self._since: OrderedDict[T, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._since)

    def __contains__(self, item: object) -> bool:
        return item in self._since

    def waiting(self) -> list[T]:
        """Everyone waiting to join, oldest first."""
        return list(self._since)

    def enter(self, item: T, now: float) -> list[T]:
        """``item`` starts waiting; returns the oldest waiting ones it pushed over the cap."""
        self._since[item] = now
        self._since.move_to_end(item)
        evicted = []
        while len(self._since) > self.capacity:
            oldest, _ = self._since.popitem(last=False)
            evicted.append(oldest)
        return evicted

    def leave(self, item: T) -> None:
        """``item`` joined or went away; idempotent."""
        self._since.pop(item, None)

    def expired(self, now: float) -> list[T]:
        """Remove and return every item that has waited ``deadline_s`` or longer."""
        out = []
        while self._since:
            item, since = next(iter(self._since.items()))
            if now - since < self.deadline_s:
                break
            del self._since[item]
            out.append(item)
        return out

    def next_deadline(self) -> float | None:
        """When the oldest waiting item's time is up, or None when nobody waits."""
        for since in self._since.values():
            return since + self.deadline_s
        return None
