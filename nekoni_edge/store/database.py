"""The one SQLite file: its writer thread and its reader connection. Each table family's
store is a module beside this one (devices, messages, traces, knowledge, skills), one style:
an ``Access`` mixin the ``Database`` is made of."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import aiosqlite

from nekoni_edge.errors import StoreError
from nekoni_edge.store.access import now_ms
from nekoni_edge.store.chunks import KnowledgeStore
from nekoni_edge.store.connection import connect
from nekoni_edge.store.devices import Device, Devices
from nekoni_edge.store.messages import MessageLog, StoredMessage
from nekoni_edge.store.migrations import migrate
from nekoni_edge.store.skills import SkillStore
from nekoni_edge.store.trace_log import TraceLog

__all__ = ["Database", "Device", "StoredMessage", "now_ms"]

T = TypeVar("T")

_LOGGER = logging.getLogger(__name__)

ITER_CHUNK_SIZE = 64


class Database(Devices, MessageLog, TraceLog, KnowledgeStore, SkillStore):
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
        reader = aiosqlite.Connection(lambda: connect(path, query_only=True), ITER_CHUNK_SIZE)
        try:
            await reader
            db = cls(writer, conn, reader, path, version)
            row = await db._fetchone("SELECT COALESCE(MAX(timestamp), 0) FROM messages")
            db._last_ts = int(row[0]) if row else 0
        except BaseException:
            if reader._connection is not None:  # opened before it failed
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

    async def write(self, fn: Callable[[Any], T], *, durable: bool = True) -> T:
        """Run ``fn(conn)`` as one transaction on the writer thread: BEGIN IMMEDIATE, then
        COMMIT, or ROLLBACK if it raises. ``fn`` is plain blocking code, so no transaction
        spans an await of the event loop and nothing else writes meanwhile.

        ``durable``: the commit waits for the disk (an fsync of the WAL), so it survives a
        power cut when this returns. ``False`` skips that wait (it survives a crash of the
        process, not a power cut): the next durable commit makes it durable too, since the WAL
        is written in order. For what nobody has been told is stored yet, on the way to a
        model's first token (an SD card's fsync takes 10-100 ms).
        """
        return await asyncio.get_running_loop().run_in_executor(self._writer, self._run, fn,
                                                                durable)

    def _run(self, fn: Callable[[Any], T], durable: bool = True) -> T:
        if not durable:
            self._conn.execute("PRAGMA synchronous = NORMAL")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(self._conn)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        finally:
            if not durable:
                self._conn.execute("PRAGMA synchronous = FULL")
        return result

    async def execute_sql(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        """Run one statement on the reader, which cannot write (``query_only``): diagnostics
        and tests."""
        return await self._fetchall(sql, params)

    async def vec_version(self) -> str:
        """The loaded sqlite-vec version (proves the extension is there)."""
        row = await self._fetchone("SELECT vec_version()")
        return str(row[0])
