"""Typed parsing of DataChannel messages: every field checked, sizes capped."""

from __future__ import annotations

import json

import pytest

from nekoni_edge.errors import BadMessage, MessageTooLarge
from nekoni_edge.protocol import messages as m


def parse_text(text: str) -> m.ClientMessage:
    return m.parse(m.decode(text))


def test_chat_with_and_without_type() -> None:
    assert parse_text('{"type":"message","content":"hi","sessionId":"s"}') == m.Chat("hi", "s")
    # nekoni's web and mobile apps send no type at all
    assert parse_text('{"content":"hi","sessionId":"s"}') == m.Chat("hi", "s")
    assert parse_text('{"content":"hi"}') == m.Chat("hi", m.DEFAULT_SESSION_ID)


def test_other_types() -> None:
    assert parse_text('{"type":"ping"}') == m.Ping()
    assert parse_text('{"type":"cancel","sessionId":"s"}') == m.Cancel("s")
    assert parse_text('{"type":"sync","sessionId":"s","afterTimestamp":5}') == m.Sync("s", 5, False)
    assert parse_text('{"type":"sync","sessionId":"s","all":true}') == m.Sync("s", 0, True)
    assert parse_text('{"type":"rag_list"}') == m.RagList()
    assert parse_text('{"type":"cron_list"}') == m.SkillRequest("cron_list", {})


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{oops", "INVALID_JSON"),
        ("\xff\xfe", "INVALID_JSON"),
        ("[1,2,3]", "NOT_AN_OBJECT"),
        ('"hello"', "NOT_AN_OBJECT"),
        ("null", "NOT_AN_OBJECT"),
        ('{"type":"teleport"}', "UNKNOWN_TYPE"),
        ('{"type":5}', "BAD_FIELD"),
        ('{"type":"message","content":5}', "BAD_FIELD"),
        ('{"type":"message","content":"   "}', "BAD_FIELD"),
        ('{"type":"message","content":"hi","sessionId":["x"]}', "BAD_FIELD"),
        ('{"type":"message","content":"hi","sessionId":""}', "BAD_FIELD"),
        ('{"type":"sync","afterTimestamp":"yesterday"}', "BAD_FIELD"),
        ('{"type":"sync","afterTimestamp":true}', "BAD_FIELD"),
        ('{"type":"sync","afterTimestamp":-1}', "BAD_FIELD"),
        ('{"type":"sync","all":"yes"}', "BAD_FIELD"),
        ('{"type":"cancel","sessionId":7}', "BAD_FIELD"),
        ("[" * 100_000 + "]" * 100_000, "MESSAGE_TOO_LARGE"),
    ],
)
def test_refusals(text: str, code: str) -> None:
    with pytest.raises(BadMessage) as info:
        parse_text(text)
    assert info.value.code == code


def test_size_cap_before_parsing() -> None:
    big = json.dumps({"type": "message", "content": "x" * (m.MAX_MESSAGE_BYTES + 1)})
    with pytest.raises(MessageTooLarge) as info:
        m.decode(big)
    assert info.value.size > info.value.limit
    # multi-byte characters count as bytes, not characters
    with pytest.raises(MessageTooLarge):
        m.decode(json.dumps({"content": "é" * 40_000}, ensure_ascii=False))


def test_deep_nesting_within_size_is_an_error_not_a_crash() -> None:
    # refused before json.loads recurses: no RecursionError anywhere, so no finalizer that the
    # garbage collector happens to run at that depth can fail either
    with pytest.raises(BadMessage) as info:
        parse_text("[" * 30_000 + "]" * 30_000)
    assert info.value.code == "TOO_DEEP"
    with pytest.raises(BadMessage, match="deeper than 32"):
        parse_text('{"type": "ping", "x": ' + "[" * 33 + "]" * 33 + "}")
    assert m.decode('{"type": "ping", "x": ' + "[" * 31 + "]" * 31 + "}")["type"] == "ping"


def test_brackets_inside_strings_are_not_nesting() -> None:
    content = '[{\\"[' * 3000  # brackets, escaped quotes and backslashes inside one string
    assert m.nesting_depth(json.dumps({"type": "message", "content": content})) == 1
    assert parse_text(json.dumps({"type": "message", "content": content})) == m.Chat(
        content, m.DEFAULT_SESSION_ID)


def test_content_length_cap() -> None:
    with pytest.raises(BadMessage, match="longer than"):
        parse_text(json.dumps({"content": "x" * (m.MAX_CONTENT_CHARS + 1)}))
