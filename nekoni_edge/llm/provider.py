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

    prompt_tokens: int = 0  # the prompt's length
    evaluated_tokens: int = 0  # of which the model really evaluated (the rest was cached)
    completion_tokens: int = 0
    finish_reason: str | None = None  # "stop", or "length" when max_tokens cut it


class ModelProvider(Protocol):
    """What the agent needs of a model."""

    @property
    def name(self) -> str:
        """What the box calls the model (it may change: a fallback says so)."""
        ...

    def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int, usage: Usage | None = None,
        plain_text: bool = False, session: str | None = None,
    ) -> AsyncGenerator[str, None]:
        """Yield the reply's text pieces; closing the iterator cancels the generation.

        ``plain_text`` forbids what opens JSON; ``session`` names whose conversation this is,
        so a provider can keep each session's evaluated prompt for its next turn.
        """
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
