"""The OpenAI-compatible engine provider against engines that misbehave (an aiohttp server on
loopback plays them), and the fallback to the box's own model. The real engine
(llama-cpp-python's server) is in ``tests/e2e/test_remote_engine.py``."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any

import pytest
from aiohttp import web

from nekoni_edge.llm.provider import ChatTurn, Usage
from nekoni_edge.llm.remote import (
    EngineError,
    FallbackProvider,
    OpenAIProvider,
    TokenEstimate,
    api_base,
    parse_sse_line,
)
from nekoni_edge.llm.scripted import ScriptedProvider

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
HI = [ChatTurn("user", "Hi")]


def event(content: str | None = None, finish: str | None = None, **extra: Any) -> bytes:
    delta = {"content": content} if content is not None else {}
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
    return f"data: {json.dumps(body)}\n\n".encode()


class Engine:
    """A fake engine: its chat handler is set per test; it records disconnects."""

    def __init__(self) -> None:
        self.chat: Handler = self.stream_words
        self.disconnected = asyncio.Event()
        self.models = ["tiny"]

    async def stream_words(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for word in ["Hello", " there", "."]:
            await response.write(event(word))
        await response.write(event(finish="stop",
                                   usage={"prompt_tokens": 20, "completion_tokens": 3}))
        await response.write(b"data: [DONE]\n\n")
        return response

    async def handle_chat(self, request: web.Request) -> web.StreamResponse:
        try:
            return await self.chat(request)
        except (ConnectionResetError, asyncio.CancelledError):
            self.disconnected.set()
            raise

    async def handle_models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list",
                                  "data": [{"id": m, "object": "model"} for m in self.models]})


@pytest.fixture
async def engine() -> AsyncIterator[tuple[Engine, str]]:
    fake = Engine()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", fake.handle_chat)
    app.router.add_get("/v1/models", fake.handle_models)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield fake, f"http://127.0.0.1:{port}"
    await runner.cleanup()


async def collect(provider: Any, usage: Usage | None = None, messages: Any = HI) -> str:
    async with aclosing(provider.stream_chat(messages, max_tokens=16, usage=usage)) as pieces:
        return "".join([p async for p in pieces])


async def refused(url: str, words: str, **options: Any) -> None:
    """A stream from the engine at ``url`` fails with an EngineError saying ``words``."""
    provider = OpenAIProvider(url, "tiny", **options)
    try:
        with pytest.raises(EngineError, match=words):
            await collect(provider)
    finally:
        await provider.aclose()


def test_sse_lines() -> None:
    assert parse_sse_line(b"\n") is None
    assert parse_sse_line(b": ping\n") is None  # a comment (servers send them to keep alive)
    assert parse_sse_line(b"event: x\n") is None
    assert parse_sse_line(b"data: [DONE]\n") == {"done": True}
    assert parse_sse_line(b'data: {"choices": []}\r\n') == {"choices": []}
    with pytest.raises(EngineError, match="malformed"):
        parse_sse_line(b"data: {oops\n")
    with pytest.raises(EngineError, match="malformed"):
        parse_sse_line(b"data: [1, 2]\n")
    with pytest.raises(EngineError, match="out of memory"):
        parse_sse_line(b'data: {"error": {"message": "out of memory"}}\n')


def test_api_base_and_token_estimate() -> None:
    assert api_base("http://h:8080") == "http://h:8080/v1"
    assert api_base("http://h:11434/v1/") == "http://h:11434/v1"
    tokens = TokenEstimate(4.0)
    assert tokens.count("") == 0
    assert tokens.count("abcdefgh") == 2
    for _ in range(20):
        tokens.learn(1000, 500)  # this engine's vocabulary: 2 characters per token
    assert tokens.count("abcdefgh") == 4


async def test_streams_and_reads_usage(engine: tuple[Engine, str]) -> None:
    fake, url = engine
    provider = OpenAIProvider(url, "tiny")
    usage = Usage()
    try:
        assert await collect(provider, usage) == "Hello there."
        assert (usage.prompt_tokens, usage.completion_tokens, usage.finish_reason) == (
            20, 3, "stop")
        assert await provider.count_tokens("a" * 36) > 0  # no round trip: an estimate
        assert await provider.check() == []
        fake.models = ["other"]
        assert "no model 'tiny'" in (await provider.check())[0]
    finally:
        await provider.aclose()


async def test_no_model_name_means_the_engines_only_model(engine: tuple[Engine, str]) -> None:
    fake, url = engine
    fake.models = ["a", "b"]
    provider = OpenAIProvider(url, "")
    try:
        [problem] = await provider.check()
        assert "serves 2 models (a, b): set model_name" in problem
        fake.models = ["tiny"]
        assert await provider.check() == []
        assert provider.model == "tiny"  # said in the log, and used from now on
        assert await collect(provider) == "Hello there."
    finally:
        await provider.aclose()


async def test_a_refused_connection_is_a_clear_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    provider = OpenAIProvider(f"http://127.0.0.1:{port}", "tiny")
    try:
        with pytest.raises(EngineError, match="unreachable"):
            await collect(provider)
        assert "unreachable" in (await provider.check())[0]
    finally:
        await provider.aclose()


@pytest.mark.parametrize(("name", "body", "words"), [
    ("http 500", None, "HTTP 500"),
    ("malformed", b"data: {not json\n\n", "malformed event"),
    ("truncated", event("Hel"), "ended before it was complete"),
    ("engine error", b'data: {"error": {"message": "KV cache full"}}\n\n', "KV cache full"),
])
async def test_a_bad_engine_is_a_clear_error(engine: tuple[Engine, str], name: str,
                                             body: bytes | None, words: str) -> None:
    fake, url = engine

    async def bad(request: web.Request) -> web.StreamResponse:
        if body is None:
            return web.Response(status=500, text="boom")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(body)
        return response  # and the stream ends there

    fake.chat = bad
    await refused(url, words)


async def test_an_engine_that_hangs_is_given_up_on(engine: tuple[Engine, str]) -> None:
    fake, url = engine

    async def hang(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(event("Hel"))
        await asyncio.sleep(3)
        return response

    fake.chat = hang
    await refused(url, "sent nothing for", timeout_s=0.5)


async def test_stopping_the_stream_closes_the_request(engine: tuple[Engine, str]) -> None:
    fake, url = engine

    async def endless(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        while True:
            await response.write(event("la "))
            await asyncio.sleep(0)  # paced by the socket: write waits while it is full

    fake.chat = endless
    provider = OpenAIProvider(url, "tiny")
    try:
        async with aclosing(provider.stream_chat(HI, max_tokens=10_000)) as pieces:
            async for _piece in pieces:
                break  # the user pressed stop
        async with asyncio.timeout(10):
            await fake.disconnected.wait()  # the engine saw the request go
    finally:
        await provider.aclose()


async def test_the_local_model_answers_while_the_engine_is_down(
        engine: tuple[Engine, str]) -> None:
    fake, url = engine
    changes: list[str | None] = []
    local = ScriptedProvider([["From", " the box."], ["Box", " again."]])
    fallback = FallbackProvider(OpenAIProvider(url, "tiny"), local, on_change=changes.append)
    try:
        assert await fallback.check() is None
        assert await collect(fallback) == "Hello there."  # the engine answers
        fake.chat = lambda request: _status(500)
        # fails before any piece: the box's model answers this very turn
        assert await collect(fallback) == "From the box."
        assert fallback.error is not None
        assert "fallback" in fallback.name
        fake.chat = fake.stream_words
        assert await collect(fallback) == "Box again."  # still down until checked
        assert await fallback.check() is None  # the health check brings it back
        assert await collect(fallback) == "Hello there."
        assert changes[0] is not None
        assert changes[-1] is None
    finally:
        await fallback.aclose()


async def test_a_failure_mid_answer_is_said_and_the_next_turn_is_local(
        engine: tuple[Engine, str]) -> None:
    fake, url = engine

    async def dies(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(event("Half an"))
        return response

    fake.chat = dies
    fallback = FallbackProvider(OpenAIProvider(url, "tiny"), ScriptedProvider([["Local."]]))
    try:
        with pytest.raises(EngineError, match="ended before"):
            await collect(fallback)  # part was sent: it cannot be hidden
        assert await collect(fallback) == "Local."
    finally:
        await fallback.aclose()


async def _status(code: int) -> web.Response:
    return web.Response(status=code, text="engine failure")
