"""Signaling validation: fields, freshness, signatures, the offer bound to the joiner's key."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.errors import SignalingError
from nekoni_edge.protocol import signaling as sig
from nekoni_edge.protocol.canonical import public_key_b64

NOW = 1764633600000


def test_golden_join_parses(vectors: dict[str, Any]) -> None:
    join = sig.parse_join(vectors["signaling"]["join"], NOW)
    assert join == sig.Join("room-1", "phone-1", vectors["phone_pubKey"])


@pytest.mark.parametrize("skew", [sig.TS_TOLERANCE_MS + 1, -sig.TS_TOLERANCE_MS - 1])
def test_stale_join(vectors: dict[str, Any], skew: int) -> None:
    with pytest.raises(SignalingError) as info:
        sig.parse_join(vectors["signaling"]["join"], NOW + skew)
    assert info.value.code == "STALE_TIMESTAMP"


def test_join_refusals(vectors: dict[str, Any]) -> None:
    join = vectors["signaling"]["join"]
    cases = [
        ({**join, "roomId": "room-2"}, "INVALID_SIGNATURE"),
        ({k: v for k, v in join.items() if k != "clientId"}, "INVALID_JOIN"),
        ({**join, "pubKey": "abc"}, "INVALID_JOIN"),
        ({**join, "ts": "now"}, "STALE_TIMESTAMP"),
        ({k: v for k, v in join.items() if k != "sig"}, "INVALID_SIGNATURE"),
    ]
    for msg, code in cases:
        with pytest.raises(SignalingError) as info:
            sig.parse_join(msg, NOW)
        assert info.value.code == code, msg


def test_offer_must_be_signed_by_the_joined_key(phone_key: Ed25519PrivateKey) -> None:
    joined = sig.Join("r", "mobile-1", public_key_b64(phone_key))
    offer = {"type": "offer", "sdp": "v=0\r\n", "from": "mobile-1", "to": "agent", "ts": NOW}
    assert sig.parse_offer(sig.signed_by_client(phone_key, offer), NOW, joined).sdp == "v=0\r\n"
    other = Ed25519PrivateKey.generate()
    with pytest.raises(SignalingError) as info:
        sig.parse_offer(sig.signed_by_client(other, offer), NOW, joined)
    assert info.value.code == "INVALID_SIGNATURE"
    with pytest.raises(SignalingError) as info:
        sig.parse_offer(sig.signed_by_client(phone_key, {**offer, "to": ""}), NOW, joined)
    assert info.value.code == "MISSING_TO"
    with pytest.raises(SignalingError) as info:
        sig.parse_offer(sig.signed_by_client(phone_key, {**offer, "from": "x"}), NOW, joined)
    assert info.value.code == "INVALID_SIGNATURE"


def test_browser_ice_verifies(vectors: dict[str, Any]) -> None:
    body = vectors["ice_js_form"]["body"]
    joined = sig.Join("r", body["from"], vectors["phone_pubKey"])
    cand = sig.parse_ice(body, NOW, joined)
    assert cand.sdp_mid == "0"
    assert cand.sdp_mline_index == 0


def test_answer_verification(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    answer = vectors["signaling"]["answer"]
    assert sig.verify_answer(answer, vectors["agent_pubKey"], NOW) == "v=0\r\n"
    with pytest.raises(SignalingError) as info:
        sig.verify_answer({**answer, "sdp": "v=1\r\n"}, vectors["agent_pubKey"], NOW)
    assert info.value.code == "INVALID_SIGNATURE"
    impostor = sig.signed_by_agent(Ed25519PrivateKey.generate(), answer)
    with pytest.raises(SignalingError):
        sig.verify_answer(impostor, vectors["agent_pubKey"], NOW)


def test_a_signed_message_is_taken_once_while_it_could_pass_as_fresh() -> None:
    from nekoni_edge.protocol.signaling import TS_TOLERANCE_MS, ReplayGuard

    guard = ReplayGuard(limit=3)
    guard.take({"sig": "a"}, 0)
    with pytest.raises(SignalingError) as replayed:
        guard.take({"sig": "a"}, 1000)
    assert replayed.value.code == "REPLAYED"
    guard.take({"sig": "b"}, 1000)
    # Forgotten only once no ts it could carry is fresh any more: memory stays bounded.
    guard.take({"sig": "c"}, 2 * TS_TOLERANCE_MS + 1)
    assert len(guard) == 2
    with pytest.raises(SignalingError):
        guard.take({"sig": "b"}, 2 * TS_TOLERANCE_MS + 1)
    for name in "defgh":
        guard.take({"sig": name}, 2 * TS_TOLERANCE_MS + 2)
    assert len(guard) == 3
