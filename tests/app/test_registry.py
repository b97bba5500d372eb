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
    assert request_name(m.SkillRequest("cron_list", {})) == "cron_list"
    message: Any = m.Chat("hi", "s")
    assert request_name(message) == "message"
