"""Canonical JSON, base64url and Ed25519 signatures, exactly as nekoni encodes them."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

NONCE_BYTES = 32


def b64url_encode(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Decode base64url with or without padding; raise ValueError on anything else."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url text")
    if any(c in text for c in "+/"):
        raise ValueError("not base64url text")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not base64url text") from exc


def canonical(payload: Mapping[str, Any]) -> bytes:
    """The signer's form: sorted keys at every level, compact, non-ASCII escaped."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")


def _canonical_forms(payload: Mapping[str, Any]) -> Iterator[bytes]:
    """Every form a nekoni client may have signed (see PROTOCOL.md, Encodings), the signer's
    form first; the others are only built if it does not verify (a refused stranger's cost)."""
    escaped = canonical(payload)
    yield escaped
    raw = json.dumps(
        payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False
    ).encode("utf-8")
    if raw != escaped:
        yield raw
    # JavaScript sorts the top-level keys only and keeps nested objects as received.
    js = (
        "{"
        + ",".join(
            json.dumps(k, ensure_ascii=False)
            + ":"
            + json.dumps(payload[k], separators=(",", ":"), ensure_ascii=False)
            for k in sorted(payload)
        )
        + "}"
    ).encode("utf-8")
    if js not in (escaped, raw):
        yield js


def without_sig(message: Mapping[str, Any]) -> dict[str, Any]:
    """The signed payload: the message less its ``sig``."""
    return {k: v for k, v in message.items() if k != "sig"}


def public_key_b64(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The wire form of a public key: base64url of its raw 32 bytes."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return b64url_encode(pub.public_bytes(Encoding.Raw, PublicFormat.Raw))


def load_public_key(pub_key_b64: str) -> Ed25519PublicKey:
    """Parse a wire public key; raise ValueError unless it is 32 raw bytes."""
    raw = b64url_decode(pub_key_b64)
    if len(raw) != 32:
        raise ValueError("public key must be 32 bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def sign(key: Ed25519PrivateKey, payload: Mapping[str, Any]) -> str:
    """Sign ``payload`` (which must not contain ``sig``) in the escaped canonical form."""
    return b64url_encode(key.sign(canonical(payload)))


def sign_message(key: Ed25519PrivateKey, message: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``message`` with its ``sig`` added."""
    body = without_sig(message)
    return {**body, "sig": sign(key, body)}


def verify(pub_key_b64: str, payload: Mapping[str, Any], sig: object) -> bool:
    """True if ``sig`` is a valid signature of ``payload`` in any accepted form."""
    if not isinstance(sig, str):
        return False
    try:
        pub = load_public_key(pub_key_b64)
        raw_sig = b64url_decode(sig)
    except ValueError:
        return False
    if len(raw_sig) != 64:
        return False
    for form in _canonical_forms(payload):
        try:
            pub.verify(raw_sig, form)
        except InvalidSignature:
            continue
        return True
    return False


def verify_message(pub_key_b64: str, message: Mapping[str, Any]) -> bool:
    """Verify a message that carries its own ``sig``."""
    return verify(pub_key_b64, without_sig(message), message.get("sig"))


def is_valid_nonce(nonce: object) -> bool:
    """A nonce is base64url of exactly 32 bytes."""
    if not isinstance(nonce, str) or len(nonce) > 64:
        return False
    try:
        return len(b64url_decode(nonce)) == NONCE_BYTES
    except ValueError:
        return False


def is_valid_public_key(pub_key: object) -> bool:
    """A wire public key is base64url of exactly 32 bytes."""
    if not isinstance(pub_key, str) or len(pub_key) > 64:
        return False
    try:
        load_public_key(pub_key)
    except ValueError:
        return False
    return True
