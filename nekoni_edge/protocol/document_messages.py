"""nekoni's ``rag_*`` messages: documents uploaded, listed, deleted and searched."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from nekoni_edge.errors import BadMessage
from nekoni_edge.protocol.wire import (
    MAX_CONTENT_CHARS,
    MAX_MESSAGE_BYTES,
    _Fieldless,
    _integer,
    _string,
)


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
