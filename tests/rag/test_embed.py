"""The ONNX MiniLM embedder: shape, normalization, meaning."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.rag.embed import DIMENSIONS, Embedder, default_model_files


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_paraphrases_score_higher_than_unrelated(embedder: Embedder) -> None:
    pairs = [
        ("A cat is sleeping on the sofa.", "A kitten naps on the couch.",
         "The invoice is due at the end of the month."),
        ("How do I reset the router?", "What is the way to restart the Wi-Fi box?",
         "Tomatoes need potash once they fruit."),
        ("The train leaves at nine.", "Departure of the train is 9 o'clock.",
         "My grandmother knits blue scarves."),
    ]
    for anchor, paraphrase, unrelated in pairs:
        a, p, u = await embedder.embed([anchor, paraphrase, unrelated])
        assert len(a) == DIMENSIONS
        assert abs(cos(a, a) - 1.0) < 1e-4  # L2-normalized
        assert cos(a, p) > 0.5
        assert cos(a, u) < 0.25
        assert cos(a, p) > cos(a, u) + 0.3


async def test_batching_does_not_change_results(embedder: Embedder) -> None:
    texts = [f"sentence number {i} about topic {i % 7}" for i in range(70)]
    together = await embedder.embed(texts)
    alone = [(await embedder.embed([t]))[0] for t in texts[:3]]
    for x, y in zip(alone, together[:3], strict=True):
        assert cos(x, y) > 0.9999  # padding is masked out of the mean


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    _, tokenizer = default_model_files()
    with pytest.raises(ModelUnavailable, match="does not exist"):
        Embedder(tmp_path / "missing.onnx", tokenizer)
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelUnavailable, match="could not load"):
        Embedder(tmp_path / "bad.onnx", tokenizer)


async def test_on_demand_embedder_loads_when_needed_and_lets_go() -> None:
    from nekoni_edge.rag.embed import OnDemandEmbedder

    lazy = await asyncio.to_thread(OnDemandEmbedder, threads=1, keep_s=0.3)
    try:
        assert not lazy.loaded
        first, again = await asyncio.gather(lazy.embed(["a cat"]), lazy.embed(["a cat"]))
        assert lazy.loaded
        assert lazy.loads == 1  # two callers at once, one load
        assert first == again
        await asyncio.sleep(0.6)
        assert not lazy.loaded  # released after keep_s unused
        assert await lazy.embed(["a cat"]) == first
        assert lazy.loads == 2
        assert await asyncio.to_thread(lambda: lazy.tokenizer.encode("a cat").ids)
    finally:
        lazy.close()
    assert not lazy.loaded


async def test_not_released_while_in_use() -> None:
    from nekoni_edge.rag.embed import OnDemandEmbedder

    lazy = await asyncio.to_thread(OnDemandEmbedder, threads=1, keep_s=0.05)
    try:
        texts = [f"sentence number {i} about the sea" for i in range(400)]
        await lazy.embed(["warm up"])
        await asyncio.gather(lazy.embed(texts), asyncio.sleep(0.2))
        assert lazy.loads == 1
    finally:
        lazy.close()


async def test_sorted_batches_come_back_in_the_order_given(embedder: Embedder) -> None:
    # Lengths deliberately unsorted: long, short, long, short ...
    texts = [("The boiler manual is in the kitchen drawer. " * (8 if i % 2 else 1)) + str(i)
             for i in range(9)]
    together = await embedder.embed(texts)
    for text, vector in zip(texts, together, strict=True):
        [alone] = await embedder.embed([text])
        assert cos(alone, vector) > 0.999
