"""Work someone is waiting for comes first: while a chat turn runs, background work (a book's
ingest) pauses at its next step, so the model has the cores and the phone its first words."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager


class Foreground:
    """Counts running foreground work; background work awaits ``idle`` between its steps."""

    def __init__(self) -> None:
        self._running = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def busy(self) -> bool:
        return self._running > 0

    @contextmanager
    def running(self) -> Iterator[None]:
        """Mark foreground work for the duration of the block."""
        self._running += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._running -= 1
            if self._running == 0:
                self._idle.set()

    async def idle(self) -> None:
        """Return at once when nothing waits on the box, else when the last such work ends."""
        if self._running:
            await self._idle.wait()
