"""Signaling messages of nekoni's signal server: validation, freshness, signatures."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.errors import SignalingError
from nekoni_edge.protocol.canonical import (
    is_valid_public_key,
    public_key_b64,
    sign,
    verify,
    without_sig,
)

TS_TOLERANCE_MS = 5 * 60 * 1000
SIGNAL_PATH = "/signal"  # the box's signaling WebSocket
# The label's URLs: ``/p/<setup code>`` before the signaling and ``/api`` paths.
SETUP_PREFIX = "/p"
MAX_SIGNAL_BYTES = 64 * 1024
MAX_ID_CHARS = 128
MAX_SDP_CHARS = 32 * 1024
MAX_REMEMBERED_SIGNATURES = 4096  # of paired keys' joins and offers, at most ten minutes old


@dataclass(frozen=True, slots=True)
class Join:
    """A client asks to enter the box's room."""

    room_id: str
    client_id: str
    pub_key: str


@dataclass(frozen=True, slots=True)
class Offer:
    """A phone's SDP offer to the agent."""

    sdp: str
    sender: str
    to: str


@dataclass(frozen=True, slots=True)
class IceCandidate:
    """A trickled ICE candidate (browsers send these; aiortc does not)."""

    candidate: str
    sdp_mid: str | None
    sdp_mline_index: int | None
    sender: str
    to: str


def error(code: str, message: str) -> dict[str, Any]:
    """The signaling error reply."""
    return {"type": "error", "code": code, "message": message}


def _field(msg: dict[str, Any], key: str, limit: int = MAX_ID_CHARS) -> str:
    value = msg.get(key)
    if not isinstance(value, str) or not value or len(value) > limit:
        raise SignalingError(_code_for(msg), f"{key} must be a non-empty string")
    return value


def _code_for(msg: dict[str, Any]) -> str:
    return "INVALID_JOIN" if msg.get("type") == "join" else "INVALID_MESSAGE"


def check_fresh(msg: dict[str, Any], now_ms: int) -> None:
    """Refuse a signed message whose ``ts`` is missing or more than ±5 minutes off."""
    ts = msg.get("ts")
    if isinstance(ts, bool) or not isinstance(ts, int | float):
        raise SignalingError("STALE_TIMESTAMP", "ts must be Unix milliseconds")
    if abs(now_ms - ts) > TS_TOLERANCE_MS:
        raise SignalingError("STALE_TIMESTAMP", "ts is more than 5 minutes from the box's clock")


def verify_signed(msg: dict[str, Any], pub_key: str) -> bool:
    """Verify a signaling message, adding the sender's ``pubKey`` back if it was not sent."""
    payload = without_sig(msg)
    payload.setdefault("pubKey", pub_key)
    if payload["pubKey"] != pub_key:
        return False
    return verify(pub_key, payload, msg.get("sig"))


def parse_join(msg: dict[str, Any], now_ms: int) -> Join:
    """Validate a ``join``: fields, freshness, the joiner's own signature."""
    room_id, client_id, pub_key = (_field(msg, k) for k in ("roomId", "clientId", "pubKey"))
    if not is_valid_public_key(pub_key):
        raise SignalingError("INVALID_JOIN", "pubKey must be 32 bytes of base64url")
    check_fresh(msg, now_ms)
    if not verify_signed(msg, pub_key):
        raise SignalingError("INVALID_SIGNATURE", "join signature does not verify")
    return Join(room_id=room_id, client_id=client_id, pub_key=pub_key)


def parse_offer(msg: dict[str, Any], now_ms: int, joined: Join) -> Offer:
    """Validate an ``offer`` from a joined client, signed by the key it joined with."""
    sdp = _field(msg, "sdp", MAX_SDP_CHARS)
    to = msg.get("to")
    if not isinstance(to, str) or not to:
        raise SignalingError("MISSING_TO", "offer needs a 'to'")
    sender = msg.get("from", joined.client_id)
    if sender != joined.client_id:
        raise SignalingError("INVALID_SIGNATURE", "'from' is not the client that joined")
    check_fresh(msg, now_ms)
    if not verify_signed(msg, joined.pub_key):
        raise SignalingError("INVALID_SIGNATURE", "offer signature does not verify")
    return Offer(sdp=sdp, sender=joined.client_id, to=to)


def parse_ice(msg: dict[str, Any], now_ms: int, joined: Join) -> IceCandidate:
    """Validate a trickled ``ice`` candidate from a joined client."""
    to = msg.get("to")
    if not isinstance(to, str) or not to:
        raise SignalingError("MISSING_TO", "ice needs a 'to'")
    cand = msg.get("candidate")
    if not isinstance(cand, dict):
        raise SignalingError("INVALID_MESSAGE", "candidate must be an object")
    text = cand.get("candidate")
    mid = cand.get("sdpMid")
    index = cand.get("sdpMLineIndex")
    if not isinstance(text, str) or len(text) > 1024:
        raise SignalingError("INVALID_MESSAGE", "candidate.candidate must be a string")
    if mid is not None and not isinstance(mid, str):
        raise SignalingError("INVALID_MESSAGE", "candidate.sdpMid must be a string")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
        raise SignalingError("INVALID_MESSAGE", "candidate.sdpMLineIndex must be an integer")
    check_fresh(msg, now_ms)
    if not verify_signed(msg, joined.pub_key):
        raise SignalingError("INVALID_SIGNATURE", "ice signature does not verify")
    return IceCandidate(text, mid, index, joined.client_id, to)


def signed_by_agent(key: Ed25519PrivateKey, msg: dict[str, Any]) -> dict[str, Any]:
    """Sign an agent message over itself plus the agent's ``pubKey``, which is not sent."""
    body = without_sig(msg)
    return {**body, "sig": sign(key, {**body, "pubKey": public_key_b64(key)})}


def signed_by_client(key: Ed25519PrivateKey, msg: dict[str, Any]) -> dict[str, Any]:
    """Sign a client message that carries its own ``pubKey``."""
    body = {**without_sig(msg), "pubKey": public_key_b64(key)}
    return {**body, "sig": sign(key, body)}


def verify_answer(msg: dict[str, Any], agent_pub_key: str, now_ms: int) -> str:
    """Client side: check an ``answer`` against the pinned agent key; return its SDP."""
    sdp = msg.get("sdp")
    if not isinstance(sdp, str) or not sdp:
        raise SignalingError("INVALID_MESSAGE", "answer has no sdp")
    check_fresh(msg, now_ms)
    if not verify_signed(msg, agent_pub_key):
        raise SignalingError("INVALID_SIGNATURE", "answer is not signed by the pinned box key")
    return sdp


class ReplayGuard:
    """The signatures of joins and offers already taken, kept while their ``ts`` could still
    pass as fresh. A signed message is good once: the mobile app's port is plain HTTP, and an
    eavesdropper replaying a captured join and offer closed the phone's live connection (the
    box took the offer as the phone reconnecting). A phone signs a new ``ts`` for each try."""

    def __init__(self, limit: int = MAX_REMEMBERED_SIGNATURES) -> None:
        self._limit = limit
        self._seen: OrderedDict[str, int] = OrderedDict()  # signature -> forget after (ms)

    def __len__(self) -> int:
        return len(self._seen)

    def take(self, msg: dict[str, Any], now_ms: int) -> None:
        """Accept ``msg`` (its signature already verified) once; a second time is REPLAYED."""
        while self._seen and next(iter(self._seen.values())) <= now_ms:
            self._seen.popitem(last=False)
        signature = str(msg.get("sig"))
        if signature in self._seen:
            raise SignalingError("REPLAYED", "this signed message was already used; "
                                             "sign a new one with a fresh ts")
        # Everything is remembered for the longest time any ts stays fresh, so insertion
        # order is expiry order and the oldest go first.
        self._seen[signature] = now_ms + 2 * TS_TOLERANCE_MS
        while len(self._seen) > self._limit:
            self._seen.popitem(last=False)
