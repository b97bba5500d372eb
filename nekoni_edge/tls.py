"""The box's self-signed TLS certificate: browsers give WebCrypto only to secure contexts.

Made at first start next to the identity key and kept; its SHA-256 fingerprint is published in
``/api/info`` and the mDNS TXT so a client can pin it. Trust in the box still rests on its
Ed25519 key (the signed answer binds the DataChannel): TLS is what lets a browser run the page.
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import logging
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)
from cryptography.x509.oid import NameOID

from nekoni_edge.errors import ConfigError
from nekoni_edge.identity import write_atomically

_LOGGER = logging.getLogger(__name__)

VALID_DAYS = 10 * 365  # an appliance has no one to renew it; browsers ask once either way


@dataclass(frozen=True)
class Certificate:
    """The certificate and key files and the certificate's fingerprint."""

    cert_path: Path
    key_path: Path
    fingerprint: str  # SHA-256 of the DER certificate, lowercase hex

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert_path, self.key_path)
        return context


def fingerprint_of(der: bytes) -> str:
    """The SHA-256 fingerprint of a DER certificate, as published (lowercase hex)."""
    return hashlib.sha256(der).hexdigest()


def load_or_create(cert_path: Path, key_path: Path, name: str) -> Certificate:
    """Load the certificate, or make a self-signed one for ``name`` if there is none."""
    if not (cert_path.exists() and key_path.exists()):
        _create(cert_path, key_path, name)
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = load_pem_private_key(key_path.read_bytes(), password=None)
    except ValueError as exc:
        raise ConfigError("tls", f"{cert_path} or {key_path} is not PEM: {exc}") from exc
    if cert.public_key() != key.public_key():
        raise ConfigError("tls", f"{cert_path} does not belong to the key {key_path}")
    return Certificate(cert_path, key_path, fingerprint_of(cert.public_bytes(Encoding.DER)))


def _create(cert_path: Path, key_path: Path, name: str) -> None:
    key = ec.generate_private_key(ec.SECP256R1())  # small and fast on a Pi, every browser has it
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name[:64] or "nekoni-edge")])
    now = datetime.datetime.now(datetime.UTC)
    names: list[x509.GeneralName] = [
        x509.DNSName(f"{name}.local"), x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
    ]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))  # a box whose clock is behind
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    # The key first: a cut between the two leaves no certificate, so both are made again.
    write_atomically(key_path, key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    write_atomically(cert_path, cert.public_bytes(Encoding.PEM), mode=0o644)
    _LOGGER.info("created TLS certificate %s (sha256 %s)", cert_path,
                 fingerprint_of(cert.public_bytes(Encoding.DER)))
