"""Typed parsing of DataChannel messages: every field checked, sizes capped."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    assert parse_text('{"type":"cron_list"}') == m.CronList(None)
    assert parse_text('{"type":"cron_update","id":"c","enabled":false}') == m.CronUpdate(
        "c", None, False)


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


ESCAPE_HEAVY = [
    "[" * 33 + '"' + '\\"' * 32_700,  # an unterminated string of escaped quotes, deep first
    '{"a":"' + '\\"' * 32_700 + '",' + '"b":' + "[" * 33 + "]" * 33 + "}",  # deep last
    '"' + '\\\\' * 32_000 + '"' + "[" * 40,
]


@pytest.mark.parametrize("frame", ESCAPE_HEAVY)
def test_escape_heavy_frames_are_refused_at_once(frame: str) -> None:
    """The nesting scan is linear: the first frame took 36 s with the old string regex (it
    tried every escaped quote as a string's start). A 10 s deadline holds on any machine
    that is merely busy; the linear scan needs about 20 ms here (bench_hostile)."""
    assert len(frame.encode()) <= m.MAX_MESSAGE_BYTES
    started = time.process_time()
    with pytest.raises(BadMessage) as info:
        m.decode(frame)
    assert info.value.code in ("TOO_DEEP", "INVALID_JSON")
    assert time.process_time() - started < 10


def reference_depth(text: str) -> int:
    """Nesting by json.loads itself (for valid JSON of modest depth)."""
    def depth(value: object) -> int:
        if isinstance(value, dict):
            return 1 + max((depth(v) for v in value.values()), default=0)
        if isinstance(value, list):
            return 1 + max((depth(v) for v in value), default=0)
        return 0
    return depth(json.loads(text))


@given(st.recursive(st.text(alphabet='[]{}"\\ab', max_size=8),
                    lambda inner: st.lists(inner, max_size=3) |
                    st.dictionaries(st.text(alphabet='[]{}"\\', max_size=4), inner, max_size=3),
                    max_leaves=60))
def test_nesting_scan_agrees_with_the_parser(value: object) -> None:
    text = json.dumps(value)
    expected = reference_depth(text)
    if text.count("[") + text.count("{") > m.MAX_NESTING:  # below that the scan says 0
        assert m.nesting_depth(text) == expected or expected > m.MAX_NESTING


def test_content_length_cap() -> None:
    with pytest.raises(BadMessage, match="longer than"):
        parse_text(json.dumps({"content": "x" * (m.MAX_CONTENT_CHARS + 1)}))
