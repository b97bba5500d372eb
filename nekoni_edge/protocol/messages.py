"""Typed, size-capped parsing of DataChannel messages received after ``ready``."""

from __future__ import annotations

import ipaddress
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from nekoni_edge.errors import BadMessage
from nekoni_edge.protocol.canonical import is_valid_public_key

# Each area's messages are in their own module, and this module's too (``m.RagList``).
from nekoni_edge.protocol.document_messages import (
    RagDelete as RagDelete,
)
from nekoni_edge.protocol.document_messages import (
    RagDeleteResponse as RagDeleteResponse,
)
from nekoni_edge.protocol.document_messages import (
    RagDocument as RagDocument,
)
from nekoni_edge.protocol.document_messages import (
    RagList as RagList,
)
from nekoni_edge.protocol.document_messages import (
    RagListResponse as RagListResponse,
)
from nekoni_edge.protocol.document_messages import (
    RagSearch as RagSearch,
)
from nekoni_edge.protocol.document_messages import (
    RagSearchHit as RagSearchHit,
)
from nekoni_edge.protocol.document_messages import (
    RagSearchResponse as RagSearchResponse,
)
from nekoni_edge.protocol.document_messages import (
    RagUploadChunk as RagUploadChunk,
)
from nekoni_edge.protocol.document_messages import (
    RagUploadStart as RagUploadStart,
)
from nekoni_edge.protocol.skill_messages import (
    CronCreate as CronCreate,
)
from nekoni_edge.protocol.skill_messages import (
    CronDelete as CronDelete,
)
from nekoni_edge.protocol.skill_messages import (
    CronList as CronList,
)
from nekoni_edge.protocol.skill_messages import (
    CronUpdate as CronUpdate,
)
from nekoni_edge.protocol.skill_messages import (
    SkillCreate as SkillCreate,
)
from nekoni_edge.protocol.skill_messages import (
    SkillDelete as SkillDelete,
)
from nekoni_edge.protocol.skill_messages import (
    SkillList as SkillList,
)
from nekoni_edge.protocol.skill_messages import (
    SkillReply as SkillReply,
)
from nekoni_edge.protocol.skill_messages import (
    SkillRun as SkillRun,
)
from nekoni_edge.protocol.skill_messages import (
    SkillUpdate as SkillUpdate,
)
from nekoni_edge.protocol.wire import (
    MAX_CONTENT_CHARS as MAX_CONTENT_CHARS,
)
from nekoni_edge.protocol.wire import (
    MAX_MESSAGE_BYTES as MAX_MESSAGE_BYTES,
)
from nekoni_edge.protocol.wire import (
    MAX_NESTING as MAX_NESTING,
)
from nekoni_edge.protocol.wire import (
    JsonValue as JsonValue,
)
from nekoni_edge.protocol.wire import (
    _Fieldless as _Fieldless,
)
from nekoni_edge.protocol.wire import (
    _integer as _integer,
)
from nekoni_edge.protocol.wire import (
    _string as _string,
)
from nekoni_edge.protocol.wire import (
    decode as decode,
)
from nekoni_edge.protocol.wire import (
    nesting_depth as nesting_depth,
)

MAX_SESSION_ID_CHARS = 128
DEFAULT_SESSION_ID = "default"


@dataclass(frozen=True, slots=True)
class Chat:
    """``message`` (or nekoni's type-less ``{content, sessionId}``): a user turn."""

    TYPE: ClassVar[str] = "message"

    content: str
    session_id: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> Chat:
        content = _string(obj, "content", MAX_CONTENT_CHARS)
        if not content.strip():
            raise BadMessage("BAD_FIELD", "content must not be empty")
        return cls(content=content, session_id=_session_id(obj))


@dataclass(frozen=True, slots=True)
class Cancel:
    """(edge) stop the session's generation at the next token."""

    TYPE: ClassVar[str] = "cancel"

    session_id: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> Cancel:
        return cls(session_id=_session_id(obj))


@dataclass(frozen=True, slots=True)
class Ping(_Fieldless):
    """Liveness probe; answered with ``pong``."""

    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True)
class Sync:
    """Ask for the messages of a session after a timestamp (ms)."""

    TYPE: ClassVar[str] = "sync"

    session_id: str
    after_timestamp: int
    all_roles: bool

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> Sync:
        after = obj.get("afterTimestamp", 0)
        if isinstance(after, bool) or not isinstance(after, int | float) or after < 0:
            raise BadMessage("BAD_FIELD", "afterTimestamp must be a non-negative number (ms)")
        all_roles = obj.get("all", False)
        if not isinstance(all_roles, bool):
            raise BadMessage("BAD_FIELD", "all must be a boolean")
        return cls(session_id=_session_id(obj), after_timestamp=int(after), all_roles=all_roles)


@dataclass(frozen=True, slots=True)
class DeviceList(_Fieldless):
    """(edge) list the paired devices."""

    TYPE: ClassVar[str] = "device_list"


@dataclass(frozen=True, slots=True)
class DeviceRemove:
    """(edge) revoke a paired device; its open channels close at once."""

    TYPE: ClassVar[str] = "device_remove"

    pub_key: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> DeviceRemove:
        return cls(pub_key=_string(obj, "mobilePubKey", 64))


@dataclass(frozen=True, slots=True)
class DeviceRename:
    """(edge) give a paired device a name the owner recognises."""

    TYPE: ClassVar[str] = "device_rename"

    pub_key: str
    name: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> DeviceRename:
        name = _string(obj, "name", 64).strip()
        if not name:
            raise BadMessage("BAD_FIELD", "name must not be empty")
        return cls(_string(obj, "mobilePubKey", 64), name)


@dataclass(frozen=True, slots=True)
class DeviceAdd:
    """(edge, the box's own door only) approve a key by hand: ``nekoni-edge devices add``."""

    TYPE: ClassVar[str] = "device_add"

    pub_key: str
    name: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> DeviceAdd:
        key = _string(obj, "mobilePubKey", 64)
        if not is_valid_public_key(key):
            raise BadMessage("BAD_FIELD", "mobilePubKey: not a public key (base64url of 32 "
                                          "bytes)")
        return cls(key, _string(obj, "name", 64, "").strip())


@dataclass(frozen=True, slots=True)
class TraceList:
    """(edge) stored trace events after row ``after_id`` (of one session, or all the sender
    may read), oldest first: ``nekoni-edge traces``."""

    TYPE: ClassVar[str] = "trace_list"

    session_id: str | None
    after_id: int
    limit: int

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> TraceList:
        session = obj.get("sessionId")
        after, limit = obj.get("afterId", 0), obj.get("limit", 200)
        for name, value, top in (("afterId", after, 2**62), ("limit", limit, 1000)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
                raise BadMessage("BAD_FIELD", f"{name} must be an integer from 0 to {top}")
        return cls(None if session is None else _session_id(obj), after, limit)


@dataclass(frozen=True, slots=True)
class PairCode:
    """(edge) the text of the QR code nekoni's ``app`` ("web" or "mobile") scans."""

    TYPE: ClassVar[str] = "pair_code"

    app: str
    address: str | None = None  # the box's address the code names (default: its LAN one)
    label: bool = False  # the label's code, with the setup code (the owner at the box only)

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> PairCode:
        app = obj.get("app", "mobile")
        if app not in ("web", "mobile"):
            raise BadMessage("BAD_FIELD", "app must be 'web' or 'mobile'")
        address = obj.get("address")
        if address is not None:
            try:
                address = str(ipaddress.ip_address(_string(obj, "address", 64)))
            except ValueError as exc:
                raise BadMessage("BAD_FIELD", "address must be an IP address") from exc
        label = obj.get("label", False)
        if not isinstance(label, bool):
            raise BadMessage("BAD_FIELD", "label must be true or false")
        return cls(app, address, label)


# nekoni's skill and cron requests. Their fields are kept as sent and checked by the skill
# store, whose refusals are ``skill_error`` (the only error nekoni's apps show for skills).


@dataclass(frozen=True, slots=True)
class TraceSubscription:
    """(edge) start or stop streaming TraceEvents to this peer."""

    TYPE: ClassVar[str] = "trace_subscribe"
    TYPES: ClassVar[tuple[str, ...]] = ("trace_subscribe", "trace_unsubscribe")

    subscribe: bool

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> TraceSubscription:
        return cls(obj.get("type") == "trace_subscribe")


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """The owner's answer to an ``approval_request``."""

    TYPE: ClassVar[str] = "approval_decision"

    approval_id: str
    approved: bool

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> ApprovalDecision:
        approved = obj.get("approved")
        if not isinstance(approved, bool):
            raise BadMessage("BAD_FIELD", "approved must be a boolean")
        return cls(_string(obj, "approvalId", 128), approved)


ClientMessage = (
    Chat | Cancel | Ping | Sync | DeviceList | DeviceRemove | DeviceRename | DeviceAdd
    | PairCode | TraceList | RagSearch
    | RagUploadStart
    | RagUploadChunk
    | RagList | RagDelete | SkillList | SkillCreate | SkillUpdate | SkillDelete | SkillRun
    | CronList | CronCreate | CronUpdate | CronDelete | TraceSubscription | ApprovalDecision
)


# Replies: what the box answers, typed beside the requests; ``wire()`` is the JSON sent.


@dataclass(frozen=True, slots=True)
class Pong:
    """The answer to ``ping``."""

    def wire(self) -> dict[str, Any]:
        return {"type": "pong"}


@dataclass(frozen=True, slots=True)
class SyncedMessage:
    """One logged message as ``sync_response`` lists it."""

    role: str
    content: str
    timestamp: int

    def wire(self) -> dict[str, Any]:
        return {"id": f"sync_{self.timestamp}", "role": self.role, "content": self.content,
                "timestamp": self.timestamp}


@dataclass(frozen=True, slots=True)
class SyncResponse:
    """A session's messages after the asked timestamp, oldest first."""

    messages: list[SyncedMessage]

    def wire(self) -> dict[str, Any]:
        return {"type": "sync_response", "messages": [x.wire() for x in self.messages]}


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """A paired device as ``device_list_response`` shows it."""

    pub_key: str
    name: str
    approved_at: int
    last_seen: int | None
    current: bool

    def wire(self) -> dict[str, Any]:
        return {"mobilePubKey": self.pub_key, "name": self.name, "approvedAt": self.approved_at,
                "lastSeen": self.last_seen, "current": self.current}


@dataclass(frozen=True, slots=True)
class DeviceListResponse:
    """The paired devices, oldest first."""

    devices: list[DeviceInfo]

    def wire(self) -> dict[str, Any]:
        return {"type": "device_list_response", "devices": [d.wire() for d in self.devices]}


@dataclass(frozen=True, slots=True)
class DeviceRemoveResponse:
    """Whether the key was paired (its channels are closed by then)."""

    removed: bool
    pub_key: str

    def wire(self) -> dict[str, Any]:
        return {"type": "device_remove_response", "removed": self.removed,
                "mobilePubKey": self.pub_key}


@dataclass(frozen=True, slots=True)
class DeviceAddResponse:
    """Whether the key was new (False: it was paired already)."""

    added: bool
    pub_key: str

    def wire(self) -> dict[str, Any]:
        return {"type": "device_add_response", "added": self.added, "mobilePubKey": self.pub_key}


@dataclass(frozen=True, slots=True)
class TraceListResponse:
    """Stored events with their row ids (``afterId`` for the next page)."""

    events: list[tuple[int, dict[str, JsonValue]]]

    def wire(self) -> dict[str, Any]:
        return {"type": "trace_list_response",
                "events": [{**event, "row": row} for row, event in self.events]}


@dataclass(frozen=True, slots=True)
class DeviceRenameResponse:
    """Whether the key is paired (and so was renamed)."""

    renamed: bool
    pub_key: str
    name: str

    def wire(self) -> dict[str, Any]:
        return {"type": "device_rename_response", "renamed": self.renamed,
                "mobilePubKey": self.pub_key, "name": self.name}


@dataclass(frozen=True, slots=True)
class PairCodeResponse:
    """The pairing code's text: exactly the JSON nekoni's apps parse."""

    app: str
    text: str

    def wire(self) -> dict[str, Any]:
        return {"type": "pair_code_response", "app": self.app, "text": self.text}


@dataclass(frozen=True, slots=True)
class TraceSubscribed:
    """Acknowledges ``trace_subscribe`` (True) or ``trace_unsubscribe`` (False)."""

    on: bool

    def wire(self) -> dict[str, Any]:
        return {"type": "trace_subscribed" if self.on else "trace_unsubscribed"}


Reply = (Pong | SyncResponse | DeviceListResponse | DeviceRemoveResponse | DeviceRenameResponse
         | DeviceAddResponse | PairCodeResponse | RagListResponse | RagDeleteResponse
         | RagSearchResponse | TraceSubscribed | TraceListResponse | SkillReply)


def error_reply(code: str, message: str) -> dict[str, Any]:
    """The (edge) error reply; the channel stays open."""
    return {"type": "error", "code": code, "message": message}


def _session_id(obj: dict[str, Any]) -> str:
    session_id = _string(obj, "sessionId", MAX_SESSION_ID_CHARS, DEFAULT_SESSION_ID)
    if not session_id:
        raise BadMessage("BAD_FIELD", "sessionId must not be empty")
    return session_id


def _parsers() -> dict[str, Callable[[dict[str, Any]], ClientMessage]]:
    """Each request class under every type it is sent as: the table ``parse`` reads."""
    table: dict[str, Callable[[dict[str, Any]], ClientMessage]] = {}
    for cls in typing.get_args(ClientMessage):
        for name in getattr(cls, "TYPES", (cls.TYPE,)):
            if name in table:
                raise RuntimeError(f"two request classes are sent as {name!r}")
            table[name] = cls.from_wire
    return table


PARSERS = _parsers()


def parse(obj: dict[str, Any]) -> ClientMessage:
    """Validate one decoded message and return its typed form. Raises BadMessage."""
    msg_type = obj.get("type")
    if msg_type is None and "content" in obj:
        msg_type = "message"  # nekoni's web and mobile apps send no type for chat
    if not isinstance(msg_type, str):
        raise BadMessage("BAD_FIELD", "type must be a string")
    parser = PARSERS.get(msg_type)
    if parser is None:
        raise BadMessage("UNKNOWN_TYPE", f"unknown message type: {msg_type[:64]!r}")
    return parser(obj)
