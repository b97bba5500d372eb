"""Chunking by the embedder's own word pieces, so the model never silently truncates a chunk."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from nekoni_edge.rag.embed import MAX_WORD_PIECES
from nekoni_edge.rag.extract import Page

# 256 positions minus [CLS] and [SEP], minus slack for pieces that re-tokenize differently at a
# cut boundary. Overlap keeps a sentence cut in two findable from either side.
WINDOW_PIECES = MAX_WORD_PIECES - 2 - 14
OVERLAP_PIECES = 40


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a document, as stored and embedded."""

    index: int
    page: int | None
    text: str


def chunk_pages(
    pages: Iterable[Page],
    tokenizer: Any,
    *,
    window: int = WINDOW_PIECES,
    overlap: int = OVERLAP_PIECES,
) -> Iterator[Chunk]:
    """Split each page into windows of at most ``window`` word pieces, ``overlap`` shared."""
    if not 0 <= overlap < window:
        raise ValueError("overlap must be smaller than the window")
    index = 0
    for page in pages:
        encoding = tokenizer.encode(page.text, add_special_tokens=False)
        offsets, tokens = encoding.offsets, encoding.tokens
        start = 0
        while start < len(offsets):
            end = min(start + window, len(offsets))
            # Cut between words, not inside one ("##" marks a word's continuation piece).
            while start + 1 < end < len(offsets) and tokens[end].startswith("##"):
                end -= 1
            text = page.text[offsets[start][0] : offsets[end - 1][1]].strip()
            if text:
                yield Chunk(index, page.number, text)
                index += 1
            if end == len(offsets):
                break
            next_start = max(end - overlap, start + 1)
            while next_start < end and tokens[next_start].startswith("##"):
                next_start += 1
            start = next_start
