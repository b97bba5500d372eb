"""A client that behaves as nekoni's own web and mobile apps do (``nekonihq/nekoni``:
``apps/web/src/pages/PairPage.tsx``, ``hooks/useWebRTC.ts``, ``hooks/useAgent.ts``,
``contexts/ConnectionContext.tsx``; ``apps/mobile/src/app/pair.tsx``), as the shared protocol
reference describes them — written here from that behaviour, none of their code.

What it does as they do: parses the QR code's JSON and checks the same fields; pairs by
``POST {agentUrlHttps ?? agentUrl}/api/pair`` (a browser first sends the CORS preflight), takes
any 2xx as done and reads refusals from ``detail``; then reconnects every ~3.2 s (150 ms + 3 s)
until let in, with one clientId; after ``ready`` sends ``sync``; pings every 5 s; sends chat as
``{content, sessionId}`` with no ``type``; shows ``chunk``s, ``message_end`` and non-empty
``message``s, and nothing for ``error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.errors import NekoniError, SignalingError
from nekoni_edge.protocol.canonical import public_key_b64, sign_message
from nekoni_edge.store.database import now_ms

APP_ORIGIN = "https://app.nekoni.example"  # the hosted web app: another origin than the box
RETRY_S = 3.0 + 0.15  # ConnectionContext's 3 s timer plus useWebRTC's 150 ms
PING_S = 5.0


class InvalidQR(Exception):
    """What the apps throw for a code without the fields they need."""


def parse_qr(text: str, app: str) -> dict[str, Any]:
    """As the apps parse a scanned code (the web app needs agentUrl too)."""
    payload: dict[str, Any] = json.loads(text)
    needed = ("agentPubKey", "signalUrl", "roomId") + (("agentUrl",) if app == "web" else ())
    if not all(payload.get(name) for name in needed):
        raise InvalidQR("Invalid QR code")
    return payload


@dataclass
class Shown:
    """What the app's chat view shows: finished agent messages, and the one streaming."""

    messages: list[str] = field(default_factory=list)
    streamed: list[bool] = field(default_factory=list)  # streamed answer, or a whole message
    pending: str | None = None
    thinking: bool = False  # the typing dots: from a message sent to a chunk or an answer
    toasts: list[str] = field(default_factory=list)  # the mobile app's "Agent error" toasts


class NekoniApp:
    """One install of nekoni's app: its key, the agent it scanned, its connection."""

    def __init__(self, qr_payload: dict[str, Any], app: str = "web") -> None:
        self.key = Ed25519PrivateKey.generate()
        self.agent = qr_payload
        self.app = app
        self.client_id = f"mobile-{secrets.token_hex(4)}"  # one per app instance
        self.session_id = f"web-{secrets.token_hex(4)}"
        self.phone: PhoneClient | None = None
        self.shown = Shown()
        self.pongs = 0
        self.closed = False
        self.others: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._changed = asyncio.Event()  # set at every message the app receives
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def base_url(self) -> str:
        return str(self.agent.get("agentUrlHttps") or self.agent["agentUrl"]).rstrip("/") \
            if self.app == "web" else str(self.agent["agentUrl"]).rstrip("/")

    async def pair(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        """The pair request, preflighted as a browser does for the web app. Returns the
        status, the JSON body and the CORS headers the browser would check."""
        body = sign_message(self.key, {"mobilePubKey": public_key_b64(self.key),
                                       "ts": now_ms(), "deviceName": "Web"})
        cors: dict[str, str] = {}
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=False)) as http:
            if self.app == "web":
                async with http.options(f"{self.base_url}/api/pair", headers={
                        "Origin": APP_ORIGIN, "Access-Control-Request-Method": "POST",
                        "Access-Control-Request-Headers": "content-type"}) as pre:
                    if pre.status >= 300 or pre.headers.get(
                            "Access-Control-Allow-Origin") not in ("*", APP_ORIGIN):
                        raise NekoniError("Failed to fetch")  # what the browser reports
                    cors = {k: v for k, v in pre.headers.items()
                            if k.lower().startswith("access-control-")}
            async with http.post(f"{self.base_url}/api/pair", json=body,
                                 headers={"Origin": APP_ORIGIN}) as resp:
                if self.app == "web" and resp.headers.get(
                        "Access-Control-Allow-Origin") not in ("*", APP_ORIGIN):
                    raise NekoniError("Failed to fetch")
                return resp.status, await resp.json(), cors

    async def connect_until_in(self, max_attempts: int) -> int:
        """Reconnect every ~3.2 s until the box lets us in; return the attempts it took."""
        for attempt in range(1, max_attempts + 1):
            phone = PhoneClient(self.key, self.base_url, agent_pub_key=self.agent["agentPubKey"],
                                client_id=self.client_id)
            try:
                await phone.connect()
            except SignalingError as exc:
                # The mobile app toasts every signaling ``error`` frame ("Agent error"); a
                # socket closed without one reads as "reconnecting" (no toast).
                if not exc.message.startswith("signaling closed"):
                    self.shown.toasts.append(exc.message)
                await phone.close()
                await asyncio.sleep(RETRY_S)
                continue
            except (NekoniError, aiohttp.ClientError, OSError):
                await phone.close()
                await asyncio.sleep(RETRY_S)
                continue
            self.phone = phone
            self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._ping())]
            phone.send({"type": "sync", "sessionId": self.session_id, "afterTimestamp": 0})
            return attempt
        raise TimeoutError(f"not let in after {max_attempts} attempts")

    def say(self, content: str) -> None:
        """A chat message as the apps send it: no ``type``."""
        assert self.phone is not None
        self.shown.thinking = True
        self.phone.send({"content": content, "sessionId": self.session_id})

    def send(self, message: dict[str, Any]) -> None:
        assert self.phone is not None
        self.phone.send(message)

    async def _ping(self) -> None:
        assert self.phone is not None
        while True:
            await asyncio.sleep(PING_S)
            self.phone.send({"type": "ping"})

    async def _read(self) -> None:
        assert self.phone is not None
        while (msg := await self.phone.recv_raw(wait=3600)) is not None:
            self._changed.set()
            kind = msg.get("type")
            if kind == "pong":
                self.pongs += 1
            elif kind == "chunk":
                self.shown.thinking = False
                self.shown.pending = (self.shown.pending or "") + str(msg.get("content"))
            elif kind == "message_end":
                self.shown.thinking = False
                if self.shown.pending:
                    self.shown.messages.append(self.shown.pending)
                    self.shown.streamed.append(True)
                self.shown.pending = None
            elif kind == "message" and msg.get("content"):
                self.shown.thinking = False
                self.shown.messages.append(str(msg["content"]))
                self.shown.streamed.append(False)
            elif kind not in ("error", "sync_response"):  # the apps show neither
                await self.others.put(msg)
        # The channel closed: the apps reset the chat's state, and a streamed answer that
        # had not ended is dropped (useAgent's ``reset``).
        self.shown.pending = None
        self.shown.thinking = False
        self.closed = True
        self._changed.set()

    async def reply(self, kind: str, wait: float = 120.0) -> dict[str, Any]:
        """The next message of ``kind`` for the skills or knowledge views."""
        deadline = time.monotonic() + wait
        while True:
            msg = await asyncio.wait_for(self.others.get(), max(0.1, deadline - time.monotonic()))
            if msg.get("type") == kind:
                return msg

    async def until(self, done: Callable[[], bool], wait: float) -> None:
        """Wait until ``done()`` holds, checking at each message received."""
        async with asyncio.timeout(wait):
            while not done():
                self._changed.clear()
                await self._changed.wait()

    async def shown_count(self, n: int, wait: float = 180.0) -> list[str]:
        """Wait until the chat view shows ``n`` agent messages."""
        await self.until(lambda: len(self.shown.messages) >= n, wait)
        return self.shown.messages

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.phone is not None:
            await self.phone.close()
