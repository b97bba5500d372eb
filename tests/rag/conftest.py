"""The real ONNX embedder, loaded once for the knowledge tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nekoni_edge.rag.embed import Embedder


@pytest.fixture(scope="session")
def embedder() -> Iterator[Embedder]:
    e = Embedder.default(threads=2)
    # Start its worker now, so the thread-leak guard counts it as there before each test.
    e._executor.submit(lambda: None).result()
    yield e
    e.close()
