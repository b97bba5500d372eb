"""A cap on what aiortc holds while it reassembles a DataChannel message.

aiortc joins a message's SCTP fragments before the channel's ``message`` event, so the 64 KiB
cap the session applies sees a message only once it is whole: a client that ignores the
``max-message-size`` the box advertises made the box hold 24 MiB for one message. This guard
watches the bytes aiortc buffers (its receive window shrinks by exactly those) after each DATA
chunk and, past the cap, stops reading that association and reports it, so the peer can be
closed before the rest arrives.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

_LOGGER = logging.getLogger(__name__)


class ReassemblyCap:
    """Installed on one ``RTCSctpTransport``; ``peak`` is the most it ever held."""

    def __init__(self, sctp: Any, limit: int, on_exceeded: Callable[[int], None]) -> None:
        self.limit = limit
        self.peak = 0
        self.tripped = False
        self._sctp = sctp
        self._on_exceeded = on_exceeded
        # The receive window offered is the cap itself (aiortc offers 1 MiB): an honest sender
        # never has more than the window unacknowledged, so on a lossy link its out-of-order
        # fragments stay under the cap, and only a sender ignoring the window passes it.
        # Installed before the association starts, so the INIT-ACK already says so.
        sctp._advertised_rwnd = limit  # noqa: SLF001
        self._window = limit
        self._receive = sctp._receive_data_chunk  # noqa: SLF001
        # aiortc has no hook here: the instance's bound method is replaced by the guarded one.
        sctp._receive_data_chunk = self._guarded  # noqa: SLF001

    @property
    def buffered(self) -> int:
        """Bytes of incomplete (or out-of-order) messages aiortc holds right now."""
        return self._window - int(self._sctp._advertised_rwnd)  # noqa: SLF001

    async def _guarded(self, chunk: Any) -> None:
        if self.tripped:
            return  # read no more from a peer that is being closed
        await self._receive(chunk)
        held = self.buffered
        self.peak = max(self.peak, held)
        if held > self.limit:
            self.tripped = True
            self._sctp._inbound_streams.clear()  # noqa: SLF001 - let the fragments go now
            _LOGGER.warning("a message being reassembled passed %d bytes (%d held); "
                            "closing its peer", self.limit, held)
            self._on_exceeded(held)
