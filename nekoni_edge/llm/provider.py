"""The ``ModelProvider`` seam: stream chat tokens, count tokens."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """One message of the prompt given to a model."""

    role: str
    content: str


class ModelProvider(Protocol):
    """What the agent needs of a model."""

    name: str

    def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int
    ) -> AsyncGenerator[str, None]:
        """Yield the reply's text pieces; closing the iterator cancels the generation."""
        ...

    async def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes in this model's vocabulary."""
        ...

    async def aclose(self) -> None:
        """Free the model."""
        ...
