"""The agent's turn with a scripted model and a word-bag embedder: routing, tools as plain
facts, approvals, the JSON guard, clean endings, token accounting and traces."""

from __future__ import annotations

import datetime as dt
import json
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.agent import answer
from nekoni_edge.agent.builtins import register_builtins
from nekoni_edge.agent.chat import ChatService
from nekoni_edge.agent.tools import Tool, ToolRegistry
from nekoni_edge.llm.scripted import ScriptedProvider
from nekoni_edge.store.database import Database
from nekoni_edge.tracer import Tracer
from tests.agent.fakes import WordEmbedder


@pytest.fixture
async def db(tmp_path: Path) -> Any:
    async with await Database.open(tmp_path / "db") as database:
        yield database


def service(db: Database, steps: list[Any], tools: ToolRegistry | None = None,
            ring: int = 1000, max_tokens: int = 64) -> tuple[ChatService, ScriptedProvider]:
    provider = ScriptedProvider(steps)
    if tools is None:
        tools = ToolRegistry()
        register_builtins(tools, data_dir=Path("."))
    return ChatService(db, provider, system_prompt="SYS", context_messages=20, n_ctx=4096,
                       max_tokens=max_tokens, tools=tools, embed=WordEmbedder().embed,
                       tracer=Tracer(db, ring)), provider


async def turn(chat: ChatService, text: str, session: str = "s", **kw: Any) -> str:
    async with aclosing(chat.reply(session, text, **kw)) as stream:
        return "".join([p async for p in stream])


def last_question(provider: ScriptedProvider) -> str:
    return provider.prompts[-1][-1].content


async def test_time_request_runs_get_time_and_the_model_reads_a_fact(db: Database) -> None:
    chat, provider = service(db, [["It is ", "noon."]])
    reply = await turn(chat, "What time is it?")
    # the answer missed the time: the fact itself is the answer, not a guess plus a correction
    assert reply.startswith("Current time on the box: ")
    assert "noon" not in reply
    assert len(provider.prompts) == 1  # no decision call: one model call in the turn
    prompt = provider.prompts[0]
    assert [t.role for t in prompt] == ["system", "user"]
    assert prompt[0].content == "SYS"  # static: tools are not described to the model
    question = prompt[-1].content
    assert question.startswith("Current time on the box: ")
    assert question.endswith("Question: What time is it?\n" + answer.ANSWER_INSTRUCTION)
    assert "{" not in question
    assert provider.plain_text == [True]
    assert chat.last_stats is not None
    assert chat.last_stats.tools == ["get_time"]
    assert chat.last_stats.llm_calls == 1


async def test_an_answer_with_the_time_needs_no_fact_under_it(db: Database) -> None:
    now = dt.datetime.now().astimezone().strftime("%H:%M")
    chat, _ = service(db, [["It ", f"is {now}."]])
    reply = await turn(chat, "What time is it?")
    assert reply == f"It is {now}." or dt.datetime.now().astimezone().strftime("%H:%M") != now


async def test_a_city_names_the_timezone(db: Database) -> None:
    chat, provider = service(db, [["ok"]])
    await turn(chat, "What time is it in Tokyo?")
    assert "Current time in Asia/Tokyo: " in last_question(provider)


async def test_chit_chat_runs_no_tool(db: Database) -> None:
    chat, provider = service(db, [["Why did the cat sit on the box?"]])
    await turn(chat, "Tell me a joke about cats")
    assert last_question(provider) == "Tell me a joke about cats"
    assert chat.last_stats is not None
    assert chat.last_stats.tools == []


async def test_device_status_is_described_in_words(db: Database) -> None:
    chat, provider = service(db, [["Fine."], ["Plenty."]])
    await turn(chat, "How is the box doing?")
    question = last_question(provider)
    assert question.startswith("Box status: ")
    for part in ("MiB memory free", "GiB disk free", "running for", "load average"):
        assert part in question
    await turn(chat, "How much memory does the box have free?", session="m")
    question = last_question(provider)
    # only what was asked: a shorter fact is read faster and repeated more faithfully
    assert question.startswith("Box status: ")
    assert "MiB memory free" in question
    assert "disk" not in question.split("Question:")[0]


def door(runs: list[dict[str, Any]], **kw: Any) -> ToolRegistry:
    async def unlock(args: dict[str, Any]) -> str:
        runs.append(args)
        return "the door is unlocked"

    tools = ToolRegistry()
    tools.register(Tool("unlock_door", "Unlocks the front door.",
                        {"type": "object", "properties": {}, "additionalProperties": False},
                        unlock, examples=("open the door",), **kw))
    return tools


@pytest.mark.parametrize(("decision", "ran"), [(True, True), (False, False), (None, False)])
async def test_approval(db: Database, decision: bool | None, ran: bool) -> None:
    runs: list[dict[str, Any]] = []
    asked: list[str] = []

    async def approve(tool: str, args: dict[str, Any]) -> bool:
        asked.append(tool)
        return bool(decision)

    chat, provider = service(db, [["ok"]], door(runs, requires_approval=True))
    await turn(chat, "open the door", approve=approve if decision is not None else None)
    assert asked == ([] if decision is None else ["unlock_door"])
    assert runs == ([{}] if ran else [])  # ran exactly once, or never
    fact = last_question(provider)
    if ran:
        assert fact.startswith("Result of unlock_door: the door is unlocked")
    else:
        assert fact.startswith("unlock_door could not run: the owner did not approve")


async def test_a_tool_that_raises_is_a_fact_not_a_crash(db: Database) -> None:
    async def explode(args: dict[str, Any]) -> Any:
        raise RuntimeError("sensor on fire")

    tools = ToolRegistry()
    tools.register(Tool("thermometer", "Reads the temperature sensor.", {"type": "object"},
                        explode, examples=("temperature in the room",)))
    chat, provider = service(db, [["It broke."]], tools)
    assert await turn(chat, "temperature in the room") == "It broke."
    assert last_question(provider).startswith(
        "thermometer failed: RuntimeError: sensor on fire.")


async def test_required_arguments_come_from_one_short_constrained_call(db: Database) -> None:
    seen: list[dict[str, Any]] = []

    async def lights(args: dict[str, Any]) -> str:
        seen.append(args)
        return f"the {args['room']} light is on"

    tools = ToolRegistry()
    tools.register(Tool("lights_on", "Switches a room's light on.",
                        {"type": "object", "properties": {"room": {"type": "string"}},
                         "required": ["room"], "additionalProperties": False},
                        lights, examples=("turn on the light",)))
    chat, provider = service(db, [{"room": "kitchen"}, ["Done."]], tools)
    await turn(chat, "turn on the light in the kitchen")
    assert seen == [{"room": "kitchen"}]
    assert provider.schemas == [tools.get("lights_on").parameters]  # type: ignore[union-attr]
    assert chat.last_stats is not None
    assert chat.last_stats.llm_calls == 2


async def test_unparseable_arguments_are_a_fact(db: Database) -> None:
    tools = ToolRegistry()

    async def never(args: dict[str, Any]) -> str:
        raise AssertionError("must not run")

    tools.register(Tool("lights_on", "Switches a room's light on.",
                        {"type": "object", "properties": {"room": {"type": "string"}},
                         "required": ["room"]}, never, examples=("turn on the light",)))
    chat, provider = service(db, ["not json", ["Sorry."]], tools)
    await turn(chat, "turn on the light")
    assert "no arguments could be read for lights_on" in last_question(provider)


TOOL_JSON = ['{"tool_call": ', '{"name": "device_status", "arguments": {}}}']


async def test_a_json_answer_is_never_sent_and_is_tried_once_more(db: Database) -> None:
    chat, provider = service(db, [TOOL_JSON, ["The box ", "is fine."]])
    assert await turn(chat, "hello there") == "The box is fine."
    assert len(provider.prompts) == 2
    events = [e for _, e in await chat.tracer.recent(session_id="s")]
    refused = [e for e in events if e.type == "llm_call" and e.data.get("refused")]
    assert len(refused) == 1


async def test_json_twice_says_plainly_it_could_not_answer(db: Database) -> None:
    chat, _ = service(db, [TOOL_JSON, ['[{"a": 1}]']])
    assert await turn(chat, "hello there") == answer.NO_ANSWER
    [_, reply] = await db.messages_after("s", 0, all_roles=True)
    assert reply.content == answer.NO_ANSWER  # the log says what the phone saw


async def test_an_answer_cut_by_max_tokens_ends_cleanly(db: Database) -> None:
    chat, _ = service(db, [["The boiler ", "needs ", "servicing ", "every ", "autu", "mn"]],
                      max_tokens=5)
    assert await turn(chat, "hello there") == "The boiler needs servicing every…"
    chat, _ = service(db, [["Done. ", "And ", "then ", "more ", "words"]], max_tokens=2)
    # what was sent stays sent: the cut is marked, never left mid-word
    assert await turn(chat, "hello there", session="t") == "Done. And…"


async def test_history_is_what_the_model_saw(db: Database) -> None:
    chat, provider = service(db, [["It is noon."], ["You are welcome."]])
    await turn(chat, "What time is it?")
    first = provider.prompts[0]
    await turn(chat, "thanks a lot")
    second = provider.prompts[1]
    # the whole first prompt and the model's answer are a prefix of the second
    assert second[: len(first)] == first
    # the phone was told the fact, not the model's wrong guess, and so is the model
    assert second[len(first)].content.startswith("Current time on the box: ")
    assert second[-1].content == "thanks a lot"
    # while the log keeps the user's own words
    logged = await db.messages_after("s", 0, all_roles=True)
    assert [m.content for m in logged][::2] == ["What time is it?", "thanks a lot"]
    assert logged[1].content == second[len(first)].content


async def test_tokens_are_counted_per_turn(db: Database) -> None:
    chat, _ = service(db, [["one ", "two ", "three"]])
    await turn(chat, "how is the box doing")
    stats = chat.last_stats
    assert stats is not None
    assert stats.llm_calls == 1
    assert stats.completion_tokens == 3
    assert 0 < stats.evaluated_tokens <= stats.prompt_tokens
    [row] = await db.execute_sql("SELECT llm_calls, prompt_tokens, completion_tokens FROM turns")
    assert tuple(row) == (1, stats.prompt_tokens, stats.completion_tokens)


async def test_trace_of_one_turn(db: Database) -> None:
    chat, _ = service(db, [["It is late."]])
    live: list[Any] = []
    chat.tracer.subscribe(live.append)
    await turn(chat, "What time is it?")
    events = [e for _, e in await chat.tracer.recent(session_id="s")]
    assert [e.id for e in live] == [e.id for e in events]  # streamed as stored, in order
    kinds = [(e.type, e.data.get("phase"), e.data.get("kind")) for e in events]
    assert kinds == [
        ("message", None, None), ("route", None, None),
        ("tool_call", "start", None), ("tool_call", "complete", None),
        ("llm_call", "start", "answer"), ("llm_call", "complete", "answer"),
        ("rag_query", None, None),  # the model missed the time: the fact was told instead
        ("message", None, None),
    ]
    route = events[1].data
    assert route["chosen"] == ["get_time"]
    assert route["scores"]["get_time"] >= route["threshold"] > route["scores"]["device_status"]
    call = events[5].data
    assert call["evaluatedTokens"] + call["reusedTokens"] == call["promptTokens"]
    root = events[0]
    by_id = {e.id: e for e in events}
    for event in events[1:]:
        assert event.parent_id is not None
        parent = by_id[event.parent_id]
        assert parent.id == root.id or (parent.data.get("phase") == "start"
                                         and event.data.get("phase") == "complete")
    assert events[-1].data["tools"] == ["get_time"]
    assert events[-1].data["llmCalls"] == 1
    assert json.dumps(events[3].data["fact"]).startswith('"Current time on the box')


async def test_trace_ring_stays_bounded(db: Database) -> None:
    tracer = Tracer(db, ring_size=25)
    for i in range(100):
        await tracer.emit("s", "message", {"i": i})
    stored = [e for _, e in await tracer.recent(limit=1000)]
    assert len(stored) == 25
    assert stored[-1].data == {"i": 99}
    assert stored[0].data == {"i": 75}


async def test_working_memory_is_bounded_per_session(db: Database) -> None:
    chat, _ = service(db, [["a"]] * 30)
    for i in range(30):
        await turn(chat, f"q{i}")
    memory = chat.working_memory("s")
    assert len(memory) == 50  # maxlen, as in nekoni
    assert memory[-1]["type"] == "assistant"
    assert memory[-2] == {"type": "user", "content": "q29", "timestamp": memory[-2]["timestamp"]}
    for i in range(150):
        chat.working_memory(f"other-{i}")
    assert "s" not in chat._memory  # sessions are bounded too (least recent dropped)


async def test_a_request_no_tool_may_be_for_is_not_embedded(db: Database) -> None:
    """With nothing stored, only the router would embed; a request with none of a tool's
    words is not (the embedder, onnxruntime and MiniLM, is then never loaded for it)."""
    tools = ToolRegistry()
    register_builtins(tools, data_dir=Path("."))
    embedder = WordEmbedder()
    chat = ChatService(db, ScriptedProvider([["Once upon a time."], ["It is late."]]),
                       system_prompt="SYS", context_messages=20, n_ctx=4096, max_tokens=64,
                       tools=tools, embed=embedder.embed, tracer=Tracer(db, 1000))
    await turn(chat, "Write a long story about a lighthouse.")
    assert embedder.calls == []
    await turn(chat, "What time is it?", session="t")
    assert ["What time is it?"] in embedder.calls
    assert chat.last_stats is not None
    assert chat.last_stats.tools == ["get_time"]


async def test_an_events_time_is_not_the_clocks(db: Database) -> None:
    chat, _ = service(db, [["It leaves at noon."], ["ok"]])
    await turn(chat, "What time does the ferry leave?")
    assert chat.last_stats is not None
    assert chat.last_stats.tools == []  # a note may hold it; the clock does not
    await turn(chat, "What time is it?", session="t")
    assert chat.last_stats.tools == ["get_time"]
