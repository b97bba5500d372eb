"""Numbered schema migrations, tracked with ``PRAGMA user_version``, each in a transaction."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from nekoni_edge.errors import StoreError

_LOGGER = logging.getLogger(__name__)

Migration = Callable[[Any], None]
MIGRATIONS: dict[int, Migration] = {}


def migration(version: int) -> Callable[[Migration], Migration]:
    """Register ``fn`` as the step that brings the schema to ``version``."""

    def register(fn: Migration) -> Migration:
        if version in MIGRATIONS:
            raise ValueError(f"migration {version} registered twice")
        MIGRATIONS[version] = fn
        return fn

    return register


@migration(1)
def _devices_and_messages(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE devices (
            pub_key TEXT PRIMARY KEY,
            name TEXT NOT NULL DEFAULT '',
            approved_at INTEGER NOT NULL,
            last_seen INTEGER
        )"""
    )
    conn.execute(
        """CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
            content TEXT NOT NULL,
            timestamp INTEGER NOT NULL,
            device_key TEXT
        )"""
    )
    conn.execute("CREATE INDEX messages_session_ts ON messages (session_id, timestamp)")


def latest_version() -> int:
    """The schema version this code expects."""
    return max(MIGRATIONS)


def migrate(conn: Any) -> int:
    """Apply every migration above the file's ``user_version``; return the new version."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > latest_version():
        raise StoreError(
            f"database schema v{current} is newer than this nekoni-edge (v{latest_version()}); "
            "upgrade nekoni-edge"
        )
    for version in sorted(v for v in MIGRATIONS if v > current):
        conn.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {version}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        _LOGGER.info("database migrated to schema v%d", version)
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


@migration(2)
def _knowledge(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE documents (
            doc_id TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            chunks INTEGER NOT NULL,
            pages INTEGER,
            bytes INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            doc_id TEXT NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            page INTEGER,
            content TEXT NOT NULL,
            UNIQUE (doc_id, idx)
        )"""
    )
    # rowid = chunks.id; cosine distance, so score = 1 - distance.
    conn.execute(
        "CREATE VIRTUAL TABLE vec_chunks USING vec0(embedding float[384] distance_metric=cosine)"
    )


@migration(3)
def _agent(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE traces (
            id INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            timestamp INTEGER NOT NULL,
            type TEXT NOT NULL,
            data TEXT NOT NULL,
            parent_id TEXT
        )"""
    )
    conn.execute("CREATE INDEX traces_session ON traces (session_id, id)")
    conn.execute(
        """CREATE TABLE turns (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            llm_calls INTEGER NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE skills (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            prompt TEXT NOT NULL,
            created_at INTEGER NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE cron_jobs (
            id TEXT PRIMARY KEY,
            skill_id TEXT NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
            cron_expression TEXT NOT NULL,
            enabled INTEGER NOT NULL DEFAULT 1,
            last_run INTEGER,
            created_at INTEGER NOT NULL
        )"""
    )


@migration(4)
def _who_and_trust(conn: Any) -> None:
    # Who added each document (a paired key; NULL: the box's owner at the box), and until when
    # a device paired by the button is on probation (NULL: trusted, as every earlier device).
    conn.execute("ALTER TABLE documents ADD COLUMN added_by TEXT")
    conn.execute("ALTER TABLE devices ADD COLUMN trusted_at INTEGER")


@migration(5)
def _staged_knowledge(conn: Any) -> None:
    # A document is stored in bounded batches and published at the end (complete = 1); until
    # then no query sees it, and a failed, cancelled or killed ingest is removed whole.
    conn.execute("ALTER TABLE documents ADD COLUMN complete INTEGER NOT NULL DEFAULT 1")
    # Exact vectors move beside their text (a rowid lookup in vec0 scans its chunks: 26 ms for
    # 200 rows at 100k); the index becomes 1 bit a dimension (48 bytes a chunk), a shortlist
    # that search re-scores exactly.
    conn.execute("ALTER TABLE chunks ADD COLUMN embedding BLOB")
    conn.execute("UPDATE chunks SET embedding = "
                 "(SELECT embedding FROM vec_chunks WHERE rowid = chunks.id)")
    conn.execute("CREATE VIRTUAL TABLE vec_bits USING vec0(embedding bit[384])")
    conn.execute("INSERT INTO vec_bits (rowid, embedding) "
                 "SELECT id, vec_quantize_binary(embedding) FROM chunks "
                 "WHERE embedding IS NOT NULL")
    conn.execute("DROP TABLE vec_chunks")


@migration(6)
def _lexical_index(conn: Any) -> None:
    # Words beside vectors: an FTS5 index over each chunk's text and its document's name
    # ("holiday.txt" says what a note about a cottage is), external content read through a
    # view so the text is stored once; kept in step by publish and delete. Existing boxes
    # index their published chunks here; an unfinished ingest is discarded at start, never
    # indexed.
    conn.execute("CREATE VIEW chunk_words AS SELECT c.id AS id, d.source AS source, "
                 "c.content AS content FROM chunks c JOIN documents d ON d.doc_id = c.doc_id")
    conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(source, content, "
                 "content='chunk_words', content_rowid='id', tokenize='porter unicode61')")
    conn.execute("INSERT INTO chunks_fts (rowid, source, content) SELECT c.id, d.source, "
                 "c.content FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
                 "WHERE d.complete = 1")


@migration(7)
def _passage_vectors(conn: Any) -> None:
    # Each of a chunk's passages (sentences, list items, rows) embedded after its document's
    # name and heading, float32 one after another: a question is matched to the sentence that
    # answers, not only to the chunk around it. NULL for chunks stored before (their sentences
    # are embedded when a question needs them).
    conn.execute("ALTER TABLE chunks ADD COLUMN passages BLOB")
