"""Typed, size-capped parsing of DataChannel messages received after ``ready``."""

from __future__ import annotations

import ipaddress
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from nekoni_edge.errors import BadMessage, MessageTooLarge
from nekoni_edge.protocol.canonical import is_valid_public_key

# Skill and cron requests and replies are their own module's; they are this one's too.
from nekoni_edge.protocol.skill_messages import (
    CronCreate,
    CronDelete,
    CronList,
    CronUpdate,
    SkillCreate,
    SkillDelete,
    SkillList,
    SkillReply,
    SkillRun,
    SkillUpdate,
)

# JSON as it is on the wire: a trace event's ``data`` differs by step, so it is JSON, typed.
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]

MAX_MESSAGE_BYTES = 64 * 1024
# No message of ours nests deeper than a few levels; a deeper one is refused before json.loads
# recurses into it, so a hostile peer cannot drive the parser near the recursion limit (where a
# finalizer run by the garbage collector at that depth fails in its turn).
MAX_NESTING = 32
# The characters the nesting scan looks at: brackets, and what opens, escapes or closes a string.
_SPECIAL = re.compile(r'[\[\]{}"\\]')
MAX_CONTENT_CHARS = 16_000
MAX_SESSION_ID_CHARS = 128
DEFAULT_SESSION_ID = "default"

class _Fieldless:
    """A request that carries nothing but its type."""

    __slots__ = ()

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> Self:
        return cls()


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
class RagSearch:
    """(edge) the stored chunks a query retrieves, with their scores: ``nekoni-edge ask``."""

    TYPE: ClassVar[str] = "rag_search"

    query: str
    top_k: int | None

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> RagSearch:
        query = _string(obj, "query", MAX_CONTENT_CHARS)
        if not query.strip():
            raise BadMessage("BAD_FIELD", "query must not be empty")
        top_k = obj.get("topK")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)
                                  or not 1 <= top_k <= 50):
            raise BadMessage("BAD_FIELD", "topK must be an integer from 1 to 50")
        return cls(query, top_k)


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


@dataclass(frozen=True, slots=True)
class RagUploadStart:
    """Begin an upload; semantic limits are checked by the upload assembler."""

    TYPE: ClassVar[str] = "rag_upload_start"

    upload_id: str
    filename: str
    total_chunks: int

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> RagUploadStart:
        return cls(_string(obj, "uploadId", 128), _string(obj, "filename", 1024),
                   _integer(obj, "totalChunks"))


@dataclass(frozen=True, slots=True)
class RagUploadChunk:
    """One base64 segment of an upload."""

    TYPE: ClassVar[str] = "rag_upload_chunk"

    upload_id: str
    index: int
    content: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> RagUploadChunk:
        return cls(_string(obj, "uploadId", 128), _integer(obj, "index"),
                   _string(obj, "content", MAX_MESSAGE_BYTES))


@dataclass(frozen=True, slots=True)
class RagList(_Fieldless):
    """List the stored documents."""

    TYPE: ClassVar[str] = "rag_list"



@dataclass(frozen=True, slots=True)
class RagDelete:
    """Delete a document with its chunks and vectors."""

    TYPE: ClassVar[str] = "rag_delete"

    doc_id: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> RagDelete:
        return cls(_string(obj, "docId", 64))


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
class RagSearchHit:
    source: str
    page: int | None
    score: float
    content: str

    def wire(self) -> dict[str, Any]:
        return {"source": self.source, "page": self.page, "score": round(self.score, 4),
                "content": self.content}


@dataclass(frozen=True, slots=True)
class RagSearchResponse:
    hits: list[RagSearchHit]

    def wire(self) -> dict[str, Any]:
        return {"type": "rag_search_response", "hits": [h.wire() for h in self.hits]}


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
class RagDocument:
    """A stored document as ``rag_list_response`` shows it."""

    doc_id: str
    source: str
    chunks: int
    added_by: str | None = None
    added_at: int = 0

    def wire(self) -> dict[str, Any]:
        # nekoni's three fields; (edge) who added it (a device key, null: at the box) and when.
        return {"doc_id": self.doc_id, "source": self.source, "chunks": self.chunks,
                "addedBy": self.added_by, "addedAt": self.added_at}


@dataclass(frozen=True, slots=True)
class RagListResponse:
    """The stored documents."""

    documents: list[RagDocument]

    def wire(self) -> dict[str, Any]:
        return {"type": "rag_list_response", "documents": [d.wire() for d in self.documents]}


@dataclass(frozen=True, slots=True)
class RagDeleteResponse:
    """Whether the document existed (it, its chunks and vectors are gone)."""

    deleted: bool
    doc_id: str

    def wire(self) -> dict[str, Any]:
        return {"type": "rag_delete_response", "deleted": self.deleted, "docId": self.doc_id}


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


def decode(data: str | bytes, limit: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """Cap, then parse one raw peer message into a JSON object. Raises BadMessage.

    The one place peer JSON is decoded: the handshake and the signaling endpoint call it too.
    """
    size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    if size > limit:
        raise MessageTooLarge(size, limit)
    try:
        text = data if isinstance(data, str) else data.decode("utf-8")
        if nesting_depth(text) > MAX_NESTING:
            raise BadMessage("TOO_DEEP", f"message nests deeper than {MAX_NESTING} levels")
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BadMessage("INVALID_JSON", "message is not valid JSON") from exc
    if not isinstance(obj, dict):
        raise BadMessage("NOT_AN_OBJECT", "message must be a JSON object")
    return obj


def nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside JSON strings, in one pass without recursion.

    0 when there are too few brackets to pass MAX_NESTING at all. Only brackets, quotes and
    backslashes are visited, each once, so the cost is linear in the text whatever it holds (a
    regex that cut strings out first was quadratic in escaped quotes: 36 s for one 64 KB frame);
    the scan stops as soon as the cap is passed.
    """
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0
    depth = deepest = 0
    in_string = False
    escaped_at = -1  # the position of a character a backslash escaped
    for match in _SPECIAL.finditer(text):
        position, char = match.start(), match.group()
        if position == escaped_at:
            continue
        if in_string:
            if char == "\\":
                escaped_at = position + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_NESTING:
                    break
        elif char in "]}":
            depth -= 1
    return deepest


def _string(obj: dict[str, Any], key: str, limit: int, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise BadMessage("BAD_FIELD", f"{key} must be a string")
    if len(value) > limit:
        raise BadMessage("BAD_FIELD", f"{key} is longer than {limit} characters")
    return value


def _integer(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadMessage("BAD_FIELD", f"{key} must be an integer")
    return value


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
