"""Text out of a document: plain text, any UTF-8 text, PDF page by page."""

from __future__ import annotations

import io
import logging
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
    source = _pdf_pages(filename, data) if is_pdf(data) else _text_pages(filename, data)
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
