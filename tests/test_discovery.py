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


async def test_txt_does_not_tell_the_pairing_window(settings: Any, llama_provider: Any) -> None:
    """A stranger watching the TXT for ``pairing: open`` asked in the same instant as the
    owner's press, and won the race."""
    name = f"box-{secrets.token_hex(3)}"
    daemon = Daemon(dataclasses.replace(settings, mdns=True, mdns_interfaces=("127.0.0.1",),
                                        agent_name=name), provider=llama_provider)
    await daemon.start()
    try:
        box = await find(name)
        assert box is not None
        expected = {
            "agentPubKey": daemon.pub_key, "roomId": daemon.room_id, "agentName": name,
            "signalPath": "/signal", "v": "1",
        }
        assert box.txt == expected
        assert box.addresses == ("127.0.0.1",)
        assert box.port == daemon.port
        assert daemon.pairing is not None
        await daemon.pairing.press()
        assert daemon.advertiser is not None
        assert daemon.advertiser.txt == expected  # the same, window open or not
        assert "pairing" not in daemon.info("127.0.0.1:1")
    finally:
        await daemon.stop()
    assert await find(name) is None
