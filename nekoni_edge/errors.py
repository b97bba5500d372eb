"""One error tree; each error maps to exactly one reply on the wire."""

from __future__ import annotations

from typing import Any


class NekoniError(Exception):
    """Base of every error nekoni_edge raises on purpose."""

    def reply(self) -> dict[str, Any] | None:
        """The wire reply this error becomes when a handler raises it (None: not a peer's
        business, answered as INTERNAL_ERROR)."""
        return None


class ConfigError(NekoniError):
    """The configuration is invalid; the message names the key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"config {key}: {message}")
        self.key = key


class StoreError(NekoniError):
    """The database cannot be opened or used."""


class ModelUnavailable(NekoniError):
    """The model cannot be loaded or used; the message says what to do."""

    def reply(self) -> dict[str, Any]:
        return {"type": "error", "code": "MODEL_UNAVAILABLE", "message": str(self)}


class NotYourSession(NekoniError):
    """A device wrote to a conversation another device started (each sees only its own)."""

    def reply(self) -> dict[str, Any]:
        return {"type": "error", "code": "FORBIDDEN", "message": str(self)}


class LocalProtocolError(NekoniError):
    """We were about to do something the protocol forbids (our bug)."""


class RemoteProtocolError(NekoniError):
    """The peer sent something the protocol forbids (their fault)."""


class BadMessage(RemoteProtocolError):
    """A message failed validation; ``code`` is the wire error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def reply(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.message}


class MessageTooLarge(BadMessage):
    """A message exceeded the size cap before it was parsed."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__("MESSAGE_TOO_LARGE", f"message of {size} bytes exceeds {limit} bytes")
        self.size = size
        self.limit = limit


class AuthFailed(RemoteProtocolError):
    """The DataChannel handshake failed; ``reason`` is sent verbatim."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SignalingError(RemoteProtocolError):
    """A signaling message was refused; ``code`` is one of PROTOCOL.md's codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class PendingApproval(SignalingError):
    """A join from a key whose pair request waits for the button: not a failure (nekoni's apps
    retry every ~3 s until let in), answered and closed."""

    def __init__(self) -> None:
        super().__init__("PENDING_APPROVAL", "waiting for the owner to press the button on "
                                             "the box; this device can join once approved")


class NotApproved(SignalingError):
    """An offer was signed by a key that is not paired with this box."""

    def __init__(self, pub_key: str) -> None:
        super().__init__("NOT_APPROVED", "this device is not paired with the box")
        self.pub_key = pub_key
