"""The tool router with the real MiniLM embedder, on the labelled household set."""

from __future__ import annotations

from pathlib import Path

from benchmarks.agent_corpus import LABELLED
from nekoni_edge.agent.builtins import register_builtins
from nekoni_edge.agent.router import ROUTE_THRESHOLD, ToolRouter
from nekoni_edge.agent.tools import Tool, ToolRegistry
from nekoni_edge.rag.embed import Embedder


async def test_labelled_requests_route_as_labelled(embedder: Embedder) -> None:
    tools = ToolRegistry()
    register_builtins(tools, data_dir=Path("."))
    router = ToolRouter(tools)
    await router.prepare(embedder.embed)
    vectors = await embedder.embed(list(LABELLED))
    wrong = {}
    for (request, label), vector in zip(LABELLED.items(), vectors, strict=True):
        chosen = [r.tool.name for r in router.route(vector)]
        if chosen[:1] != ([label] if label else []):
            wrong[request] = chosen
    assert wrong == {}, f"threshold {ROUTE_THRESHOLD}"


async def test_a_tool_registered_later_is_routed(embedder: Embedder) -> None:
    async def noop(args: dict[str, object]) -> str:
        return "ok"

    tools = ToolRegistry()
    register_builtins(tools, data_dir=Path("."))
    router = ToolRouter(tools)
    await router.prepare(embedder.embed)
    tools.register(Tool("water_plants", "Waters the garden.", {"type": "object"}, noop,
                        examples=("Water the plants", "Turn on the garden sprinkler")))
    await router.prepare(embedder.embed)
    [vector] = await embedder.embed(["please water the garden plants"])
    assert [r.tool.name for r in router.route(vector)] == ["water_plants"]


def test_every_labelled_tool_request_may_be_routed() -> None:
    """The words gate may only say "maybe": every request labelled for a tool (the router's
    labelled set, the bench's time and status requests, the household set's) passes it."""
    from benchmarks.agent_corpus import STATUS, TIME
    from benchmarks.household_set import TURNS

    tools = ToolRegistry()
    register_builtins(tools, data_dir=Path("."))
    router = ToolRouter(tools)
    requests = [q for q, label in LABELLED.items() if label] + TIME + STATUS + [
        t.text for t in TURNS if t.kind in ("time", "status")]
    assert [q for q in requests if not router.may_route(q)] == []
    assert not router.may_route("Write a long story about a lighthouse.")
    assert not router.may_route("Where is the stopcock?")


def test_a_tool_without_cues_may_be_for_any_request() -> None:
    async def noop(args: dict[str, object]) -> str:
        return "ok"

    tools = ToolRegistry()
    router = ToolRouter(tools)
    assert not router.may_route("Where is the fuse box?")  # no tools: nothing to route
    tools.register(Tool("water_plants", "Waters the garden.", {"type": "object"}, noop))
    assert router.may_route("Where is the fuse box?")


def test_no_labelled_clock_request_reads_as_an_events_time() -> None:
    from benchmarks.agent_corpus import TIME
    from nekoni_edge.agent.builtins import EVENT_TIME, TIME_EXAMPLES

    clock = [q for q, label in LABELLED.items() if label == "get_time"] + TIME + list(
        TIME_EXAMPLES)
    assert [q for q in clock if EVENT_TIME.search(q)] == []
    assert EVENT_TIME.search("What time does she come?")
    assert EVENT_TIME.search("What time does it start?")  # the class, not the clock
    assert not EVENT_TIME.search("What time do you have?")
    assert EVENT_TIME.search("Which day is she out?")  # her day out, not today
    assert not EVENT_TIME.search("What day is it today?")
    assert EVENT_TIME.search("When is the school fair?")  # "when" asks when something is
    assert EVENT_TIME.search("when does the shop open?")
    assert EVENT_TIME.search("And what hours is it?")  # a session's hours, a span
    assert EVENT_TIME.search("How many days are in a fortnight?")  # a count, the world's


def test_what_day_it_is_must_be_answered_with_the_day() -> None:
    from nekoni_edge.agent.builtins import time_essential

    result = {"weekday": "Tuesday", "time": "09:41"}
    assert time_essential(result, "Which day is it today?") == "Tuesday"
    assert time_essential(result, "What's the date?") == "Tuesday"
    assert time_essential(result, "What time is it?") == "09:41"


def test_a_greeting_is_no_question_for_the_clock() -> None:
    from nekoni_edge.agent.builtins import EVENT_TIME

    assert EVENT_TIME.search("Morning!")
    assert EVENT_TIME.search("Good evening, box.")
    assert not EVENT_TIME.search("Good morning, what time is it?")
    assert not EVENT_TIME.search("Is it morning or afternoon right now?")
