"""The ONNX MiniLM embedder: shape, normalization, meaning."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.rag.embed import Embedder, default_model_files
from nekoni_edge.store.chunks import DIMENSIONS


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
    from tests.timers import FakeTimers

    timers = FakeTimers()
    lazy = await asyncio.to_thread(OnDemandEmbedder, threads=1, keep_s=300,
                                   call_later=timers.call_later)
    try:
        assert not lazy.loaded
        first, again = await asyncio.gather(lazy.embed(["a cat"]), lazy.embed(["a cat"]))
        assert lazy.loaded
        assert lazy.loads == 1  # two callers at once, one load
        assert first == again
        timers.advance(299)
        assert lazy.loaded
        timers.advance(1)
        assert not lazy.loaded  # released after keep_s unused
        assert await lazy.embed(["a cat"]) == first
        assert lazy.loads == 2
        assert await asyncio.to_thread(lambda: lazy.tokenizer.encode("a cat").ids)
    finally:
        lazy.close()
    assert not lazy.loaded


async def test_not_released_while_in_use() -> None:
    from nekoni_edge.rag.embed import OnDemandEmbedder
    from tests.timers import FakeTimers

    timers = FakeTimers()
    lazy = await asyncio.to_thread(OnDemandEmbedder, threads=1, keep_s=1,
                                   call_later=timers.call_later)
    try:
        texts = [f"sentence number {i} about the sea" for i in range(400)]
        await lazy.embed(["warm up"])
        running = asyncio.ensure_future(lazy.embed(texts))
        await asyncio.sleep(0)  # it has started: the release timer is cancelled
        timers.advance(10)  # far past keep_s while it embeds
        assert lazy.loaded
        await running
        assert lazy.loads == 1
        assert timers.scheduled == 1  # released only keep_s after it is done
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


def test_the_int8_kernels_agree_with_the_model_in_fp32() -> None:
    """The default runs the packaged int8 weights on integer kernels; its vectors must stay
    those of the model (the same weights expanded to fp32 once, as exported)."""
    from benchmarks.household import chunk_texts

    texts = chunk_texts(24) + ["What time does the cat get fed?", "hi"]
    fast = Embedder.default(threads=1)
    exact = Embedder.default(threads=1, fold_weights=True)
    try:
        assert fast.kernels == "int8"
        assert exact.kernels == "fp32, folded at load"
        cosines = [cos(a, b) for a, b in zip(fast.embed_sync(texts), exact.embed_sync(texts),
                                              strict=True)]
    finally:
        fast.close()
        exact.close()
    assert min(cosines) > 0.995
    assert sum(cosines) / len(cosines) > 0.998


def test_the_rewritten_graph_keeps_the_weights_int8() -> None:
    import onnx

    from nekoni_edge.rag.int8graph import integer_graph

    onnx_path, _ = default_model_files()
    model = onnx.load(str(onnx_path))
    int8_bytes = sum(len(i.raw_data) for i in model.graph.initializer
                     if i.data_type == onnx.TensorProto.INT8)
    rewritten = integer_graph(model)
    assert (rewritten.shared, rewritten.blockwise, rewritten.tables) == (18, 18, 2)
    ops = [n.op_type for n in rewritten.model.graph.node]
    assert "MatMul" not in [n.op_type for n in rewritten.model.graph.node
                            if any(i.endswith("_q") for i in n.input)]
    assert ops.count("DynamicQuantizeLinear") * 3 == ops.count("MatMulInteger")  # Q, K, V
    # Nothing rebuilds a weight in fp32 any more: no Cast reads an int8 initializer, and the
    # initializers stay about the size of the int8 weights (the scales add a little).
    initializers = {i.name: i for i in rewritten.model.graph.initializer}
    assert not [n for n in rewritten.model.graph.node
                if n.op_type == "Cast" and n.input[0] in initializers]
    total = sum(len(i.raw_data) or 4 * len(i.float_data) for i in initializers.values())
    assert total < 1.2 * int8_bytes
    onnx.checker.check_model(rewritten.model)


def test_without_the_int8_kernels_it_runs_the_export(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    from nekoni_edge.rag import int8cache

    def broken(source: Path, target: Path) -> dict[str, int]:
        raise ModelUnavailable("the int8 rewrite failed: MatMulNBits: no kernel for bits=8")

    monkeypatch.setattr(int8cache, "_build_in_child", broken)
    model = Embedder.default(threads=1)
    try:
        assert model.kernels == "as exported"
        assert "int8 kernels failed (the int8 rewrite failed: MatMulNBits" in caplog.text
        assert len(model.embed_sync(["a cat"])[0]) == DIMENSIONS
    finally:
        model.close()


def test_the_process_that_embeds_never_rewrites_the_graph(tmp_path: Path) -> None:
    """The rewrite (``onnx`` and its copies of the model, ~65 MiB that stayed resident) runs
    in a child process, once: the box's own process loads the finished file from its cache."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from nekoni_edge.rag.embed import Embedder\n"
        "e = Embedder.default(threads=1, cache_dir=Path(sys.argv[1]))\n"
        "assert e.kernels == 'int8', e.kernels\n"
        "print('onnx' in sys.modules, len(e.embed_sync(['a cat'])[0]))\n"
    )
    for _ in range(2):  # built, then loaded from the cache
        done = subprocess.run([sys.executable, "-c", script, str(tmp_path)],
                              capture_output=True, text=True, timeout=300, check=True)
        assert done.stdout.split() == ["False", str(DIMENSIONS)]
    assert [p.name for p in tmp_path.iterdir()] == [
        int8cache_name(default_model_files()[0])]


def int8cache_name(source: Path) -> str:
    from nekoni_edge.rag.int8cache import cached_name

    return cached_name(source)


def test_a_cached_rewrite_is_reused_and_a_stale_one_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from nekoni_edge.rag import int8cache

    source, _ = default_model_files()
    stale = tmp_path / "minilm-int8-v0-1-2.onnx"
    tmp_path.mkdir(exist_ok=True)
    stale.write_bytes(b"an older rewrite")
    builds: list[Path] = []
    build = int8cache._build_in_child

    def counted(src: Path, target: Path) -> dict[str, int]:
        builds.append(target)
        return build(src, target)

    monkeypatch.setattr(int8cache, "_build_in_child", counted)
    for _ in range(2):
        with int8cache.integer_model(source, tmp_path) as path:
            assert path.stat().st_size > 1_000_000
    assert builds == [tmp_path / int8cache.cached_name(source)]
    assert not stale.exists()
    # A cached file that will not load is dropped, so the next load builds it again.
    (tmp_path / int8cache.cached_name(source)).write_bytes(b"torn")
    model = Embedder.default(threads=1, cache_dir=tmp_path)
    try:
        assert model.kernels == "as exported"
    finally:
        model.close()
    assert not (tmp_path / int8cache.cached_name(source)).exists()


def test_long_texts_are_cut_as_the_tokenizer_would(embedder: Embedder) -> None:
    from nekoni_edge.rag.embed import MAX_WORD_PIECES, fit, load_tokenizer

    _, tokenizer_path = default_model_files()
    truncating = load_tokenizer(tokenizer_path)
    truncating.enable_truncation(MAX_WORD_PIECES)
    for text in ["short", "word " * 254, "word " * 255, "a much longer text " * 300]:
        assert fit(embedder.tokenizer.encode(text).ids) == truncating.encode(text).ids


def test_runs_side_by_side_give_each_text_its_own_vector(embedder: Embedder) -> None:
    """Several ONNX runs at once (``threads``) return every vector in its text's place, equal
    to the text embedded alone."""
    texts = [f"note {i}: " + "the boiler was serviced " * (i % 7 + 1) for i in range(23)]
    assert embedder.threads == 2
    together = embedder.embed_sync(texts)
    alone = [embedder.embed_sync([text])[0] for text in texts]
    assert together == alone


def _hidden(model: object, texts: list[str]) -> list[object]:
    """Per-token outputs of ``model`` for ``texts`` padded into one batch, each row cut to its
    own tokens."""
    import numpy as np
    import onnxruntime

    from nekoni_edge.rag.embed import load_tokenizer

    session = onnxruntime.InferenceSession(model.SerializeToString(),  # type: ignore[attr-defined]
                                           providers=["CPUExecutionProvider"])
    tokenizer = load_tokenizer(default_model_files()[1])
    rows = [tokenizer.encode(t).ids for t in texts]
    ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
    mask = np.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, : len(row)], mask[i, : len(row)] = row, 1
    out = session.run(None, {"input_ids": ids, "attention_mask": mask,
                             "token_type_ids": np.zeros_like(ids)})[0]
    return [out[i, : len(row)] for i, row in enumerate(rows)]


def _export(rescaled: bool) -> object:
    """The packaged export; ``rescaled``: its attention scales (query and key each times
    32^-1/4) set to 0.5, as another export might write them."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(default_model_files()[0]))
    if rescaled:
        for i, init in enumerate(model.graph.initializer):
            value = numpy_helper.to_array(init)
            if value.size == 1 and abs(float(value.reshape(-1)[0]) - 32 ** -0.25) < 1e-6:
                model.graph.initializer[i].CopyFrom(
                    numpy_helper.from_array(np.asarray(0.5, value.dtype), init.name))
    return model


@pytest.mark.parametrize("rescaled", [False, True])
def test_fused_attention_computes_what_the_export_does(rescaled: bool) -> None:
    """Each attention block on ``MultiHeadAttention``: the export's masking nodes are gone and
    the outputs are the export's, padding included (a lost mask changes the short row) and
    with whatever scale the export uses."""
    import numpy as np
    import onnx

    from nekoni_edge.rag.int8graph import fuse_attention

    texts = ["the boiler", "the spare key is kept in the garage, next to the bike pump"]
    exported = _hidden(_export(rescaled), texts)
    fused, blocks = fuse_attention(_export(rescaled))
    assert blocks == 6
    ops = [n.op_type for n in fused.graph.node]
    assert ops.count("MultiHeadAttention") == 6
    assert {"Softmax", "Where", "IsNaN", "Transpose"}.isdisjoint(ops)
    onnx.checker.check_model(fused)
    for a, b in zip(exported, _hidden(fused, texts), strict=True):
        assert np.abs(a - b).max() < 1e-4  # type: ignore[operator]


def test_an_unknown_attention_shape_is_left_alone() -> None:
    import onnx
    from onnx import TensorProto, helper

    from nekoni_edge.rag.int8graph import fuse_attention

    x = helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Softmax", ["attention_mask"], ["y"])], "g",
                              [x], [y])
    model = helper.make_model(graph)
    before = model.SerializeToString()
    after, blocks = fuse_attention(model)
    assert blocks == 0
    assert after.SerializeToString() == before
    onnx.checker.check_model(after)
