"""The ``messages`` table: the episodic log of every session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nekoni_edge.store.access import Access, now_ms


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One entry of the episodic log."""

    id: int
    session_id: str
    role: str
    content: str
    timestamp: int


class MessageLog(Access):
    """Append to and read the log; timestamps are strictly increasing."""

    _last_ts = 0  # the newest timestamp written (read and set on the writer thread only)

    async def append_message(
        self, session_id: str, role: str, content: str, device_key: str | None = None, *,
        durable: bool = True,
    ) -> StoredMessage:
        """Append one message; durable when this returns unless ``durable`` is False (then
        with the next durable write: a question nobody was yet answered)."""
        def append(conn: Any) -> StoredMessage:
            # Strictly increasing, so ``sync_<ts>`` ids are unique and ordering is total.
            ts = max(now_ms(), self._last_ts + 1)
            cur = conn.execute(
                "INSERT INTO messages (session_id, role, content, timestamp, device_key) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, role, content, ts, device_key),
            )
            self._last_ts = ts
            return StoredMessage(int(cur.lastrowid), session_id, role, content, ts)

        return await self.write(append, durable=durable)

    async def messages_after(
        self, session_id: str, after_ts: int, *, all_roles: bool = False, limit: int = 500
    ) -> list[StoredMessage]:
        """Messages of a session newer than ``after_ts``, oldest first."""
        role_clause = "" if all_roles else " AND role = 'assistant'"
        rows = await self._fetchall(
            "SELECT id, session_id, role, content, timestamp FROM messages "  # noqa: S608
            f"WHERE session_id = ? AND timestamp > ?{role_clause} "  # role_clause is a constant
            "ORDER BY timestamp LIMIT ?",
            (session_id, after_ts, limit),
        )
        return [StoredMessage(*row) for row in rows]

    async def recent_messages(self, session_id: str, limit: int) -> list[StoredMessage]:
        """The last ``limit`` user/assistant messages of a session, oldest first."""
        rows = await self._fetchall(
            "SELECT id, session_id, role, content, timestamp FROM messages "
            "WHERE session_id = ? AND role IN ('user', 'assistant') "
            "ORDER BY timestamp DESC LIMIT ?",
            (session_id, limit),
        )
        return [StoredMessage(*row) for row in reversed(rows)]

    async def session_owner(self, session_id: str) -> tuple[bool, str | None]:
        """Whether the session has any message, and the key that wrote its first one."""
        row = await self._fetchone(
            "SELECT device_key FROM messages WHERE session_id = ? ORDER BY id LIMIT 1",
            (session_id,))
        return (row is not None, row[0] if row is not None else None)

    async def forget_session(self, session_id: str) -> int:
        """Remove a session whole (its messages, traces and turn records); returns how many
        messages went."""
        def forget(conn: Any) -> int:
            gone = int(conn.execute("DELETE FROM messages WHERE session_id = ?",
                                    (session_id,)).rowcount)
            for table in ("traces", "turns"):
                conn.execute(f"DELETE FROM {table} WHERE session_id = ?",  # noqa: S608
                             (session_id,))  # the table names are the constants above
            return gone

        return int(await self.write(forget))

    async def forget_device_sessions(self, pub_key: str) -> int:
        """Remove what ``pub_key`` wrote: every session it started (its messages, the box's
        answers, traces and turn records) and any message of its elsewhere; returns how many
        messages went."""
        def forget(conn: Any) -> int:
            # SQLite gives a bare column the row of MIN(): the key that wrote first.
            started = [(r[0],) for r in conn.execute(
                "SELECT session_id FROM (SELECT session_id, device_key, MIN(id) FROM messages "
                "WHERE session_id IN (SELECT session_id FROM messages WHERE device_key = ?) "
                "GROUP BY session_id) WHERE device_key = ?", (pub_key, pub_key)).fetchall()]
            gone = int(conn.execute("DELETE FROM messages WHERE device_key = ?",
                                    (pub_key,)).rowcount)
            for table in ("messages", "traces", "turns"):
                cur = conn.executemany(f"DELETE FROM {table} WHERE session_id = ?",  # noqa: S608
                                       started)  # the table names are the constants above
                if table == "messages":
                    gone += int(cur.rowcount)
            return gone

        return int(await self.write(forget))

    async def record_turn(self, session_id: str, llm_calls: int, prompt_tokens: int,
                          completion_tokens: int) -> None:
        """One answered turn's model use (not waited to disk: diagnostics, durable with the
        turn's answer)."""
        row = (session_id, llm_calls, prompt_tokens, completion_tokens, now_ms())
        await self.write(lambda conn: conn.execute(
            "INSERT INTO turns (session_id, llm_calls, prompt_tokens, completion_tokens, "
            "created_at) VALUES (?, ?, ?, ?, ?)", row), durable=False)
