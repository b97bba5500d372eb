"""The handler table: complete at import, one handler a type, and no request unanswered."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, ClassVar

import pytest

from nekoni_edge import app
from nekoni_edge.app.registry import HANDLERS, check_coverage, handles
from nekoni_edge.protocol import messages as m


def test_every_client_message_has_exactly_one_handler() -> None:
    assert set(HANDLERS) == set(typing.get_args(m.ClientMessage))
    check_coverage()  # what importing nekoni_edge.app runs


def test_a_type_without_a_handler_fails_the_check() -> None:
    missing = {k: v for k, v in HANDLERS.items() if k is not m.Sync}
    with pytest.raises(RuntimeError, match=r"no handler for \['Sync'\]"):
        check_coverage(missing)


def test_a_handler_for_what_is_not_a_client_message_fails_the_check() -> None:
    @dataclasses.dataclass(frozen=True)
    class Rename:
        TYPE: ClassVar[str] = "device_rename"

    with pytest.raises(RuntimeError, match=r"not a client message \['Rename'\]"):
        check_coverage({**HANDLERS, Rename: lambda ctx, msg: None})


def test_a_second_handler_for_a_type_is_refused() -> None:
    with pytest.raises(RuntimeError, match="Ping has two handlers"):
        handles(m.Ping)(lambda ctx, msg: None)
    assert HANDLERS[m.Ping] is app.sync.ping


def test_request_names_are_the_wire_types() -> None:
    from nekoni_edge.app.registry import request_name

    assert request_name(m.Sync("s", 0, False)) == "sync"
    assert request_name(m.CronList(None)) == "cron_list"
    message: Any = m.Chat("hi", "s")
    assert request_name(message) == "message"


def test_the_parse_table_is_built_from_the_request_classes() -> None:
    """Every request class is parsed under its own TYPE (a skill or cron message too: each a
    class under the coverage check), and nothing else is."""
    names = {name for cls in typing.get_args(m.ClientMessage)
             for name in getattr(cls, "TYPES", (cls.TYPE,))}
    assert set(m.PARSERS) == names
    for cls in typing.get_args(m.ClientMessage):
        assert type(m.parse({"type": cls.TYPE, **SAMPLES.get(cls.TYPE, {})})) is cls
    assert m.parse({"type": "trace_unsubscribe"}) == m.TraceSubscription(subscribe=False)
    assert m.parse({"content": "hi"}) == m.Chat("hi", m.DEFAULT_SESSION_ID)  # nekoni's apps
    with pytest.raises(m.BadMessage) as unknown:
        m.parse({"type": "skill_explode"})
    assert unknown.value.code == "UNKNOWN_TYPE"


SAMPLES: dict[str, dict[str, Any]] = {
    "message": {"content": "hi"}, "device_remove": {"mobilePubKey": "k"},
    "device_rename": {"mobilePubKey": "k", "name": "n"}, "rag_upload_start":
    {"uploadId": "u", "filename": "f", "totalChunks": 1}, "rag_upload_chunk":
    {"uploadId": "u", "index": 0, "content": ""}, "rag_delete": {"docId": "d"},
    "approval_decision": {"approvalId": "a", "approved": True},
    "device_add": {"mobilePubKey": "A" * 43}, "rag_search": {"query": "q"},
    "skill_create": {"name": "n", "prompt": "p"}, "skill_update": {"id": "s"},
    "skill_delete": {"id": "s"}, "skill_run": {"id": "s"}, "cron_update": {"id": "c"},
    "cron_create": {"skillId": "s", "cronExpression": "0 7 * * *"}, "cron_delete": {"id": "c"},
}
