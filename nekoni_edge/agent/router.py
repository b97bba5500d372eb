"""Choosing tools without a model call: the request's embedding against each tool's examples.

The embedder is already on the box for retrieval, and the request is embedded once for both;
a decision costs a few dot products instead of a grammar-constrained generation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nekoni_edge.agent.tools import Tool, ToolRegistry
from nekoni_edge.words import fold, words

# Calibrated on benchmarks/agent_corpus.py's labelled requests with the int8 MiniLM on its
# integer kernels (bench_agent prints the sweep): the lowest tool request scores 0.645, the
# highest other one 0.548; 0.60 is mid-band. See docs/BENCHMARKS.md, "How the agent decides".
ROUTE_THRESHOLD = 0.60
# A request close to two tools picks both only when the second is nearly as close.
SECOND_TOOL_MARGIN = 0.05
MAX_TOOLS = 2

Embed = Callable[[Sequence[str]], Awaitable[list[list[float]]]]


@dataclass(frozen=True, slots=True)
class Route:
    """A tool chosen for a request, with the cosine that chose it."""

    tool: Tool
    score: float
    example: str


class ToolRouter:
    """Scores a request's embedding against every tool's example requests."""

    def __init__(self, tools: ToolRegistry, *, threshold: float = ROUTE_THRESHOLD) -> None:
        self.tools = tools
        self.threshold = threshold
        self._examples: list[tuple[Tool, str]] = []
        self._matrix: np.ndarray | None = None  # examples' unit vectors, one row each
        self._tool_count = 0

    async def prepare(self, embed: Embed) -> None:
        """Embed the examples once per set of tools (plain numbers after: the embedder may
        unload); a tool registered later is embedded on the next request (a registry only
        grows, so its size tells)."""
        if self._matrix is not None and self._tool_count == len(self.tools):
            return
        examples = [(tool, example) for tool in self.tools
                    for example in (tool.examples or (tool.description,))]
        vectors = await embed([example for _, example in examples]) if examples else [[]]
        self._examples = examples
        self._tool_count = len(self.tools)
        self._matrix = np.asarray(vectors, dtype=np.float32)

    def may_route(self, request: str) -> bool:
        """Whether any tool may be for ``request`` by its words (``Tool.cues``): when none
        may, the request is not embedded for routing at all."""
        said = {fold(w) for w in words(request)}
        return any(not tool.cues or said & tool.cues for tool in self.tools)

    def scores(self, vector: Sequence[float]) -> dict[str, tuple[float, str]]:
        """Each tool's best cosine with the request, and the example that gave it."""
        if self._matrix is None:
            raise RuntimeError("ToolRouter.prepare() must run before routing")
        if not self._examples:
            return {}
        cosines = self._matrix @ np.asarray(vector, dtype=np.float32)
        best: dict[str, tuple[float, str]] = {}
        for (tool, example), score in zip(self._examples, cosines.tolist(), strict=True):
            if tool.name not in best or score > best[tool.name][0]:
                best[tool.name] = (float(score), example)
        return best

    def route(self, vector: Sequence[float]) -> list[Route]:
        """The tools to run for this request, best first (none below the threshold)."""
        return self.choose(self.scores(vector))

    def choose(self, scores: dict[str, tuple[float, str]], request: str = "") -> list[Route]:
        """The tools to run given each tool's ``scores`` (from ``scores()``), less any whose
        ``not_for`` says it never answers ``request``."""
        ranked = sorted(scores.items(), key=lambda item: -item[1][0])
        chosen: list[Route] = []
        for name, (score, example) in ranked[:MAX_TOOLS]:
            if score < self.threshold or (chosen and score < chosen[0].score -
                                          SECOND_TOOL_MARGIN):
                break
            tool = self.tools.get(name)
            assert tool is not None  # names come from the registry
            chosen.append(Route(tool, score, example))
        return [r for r in chosen if r.tool.not_for is None or not r.tool.not_for.search(request)]
