"""A deterministic stand-in embedder for the loop's logic: bag of words, hashed, normalized.

Requests that share words are close; the real MiniLM is tested in test_router.py."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

DIMENSIONS = 384


def bag_of_words(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class WordEmbedder:
    """Counts its calls, so tests can see what was embedded."""

    threads = 1

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [bag_of_words(t) for t in texts]
