"""Text out of a document: plain text, any UTF-8 text, PDF page by page."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from nekoni_edge.errors import NekoniError

_LOGGER = logging.getLogger(__name__)


class ExtractError(NekoniError):
    """A document cannot be read; the message names the file and says why."""

    def __init__(self, filename: str, reason: str, detail: str | None = None) -> None:
        super().__init__(f"{filename}: {reason}")
        self.filename = filename
        self.reason = reason
        self.detail = detail  # what a library said, for the log and the reply's ``detail``

    def reply(self) -> dict[str, Any]:
        reply = {"type": "rag_error", "message": str(self)}
        return {**reply, "detail": self.detail} if self.detail else reply


@dataclass(frozen=True, slots=True)
class Page:
    """Text of one page (``number`` is 1-based; None for documents without pages)."""

    number: int | None
    text: str


def is_pdf(data: bytes) -> bool:
    return data[:1024].lstrip().startswith(b"%PDF-")


def pages(filename: str, data: bytes) -> Iterator[Page]:
    """Yield the document's pages; raise ExtractError for anything unreadable or empty."""
    produced = False
    source = without_furniture(_pdf_pages(filename, data)) if is_pdf(data) else \
        _text_pages(filename, data)
    for page in source:
        if page.text and not page.text.isspace():  # strip() would copy a whole book
            produced = True
            yield page
    if not produced:
        raise ExtractError(filename, "has no text the box can read (a scanned page is a "
                                     "picture: add a version with text).")


def _text_pages(filename: str, data: bytes) -> Iterator[Page]:
    if b"\x00" in data[:8192]:
        raise ExtractError(filename, "is not a text or PDF file. Add notes as text (.txt, "
                                     ".md) or PDF.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExtractError(filename, "is text in an encoding the box does not read. Save it "
                                     "as UTF-8 and add it again.",
                           f"not UTF-8 at byte {exc.start}") from exc
    yield Page(None, text)


def _pdf_pages(filename: str, data: bytes) -> Iterator[Page]:
    # pypdf raises its own errors and also ValueError, NotImplementedError and more on
    # mutated files: everything at this boundary becomes an ExtractError naming the file.
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        encrypted = reader.is_encrypted
        count = 0 if encrypted else len(reader.pages)
    except Exception as exc:
        raise ExtractError(
            filename, "could not be read as a PDF: it may be damaged or only partly saved. "
                      "Save or export it again, then add it.", f"{type(exc).__name__}: {exc}",
        ) from exc
    if encrypted:
        raise ExtractError(filename, "is a PDF locked with a password. Save a copy without "
                                     "the password, then add it.")
    for index in range(count):
        try:
            text = reader.pages[index].extract_text() or ""
        except Exception as exc:
            raise ExtractError(filename, f"page {index + 1} could not be read: the PDF may be "
                               "damaged. Save or export it again, then add it.",
                               f"{type(exc).__name__}: {exc}") from exc
        yield Page(index + 1, text)


_DIGITS = re.compile(r"\d+")


def _edge_lines(text: str) -> tuple[int, int] | None:
    """The indices of a page's first and last lines with text (None for a blank page)."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return (filled[0], filled[-1]) if filled else None


def _same(a: str, b: str) -> bool:
    """Two lines alike but for their numbers ("Page 1 of 2", "Page 2 of 2")."""
    return _DIGITS.sub("0", a.strip()) == _DIGITS.sub("0", b.strip())


def without_furniture(pages: Iterator[Page]) -> Iterator[Page]:
    """A multi-page document's pages without what every page repeats: a running head (a
    letterhead's line) on every page after the first, and a footer ("Page 2 of 2") on every
    page: they head no section and end no sentence ("Yours faithfully, Mrs R. Adeyemi,
    Headteacher, Page 2 of 2"). One page held back, to compare with the next: a line is
    furniture when the next page has it at the same edge, its numbers aside."""
    held: Page | None = None
    head = foot = ""  # the held page's first and last lines as it came
    drop_foot = False  # the held page's last line is a footer
    for page in pages:
        lines = page.text.split("\n")
        edges = _edge_lines(page.text)
        first, last = (lines[edges[0]], lines[edges[1]]) if edges and edges[0] != edges[1] \
            else ("", "")
        footer = bool(last) and held is not None and _same(last, foot)
        if held is not None:
            yield _cut_foot(held) if footer or drop_foot else held
        if first and held is not None and _same(first, head):
            lines = lines[edges[0] + 1:] if edges else lines
        held, head, foot, drop_foot = Page(page.number, "\n".join(lines)), first, last, footer
    if held is not None:
        yield _cut_foot(held) if drop_foot else held


def _cut_foot(page: Page) -> Page:
    lines = page.text.split("\n")
    edges = _edge_lines(page.text)
    return Page(page.number, "\n".join(lines[:edges[1]] if edges else lines))
