"""What the chat service keeps of each session in memory: the window of history the model saw,
the most recent sessions (bounded), and one turn's token accounting."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from nekoni_edge.llm.provider import Usage

MAX_SESSIONS_IN_MEMORY = 100
T = TypeVar("T")


@dataclass
class TurnStats:
    """Token accounting of one turn."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    completion_tokens: int = 0
    tools: list[str] = field(default_factory=list)
    new_prompt: str = ""  # the turn's user message as the model saw it (facts, documents)

    def add(self, usage: Usage) -> None:
        self.llm_calls += 1
        self.prompt_tokens += usage.prompt_tokens
        self.evaluated_tokens += usage.evaluated_tokens
        self.completion_tokens += usage.completion_tokens


@dataclass
class Window:
    """A session's history as the model saw it: where it starts, and each user message's
    prompt form (with its facts and retrieved text) and token count."""

    first_id: int = 0
    forms: dict[int, str] = field(default_factory=dict)
    tokens: dict[int, int] = field(default_factory=dict)
    last_query: str = ""  # what the last turn was searched with: a follow-up's subject
    last_shown: tuple[str, ...] = ()  # the notes the last turn showed: a follow-up's, likely


def recent(sessions: OrderedDict[str, T], session_id: str, make: Callable[[], T]) -> T:
    """The session's entry, made if missing and marked most recent; the least recent beyond
    MAX_SESSIONS_IN_MEMORY are dropped."""
    entry = sessions.pop(session_id, None)
    if entry is None:
        entry = make()
    sessions[session_id] = entry
    while len(sessions) > MAX_SESSIONS_IN_MEMORY:
        sessions.popitem(last=False)
    return entry
