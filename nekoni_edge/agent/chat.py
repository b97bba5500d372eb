"""A user turn: the episodic log, a rolling context with the system prompt pinned, retrieved
knowledge, nekoni's ReAct tool loop with grammar-constrained calls, a streamed answer."""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from nekoni_edge.agent.tools import ToolError, ToolRegistry, validate_arguments
from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.provider import ChatTurn, ModelProvider, Usage
from nekoni_edge.rag.knowledge import KnowledgeBase, context_block
from nekoni_edge.rag.store import Hit
from nekoni_edge.store.database import Database, StoredMessage, now_ms
from nekoni_edge.traces import Tracer

_LOGGER = logging.getLogger(__name__)

MAX_ITERATIONS = 8
DECISION_TOKENS = 128
WORKING_MEMORY = 50
MAX_SESSIONS_IN_MEMORY = 100
TOOL_RESULT_CHARS = 2000

# Shown before the conversation when the model decides on a tool: a small model follows
# examples far better than instructions.
EXAMPLES = [
    ("What time is it?", {"tool_call": {"name": "get_time", "arguments": {}}}),
    ("What's today's date?", {"tool_call": {"name": "get_time", "arguments": {}}}),
    ("Tell me a joke.", {"tool_call": {"name": "none", "arguments": {}}}),
    ("How much memory is free on the box?",
     {"tool_call": {"name": "device_status", "arguments": {}}}),
]

Approver = Callable[[str, dict[str, Any]], Awaitable[bool]]


@dataclass
class TurnStats:
    """Token accounting of one turn."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tools: list[str] = field(default_factory=list)

    def add(self, usage: Usage) -> None:
        self.llm_calls += 1
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens


class ChatService:
    """Runs user turns (and skill runs) through the model, tools and knowledge."""

    def __init__(
        self,
        db: Database,
        provider: ModelProvider | None,
        *,
        system_prompt: str,
        context_messages: int,
        n_ctx: int,
        max_tokens: int,
        model_error: str | None = None,
        knowledge: KnowledgeBase | None = None,
        knowledge_error: str | None = None,
        tools: ToolRegistry | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self._db = db
        self._provider = provider
        self._system_prompt = system_prompt
        self._context_messages = context_messages
        self._n_ctx = n_ctx
        self._max_tokens = max_tokens
        self.model_error = model_error
        self.knowledge = knowledge
        self.knowledge_error = knowledge_error
        self.tools = tools or ToolRegistry()
        self.tracer = tracer or Tracer(db)
        self._memory: OrderedDict[str, deque[dict[str, Any]]] = OrderedDict()
        self.last_stats: TurnStats | None = None

    @property
    def provider(self) -> ModelProvider | None:
        return self._provider

    def working_memory(self, session_id: str) -> deque[dict[str, Any]]:
        """nekoni's working memory: the session's recent typed entries, bounded."""
        memory = self._memory.pop(session_id, None) or deque(maxlen=WORKING_MEMORY)
        self._memory[session_id] = memory
        while len(self._memory) > MAX_SESSIONS_IN_MEMORY:
            self._memory.popitem(last=False)
        return memory

    def _remember(self, session_id: str, kind: str, content: Any) -> None:
        self.working_memory(session_id).append({"type": kind, "content": content,
                                                "timestamp": now_ms()})

    async def build_context(self, session_id: str, knowledge: str = "") -> list[ChatTurn]:
        """System prompt (+ retrieved knowledge) + the last N messages, oldest dropped first
        to fit the model's context."""
        history = await self._db.recent_messages(session_id, self._context_messages)
        prompt = f"{self._system_prompt}\n\n{knowledge}" if knowledge else self._system_prompt
        system = ChatTurn("system", prompt)
        if self._provider is None:
            return [system, *(ChatTurn(m.role, m.content) for m in history)]
        budget = self._n_ctx - self._max_tokens - DECISION_TOKENS - \
            await self._provider.count_tokens(prompt)
        kept: list[StoredMessage] = []
        # Newest first, so the user's question is always kept; 8 tokens of template per turn.
        for message in reversed(history):
            cost = await self._provider.count_tokens(message.content) + 8
            if cost > budget and kept:
                break
            budget -= cost
            kept.append(message)
        return [system, *(ChatTurn(m.role, m.content) for m in reversed(kept))]

    async def reply(
        self,
        session_id: str,
        content: str,
        device_key: str | None = None,
        on_context: Callable[[list[Hit]], None] | None = None,
        approve: Approver | None = None,
    ) -> AsyncGenerator[str, None]:
        """Log the user's message, run the tool loop, yield the answer's pieces, log it.

        If the consumer stops early (cancel, vanished peer), what was generated so far is
        still logged, so a second device's ``sync`` sees what the first one saw.
        """
        provider = self._provider
        if provider is None:
            raise ModelUnavailable(self.model_error or "no model is loaded")
        await self._db.append_message(session_id, "user", content, device_key)
        self._remember(session_id, "user", content)
        turn = await self.tracer.emit(session_id, "message",
                                      {"role": "user", "content": content[:500]})
        stats = TurnStats()
        pieces: list[str] = []
        try:
            hits = await self._retrieve(session_id, content, turn.id)
            if on_context is not None:
                on_context(hits)
            context = await self.build_context(session_id, context_block(hits))
            scratch = await self._tool_loop(session_id, context, stats, turn.id, approve)
            usage = Usage()
            call = await self.tracer.emit(session_id, "llm_call", {"phase": "start",
                                                                   "kind": "answer"}, turn.id)
            started = time.monotonic()
            async with aclosing(provider.stream_chat(
                [*context, *scratch], max_tokens=self._max_tokens, usage=usage
            )) as stream:
                async for piece in stream:
                    pieces.append(piece)
                    yield piece
            stats.add(usage)
            await self.tracer.emit(session_id, "llm_call", {
                "phase": "complete", "kind": "answer", "durationMs": _ms(started),
                "promptTokens": usage.prompt_tokens, "completionTokens": usage.completion_tokens,
            }, call.id)
        except Exception as exc:
            await self.tracer.emit(session_id, "error", {"message": str(exc)[:500]}, turn.id)
            raise
        finally:
            text = "".join(pieces).strip()
            if text:
                await self._db.append_message(session_id, "assistant", text, device_key)
                self._remember(session_id, "assistant", text)
            await self._record_turn(session_id, stats)
            await self.tracer.emit(session_id, "message", {
                "role": "assistant", "content": text[:500], "llmCalls": stats.llm_calls,
                "promptTokens": stats.prompt_tokens,
                "completionTokens": stats.completion_tokens, "tools": stats.tools,
            }, turn.id)
            self.last_stats = stats

    async def _retrieve(self, session_id: str, content: str, parent: str) -> list[Hit]:
        # Before every turn (nekoni only did it on a session's first).
        if self.knowledge is None:
            return []
        started = time.monotonic()
        hits = await self.knowledge.search(content)
        await self.tracer.emit(session_id, "rag_query", {
            "query": content[:200], "durationMs": _ms(started),
            "hits": [{"source": h.source, "page": h.page, "score": round(h.score, 4)}
                     for h in hits],
        }, parent)
        return hits

    async def _tool_loop(self, session_id: str, context: list[ChatTurn], stats: TurnStats,
                         parent: str, approve: Approver | None) -> list[ChatTurn]:
        """Up to MAX_ITERATIONS grammar-constrained decisions; returns the turn's tool steps."""
        provider = self._provider
        assert provider is not None  # noqa: S101
        if not len(self.tools):
            return []
        system = ChatTurn("system", f"{context[0].content}\n\n{self.tools.prompt_block()}")
        examples = [turn for question, call in EXAMPLES if self._example_fits(call)
                    for turn in (ChatTurn("user", question),
                                 ChatTurn("assistant", json.dumps(call)))]
        schema = self.tools.call_schema()
        scratch: list[ChatTurn] = []
        seen: set[str] = set()
        for iteration in range(MAX_ITERATIONS):
            usage = Usage()
            call_event = await self.tracer.emit(session_id, "llm_call", {
                "phase": "start", "kind": "tool_decision", "iteration": iteration}, parent)
            started = time.monotonic()
            text = await provider.complete_structured(
                [system, *examples, *context[1:], *scratch], schema,
                max_tokens=DECISION_TOKENS, usage=usage,
            )
            stats.add(usage)
            await self.tracer.emit(session_id, "llm_call", {
                "phase": "complete", "kind": "tool_decision", "durationMs": _ms(started),
                "promptTokens": usage.prompt_tokens,
                "completionTokens": usage.completion_tokens, "output": text[:300],
            }, call_event.id)
            name, arguments = _parse_call(text)
            if name == "none":
                return scratch
            key = json.dumps([name, arguments], sort_keys=True)
            if key in seen:  # the same call again would return the same result: answer now
                return scratch
            seen.add(key)
            scratch.append(ChatTurn("assistant", json.dumps(
                {"tool_call": {"name": name, "arguments": arguments}})))
            result = await self._run_tool(session_id, name, arguments, parent, approve)
            stats.tools.append(name)
            result_text = json.dumps(result, ensure_ascii=False)[:TOOL_RESULT_CHARS]
            scratch.append(ChatTurn("tool", result_text))
            await self._db.append_message(session_id, "tool", result_text)
            self._remember(session_id, "tool_result", {"tool": name, "result": result})
        await self.tracer.emit(session_id, "error", {
            "message": f"tool loop stopped after {MAX_ITERATIONS} iterations"}, parent)
        return scratch

    def _example_fits(self, call: dict[str, Any]) -> bool:
        name = call["tool_call"]["name"]
        return name == "none" or self.tools.get(name) is not None

    async def _run_tool(self, session_id: str, name: str, arguments: Any, parent: str,
                        approve: Approver | None) -> Any:
        """Run one call; every failure becomes ``{"error": …}`` for the model to read."""
        event = await self.tracer.emit(session_id, "tool_call", {
            "phase": "start", "tool": name, "arguments": arguments}, parent)
        started = time.monotonic()
        try:
            result: Any = await self._checked_call(name, arguments, approve)
            outcome: dict[str, Any] = {"ok": True}
        except ToolError as exc:
            result, outcome = {"error": str(exc)}, {"ok": False, "error": str(exc)}
        except Exception as exc:
            _LOGGER.exception("tool %s failed", name)
            message = f"{name} failed: {type(exc).__name__}: {exc}"
            result, outcome = {"error": message}, {"ok": False, "error": message}
        await self.tracer.emit(session_id, "tool_call", {
            "phase": "complete", "tool": name, "durationMs": _ms(started), **outcome}, event.id)
        return result

    async def _checked_call(self, name: str, arguments: Any, approve: Approver | None) -> Any:
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError(f"unknown tool {name!r}; tools are {self.tools.names}")
        args = validate_arguments(tool.parameters, arguments)
        if tool.requires_approval and not (approve is not None and await approve(name, args)):
            raise ToolError(f"the owner did not approve {name}")
        return await tool.execute(args)

    async def _record_turn(self, session_id: str, stats: TurnStats) -> None:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO turns (session_id, llm_calls, prompt_tokens, completion_tokens, "
                "created_at) VALUES (?, ?, ?, ?, ?)",
                (session_id, stats.llm_calls, stats.prompt_tokens, stats.completion_tokens,
                 now_ms()),
            )


def _parse_call(text: str) -> tuple[str, Any]:
    """Name and arguments of a decision; anything unparseable is no call at all."""
    try:
        data = json.loads(text)
        call = data["tool_call"]
        name, arguments = call["name"], call.get("arguments", {})
    except (ValueError, KeyError, TypeError):
        _LOGGER.info("model produced no valid tool call: %r", text[:200])
        return "none", {}
    return (name if isinstance(name, str) else "none"), arguments


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
