"""nekoni's own mobile app hooks against the box (``mobile_app.py``): what a person meets when
something fails, read off the hooks' state and toasts. Needs nekoni's source (``NEKONI_SRC``,
``make check-mobile``) and node; the app-like client in ``nekoni_app.py`` covers the same
cases in every run."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.agent.answer import CUT_MARK
from nekoni_edge.config import Settings
from nekoni_edge.daemon import Daemon
from nekoni_edge.store.database import now_ms
from tests.compat.mobile_app import MobileApp, build, mobile_source, node_available

SOURCE = mobile_source()
if SOURCE is None or not node_available():
    pytest.skip("nekoni's mobile app source is not here: set NEKONI_SRC to a checkout of "
                "nekonihq/nekoni (make check-mobile), with node and npm installed",
                allow_module_level=True)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bundle() -> Path:
    assert SOURCE is not None
    return build(SOURCE)


@pytest.fixture
async def box(settings: Settings, llama_provider: Any, bundle: Path) -> AsyncIterator[Daemon]:
    daemon = Daemon(dataclasses.replace(settings, tools=False, rag=False),
                    provider=llama_provider)
    await daemon.start()
    yield daemon
    await daemon.stop()


def scanned(box: Daemon) -> dict[str, Any]:
    """The mobile QR code, as the app's scanner reads it."""
    agent: dict[str, Any] = json.loads(box.pair_code("mobile", "127.0.0.1"))
    return agent


async def app_in(box: Daemon, tmp_path: Path, name: str = "phone") -> MobileApp:
    """An install the owner approved, its chat screen open and authenticated."""
    app = MobileApp(scanned(box), tmp_path / f"{name}.json")
    await app.start()
    assert box.db is not None
    await box.db.approve_device(app.key, "Mobile")
    app.command(open=True)
    await app.until(lambda: app.shown().get("authState") == "ready", 60)
    return app


async def ask_to_pair(app: MobileApp) -> None:
    """Start the install and scan: the pair screen's request, until it is answered."""
    await app.start()
    app.command(pair=True)
    await app.until(lambda: any("paired" in e or "toast" in e for e in app.events), 30)


async def test_a_message_too_long_is_answered_in_words_and_the_dots_stop(
        box: Daemon, tmp_path: Path) -> None:
    app = await app_in(box, tmp_path)
    try:
        app.command(say="x" * 30_000)
        await app.until(lambda: bool(app.agent_messages()), 60)
        [shown] = app.agent_messages()
        assert "30,000 characters" in shown
        assert "16,000" in shown
        assert app.shown()["thinking"] is False
        assert app.toasts() == []
    finally:
        await app.close()


async def test_an_answer_cut_by_a_restart_stays_marked_after_reconnecting(
        settings: Settings, llama_provider: Any, bundle: Path, tmp_path: Path) -> None:
    with socket.socket() as probe:  # one port for both runs: the app keeps the scanned URL
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    long_box = dataclasses.replace(settings, port=port, max_tokens=400, tools=False, rag=False)
    box = Daemon(long_box, provider=llama_provider)
    await box.start()
    app = await app_in(box, tmp_path)
    try:
        app.command(say="Write a long story about a lighthouse keeper and his cat.")
        await app.until(lambda: len(app.shown().get("pending") or "") > 40, 120)
        await box.stop()
        await app.until(lambda: app.shown().get("rtcState") == "disconnected", 60)
        [shown] = app.agent_messages()
        assert shown.endswith(CUT_MARK)
        box = Daemon(long_box, provider=llama_provider)
        await box.start()
        await app.until(lambda: app.shown().get("authState") == "ready", 60)  # retried itself
        assert app.agent_messages() == [shown]
        assert app.toasts() == []
    finally:
        await app.close()
        await box.stop()


async def test_waiting_for_the_button_is_not_shown_as_an_error(
        box: Daemon, tmp_path: Path) -> None:
    app = MobileApp(scanned(box), tmp_path / "new.json")
    try:
        await ask_to_pair(app)
        [asked] = [e["paired"] for e in app.events if "paired" in e]
        assert asked["status"] == "pending_approval"
        app.command(open=True)
        await asyncio.sleep(10)  # the app retries every ~3 s meanwhile
        assert app.toasts() == []  # four "Agent error" toasts in 10 s before
        await box.pairing.press()
        await app.until(lambda: app.shown().get("authState") == "ready", 60)
    finally:
        await app.close()


async def test_a_missing_model_is_told_in_words(settings: Settings, bundle: Path,
                                                tmp_path: Path) -> None:
    box = Daemon(dataclasses.replace(settings, model_path=tmp_path / "no-such-model.gguf",
                                     tools=False, rag=False))
    await box.start()
    app = await app_in(box, tmp_path)
    try:
        app.command(say="Hello?")
        await app.until(lambda: bool(app.agent_messages()), 60)
        [shown] = app.agent_messages()
        assert shown.startswith("Sorry, I can't answer right now: the box's language model")
        assert "no-such-model" not in shown
        assert app.shown()["thinking"] is False
    finally:
        await app.close()
        await box.stop()


async def test_documents_refused_in_words(settings: Settings, llama_provider: Any,
                                          bundle: Path, tmp_path: Path) -> None:
    """The knowledge view shows ``rag_error``'s message (useRAG)."""
    from tests.pdf import make_pdf

    box = Daemon(dataclasses.replace(settings, tools=False), provider=llama_provider)
    await box.start()
    app = await app_in(box, tmp_path)
    try:
        app.command(raw={"type": "rag_upload_start", "uploadId": "empty",
                         "filename": "notes.txt", "totalChunks": 0})
        app.command(raw={"type": "rag_upload_start", "uploadId": "pdf",
                         "filename": "broken.pdf", "totalChunks": 1})
        app.command(raw={"type": "rag_upload_chunk", "uploadId": "pdf", "index": 0,
                         "content": base64.b64encode(make_pdf(["A page."])[:200]).decode()})
        await app.until(lambda: len(app.views("rag_error")) == 2, 120)
        empty, broken = sorted(app.views("rag_error"), key=lambda e: e["uploadId"])
        assert empty["message"].startswith("notes.txt: this file is empty")
        assert broken["message"].startswith("broken.pdf: could not be read as a PDF")
        assert "Error" not in broken["message"]
        assert "totalChunks" not in empty["message"]
    finally:
        await app.close()
        await box.stop()


async def test_documents_turned_off_are_told_in_words(box: Daemon, tmp_path: Path) -> None:
    app = await app_in(box, tmp_path)
    try:
        app.command(raw={"type": "rag_list"})
        await app.until(lambda: bool(app.views("rag_error")), 30)
        [refusal] = app.views("rag_error")
        assert refusal["message"].startswith("Documents are turned off on this box")
        assert "configuration" not in refusal["message"]
    finally:
        await app.close()


async def test_a_cron_result_reaches_the_chat(box: Daemon, tmp_path: Path) -> None:
    app = await app_in(box, tmp_path)
    try:
        app.command(raw={"type": "skill_create", "name": "Morning",
                         "prompt": "Say good morning in one short sentence.",
                         "description": "hi"})
        await app.until(lambda: bool(app.views("skill_response")), 30)
        skill = app.views("skill_response")[0]["skill"]
        app.command(raw={"type": "cron_create", "skillId": skill["id"],
                         "cronExpression": "* * * * *", "enabled": True})
        await app.until(lambda: bool(app.views("cron_response")), 30)
        assert box.scheduler is not None
        box.scheduler._clock_ms = lambda: now_ms() + 120_000  # a minute on
        await box.scheduler.tick()
        await app.until(lambda: bool(app.agent_messages()), 60)
        [told] = app.agent_messages()
        assert told.startswith("\u201cMorning\u201d ran on schedule: ")
    finally:
        await app.close()


async def test_a_second_phone_at_one_press_is_told_what_to_do(
        box: Daemon, tmp_path: Path) -> None:
    await box.pairing.press()
    first = MobileApp(scanned(box), tmp_path / "first.json")
    second = MobileApp(scanned(box), tmp_path / "second.json")
    try:
        for app in (first, second):
            await ask_to_pair(app)
        assert [e["paired"]["status"] for e in first.events if "paired" in e] == \
            ["already_approved"]
        [toast] = second.toasts()
        assert toast["text1"] == "Pairing failed"
        assert toast["text2"].startswith("HTTP 409: This press of the button already paired")
        assert "press the button again" in toast["text2"]
    finally:
        await first.close()
        await second.close()
