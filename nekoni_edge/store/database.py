"""Typed async access to the one SQLite file, through aiosqlite's single worker thread."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import aiosqlite

from nekoni_edge.errors import StoreError
from nekoni_edge.store.connection import connect
from nekoni_edge.store.migrations import migrate

T = TypeVar("T")

_LOGGER = logging.getLogger(__name__)

ITER_CHUNK_SIZE = 64


def now_ms() -> int:
    """Unix time in milliseconds."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Device:
    """A phone allowed to talk to the box."""

    pub_key: str
    name: str
    approved_at: int
    last_seen: int | None


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One entry of the episodic log."""

    id: int
    session_id: str
    role: str
    content: str
    timestamp: int


class Database:
    """The box's database. Writes run under ``BEGIN IMMEDIATE``, one at a time, on the writer
    connection; reads run on their own connection, which (WAL) sees only committed data — a
    transaction still open on the writer is invisible to every reader."""

    def __init__(self, writer: ThreadPoolExecutor, conn: Any, reader: aiosqlite.Connection,
                 path: Path, schema_version: int) -> None:
        self._writer = writer  # the one thread that writes
        self._conn = conn  # its connection, used on that thread only
        self._reader = reader
        self.path = path
        self.schema_version = schema_version
        self._write_lock = asyncio.Lock()
        self._last_ts = 0

    @classmethod
    async def open(cls, path: Path) -> Database:
        """Open (creating and migrating as needed) the database at ``path``."""

        def migrate_once() -> int:
            # A plain connection in a worker thread: the schema is checked and migrated (and any
            # failure reported) before aiosqlite's own thread exists.
            raw = connect(path)
            try:
                return migrate(raw)
            finally:
                raw.close()

        try:
            version = await asyncio.get_running_loop().run_in_executor(None, migrate_once)
        except StoreError:
            raise
        except Exception as exc:
            if "locked" in str(exc):
                raise StoreError(f"database {path} is locked by another process (is another "
                                 "nekoni-edge running on this data dir?)") from exc
            raise StoreError(f"cannot open database {path}: {exc}") from exc
        loop = asyncio.get_running_loop()
        writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="db-writer")
        try:
            conn = await loop.run_in_executor(writer, connect, path)
        except BaseException:
            writer.shutdown(wait=True)
            raise
        reader = aiosqlite.Connection(lambda: connect(path), ITER_CHUNK_SIZE)
        try:
            await reader
            db = cls(writer, conn, reader, path, version)
            row = await db._fetchone("SELECT COALESCE(MAX(timestamp), 0) FROM messages")
            db._last_ts = int(row[0]) if row else 0
        except BaseException:
            if reader._connection is not None:  # noqa: SLF001 - opened before it failed
                await reader.close()
            await loop.run_in_executor(writer, conn.close)
            writer.shutdown(wait=True)
            raise
        _LOGGER.info("database %s open (schema v%d)", path, version)
        return db

    async def close(self) -> None:
        """Close the connections (their threads would otherwise keep the process alive)."""
        await self._reader.close()
        await asyncio.get_running_loop().run_in_executor(self._writer, self._conn.close)
        self._writer.shutdown(wait=True)

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        async with self._reader.execute(sql, tuple(params)) as cur:
            return list(await cur.fetchall())

    async def _fetchone(self, sql: str, params: Iterable[Any] = ()) -> Any:
        async with self._reader.execute(sql, tuple(params)) as cur:
            return await cur.fetchone()

    async def write(self, fn: Callable[[Any], T]) -> T:
        """Run ``fn(conn)`` as one transaction on the writer thread: BEGIN IMMEDIATE, then
        COMMIT, or ROLLBACK if it raises. ``fn`` is plain blocking code, so no transaction
        spans an await of the event loop and nothing else writes meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(self._writer, self._run, fn)

    def _run(self, fn: Callable[[Any], T]) -> T:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(self._conn)
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")
        return result

    async def execute_sql(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        """Run one read-only statement (diagnostics and tests)."""
        return await self._fetchall(sql, params)

    # devices

    async def approve_device(self, pub_key: str, name: str = "") -> bool:
        """Approve a key; True if it was not approved before."""
        added: bool = await self.write(lambda conn: conn.execute(
            "INSERT INTO devices (pub_key, name, approved_at) VALUES (?, ?, ?) "
            "ON CONFLICT (pub_key) DO NOTHING", (pub_key, name, now_ms())).rowcount == 1)
        _LOGGER.info("device %s %s", pub_key[:12], "approved" if added else "already approved")
        return added

    async def remove_device(self, pub_key: str) -> bool:
        """Revoke a key; True if it was approved."""
        removed: bool = await self.write(lambda conn: conn.execute(
            "DELETE FROM devices WHERE pub_key = ?", (pub_key,)).rowcount == 1)
        if removed:
            _LOGGER.info("device %s removed", pub_key[:12])
        return removed

    async def list_devices(self) -> list[Device]:
        """Every approved device, oldest first."""
        rows = await self._fetchall(
            "SELECT pub_key, name, approved_at, last_seen FROM devices ORDER BY approved_at"
        )
        return [Device(*row) for row in rows]

    async def is_approved(self, pub_key: str) -> bool:
        """True if ``pub_key`` is approved."""
        row = await self._fetchone("SELECT 1 FROM devices WHERE pub_key = ?", (pub_key,))
        return row is not None

    async def touch_device(self, pub_key: str) -> None:
        """Record that the device was just seen."""
        when = now_ms()
        await self.write(lambda conn: conn.execute(
            "UPDATE devices SET last_seen = ? WHERE pub_key = ?", (when, pub_key)))

    # episodic log

    async def append_message(
        self, session_id: str, role: str, content: str, device_key: str | None = None
    ) -> StoredMessage:
        """Append one message; it is durable when this returns."""
        def append(conn: Any) -> StoredMessage:
            # Strictly increasing, so ``sync_<ts>`` ids are unique and ordering is total
            # (read and set on the writer thread only).
            ts = max(now_ms(), self._last_ts + 1)
            cur = conn.execute(
                "INSERT INTO messages (session_id, role, content, timestamp, device_key) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, role, content, ts, device_key),
            )
            self._last_ts = ts
            return StoredMessage(int(cur.lastrowid), session_id, role, content, ts)

        return await self.write(append)

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

    async def vec_version(self) -> str:
        """The loaded sqlite-vec version (proves the extension is there)."""
        row = await self._fetchone("SELECT vec_version()")
        return str(row[0])
