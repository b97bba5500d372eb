"""A scripted model for tests of the agent's logic (never the only test of the model path)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence

from nekoni_edge.llm.provider import ChatTurn


class ScriptedProvider:
    """Replies with the next scripted answer, piece by piece; records every prompt."""

    name = "scripted"

    def __init__(self, replies: Sequence[Sequence[str]], *, delay: float = 0.0) -> None:
        self._replies = [list(r) for r in replies]
        self._delay = delay
        self.prompts: list[list[ChatTurn]] = []
        self._lock = asyncio.Lock()

    async def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int
    ) -> AsyncGenerator[str, None]:
        async with self._lock:
            self.prompts.append(list(messages))
            if not self._replies:
                raise AssertionError(
                    f"scripted provider ran out of replies at prompt {len(self.prompts)}: "
                    f"{messages[-1].content!r}"
                )
            for piece in self._replies.pop(0)[:max_tokens]:
                if self._delay:
                    await asyncio.sleep(self._delay)
                yield piece

    async def count_tokens(self, text: str) -> int:
        return len(text.split())

    async def aclose(self) -> None:
        return None
