"""A scripted model for tests of the agent's logic (never the only test of the model path)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from nekoni_edge.llm.provider import ChatTurn, Usage

Step = list[str] | str | dict[str, Any]


class ScriptedProvider:
    """Plays a script: a list of pieces answers a streamed call, a str or dict answers a
    structured call. Every prompt is recorded; running out or a mismatch names the step."""

    name = "scripted"

    def __init__(self, steps: Sequence[Step], *, delay: float = 0.0) -> None:
        self._steps = list(steps)
        self._delay = delay
        self.prompts: list[list[ChatTurn]] = []
        self.schemas: list[dict[str, Any]] = []
        self.plain_text: list[bool] = []
        self._lock = asyncio.Lock()

    def _next(self, messages: Sequence[ChatTurn], kind: str) -> Step:
        self.prompts.append(list(messages))
        where = f"step {len(self.prompts)} ({kind}) for {messages[-1].content[:60]!r}"
        if not self._steps:
            raise AssertionError(f"scripted provider ran out of replies at prompt "
                                 f"{len(self.prompts)}: {where}")
        step = self._steps.pop(0)
        wants_stream = kind == "stream"
        if isinstance(step, list) != wants_stream:
            raise AssertionError(f"scripted provider: {where} got {type(step).__name__}")
        return step

    async def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int, usage: Usage | None = None,
        plain_text: bool = False, session: str | None = None,
    ) -> AsyncGenerator[str, None]:
        """Plays the step as given: ``plain_text`` is recorded, not enforced, so the agent's
        own guard against JSON answers can be tested."""
        async with self._lock:
            step = self._next(messages, "stream")
            assert isinstance(step, list)
            self.plain_text.append(plain_text)
            pieces = step[:max_tokens]
            if usage is not None:
                usage.prompt_tokens = sum(len(m.content.split()) for m in messages)
                usage.evaluated_tokens = usage.prompt_tokens
                usage.completion_tokens = len(pieces)
                usage.finish_reason = "length" if len(step) > max_tokens else "stop"
            for piece in pieces:
                if self._delay:
                    await asyncio.sleep(self._delay)
                yield piece

    async def complete_structured(
        self, messages: Sequence[ChatTurn], schema: dict[str, Any], *, max_tokens: int,
        usage: Usage | None = None,
    ) -> str:
        async with self._lock:
            self.schemas.append(schema)
            step = self._next(messages, "structured")
            text = step if isinstance(step, str) else json.dumps(step)
            if usage is not None:
                usage.prompt_tokens = sum(len(m.content.split()) for m in messages)
                usage.evaluated_tokens = usage.prompt_tokens
                usage.completion_tokens = len(text.split())
            return text

    async def count_tokens(self, text: str) -> int:
        return len(text.split())

    async def aclose(self) -> None:
        return None
