"""Chunking by the embedder's own word pieces, so the model never silently truncates a chunk."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from nekoni_edge.rag.embed import MAX_WORD_PIECES
from nekoni_edge.rag.extract import Page
from nekoni_edge.store.knowledge import Chunk

__all__ = ["Chunk", "chunk_pages"]

# 256 positions minus [CLS] and [SEP], minus slack for pieces that re-tokenize differently at a
# cut boundary. Overlap keeps a sentence cut in two findable from either side.
WINDOW_PIECES = MAX_WORD_PIECES - 2 - 14
OVERLAP_PIECES = 40
SEGMENT_CHARS = 16_384  # tokenized at a time; many windows, little memory


def chunk_pages(
    pages: Iterable[Page],
    tokenizer: Any,
    *,
    window: int = WINDOW_PIECES,
    overlap: int = OVERLAP_PIECES,
    segment_chars: int = SEGMENT_CHARS,
) -> Iterator[Chunk]:
    """Split each page into windows of at most ``window`` word pieces, ``overlap`` shared.

    A page is tokenized a segment of about ``segment_chars`` at a time, cut at whitespace: a
    whole 3 MiB text tokenized at once held ~170 MiB of offsets and piece strings. A window
    that would reach a segment's end is not cut there: the next segment starts with it, so the
    chunks are the ones whole-page tokenization gives.
    """
    if not 0 <= overlap < window:
        raise ValueError("overlap must be smaller than the window")
    index = 0
    for page in pages:
        text, pos = page.text, 0
        while pos < len(text):
            end = _segment_end(text, pos, segment_chars)
            last = end == len(text)
            encoding = tokenizer.encode(text[pos:end], add_special_tokens=False)
            offsets, tokens = encoding.offsets, encoding.tokens
            resume = None
            start = 0
            while start < len(offsets):
                stop = min(start + window, len(offsets))
                if stop == len(offsets) and not last and start > 0:
                    resume = pos + offsets[start][0]  # this window begins the next segment
                    break
                # Cut between words, not inside one ("##" marks a word's continuation piece).
                while start + 1 < stop < len(offsets) and tokens[stop].startswith("##"):
                    stop -= 1
                chunk = text[pos + offsets[start][0] : pos + offsets[stop - 1][1]].strip()
                if chunk:
                    yield Chunk(index, page.number, chunk)
                    index += 1
                if stop == len(offsets):
                    break
                next_start = max(stop - overlap, start + 1)
                while next_start < stop and tokens[next_start].startswith("##"):
                    next_start += 1
                start = next_start
            pos = resume if resume is not None else end


def _segment_end(text: str, pos: int, size: int) -> int:
    """Where the segment from ``pos`` ends: about ``size`` on, at whitespace, or the end."""
    end = pos + size
    if end >= len(text):
        return len(text)
    for cut in range(end, pos + size // 2, -1):
        if text[cut].isspace():
            return cut
    return end  # no whitespace in half a segment: cut anyway
