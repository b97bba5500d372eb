"""The ``traces`` table: a bounded ring of the steps of turns (``nekoni_edge.tracer`` makes
and streams them)."""

from __future__ import annotations

from typing import Any

from nekoni_edge.store.access import Access

TraceRow = tuple[int, str, str, int, str, str, str | None]  # id, event id, session, ts, …


class TraceLog(Access):
    """Append to the ring, read it back."""

    async def append_trace(self, event_id: str, session_id: str, timestamp: int, type_: str,
                           data_json: str, parent_id: str | None, *, ring_size: int) -> None:
        """Store one event and drop what falls out of the ring; not waited to disk (a
        diagnostic nobody is told is stored: the turn's answer makes it durable with it)."""
        row = (event_id, session_id, timestamp, type_, data_json, parent_id)

        def store(conn: Any) -> None:
            cur = conn.execute("INSERT INTO traces (event_id, session_id, timestamp, type, "
                               "data, parent_id) VALUES (?, ?, ?, ?, ?, ?)", row)
            conn.execute("DELETE FROM traces WHERE id <= ?",
                         ((cur.lastrowid or 0) - ring_size,))

        await self.write(store, durable=False)

    async def trace_rows(self, *, session_id: str | None, after_id: int, limit: int
                         ) -> list[TraceRow]:
        """Stored events after row ``after_id`` (of one session, or all), oldest first."""
        rows = await self._fetchall(
            "SELECT id, event_id, session_id, timestamp, type, data, parent_id FROM traces "
            "WHERE id > ? AND (? IS NULL OR session_id = ?) ORDER BY id DESC LIMIT ?",
            (after_id, session_id, session_id, limit),
        )
        return [tuple(r) for r in reversed(rows)]
