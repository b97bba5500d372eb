"""Documents, chunks and their vectors in the box's one SQLite file (sqlite-vec ``vec0``)."""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nekoni_edge.config import Settings
from nekoni_edge.errors import NekoniError
from nekoni_edge.store.access import Access, now_ms
from nekoni_edge.words import search_terms

_LOGGER = logging.getLogger(__name__)

# The width of the vectors the vec tables hold (migrations fix it; the embedder must match).
DIMENSIONS = 384


# Between a chunk's heading path and its text in the stored content: the full-text index reads
# it as a word break, so the heading's words are searched with the text.
HEADING_MARK = "\x1e"


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a document, as stored and embedded, under its section's heading path."""

    index: int
    page: int | None
    text: str
    heading: str = ""

    @property
    def stored(self) -> str:
        return f"{self.heading}{HEADING_MARK}{self.text}" if self.heading else self.text

    @property
    def embedded(self) -> str:
        """What is embedded: the text after its heading, so that "Turn it clockwise" is
        still about the house manual's water."""
        return f"{self.heading}: {self.text}" if self.heading else self.text


TOP_K = Settings.rag_top_k
MIN_SCORE = Settings.rag_min_score
SHORTLIST = 200  # candidates re-scored exactly per query (bench_rag: recall and time at 100k)
LEXICAL_DEPTH = 50  # full-text matches taken into the fusion
# Reciprocal-rank fusion's constant: a rank's weight is 1 / (RRF_K + rank), the usual 60.
RRF_K = 60
KEEP_NEAREST = 2  # chunks nearest by meaning that stay among the hits whatever their fused rank


class IngestInProgress(NekoniError):
    """The same document is being added already (by another upload)."""

    def __init__(self, source: str) -> None:
        super().__init__(f"{source} is being added already; it appears when that finishes")

    def reply(self) -> dict[str, Any]:
        return {"type": "rag_error", "message": str(self)}


def _discard(conn: Any, doc_id: str) -> bool:
    """Delete an unpublished document and its chunks (none of them is indexed yet)."""
    if not conn.execute("DELETE FROM documents WHERE doc_id = ? AND complete = 0",
                        (doc_id,)).rowcount:
        return False
    conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
    return True


def _delete(conn: Any, doc_id: str) -> bool:
    """Delete a published document from the table and both indexes."""
    conn.execute("DELETE FROM vec_bits WHERE rowid IN "
                 "(SELECT id FROM chunks WHERE doc_id = ?)", (doc_id,))
    # External-content FTS5 forgets a row only when told its text.
    conn.execute("INSERT INTO chunks_fts (chunks_fts, rowid, source, content) SELECT "
                 "'delete', c.id, d.source, c.content FROM chunks c JOIN documents d "
                 "ON d.doc_id = c.doc_id WHERE c.doc_id = ? AND d.complete = 1",
                 (doc_id,))
    if not conn.execute("DELETE FROM documents WHERE doc_id = ? AND complete = 1",
                        (doc_id,)).rowcount:
        return False
    conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
    return True


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
    """A retrieved chunk; ``score`` is cosine similarity, ``lexical`` its rank among the
    full-text matches (0: none of the query's words), ``fused`` the two ranks together."""

    doc_id: str
    source: str
    index: int
    page: int | None
    content: str
    score: float
    lexical: int = 0
    fused: float = 0.0
    heading: str = ""  # the section's heading path ("House manual › Water"), '' for none
    # Cosine of each passage of the chunk (``rag.structure.split_sentences``), embedded after
    # its document's name and heading; () when the chunk's passages were not embedded.
    passage_scores: tuple[float, ...] = ()


def _split(content: str) -> tuple[str, str]:
    """(heading, text) of a stored chunk."""
    heading, mark, text = content.partition(HEADING_MARK)
    return (heading, text) if mark else ("", content)


# The semantic shortlist (k = ?, not LIMIT: SQLite 3.40 of Debian 12 and Pi OS needs it), with
# the full-text matches beside it when the query has words to look up; each chunk scored once.
_SEMANTIC = (
    "SELECT c.doc_id, d.source, c.idx, c.page, c.content, "
    "1.0 - vec_distance_cosine(c.embedding, ?1), NULL, c.passages FROM "
    "(SELECT rowid AS id FROM vec_bits WHERE embedding MATCH vec_quantize_binary(?1) AND k = ?2) "
    "s JOIN chunks c ON c.id = s.id JOIN documents d ON d.doc_id = c.doc_id AND d.complete = 1")
_HYBRID = (
    "SELECT c.doc_id, d.source, c.idx, c.page, c.content, "
    "1.0 - vec_distance_cosine(c.embedding, ?1), MIN(s.bm), c.passages FROM "
    "(SELECT * FROM (SELECT rowid AS id, NULL AS bm FROM vec_bits "
    "WHERE embedding MATCH vec_quantize_binary(?1) AND k = ?2) UNION ALL "
    "SELECT * FROM (SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?3 "
    "ORDER BY 2 LIMIT ?4)) s JOIN chunks c ON c.id = s.id "
    "JOIN documents d ON d.doc_id = c.doc_id AND d.complete = 1 GROUP BY c.id")


def fuse(rows: Sequence[Sequence[Any]], *, top_k: int, min_score: float,
         query: bytes | None = None) -> list[Hit]:
    """Rows of (doc_id, source, idx, page, content, cosine, bm25 or None[, passage vectors])
    in fused rank order; ``query``: the packed query vector the passages are scored with.

    A chunk's meaning is its closest passage's when that is closer than the chunk (a table
    row, a list item: one line of a section is what a question asks about). Reciprocal-rank
    fusion: ranks, not scores, are added, so neither a corpus's typical cosines nor bm25's
    unbounded scale decides alone.
    """
    passages = passage_cosines([row[7] if len(row) > 7 else None for row in rows], query)
    cosines = [max(float(row[5]), *scores) if scores else float(row[5])
               for row, scores in zip(rows, passages, strict=True)]
    by_cosine = sorted(range(len(rows)), key=lambda i: -cosines[i])
    by_words = sorted((i for i in range(len(rows)) if rows[i][6] is not None),
                      key=lambda i: float(rows[i][6]))
    semantic = {i: rank for rank, i in enumerate(by_cosine, 1)}
    lexical = {i: rank for rank, i in enumerate(by_words, 1)}
    hits = []
    for i, row in enumerate(rows):
        cosine, words_rank = cosines[i], lexical.get(i, 0)
        if cosine < min_score and not words_rank:
            continue
        fused = 1 / (RRF_K + semantic[i]) + (1 / (RRF_K + words_rank) if words_rank else 0.0)
        heading, text = _split(row[4])
        hits.append(Hit(row[0], row[1], row[2], row[3], text, cosine, words_rank, fused,
                        heading, passages[i]))
    hits.sort(key=lambda h: -h.fused)
    # Every chunk the words found also has a cosine rank, so even a weak word match ("night")
    # outranks the nearest chunk by meaning that shares no word ("chickens" for "hens"): the
    # nearest by meaning keep their places, the show decision weighs them against the rest.
    nearest = sorted(hits, key=lambda h: -h.score)[:min(KEEP_NEAREST, top_k)]
    others = [h for h in hits if h not in nearest][:top_k - len(nearest)]
    return sorted(nearest + others, key=lambda h: -h.fused)


def passage_cosines(blobs: Sequence[bytes | None], query: bytes | None
                    ) -> list[tuple[float, ...]]:
    """Each blob's passage vectors scored against the query, in one matrix product."""
    if query is None or not any(blobs):
        return [() for _ in blobs]
    import numpy as np  # with onnxruntime; not needed to start the box

    q = np.frombuffer(query, dtype="<f4")
    q = q / (np.linalg.norm(q) or 1.0)
    joined = b"".join(b for b in blobs if b)
    matrix = np.frombuffer(joined, dtype="<f4").reshape(-1, DIMENSIONS)
    norms = np.linalg.norm(matrix, axis=1)
    scores = (matrix @ q) / np.where(norms > 0, norms, 1.0)
    out: list[tuple[float, ...]] = []
    at = 0
    for blob in blobs:
        n = len(blob) // (4 * DIMENSIONS) if blob else 0
        out.append(tuple(float(x) for x in scores[at:at + n]))
        at += n
    return out


def pack(vector: Sequence[float]) -> bytes:
    """A float[384] in sqlite-vec's little-endian float32 blob form."""
    if len(vector) != DIMENSIONS:
        raise ValueError(f"expected {DIMENSIONS} dimensions, got {len(vector)}")
    return struct.pack(f"<{DIMENSIONS}f", *vector)


class KnowledgeStore(Access):
    """Typed access to the knowledge tables; every write is one transaction."""

    async def begin(self, doc_id: str, source: str, *, chunks: int, pages: int | None,
                    size: int, added_by: str | None = None) -> Document | None:
        """Start storing a document (unpublished: no query or listing sees it yet). Returns
        the stored document instead when the same content is already there."""
        def begin(conn: Any) -> Document | None:
            row = conn.execute(
                "SELECT doc_id, source, chunks, pages, added_by, created_at, complete "
                "FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
            if row is not None:
                if not row[6]:
                    raise IngestInProgress(source)
                return Document(*row[:6])
            conn.execute(
                "INSERT INTO documents (doc_id, source, chunks, pages, bytes, created_at, "
                "added_by, complete) VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
                (doc_id, source, chunks, pages, size, now_ms(), added_by))
            return None

        return await self.write(begin)

    async def add_chunks(self, doc_id: str, chunks: Sequence[Chunk],
                         vectors: Sequence[Sequence[float] | bytes],
                         passages: Sequence[bytes | None] | None = None) -> None:
        """Store one batch of an unpublished document's chunks with their vectors (and each
        chunk's passages' vectors, packed one after another)."""
        if len(chunks) != len(vectors) or (passages is not None and
                                           len(passages) != len(chunks)):
            raise ValueError("one vector per chunk")
        rows = [(doc_id, chunk.index, chunk.page, chunk.stored,
                 vector if isinstance(vector, bytes) else pack(vector),
                 passages[i] if passages is not None else None)
                for i, (chunk, vector) in enumerate(zip(chunks, vectors, strict=True))]
        await self.write(lambda conn: conn.executemany(
            "INSERT INTO chunks (doc_id, idx, page, content, embedding, passages) "
            "VALUES (?, ?, ?, ?, ?, ?)", rows))

    async def publish(self, doc_id: str) -> None:
        """Index the document's chunks and make it visible, in one transaction."""
        def publish(conn: Any) -> None:
            conn.execute("INSERT INTO vec_bits (rowid, embedding) SELECT id, "
                         "vec_quantize_binary(embedding) FROM chunks WHERE doc_id = ?",
                         (doc_id,))
            conn.execute("INSERT INTO chunks_fts (rowid, source, content) SELECT c.id, "
                         "d.source, c.content FROM chunks c JOIN documents d "
                         "ON d.doc_id = c.doc_id WHERE c.doc_id = ?", (doc_id,))
            conn.execute("UPDATE documents SET complete = 1, chunks = (SELECT COUNT(*) FROM "
                         "chunks WHERE doc_id = ?1) WHERE doc_id = ?1", (doc_id,))

        await self.write(publish)
        _LOGGER.info("stored document %s", doc_id)

    async def discard(self, doc_id: str) -> None:
        """Remove an unpublished document and whatever of it was stored."""
        await self.write(lambda conn: _discard(conn, doc_id))

    async def discard_unfinished(self) -> int:
        """At start: remove documents whose ingest never finished (the box was stopped or
        lost power mid-way); returns how many."""
        def discard(conn: Any) -> int:
            ids = [r[0] for r in conn.execute(
                "SELECT doc_id FROM documents WHERE complete = 0").fetchall()]
            return sum(_discard(conn, doc_id) for doc_id in ids)

        removed: int = await self.write(discard)
        if removed:
            _LOGGER.warning("removed %d document(s) whose ingest did not finish", removed)
        return removed

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
        """Store a whole document at once (small ones, tests); False if it was already there."""
        if len(chunks) != len(vectors):
            raise ValueError("one vector per chunk")
        if await self.begin(doc_id, source, chunks=len(chunks), pages=pages, size=size,
                            added_by=added_by) is not None:
            return False
        try:
            await self.add_chunks(doc_id, chunks, vectors)
            await self.publish(doc_id)
        except BaseException:
            await asyncio.shield(self.discard(doc_id))
            raise
        return True

    async def delete(self, doc_id: str) -> bool:
        """Remove a published document, its chunks and its vectors together."""
        deleted = await self.write(lambda conn: _delete(conn, doc_id))
        if deleted:
            _LOGGER.info("deleted document %s", doc_id)
        return deleted

    async def delete_added_by(self, pub_key: str) -> int:
        """Remove every document ``pub_key`` added, published or not, in one transaction;
        returns how many."""
        def delete(conn: Any) -> int:
            ids = [r[0] for r in conn.execute(
                "SELECT doc_id FROM documents WHERE added_by = ?", (pub_key,)).fetchall()]
            return sum(_delete(conn, doc_id) or _discard(conn, doc_id) for doc_id in ids)

        deleted: int = await self.write(delete)
        if deleted:
            _LOGGER.info("deleted %d document(s) added by %s", deleted, pub_key[:12])
        return deleted

    async def documents(self) -> list[Document]:
        rows = await self._fetchall(
            "SELECT doc_id, source, chunks, pages, added_by, created_at FROM documents "
            "WHERE complete = 1 ORDER BY created_at"
        )
        return [Document(*row) for row in rows]

    async def search(
        self, vector: Sequence[float], *, query: str = "", top_k: int = TOP_K,
        min_score: float = MIN_SCORE,
    ) -> list[Hit]:
        """The ``top_k`` chunks by the fused rank of their meaning (cosine) and their words
        (FTS5's bm25 over ``query``). A chunk that shares none of the query's words and scores
        under ``min_score`` is dropped; one the words found is kept whatever its cosine.

        The semantic side is a shortlist of the SHORTLIST nearest by Hamming distance over
        1-bit vectors, re-scored with the exact vectors: on 100k household chunks the same top
        5 as an exact scan (recall in bench_rag) at a fraction of its time.
        """
        terms = search_terms(query)
        params: list[Any] = [pack(vector), max(SHORTLIST, top_k)]
        if terms:
            params += [" OR ".join(f'"{t}"' for t in terms), LEXICAL_DEPTH]
        rows = await self._fetchall(_HYBRID if terms else _SEMANTIC, params)
        return fuse(rows, top_k=top_k, min_score=min_score, query=params[0])

    async def search_exact(self, vector: Sequence[float], *, top_k: int = TOP_K) -> list[Hit]:
        """Every published chunk scored (the reference the shortlist is measured against)."""
        rows = await self._fetchall(
            "SELECT c.doc_id, d.source, c.idx, c.page, c.content, "
            "vec_distance_cosine(c.embedding, ?1) AS distance FROM chunks c "
            "JOIN documents d ON d.doc_id = c.doc_id WHERE d.complete = 1 "
            "ORDER BY distance LIMIT ?2", (pack(vector), top_k))
        return [Hit(r[0], r[1], r[2], r[3], text, 1.0 - float(r[5]), heading=heading)
                for r in rows for heading, text in [_split(r[4])]]

    async def last_chunk(self, doc_id: str) -> Hit | None:
        """A published document's last chunk (where a letter is signed), unscored; None for
        a document not stored or not yet published."""
        rows = await self._fetchall(
            "SELECT c.doc_id, d.source, c.idx, c.page, c.content FROM chunks c "
            "JOIN documents d ON d.doc_id = c.doc_id WHERE c.doc_id = ?1 AND d.complete = 1 "
            "ORDER BY c.idx DESC LIMIT 1", (doc_id,))
        return next((Hit(r[0], r[1], r[2], r[3], text, 0.0, heading=heading)
                     for r in rows for heading, text in [_split(r[4])]), None)

    async def has_chunks(self) -> bool:
        rows = await self._fetchall("SELECT EXISTS (SELECT 1 FROM vec_bits)")
        return bool(rows[0][0])

    async def counts(self) -> tuple[int, int, int]:
        """(documents, chunks, indexed vectors), counting everything stored, published or
        not: with no ingest running, equal chunk and vector counts mean no orphans."""
        rows = await self._fetchall(
            "SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM chunks), "
            "(SELECT COUNT(*) FROM vec_bits)"
        )
        return int(rows[0][0]), int(rows[0][1]), int(rows[0][2])
