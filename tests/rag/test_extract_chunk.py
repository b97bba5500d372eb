"""Extraction (text, PDF page by page, refusals) and chunking by word pieces."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter

from nekoni_edge.rag.chunk import chunk_pages
from nekoni_edge.rag.embed import MAX_WORD_PIECES, Embedder
from nekoni_edge.rag.extract import ExtractError, Page, pages
from tests.pdf import make_pdf


def test_text_and_utf8() -> None:
    assert list(pages("a.txt", "Grüße aus Köln".encode())) == [Page(None, "Grüße aus Köln")]
    assert list(pages("b.md", "\ufeff# Title".encode())) == [Page(None, "# Title")]


def test_pdf_pages_are_numbered() -> None:
    data = make_pdf(["First page about boilers.", "", "Third page about cats."])
    got = list(pages("doc.pdf", data))
    assert [(p.number, p.text.strip()) for p in got] == [
        (1, "First page about boilers."), (3, "Third page about cats.")
    ]


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(["secret"]))))
    writer.encrypt("hunter2")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("locked.pdf", encrypted_pdf(), "locked with a password"),
        ("broken.pdf", make_pdf(["x" * 500, "y"])[:300], "could not be read as a PDF"),
        ("noise.pdf", b"%PDF-1.4\n" + bytes(range(256)) * 8, "could not be read as a PDF"),
        ("photo.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(200), "not a text or PDF"),
        ("latin1.txt", "café".encode("latin-1"), "Save it as UTF-8"),
        ("empty.txt", b"", "no text"),
        ("blank.txt", b"   \n\n  ", "no text"),
        ("blank.pdf", make_pdf(["", ""]), "no text"),
    ],
)
def test_refusals_name_the_file(name: str, data: bytes, reason: str) -> None:
    with pytest.raises(ExtractError, match=reason) as info:
        list(pages(name, data))
    assert info.value.filename == name
    assert str(info.value).startswith(name)
    # words a person can act on; what a library said only in ``detail`` (and the log)
    assert "Error" not in str(info.value)
    assert "Error" not in (info.value.reason + name)  # no exception names


def test_no_chunk_is_truncated_by_the_model(embedder: Embedder) -> None:
    text = " ".join(f"Sentence {i} mentions antidisestablishmentarianism and ünïcödé." for i in
                    range(600))
    chunks = list(chunk_pages([Page(7, text)], embedder.tokenizer))
    assert len(chunks) > 10
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.page == 7 for c in chunks)
    assert max(embedder.count_tokens(c.text) for c in chunks) <= MAX_WORD_PIECES
    # consecutive chunks overlap, so a sentence cut in two is findable from either side
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert before.text[-40:] in after.text
        assert after.text != before.text
    for chunk in chunks:  # cut between words, never inside one
        at = text.find(chunk.text)
        end = at + len(chunk.text)
        assert at == 0 or not text[at - 1].isalnum()
        assert end == len(text) or not text[end].isalnum()


def test_short_page_is_one_chunk(embedder: Embedder) -> None:
    [chunk] = chunk_pages([Page(None, "Just a line.")], embedder.tokenizer)
    assert chunk.text == "Just a line."


def test_a_long_page_is_tokenized_in_segments_with_the_same_chunks(embedder: Embedder) -> None:
    """A whole 3 MiB text tokenized at once held ~170 MiB; segments give the very same chunks
    (cut at whitespace, each window that would reach a segment's end starting the next)."""
    words = ["kettle", "descaling", "unbelievably", "the", "boiler's", "pressure", "1.5",
             "bar", "Ünïcode", "naïve", "—", "under", "stairs", "wi-fi", "password"]
    text = "\n".join(" ".join(words[(i * 7 + j) % len(words)] for j in range(40 + i % 23))
                     for i in range(300))
    whole = list(chunk_pages([Page(3, text)], embedder.tokenizer, segment_chars=10**9))
    assert len(whole) > 20
    for segment in (2_000, 5_555, 16_384):
        assert list(chunk_pages([Page(3, text)], embedder.tokenizer,
                                segment_chars=segment)) == whole


def test_a_pdfs_running_head_and_footer_are_left_out() -> None:
    """What every page repeats at its edges, its numbers aside, is the page's furniture:
    the letterhead stays on the first page only, "Page N of 3" on none; a page's own first
    and last lines stay."""
    data = make_pdf([f"Riverside Rowing Club\nPage text {n}, all of it.\nPage {n} of 3"
                     for n in (1, 2, 3)])
    texts = [p.text for p in pages("club.pdf", data)]
    assert texts[0].splitlines()[0] == "Riverside Rowing Club"
    assert all("Riverside" not in t for t in texts[1:])
    assert all("of 3" not in t for t in texts)
    assert [t.splitlines()[-1] for t in texts] == [f"Page text {n}, all of it." for n in (1, 2, 3)]
    single = [p.text for p in pages("one.pdf", make_pdf(["Title\nBody.\nPage 1 of 1"]))]
    assert single == ["Title\nBody.\nPage 1 of 1"]
