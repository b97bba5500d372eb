"""A bigger model on another machine: the box answers through an OpenAI-compatible engine —
here llama-cpp-python's own server, started on loopback with the embedded GGUF — and falls
back to its own model when the engine goes away."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from nekoni_edge.client.phone import PhoneClient, ReplyError
from nekoni_edge.config import Settings
from nekoni_edge.daemon import Daemon
from nekoni_edge.doctor import check_engine
from nekoni_edge.llm.models import default_gguf
from tests.e2e.helpers import approved

pytestmark = pytest.mark.slow

ALIAS = "smollm"
START_S = 180.0  # loading the model on a loaded 2-core machine


class Engine:
    """``python -m llama_cpp.server`` on a loopback port; its output goes to a file."""

    def __init__(self, log: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        out = self.log.open("ab")
        self.process = subprocess.Popen(  # our own interpreter and arguments
            [sys.executable, "-m", "llama_cpp.server", "--model", str(default_gguf()),
             "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(self.port),
             "--n_ctx", "2048", "--n_threads", "1", "--verbose", "false"],
            stdout=out, stderr=subprocess.STDOUT)

    async def ready(self) -> None:
        deadline = time.monotonic() + START_S
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                assert self.process is not None
                assert self.process.poll() is None, self.log.read_text()[-2000:]
                try:
                    async with http.get(f"{self.url}/v1/models") as resp:
                        if resp.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.5)
        raise TimeoutError(f"the engine did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def said(self, words: str) -> bool:
        return words in self.log.read_text(errors="replace")


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    server = Engine(tmp_path / "engine.log")
    server.start()
    yield server
    server.kill()


@pytest.fixture
async def box(engine: Engine, settings: Settings, llama_provider: Any) -> AsyncIterator[Daemon]:
    await engine.ready()
    daemon = Daemon(dataclasses.replace(settings, model_url=engine.url, model_name=ALIAS,
                                        max_tokens=300, model_health_s=3600),
                    provider=llama_provider)  # the box's own model, behind the engine
    await daemon.start()
    yield daemon
    await daemon.stop()


def url(box: Daemon) -> str:
    return f"http://127.0.0.1:{box.port}"


async def info(box: Daemon) -> dict[str, Any]:
    async with aiohttp.ClientSession() as http, http.get(f"{url(box)}/api/info") as resp:
        result: dict[str, Any] = await resp.json()
        return result


async def models_used(box: Daemon, session: str) -> list[str]:
    assert box.chat is not None
    events = await box.chat.tracer.recent(session_id=session)
    return [e.data["model"] for _, e in events
            if e.type == "llm_call" and e.data.get("phase") == "complete" and "model" in e.data]


async def test_a_phone_chats_through_the_engine(box: Daemon, engine: Engine,
                                                settings: Settings) -> None:
    assert (await info(box))["engine"] == {"url": f"{engine.url}/v1", "model": ALIAS,
                                           "error": None}
    async with PhoneClient(await approved(box), url(box)) as phone:
        async with aclosing(phone.ask("Say hello in one short sentence.", "e1")) as stream:
            answer = "".join([p async for p in stream])
    assert answer.strip()
    assert await models_used(box, "e1") == [f"{ALIAS} at {engine.url}/v1"]
    # doctor: reachable, model present, a one-token reply
    check = await asyncio.to_thread(check_engine, dataclasses.replace(
        settings, model_url=engine.url, model_name=ALIAS))
    assert check.status == "ok", check.detail


async def long_answer_streaming(phone: PhoneClient, session: str) -> None:
    """Ask for a long answer and wait until its first chunk has arrived."""
    phone.send({"type": "message", "content": "Write a long story about a cat and a dog.",
                "sessionId": session})
    while (await phone.recv())["type"] != "chunk":
        pass


async def test_a_cancel_stops_the_engines_generation(box: Daemon, engine: Engine) -> None:
    async with PhoneClient(await approved(box), url(box)) as phone:
        await long_answer_streaming(phone, "c1")
        phone.send({"type": "cancel", "sessionId": "c1"})
        while not (await phone.recv()).get("cancelled"):
            pass
        # llama-cpp-python's server says so when the client it streams to goes away
        deadline = time.monotonic() + 60
        while not engine.said("Disconnected from client"):
            assert time.monotonic() < deadline, engine.log.read_text()[-2000:]
            await asyncio.sleep(0.2)


async def test_the_engine_killed_mid_answer(box: Daemon, engine: Engine) -> None:
    async with PhoneClient(await approved(box), url(box)) as phone:
        await long_answer_streaming(phone, "k1")
        engine.kill()
        received = []
        while (msg := await phone.recv(wait=60))["type"] not in ("message_end", "message"):
            received.append(msg)
        # the phone is told, in the words nekoni's apps show
        [error] = [m for m in received if m["type"] == "error"]
        assert error["code"] == "MODEL_UNAVAILABLE"
        assert "broke off" in error["message"]
        assert msg["type"] == "message"
        assert msg["content"].startswith("Sorry, I can't answer right now")
        # the next turn is answered by the box's own model, and /api/info says why
        async with aclosing(phone.ask("Say hello.", "k2")) as stream:
            assert "".join([p async for p in stream]).strip()
    assert (await info(box))["engine"]["error"]
    assert "fallback" in (await models_used(box, "k2"))[0]


async def test_no_engine_and_no_fallback_is_a_clear_answer(settings: Settings) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    daemon = Daemon(dataclasses.replace(settings, model_url=dead, model_name=ALIAS,
                                        model_fallback="none"))
    await daemon.start()
    try:
        assert "unreachable" in (await info(daemon))["engine"]["error"]
        async with PhoneClient(await approved(daemon), url(daemon)) as phone:
            with pytest.raises(ReplyError) as refused:
                async with aclosing(phone.ask("Hello?", "n1")) as stream:
                    _ = [p async for p in stream]
            assert refused.value.code == "MODEL_UNAVAILABLE"
            assert "unreachable" in refused.value.message
    finally:
        await daemon.stop()
