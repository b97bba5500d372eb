"""Daemon + reference client over real aiortc on loopback, with the real llama.cpp model."""

from __future__ import annotations

import asyncio
import dataclasses
from contextlib import aclosing
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.daemon import Daemon
from nekoni_edge.protocol.canonical import public_key_b64
from tests.e2e.helpers import approved, until

pytestmark = pytest.mark.slow


async def test_question_gets_chunks_then_message_end(phone: PhoneClient) -> None:
    phone.send({"type": "message", "content": "What colour is the sky?", "sessionId": "s1"})
    received = await until(phone, ("message_end", "message", "error"))
    kinds = [m["type"] for m in received]
    assert kinds[-1] == "message_end"
    assert kinds.count("chunk") >= 1
    assert set(kinds[:-1]) == {"chunk"}
    assert "".join(m["content"] for m in received[:-1]).strip()


async def test_nekoni_typeless_chat_message(phone: PhoneClient) -> None:
    phone.send({"content": "Say hello.", "sessionId": "web"})
    received = await until(phone, ("message_end", "message", "error"))
    assert received[-1]["type"] == "message_end"


async def test_two_clients_at_once(daemon: Daemon) -> None:
    assert daemon.db is not None
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    for key in keys:
        await daemon.db.approve_device(public_key_b64(key))
    url = f"http://127.0.0.1:{daemon.port}"
    async with PhoneClient(keys[0], url) as a, PhoneClient(keys[1], url) as b:
        async def ask(client: PhoneClient, session: str, question: str) -> str:
            async with aclosing(client.ask(question, session)) as stream:
                return "".join([p async for p in stream])

        answer_a, answer_b = await asyncio.gather(
            ask(a, "session-a", "Name a fruit."), ask(b, "session-b", "Name an animal.")
        )
    assert answer_a.strip()
    assert answer_b.strip()
    for session, answer in (("session-a", answer_a), ("session-b", answer_b)):
        logged = [m for m in await daemon.db.messages_after(session, 0, all_roles=True)
                  if m.role != "tool"]  # the model may have called a tool first
        assert [m.role for m in logged] == ["user", "assistant"]
        assert logged[1].content == answer.strip()


async def test_sync_returns_both_messages_of_a_turn(phone: PhoneClient) -> None:
    async with aclosing(phone.ask("Say yes.", "sync-test")) as stream:
        answer = "".join([p async for p in stream])
    every = await phone.request(
        {"type": "sync", "sessionId": "sync-test", "afterTimestamp": 0, "all": True},
        "sync_response",
    )
    msgs = [m for m in every["messages"] if m["role"] != "tool"]
    assert [m["role"] for m in msgs] == ["user", "assistant"]
    assert msgs[0]["content"] == "Say yes."
    assert msgs[1]["content"] == answer.strip()
    assert msgs[0]["timestamp"] < msgs[1]["timestamp"]
    assert all(m["id"] == f"sync_{m['timestamp']}" for m in msgs)
    # nekoni's default: assistant messages only, and nothing after the last one
    default = await phone.request({"type": "sync", "sessionId": "sync-test",
                                   "afterTimestamp": 0}, "sync_response")
    assert [m["role"] for m in default["messages"]] == ["assistant"]
    later = await phone.request({"type": "sync", "sessionId": "sync-test",
                                 "afterTimestamp": msgs[1]["timestamp"]}, "sync_response")
    assert later["messages"] == []


LONG = "Count from 1 to 300, one number per line."


async def long_daemon(settings: Any, provider: Any) -> Daemon:
    box = Daemon(dataclasses.replace(settings, max_tokens=600), provider=provider)
    await box.start()
    return box


async def test_disconnect_mid_answer_frees_the_model(settings: Any, llama_provider: Any) -> None:
    box = await long_daemon(settings, llama_provider)
    try:
        assert box.db is not None
        keys = [Ed25519PrivateKey.generate() for _ in range(2)]
        for key in keys:
            await box.db.approve_device(public_key_b64(key))
        url = f"http://127.0.0.1:{box.port}"
        a = PhoneClient(keys[0], url)
        await a.connect()
        a.send({"type": "message", "content": LONG, "sessionId": "vanish"})
        first = await a.recv()
        assert first["type"] == "chunk"
        # (an answer the box's checks end early is a cancel too: count from here)
        cancelled = llama_provider.cancelled
        await a.close()  # the phone vanishes mid-answer
        async with PhoneClient(keys[1], url) as b:
            async with aclosing(b.ask("Say hi.", "next")) as stream:
                assert "".join([p async for p in stream]).strip()
        assert llama_provider.cancelled > cancelled
        assert llama_provider.queue_depth == 0
        assert box.peers is not None
        assert a.client_id not in box.peers.peers
        # what was streamed before the phone vanished is still in the log
        logged = await box.db.messages_after("vanish", 0, all_roles=True)
        assert [m.role for m in logged if m.role != "tool"] == ["user", "assistant"]
    finally:
        await box.stop()


async def test_cancel_stops_the_answer(settings: Any, llama_provider: Any) -> None:
    box = await long_daemon(settings, llama_provider)
    try:
        key = await approved(box)
        async with PhoneClient(key, f"http://127.0.0.1:{box.port}") as phone:
            phone.send({"type": "message", "content": LONG, "sessionId": "c"})
            assert (await phone.recv())["type"] == "chunk"
            phone.send({"type": "cancel", "sessionId": "c"})
            received = await until(phone, ("message_end",))
            assert received[-1] == {"type": "message_end", "cancelled": True}
            assert llama_provider.cancelled == 1
            # the channel goes on serving
            async with aclosing(phone.ask("Say hi.", "c")) as stream:
                assert "".join([p async for p in stream]).strip()
    finally:
        await box.stop()


async def test_info_endpoint(daemon: Daemon) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as http, \
            http.get(f"http://127.0.0.1:{daemon.port}/api/info") as resp:
        info = await resp.json()
    assert info["agentPubKey"] == daemon.pub_key
    assert info["roomId"] == daemon.room_id
    assert info["signalUrl"] == f"ws://127.0.0.1:{daemon.port}/signal"
    assert info["model"].endswith(".gguf")
    # a Host header is the sender's to choose: the URLs are the box's own address
    async with aiohttp.ClientSession() as http, \
            http.get(f"http://127.0.0.1:{daemon.port}/api/info",
                     headers={"Host": "evil.example:666"}) as resp:
        forged = await resp.json()
    assert forged["signalUrl"] == f"ws://127.0.0.1:{daemon.port}/signal"
    assert forged["agentUrl"] == f"http://127.0.0.1:{daemon.port}"


async def test_the_pairing_code_is_drawn_once(daemon: Daemon,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``/api/pair/qr`` is unauthenticated: a loop of requests must not redraw it each time."""
    import aiohttp

    from nekoni_edge import qr

    drawn: list[str] = []
    draw = qr.svg

    def counted(text: str, **kw: Any) -> str:
        drawn.append(text)
        return draw(text, **kw)

    monkeypatch.setattr(qr, "svg", counted)
    async with aiohttp.ClientSession() as http:
        bodies = []
        for _ in range(20):
            async with http.get(f"http://127.0.0.1:{daemon.port}/api/pair/qr?app=web") as resp:
                assert resp.status == 200
                bodies.append(await resp.text())
    assert len(set(bodies)) == 1
    assert len(drawn) == 1
