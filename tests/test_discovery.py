"""mDNS on loopback: the TXT record follows the pairing window; unregistered on shutdown."""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

import pytest

from nekoni_edge.daemon import Daemon
from nekoni_edge.discovery import browse

pytestmark = pytest.mark.slow


async def find(name: str) -> Any:
    for _ in range(5):
        for box in await browse(1.0, ["127.0.0.1"]):
            if box.name == name:
                return box
    return None


async def test_txt_follows_the_pairing_window(settings: Any, llama_provider: Any) -> None:
    name = f"box-{secrets.token_hex(3)}"
    daemon = Daemon(dataclasses.replace(settings, mdns=True, mdns_interfaces=("127.0.0.1",),
                                        agent_name=name), provider=llama_provider)
    await daemon.start()
    try:
        box = await find(name)
        assert box is not None
        assert box.txt == {
            "agentPubKey": daemon.pub_key, "roomId": daemon.room_id, "agentName": name,
            "signalPath": "/signal", "v": "1", "pairing": "closed",
        }
        assert box.addresses == ("127.0.0.1",)
        assert box.port == daemon.port
        assert daemon.pairing is not None
        await daemon.pairing.press()
        for _ in range(10):
            box = await find(name)
            if box is not None and box.txt["pairing"] == "open":
                break
        assert box is not None
        assert box.txt["pairing"] == "open"
    finally:
        await daemon.stop()
    assert await find(name) is None
