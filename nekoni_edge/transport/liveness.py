"""Noticing a phone that vanished without closing (battery out, out of Wi-Fi range).

ICE consent would notice after about 30 s; a phone that is being streamed to is noticed much
sooner from SCTP itself: a live peer acknowledges data within its delayed-ack time (200 ms), so
data that stays unacknowledged while more is sent behind it means nobody is there. A lone
unacknowledged message (the last one before a pause) is not judged: its acknowledgement may just
have been lost, and SCTP retransmits it. Nor is time the box's own loop spent stalled: the
acknowledgements may be sitting unread in its socket.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from nekoni_edge.config import Settings

_LOGGER = logging.getLogger(__name__)

VANISH_AFTER_S = Settings.vanish_after_s
POLL_S = 0.1
STALL_S = 3 * POLL_S  # a poll this late means our loop was stalled, not that the peer was


@dataclass
class AckWatch:
    """Sans-IO: fed the oldest and newest unacknowledged TSNs, says when the peer is gone."""

    limit_s: float = VANISH_AFTER_S
    _head: int | None = None
    _since: float = 0.0
    _last: float | None = None

    def observe(self, head: int | None, tail: int | None, now: float) -> bool:
        """True once ``head`` stayed unacknowledged ``limit_s`` with data sent after it."""
        stalled = self._last is not None and now - self._last > STALL_S
        self._last = now
        if head is None:
            self._head = None
            return False
        if head != self._head or stalled:
            self._head, self._since = head, now
            return False
        return tail != head and now - self._since >= self.limit_s


_warned = False


def unacked_tsns(pc: Any) -> tuple[int | None, int | None]:
    """The oldest and newest TSN aiortc has sent and not had acknowledged, or (None, None).

    aiortc keeps these in its SCTP transport's ``_sent_queue``; if a release renames it, vanish
    detection falls back to ICE consent and says so once.
    """
    global _warned  # one warning per process
    sctp = getattr(pc, "sctp", None)
    if sctp is None:
        return None, None
    queue = getattr(sctp, "_sent_queue", None)
    if queue is None:
        if not _warned:
            _warned = True
            _LOGGER.warning("this aiortc has no SCTP sent queue; vanished phones are noticed "
                            "by ICE consent only (~30 s)")
        return None, None
    if not queue:
        return None, None
    return int(queue[0].tsn), int(queue[-1].tsn)
