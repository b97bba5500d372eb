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

    def code(app: str, address: str | None) -> str:
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
