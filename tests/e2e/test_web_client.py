"""The box's web page in Debian's headless Chromium against the daemon, with the real model.

The browser's own WebCrypto (Ed25519), IndexedDB, WebSocket and WebRTC stacks talk to the box:
nothing of our Python client is involved. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nekoni_edge.config import Settings
from nekoni_edge.store.access import now_ms
from tests.e2e.browser import Browser

pytestmark = pytest.mark.slow

READY = "return document.getElementById('status').dataset.state === 'ready'"
ASSISTANT = "return [...document.querySelectorAll('.msg.assistant')]"


class Box:
    """A daemon that the test can restart on the same port and data directory."""

    def __init__(self, settings: Settings, llama_model: Any) -> None:
        self.settings = settings
        self.model = llama_model
        self.daemon: Any = None

    async def start(self) -> Any:
        from nekoni_edge.daemon import Daemon
        from nekoni_edge.llm.llama import LlamaProvider
        from nekoni_edge.llm.models import default_gguf

        provider = LlamaProvider(self.model, default_gguf(), temperature=0.0, owns_model=False)
        self.daemon = Daemon(self.settings, provider=provider)
        await self.daemon.start()
        self.settings = dataclasses.replace(self.settings, port=self.daemon.port)
        return self.daemon

    async def stop(self) -> None:
        if self.daemon is not None:
            await self.daemon.stop()
            self.daemon = None

    async def press_button(self) -> None:
        """What the owner's finger does, through the box's control socket."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "nekoni_edge", "press", "--data-dir",
            str(self.settings.data_dir), stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await proc.communicate()
        assert out.strip() == b"ok"


@pytest.fixture
async def box(settings: Settings, llama_model: Any) -> AsyncIterator[Box]:
    # Long enough answers that a cancel lands mid-stream.
    b = Box(dataclasses.replace(settings, max_tokens=200), llama_model)
    await b.start()
    yield b
    await b.stop()


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Browser]:
    b = await Browser.start(tmp_path / "profile")
    yield b
    await b.quit()


async def pair_in_page(browser: Browser, box: Box, shot: str) -> None:
    await browser.wait_js("return !document.getElementById('pair-panel').hidden")
    await browser.click("pair-button")
    await browser.wait_js(
        "return document.getElementById('pair-hint').textContent.includes('Press the button')"
    )
    await browser.screenshot(shot)
    await box.press_button()
    await browser.wait_js(READY)


async def test_pair_chat_cancel_upload_and_reconnect(
    box: Box, browser: Browser, tmp_path: Path
) -> None:
    base = f"http://127.0.0.1:{box.daemon.port}"
    await browser.get(f"{base}/")
    await pair_in_page(browser, box, "web-pairing")
    key = await browser.js("return window.nekoni.identity.pubKey")
    devices = await box.daemon.db.list_devices()
    assert [d.pub_key for d in devices] == [key]  # the browser's WebCrypto key was approved

    # A question: count the chunks as the page receives them.
    await browser.js("""
        window.chunks = [];
        window.nekoni.addEventListener('message', (e) => {
          if (e.detail.type === 'chunk') window.chunks.push(e.detail.content);
        });""")
    await browser.type_into("prompt", "Write a short paragraph about why cats like boxes.")
    await browser.click("send")
    await browser.wait_js(ASSISTANT + ".at(-1)?.dataset.state === 'done'")
    chunks = await browser.js("return window.chunks")
    answer = await browser.js(ASSISTANT + ".at(-1).textContent")
    assert len(chunks) >= 2, chunks
    assert answer == "".join(chunks)
    assert answer.strip()
    await browser.screenshot("web-chat")
    log = await box.daemon.db.recent_messages("web-" + key[:8], 10)
    assert [m.role for m in log][-2:] == ["user", "assistant"]

    # Cancel: the page's Stop button, pressed as soon as the first chunk shows.
    await browser.js("""
        window.nekoni.addEventListener('message', (e) => {
          if (e.detail.type === 'chunk') document.getElementById('cancel').click();
        }, {once: false});""")
    await browser.type_into("prompt", "Write a long story about a cat who lives in a box.")
    await browser.click("send")
    await browser.wait_js(ASSISTANT + ".at(-1)?.dataset.state === 'cancelled'")
    assert box.daemon.chat.provider.cancelled >= 1
    await browser.js("window.location.reload()")  # drop the cancelling listener
    await browser.wait_js(READY)

    # Upload a document with a progress bar; see it listed; delete it.
    doc = tmp_path / "garden-notes.txt"
    doc.write_text("The tomatoes in the garden are watered every Tuesday at dawn.\n" * 40)
    await browser.type_into("file", str(doc))
    await browser.wait_js(
        "return [...document.querySelectorAll('#docs .doc-name')]"
        ".some((e) => e.textContent.startsWith('garden-notes.txt'))"
    )
    assert await browser.js("return document.getElementById('upload-progress').value") == 1
    assert "chunks stored" in await browser.text("upload-status")
    await browser.screenshot("web-documents")
    assert [d.source for d in await box.daemon.chat.knowledge.store.documents()] == [
        "garden-notes.txt"]
    # paired by the button moments ago: on probation, it may not delete yet, and says so
    await browser.js("document.querySelector('#docs .delete').click()")
    await browser.wait_js(
        "return document.getElementById('upload-status').textContent.includes('paired moments')")
    assert box.daemon.box is not None  # its window closes: the policy's clock moves on
    box.daemon.box.policy.clock_ms = lambda: now_ms() + 10 * 60 * 1000
    await browser.js("document.querySelector('#docs .delete').click()")
    await browser.wait_js("return document.querySelectorAll('#docs li').length === 0")
    assert await box.daemon.chat.knowledge.store.documents() == []

    # The box restarts (same port, same key): the page reconnects by itself and chats again.
    await box.stop()
    await browser.wait_js("return document.getElementById('status').dataset.state "
                          "=== 'disconnected'")
    await box.start()
    await browser.wait_js(READY)
    history = await browser.js(ASSISTANT + ".map((e) => e.textContent)")
    assert answer in history  # the conversation came back over sync
    await browser.type_into("prompt", "Say hello.")
    await browser.click("send")
    await browser.wait_js(ASSISTANT + ".at(-1)?.dataset.state === 'done'")
    await browser.screenshot("web-reconnected")


async def test_browser_signatures_match_the_vectors(
    box: Box, browser: Browser, vectors: dict[str, Any]
) -> None:
    """The page's canonical JSON and WebCrypto signatures, byte for byte against nekoni's."""
    await browser.get(f"http://127.0.0.1:{box.daemon.port}/")
    result = await browser.call(browser.driver.execute_async_script, """
        const [vectors, done] = arguments;
        (async () => {
          const m = await import('/web/nekoni.js');
          const hex = (h) => Uint8Array.from(h.match(/../g), (b) => parseInt(b, 16));
          // PKCS#8 wrapping of a raw Ed25519 seed, so WebCrypto can import the vectors' key.
          const pkcs8 = new Uint8Array([...hex('302e020100300506032b657004220420'),
                                        ...hex(vectors.phone_seed_hex)]);
          const priv = await crypto.subtle.importKey('pkcs8', pkcs8, {name: 'Ed25519'}, false,
                                                     ['sign']);
          const identity = new m.Identity({privateKey: priv}, vectors.phone_pubKey);
          const join = {...vectors.signaling.join}; delete join.sig;
          const pair = {...vectors.pair_request.body}; delete pair.sig;
          const answer = {...vectors.signaling.answer}; delete answer.sig;
          return {
            joinCanonical: m.canonical(join),
            joinSig: (await identity.signed(join)).sig,
            pairCanonical: m.canonical(pair),
            pairSig: await identity.signPayload(pair),
            responseSig: await identity.signPayload(vectors.handshake.response_signed_payload),
            answerOk: await m.verifyPayload(vectors.agent_pubKey,
              {...answer, pubKey: vectors.agent_pubKey}, vectors.signaling.answer.sig),
            challengeOk: await m.verifyPayload(vectors.agent_pubKey,
              vectors.handshake.challenge_signed_payload, vectors.handshake.challenge.sig),
            tamperedOk: await m.verifyPayload(vectors.agent_pubKey,
              {...answer, sdp: 'v=1', pubKey: vectors.agent_pubKey}, vectors.signaling.answer.sig),
          };
        })().then(done, (e) => done({error: String(e)}));
    """, vectors)
    assert "error" not in result, result
    assert result["joinCanonical"] == vectors["signaling"]["join_canonical"]
    assert result["joinSig"] == vectors["signaling"]["join"]["sig"]
    assert result["pairCanonical"] == vectors["pair_request"]["canonical"]
    assert result["pairSig"] == vectors["pair_request"]["body"]["sig"]
    assert result["responseSig"] == vectors["handshake"]["response"]["sig"]
    assert result["answerOk"] is True
    assert result["challengeOk"] is True
    assert result["tamperedOk"] is False


async def test_the_page_over_https_pins_the_box_certificate(
    settings: Settings, llama_model: Any, tmp_path: Path
) -> None:
    """Over TLS (as on a LAN address): Chromium trusts exactly the box's certificate."""
    b = Box(dataclasses.replace(settings, tls="on"), llama_model)
    daemon = await b.start()
    try:
        cert = x509.load_pem_x509_certificate(daemon.certificate.cert_path.read_bytes())
        spki = cert.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
        pin = base64.b64encode(hashlib.sha256(spki).digest()).decode()
        browser = await Browser.start(tmp_path / "tls-profile",
                                      (f"--ignore-certificate-errors-spki-list={pin}",))
        try:
            await browser.get(f"https://127.0.0.1:{daemon.port}/")
            await pair_in_page(browser, b, "web-https-pairing")
            assert await browser.js("return window.isSecureContext") is True
            await browser.type_into("prompt", "Say hello.")
            await browser.click("send")
            await browser.wait_js(ASSISTANT + ".at(-1)?.dataset.state === 'done'")
        finally:
            await browser.quit()
    finally:
        await b.stop()
