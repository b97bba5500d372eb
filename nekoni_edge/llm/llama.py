"""The llama.cpp provider: one model, one worker thread, one generation at a time (FIFO)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from nekoni_edge.config import Settings
from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.provider import ChatTurn, Usage
from nekoni_edge.memory import meminfo, return_freed_memory
from nekoni_edge.pacing import Joiner

_LOGGER = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
# Tokens after the first are handed from the model's thread to the event loop at most this
# often: the app sends text at most every 100 ms anyway (``app.chat.COALESCE_S``), and each
# hand-over wakes the loop, which then takes the GIL from the worker mid-token. One hand-over
# per token cost the loop 17 ms of CPU per answer (75 tokens), 10 ms at 50 ms, 7 ms at 100 ms:
# time taken from llama.cpp's two lockstep threads on a two-core board.
HANDOFF_S = 0.1
# Tokens handed over one by one before the pacing starts: the answer's first words are checked
# (not the prompt read back) before anything is sent, and waiting 100 ms for the second
# hand-over put +108 ms on the first piece (bench_chat). Six tokens cover three words.
HANDOFF_AT_ONCE = 6
# Room the process needs beside the weights (KV cache, buffers) for a small context.
MEMORY_MARGIN_BYTES = 128 * 1024 * 1024


def available_memory_bytes() -> int | None:
    """MemAvailable from /proc/meminfo, or None where there is no such file."""
    return meminfo().get("MemAvailable")


def check_model_file(path: Path, available: int | None = None) -> int:
    """Refuse a missing, non-GGUF or too-large model file with a clear message; return size."""
    if not path.is_file():
        raise ModelUnavailable(f"model file {path} does not exist: set model_path to a GGUF file")
    with path.open("rb") as fh:
        magic = fh.read(4)
    if magic != GGUF_MAGIC:
        raise ModelUnavailable(f"model file {path} is not a GGUF file (magic {magic!r})")
    size = path.stat().st_size
    available = available_memory_bytes() if available is None else available
    if available is not None and size + MEMORY_MARGIN_BYTES > available:
        raise ModelUnavailable(
            f"model file {path} ({size // 2**20} MiB) does not fit in the "
            f"{available // 2**20} MiB of memory available: choose a smaller quantization"
        )
    return size


# ggml type ids (ggml.h): the KV cache element types we offer.
KV_CACHE_TYPES = {"f16": 1, "q8_0": 8}


SMALL_BOARD_BYTES = 3 * 2**30


def resolve_kv_cache_type(kv_cache_type: str, mem_total: int | None = None) -> str:
    """``auto``: q8_0 on a board with under 3 GiB of RAM (a Pi 4 with 2 GiB), f16 elsewhere."""
    if kv_cache_type != "auto":
        return kv_cache_type
    if mem_total is None:
        mem_total = _mem_total()
    return "q8_0" if mem_total and mem_total < SMALL_BOARD_BYTES else "f16"


def _mem_total() -> int:
    return meminfo().get("MemTotal", 0)


def kv_cache_options(kv_cache_type: str = "f16", n_batch: int = Settings.n_batch
                     ) -> dict[str, Any]:
    """llama.cpp's memory options: KV cache type, flash attention, prompt batch size.

    Measured after a 1,500-token prompt (SmolLM2-135M, n_ctx 2048, 2 x86 cores): flash
    attention keeps 29 MiB less resident at the same speed, and batches of 128 instead of 512
    another 12 MiB (compute buffers scale with the batch) with no measurable loss; a q8_0 cache
    (llama.cpp quantizes V only with flash attention) 22 MiB less again but evaluates prompts
    about 2x slower (that prompt: 17.8 s against 8.7 s).
    """
    kv_type = KV_CACHE_TYPES[resolve_kv_cache_type(kv_cache_type)]
    return {"type_k": kv_type, "type_v": kv_type, "flash_attn": True, "n_batch": n_batch,
            "n_ubatch": n_batch}


class SessionStates:
    """Saved KV caches of the sessions not in the model, least recently used out first, within
    a byte budget. An evicted session is simply evaluated again on its next turn."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget_bytes = budget_bytes
        self._states: OrderedDict[str, tuple[Any, int]] = OrderedDict()

    @property
    def used_bytes(self) -> int:
        return sum(size for _, size in self._states.values())

    def __len__(self) -> int:
        return len(self._states)

    def put(self, session: str, state: Any, size: int) -> None:
        self._states.pop(session, None)
        if size > self.budget_bytes:
            return
        self._states[session] = (state, size)
        while self.used_bytes > self.budget_bytes:
            gone, _ = self._states.popitem(last=False)
            _LOGGER.info("model state of session %s dropped (budget %d MiB)", gone,
                         self.budget_bytes // 2**20)

    def pop(self, session: str) -> Any:
        entry = self._states.pop(session, None)
        return entry[0] if entry is not None else None


class EvalCounter:
    """Prompt tokens llama.cpp itself evaluated for one call, from its performance counters
    (a prompt prefix already in the KV cache is not evaluated again)."""

    def __init__(self, llm: Any) -> None:
        import llama_cpp

        self._perf = llama_cpp.llama_perf_context
        self._ctx = llm.ctx
        before = self._perf(self._ctx)
        self._start = int(before.n_p_eval + before.n_eval)

    def prompt_evaluated(self, completion_tokens: int) -> int:
        after = self._perf(self._ctx)
        # Each sampled token but the last is evaluated one by one to sample the next.
        evaluated = int(after.n_p_eval + after.n_eval) - self._start
        return max(0, evaluated - max(0, completion_tokens - 1))


class LlamaProvider:
    """A GGUF model run by llama-cpp-python in a dedicated worker thread."""

    def __init__(
        self,
        llm: Any,
        path: Path,
        *,
        temperature: float = 0.7,
        owns_model: bool = True,
        executor: ThreadPoolExecutor | None = None,
        state_budget_bytes: int = Settings.model_state_mib * 2**20,
        handoff_s: float = HANDOFF_S,
    ) -> None:
        """Wrap a loaded ``llama_cpp.Llama``; ``owns_model`` says whether aclose frees it."""
        self.handoff_s = handoff_s
        self._llm = llm
        self._owns_model = owns_model
        self.path = path
        self.name = path.name
        self._executor = executor or ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="llama"
        )
        self._temperature = temperature
        self.states = SessionStates(state_budget_bytes)
        self._kv_owner: str | None = None  # whose conversation the KV cache holds
        self._no_brace: Any = None
        self._lock = asyncio.Lock()  # asyncio.Lock wakes waiters in FIFO order
        self._waiting = 0
        self.generations = 0  # finished or stopped, for diagnostics and tests
        self.cancelled = 0  # of which stopped before llama.cpp finished

    @classmethod
    async def load(
        cls, path: Path, *, n_threads: int, n_ctx: int, temperature: float = 0.7, seed: int = -1,
        use_mmap: bool = True, kv_cache_type: str = Settings.kv_cache_type,
        n_batch: int = Settings.n_batch, state_budget_bytes: int = Settings.model_state_mib * 2**20,
    ) -> LlamaProvider:
        """Load the model in its worker thread; raise ModelUnavailable on any failure."""
        kv_cache_type = resolve_kv_cache_type(kv_cache_type)
        check_model_file(path)
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")
        started = time.monotonic()

        def load() -> Any:
            from llama_cpp import Llama  # heavy; only the adapter imports it

            llm = Llama(
                model_path=str(path),
                n_threads=n_threads,
                n_ctx=n_ctx,
                seed=seed,
                use_mmap=use_mmap,
                verbose=False,
                **kv_cache_options(kv_cache_type, n_batch),
            )
            # At start, not in the first answer: a scan of the whole vocabulary (~0.1 s here).
            return llm, forbidden_tokens(llm)

        try:
            llm, forbidden = await asyncio.get_running_loop().run_in_executor(executor, load)
        except Exception as exc:
            executor.shutdown(wait=False)
            raise ModelUnavailable(f"llama.cpp could not load {path}: {exc}") from exc
        _LOGGER.info(
            "model %s loaded in %.2f s (n_ctx=%d, n_threads=%d, KV cache %s)",
            path.name, time.monotonic() - started, n_ctx, n_threads, kv_cache_type,
        )
        provider = cls(llm, path, temperature=temperature, executor=executor,
                       state_budget_bytes=state_budget_bytes)
        provider._no_brace = forbidden
        return provider

    @property
    def queue_depth(self) -> int:
        """Generations waiting for the model, not counting the running one."""
        return self._waiting

    async def _acquire(self) -> None:
        """Wait (counted in ``queue_depth``) for this model's one generation slot."""
        self._waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self._waiting -= 1

    def _plain_text_processor(self) -> Any:
        """A logits processor that forbids every token containing '{' or a code fence (built
        once): JSON, and so a tool call, cannot start, and a household answer loses nothing."""
        if self._no_brace is None:  # a provider made around an already loaded model
            self._no_brace = forbidden_tokens(self._llm)
        no_brace = self._no_brace

        def forbid(_ids: Any, scores: Any) -> Any:
            scores[no_brace] = -float("inf")
            return scores

        return forbid

    def _save_session(self, session: str) -> None:
        """Keep the session's KV cache (worker thread) as another takes the model."""
        import ctypes

        import llama_cpp
        import numpy as np
        from llama_cpp.llama import LlamaState

        llm = self._llm
        size = llama_cpp.llama_state_get_size(llm.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = int(llama_cpp.llama_state_get_data(llm.ctx, buffer, size))
        # Not llm.save_state(): it also copies the score rows (~25 MiB at n_batch 128 with a
        # 49k vocabulary) that a load recomputes anyway; one row keeps load_state's shapes.
        state = LlamaState(
            input_ids=llm.input_ids.copy(), scores=np.zeros((1, llm.n_vocab()), np.single),
            n_tokens=llm.n_tokens, llama_state=bytes(memoryview(buffer)[:written]),
            llama_state_size=written, seed=llm._seed,  # restored by load_state
        )
        self.states.put(session, state, written)

    def _switch_session(self, session: str | None) -> None:
        """Bring back the arriving session's KV cache if it is not the one in the model
        (worker thread); llama.cpp then evaluates only its new suffix."""
        if session == self._kv_owner:
            return
        # Copied only now, when another conversation takes the model: a box with one phone
        # keeps no second copy of the cache it already holds (its size: ~23 KiB a token, f16),
        # and the copy costs the arriving phone a memcpy.
        if self._kv_owner is not None and self.states.budget_bytes > 0:
            try:
                self._save_session(self._kv_owner)
            except Exception:  # the leaving session's next turn is only slower, not wrong
                _LOGGER.exception("could not keep the model state of %s", self._kv_owner)
        arriving = self.states.pop(session) if session is not None else None
        if arriving is not None:
            self._llm.load_state(arriving)
        self._kv_owner = session

    async def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int, usage: Usage | None = None,
        plain_text: bool = False, session: str | None = None,
    ) -> AsyncGenerator[str, None]:
        """Yield reply pieces; closing the iterator stops llama.cpp at the next token."""
        await self._acquire()
        try:
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
            cancel = threading.Event()
            prompt = [{"role": m.role, "content": m.content} for m in messages]

            def put(kind: str, value: Any) -> None:
                loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

            def generate() -> None:
                from llama_cpp import LogitsProcessorList

                try:
                    self._switch_session(session)
                    processors = (LogitsProcessorList([self._plain_text_processor()])
                                  if plain_text else None)
                    counter = EvalCounter(self._llm)
                    stream = self._llm.create_chat_completion(
                        messages=prompt,
                        max_tokens=max_tokens,
                        temperature=self._temperature,
                        stream=True,
                        logits_processor=processors,
                    )
                    produced, finish = self._relay(stream, cancel, put)
                    if usage is not None:
                        usage.completion_tokens = produced
                        usage.prompt_tokens = max(0, int(self._llm.n_tokens) - produced)
                        usage.evaluated_tokens = counter.prompt_evaluated(produced)
                        usage.finish_reason = finish
                except Exception as exc:  # reported to the caller, not lost in the thread
                    put("error", exc)
                finally:
                    put("end", None)
                    # Still in the worker, so the next generation waits for it, not the loop:
                    # a turn's temporary buffers go back to the system (-8 MiB idle RSS).
                    return_freed_memory()

            done = loop.run_in_executor(self._executor, generate)
            finished = False
            try:
                while True:
                    kind, value = await queue.get()
                    if kind == "end":
                        finished = True
                        break
                    if kind == "error":
                        raise ModelUnavailable(f"generation failed: {value}") from value
                    yield value
            finally:
                cancel.set()
                self.generations += 1
                if not finished:
                    self.cancelled += 1
                    _LOGGER.info("generation stopped early (cancelled or consumer gone)")
                # Hold the model until llama.cpp has really stopped, even if we are cancelled.
                await _wait_uncancellable(done)
        finally:
            self._lock.release()

    def _relay(self, stream: Iterable[Any], cancel: threading.Event,
               put: Callable[[str, Any], None]) -> tuple[int, str | None]:
        """Pass a llama.cpp stream's pieces on until ``cancel``: the first tokens at once (the
        answer's opening is checked on its first words before anything is sent), then
        joined. Returns the tokens produced and the finish reason."""
        produced = 0
        finish = None
        joiner = Joiner(self.handoff_s, at_once=HANDOFF_AT_ONCE)
        for chunk in stream:
            if cancel.is_set():
                break
            choice = chunk["choices"][0]
            finish = choice.get("finish_reason") or finish
            piece = choice["delta"].get("content")
            if piece:
                produced += 1  # llama-cpp-python streams one token a chunk
                now = time.monotonic()
                if joiner.push(piece, now) <= 0:
                    put("piece", joiner.take(now))
        if not cancel.is_set() and (rest := joiner.take(time.monotonic())):
            put("piece", rest)
        return produced, finish

    async def complete_structured(
        self, messages: Sequence[ChatTurn], schema: dict[str, Any], *, max_tokens: int,
        usage: Usage | None = None,
    ) -> str:
        """One non-streamed reply whose tokens are constrained by a grammar from ``schema``."""
        import json

        from llama_cpp.llama_grammar import LlamaGrammar

        prompt = [{"role": m.role, "content": m.content} for m in messages]

        def generate() -> dict[str, Any]:
            self._switch_session(None)
            grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            counter = EvalCounter(self._llm)
            result: dict[str, Any] = self._llm.create_chat_completion(
                messages=prompt, max_tokens=max_tokens, temperature=0.0, grammar=grammar
            )
            result["usage"]["evaluated_tokens"] = counter.prompt_evaluated(
                int(result["usage"]["completion_tokens"]))
            return result

        await self._acquire()
        try:
            future = asyncio.get_running_loop().run_in_executor(self._executor, generate)
            try:
                result = await asyncio.shield(future)
            except asyncio.CancelledError:
                await _wait_uncancellable(future)  # type: ignore[arg-type]
                raise
        except Exception as exc:
            if isinstance(exc, asyncio.CancelledError):
                raise
            raise ModelUnavailable(f"structured generation failed: {exc}") from exc
        finally:
            self.generations += 1
            self._lock.release()
        if usage is not None:
            usage.prompt_tokens = int(result["usage"]["prompt_tokens"])
            usage.evaluated_tokens = int(result["usage"]["evaluated_tokens"])
            usage.completion_tokens = int(result["usage"]["completion_tokens"])
        return str(result["choices"][0]["message"]["content"] or "")

    async def count_tokens(self, text: str) -> int:
        """Token count with the model's own tokenizer (read-only; safe beside a generation)."""
        loop = asyncio.get_running_loop()
        tokens = await loop.run_in_executor(
            None, lambda: self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        )
        return len(tokens)

    async def aclose(self) -> None:
        """Free the model and stop the worker thread."""
        async with self._lock:
            llm, self._llm = self._llm, None
            if llm is not None and self._owns_model:
                await asyncio.get_running_loop().run_in_executor(self._executor, llm.close)
        self._executor.shutdown(wait=True)
        _LOGGER.info("model %s unloaded", self.name)


def forbidden_tokens(llm: Any) -> Any:
    """The vocabulary's tokens that contain '{' or a code fence (blocking: worker thread)."""
    import numpy as np

    pieces = (llm.detokenize([i], special=False) for i in range(llm.n_vocab()))
    return np.asarray([i for i, piece in enumerate(pieces) if b"{" in piece or b"```" in piece],
                      dtype=np.intp)


async def _wait_uncancellable(future: asyncio.Future[None]) -> None:
    """Wait for ``future`` even while our task is being cancelled; re-raise the cancel after."""
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
        except Exception:  # noqa: S110 - the generator thread reports errors via the queue
            pass
    if cancelled:
        raise asyncio.CancelledError
