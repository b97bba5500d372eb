"""Chat turns: the episodic log, a rolling context with the system prompt pinned, streaming."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing

from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.provider import ChatTurn, ModelProvider
from nekoni_edge.rag.knowledge import KnowledgeBase, context_block
from nekoni_edge.rag.store import Hit
from nekoni_edge.store.database import Database, StoredMessage

_LOGGER = logging.getLogger(__name__)


class ChatService:
    """Runs one user turn: log it, build the context, stream the model, log the answer."""

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

    @property
    def provider(self) -> ModelProvider | None:
        return self._provider

    async def build_context(self, session_id: str, knowledge: str = "") -> list[ChatTurn]:
        """System prompt (+ retrieved knowledge) + the last N messages, oldest dropped first
        to fit the model's context."""
        history = await self._db.recent_messages(session_id, self._context_messages)
        prompt = f"{self._system_prompt}\n\n{knowledge}" if knowledge else self._system_prompt
        system = ChatTurn("system", prompt)
        if self._provider is None:
            return [system, *(ChatTurn(m.role, m.content) for m in history)]
        budget = self._n_ctx - self._max_tokens - await self._provider.count_tokens(prompt)
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
    ) -> AsyncGenerator[str, None]:
        """Log the user's message, then yield the reply's pieces and log the reply.

        If the consumer stops early (cancel, vanished peer), what was generated so far is
        still logged, so a second device's ``sync`` sees what the first one saw.
        """
        if self._provider is None:
            raise ModelUnavailable(self.model_error or "no model is loaded")
        await self._db.append_message(session_id, "user", content, device_key)
        # Retrieved before every turn (nekoni only did it on a session's first).
        hits = await self.knowledge.search(content) if self.knowledge is not None else []
        if on_context is not None:
            on_context(hits)
        context = await self.build_context(session_id, context_block(hits))
        pieces: list[str] = []
        try:
            async with aclosing(
                self._provider.stream_chat(context, max_tokens=self._max_tokens)
            ) as stream:
                async for piece in stream:
                    pieces.append(piece)
                    yield piece
        finally:
            text = "".join(pieces).strip()
            if text:
                await self._db.append_message(session_id, "assistant", text, device_key)
