"""Chunking by the embedder's own word pieces, so the model never silently truncates a chunk;
each section of a document (``structure.sections``) is chunked on its own, under its heading."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from nekoni_edge.rag.embed import MAX_WORD_PIECES
from nekoni_edge.rag.extract import Page
from nekoni_edge.rag.structure import HEADING_SEPARATOR, sections
from nekoni_edge.store.chunks import Chunk

__all__ = ["Chunk", "chunk_pages"]

# 256 positions minus [CLS] and [SEP], minus slack for pieces that re-tokenize differently at a
# cut boundary. Overlap keeps a sentence cut in two findable from either side.
WINDOW_PIECES = MAX_WORD_PIECES - 2 - 14
OVERLAP_PIECES = 40
# A chunk gathers whole passages (sentences, list items, table rows) up to this many pieces: a
# row embedded in a whole table, or a sentence in a whole section, is found far less often
# than in a few of its neighbours. A two- or three-sentence note stays one chunk.
PASSAGE_PIECES = 96
SEGMENT_CHARS = 16_384  # tokenized at a time; many windows, little memory


def chunk_pages(
    pages: Iterable[Page],
    tokenizer: Any,
    *,
    window: int = WINDOW_PIECES,
    overlap: int = OVERLAP_PIECES,
    segment_chars: int = SEGMENT_CHARS,
    markdown: bool = False,
    passage: int = PASSAGE_PIECES,
) -> Iterator[Chunk]:
    """Split each page into windows of at most ``window`` word pieces, ``overlap`` shared.

    A page is tokenized a segment of about ``segment_chars`` at a time, cut at whitespace: a
    whole 3 MiB text tokenized at once held ~170 MiB of offsets and piece strings. A window
    that would reach a segment's end is not cut there: the next segment starts with it, so the
    chunks are the ones whole-page tokenization gives. A chunk never spans two sections, and
    its heading's pieces count against its window (the heading is embedded with it).
    """
    if not 0 <= overlap < window:
        raise ValueError("overlap must be smaller than the window")
    index = 0
    title = ""  # a PDF's first heading heads its later pages too (they do not repeat it)
    for page in pages:
        opening = page.number is None or page.number == 1
        for section in sections(page.text, markdown=markdown, opening=opening):
            path = section.heading
            if opening and not title and path:
                title = path.split(HEADING_SEPARATOR)[0]
            elif not opening and title:
                path = f"{title}{HEADING_SEPARATOR}{path}" if path else title
            heading = len(tokenizer.encode(path, add_special_tokens=False).ids) + 1 \
                if path else 0
            room = max(window - heading, overlap + 1)
            for text in _packed(section.text, tokenizer, min(passage, room), room, overlap,
                                segment_chars):
                yield Chunk(index, page.number, text, path)
                index += 1


def _packed(text: str, tokenizer: Any, target: int, window: int, overlap: int,
            segment_chars: int) -> Iterator[str]:
    """Whole passages (one a line) gathered up to ``target`` pieces; a passage longer than
    that alone is cut into windows of ``window``."""
    gathered: list[str] = []
    size = 0
    for line in text.split("\n"):
        if not line:
            continue
        pieces = len(tokenizer.encode(line[:segment_chars], add_special_tokens=False).ids) \
            if len(line) < segment_chars else window + 1
        if gathered and size + pieces > target:
            yield "\n".join(gathered)
            gathered, size = [], 0
        if pieces > target:
            yield from _windows(line, tokenizer, window, overlap, segment_chars)
            continue
        gathered.append(line)
        size += pieces
    if gathered:
        yield "\n".join(gathered)


def _windows(text: str, tokenizer: Any, window: int, overlap: int,
             segment_chars: int) -> Iterator[str]:
    """The text's windows of at most ``window`` word pieces, ``overlap`` shared."""
    pos = 0
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
                yield chunk
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
