"""The box's key: created once with mode 0600, the same key after."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from nekoni_edge.errors import ConfigError
from nekoni_edge.identity import load_or_create_key
from nekoni_edge.protocol.canonical import public_key_b64


def test_created_then_loaded(tmp_path: Path) -> None:
    path = tmp_path / "state" / "identity.pem"
    key = load_or_create_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().startswith("-----BEGIN PRIVATE KEY-----")  # PKCS#8
    assert public_key_b64(load_or_create_key(path)) == public_key_b64(key)


def test_loose_mode_tightened(tmp_path: Path) -> None:
    path = tmp_path / "identity.pem"
    load_or_create_key(path)
    path.chmod(0o644)
    load_or_create_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_garbage_key_refused(tmp_path: Path) -> None:
    path = tmp_path / "identity.pem"
    path.write_text("not a key")
    path.chmod(0o600)
    with pytest.raises(ConfigError, match="not a PEM private key"):
        load_or_create_key(path)
