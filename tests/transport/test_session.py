"""The DataChannel session fed directly (no WebRTC): auth gate, timeout, router."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.agent.answer import NO_ANSWER
from nekoni_edge.agent.chat import ChatService
from nekoni_edge.app import Box
from nekoni_edge.client.phone import new_nonce
from nekoni_edge.llm.scripted import ScriptedProvider
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.protocol.handshake import AgentHandshake, ClientHandshake
from nekoni_edge.store.database import Database
from nekoni_edge.transport.session import ChannelSession


class Wire:
    """Collects what the session sends and whether it closed the channel."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = False
        self.changed = asyncio.Event()  # set by each send and close

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))
        self.changed.set()

    def close(self) -> None:
        self.closed = True
        self.changed.set()


async def no_revoke(pub_key: str) -> int:
    return 0


async def make(tmp_path: Path, replies: list[list[str]], *, hello_timeout: float = 10.0) -> Any:
    agent_key, phone_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    db = await Database.open(tmp_path / "db")
    chat = ChatService(db, ScriptedProvider(replies), system_prompt="S", context_messages=20,
                       n_ctx=4096, max_tokens=32)
    wire = Wire()
    session = ChannelSession(
        label="test",
        handshake=AgentHandshake(agent_key, is_approved=lambda k: k == public_key_b64(phone_key),
                                 nonce=new_nonce(), offer_pub_key=public_key_b64(phone_key)),
        box=Box(db, chat, no_revoke), send=wire.send, close=wire.close,
        hello_timeout=hello_timeout,
    )
    session.on_open()
    phone = ClientHandshake(phone_key, public_key_b64(agent_key), nonce=new_nonce())
    return db, session, wire, phone


async def authenticate(session: ChannelSession, wire: Wire, phone: ClientHandshake) -> None:
    session.on_message(json.dumps(phone.hello()))
    for reply in phone.receive(wire.sent.pop()):
        session.on_message(json.dumps(reply))
    phone.receive(wire.sent.pop())
    assert session.ready


async def first_reply(wire: Wire, done: Any = None, deadline_s: float = 30.0) -> None:
    """Wait until the session's spawned work has answered (and ``done(wire)`` holds): a
    condition, never a guess at how long it takes (a loaded machine takes longer)."""
    async with asyncio.timeout(deadline_s):
        while not (wire.sent and (done is None or done(wire))):
            wire.changed.clear()
            await wire.changed.wait()


async def test_handshake_timeout(tmp_path: Path) -> None:
    db, session, wire, _ = await make(tmp_path, [], hello_timeout=0.05)
    try:
        await first_reply(wire, lambda w: w.closed)  # the timer fires: nothing else does
        assert wire.sent == [{"type": "auth_failed", "reason": "Handshake timed out"}]
        assert wire.closed
        session.on_message('{"type":"hello"}')  # ignored after failure
        assert len(wire.sent) == 1
    finally:
        await db.close()


async def test_chat_streams_and_logs(tmp_path: Path) -> None:
    db, session, wire, phone = await make(tmp_path, [["Hello", " there", "."]])
    try:
        await authenticate(session, wire, phone)
        session.on_message('{"type":"message","content":"hi","sessionId":"s"}')
        await first_reply(wire, lambda w: w.sent[-1]["type"] == "message_end")
        assert wire.sent == [
            # the opening is held for a few words (not the prompt read back?), then goes whole
            {"type": "chunk", "content": "Hello there."},
            {"type": "message_end"},
        ]
        logged = await db.messages_after("s", 0, all_roles=True)
        assert [(m.role, m.content) for m in logged] == [("user", "hi"),
                                                         ("assistant", "Hello there.")]
    finally:
        session.shutdown()
        await db.close()


async def test_an_empty_answer_says_so_in_words(tmp_path: Path) -> None:
    db, session, wire, phone = await make(tmp_path, [[]])
    try:
        await authenticate(session, wire, phone)
        session.on_message('{"content":"hi"}')
        await first_reply(wire, lambda w: w.sent[-1]["type"] == "message_end")
        assert wire.sent == [{"type": "chunk", "content": NO_ANSWER}, {"type": "message_end"}]
    finally:
        await db.close()


async def test_model_unavailable_is_an_error_reply(tmp_path: Path) -> None:
    db, session, wire, phone = await make(tmp_path, [])
    session.box.chat = ChatService(db, None, system_prompt="S", context_messages=20, n_ctx=4096,
                                max_tokens=32, model_error="model file /m.gguf does not exist")
    try:
        await authenticate(session, wire, phone)
        session.on_message('{"content":"hi"}')
        await first_reply(wire, lambda w: len(w.sent) >= 2)
        assert wire.sent[0]["code"] == "MODEL_UNAVAILABLE"
        assert "does not exist" in wire.sent[0]["message"]
        # nekoni's apps have no handler for ``error``: the reason comes as a message too
        assert wire.sent[1]["type"] == "message"
        assert wire.sent[1]["content"].startswith("Sorry, I can't answer right now: the box's "
                                                  "language model is not working")
        assert "/" not in wire.sent[1]["content"]  # no path: that is the log's and detail's
        assert "does not exist" in wire.sent[1]["detail"]
    finally:
        await db.close()
