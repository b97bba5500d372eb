"""The prompt's own scaffolding read back in an answer (system prompt, instruction, the notes'
framing): such an answer is never sent. Pure text logic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nekoni_edge.words import STOPWORDS, words

# --- Scaffolding read back --------------------------------------------------------------------
# Words of the prompt's own scaffolding in a row that make an echo, both meaningful ("helpful
# assistant"), or an opening that is the scaffolding's own ("You are nekoni").
ECHO_WORDS = 2
OPENING_WORDS = 3  # held at an answer's opening until they are plainly not scaffolding


def _shingles(text: str, n: int) -> set[tuple[str, ...]]:
    said = words(text)
    return {tuple(said[i:i + n]) for i in range(len(said) - n + 1)
            if sum(w not in STOPWORDS for w in said[i:i + n]) >= 2}


class EchoCheck:
    """Finds the prompt's own scaffolding (system prompt, instruction, document framing) read
    back in an answer: ECHO_WORDS of its meaningful words in a row, or its opening words."""

    def __init__(self, scaffolding: Iterable[str]) -> None:
        self._shingles: set[tuple[str, ...]] = set()
        self._openings: set[tuple[str, ...]] = set()
        for text in scaffolding:
            self._shingles |= _shingles(text, ECHO_WORDS)
            self._openings.add(tuple(words(text)[:OPENING_WORDS]))

    def find(self, text: str) -> bool:
        """Whether ``text`` reads back scaffolding."""
        lowered = text.lower()
        opening = lowered.lstrip()
        # The notes' own framing: their header, or a note's label ('- manual.md › Water: "',
        # '- gym.txt: "').
        if "owner's documents" in lowered or re.match(r"(the )?(question|notes)\b\W", opening) \
                or re.search(r'\[[\w.-]+\.(txt|md|pdf)\]|[\w.-]+\.(txt|md|pdf)(?: ›|: ")', lowered):
            return True
        return (tuple(words(text)[:OPENING_WORDS]) in self._openings
                or bool(_shingles(text, ECHO_WORDS) & self._shingles))
