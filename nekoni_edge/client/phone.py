"""A nekoni phone in Python: join, signed offer, verified answer, handshake, chat."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import secrets
from collections.abc import AsyncGenerator
from typing import Any

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.errors import AuthFailed, NekoniError, SignalingError
from nekoni_edge.protocol import signaling as sig
from nekoni_edge.protocol.canonical import b64url_encode, public_key_b64, sign_message
from nekoni_edge.protocol.handshake import ClientHandshake, ClientState
from nekoni_edge.store.database import now_ms
from nekoni_edge.transport.ice import rtc_configuration
from nekoni_edge.transport.reassembly import respect_receive_window

_LOGGER = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 30.0
REPLY_TIMEOUT_S = 120.0
UPLOAD_SEGMENT_CHARS = 15 * 1024


class BoxKeyChanged(NekoniError):
    """The box presents a different key from the one pinned at pairing."""

    def __init__(self, pinned: str, presented: str) -> None:
        super().__init__(
            f"the box's key changed (pinned {pinned[:12]}…, now {presented[:12]}…): "
            "refusing to connect; if the box was reset on purpose, pair again"
        )
        self.pinned = pinned
        self.presented = presented


class PairingRefused(NekoniError):
    """The box did not pair us: refused (overlap), timed out, or an error."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


class ReplyError(NekoniError):
    """The box answered a request with an ``error``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def new_nonce() -> str:
    """32 random bytes, base64url."""
    return b64url_encode(secrets.token_bytes(32))


class PhoneClient:
    """One phone talking to one box over WebRTC; use ``async with``."""

    def __init__(
        self,
        key: Ed25519PrivateKey,
        base_url: str,
        *,
        agent_pub_key: str | None = None,
        client_id: str | None = None,
        tls_fingerprint: str | None = None,
    ) -> None:
        self._key = key
        self.pub_key = public_key_b64(key)
        self.base_url = base_url.rstrip("/")
        self.agent_pub_key = agent_pub_key
        self.client_id = client_id or f"mobile-{secrets.token_hex(4)}"
        self.tls_fingerprint = tls_fingerprint
        self.info: dict[str, Any] = {}
        self._http: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._pc: Any = None
        self._channel: Any = None
        self._incoming: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._opened = asyncio.Event()
        self.closed = asyncio.Event()

    async def __aenter__(self) -> PhoneClient:
        try:
            await self.connect()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def fetch_info(self) -> dict[str, Any]:
        """GET /api/info; pin the box's key on first contact, refuse it if it changed."""
        if self._http is None:
            self._http = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=10),
                connector=aiohttp.TCPConnector(ssl=self._tls()),
            )
        async with self._http.get(f"{self.base_url}/api/info") as resp:
            resp.raise_for_status()
            info: dict[str, Any] = await resp.json()
        presented = info.get("agentPubKey")
        if not isinstance(presented, str):
            raise SignalingError("INVALID_MESSAGE", "the box's /api/info has no agentPubKey")
        if self.agent_pub_key is None:
            self.agent_pub_key = presented
        elif presented != self.agent_pub_key:
            raise BoxKeyChanged(self.agent_pub_key, presented)
        self.info = info
        return info

    def _tls(self) -> aiohttp.Fingerprint | bool:
        """Pin the box's self-signed certificate when its fingerprint is known (mDNS TXT)."""
        if not self.base_url.startswith("https:"):
            return True
        if self.tls_fingerprint:
            return aiohttp.Fingerprint(bytes.fromhex(self.tls_fingerprint))
        # Still safe for the channel: the answer must be signed by the pinned box key.
        _LOGGER.warning("the box's TLS certificate is not pinned (no fingerprint given)")
        return False

    async def pair(
        self, device_name: str = "", *, wait_s: float = 130.0, poll_s: float = 1.0
    ) -> str:
        """Ask the box to pair, then wait for the owner's button press; return the status."""
        await self.fetch_info()
        assert self._http is not None
        body = sign_message(self._key, {"mobilePubKey": self.pub_key, "ts": now_ms(),
                                        "deviceName": device_name})
        async with self._http.post(f"{self.base_url}/api/pair", json=body) as resp:
            answer: dict[str, Any] = await resp.json()
        if resp.status != 200:  # an error, or a refusal (409): ``detail`` says why in words
            raise PairingRefused(str(answer.get("error") or answer.get("status")),
                                 str(answer.get("detail") or answer.get("message")))
        status = str(answer.get("status"))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while status == "pending_approval" and loop.time() < deadline:
            await asyncio.sleep(poll_s)
            query = sign_message(self._key, {"mobilePubKey": self.pub_key, "ts": now_ms()})
            async with self._http.get(f"{self.base_url}/api/pair/status",
                                      params={k: str(v) for k, v in query.items()}) as resp:
                answer = await resp.json()
                status = str(answer.get("status"))
        if status not in ("approved", "already_approved"):
            # The box's words say what to do (a refusal names the label's code); ours only
            # where it said none.
            raise PairingRefused(status, str(answer.get("detail") or {
                "pending_approval": "nobody pressed the box's button in time",
                "not_paired": "the box's pairing window closed before the button was pressed",
            }.get(status, f"pairing failed: {status}")))
        _LOGGER.info("paired with %s (%s)", self.info.get("agentName"), status)
        return "approved"  # the wire's "already_approved" too: nekoni's apps know only that

    async def connect(self, *, handshake: bool = True) -> None:
        """Join, offer, verify the answer, open the channel and (unless told not to, as
        adversarial tests do) pass the handshake."""
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            await self._connect(handshake)

    async def _signal_recv(self) -> dict[str, Any]:
        assert self._ws is not None
        frame = await self._ws.receive()
        if frame.type is not aiohttp.WSMsgType.TEXT:
            raise SignalingError("INTERNAL_ERROR", f"signaling closed ({frame.type.name})")
        msg: dict[str, Any] = json.loads(frame.data)
        if msg.get("type") == "error":
            raise SignalingError(str(msg.get("code")), str(msg.get("message")))
        return msg

    async def _connect(self, do_handshake: bool) -> None:
        from aiortc import RTCPeerConnection, RTCSessionDescription

        info = await self.fetch_info()
        assert self._http is not None
        assert self.agent_pub_key is not None
        signal_url = self.base_url.replace("http", "ws", 1) + "/signal"
        self._ws = await self._http.ws_connect(signal_url)
        join = {"type": "join", "roomId": info["roomId"], "clientId": self.client_id,
                "ts": now_ms()}
        await self._ws.send_json(sig.signed_by_client(self._key, join))
        joined = await self._signal_recv()
        if joined.get("type") != "peer_joined" or joined.get("pubKey") != self.agent_pub_key:
            raise BoxKeyChanged(self.agent_pub_key, str(joined.get("pubKey")))
        agent_id = str(joined["clientId"])

        self._pc = RTCPeerConnection(configuration=rtc_configuration())
        self._channel = self._pc.createDataChannel("nekoni", ordered=True)
        if self._pc.sctp is not None:  # an honest sender: within the box's advertised window
            respect_receive_window(self._pc.sctp)
        self._channel.on("open", self._opened.set)
        self._channel.on("message", self._on_message)
        self._channel.on("close", self._on_close)
        await self._pc.setLocalDescription(await self._pc.createOffer())
        offer = {"type": "offer", "sdp": self._pc.localDescription.sdp, "from": self.client_id,
                 "to": agent_id, "ts": now_ms()}
        await self._ws.send_json(sig.signed_by_client(self._key, offer))
        answer = await self._signal_recv()
        # The DTLS fingerprint is in this SDP: verifying it binds the channel to the box's key.
        sdp = sig.verify_answer(answer, self.agent_pub_key, now_ms())
        await self._pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="answer"))
        await self._opened.wait()
        if not do_handshake:
            return
        handshake = ClientHandshake(self._key, self.agent_pub_key, nonce=new_nonce())
        self.send(handshake.hello())
        while handshake.state is not ClientState.READY:
            msg = await self.recv()
            for reply in handshake.receive(msg):
                self.send(reply)
        _LOGGER.info("connected to %s as %s", info.get("agentName"), self.client_id)

    def _on_message(self, data: str | bytes) -> None:
        try:
            msg = json.loads(data)
        except ValueError:
            _LOGGER.warning("box sent invalid JSON")
            return
        if isinstance(msg, dict):
            self._incoming.put_nowait(msg)

    def _on_close(self) -> None:
        self.closed.set()
        self._incoming.put_nowait(None)

    def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message on the channel."""
        self.send_raw(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def send_raw(self, data: str | bytes) -> None:
        """Send raw text or bytes (tests use this to send garbage)."""
        self._channel.send(data)

    async def recv_raw(self, wait: float = REPLY_TIMEOUT_S) -> dict[str, Any] | None:
        """The next message from the box as it came, or None once the channel closed."""
        msg = await asyncio.wait_for(self._incoming.get(), wait)
        if msg is None:
            self._incoming.put_nowait(None)
        return msg

    async def recv(self, wait: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        """The next message from the box; raises ConnectionError once the channel closed."""
        msg = await self.recv_raw(wait)
        if msg is None:
            raise ConnectionError("the box closed the channel")
        if msg.get("type") == "auth_failed":
            raise AuthFailed(str(msg.get("reason")))
        return msg

    async def ask(self, content: str, session_id: str | None = None
                  ) -> AsyncGenerator[str, None]:
        """Send a chat message and yield the streamed reply's pieces. The default session is
        this device's own (a session belongs to the device that started it)."""
        session_id = session_id or f"phone-{self.pub_key[:8]}"
        self.send({"type": "message", "content": content, "sessionId": session_id})
        while True:
            msg = await self.recv()
            kind = msg.get("type")
            if kind == "chunk":
                yield str(msg.get("content", ""))
            elif kind == "message_end":
                return
            elif kind == "message":
                if msg.get("content"):
                    yield str(msg["content"])
                return
            elif kind == "error":
                if msg.get("sessionId") == session_id:
                    await self.recv()  # the same failure in plain words, for nekoni's apps
                raise ReplyError(str(msg.get("code")), str(msg.get("message")))

    async def request(self, message: dict[str, Any], expect: str) -> dict[str, Any]:
        """Send a request and wait for its reply of type ``expect`` (or an error)."""
        self.send(message)
        while True:
            msg = await self.recv()
            if msg.get("type") == expect:
                return msg
            if msg.get("type") == "error":
                raise ReplyError(str(msg.get("code")), str(msg.get("message")))

    async def upload(
        self, filename: str, data: bytes, *, on_message: Any = None
    ) -> dict[str, Any]:
        """Upload a document in base64 segments of ≤ 15 KB; return ``rag_upload_response``."""
        segment = UPLOAD_SEGMENT_CHARS * 3 // 4
        parts = [data[i : i + segment] for i in range(0, len(data), segment)] or [b""]
        upload_id = f"up-{secrets.token_hex(6)}"
        self.send({"type": "rag_upload_start", "uploadId": upload_id, "filename": filename,
                   "totalChunks": len(parts)})
        for index, part in enumerate(parts):
            self.send({"type": "rag_upload_chunk", "uploadId": upload_id, "index": index,
                       "content": base64.b64encode(part).decode("ascii")})
        while True:
            msg = await self.recv()
            if on_message is not None:
                on_message(msg)
            if msg.get("type") == "rag_upload_response":
                return msg
            if msg.get("type") in ("rag_error", "error"):
                raise ReplyError(str(msg.get("code", "RAG_ERROR")), str(msg.get("message")))

    async def close(self) -> None:
        """Close the channel, the peer connection and signaling."""
        if self._pc is not None:
            await self._pc.close()
            self._pc = None
        if self._ws is not None:
            await self._ws.close()
            self._ws = None
        if self._http is not None:
            await self._http.close()
            self._http = None
