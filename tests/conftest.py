"""Shared fixtures: loopback-only settings, the real model loaded once, a running daemon,
and guards that fail a test which blocks the event loop or leaks a thread."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.config import Settings, load_settings

DATA = Path(__file__).parent / "data"
# A callback that holds the loop this long is a bug (sqlite, llama.cpp and ONNX run elsewhere);
# below it, a 2-core machine under load shows noise (aiortc's DTLS steps reach 0.5 s).
SLOW_CALLBACK_S = 1.0


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    """The golden signatures (a copy of the shared protocol vectors)."""
    data: dict[str, Any] = json.loads((DATA / "signatures.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture
def agent_key(vectors: dict[str, Any]) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vectors["agent_seed_hex"]))


@pytest.fixture
def phone_key(vectors: dict[str, Any]) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vectors["phone_seed_hex"]))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Loopback only: HTTP on an ephemeral port of 127.0.0.1, ICE on 127.0.0.1."""
    return load_settings(
        env={}, data_dir=tmp_path / "box", host="127.0.0.1", port=0,
        ice_addresses=("127.0.0.1",), max_tokens=48, temperature=0.0, n_threads=2, n_ctx=2048,
        mdns=False, gpio="off",
    )


class _SlowCallbackDetector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("Executing") and " took " in message:
            self.records.append(message)


@pytest.fixture(autouse=True)
async def _police_event_loop() -> AsyncIterator[None]:
    """Fail the test if any callback blocked its event loop for SLOW_CALLBACK_S or more."""
    loop = asyncio.get_running_loop()
    detector = _SlowCallbackDetector()
    logger = logging.getLogger("asyncio")
    logger.addHandler(detector)
    debug, slow = loop.get_debug(), loop.slow_callback_duration
    loop.set_debug(True)
    loop.slow_callback_duration = SLOW_CALLBACK_S
    try:
        yield
    finally:
        loop.set_debug(debug)
        loop.slow_callback_duration = slow
        logger.removeHandler(detector)
    assert not detector.records, f"event loop blocked: {detector.records}"


@pytest.fixture(autouse=True)
def _no_leaked_threads() -> Iterator[None]:
    """Fail the test if it leaves a non-daemon thread running (it would hang the process)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 5
    leaked = [t for t in threading.enumerate()
              if t not in before and not t.daemon
              and not t.name.startswith("asyncio_")]  # default executor, joined at loop close
    for thread in leaked:  # a thread on its way out is given until the deadline
        thread.join(max(0.0, deadline - time.monotonic()))
    leaked = [t for t in leaked if t.is_alive()]
    assert not leaked, f"threads leaked: {[t.name for t in leaked]}"


@pytest.fixture
def keep_logging() -> Iterator[None]:
    """``cli.main`` sets up logging as the command does; give the test run its own back."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(scope="session")
def embedder() -> Iterator[Any]:
    """The real ONNX embedder, loaded once for the whole run."""
    from nekoni_edge.rag.embed import Embedder

    e = Embedder.default(threads=2)
    # Start its workers now, so the thread-leak guard counts them as there before each test.
    e._executor.submit(e.embed_sync, ["one", "two", "three", "four"]).result()
    yield e
    e.close()


@pytest.fixture(scope="session")
def llama_model() -> Iterator[Any]:
    """The embedded SmolLM2 GGUF, loaded once through llama.cpp for the whole run."""
    from llama_cpp import Llama

    from nekoni_edge.llm.llama import kv_cache_options
    from nekoni_edge.llm.models import default_gguf

    llm = Llama(model_path=str(default_gguf()), n_threads=2, n_ctx=2048, seed=1, verbose=False,
                **kv_cache_options(Settings.kv_cache_type, Settings.n_batch))
    yield llm
    llm.close()


@pytest.fixture
async def llama_provider(llama_model: Any) -> AsyncIterator[Any]:
    """A LlamaProvider over the shared model (its own worker thread and queue)."""
    from nekoni_edge.llm.llama import LlamaProvider
    from nekoni_edge.llm.models import default_gguf

    provider = LlamaProvider(llama_model, default_gguf(), temperature=0.0, owns_model=False)
    yield provider
    await provider.aclose()


@pytest.fixture
async def daemon(settings: Settings, llama_provider: Any) -> AsyncIterator[Any]:
    """A running daemon on loopback with the real model."""
    from nekoni_edge.daemon import Daemon

    box = Daemon(settings, provider=llama_provider)
    await box.start()
    yield box
    await box.stop()


@pytest.fixture
async def approved_key(daemon: Any) -> Ed25519PrivateKey:
    """A fresh phone key, approved on the daemon."""
    from tests.e2e.helpers import approved

    return await approved(daemon, "test phone")


@pytest.fixture
async def phone(daemon: Any, approved_key: Ed25519PrivateKey) -> AsyncIterator[Any]:
    """A connected, authenticated reference client."""
    from nekoni_edge.client.phone import PhoneClient

    async with PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}") as client:
        yield client
