"""Stopping the box with phones and apps connected: sockets told "going away", peers closed
first, nothing answered after the stop began, and no wait on the HTTP server's cleanup."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
from aiohttp import WSCloseCode, WSMsgType

from nekoni_edge.client.phone import PhoneClient

# Far under systemd's TimeoutStopSec=30; the old order took 42-45 s (aiohttp waited a minute
# for the open /signal sockets before the peers were closed).
STOP_DEADLINE_S = 20


async def test_stop_with_a_connected_phone_and_an_open_signal_socket(daemon: Any,
                                                                      phone: PhoneClient) -> None:
    async with aiohttp.ClientSession() as http, \
            http.ws_connect(f"ws://127.0.0.1:{daemon.port}/signal") as app:
        started = time.monotonic()
        stopping = asyncio.create_task(daemon.stop())
        frame = await asyncio.wait_for(app.receive(), STOP_DEADLINE_S)
        assert frame.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED)
        assert app.close_code == WSCloseCode.GOING_AWAY  # the app is told the box is going
        await asyncio.wait_for(stopping, STOP_DEADLINE_S)
        took = time.monotonic() - started
    assert took < STOP_DEADLINE_S
    assert daemon.peers is None  # every peer connection closed
    # the phone's channel is gone: nothing it sends now is answered
    assert phone._channel.readyState != "open"
