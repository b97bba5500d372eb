"""The DataChannel handshake of nekoni, as two sans-IO state machines.

Everything that affects the handshake's state lives here: the states, one transition
table per side and one ``_set_state`` that logs. The transport only moves text.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from typing import Any, NoReturn

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.errors import AuthFailed, BadMessage, LocalProtocolError, MessageTooLarge
from nekoni_edge.protocol.canonical import (
    is_valid_nonce,
    is_valid_public_key,
    public_key_b64,
    sign,
    verify,
)
from nekoni_edge.protocol.messages import decode

_LOGGER = logging.getLogger(__name__)

# nekoni's reasons, word for word (PROTOCOL.md).
REASON_INVALID_JSON = "Invalid JSON"
REASON_MISSING_FIELDS = "Missing pubKey or nonce"
REASON_NOT_APPROVED = "Device not approved"
REASON_UNEXPECTED_RESPONSE = "Unexpected response"
REASON_BAD_RESPONSE_SIG = "Invalid response signature"
REASON_UNEXPECTED_TYPE = "Unexpected message type during handshake: {}"
# edge reasons
REASON_KEY_MISMATCH = "Key does not match offer"
REASON_SECOND_HELLO = "Unexpected second hello"
REASON_BAD_NONCE = "Invalid nonce"
REASON_TOO_LARGE = "Message too large"
REASON_TIMEOUT = "Handshake timed out"
REASON_BAD_CHALLENGE_SIG = "Invalid challenge signature"
REASON_BAD_LABEL = "Unexpected channel label: use 'nekoni'"

Message = dict[str, Any]


class AgentState(enum.Enum):
    """Where the box's side of one DataChannel stands."""

    AWAIT_HELLO = "await_hello"  # channel open, nothing received yet
    AWAIT_RESPONSE = "await_response"  # challenge sent, waiting for the phone's signature
    READY = "ready"  # authenticated: application messages flow
    FAILED = "failed"  # auth_failed sent; the transport must close the channel


class AgentHandshake:
    """The box's side: hello → challenge, response → ready, anything else → auth_failed."""

    def __init__(
        self,
        agent_key: Ed25519PrivateKey,
        *,
        is_approved: Callable[[str], bool],
        nonce: str,
        offer_pub_key: str | None = None,
    ) -> None:
        if not is_valid_nonce(nonce):
            raise LocalProtocolError("agent nonce must be 32 bytes of base64url")
        self._key = agent_key
        self._is_approved = is_approved
        self._nonce = nonce
        self._offer_pub_key = offer_pub_key
        self.state = AgentState.AWAIT_HELLO
        self.peer_pub_key: str | None = None
        self.failure: str | None = None
        self._transitions: dict[tuple[AgentState, str], Callable[[Message], list[Message]]] = {
            (AgentState.AWAIT_HELLO, "hello"): self._on_hello,
            (AgentState.AWAIT_HELLO, "response"): self._on_early_response,
            (AgentState.AWAIT_RESPONSE, "response"): self._on_response,
            (AgentState.AWAIT_RESPONSE, "hello"): self._on_second_hello,
        }

    def _set_state(self, state: AgentState) -> None:
        _LOGGER.debug("agent handshake %s -> %s", self.state.value, state.value)
        self.state = state

    def fail(self, reason: str) -> list[Message]:
        """Fail the handshake (also used by the transport for timeouts)."""
        self.failure = reason
        self._set_state(AgentState.FAILED)
        return [{"type": "auth_failed", "reason": reason}]

    def receive_text(self, text: str | bytes) -> list[Message]:
        """Feed one raw DataChannel message received before ``ready``; return the replies."""
        if self.state in (AgentState.READY, AgentState.FAILED):
            raise LocalProtocolError(f"handshake already {self.state.value}")
        try:
            message = decode(text)
        except MessageTooLarge:
            return self.fail(REASON_TOO_LARGE)
        except BadMessage:  # not JSON, or not an object: nekoni says "Invalid JSON" to both
            return self.fail(REASON_INVALID_JSON)
        return self.receive(message)

    def receive(self, message: Message) -> list[Message]:
        """Feed one parsed message; return the replies."""
        msg_type = message.get("type")
        if msg_type == "ping":
            return [{"type": "pong"}]
        if not isinstance(msg_type, str):
            return self.fail(REASON_UNEXPECTED_TYPE.format(_printable(msg_type)))
        handler = self._transitions.get((self.state, msg_type))
        if handler is None:
            return self.fail(REASON_UNEXPECTED_TYPE.format(_printable(msg_type)))
        return handler(message)

    def _on_hello(self, message: Message) -> list[Message]:
        pub_key, nonce = message.get("pubKey"), message.get("nonce")
        if not pub_key or not nonce:
            return self.fail(REASON_MISSING_FIELDS)
        if not is_valid_public_key(pub_key):
            return self.fail(REASON_NOT_APPROVED)
        assert isinstance(pub_key, str)  # narrowed by is_valid_public_key
        if self._offer_pub_key is not None and pub_key != self._offer_pub_key:
            return self.fail(REASON_KEY_MISMATCH)
        if not is_valid_nonce(nonce):
            return self.fail(REASON_BAD_NONCE)
        if not self._is_approved(pub_key):
            return self.fail(REASON_NOT_APPROVED)
        self.peer_pub_key = pub_key
        self._set_state(AgentState.AWAIT_RESPONSE)
        return [
            {"type": "challenge", "nonce": self._nonce, "sig": sign(self._key, {"nonce": nonce})}
        ]

    def _on_early_response(self, message: Message) -> list[Message]:
        return self.fail(REASON_UNEXPECTED_RESPONSE)

    def _on_second_hello(self, message: Message) -> list[Message]:
        return self.fail(REASON_SECOND_HELLO)

    def _on_response(self, message: Message) -> list[Message]:
        assert self.peer_pub_key is not None  # set on the way into AWAIT_RESPONSE
        if not verify(self.peer_pub_key, {"nonce": self._nonce}, message.get("sig")):
            return self.fail(REASON_BAD_RESPONSE_SIG)
        # A key revoked between hello and response must not get through.
        if not self._is_approved(self.peer_pub_key):
            return self.fail(REASON_NOT_APPROVED)
        self._set_state(AgentState.READY)
        return [{"type": "ready"}]


class ClientState(enum.Enum):
    """Where the phone's side of the handshake stands."""

    START = "start"  # nothing sent yet
    AWAIT_CHALLENGE = "await_challenge"  # hello sent
    AWAIT_READY = "await_ready"  # response sent
    READY = "ready"  # the box accepted us
    FAILED = "failed"  # the box refused us, or failed to prove its key


class ClientHandshake:
    """The phone's side: sends hello, checks the box's challenge against the pinned key."""

    def __init__(self, phone_key: Ed25519PrivateKey, agent_pub_key: str, *, nonce: str) -> None:
        self._key = phone_key
        self._agent_pub_key = agent_pub_key
        self._nonce = nonce
        self.state = ClientState.START
        self.failure: str | None = None

    def _set_state(self, state: ClientState) -> None:
        _LOGGER.debug("client handshake %s -> %s", self.state.value, state.value)
        self.state = state

    def hello(self) -> Message:
        """The first message to send once the channel is open."""
        if self.state is not ClientState.START:
            raise LocalProtocolError("hello already sent")
        self._set_state(ClientState.AWAIT_CHALLENGE)
        return {"type": "hello", "pubKey": public_key_b64(self._key), "nonce": self._nonce}

    def receive(self, message: Message) -> list[Message]:
        """Feed one message from the box; return what to send. Raises AuthFailed."""
        msg_type = message.get("type")
        if msg_type == "pong":
            return []
        if msg_type == "auth_failed":
            reason = message.get("reason")
            self._failed(str(reason) if isinstance(reason, str) else "auth_failed")
        if self.state is ClientState.AWAIT_CHALLENGE and msg_type == "challenge":
            agent_nonce = message.get("nonce")
            if not is_valid_nonce(agent_nonce) or not verify(
                self._agent_pub_key, {"nonce": self._nonce}, message.get("sig")
            ):
                self._failed(REASON_BAD_CHALLENGE_SIG)
            self._set_state(ClientState.AWAIT_READY)
            return [{"type": "response", "sig": sign(self._key, {"nonce": agent_nonce})}]
        if self.state is ClientState.AWAIT_READY and msg_type == "ready":
            self._set_state(ClientState.READY)
            return []
        self._failed(REASON_UNEXPECTED_TYPE.format(_printable(msg_type)))

    def _failed(self, reason: str) -> NoReturn:
        self.failure = reason
        self._set_state(ClientState.FAILED)
        raise AuthFailed(reason)


def _printable(value: object) -> str:
    """A peer-supplied type name, bounded, for a reason string."""
    text = value if isinstance(value, str) else type(value).__name__
    return text[:64]
