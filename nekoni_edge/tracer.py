"""TraceEvents: every step of a turn, kept in SQLite as a bounded ring and streamed live."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nekoni_edge.config import Settings
from nekoni_edge.store.database import Database, now_ms

_LOGGER = logging.getLogger(__name__)

RING_SIZE = Settings.trace_ring_size
TYPES = ("rag_query", "route", "llm_call", "tool_call", "error", "message", "skill_event")


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One step, as the wire and the CLI show it."""

    id: str
    session_id: str
    timestamp: int
    type: str
    data: dict[str, Any]
    parent_id: str | None = None

    def wire(self) -> dict[str, Any]:
        event: dict[str, Any] = {"id": self.id, "sessionId": self.session_id,
                                 "timestamp": self.timestamp, "type": self.type,
                                 "data": self.data}
        if self.parent_id is not None:
            event["parentId"] = self.parent_id
        return event


class Tracer:
    """Stores events (oldest dropped beyond ``ring_size``) and hands them to subscribers."""

    def __init__(self, db: Database, ring_size: int = RING_SIZE) -> None:
        self._db = db
        self.ring_size = ring_size
        self._subscribers: set[Callable[[TraceEvent], None]] = set()

    def subscribe(self, callback: Callable[[TraceEvent], None]) -> None:
        self._subscribers.add(callback)

    def unsubscribe(self, callback: Callable[[TraceEvent], None]) -> None:
        self._subscribers.discard(callback)

    async def emit(self, session_id: str, type_: str, data: dict[str, Any],
                   parent_id: str | None = None) -> TraceEvent:
        if type_ not in TYPES:
            raise ValueError(f"unknown trace type {type_!r}")
        event = TraceEvent(f"tr_{secrets.token_hex(6)}", session_id, now_ms(), type_, data,
                           parent_id)
        await self._db.append_trace(event.id, session_id, event.timestamp, type_,
                                    json.dumps(data), parent_id, ring_size=self.ring_size)
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:
                _LOGGER.exception("trace subscriber failed")
        return event

    async def recent(self, *, session_id: str | None = None, after_id: int = 0,
                     limit: int = 200) -> list[tuple[int, TraceEvent]]:
        """Stored events (oldest first) after row ``after_id``; for the CLI."""
        rows = await self._db.trace_rows(session_id=session_id, after_id=after_id, limit=limit)
        return [(r[0], TraceEvent(r[1], r[2], r[3], r[4], json.loads(r[5]), r[6]))
                for r in rows]
