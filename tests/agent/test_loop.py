"""The ReAct loop with a scripted model: tools, errors, the iteration cap, approvals,
token accounting and traces."""

from __future__ import annotations

import json
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.agent.builtins import register_builtins
from nekoni_edge.agent.chat import MAX_ITERATIONS, ChatService
from nekoni_edge.agent.tools import Tool, ToolRegistry
from nekoni_edge.llm.scripted import ScriptedProvider
from nekoni_edge.store.database import Database
from nekoni_edge.traces import Tracer


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_call": {"name": name, "arguments": arguments}}


NONE = call("none")


@pytest.fixture
async def db(tmp_path: Path) -> Any:
    async with await Database.open(tmp_path / "db") as database:
        yield database


def service(db: Database, steps: list[Any], tools: ToolRegistry | None = None,
            ring: int = 1000) -> tuple[ChatService, ScriptedProvider]:
    provider = ScriptedProvider(steps)
    if tools is None:
        tools = ToolRegistry()
        register_builtins(tools, data_dir=Path("."), knowledge=None)
    return ChatService(db, provider, system_prompt="SYS", context_messages=20, n_ctx=4096,
                       max_tokens=64, tools=tools, tracer=Tracer(db, ring)), provider


async def turn(chat: ChatService, text: str, **kw: Any) -> str:
    async with aclosing(chat.reply("s", text, **kw)) as stream:
        return "".join([p async for p in stream])


def tool_results(provider: ScriptedProvider) -> list[Any]:
    return [json.loads(t.content) for t in provider.prompts[-1] if t.role == "tool"]


async def test_tool_call_then_result_then_answer(db: Database) -> None:
    chat, provider = service(db, [call("get_time", timezone="Europe/Paris"), NONE,
                                  ["It is ", "noon."]])
    assert await turn(chat, "What time is it in Paris?") == "It is noon."
    [result] = tool_results(provider)
    assert result["timezone"] == "Europe/Paris"
    assert "T" in result["iso"]
    # the decision was constrained by a schema naming only real tools
    names = [o["properties"]["name"]["const"]
             for o in provider.schemas[0]["properties"]["tool_call"]["anyOf"]]
    assert names == ["get_time", "device_status", "none"]
    # the tool list is in the system prompt, as in nekoni
    assert "get_time" in provider.prompts[0][0].content
    assert chat.last_stats is not None
    assert chat.last_stats.tools == ["get_time"]


async def test_unknown_tool_is_an_error_the_model_sees(db: Database) -> None:
    chat, provider = service(db, [call("launch_rockets"), NONE, ["Sorry."]])
    assert await turn(chat, "Launch!") == "Sorry."
    [result] = tool_results(provider)
    assert "unknown tool 'launch_rockets'" in result["error"]


async def test_bad_arguments_are_an_error_the_model_sees(db: Database) -> None:
    chat, provider = service(db, [call("get_time", timezone=42), call("get_time", zone="x"),
                                  call("get_time", timezone="Mars/Olympus"), NONE, ["Hmm."]])
    await turn(chat, "time?")
    errors = [r["error"] for r in tool_results(provider)]
    assert "must be of type string" in errors[0]
    assert "unknown argument 'zone'" in errors[1]
    assert "unknown timezone 'Mars/Olympus'" in errors[2]


async def test_garbage_decision_means_no_tool(db: Database) -> None:
    chat, _ = service(db, ["not json at all", ["Plain answer."]])
    assert await turn(chat, "hi") == "Plain answer."


async def test_iteration_cap(db: Database) -> None:
    steps: list[Any] = [call("get_time", timezone=f"Etc/GMT+{i}") for i in range(MAX_ITERATIONS)]
    chat, provider = service(db, [*steps, ["Done."]])
    assert await turn(chat, "loop forever") == "Done."
    assert len(tool_results(provider)) == MAX_ITERATIONS
    events = await chat.tracer.recent(session_id="s")
    assert any(e.type == "error" and "after 8 iterations" in e.data["message"]
               for _, e in events)


async def test_repeated_identical_call_ends_the_loop(db: Database) -> None:
    chat, provider = service(db, [call("device_status"), call("device_status"), ["Fine."]])
    assert await turn(chat, "status?") == "Fine."
    assert len(tool_results(provider)) == 1


async def test_a_tool_that_raises(db: Database) -> None:
    async def explode(args: dict[str, Any]) -> Any:
        raise RuntimeError("sensor on fire")

    tools = ToolRegistry()
    tools.register(Tool("thermometer", "Reads the sensor.", {"type": "object"}, explode))
    chat, provider = service(db, [call("thermometer"), NONE, ["It broke."]], tools)
    assert await turn(chat, "temperature?") == "It broke."
    [result] = tool_results(provider)
    assert result["error"] == "thermometer failed: RuntimeError: sensor on fire"


def approval_tools(runs: list[dict[str, Any]]) -> ToolRegistry:
    async def unlock(args: dict[str, Any]) -> str:
        runs.append(args)
        return "unlocked"

    tools = ToolRegistry()
    tools.register(Tool("unlock_door", "Unlocks the front door.",
                        {"type": "object", "properties": {}, "additionalProperties": False},
                        unlock, requires_approval=True))
    return tools


@pytest.mark.parametrize(("decision", "expected"), [(True, "unlocked"), (False, None)])
async def test_approval_granted_or_denied(db: Database, decision: bool,
                                          expected: str | None) -> None:
    runs: list[dict[str, Any]] = []
    asked: list[str] = []

    async def approve(tool: str, args: dict[str, Any]) -> bool:
        asked.append(tool)
        return decision

    chat, provider = service(db, [call("unlock_door"), NONE, ["ok"]], approval_tools(runs))
    await turn(chat, "open the door", approve=approve)
    assert asked == ["unlock_door"]
    [result] = tool_results(provider)
    if expected:
        assert result == expected
        assert runs == [{}]  # ran exactly once
    else:
        assert "did not approve" in result["error"]
        assert runs == []


async def test_no_approver_means_denied(db: Database) -> None:
    runs: list[dict[str, Any]] = []
    chat, provider = service(db, [call("unlock_door"), NONE, ["ok"]], approval_tools(runs))
    await turn(chat, "open the door")  # e.g. a skill run with no phone to ask
    assert runs == []
    assert "did not approve" in tool_results(provider)[0]["error"]


async def test_tokens_are_counted_per_call_and_per_turn(db: Database) -> None:
    chat, _ = service(db, [call("device_status"), NONE, ["one ", "two ", "three"]])
    await turn(chat, "how is the box")
    stats = chat.last_stats
    assert stats is not None
    assert stats.llm_calls == 3
    assert stats.completion_tokens >= 3
    assert stats.prompt_tokens > 0
    [row] = await db.execute_sql("SELECT llm_calls, prompt_tokens, completion_tokens FROM turns")
    assert tuple(row) == (3, stats.prompt_tokens, stats.completion_tokens)


async def test_trace_of_one_turn(db: Database) -> None:
    chat, _ = service(db, [call("get_time"), NONE, ["It is late."]])
    live: list[Any] = []
    chat.tracer.subscribe(live.append)
    await turn(chat, "time?")
    events = [e for _, e in await chat.tracer.recent(session_id="s")]
    assert [e.id for e in live] == [e.id for e in events]  # streamed as stored, in order
    kinds = [(e.type, e.data.get("phase"), e.data.get("kind")) for e in events]
    assert kinds == [
        ("message", None, None),
        ("llm_call", "start", "tool_decision"), ("llm_call", "complete", "tool_decision"),
        ("tool_call", "start", None), ("tool_call", "complete", None),
        ("llm_call", "start", "tool_decision"), ("llm_call", "complete", "tool_decision"),
        ("llm_call", "start", "answer"), ("llm_call", "complete", "answer"),
        ("message", None, None),
    ]
    root = events[0]
    by_id = {e.id: e for e in events}
    for event in events[1:]:
        assert event.parent_id is not None
        parent = by_id[event.parent_id]
        # completes hang under their start; every start and the answer under the turn
        assert parent.id == root.id or (parent.data.get("phase") == "start"
                                         and event.data.get("phase") == "complete")
        if event.data.get("phase") == "complete":
            assert event.data["durationMs"] >= 0
    assert events[-1].data["tools"] == ["get_time"]
    assert events[-1].data["llmCalls"] == 3
    assert [e.timestamp for e in events] == sorted(e.timestamp for e in events)


async def test_trace_ring_stays_bounded(db: Database) -> None:
    tracer = Tracer(db, ring_size=25)
    for i in range(100):
        await tracer.emit("s", "message", {"i": i})
    stored = [e for _, e in await tracer.recent(limit=1000)]
    assert len(stored) == 25
    assert stored[-1].data == {"i": 99}
    assert stored[0].data == {"i": 75}


async def test_working_memory_is_bounded_per_session(db: Database) -> None:
    chat, _ = service(db, [NONE, ["a"]] * 30)
    for i in range(30):
        await turn(chat, f"q{i}")
    memory = chat.working_memory("s")
    assert len(memory) == 50  # maxlen, as in nekoni
    assert memory[-1]["type"] == "assistant"
    assert memory[-2] == {"type": "user", "content": "q29", "timestamp": memory[-2]["timestamp"]}
    for i in range(150):
        chat.working_memory(f"other-{i}")
    assert "s" not in chat._memory  # sessions are bounded too (least recent dropped)
