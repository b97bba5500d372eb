"""nekoni's own apps against the box: a client that behaves as they do (``nekoni_app.py``)
pairs by QR code and button, chats, and runs skills and cron with nekoni's shapes."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np
import png
import pytest
import zxingcpp

from nekoni_edge import cli
from nekoni_edge.config import Settings
from nekoni_edge.daemon import Daemon
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.store.database import now_ms
from tests.compat.nekoni_app import APP_ORIGIN, RETRY_S, NekoniApp, parse_qr

pytestmark = pytest.mark.slow


def decode_png(path: Path, *, invert: bool) -> str:
    """What the app's scanner reads off the code (zxing-cpp). ``invert``: as nekoni's web app,
    whose scanner inverts the picture first, so it reads light-on-dark codes only."""
    width, height, rows, info = png.Reader(filename=str(path)).asDirect()
    levels = 2 ** info["bitdepth"] - 1  # segno writes 1-bit greyscale
    pixels = np.array([list(row) for row in rows], dtype=np.uint32) * 255 // levels
    grey = np.ascontiguousarray(
        pixels.reshape(height, width, info["planes"])[:, :, 0].astype(np.uint8))
    if invert:
        grey = 255 - grey
    found = zxingcpp.read_barcodes(grey, try_invert=False)
    assert len(found) == 1, "exactly one QR code in the picture"
    return str(found[0].text)


def is_inverted(path: Path) -> bool:
    """Light modules on a dark ground: the corner (quiet zone) is dark."""
    _w, _h, rows, info = png.Reader(filename=str(path)).asDirect()
    return next(iter(rows))[0] < (2 ** info["bitdepth"]) // 2


async def pair_code(settings: Settings, app: str, tmp_path: Path,
                    capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
    """``nekoni-edge qr --app APP --png FILE`` against the running box: the decoded text."""
    out = tmp_path / f"{app}.png"
    code = await cli.main(["qr", "--data-dir", str(settings.data_dir), "--app", app,
                           "--png", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "▀" in printed or "█" in printed  # drawn in the terminal too
    return decode_png(out, invert=app == "web"), out


async def test_cors_preflight_from_another_origin(daemon: Daemon) -> None:
    base = f"http://127.0.0.1:{daemon.port}"
    async with aiohttp.ClientSession() as http:
        async with http.options(f"{base}/api/pair", headers={
                "Origin": APP_ORIGIN, "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
                "Access-Control-Request-Private-Network": "true"}) as pre:
            assert pre.status == 204  # was 405, and the app said "Failed to fetch"
            assert pre.headers["Access-Control-Allow-Origin"] == "*"
            assert "POST" in pre.headers["Access-Control-Allow-Methods"]
            assert pre.headers["Access-Control-Allow-Headers"].lower() == "content-type"
            assert pre.headers["Access-Control-Allow-Private-Network"] == "true"
        # an error is readable cross-origin too, so the app can show its detail
        async with http.post(f"{base}/api/pair", data=b"{oops",
                             headers={"Origin": APP_ORIGIN}) as bad:
            assert bad.status == 400
            assert bad.headers["Access-Control-Allow-Origin"] == "*"
            assert (await bad.json())["detail"]
        async with http.get(f"{base}/api/info", headers={"Origin": APP_ORIGIN}) as info:
            assert info.headers["Access-Control-Allow-Origin"] == "*"
        async with http.get(f"{base}/", headers={"Origin": APP_ORIGIN}) as page:
            assert "Access-Control-Allow-Origin" not in page.headers  # the page: no CORS


async def test_request_first_pairing_gets_in_within_one_retry_after_the_press(
        daemon: Daemon, settings: Settings, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    text, picture = await pair_code(settings, "web", tmp_path, capsys)
    assert is_inverted(picture)  # the web app's scanner reads only light-on-dark codes
    app = NekoniApp(parse_qr(text, "web"), "web")
    assert app.agent["agentPubKey"] == daemon.pub_key
    try:
        status, body, _cors = await app.pair()
        assert (status, body["status"]) == (200, "pending_approval")
        assert "press the button" in body["detail"]
        # nekoni's order: it reconnects every ~3.2 s while the request waits. Six joins in
        # 16 s were NOT_APPROVED failures that blocked key and address for 5 minutes.
        with pytest.raises(TimeoutError):
            await app.connect_until_in(max_attempts=6)
        # waiting is not failure: the mobile app showed four "Agent error" toasts in 10 s
        assert app.shown.toasts == []
        assert daemon.peers is not None
        limiter = daemon.peers.limiter
        key = public_key_b64(app.key)
        assert not limiter.is_blocked(key, "127.0.0.1", now=time.monotonic())
        # whatever else blocked it (say, retries with a wrong clock), the press lifts
        for _ in range(limiter.max_failures):
            limiter.failure(key, now=time.monotonic())
        assert limiter.is_blocked(key, now=time.monotonic())
        assert daemon.pairing is not None
        await daemon.pairing.press()
        started = time.monotonic()
        assert await app.connect_until_in(max_attempts=3) == 1  # the next retry gets in
        assert time.monotonic() - started < RETRY_S + 30  # one connect, on a loaded machine
        # it pings every 5 s and is answered
        await app.until(lambda: app.pongs >= 1, 30)
    finally:
        await app.close()


async def test_a_second_message_mid_stream_is_answered_in_turn(daemon: Daemon) -> None:
    info = daemon.info(f"127.0.0.1:{daemon.port}")
    app = NekoniApp(parse_qr(daemon.pair_code("web", "127.0.0.1"), "web"), "web")
    assert app.agent["signalUrl"] == info["signalUrl"]
    await daemon.pairing.press()  # type: ignore[union-attr]
    try:
        status, body, _ = await app.pair()
        # press first: nekoni's apps say "approve on the dashboard" for any other status
        assert (status, body["status"]) == (200, "already_approved")
        assert body["detail"] == "Paired. You can connect now."
        await app.connect_until_in(max_attempts=3)
        app.say("Write a short paragraph about the sea.")
        await app.until(lambda: app.shown.pending is not None, 60)  # the first one streams
        app.say("Name a fruit.")
        shown = await app.shown_count(2)
        assert all(m.strip() for m in shown)  # both answered, neither empty
        assert app.shown.streamed == [True, True]  # two answers, not an answer and a refusal
        assert app.shown.pending is None
    finally:
        await app.close()


async def test_skills_and_cron_with_nekonis_shapes(daemon: Daemon) -> None:
    app = NekoniApp(parse_qr(daemon.pair_code("web", "127.0.0.1"), "web"), "web")
    assert daemon.db is not None
    await daemon.db.approve_device(public_key_b64(app.key), "Web")
    try:
        await app.connect_until_in(max_attempts=3)
        app.send({"type": "skill_create", "name": "Greeting",
                  "prompt": "Say good morning in one short sentence.", "description": "hi"})
        skill = (await app.reply("skill_response"))["skill"]
        assert set(skill) == {"id", "name", "prompt", "description", "createdAt"}
        app.send({"type": "skill_update", "id": skill["id"], "name": "Morning",
                  "prompt": skill["prompt"], "description": "hi"})
        assert (await app.reply("skill_response"))["skill"]["name"] == "Morning"
        app.send({"type": "skill_list"})
        assert [s["id"] for s in (await app.reply("skill_list_response"))["skills"]] == \
            [skill["id"]]
        app.send({"type": "cron_create", "skillId": skill["id"], "cronExpression": "* * * * *",
                  "enabled": True})
        job = (await app.reply("cron_response"))["job"]
        assert set(job) == {"id", "skillId", "cronExpression", "enabled", "lastRun",
                            "createdAt"}
        app.send({"type": "cron_list"})
        assert [j["skillId"] for j in (await app.reply("cron_list_response"))["jobs"]] == \
            [skill["id"]]  # the app finds the job under its skill

        # cron's run streams to nobody, but its result reaches the household: nekoni's apps
        # show a job's last run time only, and any ``message`` in the chat (issue: "a cron
        # job's output appears nowhere")
        assert daemon.scheduler is not None
        daemon.scheduler._clock_ms = lambda: now_ms() + 120_000  # a minute on
        assert await daemon.scheduler.tick() == [job["id"]]
        await app.until(lambda: bool(app.shown.messages), 30)
        [told] = app.shown.messages
        assert told.startswith("\u201cMorning\u201d ran on schedule: ")
        assert app.shown.pending is None
        logged = await daemon.db.messages_after(f"skill:{skill['id']}", 0, all_roles=True)
        assert logged[-1].role == "assistant"
        assert logged[-1].content.strip() in told

        app.send({"type": "skill_run", "id": skill["id"]})
        result = await app.reply("skill_run_response")
        assert result["id"] == skill["id"]
        assert result["result"].strip()
        assert app.shown.messages == [told]  # no stray bubble in the chat view
        assert app.shown.pending is None

        app.send({"type": "cron_update", "id": job["id"], "enabled": False})
        assert (await app.reply("cron_response"))["job"]["enabled"] is False
        app.send({"type": "skill_delete", "id": skill["id"]})
        assert await app.reply("skill_delete_response") == {"type": "skill_delete_response",
                                                             "id": skill["id"]}
        app.send({"type": "cron_list"})
        assert (await app.reply("cron_list_response"))["jobs"] == []  # went with its skill
    finally:
        await app.close()


@pytest.fixture
async def tls_box(settings: Settings, llama_provider: Any) -> AsyncIterator[Daemon]:
    """A box with its LAN default: HTTPS, and the plain app port beside it."""
    box = Daemon(dataclasses.replace(settings, tls="on", loopback_port=0, app_port=0),
                 provider=llama_provider)
    await box.start()
    yield box
    await box.stop()


async def test_the_mobile_app_pairs_and_chats_over_the_plain_app_port(
        tls_box: Daemon, settings: Settings, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    text, picture = await pair_code(settings, "mobile", tmp_path, capsys)
    assert not is_inverted(picture)  # an ordinary code for the phone's camera
    qr = parse_qr(text, "mobile")
    assert set(qr) == {"agentPubKey", "signalUrl", "agentUrl", "roomId", "agentName"}
    assert qr["agentUrl"] == f"http://127.0.0.1:{tls_box.app_port}"  # no certificate to trust
    assert qr["signalUrl"] == f"ws://127.0.0.1:{tls_box.app_port}/signal"
    web = parse_qr(tls_box.pair_code("web", "127.0.0.1"), "web")
    assert web["agentUrlHttps"] == web["agentUrl"] == f"https://127.0.0.1:{tls_box.port}"
    assert web["signalUrl"].startswith("wss://")
    # the plain port serves the API and signaling, never the box's page
    async with aiohttp.ClientSession() as http, http.get(qr["agentUrl"] + "/") as page:
        assert page.status == 404
    app = NekoniApp(qr, "mobile")
    await tls_box.pairing.press()  # type: ignore[union-attr]
    try:
        status, body, _ = await app.pair()
        assert (status, body["status"]) == (200, "already_approved")
        await app.connect_until_in(max_attempts=3)
        app.say("Say hello.")
        assert (await app.shown_count(1))[0].strip()
    finally:
        await app.close()


def test_the_page_draws_both_codes() -> None:
    web = Path(cli.__file__).parent.parent / "web"
    page = (web / "index.html").read_text(encoding="utf-8")
    assert "Pair a nekoni app" in page
    script = (web / "app.js").read_text(encoding="utf-8")
    assert "/api/pair/qr?app=" in script
    assert sys.version_info >= (3, 11)


async def connected_app(daemon: Daemon) -> NekoniApp:
    app = NekoniApp(parse_qr(daemon.pair_code("web", "127.0.0.1"), "web"), "web")
    assert daemon.db is not None
    await daemon.db.approve_device(public_key_b64(app.key), "Web")
    await app.connect_until_in(max_attempts=3)
    return app


async def test_what_the_apps_show_when_a_message_or_a_document_is_refused(
        daemon: Daemon) -> None:
    """nekoni's apps show no ``error``: a 30,000-character message left the typing dots
    turning for good; a broken PDF and an empty file were told in the box's words
    ("PdfStreamError", "totalChunks must be a positive integer")."""
    from tests.pdf import make_pdf

    app = await connected_app(daemon)
    try:
        app.say("x" * 30_000)
        await app.until(lambda: not app.shown.thinking, 30)
        [shown] = app.shown.messages
        assert "30,000 characters" in shown
        assert "16,000" in shown
        assert app.phone is not None
        # documents (the knowledge view shows ``rag_error``'s message)
        app.send({"type": "rag_upload_start", "uploadId": "empty", "filename": "notes.txt",
                  "totalChunks": 0})
        refusal = await app.reply("rag_error", 30)
        assert refusal["message"].startswith("notes.txt: this file is empty")
        broken = make_pdf(["The boiler is serviced in May."] * 20)[:400]
        app.send({"type": "rag_upload_start", "uploadId": "pdf", "filename": "broken.pdf",
                  "totalChunks": 1})
        import base64

        app.send({"type": "rag_upload_chunk", "uploadId": "pdf", "index": 0,
                  "content": base64.b64encode(broken).decode()})
        refusal = await app.reply("rag_error", 60)
        assert refusal["message"].startswith("broken.pdf: could not be read as a PDF")
        assert "Error" not in refusal["message"]  # an exception's name is the detail's
        assert refusal["detail"]
    finally:
        await app.close()


async def test_an_answer_cut_by_a_restart_stays_and_says_so(
        settings: Settings, llama_provider: Any) -> None:
    """The box restarted mid-answer: the part on screen (12 pieces) vanished, and the
    question was left with no answer and no notice. It stays, marked as cut short, in the
    chat and in the box's history."""
    from nekoni_edge.agent.answer import CUT_MARK
    from nekoni_edge.client.phone import PhoneClient

    long_box = dataclasses.replace(settings, max_tokens=400, tools=False, rag=False)
    box = Daemon(long_box, provider=llama_provider)
    await box.start()
    app = await connected_app(box)
    try:
        app.say("Write a long story about a lighthouse keeper and his cat.")
        await app.until(lambda: len(app.shown.pending or "") > 40, 120)
        await box.stop()
        await app.until(lambda: app.closed, 30)
        [shown] = app.shown.messages
        assert shown.endswith(CUT_MARK)
        assert len(shown) > 40
    finally:
        await app.close()
    box = Daemon(long_box, provider=llama_provider)
    await box.start()
    try:
        async with PhoneClient(app.key, f"http://127.0.0.1:{box.port}") as phone:
            history = await phone.request({"type": "sync", "sessionId": app.session_id},
                                          "sync_response")
        assert history["messages"][-1]["content"] == shown
    finally:
        await box.stop()


async def test_a_missing_model_is_told_in_words(settings: Settings, tmp_path: Path) -> None:
    """"model file /tmp/…/no-such-model.gguf does not exist: set model_path to a GGUF file"
    was what the chat showed."""
    box = Daemon(dataclasses.replace(settings, model_path=tmp_path / "no-such-model.gguf",
                                     tools=False, rag=False))
    await box.start()
    app = await connected_app(box)
    try:
        app.say("Hello?")
        await app.until(lambda: bool(app.shown.messages), 60)
        [shown] = app.shown.messages
        assert shown.startswith("Sorry, I can't answer right now: the box's language model")
        assert "no-such-model" not in shown
        assert "nekoni-edge doctor" in shown
    finally:
        await app.close()
        await box.stop()


async def test_documents_turned_off_are_told_in_words(settings: Settings,
                                                     llama_provider: Any) -> None:
    """The knowledge view showed "the knowledge base is unavailable: disabled in the
    configuration (rag = false)"."""
    box = Daemon(dataclasses.replace(settings, tools=False, rag=False), provider=llama_provider)
    await box.start()
    app = await connected_app(box)
    try:
        app.send({"type": "rag_list"})
        refusal = await app.reply("rag_error", 30)
        assert refusal["message"].startswith("Documents are turned off on this box")
        assert "rag = false" in refusal["detail"]
        assert "configuration" not in refusal["message"]
    finally:
        await app.close()
        await box.stop()
