"""Garbage after ready: each gets an error reply; the channel and the daemon go on serving."""

from __future__ import annotations

import json
from contextlib import aclosing

import pytest

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.daemon import Daemon

pytestmark = pytest.mark.slow

GARBAGE = [
    ("{not json", "INVALID_JSON"),
    ("[1, 2, 3]", "NOT_AN_OBJECT"),
    ("42", "NOT_AN_OBJECT"),
    ('{"type": "teleport"}', "UNKNOWN_TYPE"),
    ('{"type": "message", "content": 12, "sessionId": "s"}', "BAD_FIELD"),
    ('{"type": "message", "content": "hi", "sessionId": {"a": 1}}', "BAD_FIELD"),
    ('{"type": "sync", "sessionId": "s", "afterTimestamp": "yesterday"}', "BAD_FIELD"),
    ('{"type": ["ping"]}', "BAD_FIELD"),
    ('{"type": "rag_upload_chunk", "uploadId": "u", "index": "0", "content": ""}', "BAD_FIELD"),
    (json.dumps({"type": "message", "content": "x" * 100_000}), "MESSAGE_TOO_LARGE"),
]


async def test_each_bad_message_gets_an_error(phone: PhoneClient) -> None:
    for text, code in GARBAGE:
        phone.send_raw(text)
        reply = await phone.recv(wait=10)
        assert reply["type"] == "error", text
        assert reply["code"] == code, text
        assert isinstance(reply["message"], str)
    phone.send({"type": "ping"})
    assert await phone.recv() == {"type": "pong"}


async def test_one_mebibyte_message(phone: PhoneClient, daemon: Daemon) -> None:
    # The box advertises a smaller SCTP limit; a hostile client ignores it.
    phone._pc.sctp._remote_max_message_size = 0
    phone.send_raw(json.dumps({"type": "message", "content": "x" * (1024 * 1024)}))
    reply = await phone.recv(wait=30)
    assert reply["type"] == "error"
    assert reply["code"] == "MESSAGE_TOO_LARGE"
    phone.send_raw(b"\x00\xff binary garbage")
    assert (await phone.recv())["code"] == "INVALID_JSON"
    # channel and daemon still serve a real question
    async with aclosing(phone.ask("Say ok.", "after-garbage")) as stream:
        assert "".join([p async for p in stream]).strip()


async def test_busy_session_is_refused_not_queued(phone: PhoneClient) -> None:
    phone.send({"type": "message", "content": "Tell me a story.", "sessionId": "b"})
    phone.send({"type": "message", "content": "And another.", "sessionId": "b"})
    kinds = []
    while True:
        msg = await phone.recv()
        kinds.append(msg.get("code", msg["type"]))
        if msg["type"] == "message_end":
            break
    assert "BUSY" in kinds
