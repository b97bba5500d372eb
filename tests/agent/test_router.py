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
