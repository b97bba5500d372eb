"""The ``ModelProvider`` seam: stream chat tokens, count tokens."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """One message of the prompt given to a model."""

    role: str
    content: str


@dataclass
class Usage:
    """Tokens one LLM call used; filled in by the provider when the call ends."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class ModelProvider(Protocol):
    """What the agent needs of a model."""

    name: str

    def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int, usage: Usage | None = None
    ) -> AsyncGenerator[str, None]:
        """Yield the reply's text pieces; closing the iterator cancels the generation."""
        ...

    async def complete_structured(
        self, messages: Sequence[ChatTurn], schema: dict[str, Any], *, max_tokens: int,
        usage: Usage | None = None,
    ) -> str:
        """A reply constrained to JSON that matches ``schema`` (a grammar, not a hope)."""
        ...

    async def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes in this model's vocabulary."""
        ...

    async def aclose(self) -> None:
        """Free the model."""
        ...
