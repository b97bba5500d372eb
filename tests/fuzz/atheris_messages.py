"""Coverage-guided fuzzing (atheris) of everything that parses peer bytes before auth and after.

    python tests/fuzz/atheris_messages.py -atheris_runs=200000

Any exception other than the protocol's own refusals is a finding and stops the run.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from nekoni_edge.errors import BadMessage, SignalingError
    from nekoni_edge.protocol import messages, signaling
    from nekoni_edge.protocol.canonical import b64url_encode
    from nekoni_edge.protocol.handshake import AgentHandshake
    from nekoni_edge.rag.upload import UploadAssembler, UploadError

KEY = Ed25519PrivateKey.generate()
NONCE = b64url_encode(b"\x01" * 32)
JOINED = signaling.Join("room", "mobile-1", b64url_encode(b"\x02" * 32))


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    text = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
    try:
        parsed = messages.parse(messages.decode(text))
    except BadMessage:
        parsed = None
    handshake = AgentHandshake(KEY, is_approved=lambda k: True, nonce=NONCE)
    replies = handshake.receive_text(text)
    assert all(r["type"] in ("auth_failed", "pong", "challenge") for r in replies)
    try:
        obj = messages.decode(text)
    except BadMessage:
        return
    for parse in (signaling.parse_join, ):
        try:
            parse(obj, 0)
        except SignalingError:
            pass
    for parse_joined in (signaling.parse_offer, signaling.parse_ice):
        try:
            parse_joined(obj, 0, JOINED)
        except SignalingError:
            pass
    if isinstance(parsed, messages.RagUploadStart | messages.RagUploadChunk):
        uploads = UploadAssembler(max_file_bytes=1 << 20)
        try:
            uploads.start(obj.get("uploadId"), obj.get("filename"), obj.get("totalChunks"), 0)
            uploads.add(obj.get("uploadId"), obj.get("index"), obj.get("content"), 0)
        except UploadError:
            pass


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
