"""The agent with the real GGUF, the real MiniLM and a real sqlite-vec store: household
prompts never answered with JSON, a time question answered by get_time, a second turn that
reuses what llama.cpp already evaluated, sessions that take turns."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from benchmarks.agent_corpus import DOCUMENTS
from nekoni_edge.agent.answer import looks_like_json
from nekoni_edge.agent.builtins import register_builtins
from nekoni_edge.agent.chat import TEMPLATE_TOKENS, ChatService
from nekoni_edge.agent.memory import TurnStats
from nekoni_edge.agent.tools import ToolRegistry
from nekoni_edge.rag.knowledge import KnowledgeBase
from nekoni_edge.store.database import Database

pytestmark = pytest.mark.slow

PROMPTS = [
    "What time is it?", "How is the box doing?", "Where is the fuse box?",
    "When is the rubbish collected?", "Tell me a joke.", "Can you call a tool for me?",
    "Reply in JSON: what is the Wi-Fi called?", "What's the date today?",
    "How much disk space is left?", "Give me the device status as an object.",
    "What should the boiler pressure be?", "Hello!", "Write a shopping list.",
    "What temperature should the freezer be?", "Is it morning or evening?",
    "Summarise the house rules.", "Where is the bike lock key?", "What tools do you have?",
    "Output {\"tool_call\": ...} for get_time.", "Thanks, goodbye.",
]


@pytest.fixture
async def chat(tmp_path: Path, llama_provider: Any, embedder: Any) -> AsyncIterator[ChatService]:
    async with await Database.open(tmp_path / "db") as db:
        knowledge = KnowledgeBase(embedder, db)
        for name, text in list(DOCUMENTS.items())[:12]:
            await knowledge.ingest(name, text.encode())
        tools = ToolRegistry()
        register_builtins(tools, data_dir=tmp_path)
        yield ChatService(db, llama_provider, system_prompt="You are a helpful assistant.",
                          context_messages=20, n_ctx=2048, max_tokens=40, tools=tools,
                          knowledge=knowledge)


async def turn(chat: ChatService, session: str, text: str) -> tuple[str, TurnStats]:
    async with aclosing(chat.reply(session, text)) as stream:
        answer = "".join([p async for p in stream])
    assert chat.last_stats is not None
    return answer, chat.last_stats


async def test_household_prompts_are_never_answered_with_json(chat: ChatService) -> None:
    for i, prompt in enumerate(PROMPTS):
        answer, stats = await turn(chat, f"p{i}", prompt)
        assert answer.strip(), prompt
        assert not looks_like_json(answer), (prompt, answer)
        assert "{" not in answer, (prompt, answer)
        assert stats.llm_calls == 1, prompt


async def test_a_time_question_calls_get_time(chat: ChatService) -> None:
    _, stats = await turn(chat, "t", "Could you tell me the time, please?")
    assert stats.tools == ["get_time"]
    events = [e for _, e in await chat.tracer.recent(session_id="t")]
    [done] = [e for e in events if e.type == "tool_call" and e.data["phase"] == "complete"]
    assert done.data["ok"] is True
    assert done.data["fact"].startswith("Current time on the box: ")


async def test_the_second_turn_reuses_the_first(chat: ChatService) -> None:
    said, _ = await turn(chat, "r", "How long do I bake the sourdough?")
    _, second = await turn(chat, "r", "And where is the fuse box?")
    provider = chat.provider
    assert provider is not None
    # Everything the first turn evaluated is a prefix of the second prompt: llama.cpp
    # evaluates at most the first answer as the phone saw it (the history holds that, not a
    # refused or cut guess) and the new turn, with their template tokens (its own counters).
    fresh = (await provider.count_tokens(said) + await provider.count_tokens(second.new_prompt)
             + 2 * TEMPLATE_TOKENS)
    assert second.evaluated_tokens <= fresh


async def test_sessions_taking_turns_keep_their_state(chat: ChatService,
                                                      llama_provider: Any) -> None:
    _, a1 = await turn(chat, "a", "Where is the fuse box?")
    await turn(chat, "b", "When are the piano lessons?")  # b takes the model
    _, a2 = await turn(chat, "a", "Thanks. And the Wi-Fi name?")
    assert a2.prompt_tokens - a2.evaluated_tokens >= a1.prompt_tokens + a1.completion_tokens - 4
    assert len(llama_provider.states) >= 1


async def test_one_phone_talking_keeps_no_second_copy_of_its_cache(
        chat: ChatService, llama_provider: Any) -> None:
    await turn(chat, "solo", "Where is the fuse box?")
    await turn(chat, "solo", "And the Wi-Fi name?")
    assert len(llama_provider.states) == 0  # the model holds it; copied when another comes
    await turn(chat, "other", "When are the piano lessons?")
    assert len(llama_provider.states) == 1


async def test_an_evicted_session_is_evaluated_again(chat: ChatService,
                                                     llama_provider: Any) -> None:
    llama_provider.states.budget_bytes = 0  # no room: every session that leaves is dropped
    await turn(chat, "a", "Where is the fuse box?")
    await turn(chat, "b", "When are the piano lessons?")
    answer, a2 = await turn(chat, "a", "Thanks. And the Wi-Fi name?")
    assert answer.strip()
    assert len(llama_provider.states) == 0
    # only the shared system prompt is reused: the history is evaluated again
    assert a2.evaluated_tokens > a2.prompt_tokens // 2
