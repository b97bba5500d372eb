"""Upload reassembly limits: each refusal keeps nothing and frees the buffer."""

from __future__ import annotations

import base64

import pytest

from nekoni_edge.rag.upload import MAX_SEGMENT_CHARS, DeviceBudget, UploadAssembler, UploadError


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_reassembles_in_any_order() -> None:
    up = UploadAssembler()
    assert up.start("u1", "notes.txt", 3, now=0) == "notes.txt"
    assert up.add("u1", 2, b64(b"!"), now=1) == (1, 3, None)
    assert up.add("u1", 0, b64(b"hello "), now=1) == (2, 3, None)
    assert up.add("u1", 1, b64(b"world"), now=2) == (3, 3, b"hello world!")
    assert up.in_progress == 0


def refused(fn: object, *args: object, match: str) -> None:
    with pytest.raises(UploadError, match=match):
        fn(*args)  # type: ignore[operator]


def test_start_refusals() -> None:
    up = UploadAssembler(max_file_bytes=1024 * 1024)
    refused(up.start, "", "a.txt", 1, 0, match="uploadId")
    refused(up.start, "u", "", 1, 0, match="filename")
    refused(up.start, "u", "a.txt", 0, 0, match="a.txt: this file is empty")  # the apps: no bytes
    refused(up.start, "u", "a.txt", True, 0, match="totalChunks")
    refused(up.start, "u", "a.txt", up.max_chunks + 1, 0, match="a.txt: this file is larger")
    up.start("u", "a.txt", 1, 0)
    refused(up.start, "u", "a.txt", 1, 0, match="already in progress")
    assert up.start("v", "../../etc/passwd", 1, 0) == "passwd"  # the base name only


@pytest.mark.parametrize(
    ("index", "content", "match"),
    [
        (5, b64(b"x"), "out of range"),
        (-1, b64(b"x"), "out of range"),
        ("0", b64(b"x"), "out of range"),
        (0, "not base64!!", "not valid base64"),
        (0, "A" * (MAX_SEGMENT_CHARS + 4), "at most"),
        (0, 42, "base64"),
    ],
)
def test_chunk_refusals_free_the_buffer(index: object, content: object, match: str) -> None:
    up = UploadAssembler()
    up.start("u", "a.txt", 2, 0)
    refused(up.add, "u", index, content, 0, match=match)
    assert up.in_progress == 0
    assert up.buffered == 0
    refused(up.add, "u", 0, b64(b"x"), 0, match="no such upload")


def test_repeated_index_refused() -> None:
    up = UploadAssembler()
    up.start("u", "a.txt", 3, 0)
    up.add("u", 0, b64(b"x"), 0)
    refused(up.add, "u", 0, b64(b"x"), 0, match="already received")
    assert up.buffered == 0


def test_file_size_and_peer_memory_caps() -> None:
    segment = b64(b"x" * 11_000)
    up = UploadAssembler(max_file_bytes=30_000)
    up.start("u", "big.txt", 3, 0)
    up.add("u", 0, segment, 0)
    up.add("u", 1, segment, 0)
    refused(up.add, "u", 2, segment, 0, match="larger than")
    capped = UploadAssembler(budget=DeviceBudget(memory_cap=25_000))
    capped.start("a", "a.txt", 2, 0)
    capped.start("b", "b.txt", 2, 0)
    capped.add("a", 0, segment, 0)
    capped.add("b", 0, segment, 0)
    refused(capped.add, "a", 1, segment, 0, match="as much from this device")
    assert capped.buffered == 11_000  # "a" is gone, "b" goes on


def test_idle_upload_expires() -> None:
    up = UploadAssembler(idle_timeout_s=60)
    up.start("u", "a.txt", 2, 0)
    up.add("u", 0, b64(b"x"), 10)
    assert up.expire(69) == []
    assert up.expire(71) == [("u", "a.txt")]
    assert up.buffered == 0


def test_too_many_uploads_at_once() -> None:
    up = UploadAssembler()
    for i in range(4):
        up.start(f"u{i}", "a.txt", 1, 0)
    refused(up.start, "u9", "a.txt", 1, 0, match="already adding 4 documents")


def test_one_devices_channels_share_one_budget() -> None:
    """Four channels (on one peer connection or several) of one device: the cap and the
    count hold for the device, not for each channel; another device has its own."""
    segment = b64(b"x" * 11_000)
    budget = DeviceBudget(memory_cap=50_000)
    channels = [UploadAssembler(budget=budget) for _ in range(4)]
    for n, channel in enumerate(channels):
        channel.start(f"u{n}", "a.txt", 3, 0)
    refused(channels[0].start, "u9", "a.txt", 1, 0, match="already adding 4 documents from this")
    for channel, upload_id in zip(channels, ("u0", "u1", "u2", "u3"), strict=True):
        channel.add(upload_id, 0, segment, 0)
    refused(channels[0].add, "u0", 1, segment, 0, match="as much from this device as it can")
    assert (budget.buffered, budget.uploads) == (33_000, 3)  # "u0" was aborted
    other = UploadAssembler(budget=DeviceBudget(memory_cap=50_000))
    other.start("x", "a.txt", 1, 0)
    assert other.add("x", 0, segment, 0)[2] is not None
    for channel in channels:
        channel.clear()  # a channel closing frees what it held
    assert (budget.buffered, budget.uploads) == (0, 0)


def test_segments_after_a_refusal_get_the_refusal_again() -> None:
    """nekoni's apps send every segment after a refused start; the knowledge view shows the
    last error, which was "no such upload in progress"."""
    up = UploadAssembler(max_file_bytes=20_000)
    refused(up.start, "big", "book.txt", up.max_chunks + 5, 0, match="book.txt: this file is")
    refused(up.add, "big", 0, b64(b"x"), 0, match="book.txt: this file is larger")
    up.start("u", "notes.txt", 2, 0)
    up.add("u", 0, b64(b"x" * 11_000), 0)
    refused(up.add, "u", 1, b64(b"x" * 11_000), 0, match="notes.txt: this file is larger")
    refused(up.add, "u", 1, b64(b"x"), 0, match="notes.txt: this file is larger")
    refused(up.add, "other", 0, b64(b"x"), 0, match="no such upload")
