"""The box's self-signed certificate, and the daemon serving HTTPS with it."""

from __future__ import annotations

import dataclasses
import ssl
import stat
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from cryptography import x509

from nekoni_edge.config import Settings
from nekoni_edge.errors import ConfigError
from nekoni_edge.tls import load_or_create
from tests.e2e.helpers import approved


def test_made_once_then_kept(tmp_path: Path) -> None:
    cert_path, key_path = tmp_path / "tls.crt", tmp_path / "tls.key"
    first = load_or_create(cert_path, key_path, "kitchen")
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    again = load_or_create(cert_path, key_path, "kitchen")
    assert again.fingerprint == first.fingerprint
    assert len(first.fingerprint) == 64
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "kitchen.local" in names.get_values_for_type(x509.DNSName)
    assert isinstance(first.server_context(), ssl.SSLContext)


def test_a_key_that_does_not_match_is_refused(tmp_path: Path) -> None:
    load_or_create(tmp_path / "a.crt", tmp_path / "a.key", "a")
    load_or_create(tmp_path / "b.crt", tmp_path / "b.key", "b")
    with pytest.raises(ConfigError, match="does not belong"):
        load_or_create(tmp_path / "a.crt", tmp_path / "b.key", "a")


def test_tls_auto_follows_the_host(settings: Settings) -> None:
    assert not settings.use_tls  # loopback is already a secure context for browsers
    assert dataclasses.replace(settings, host="0.0.0.0").use_tls
    assert dataclasses.replace(settings, tls="on").use_tls
    with pytest.raises(ConfigError, match="tls"):
        dataclasses.replace(settings, tls="maybe").validate()


@pytest.fixture
async def tls_daemon(settings: Settings, llama_provider: Any) -> Any:
    from nekoni_edge.daemon import Daemon

    box = Daemon(dataclasses.replace(settings, tls="on"), provider=llama_provider)
    await box.start()
    yield box
    await box.stop()


async def test_https_with_the_published_fingerprint(tls_daemon: Any) -> None:
    fingerprint = tls_daemon.certificate.fingerprint
    pinned = aiohttp.TCPConnector(ssl=aiohttp.Fingerprint(bytes.fromhex(fingerprint)))
    async with aiohttp.ClientSession(connector=pinned) as http:
        async with http.get(f"https://127.0.0.1:{tls_daemon.port}/api/info") as resp:
            info = await resp.json()
        async with http.get(f"https://127.0.0.1:{tls_daemon.port}/") as resp:
            assert resp.status == 200
            assert "Content-Security-Policy" in resp.headers
    assert info["tlsFingerprint"] == fingerprint
    assert info["agentUrl"].startswith("https://")
    assert info["signalUrl"].startswith("wss://")
    assert tls_daemon._txt()["tlsFingerprint"] == fingerprint

    wrong = aiohttp.TCPConnector(ssl=aiohttp.Fingerprint(b"\0" * 32))
    async with aiohttp.ClientSession(connector=wrong) as http:
        with pytest.raises(aiohttp.ServerFingerprintMismatch):
            await http.get(f"https://127.0.0.1:{tls_daemon.port}/api/info")
    # Plain HTTP on the TLS port gets nowhere.
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.ClientError):
            await http.get(f"http://127.0.0.1:{tls_daemon.port}/api/info")


async def test_phone_over_wss_with_a_pinned_certificate(tls_daemon: Any) -> None:
    from nekoni_edge.client.phone import PhoneClient

    key = await approved(tls_daemon, "phone")
    async with PhoneClient(key, f"https://127.0.0.1:{tls_daemon.port}",
                           tls_fingerprint=tls_daemon.certificate.fingerprint) as phone:
        pong = await phone.request({"type": "ping"}, "pong")
    assert pong == {"type": "pong"}


async def test_the_certificate_survives_a_restart(settings: Settings, llama_model: Any) -> None:
    from nekoni_edge.daemon import Daemon
    from nekoni_edge.llm.llama import LlamaProvider
    from nekoni_edge.llm.models import default_gguf

    prints = []
    for _ in range(2):
        provider = LlamaProvider(llama_model, default_gguf(), owns_model=False)
        box = Daemon(dataclasses.replace(settings, tls="on"), provider=provider)
        await box.start()
        prints.append(box.certificate.fingerprint)  # type: ignore[union-attr]
        await box.stop()
    assert prints[0] == prints[1]
