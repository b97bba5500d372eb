"""Hypothesis against the DataChannel session and the signaling endpoint: random JSON, wrong
types, huge strings, deep nesting, unicode. Never an exception out; before ``ready`` never a
reply but ``auth_failed`` (or ``pong``)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nekoni_edge.agent.chat import ChatService
from nekoni_edge.app import Box
from nekoni_edge.client.phone import new_nonce
from nekoni_edge.errors import SignalingError
from nekoni_edge.llm.scripted import ScriptedProvider
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.protocol.handshake import AgentHandshake, ClientHandshake
from nekoni_edge.store.database import Database
from nekoni_edge.transport.session import ChannelSession

pytestmark = pytest.mark.slow

TYPES = ["hello", "response", "message", "ping", "sync", "cancel", "rag_upload_start",
         "rag_upload_chunk", "rag_list", "rag_delete", "skill_create", "skill_run", "cron_create",
         "device_list", "device_remove", "trace_subscribe", "approval_decision", "ice", "offer",
         "join", None, 5, ""]
FIELDS = ["type", "content", "sessionId", "pubKey", "nonce", "sig", "afterTimestamp", "all",
          "uploadId", "index", "totalChunks", "filename", "docId", "skillId", "cronExpression",
          "mobilePubKey", "approvalId", "approved", "roomId", "clientId", "ts", "sdp", "to"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) |
    st.text(max_size=50) | st.sampled_from(["", "x" * 70_000, "\u202e\u0000é😺"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=5),
    max_leaves=20,
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={f: json_values for f in FIELDS if f != "type"},
)
raw = st.one_of(
    messages.map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=200),
    st.binary(max_size=200),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    # escape-heavy text: what made the old string-cutting regex quadratic
    st.lists(st.sampled_from(['\\"', "\\\\", '"', "[", "{", "]", "}", ":", ",", "a"]),
             max_size=400).map("".join),
    st.integers(0, 4000).map(lambda n: "[" * 33 + '"' + '\\"' * n),
)


class Wire:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


async def no_revoke(pub_key: str) -> int:
    return 0


async def run_session(inputs: list[str | bytes], authenticate: bool) -> list[dict[str, Any]]:
    agent_key, phone_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    with tempfile.TemporaryDirectory() as tmp:
        async with await Database.open(Path(tmp) / "db") as db:
            chat = ChatService(db, ScriptedProvider([["ok"]] * 50), system_prompt="S",
                               context_messages=20, n_ctx=4096, max_tokens=8)
            wire = Wire()
            session = ChannelSession(
                label="fuzz", box=Box(db, chat, no_revoke), send=wire.send, close=lambda: None,
                handshake=AgentHandshake(agent_key, is_approved=lambda k: True,
                                         nonce=new_nonce(),
                                         offer_pub_key=public_key_b64(phone_key)),
            )
            session.on_open()
            if authenticate:
                phone = ClientHandshake(phone_key, public_key_b64(agent_key), nonce=new_nonce())
                session.on_message(json.dumps(phone.hello()))
                for reply in phone.receive(wire.sent.pop()):
                    session.on_message(json.dumps(reply))
                assert wire.sent.pop() == {"type": "ready"}
            for data in inputs:
                session.on_message(data)  # must never raise
            # let spawned work (sync, rag, skills) answer: wait for it, not for a guessed time
            spawned = [*session._tasks, *(t for q in session.generations.values() for t in q)]
            if spawned:
                await asyncio.wait(spawned, timeout=30)
            session.shutdown()
            await asyncio.sleep(0)
            return wire.sent


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(raw, min_size=1, max_size=4))
def test_before_ready_only_auth_failed(inputs: list[str | bytes]) -> None:
    sent = asyncio.run(run_session(inputs, authenticate=False))
    for reply in sent:
        assert reply["type"] in ("auth_failed", "pong", "challenge"), reply
        if reply["type"] == "challenge":  # a well-formed hello may come out of the generator
            assert set(reply) == {"type", "nonce", "sig"}
    failures = [r for r in sent if r["type"] == "auth_failed"]
    assert len(failures) <= 1  # then the channel is closed: nothing more


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(raw, min_size=1, max_size=4))
def test_after_ready_errors_not_exceptions(inputs: list[str | bytes]) -> None:
    sent = asyncio.run(run_session(inputs, authenticate=True))
    for reply in sent:
        assert isinstance(reply.get("type"), str)
        if reply["type"] == "error":
            assert reply["code"] != "INTERNAL_ERROR", reply


class FakeWs:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_json(self, data: dict[str, Any]) -> None:
        self.sent.append(data)


@settings(max_examples=200, deadline=None)
@given(raw.filter(lambda r: isinstance(r, str)))
def test_signaling_refuses_cleanly(text: str) -> None:
    from nekoni_edge.transport.peers import PeerManager
    from nekoni_edge.transport.signaling_server import SignalingEndpoint

    async def go() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            async with await Database.open(Path(tmp) / "db") as db:
                key = Ed25519PrivateKey.generate()
                chat = ChatService(db, None, system_prompt="S", context_messages=1, n_ctx=64,
                                   max_tokens=8)
                endpoint = SignalingEndpoint(key, "agent-1", "room-1", db,
                                             PeerManager(key, Box(db, chat, no_revoke)))
                code = None
                try:
                    await endpoint._on_text(FakeWs(), text, None, "127.0.0.1")  # type: ignore[arg-type]
                except SignalingError as exc:  # anything else escapes and fails the test
                    code = exc.code
                assert code != "INTERNAL_ERROR"

    asyncio.run(go())
