"""Both handshake state machines, fed directly (no transport)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.errors import AuthFailed, LocalProtocolError
from nekoni_edge.protocol.canonical import b64url_encode, public_key_b64, sign
from nekoni_edge.protocol.handshake import (
    AgentHandshake,
    AgentState,
    ClientHandshake,
    ClientState,
)


def nonce() -> str:
    return b64url_encode(secrets.token_bytes(32))


def agent(vectors: dict[str, Any], agent_key: Ed25519PrivateKey, *, approved: bool = True,
          offer_key: str | None = None) -> AgentHandshake:
    return AgentHandshake(
        agent_key,
        is_approved=lambda k: approved and k == vectors["phone_pubKey"],
        nonce=vectors["handshake"]["challenge"]["nonce"],
        offer_pub_key=offer_key,
    )


def test_golden_exchange(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    hs = vectors["handshake"]
    box = agent(vectors, agent_key, offer_key=vectors["phone_pubKey"])
    assert box.receive(hs["hello"]) == [hs["challenge"]]
    assert box.state is AgentState.AWAIT_RESPONSE
    assert box.receive(hs["response"]) == [hs["ready"]]
    assert box.state is AgentState.READY
    assert box.peer_pub_key == vectors["phone_pubKey"]


def test_client_and_agent_pair(agent_key: Ed25519PrivateKey) -> None:
    phone_key = Ed25519PrivateKey.generate()
    box = AgentHandshake(agent_key, is_approved=lambda k: True, nonce=nonce())
    phone = ClientHandshake(phone_key, public_key_b64(agent_key), nonce=nonce())
    to_box = [phone.hello()]
    while to_box:
        replies = [r for msg in to_box for r in box.receive(json.loads(json.dumps(msg)))]
        to_box = [out for r in replies for out in phone.receive(r)]
    assert box.state is AgentState.READY
    assert phone.state is ClientState.READY


def failure(box: AgentHandshake, *messages: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for msg in messages:
        out = box.receive_text(msg if isinstance(msg, str) else json.dumps(msg))
    assert box.state is AgentState.FAILED
    return out


def test_unknown_key(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    box = agent(vectors, agent_key, approved=False)
    assert failure(box, vectors["handshake"]["hello"]) == [
        {"type": "auth_failed", "reason": "Device not approved"}
    ]


def test_bad_response_signature(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    box = agent(vectors, agent_key)
    bad = {"type": "response", "sig": b64url_encode(b"\0" * 64)}
    assert failure(box, vectors["handshake"]["hello"], bad) == [
        {"type": "auth_failed", "reason": "Invalid response signature"}
    ]


def test_reflection_refused(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    box = agent(vectors, agent_key)
    reflected = vectors["tampered"]["response_wrong_nonce"]
    assert failure(box, vectors["handshake"]["hello"], reflected) == [
        {"type": "auth_failed", "reason": "Invalid response signature"}
    ]


def test_replayed_response_refused(vectors: dict[str, Any], agent_key: Ed25519PrivateKey,
                                   phone_key: Ed25519PrivateKey) -> None:
    # The golden response was valid for the golden agent nonce; a new session has a new one.
    box = AgentHandshake(agent_key, is_approved=lambda k: True, nonce=nonce())
    assert failure(box, vectors["handshake"]["hello"], vectors["handshake"]["response"]) == [
        {"type": "auth_failed", "reason": "Invalid response signature"}
    ]


@pytest.mark.parametrize(
    ("messages", "reason"),
    [
        (["{not json"], "Invalid JSON"),
        (["[1, 2]"], "Invalid JSON"),
        ([{"type": "hello", "nonce": "x"}], "Missing pubKey or nonce"),
        ([{"type": "hello", "pubKey": "x"}], "Missing pubKey or nonce"),
        ([{"type": "response", "sig": "x"}], "Unexpected response"),
        ([{"type": "message", "content": "hi"}],
         "Unexpected message type during handshake: message"),
        ([{"type": "rag_list"}], "Unexpected message type during handshake: rag_list"),
        ([{"content": "hi"}], "Unexpected message type during handshake: NoneType"),
    ],
)
def test_nekoni_reasons(vectors: dict[str, Any], agent_key: Ed25519PrivateKey,
                        messages: list[Any], reason: str) -> None:
    box = agent(vectors, agent_key)
    assert failure(box, *messages) == [{"type": "auth_failed", "reason": reason}]


def test_edge_refusals(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    hello = vectors["handshake"]["hello"]
    other = public_key_b64(Ed25519PrivateKey.generate())
    box = agent(vectors, agent_key, offer_key=other)
    assert failure(box, hello)[0]["reason"] == "Key does not match offer"
    box = agent(vectors, agent_key)
    assert failure(box, hello, hello)[0]["reason"] == "Unexpected second hello"
    box = agent(vectors, agent_key)
    short = {**hello, "nonce": b64url_encode(b"x" * 16)}
    assert failure(box, short)[0]["reason"] == "Invalid nonce"
    box = agent(vectors, agent_key)
    assert failure(box, "x" * (65 * 1024))[0]["reason"] == "Message too large"


def test_ping_answered_before_ready(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    box = agent(vectors, agent_key)
    assert box.receive({"type": "ping"}) == [{"type": "pong"}]
    assert box.state is AgentState.AWAIT_HELLO


def test_revoked_between_hello_and_response(vectors: dict[str, Any],
                                            agent_key: Ed25519PrivateKey) -> None:
    approved = {vectors["phone_pubKey"]}
    box = AgentHandshake(agent_key, is_approved=approved.__contains__,
                         nonce=vectors["handshake"]["challenge"]["nonce"])
    box.receive(vectors["handshake"]["hello"])
    approved.clear()
    assert box.receive(vectors["handshake"]["response"])[0]["reason"] == "Device not approved"


def test_no_input_after_failure(vectors: dict[str, Any], agent_key: Ed25519PrivateKey) -> None:
    box = agent(vectors, agent_key)
    failure(box, "garbage")
    with pytest.raises(LocalProtocolError):
        box.receive_text(json.dumps(vectors["handshake"]["hello"]))


def test_client_refuses_forged_challenge(vectors: dict[str, Any],
                                         phone_key: Ed25519PrivateKey) -> None:
    impostor = Ed25519PrivateKey.generate()
    phone = ClientHandshake(phone_key, vectors["agent_pubKey"], nonce=nonce())
    hello = phone.hello()
    forged_sig = sign(impostor, {"nonce": hello["nonce"]})
    forged = {"type": "challenge", "nonce": nonce(), "sig": forged_sig}
    with pytest.raises(AuthFailed, match="Invalid challenge signature"):
        phone.receive(forged)
    assert phone.state is ClientState.FAILED


def test_client_reports_auth_failed(vectors: dict[str, Any], phone_key: Ed25519PrivateKey) -> None:
    phone = ClientHandshake(phone_key, vectors["agent_pubKey"], nonce=nonce())
    phone.hello()
    with pytest.raises(AuthFailed, match="Device not approved"):
        phone.receive({"type": "auth_failed", "reason": "Device not approved"})


def test_agent_nonce_must_be_valid(agent_key: Ed25519PrivateKey) -> None:
    with pytest.raises(LocalProtocolError):
        AgentHandshake(agent_key, is_approved=lambda k: True, nonce="short")


def test_deep_nesting_is_invalid_json_not_a_crash(vectors: dict[str, Any],
                                                  agent_key: Ed25519PrivateKey) -> None:
    # found by the fuzz suite: json raises RecursionError, not ValueError, for this
    box = agent(vectors, agent_key)
    assert failure(box, "[" * 20_000 + "]" * 20_000) == [
        {"type": "auth_failed", "reason": "Invalid JSON"}
    ]
