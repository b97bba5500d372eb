"""Helpers for whole-appliance tests: approved keys, raw clients and draining a channel."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.protocol.canonical import public_key_b64


async def approved(box: Any, name: str = "") -> Ed25519PrivateKey:
    """A fresh phone key, approved on ``box`` (a running Daemon)."""
    key = Ed25519PrivateKey.generate()
    assert box.db is not None
    await box.db.approve_device(public_key_b64(key), name)
    return key


async def drain(client: PhoneClient, wait: float = 15.0) -> list[dict[str, Any]]:
    """Every message the box sends until it closes the channel."""
    received: list[dict[str, Any]] = []
    async with asyncio.timeout(wait):
        while (msg := await client.recv_raw()) is not None:
            received.append(msg)
    return received


async def until(client: PhoneClient, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    """Messages up to and including the first whose type is in ``kinds``."""
    received: list[dict[str, Any]] = []
    while True:
        msg = await client.recv()
        received.append(msg)
        if msg.get("type") in kinds:
            return received


def open_fds() -> int:
    """File descriptors this process holds (the in-process daemon's and the clients')."""
    return len(os.listdir("/proc/self/fd"))
