"""Paired devices through the handlers: rename (the README's "Add a message" example)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nekoni_edge.agent.chat import ChatService
from nekoni_edge.app import Box, local
from nekoni_edge.store.database import Database

KEY = "k" * 43


@pytest.fixture
async def box(tmp_path: Path) -> AsyncIterator[Box]:
    async def revoke(pub_key: str) -> int:
        return 0

    async with await Database.open(tmp_path / "db") as db:
        chat = ChatService(db, None, system_prompt="S", context_messages=20, n_ctx=4096,
                           max_tokens=16)
        yield Box(db, chat, revoke)


async def test_device_rename(box: Box) -> None:
    await box.db.approve_device(KEY, "Pixel")
    [reply] = await local.request(box, {"type": "device_rename", "mobilePubKey": KEY,
                                        "name": "  Ada's phone "})
    assert reply == {"type": "device_rename_response", "renamed": True, "mobilePubKey": KEY,
                     "name": "Ada's phone"}
    assert [d.name for d in await box.db.list_devices()] == ["Ada's phone"]
    [unknown] = await local.request(box, {"type": "device_rename", "mobilePubKey": "x" * 43,
                                          "name": "n"})
    assert unknown["renamed"] is False
    for bad in ({"mobilePubKey": KEY, "name": ""}, {"mobilePubKey": KEY, "name": "n" * 65},
                {"mobilePubKey": KEY}, {"name": "n"}):
        [refused] = await local.request(box, {"type": "device_rename", **bad})
        assert (refused["type"], refused["code"]) == ("error", "BAD_FIELD")


async def test_the_pairing_code_names_the_address_asked_for(box: Box) -> None:
    asked: list[tuple[str, str | None]] = []

    def code(app: str, address: str | None, label: bool = False) -> str:
        assert not label
        asked.append((app, address))
        return f"{app}@{address}"

    box.pair_code = code
    [reply] = await local.request(box, {"type": "pair_code", "app": "web",
                                        "address": "192.168.1.20"})
    assert reply == {"type": "pair_code_response", "app": "web", "text": "web@192.168.1.20"}
    [default] = await local.request(box, {"type": "pair_code"})
    assert default["text"] == "mobile@None"
    [refused] = await local.request(box, {"type": "pair_code", "address": "evil.example"})
    assert (refused["type"], refused["code"]) == ("error", "BAD_FIELD")


class PhoneDoor(local.LocalDoor):
    """The box's own door, as if a paired phone had sent the message."""

    device_key = "p" * 43


async def test_a_key_is_added_by_hand_only_at_the_box(box: Box) -> None:
    from nekoni_edge.app.registry import dispatch
    from nekoni_edge.protocol import messages as m

    key = "A" * 43
    [added] = await local.request(box, {"type": "device_add", "mobilePubKey": key, "name": "x"})
    assert added == {"type": "device_add_response", "added": True, "mobilePubKey": key}
    [again] = await local.request(box, {"type": "device_add", "mobilePubKey": key})
    assert again["added"] is False
    [bad] = await local.request(box, {"type": "device_add", "mobilePubKey": "nope"})
    assert (bad["type"], bad["code"]) == ("error", "BAD_FIELD")
    phone = PhoneDoor(box)
    dispatch(phone, m.DeviceAdd("B" * 43, "mine"))
    await phone.settle()
    assert [(r["type"], r["code"]) for r in phone.replies] == [("error", "FORBIDDEN")]
    assert not await box.db.is_approved("B" * 43)


async def test_stored_traces_are_listed_only_where_the_sender_may_read(box: Box) -> None:
    from nekoni_edge.app.registry import dispatch
    from nekoni_edge.protocol import messages as m
    from nekoni_edge.tracer import Tracer

    box.chat.tracer = Tracer(box.db)
    await box.db.approve_device(PhoneDoor.device_key, "phone")
    await box.db.approve_device("q" * 43, "other")
    await box.db.append_message("mine", "user", "hi", PhoneDoor.device_key)
    await box.db.append_message("theirs", "user", "hi", "q" * 43)
    for session in ("mine", "theirs"):
        await box.chat.tracer.emit(session, "message", {"role": "user"})
    [owner] = await local.request(box, {"type": "trace_list"})
    assert [e["sessionId"] for e in owner["events"]] == ["mine", "theirs"]
    phone = PhoneDoor(box)
    dispatch(phone, m.TraceList(None, 0, 100))
    await phone.settle()
    assert [e["sessionId"] for e in phone.replies[0]["events"]] == ["mine"]
