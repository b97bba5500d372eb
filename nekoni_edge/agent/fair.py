"""Turns at the one model, taken in turn by device: a device with many questions waiting (one
in each of 24 sessions) cannot make the owner wait for all of them. The model answers one turn
at a time anyway; this decides whose is next and how many one device may have waiting."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from nekoni_edge.errors import NekoniError

_LOGGER = logging.getLogger(__name__)

# Turns one device may have at the model, the one answered and those waiting, across all its
# sessions and channels: a phone typing ahead in two conversations fits.
PER_DEVICE = 3
BOX = "(the box)"  # the owner at the box and skill runs: one more device among the others
MAX_REMEMBERED = 256  # devices whose last turn is remembered (bounded memory)


class TooManyTurns(NekoniError):
    """A device has PER_DEVICE turns waiting already."""

    def reply(self) -> dict[str, Any]:
        return {"type": "error", "code": "BUSY", "message": str(self)}


class FairTurns:
    """One turn at a time; when it ends, the next is the oldest waiting turn of the device
    served longest ago (round robin), so a turn waits for at most one answer of each other
    device."""

    def __init__(self, per_device: int = PER_DEVICE) -> None:
        self.per_device = per_device
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._counts: dict[str, int] = {}  # waiting or running, per device
        self._served: dict[str, int] = {}  # when each device last had a turn (a counter)
        self._tick = 0
        self._running: str | None = None

    @asynccontextmanager
    async def turn(self, device: str | None) -> AsyncIterator[None]:
        """Wait for this device's turn at the model; raise TooManyTurns past the cap."""
        key = device or BOX
        if self._counts.get(key, 0) >= self.per_device:
            raise TooManyTurns(f"{self.per_device} of this device's messages are still being "
                               "answered; wait for them")
        self._counts[key] = self._counts.get(key, 0) + 1
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, deque()).append(ready)
        self._next()
        try:
            try:
                await ready
            except BaseException:
                if not ready.done() or ready.cancelled():
                    self._forget(key, ready)  # cancelled while waiting: never ran
                    raise
                raise  # given the turn, then cancelled before starting: released below
            yield
        finally:
            self._counts[key] -= 1
            if not self._counts[key]:
                del self._counts[key]
            if self._running == key and ready.done() and not ready.cancelled():
                self._running = None
                self._next()

    def waiting(self, device: str | None) -> int:
        """Turns of ``device`` waiting or running."""
        return self._counts.get(device or BOX, 0)

    def _forget(self, key: str, ready: asyncio.Future[None]) -> None:
        queue = self._waiting.get(key)
        if queue is not None and ready in queue:
            queue.remove(ready)
            if not queue:
                del self._waiting[key]

    def _next(self) -> None:
        """Give the model to the next device in turn, if it is free."""
        if self._running is not None:
            return
        while self._waiting:
            # The device served longest ago (never: first), the oldest of ties.
            key = min(self._waiting, key=lambda k: self._served.get(k, -1))
            queue = self._waiting[key]
            ready = queue.popleft()
            if not queue:
                del self._waiting[key]
            if ready.done():
                continue  # cancelled meanwhile
            self._running = key
            self._served[key] = self._tick
            self._tick += 1
            if len(self._served) > MAX_REMEMBERED:  # forget the longest-idle devices
                for old in sorted(self._served, key=self._served.__getitem__)[:len(
                        self._served) - MAX_REMEMBERED]:
                    del self._served[old]
            ready.set_result(None)
            return
