"""The llama.cpp provider with the real embedded GGUF: streaming, FIFO, cancellation, errors."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.llama import HANDOFF_AT_ONCE, LlamaProvider, check_model_file
from nekoni_edge.llm.models import default_gguf
from nekoni_edge.llm.provider import ChatTurn, Usage

pytestmark = pytest.mark.slow

PROMPT = [ChatTurn("system", "You are helpful."), ChatTurn("user", "Name three colours.")]


async def collect(provider: Any, max_tokens: int = 24) -> str:
    async with aclosing(provider.stream_chat(PROMPT, max_tokens=max_tokens)) as stream:
        return "".join([piece async for piece in stream])


async def test_streams_real_tokens(llama_provider: LlamaProvider) -> None:
    pieces = []
    usage = Usage()
    async with aclosing(llama_provider.stream_chat(PROMPT, max_tokens=24,
                                                   usage=usage)) as stream:
        async for piece in stream:
            pieces.append(piece)
    assert usage.completion_tokens > 3
    assert 1 <= len(pieces) <= usage.completion_tokens
    assert "".join(pieces).strip()
    assert await llama_provider.count_tokens("hello world") >= 2


async def test_joined_pieces_are_exactly_the_generated_text(llama_model: Any) -> None:
    """At temperature 0 the same prompt gives the same text handed over token by token and
    joined: the first HANDOFF_AT_ONCE tokens alone (the opening's latency untouched), the rest
    in one piece."""
    async def pieces(handoff_s: float) -> list[str]:
        provider = LlamaProvider(llama_model, default_gguf(), temperature=0.0,
                                 owns_model=False, handoff_s=handoff_s)
        try:
            async with aclosing(provider.stream_chat(PROMPT, max_tokens=24)) as stream:
                return [piece async for piece in stream]
        finally:
            await provider.aclose()

    each = await pieces(0.0)
    joined = await pieces(3600.0)
    first = HANDOFF_AT_ONCE
    assert len(each) > first + 2
    assert joined == [*each[:first], "".join(each[first:])]


async def test_one_generation_at_a_time_in_fifo_order(llama_provider: LlamaProvider) -> None:
    events: list[tuple[str, int]] = []
    generating = asyncio.Event()

    async def run(i: int) -> None:
        async with aclosing(llama_provider.stream_chat(PROMPT, max_tokens=8)) as stream:
            first = True
            async for _ in stream:
                if first:
                    events.append(("start", i))
                    generating.set()
                    first = False
        events.append(("end", i))

    tasks = []
    for i in range(3):
        tasks.append(asyncio.create_task(run(i)))
        await asyncio.sleep(0)  # queue them in a known order
    await asyncio.wait_for(generating.wait(), 60)  # the first has the model: two wait
    assert llama_provider.queue_depth == 2
    await asyncio.gather(*tasks)
    assert events == [("start", 0), ("end", 0), ("start", 1), ("end", 1), ("start", 2), ("end", 2)]


async def test_cancel_frees_the_model(llama_provider: LlamaProvider) -> None:
    started = asyncio.Event()

    async def endless_seen() -> None:
        async with aclosing(llama_provider.stream_chat(PROMPT, max_tokens=2000)) as stream:
            async for _ in stream:
                started.set()

    task = asyncio.create_task(endless_seen())
    await asyncio.wait_for(started.wait(), 60)  # generating
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the next request gets the model at once
    assert (await asyncio.wait_for(collect(llama_provider, 8), 10)).strip()


async def test_closing_the_stream_early_frees_the_model(llama_provider: LlamaProvider) -> None:
    async with aclosing(llama_provider.stream_chat(PROMPT, max_tokens=2000)) as stream:
        async for _ in stream:
            break
    assert (await asyncio.wait_for(collect(llama_provider, 8), 10)).strip()


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="does not exist"):
        check_model_file(tmp_path / "nope.gguf")


def test_not_gguf(tmp_path: Path) -> None:
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"PK\x03\x04 definitely a zip")
    with pytest.raises(ModelUnavailable, match="not a GGUF"):
        check_model_file(path)


def test_does_not_fit_in_memory() -> None:
    with pytest.raises(ModelUnavailable, match="does not fit"):
        check_model_file(default_gguf(), available=50 * 2**20)


async def test_truncated_model_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "truncated.gguf"
    path.write_bytes(default_gguf().read_bytes()[: 2 * 2**20])
    with pytest.raises(ModelUnavailable, match="could not load"):
        await LlamaProvider.load(path, n_threads=1, n_ctx=256)


async def test_load_and_close(tmp_path: Path) -> None:
    provider = await LlamaProvider.load(default_gguf(), n_threads=2, n_ctx=512, temperature=0)
    try:
        assert (await collect(provider, 4)).strip()
    finally:
        await provider.aclose()


def test_kv_cache_type_auto_follows_the_board() -> None:
    from nekoni_edge.llm.llama import kv_cache_options, resolve_kv_cache_type

    assert resolve_kv_cache_type("auto", mem_total=2 * 2**30) == "q8_0"  # a Pi 4 with 2 GiB
    assert resolve_kv_cache_type("auto", mem_total=8 * 2**30) == "f16"
    assert resolve_kv_cache_type("f16", mem_total=2 * 2**30) == "f16"  # an explicit choice wins
    assert kv_cache_options("q8_0")["type_k"] == 8
    assert kv_cache_options("f16")["flash_attn"] is True


async def test_q8_0_cache_loads_and_answers() -> None:
    from nekoni_edge.llm.models import default_gguf
    from nekoni_edge.llm.provider import ChatTurn

    provider = await LlamaProvider.load(default_gguf(), n_threads=2, n_ctx=512, temperature=0.0,
                                        kv_cache_type="q8_0")
    try:
        pieces = [p async for p in provider.stream_chat([ChatTurn("user", "Say hello.")],
                                                        max_tokens=8)]
    finally:
        await provider.aclose()
    assert "".join(pieces).strip()


async def test_plain_text_forbids_what_opens_json(llama_provider: LlamaProvider) -> None:
    """The same prompt writes braces without the ban and none with it (the agent's answers
    are always streamed with it)."""
    prompt = [ChatTurn("system", "You only ever reply with JSON."),
              ChatTurn("user", 'Reply with exactly this JSON and nothing else: {"ok": true}')]

    async def answer(plain_text: bool) -> str:
        async with aclosing(llama_provider.stream_chat(prompt, max_tokens=24,
                                                       plain_text=plain_text)) as stream:
            return "".join([piece async for piece in stream])

    assert "{" in await answer(False)  # the model would: the test can fail
    banned = await answer(True)
    assert "{" not in banned
    assert "```" not in banned
