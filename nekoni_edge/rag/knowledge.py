"""The knowledge base: ingest documents, answer queries, build the context for the model."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from nekoni_edge.foreground import Foreground
from nekoni_edge.memory import return_freed_memory
from nekoni_edge.rag.chunk import Chunk, chunk_pages
from nekoni_edge.rag.embed import BATCH_SIZE, TextEmbedder
from nekoni_edge.rag.extract import ExtractError, pages
from nekoni_edge.rag.structure import is_markdown, split_sentences, titled
from nekoni_edge.store.chunks import MIN_SCORE, TOP_K, Hit, KnowledgeStore, pack

_LOGGER = logging.getLogger(__name__)


Progress = Callable[[int, int], None]
# Chunks written per transaction while a document is stored: memory stays bounded whatever the
# file's size (about 100 KiB of text and vectors a batch), and a write holds the writer briefly.
STORE_BATCH = 64
HASH_STEP = 1 << 20  # characters encoded at a time for the content hash


@dataclass(frozen=True, slots=True)
class Ingested:
    """The outcome of one ingest."""

    doc_id: str
    source: str
    chunks: int
    pages: int | None
    created: bool  # False: the same content was already stored


def base_name(filename: str) -> str:
    """Only the file's own name: a peer-supplied path never reaches the store."""
    name = PurePath(filename.replace("\\", "/")).name.strip()
    return name[:255] or "untitled"


def _scan(filename: str, data: bytes, tokenizer: Any) -> tuple[str, int, int | None]:
    """First pass (blocking: run in an executor): the content's hash, its number of chunks
    and of pages, keeping none of the chunks — a 25 MiB text is ~28k of them."""
    digest = hashlib.sha256()
    page_count = 0
    numbered = False

    def hashed() -> Any:
        nonlocal page_count, numbered
        for page in pages(filename, data):
            for start in range(0, len(page.text), HASH_STEP):  # no second copy of a book
                digest.update(page.text[start : start + HASH_STEP].encode("utf-8"))
            page_count += 1
            numbered = numbered or page.number is not None
            yield page

    count = sum(1 for _ in chunk_pages(hashed(), tokenizer, markdown=is_markdown(filename)))
    # The decoded book is gone now, but glibc keeps its pages: without this, a 25 MiB text's
    # first pass stayed resident (+52 MiB) under the whole second one.
    return_freed_memory()
    if not count:
        raise ExtractError(filename, "the document has no text")
    return digest.hexdigest()[:16], count, page_count if numbered else None


def _batches(filename: str, data: bytes, tokenizer: Any, size: int) -> Iterator[list[Chunk]]:
    """Second pass: the same chunks again, ``size`` at a time (the chunker is deterministic)."""
    batch: list[Chunk] = []
    for chunk in chunk_pages(pages(filename, data), tokenizer, markdown=is_markdown(filename)):
        batch.append(chunk)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class KnowledgeBase:
    """Ingest and retrieval over one embedder and one store."""

    def __init__(
        self, embedder: TextEmbedder, store: KnowledgeStore, *, top_k: int = TOP_K,
        min_score: float = MIN_SCORE, foreground: Foreground | None = None,
    ) -> None:
        self.embedder = embedder
        self.foreground = foreground or Foreground()
        self.store = store
        self.top_k = top_k
        self.min_score = min_score

    async def ingest(self, filename: str, data: bytes, progress: Progress | None = None,
                     added_by: str | None = None) -> Ingested:
        """Extract, chunk, embed and store one document in batches of STORE_BATCH chunks; it
        is published (visible to queries and listings) only once complete, and a failed or
        cancelled ingest leaves nothing. Between embedding steps it waits for any chat turn
        to finish: the owner's question comes before the book."""
        source = base_name(filename)
        loop = asyncio.get_running_loop()
        # The tokenizer is read in the worker: an on-demand embedder loads it on first use.
        doc_id, total, page_count = await loop.run_in_executor(
            None, lambda: _scan(source, data, self.embedder.tokenizer)
        )
        existing = await self.store.begin(doc_id, source, chunks=total, pages=page_count,
                                          size=len(data), added_by=added_by)
        if existing is not None:
            _LOGGER.info("%s is already stored as %s", source, doc_id)
            return Ingested(doc_id, existing.source, existing.chunks, existing.pages, False)
        _LOGGER.info("adding %s as %s: %d chunks", source, doc_id, total)
        batches = _batches(source, data, self.embedder.tokenizer, STORE_BATCH)
        # As many texts a call as the embedder runs side by side: a chat turn waits for one step.
        per_call = BATCH_SIZE * self.embedder.threads
        done = 0
        try:
            while (batch := await loop.run_in_executor(None, next, batches, None)) is not None:
                # Packed as they come (1.5 KiB a chunk): lists of Python floats took ~9 KiB.
                vectors: list[bytes] = []
                for step in range(0, len(batch), per_call):
                    await self.foreground.idle()
                    texts = [c.embedded for c in batch[step : step + per_call]]
                    vectors.extend(pack(v) for v in await self.embedder.embed(texts))
                    if progress is not None:
                        progress(done + len(vectors), total)
                passages = await self._passages(source, batch, per_call)
                await self.store.add_chunks(doc_id, batch, vectors, passages)
                done += len(batch)
            await self.store.publish(doc_id)
        except BaseException as exc:
            # Shielded: a cancelled ingest still removes what it stored.
            await asyncio.shield(self.store.discard(doc_id))
            _LOGGER.warning("adding %s stopped (%s); nothing of it was kept", source,
                            type(exc).__name__ if isinstance(exc, asyncio.CancelledError)
                            else exc)
            raise
        return Ingested(doc_id, source, done, page_count, True)

    async def _passages(self, source: str, batch: list[Chunk], per_call: int
                        ) -> list[bytes | None]:
        """The passages of each chunk, embedded after the document's name and the chunk's
        heading, packed one after another (a chunk of one passage too: its score is then
        reckoned as every other chunk's)."""
        split = [split_sentences(c.text) for c in batch]
        texts = [titled(source, p, c.heading) for c, ps in zip(batch, split, strict=True)
                 for p in ps]
        packed: list[bytes] = []
        for step in range(0, len(texts), per_call):
            await self.foreground.idle()
            packed.extend(pack(v) for v in await self.embedder.embed(
                texts[step : step + per_call]))
        out: list[bytes | None] = []
        at = 0
        for ps in split:
            out.append(b"".join(packed[at : at + len(ps)]) or None)
            at += len(ps)
        return out

    async def search(self, query: str, top_k: int | None = None,
                     vector: Sequence[float] | None = None) -> list[Hit]:
        """The chunks closest to ``query`` (or its ``vector``, when already embedded) above
        the score threshold."""
        if not await self.store.has_chunks():
            return []  # nothing to find: no need to embed (or even load the embedder)
        if vector is None:
            [vector] = await self.embedder.embed([query])
        return await self.store.search(vector, query=query, top_k=top_k or self.top_k,
                                       min_score=self.min_score)


