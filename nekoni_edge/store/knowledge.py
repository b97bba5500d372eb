"""Documents, chunks and their vectors in the box's one SQLite file (sqlite-vec ``vec0``)."""

from __future__ import annotations

import logging
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nekoni_edge.config import Settings
from nekoni_edge.rag.chunk import Chunk
from nekoni_edge.rag.embed import DIMENSIONS
from nekoni_edge.store.database import Database, now_ms

_LOGGER = logging.getLogger(__name__)

TOP_K = Settings.rag_top_k
MIN_SCORE = Settings.rag_min_score


@dataclass(frozen=True, slots=True)
class Document:
    """A stored document."""

    doc_id: str
    source: str
    chunks: int
    pages: int | None
    added_by: str | None = None  # the paired key that added it; None: the box's owner
    added_at: int = 0


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved chunk; ``score`` is cosine similarity."""

    doc_id: str
    source: str
    index: int
    page: int | None
    content: str
    score: float


def pack(vector: Sequence[float]) -> bytes:
    """A float[384] in sqlite-vec's little-endian float32 blob form."""
    if len(vector) != DIMENSIONS:
        raise ValueError(f"expected {DIMENSIONS} dimensions, got {len(vector)}")
    return struct.pack(f"<{DIMENSIONS}f", *vector)


class KnowledgeStore:
    """Typed access to the knowledge tables; every write is one transaction."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def has(self, doc_id: str) -> Document | None:
        rows = await self._db.execute_sql(
            "SELECT doc_id, source, chunks, pages, added_by, created_at FROM documents "
            "WHERE doc_id = ?", (doc_id,)
        )
        return Document(*rows[0]) if rows else None

    async def add(
        self,
        doc_id: str,
        source: str,
        chunks: Sequence[Chunk],
        vectors: Sequence[Sequence[float] | bytes],
        *,
        pages: int | None,
        size: int,
        added_by: str | None = None,
    ) -> bool:
        """Store a document with its chunks and vectors; False if it was already there."""
        if len(chunks) != len(vectors):
            raise ValueError("one vector per chunk")
        rows = [(chunk.index, chunk.page, chunk.text,
                 vector if isinstance(vector, bytes) else pack(vector))
                for chunk, vector in zip(chunks, vectors, strict=True)]
        created = now_ms()

        def store(conn: Any) -> bool:
            # One transaction on the writer thread for the whole document: a reader sees all
            # of it or none, and it costs one thread hop however many chunks it has.
            cur = conn.execute(
                "INSERT INTO documents (doc_id, source, chunks, pages, bytes, created_at, "
                "added_by) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (doc_id) DO NOTHING",
                (doc_id, source, len(chunks), pages, size, created, added_by),
            )
            if cur.rowcount != 1:
                return False
            for index, page, text, blob in rows:
                cur = conn.execute(
                    "INSERT INTO chunks (doc_id, idx, page, content) VALUES (?, ?, ?, ?)",
                    (doc_id, index, page, text))
                conn.execute("INSERT INTO vec_chunks (rowid, embedding) VALUES (?, ?)",
                             (cur.lastrowid, blob))
            return True

        if not await self._db.write(store):
            return False
        _LOGGER.info("stored document %s (%s, %d chunks)", doc_id, source, len(chunks))
        return True

    async def delete(self, doc_id: str) -> bool:
        """Remove a document, its chunks and its vectors together."""
        def delete(conn: Any) -> bool:
            conn.execute("DELETE FROM vec_chunks WHERE rowid IN "
                         "(SELECT id FROM chunks WHERE doc_id = ?)", (doc_id,))
            conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
            return bool(conn.execute("DELETE FROM documents WHERE doc_id = ?",
                                     (doc_id,)).rowcount == 1)

        deleted = await self._db.write(delete)
        if deleted:
            _LOGGER.info("deleted document %s", doc_id)
        return deleted

    async def documents(self) -> list[Document]:
        rows = await self._db.execute_sql(
            "SELECT doc_id, source, chunks, pages, added_by, created_at FROM documents "
            "ORDER BY created_at"
        )
        return [Document(*row) for row in rows]

    async def search(
        self, vector: Sequence[float], *, top_k: int = TOP_K, min_score: float = MIN_SCORE
    ) -> list[Hit]:
        """Exact KNN by cosine distance; hits below ``min_score`` are dropped."""
        # k = ? (not LIMIT): SQLite 3.40 (Debian 12, Pi OS) needs it.
        rows = await self._db.execute_sql(
            "SELECT c.doc_id, d.source, c.idx, c.page, c.content, v.distance "
            "FROM (SELECT rowid, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ?) v "
            "JOIN chunks c ON c.id = v.rowid JOIN documents d ON d.doc_id = c.doc_id "
            "ORDER BY v.distance",
            (pack(vector), top_k),
        )
        hits = [Hit(r[0], r[1], r[2], r[3], r[4], 1.0 - float(r[5])) for r in rows]
        return [h for h in hits if h.score >= min_score]

    async def has_chunks(self) -> bool:
        rows = await self._db.execute_sql("SELECT EXISTS (SELECT 1 FROM chunks)")
        return bool(rows[0][0])

    async def counts(self) -> tuple[int, int, int]:
        """(documents, chunks, vectors): equal chunk and vector counts mean no orphans."""
        rows = await self._db.execute_sql(
            "SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM chunks), "
            "(SELECT COUNT(*) FROM vec_chunks)"
        )
        return int(rows[0][0]), int(rows[0][1]), int(rows[0][2])
