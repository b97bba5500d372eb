"""The SQLite file: WAL, migrations, sqlite-vec on both drivers, durable acknowledged writes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.errors import StoreError
from nekoni_edge.store import connection
from nekoni_edge.store.database import Database
from nekoni_edge.store.migrations import latest_version


async def test_open_migrates_and_loads_vec(tmp_path: Path) -> None:
    async with await Database.open(tmp_path / "db.sqlite") as db:
        assert db.schema_version == latest_version()
        assert (await db.execute_sql("PRAGMA journal_mode"))[0][0] == "wal"
        assert (await db.execute_sql("PRAGMA synchronous"))[0][0] == 2  # FULL
        assert (await db.vec_version()).startswith("v")
        # a vec0 table really works in this file (made by the writer: the reader cannot)
        await db.write(lambda conn: conn.execute("CREATE VIRTUAL TABLE v USING vec0(e float[2])"))
        with pytest.raises(Exception, match="readonly|read-only|query_only"):
            await db.execute_sql("CREATE TABLE t (x)")
        with pytest.raises(Exception, match="readonly|read-only|query_only"):
            await db.execute_sql("DELETE FROM messages")
    async with await Database.open(tmp_path / "db.sqlite") as db:
        assert db.schema_version == latest_version()


async def test_sqlean_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "stdlib_can_load_extensions", lambda: False)
    assert connection.driver_module().__name__ == "sqlean"
    async with await Database.open(tmp_path / "db.sqlite") as db:
        assert (await db.vec_version()).startswith("v")


@pytest.mark.skipif(not connection.stdlib_can_load_extensions(),
                    reason="this interpreter's sqlite3 cannot load extensions (sqlean is used)")
async def test_stdlib_driver(tmp_path: Path) -> None:
    import sqlite3

    assert connection.driver_module() is sqlite3
    async with await Database.open(tmp_path / "db.sqlite") as db:
        assert (await db.vec_version()).startswith("v")


def test_clear_error_when_no_driver_can_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "stdlib_can_load_extensions", lambda: False)
    monkeypatch.setitem(sys.modules, "sqlean", None)
    with pytest.raises(StoreError, match="cannot load extensions.*sqlean-py"):
        connection.driver_module()


async def test_newer_schema_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    async with await Database.open(path):
        pass
    conn = connection.connect(path)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with pytest.raises(StoreError, match="newer than this nekoni-edge"):
        await Database.open(path)


async def test_unopenable_path(tmp_path: Path) -> None:
    (tmp_path / "dir.sqlite").mkdir()
    with pytest.raises(StoreError, match="cannot"):
        await Database.open(tmp_path / "dir.sqlite")


async def test_devices(tmp_path: Path) -> None:
    async with await Database.open(tmp_path / "db.sqlite") as db:
        assert await db.approve_device("k1", "Ada")
        assert not await db.approve_device("k1", "Ada again")
        assert await db.is_approved("k1")
        await db.touch_device("k1")
        [device] = await db.list_devices()
        assert device.name == "Ada"
        assert device.last_seen is not None
        assert await db.remove_device("k1")
        assert not await db.remove_device("k1")
        assert not await db.is_approved("k1")


async def test_messages_ordered_and_filtered(tmp_path: Path) -> None:
    async with await Database.open(tmp_path / "db.sqlite") as db:
        stored = [await db.append_message("s", role, f"m{i}")
                  for i, role in enumerate(["user", "assistant"] * 15)]
        await db.append_message("other", "user", "elsewhere")
        stamps = [m.timestamp for m in stored]
        assert stamps == sorted(set(stamps))  # strictly increasing, so sync ids are unique
        after = await db.messages_after("s", stamps[9])
        assert [m.content for m in after] == [f"m{i}" for i in range(11, 30, 2)]
        every = await db.messages_after("s", stamps[9], all_roles=True)
        assert len(every) == 20
        recent = await db.recent_messages("s", 20)
        assert [m.content for m in recent] == [f"m{i}" for i in range(10, 30)]


def test_acknowledged_write_survives_kill_9(tmp_path: Path) -> None:
    """A message acknowledged by append_message is in the file after SIGKILL."""
    path = tmp_path / "db.sqlite"
    script = textwrap.dedent(f"""
        import asyncio, sys, time
        from pathlib import Path
        from nekoni_edge.store.database import Database
        async def main():
            db = await Database.open(Path({str(path)!r}))
            for i in range(50):
                await db.append_message("s", "user", f"m{{i}}")
                print(f"ack {{i}}", flush=True)
            time.sleep(60)
        asyncio.run(main())
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acked = -1
    for line in proc.stdout:
        acked = int(line.split()[1])
        if acked == 49:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    conn = connection.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT content FROM messages ORDER BY id").fetchall()
    finally:
        conn.close()
    assert [r[0] for r in rows] == [f"m{i}" for i in range(acked + 1)]


async def test_no_dirty_reads(tmp_path: Path) -> None:
    """A document listed while the transaction that adds it is still open, then rolled back,
    never existed. On the earlier store (one connection, a transaction held across awaits)
    the listing showed it; now the write runs on the writer thread and reads have their own
    connection."""

    async with await Database.open(tmp_path / "db") as db:
        store = db
        loop = asyncio.get_running_loop()
        inserted, listed = asyncio.Event(), threading.Event()

        def add_then_fail(conn: Any) -> None:
            conn.execute("INSERT INTO documents (doc_id, source, chunks, pages, bytes, "
                         "created_at) VALUES ('d1', 'ghost.txt', 0, NULL, 0, 0)")
            loop.call_soon_threadsafe(inserted.set)
            listed.wait(30)  # the event loop reads meanwhile
            raise RuntimeError("ingest failed")

        writer = asyncio.create_task(db.write(add_then_fail))
        await inserted.wait()
        seen = await store.documents()
        listed.set()
        with pytest.raises(RuntimeError, match="ingest failed"):
            await writer
        assert seen == []
        assert await store.documents() == []


async def test_a_v4_file_keeps_its_documents_through_the_vector_move(tmp_path: Path) -> None:
    """Migration 5 moves the exact vectors beside their text and builds the 1-bit index."""
    from nekoni_edge.store.chunks import pack
    from nekoni_edge.store.migrations import MIGRATIONS

    path = tmp_path / "old.db"
    conn = connection.connect(path)
    for version in (1, 2, 3, 4):  # the schema as the previous release left it
        MIGRATIONS[version](conn)
    conn.execute("PRAGMA user_version = 4")
    conn.execute("INSERT INTO documents (doc_id, source, chunks, pages, bytes, created_at) "
                 "VALUES ('d', 'old.txt', 2, NULL, 10, 1)")
    for i, vector in enumerate(([1.0] + [0.0] * 383, [0.0, 1.0] + [0.0] * 382)):
        conn.execute("INSERT INTO chunks (id, doc_id, idx, content) VALUES (?, 'd', ?, ?)",
                     (i + 1, i, f"text {i}"))
        conn.execute("INSERT INTO vec_chunks (rowid, embedding) VALUES (?, ?)",
                     (i + 1, pack(vector)))
    conn.close()
    async with await Database.open(path) as db:
        store = db
        assert await store.counts() == (1, 2, 2)
        [hit] = await store.search([0.0, 1.0] + [0.0] * 382, top_k=1)
        assert (hit.source, hit.content, round(hit.score, 4)) == ("old.txt", "text 1", 1.0)
        assert [d.source for d in await store.documents()] == ["old.txt"]


async def test_a_v5_file_gets_its_published_chunks_into_the_word_index(tmp_path: Path) -> None:
    """Migration 6 indexes what an existing box already holds (published chunks only)."""
    from nekoni_edge.store.chunks import pack
    from nekoni_edge.store.migrations import MIGRATIONS

    path = tmp_path / "v5.db"
    conn = connection.connect(path)
    for version in (1, 2, 3, 4, 5):
        MIGRATIONS[version](conn)
    conn.execute("PRAGMA user_version = 5")
    vector = pack([1.0] + [0.0] * 383)
    for doc, complete in (("done", 1), ("half", 0)):
        conn.execute("INSERT INTO documents (doc_id, source, chunks, pages, bytes, created_at, "
                     "complete) VALUES (?, ?, 1, NULL, 10, 1, ?)", (doc, f"{doc}.txt", complete))
        conn.execute("INSERT INTO chunks (doc_id, idx, content, embedding) VALUES (?, 0, ?, ?)",
                     (doc, f"the stopcock of {doc}", vector))
    conn.execute("INSERT INTO vec_bits (rowid, embedding) SELECT id, "
                 "vec_quantize_binary(embedding) FROM chunks WHERE doc_id = 'done'")
    conn.commit()
    conn.close()
    async with await Database.open(path) as db:
        rows = await db.execute_sql("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH "
                                    "'stopcock'")
        assert len(rows) == 1
        [hit] = await db.search([0.0, 1.0] + [0.0] * 382, query="stopcock",
                                                min_score=0.9)
        assert (hit.source, hit.lexical) == ("done.txt", 1)


async def test_a_held_device_stays_on_probation_until_confirmed(tmp_path: Path) -> None:
    """A press that another phone asked after holds the device it paired on probation (no
    end); approving it again by hand at the box confirms it."""
    from nekoni_edge.store.access import now_ms

    async with await Database.open(tmp_path / "db") as db:
        await db.approve_device("k" * 43, "raced?", probation_ms=120_000)
        await db.hold_probation("k" * 43)
        [device] = await db.list_devices()
        assert device.on_probation(now_ms() + 10 * 365 * 24 * 3_600_000)
        assert not await db.approve_device("k" * 43, "")
        [device] = await db.list_devices()
        assert not device.on_probation(now_ms())
        await db.approve_device("t" * 43, "trusted")  # a trusted device is never held
        await db.hold_probation("t" * 43)
        assert not [d for d in await db.list_devices() if d.on_probation(now_ms())]
