"""Canonical JSON and signatures reproduce the golden vectors byte for byte."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.protocol.canonical import (
    b64url_decode,
    b64url_encode,
    canonical,
    is_valid_nonce,
    is_valid_public_key,
    public_key_b64,
    sign,
    sign_message,
    verify,
    verify_message,
    without_sig,
)
from nekoni_edge.protocol.signaling import signed_by_agent, verify_signed


def test_public_keys_match(vectors: dict[str, Any], agent_key: Ed25519PrivateKey,
                           phone_key: Ed25519PrivateKey) -> None:
    assert public_key_b64(agent_key) == vectors["agent_pubKey"]
    assert public_key_b64(phone_key) == vectors["phone_pubKey"]


def test_handshake_signatures(vectors: dict[str, Any], agent_key: Ed25519PrivateKey,
                              phone_key: Ed25519PrivateKey) -> None:
    hs = vectors["handshake"]
    assert sign(agent_key, hs["challenge_signed_payload"]) == hs["challenge"]["sig"]
    assert sign(phone_key, hs["response_signed_payload"]) == hs["response"]["sig"]
    assert sign(phone_key, {"nonce": hs["hello"]["nonce"]}) == \
        vectors["tampered"]["response_wrong_nonce"]["sig"]


def test_join_canonical_and_signature(vectors: dict[str, Any],
                                      phone_key: Ed25519PrivateKey) -> None:
    join = vectors["signaling"]["join"]
    assert canonical(without_sig(join)).decode() == vectors["signaling"]["join_canonical"]
    assert sign_message(phone_key, join)["sig"] == join["sig"]
    assert verify_message(vectors["phone_pubKey"], join)


def test_answer_signed_with_pubkey_added(vectors: dict[str, Any],
                                         agent_key: Ed25519PrivateKey) -> None:
    answer = vectors["signaling"]["answer"]
    payload = {**without_sig(answer), "pubKey": vectors["agent_pubKey"]}
    assert canonical(payload).decode() == vectors["signaling"]["answer_canonical"]
    assert signed_by_agent(agent_key, answer)["sig"] == answer["sig"]
    assert "pubKey" not in signed_by_agent(agent_key, answer)
    assert verify_signed(answer, vectors["agent_pubKey"])
    assert not verify_signed(answer, vectors["phone_pubKey"])


def test_pair_request_escaped_form(vectors: dict[str, Any], phone_key: Ed25519PrivateKey) -> None:
    body = vectors["pair_request"]["body"]
    assert canonical(without_sig(body)).decode() == vectors["pair_request"]["canonical"]
    assert sign(phone_key, without_sig(body)) == body["sig"]
    assert verify_message(vectors["phone_pubKey"], body)


def test_js_forms_verify(vectors: dict[str, Any]) -> None:
    # JSON.stringify keeps non-ASCII raw, and leaves nested objects in their own order.
    assert verify_message(vectors["phone_pubKey"], vectors["pair_request_js_form"]["body"])
    assert verify_message(vectors["phone_pubKey"], vectors["ice_js_form"]["body"])


@pytest.mark.parametrize("field", ["ts", "deviceName", "mobilePubKey"])
def test_tampered_field_fails(vectors: dict[str, Any], field: str) -> None:
    body = dict(vectors["pair_request"]["body"])
    body[field] = body[field] + 1 if isinstance(body[field], int) else body[field] + "x"
    assert not verify_message(vectors["phone_pubKey"], body)


def test_wrong_key_and_garbage_signatures(vectors: dict[str, Any]) -> None:
    payload = vectors["handshake"]["challenge_signed_payload"]
    good = vectors["handshake"]["challenge"]["sig"]
    assert verify(vectors["agent_pubKey"], payload, good)
    assert not verify(vectors["phone_pubKey"], payload, good)
    for bad in (None, 42, "", "!!!", good[:-2], good + "AA", b64url_encode(b"x" * 64)):
        assert not verify(vectors["agent_pubKey"], payload, bad)
    assert not verify("not-a-key", payload, good)


def test_b64url_roundtrip_and_refusals() -> None:
    data = bytes(range(256))
    text = b64url_encode(data)
    assert not set(text) & set("=+/")
    assert b64url_decode(text) == data
    for bad in ("a+b/", "é", "abc$"):
        with pytest.raises(ValueError, match="base64url"):
            b64url_decode(bad)


def test_nonce_and_key_validation(vectors: dict[str, Any]) -> None:
    assert is_valid_nonce(vectors["handshake"]["hello"]["nonce"])
    assert not is_valid_nonce(b64url_encode(b"x" * 31))
    assert not is_valid_nonce(b64url_encode(b"x" * 33))
    assert not is_valid_nonce(12)
    assert is_valid_public_key(vectors["phone_pubKey"])
    assert not is_valid_public_key(b64url_encode(b"x" * 31))
    assert not is_valid_public_key(None)
