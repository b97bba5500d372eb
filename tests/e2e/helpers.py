"""Helpers for whole-appliance tests: raw clients and draining a channel."""

from __future__ import annotations

import asyncio
from typing import Any

from nekoni_edge.client.phone import PhoneClient


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
