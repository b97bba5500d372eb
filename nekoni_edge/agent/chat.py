"""A user turn: the episodic log, a prompt llama.cpp can reuse, tools chosen by the embedding
router, retrieved knowledge right before the question, one streamed plain-text answer.

Prompt order is static system prompt, then the history exactly as the model saw it, then the
new turn (tool facts, retrieved text, question): turn n+1 shares its whole prefix with turn n,
so llama.cpp evaluates only what is new.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from nekoni_edge import policy
from nekoni_edge.agent import answer, grounding, plan, trust
from nekoni_edge.agent.asked import answer_kind, names
from nekoni_edge.agent.echo import EchoCheck
from nekoni_edge.agent.evidence import Evidence, asks_the_writer
from nekoni_edge.agent.fair import FairTurns
from nekoni_edge.agent.memory import TurnStats, Window, recent
from nekoni_edge.agent.router import Embed, Route, ToolRouter
from nekoni_edge.agent.tools import Tool, ToolError, ToolRegistry, validate_arguments
from nekoni_edge.errors import ModelUnavailable, NotYourSession
from nekoni_edge.foreground import Foreground
from nekoni_edge.llm.provider import ChatTurn, ModelProvider, Usage
from nekoni_edge.rag.knowledge import KnowledgeBase
from nekoni_edge.store.chunks import Hit
from nekoni_edge.store.database import Database, StoredMessage, now_ms
from nekoni_edge.tracer import Tracer

_LOGGER = logging.getLogger(__name__)

SKILL_SESSION = policy.SKILL_SESSION  # the household's sessions: skill runs
ARGUMENT_TOKENS = 64
WORKING_MEMORY = 50
TEMPLATE_TOKENS = 8  # a chat template's tokens around each message

Approver = Callable[[str, dict[str, Any]], Awaitable[bool]]


@dataclass
class _Owner:
    key: str | None


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
        embed: Embed | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        """``embed`` routes requests to tools; without it (or without tools) none run."""
        self._db = db
        self._provider = provider
        self._system_prompt = system_prompt
        self._context_messages = context_messages
        self._n_ctx = n_ctx
        self._max_tokens = max_tokens
        self.model_error = model_error
        self.knowledge = knowledge
        self.knowledge_error = knowledge_error
        # Shared with the knowledge base, whose ingest waits for turns to finish.
        self.foreground = knowledge.foreground if knowledge is not None else Foreground()
        self.tools = tools or ToolRegistry()
        self._embed = embed or (knowledge.embedder.embed if knowledge is not None else None)
        self.router = ToolRouter(self.tools)
        self.tracer = tracer or Tracer(db)
        self._memory: OrderedDict[str, deque[dict[str, Any]]] = OrderedDict()
        self._windows: OrderedDict[str, Window] = OrderedDict()
        # Who started each recent session: its traces go only to that device (None: the
        # box's owner or a skill run, the household's).
        self._owners: OrderedDict[str, _Owner] = OrderedDict()
        self._system_tokens: int | None = None
        self.last_stats: TurnStats | None = None
        self.turns = FairTurns()
        # The prompt's own scaffolding, which an answer must never read back.
        self._echo = EchoCheck([system_prompt, answer.ANSWER_INSTRUCTION])

    @property
    def provider(self) -> ModelProvider | None:
        return self._provider

    def working_memory(self, session_id: str) -> deque[dict[str, Any]]:
        """nekoni's working memory: the session's recent typed entries, bounded."""
        return recent(self._memory, session_id, lambda: deque(maxlen=WORKING_MEMORY))

    def _remember(self, session_id: str, kind: str, content: Any) -> None:
        self.working_memory(session_id).append({"type": kind, "content": content,
                                                "timestamp": now_ms()})

    async def owner(self, session_id: str) -> str | None:
        """The key of the device that started the session (None: the box's owner, a skill
        run, or nobody yet)."""
        cached = self._owners.get(session_id)
        if cached is None:
            _exists, key = await self._db.session_owner(session_id)
            cached = recent(self._owners, session_id, lambda: _Owner(key))
        return cached.key

    async def claim(self, session_id: str, device_key: str | None) -> None:
        """Record who writes the session, or refuse (``policy.session_refusal``: a session is
        the device's that started it; a skill's is the household's; a default id naming
        another paired key cannot be started by this one)."""
        exists, key = await self._db.session_owner(session_id)
        if exists and policy.squatted(session_id, device_key, key):
            gone = await self._db.forget_session(session_id)
            _LOGGER.warning("session %s names key %s, which another device (%s) started: "
                            "%d messages of it removed and the session given to its key",
                            session_id, str(device_key)[:12], str(key)[:12], gone)
            exists, key = False, None
            self._windows.pop(session_id, None)
        prefix = policy.named_key(session_id)
        named = device_key is not None and prefix is not None and policy.names_another_key(
            prefix, device_key, [d.pub_key for d in await self._db.list_devices()])
        refusal = policy.session_refusal(session_id, device_key, key if exists else None,
                                         named)
        if refusal is not None:
            raise NotYourSession(refusal)
        if not exists:
            key = device_key
        recent(self._owners, session_id, lambda: _Owner(key)).key = key

    def visible_to(self, session_id: str, device_key: str | None, *,
                   own_only: bool = False) -> bool:
        """May ``device_key`` follow this session's live traces (``policy.may_see``)?
        Sessions not seen since the start are shown to nobody but the box's owner."""
        owner = self._owners.get(session_id)
        if device_key is not None and owner is None:
            return False
        return policy.may_see(device_key, owner.key if owner else None, own_only=own_only)

    def _window(self, session_id: str) -> Window:
        return recent(self._windows, session_id, Window)

    async def build_context(self, session_id: str, turn: StoredMessage | None = None,
                            form: str | None = None) -> list[ChatTurn]:
        """System prompt + the session's history as the model saw it, ending with ``turn``
        in its prompt form.

        The window's start moves only when the history outgrows the message count or the token
        budget, and then by half of it at once, so most turns keep the previous prefix.
        """
        window = self._window(session_id)
        if turn is not None and form is not None:
            window.forms[turn.id] = form
        history = [m for m in await self._db.recent_messages(session_id,
                                                              self._context_messages)
                   if m.id >= window.first_id]
        if self._system_tokens is None:  # the prompt is static: counted once
            self._system_tokens = (await self._provider.count_tokens(self._system_prompt)
                                   if self._provider is not None else 0)
        budget = self._n_ctx - self._max_tokens - self._system_tokens
        costs = [await self._cost(window, m) for m in history]
        if len(history) >= self._context_messages or sum(costs) > budget:
            # Drop the oldest until half the count and half the budget are free.
            while len(history) > 1 and (len(history) > self._context_messages // 2
                                        or sum(costs) > budget // 2):
                history.pop(0)
                costs.pop(0)
            window.first_id = history[0].id
            for old in [k for k in window.forms if k < window.first_id]:
                window.forms.pop(old)
                window.tokens.pop(old, None)
        return [ChatTurn("system", self._system_prompt),
                *(ChatTurn(m.role, window.forms.get(m.id, m.content)) for m in history)]

    async def _cost(self, window: Window, message: StoredMessage) -> int:
        cost = window.tokens.get(message.id)
        if cost is None:
            text = window.forms.get(message.id, message.content)
            cost = (await self._provider.count_tokens(text) if self._provider is not None
                    else len(text.split())) + TEMPLATE_TOKENS
            window.tokens[message.id] = cost
        return cost

    async def reply(
        self,
        session_id: str,
        content: str,
        device_key: str | None = None,
        on_context: Callable[[list[Hit]], None] | None = None,
        approve: Approver | None = None,
        on_text_end: Callable[[], None] | None = None,
    ) -> AsyncGenerator[str, None]:
        """Log the user's message, run the chosen tools, yield the answer's pieces, log it.

        ``on_text_end`` is called once the last piece has been yielded, before the answer is
        logged: a door that holds pieces back sends them then, not after the bookkeeping.

        If the consumer stops early (cancel, vanished peer), what was sent so far is still
        logged, so a second device's ``sync`` sees what the first one saw. Background work
        (an ingest) pauses while a turn runs.
        """
        # Turns are taken in turn by device, at most a few each waiting (fair.py): one device
        # with a question in every session cannot keep the owner waiting for all of them.
        async with self.turns.turn(device_key):
            with self.foreground.running():
                async with aclosing(self._reply(session_id, content, device_key, on_context,
                                                approve, on_text_end)) as pieces:
                    async for piece in pieces:
                        yield piece

    async def _reply(
        self, session_id: str, content: str, device_key: str | None,
        on_context: Callable[[list[Hit]], None] | None, approve: Approver | None,
        on_text_end: Callable[[], None] | None,
    ) -> AsyncGenerator[str, None]:
        provider = self._provider
        if provider is None:
            raise ModelUnavailable(self.model_error or "no model is loaded")
        await self.claim(session_id, device_key)
        # Not durable yet: nothing on the way to the first token waits for the disk. The answer,
        # written durably before the phone is told it is complete, makes both durable.
        message = await self._db.append_message(session_id, "user", content, device_key,
                                                durable=False)
        self._remember(session_id, "user", content)
        turn = await self.tracer.emit(session_id, "message",
                                      {"role": "user", "content": content[:500]})
        stats = TurnStats()
        said: list[str] = []  # what the phone was given
        whole = False
        try:
            async with aclosing(self._respond(session_id, content, message, turn.id, stats,
                                              on_context, approve)) as pieces:
                async for piece in pieces:
                    said.append(piece)
                    yield piece
            whole = True
            if on_text_end is not None:
                on_text_end()
        except Exception as exc:
            await self.tracer.emit(session_id, "error", {"message": str(exc)[:500]}, turn.id)
            raise
        finally:
            text = "".join(said).strip()
            if text and not whole:  # stopped mid-answer: kept, and marked so in the history
                text += answer.CUT_MARK
            await self._record_turn(session_id, stats)
            if text:
                # The turn's one wait for the disk: the question, its traces and this answer
                # are durable before the phone gets message_end. The history holds what the
                # phone saw, never a refused guess (a short message evaluated again).
                await self._db.append_message(session_id, "assistant", text, device_key)
                self._remember(session_id, "assistant", text)
            await self.tracer.emit(session_id, "message", {
                "role": "assistant", "content": text[:500], "llmCalls": stats.llm_calls,
                "promptTokens": stats.prompt_tokens, "evaluatedTokens": stats.evaluated_tokens,
                "completionTokens": stats.completion_tokens, "tools": stats.tools,
            }, turn.id)
            self.last_stats = stats

    async def _respond(self, session_id: str, content: str, message: StoredMessage,
                       parent: str, stats: TurnStats,
                       on_context: Callable[[list[Hit]], None] | None,
                       approve: Approver | None) -> AsyncGenerator[str, None]:
        """The turn itself: search, tools, the plan, and the answer or the evidence."""
        window = self._window(session_id)
        query = content
        follows: tuple[str, ...] = ()
        not_about: frozenset[str] = frozenset()
        kept = ""  # the last question, whose subject a follow-up asks of again
        if window.last_query and trust.leans_on_last_turn(content):
            query = trust.contextual_query(window.last_query, content)
            follows = window.last_shown
            kept = window.last_query
            if trust.asks_of_a_relative(content) or names(content) - names(window.last_query):
                # "And his sister's?", "and Anya?": the same thing, not of the one the last
                # turn named.
                not_about = frozenset(names(window.last_query) - names(content))
        window.last_query = query
        routable = self.router.may_route(content)
        vector, query_vector = await self._embed_request(content, query, routable)
        # A tool that never answers the question a fragment continues never answers it
        # ("When can we have bonfires?" "And what time of day?" is no question for the clock).
        # A fragment after a turn the documents answered asks the same subject again ("Where
        # is Finn's judo?" "What time?" is the judo's time, not the clock's): no tool.
        continued = bool(kept) and trust.fragment(content)
        routes = [] if continued and follows else await self._route(
            session_id, query if continued else content, vector if routable else None, parent)
        hits = await self._retrieve(session_id, query, query_vector, parent)
        if on_context is not None:
            on_context(hits)
        reading = plan.read_turn(content, query, hits, routed=bool(routes),
                                 follows=follows)
        results = [await self._run_route(session_id, content, route, stats, parent,
                                         approve) for route in routes]
        facts = [fact for fact, _, _ in results]
        evidence = grounding.tool_evidence(content, routes, results)
        shown = reading.shown
        if evidence is None:
            evidence, shown = await self._document_evidence(
                content, query, vector, query_vector, hits, reading, routed=bool(routes),
                not_about=not_about, kept=kept)
        window.last_shown = tuple(h.source for h in shown)
        turn_plan = plan.plan_answer(content, reading, shown, evidence, routed=bool(routes))
        shown = turn_plan.shown
        if turn_plan.decline:
            # A question about the household that no document answers: said plainly,
            # with no model call that could invent a value.
            extra = trust.DONT_KNOW
            await self.tracer.emit(session_id, "rag_query", {
                "declined": True, "shown": [h.source for h in shown]}, parent)
            yield extra
        else:
            stats.new_prompt = answer.compose(content, facts, shown)
            context = await self.build_context(session_id, message, stats.new_prompt)
            check = answer.CheckedAnswer(self._echo, evidence, (
                content, *facts, *(answer.support(h) for h in shown)),
                strict=turn_plan.strict, kind=answer_kind(content))
            async for piece in self._answer(session_id, context, check, stats, parent):
                yield piece
            if not check.sent:
                extra = (evidence.as_answer() if evidence is not None else trust.DONT_KNOW
                         if check.verdict is answer.Verdict.MISSED else answer.NO_ANSWER)
                if evidence is not None:
                    await self.tracer.emit(session_id, "rag_query", {
                        "grounding": evidence.source, "told": evidence.sentence[:300],
                        "verdict": check.verdict.value}, parent)
                yield extra

    async def _document_evidence(
            self, content: str, query: str, vector: Sequence[float] | None,
            query_vector: Sequence[float] | None, hits: list[Hit], reading: plan.Reading,
            *, routed: bool, not_about: frozenset[str] = frozenset(), kept: str = ""
    ) -> tuple[Evidence | None, list[Hit]]:
        """The sentence of a shown note that answers the turn, and the notes shown with it."""
        shown = reading.shown
        if not shown or reading.missing:
            return None, shown
        if asks_the_writer(content) and self.knowledge is not None:
            # A letter is signed at its end, in none of the question's words: its last chunk
            # is looked in too ("who signed the trip letter?" found only its first page).
            known = {(h.doc_id, h.index) for h in hits}
            ends = [await self.knowledge.store.last_chunk(doc_id)
                    for doc_id in dict.fromkeys(h.doc_id for h in shown)]
            hits = [*hits, *(end for end in ends
                             if end is not None and (end.doc_id, end.index) not in known)]
        # The sentence is picked by the turn's own words: a follow-up's subject found the
        # document, its question picks within it.
        found = await grounding.find_evidence(
            content, vector or query_vector, shown, self._embed, hits,
            searched=query_vector if query != content and vector is not None else None,
            not_about=not_about, kept=kept)
        near = reading.may_show(trust.as_relevant(query, hits, shown)) if \
            found is None and reading.specific and not routed else []
        if near and (nearer := await grounding.find_evidence(
                content, vector or query_vector, near, self._embed)) is not None:
            # None of the shown notes says it; one as relevant, found by meaning a little
            # under the show's floor, does ("how warm is the house kept?": the thermostat's
            # 20 degrees beside the house's three bedrooms).
            return nearer, [h for h in near if h.source == nearer.source][:1] + shown[:1]
        return found, shown

    async def explain(self, content: str) -> tuple[plan.Reading, plan.Plan,
                                                   Evidence | None]:
        """What the box would decide for ``content`` as a session's first turn, with no tool
        and no model call: its reading of the turn, its plan, and the evidence it would hold
        the answer to (or tell). For measuring the answers' picks (``bench_evidence``)."""
        vector, query_vector = await self._embed_request(content, content, False)
        hits = await self.knowledge.search(content, vector=query_vector) \
            if self.knowledge is not None else []
        reading = plan.read_turn(content, content, hits, routed=False)
        found, shown = await self._document_evidence(content, content, vector, query_vector,
                                                     hits, reading, routed=False)
        return reading, plan.plan_answer(content, reading, shown, found, routed=False), found

    async def _answer(self, session_id: str, context: list[ChatTurn],
                      check: answer.CheckedAnswer, stats: TurnStats,
                      parent: str) -> AsyncGenerator[str, None]:
        """Stream the answer through the checks; one more try if it came out as JSON or read
        the prompt back. An answer that missed the evidence is not tried again: the caller
        tells the evidence."""
        provider = self._provider
        assert provider is not None
        for attempt in (1, 2):
            usage = Usage()
            call = await self.tracer.emit(session_id, "llm_call", {
                "phase": "start", "kind": "answer", "attempt": attempt}, parent)
            started = time.monotonic()
            async with aclosing(provider.stream_chat(
                context, max_tokens=self._max_tokens, usage=usage, plain_text=True,
                session=session_id,
            )) as stream:
                async for piece in stream:
                    ready = check.push(piece)
                    if ready:
                        yield ready
                    if check.done:
                        break
            stats.add(usage)
            # The held last words go before the trace is written: the phone reads them sooner.
            rest = check.finish(cut_short=usage.finish_reason == "length")
            if rest:
                yield rest
            await self.tracer.emit(session_id, "llm_call", {
                "phase": "complete", "kind": "answer", "durationMs": _ms(started),
                "model": provider.name,  # says so when a fallback answered
                "promptTokens": usage.prompt_tokens, "evaluatedTokens": usage.evaluated_tokens,
                "reusedTokens": usage.prompt_tokens - usage.evaluated_tokens,
                "completionTokens": usage.completion_tokens, "refused": check.gate.refused,
                "stopped": check.gate.stopped, "verdict": check.verdict.value}, call.id)
            # With evidence to tell, a second try only delays it (an echo came 30 times in a
            # run of 87 turns on long documents, each try 0.3-1 s).
            retry = (check.gate.refused or check.verdict is answer.Verdict.ECHO) and \
                check.evidence is None
            if check.sent or not retry:
                return
            _LOGGER.warning("the model answered with %s; %s",
                            "JSON" if check.gate.refused else "the prompt's own words",
                            "trying once more" if attempt == 1 else "not sending it")
            if attempt == 1:
                check.reset()  # nothing was sent: the checks hold the opening back

    async def _embed_request(self, content: str, query: str, routable: bool
                             ) -> tuple[list[float] | None, list[float] | None]:
        """The request's embedding (for the router) and the search query's (the same unless
        the turn leans on the last one), in one call; None when neither is needed (no tool
        may be for it: ``routable``; nothing stored) or there is no embedder."""
        if self._embed is None:
            return None, None
        if not routable and (self.knowledge is None or not await self.knowledge.store
                                .has_chunks()):
            return None, None
        if routable:
            await self.router.prepare(self._embed)
        texts = [content] if query == content else [content, query]
        vectors = await self._embed(texts)
        return vectors[0], vectors[-1]

    async def _route(self, session_id: str, request: str, vector: Sequence[float] | None,
                     parent: str) -> list[Route]:
        if vector is None or not len(self.tools):
            return []
        started = time.monotonic()
        scores = self.router.scores(vector)
        routes = self.router.choose(scores, request)
        await self.tracer.emit(session_id, "route", {
            "durationMs": _ms(started), "threshold": self.router.threshold,
            "chosen": [r.tool.name for r in routes],
            "scores": {name: round(score, 4) for name, (score, _) in scores.items()},
        }, parent)
        return routes

    async def _retrieve(self, session_id: str, content: str, vector: Sequence[float] | None,
                        parent: str) -> list[Hit]:
        # Before every turn (nekoni only did it on a session's first).
        if self.knowledge is None:
            return []
        started = time.monotonic()
        hits = await self.knowledge.search(content, vector=vector)
        await self.tracer.emit(session_id, "rag_query", {
            "query": content[:200], "durationMs": _ms(started),
            "hits": [{"source": h.source, "page": h.page, "score": round(h.score, 4)}
                     for h in hits],
        }, parent)
        return hits

    async def _run_route(self, session_id: str, request: str, route: Route, stats: TurnStats,
                         parent: str, approve: Approver | None
                         ) -> tuple[str, str | None, bool]:
        """Run one chosen tool; its result, or why it failed, as a plain-words fact, what an
        answer must contain to have stated it, and whether it ran."""
        tool = route.tool
        event = await self.tracer.emit(session_id, "tool_call", {
            "phase": "start", "tool": tool.name, "score": round(route.score, 4),
            "example": route.example}, parent)
        started = time.monotonic()
        stats.tools.append(tool.name)
        arguments: Any = {}
        outcome: dict[str, Any]
        essential: str | None = None
        try:
            arguments = await self._arguments(session_id, request, route, stats, event.id)
            result = await _checked_call(tool, arguments, approve)
            fact, outcome = tool.fact(result), {"ok": True}
            essential = tool.essential(result, request) if tool.essential is not None \
                else None
        except ToolError as exc:
            fact, outcome = f"{tool.name} could not run: {exc}.", {"ok": False, "error": str(exc)}
        except Exception as exc:
            _LOGGER.exception("tool %s failed", tool.name)
            message = f"{tool.name} failed: {type(exc).__name__}: {exc}"
            fact, outcome = f"{message}.", {"ok": False, "error": message}
        await self.tracer.emit(session_id, "tool_call", {
            "phase": "complete", "tool": tool.name, "arguments": arguments,
            "durationMs": _ms(started), "fact": fact[:300], **outcome}, event.id)
        self._remember(session_id, "tool_result", {"tool": tool.name, "fact": fact})
        return fact, essential, bool(outcome["ok"])

    async def _arguments(self, session_id: str, request: str, route: Route, stats: TurnStats,
                         parent: str) -> Any:
        """Arguments read off the request; a short constrained call only for required ones
        the tool could not read itself."""
        tool = route.tool
        arguments = tool.extract(request) if tool.extract is not None else {}
        missing = [n for n in tool.parameters.get("required", []) if n not in arguments]
        if not missing:
            return arguments
        provider = self._provider
        assert provider is not None
        usage = Usage()
        started = time.monotonic()
        text = await provider.complete_structured(
            [ChatTurn("system", f"Fill in the arguments of the tool {tool.name}: "
                                f"{tool.description}"), ChatTurn("user", request)],
            tool.parameters, max_tokens=ARGUMENT_TOKENS, usage=usage,
        )
        stats.add(usage)
        await self.tracer.emit(session_id, "llm_call", {
            "phase": "complete", "kind": "tool_arguments", "durationMs": _ms(started),
            "promptTokens": usage.prompt_tokens, "evaluatedTokens": usage.evaluated_tokens,
            "completionTokens": usage.completion_tokens, "output": text[:300]}, parent)
        try:
            return {**json.loads(text), **arguments}
        except ValueError as exc:
            raise ToolError(f"no arguments could be read for {tool.name}") from exc

    async def _record_turn(self, session_id: str, stats: TurnStats) -> None:
        await self._db.record_turn(session_id, stats.llm_calls, stats.prompt_tokens,
                                   stats.completion_tokens)


async def _checked_call(tool: Tool, arguments: Any, approve: Approver | None) -> Any:
    args = validate_arguments(tool.parameters, arguments)
    if tool.requires_approval and not (approve is not None and await approve(tool.name, args)):
        raise ToolError(f"the owner did not approve {tool.name}")
    return await tool.execute(args)


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
