"""Chat turns with a scripted model: the log, the rolling context, partial answers."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path

import pytest

from nekoni_edge.agent.answer import CUT_MARK
from nekoni_edge.agent.chat import ChatService
from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.provider import ChatTurn
from nekoni_edge.llm.scripted import ScriptedProvider
from nekoni_edge.store.database import Database


async def turn(chat: ChatService, session: str, text: str) -> str:
    async with aclosing(chat.reply(session, text)) as stream:
        return "".join([p async for p in stream])


async def test_log_and_rolling_context(tmp_path: Path) -> None:
    provider = ScriptedProvider([[f"answer {i}"] for i in range(25)])
    async with await Database.open(tmp_path / "db") as db:
        chat = ChatService(db, provider, system_prompt="SYS", context_messages=20,
                           n_ctx=4096, max_tokens=64)
        for i in range(25):
            assert await turn(chat, "s", f"question {i}") == f"answer {i}"
        moves = 0
        for before, after in zip(provider.prompts, provider.prompts[1:], strict=False):
            assert after[0] == ChatTurn("system", "SYS")  # pinned
            assert len(after) <= 21  # system + at most 20 messages
            assert after[-1].content.startswith("question")
            # the window moves rarely, by half of it: otherwise each prompt extends the last
            # (what llama.cpp can reuse)
            if after[: len(before)] != before:
                moves += 1
                assert len(after) <= 11
        assert moves == 3  # every ten messages once twenty are logged
        logged = await db.messages_after("s", 0, all_roles=True)
        assert len(logged) == 50


async def test_context_trimmed_to_token_budget(tmp_path: Path) -> None:
    provider = ScriptedProvider([["ok"]] * 3)
    async with await Database.open(tmp_path / "db") as db:
        chat = ChatService(db, provider, system_prompt="SYS", context_messages=20,
                           n_ctx=150, max_tokens=50)
        for _ in range(3):
            await turn(chat, "s", "word " * 30)
        # 150 - 50 - 1 leaves room for two 38-token turns, never less than the question
        assert len(provider.prompts[-1]) < 6
        assert provider.prompts[-1][-1].content.startswith("word")


async def test_partial_answer_logged_on_cancel(tmp_path: Path) -> None:
    provider = ScriptedProvider([["a", " b", " c", " d", " e"]], delay=0.05)
    async with await Database.open(tmp_path / "db") as db:
        chat = ChatService(db, provider, system_prompt="SYS", context_messages=20,
                           n_ctx=4096, max_tokens=64)

        first = asyncio.Event()

        async def consume() -> None:
            async with aclosing(chat.reply("s", "go")) as stream:
                async for _ in stream:
                    first.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first.wait(), 30)  # a piece reached the phone: cancel now
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        logged = await db.messages_after("s", 0, all_roles=True)
        assert [m.role for m in logged] == ["user", "assistant"]
        # what the phone was sent, marked as cut short (so the history says so too)
        assert logged[1].content.endswith(CUT_MARK)
        assert 0 < len(logged[1].content.removesuffix(CUT_MARK)) < 9


async def test_no_model(tmp_path: Path) -> None:
    async with await Database.open(tmp_path / "db") as db:
        chat = ChatService(db, None, system_prompt="SYS", context_messages=20, n_ctx=4096,
                           max_tokens=64, model_error="model file /x.gguf does not exist")
        with pytest.raises(ModelUnavailable, match="does not exist"):
            await turn(chat, "s", "hi")
        assert await db.messages_after("s", 0, all_roles=True) == []


async def test_scripted_provider_names_the_missing_step() -> None:
    provider = ScriptedProvider([])
    with pytest.raises(AssertionError, match="ran out of replies at prompt 1"):
        async for _ in provider.stream_chat([ChatTurn("user", "hi")], max_tokens=5):
            pass


async def test_guessable_sessions_cannot_be_squatted(tmp_path: Path) -> None:
    """Default ids name a key and keys are announced: writing first must not lock a phone out
    of its own conversation, nor make a skill's output one device's."""
    from nekoni_edge.errors import NotYourSession

    phone, squatter = "AbCdEfGh" + "x" * 35, "ZzZzZzZz" + "y" * 35
    provider = ScriptedProvider([["Random."], ["Hi there."], ["Hello."]])
    async with await Database.open(tmp_path / "db") as db:
        chat = ChatService(db, provider, system_prompt="SYS", context_messages=20,
                           n_ctx=4096, max_tokens=64)

        async def write(session: str, key: str | None) -> str:
            async with aclosing(chat.reply(session, "hi", device_key=key)) as stream:
                return "".join([p async for p in stream])

        await db.approve_device(phone, "phone")
        await db.approve_device(squatter, "squatter")
        with pytest.raises(NotYourSession, match="another device's key"):
            await write(f"phone-{phone[:8]}", squatter)
        # nekoni's web app's random ids name no key: anyone may start one
        assert await write("web-1a2b3c4d", squatter) == "Random."
        with pytest.raises(NotYourSession, match="household"):
            await write("skill:never-run", squatter)
        assert await write(f"phone-{phone[:8]}", phone) == "Hi there."  # its own, still
        assert await write("skill:never-run", None) == "Hello."  # the box's (a skill run)
        assert await chat.owner("skill:never-run") is None  # readable by the household
