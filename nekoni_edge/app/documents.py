"""The knowledge base: uploads in segments, ingest with progress, list, delete."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from nekoni_edge.app.registry import Context, handles, require_trusted
from nekoni_edge.errors import NekoniError
from nekoni_edge.loading import DISABLED
from nekoni_edge.progress import Eta, Throttle
from nekoni_edge.protocol import messages as m
from nekoni_edge.rag.knowledge import KnowledgeBase

_LOGGER = logging.getLogger(__name__)

IDLE_UPLOAD = "upload was idle too long and was discarded"
TURNED_OFF = ("Documents are turned off on this box, so it cannot list or add them. Whoever "
              "looks after the box can turn them on (rag = true in its settings).")
NOT_WORKING = ("The box's document search is not working, so it cannot list or add documents "
               "right now. Whoever looks after the box can run `nekoni-edge doctor` on it to "
               "see why.")


class KnowledgeUnavailable(NekoniError):
    """The box has no knowledge base (disabled, or its embedder failed to load)."""

    def __init__(self, message: str, detail: str | None) -> None:
        super().__init__(message)
        self.detail = detail

    def reply(self) -> dict[str, Any]:
        return {"type": "rag_error", "message": str(self), "detail": self.detail}


def _knowledge(ctx: Context) -> KnowledgeBase:
    knowledge = ctx.box.chat.knowledge
    if knowledge is None:
        why = ctx.box.chat.knowledge_error
        raise KnowledgeUnavailable(TURNED_OFF if (why or "").startswith(DISABLED) else NOT_WORKING,
                                   f"the knowledge base is unavailable: {why}")
    return knowledge


def expire_uploads(ctx: Context) -> None:
    """Tell the sender about its uploads that went idle too long (they are gone)."""
    for upload_id, filename in ctx.uploads.expire(asyncio.get_running_loop().time()):
        ctx.send({"type": "rag_error", "uploadId": upload_id, "detail": IDLE_UPLOAD,
                  "message": f"{filename}: the upload stopped part-way (nothing came for a "
                             "minute), so it was not added. Please add it again."})


@handles(m.RagUploadStart)
def upload_start(ctx: Context, message: m.RagUploadStart) -> None:
    _knowledge(ctx)
    expire_uploads(ctx)
    ctx.uploads.start(message.upload_id, message.filename, message.total_chunks,
                      asyncio.get_running_loop().time())
    ctx.upload_activity()


@handles(m.RagUploadChunk)
def upload_chunk(ctx: Context, message: m.RagUploadChunk) -> dict[str, Any]:
    """Segments are taken in order, synchronously; the last one starts the ingest."""
    _knowledge(ctx)
    expire_uploads(ctx)
    filename = ctx.uploads.filename(message.upload_id)
    received, total, data = ctx.uploads.add(message.upload_id, message.index, message.content,
                                            asyncio.get_running_loop().time())
    if data is not None and filename is not None:
        ctx.spawn(_ingest(ctx, message.upload_id, filename, data))
    return {"type": "rag_upload_progress", "uploadId": message.upload_id,
            "received": received, "total": total}


async def _ingest(ctx: Context, upload_id: str, filename: str, data: bytes) -> None:
    eta: Eta | None = None
    throttle = Throttle()

    def progress(done: int, total: int) -> None:
        nonlocal eta
        eta = eta or Eta(total)
        if not throttle.ready(last_step=done >= total):
            return  # at most one a second: a book has thousands of chunks
        left = eta.seconds_left(done)
        ctx.send({"type": "rag_ingest_progress", "uploadId": upload_id, "chunksDone": done,
                  "chunksTotal": total, "etaS": None if left is None else round(left)})

    try:
        result = await _knowledge(ctx).ingest(filename, data, progress, ctx.device_key)
    except Exception as exc:  # every failure is a rag_error for this upload: nekoni's apps
        reply = exc.reply() if isinstance(exc, NekoniError) else None  # show no other error
        if reply is None:
            _LOGGER.exception("%s: ingest of %s failed", ctx.label, filename)
            reply = {"type": "rag_error",
                     "message": f"{filename}: could not be stored because of a fault on the "
                                "box. Try again; if it happens again, the box's log says why."}
        else:
            _LOGGER.warning("%s: %s not added: %s%s", ctx.label, filename, exc,
                            f" ({reply['detail']})" if reply.get("detail") else "")
        ctx.send({**reply, "uploadId": upload_id})
        return
    ctx.send({"type": "rag_upload_response", "docId": result.doc_id, "chunks": result.chunks,
              "filename": result.source})


@handles(m.RagList)
async def rag_list(ctx: Context, message: m.RagList) -> m.RagListResponse:
    expire_uploads(ctx)
    docs = await _knowledge(ctx).store.documents()
    return m.RagListResponse([m.RagDocument(d.doc_id, d.source, d.chunks, d.added_by,
                                            d.added_at) for d in docs])


@handles(m.RagDelete)
async def rag_delete(ctx: Context, message: m.RagDelete) -> m.RagDeleteResponse:
    expire_uploads(ctx)
    await require_trusted(ctx, "delete documents")
    deleted = await _knowledge(ctx).store.delete(message.doc_id)
    if deleted:  # the knowledge base is shared: who removed what is kept in the log
        _LOGGER.info("%s: document %s deleted by %s", ctx.label, message.doc_id,
                     (ctx.device_key or "the box")[:12])
    return m.RagDeleteResponse(deleted, message.doc_id)


@handles(m.RagSearch)
async def rag_search(ctx: Context, message: m.RagSearch) -> m.RagSearchResponse:
    """The chunks a query retrieves, with their scores (what a chat turn would be shown
    from): ``nekoni-edge ask``."""
    hits = await _knowledge(ctx).search(message.query, message.top_k)
    return m.RagSearchResponse([m.RagSearchHit(h.source, h.page, h.score, h.content)
                                for h in hits])
