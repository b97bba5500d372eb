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

    def __init__(self, sctp: Any, window: int, limit: int,
                 on_exceeded: Callable[[int], None]) -> None:
        self.limit = limit
        self.peak = 0
        self.tripped = False
        self._sctp = sctp
        self._on_exceeded = on_exceeded
        # The receive window offered (aiortc offers 1 MiB) is under the cap: an honest sender
        # never has more than the window unacknowledged, so on a lossy link its out-of-order
        # fragments stay under the cap, and only a sender ignoring the window passes it.
        # Installed before the association starts, so the INIT-ACK already says so.
        sctp._advertised_rwnd = window
        self._window = window
        self._receive = sctp._receive_data_chunk
        # aiortc has no hook here: the instance's bound method is replaced by the guarded one.
        sctp._receive_data_chunk = self._guarded

    @property
    def buffered(self) -> int:
        """Bytes of incomplete (or out-of-order) messages aiortc holds right now."""
        return self._window - int(self._sctp._advertised_rwnd)

    async def _guarded(self, chunk: Any) -> None:
        if self.tripped:
            return  # read no more from a peer that is being closed
        await self._receive(chunk)
        held = self.buffered
        self.peak = max(self.peak, held)
        if held > self.limit:
            self.tripped = True
            self._sctp._inbound_streams.clear()  # let the fragments go now
            _LOGGER.warning("a message being reassembled passed %d bytes (%d held); "
                            "closing its peer", self.limit, held)
            self._on_exceeded(held)


def respect_receive_window(sctp: Any) -> None:
    """Make aiortc's sender keep what is in flight within the window the receiver offers.

    aiortc limits its sender by the congestion window alone and grows that without bound on a
    clean link, so a client sending a 2 MiB upload at once had ~230 KiB outstanding against the
    box's 256 KiB window (and tripped the box's reassembly cap on a loaded machine). An SCTP
    sender must never have more unacknowledged than the receiver's last advertised window;
    after each SACK the congestion window is clamped to it (never below one packet).
    """
    from aiortc.rtcsctptransport import USERDATA_MAX_LENGTH

    receive_sack = sctp._receive_sack_chunk

    async def clamped(chunk: Any) -> None:
        await receive_sack(chunk)
        sctp._cwnd = max(USERDATA_MAX_LENGTH,
                         min(sctp._cwnd, int(chunk.advertised_rwnd)))

    # aiortc has no hook here: the instance's bound method is replaced by the clamped one.
    sctp._receive_sack_chunk = clamped
