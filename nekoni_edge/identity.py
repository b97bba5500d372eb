"""The box's Ed25519 identity: created on first start (PKCS#8 PEM, 0600), loaded after."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import stat
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from nekoni_edge.errors import ConfigError
from nekoni_edge.protocol.canonical import public_key_b64

_LOGGER = logging.getLogger(__name__)


def load_or_create_key(path: Path) -> Ed25519PrivateKey:
    """Load the Ed25519 key at ``path``, creating it (mode 0600) if it does not exist."""
    if path.exists():
        return _load(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    write_atomically(path, key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    _LOGGER.info("created identity %s (pubKey %s)", path, public_key_b64(key))
    return key


def write_atomically(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` so that a power cut leaves no file or a whole one, never half."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def box_name(key: Ed25519PrivateKey) -> str:
    """The box's default name and hostname, from its key's fingerprint: ``nekoni-1a2b3c``."""
    return "nekoni-" + hashlib.sha256(public_key_b64(key).encode("ascii")).hexdigest()[:6]


def setup_code(key: Ed25519PrivateKey) -> str:
    """The box's setup code (printed on its label, in the label's QR): derived from its key, so
    it lives as long as the identity, needs no file of its own and is never sent by the box
    to anyone who asks over the network. 120 bits: not to be guessed."""
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    digest = hmac.new(raw, b"nekoni-edge setup code", hashlib.sha256).digest()
    return base64.b32encode(digest[:15]).decode("ascii").lower()


def _load(path: Path) -> Ed25519PrivateKey:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        _LOGGER.warning("identity %s has mode %o; tightening to 0600", path, mode)
        path.chmod(0o600)
    try:
        key = load_pem_private_key(path.read_bytes(), password=None)
    except ValueError as exc:
        raise ConfigError("identity", f"{path} is not a PEM private key: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError("identity", f"{path} holds a key that is not Ed25519")
    return key
