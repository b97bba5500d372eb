"""One authenticated DataChannel: the auth gate, then the router of application messages."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

from nekoni_edge.agent.chat import ChatService
from nekoni_edge.errors import BadMessage, ModelUnavailable
from nekoni_edge.protocol import messages as m
from nekoni_edge.protocol.handshake import REASON_TIMEOUT, AgentHandshake, AgentState
from nekoni_edge.rag.extract import ExtractError
from nekoni_edge.rag.store import Hit
from nekoni_edge.rag.upload import UploadAssembler, UploadError
from nekoni_edge.skills.scheduler import run_skill, skill_session
from nekoni_edge.skills.store import SkillError, SkillStore
from nekoni_edge.store.database import Database
from nekoni_edge.traces import TraceEvent

_LOGGER = logging.getLogger(__name__)

HELLO_TIMEOUT_S = 10.0
UPLOAD_SWEEP_S = 5.0
APPROVAL_TIMEOUT_S = 60.0


class ChannelSession:
    """Drives one DataChannel: nothing but the handshake until ``ready``, then chat."""

    def __init__(
        self,
        *,
        label: str,
        handshake: AgentHandshake,
        chat: ChatService,
        db: Database,
        send: Callable[[str], None],
        close: Callable[[], None],
        hello_timeout: float = HELLO_TIMEOUT_S,
        revoke: Callable[[str], Awaitable[int]] | None = None,
        on_auth_failed: Callable[[str | None], None] | None = None,
        uploads: UploadAssembler | None = None,
        upload_sweep_s: float = UPLOAD_SWEEP_S,
        approval_timeout: float = APPROVAL_TIMEOUT_S,
    ) -> None:
        self.label = label
        self._handshake = handshake
        self._chat = chat
        self._db = db
        self._send_text = send
        self._close = close
        self._hello_timeout = hello_timeout
        self._revoke = revoke
        self._on_auth_failed = on_auth_failed
        self.uploads = uploads or UploadAssembler()
        self._upload_sweep_s = upload_sweep_s
        self._sweeper: asyncio.TimerHandle | None = None
        self._approvals: dict[str, asyncio.Future[bool]] = {}
        self._approval_timeout = approval_timeout
        self._tracing = False
        self._timer: asyncio.TimerHandle | None = None
        self._generations: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = False

    @property
    def ready(self) -> bool:
        return self._handshake.state is AgentState.READY

    @property
    def peer_pub_key(self) -> str | None:
        return self._handshake.peer_pub_key

    def send(self, message: dict[str, Any]) -> None:
        """Send one message unless the channel is gone."""
        if not self.closed:
            self._send_text(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def on_open(self) -> None:
        """Start the hello timer."""
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self._hello_timeout, self._on_handshake_timeout)

    def _on_handshake_timeout(self) -> None:
        if not self.ready and self._handshake.state is not AgentState.FAILED:
            _LOGGER.info("%s: handshake timed out", self.label)
            self._fail(self._handshake.fail(REASON_TIMEOUT))

    def _fail(self, replies: list[dict[str, Any]]) -> None:
        for reply in replies:
            self.send(reply)
        _LOGGER.info("%s: auth failed: %s", self.label, self._handshake.failure)
        if self._on_auth_failed is not None:
            self._on_auth_failed(self._handshake.failure)
        self.shutdown()
        self._close()

    def on_message(self, data: str | bytes) -> None:
        """Handle one raw message from the channel. Never raises."""
        if self.closed:
            return
        if not self.ready:
            if self._handshake_failed():
                return
            replies = self._handshake.receive_text(data)
            if self._handshake_failed():
                self._fail(replies)
                return
            for reply in replies:
                self.send(reply)
            if self.ready:
                self._on_ready()
            return
        try:
            message = m.parse(m.decode(data))
        except BadMessage as exc:
            _LOGGER.debug("%s: bad message: %s", self.label, exc.message)
            self.send(m.error_reply(exc.code, exc.message))
            return
        self._dispatch(message)

    def _handshake_failed(self) -> bool:
        return self._handshake.state is AgentState.FAILED

    def _on_ready(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        key = self.peer_pub_key or ""
        _LOGGER.info("%s: authenticated device %s", self.label, key[:12])
        self._spawn(self._db.touch_device(key))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _dispatch(self, message: m.ClientMessage) -> None:
        if isinstance(message, m.Ping):
            self.send({"type": "pong"})
        elif isinstance(message, m.Chat):
            if message.session_id in self._generations:
                self.send(m.error_reply(
                    "BUSY", "a reply for this session is still streaming; send cancel first"
                ))
                return
            task = self._spawn(self._run_chat(message))
            self._generations[message.session_id] = task
        elif isinstance(message, m.Cancel):
            running = self._generations.get(message.session_id)
            if running is not None:
                _LOGGER.info("%s: cancel for session %s", self.label, message.session_id[:32])
                running.cancel()
        elif isinstance(message, m.Sync):
            self._spawn(self._run_sync(message))
        elif isinstance(message, m.DeviceList):
            self._spawn(self._run_device_list())
        elif isinstance(message, m.DeviceRemove):
            self._spawn(self._run_device_remove(message.pub_key))
        elif isinstance(message, m.RagUploadStart | m.RagUploadChunk | m.RagList | m.RagDelete):
            self._on_rag(message)
        elif isinstance(message, m.SkillRequest):
            self._spawn(self._run_skill_request(message))
        elif isinstance(message, m.TraceSubscription):
            self._set_trace_subscription(message.subscribe)
        elif isinstance(message, m.ApprovalDecision):
            pending = self._approvals.pop(message.approval_id, None)
            if pending is not None and not pending.done():  # each approval is used once
                pending.set_result(message.approved)

    async def _run_chat(self, message: m.Chat) -> None:
        streamed = 0
        sources: list[Hit] = []
        try:
            async with aclosing(
                self._chat.reply(message.session_id, message.content, self.peer_pub_key,
                                 on_context=sources.extend, approve=self._approve)
            ) as pieces:
                async for piece in pieces:
                    if self.closed:
                        break
                    self.send({"type": "chunk", "content": piece})
                    streamed += 1
            end: dict[str, Any] = {"type": "message_end"} if streamed else \
                {"type": "message", "content": ""}
            if sources:  # (edge) what the answer was grounded on
                end["sources"] = [{"source": h.source, "page": h.page,
                                   "score": round(h.score, 4)} for h in sources]
            self.send(end)
        except asyncio.CancelledError:
            if streamed:
                self.send({"type": "message_end", "cancelled": True})
            else:
                self.send({"type": "message", "content": "", "cancelled": True})
            if self.closed:
                raise
        except ModelUnavailable as exc:
            self.send(m.error_reply("MODEL_UNAVAILABLE", str(exc)))
        except Exception:
            _LOGGER.exception("%s: chat turn failed", self.label)
            self.send(m.error_reply("INTERNAL_ERROR", "the box could not answer; see its log"))
        finally:
            self._generations.pop(message.session_id, None)

    async def _run_sync(self, message: m.Sync) -> None:
        rows = await self._db.messages_after(
            message.session_id, message.after_timestamp, all_roles=message.all_roles
        )
        self.send({
            "type": "sync_response",
            "messages": [
                {"id": f"sync_{r.timestamp}", "role": r.role, "content": r.content,
                 "timestamp": r.timestamp}
                for r in rows
            ],
        })

    async def _approve(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Ask the phone to approve a tool call; no answer in time is a no."""
        approval_id = f"ap_{secrets.token_hex(8)}"
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._approvals[approval_id] = future
        self.send({"type": "approval_request", "approvalId": approval_id, "tool": tool,
                   "arguments": arguments})
        try:
            return await asyncio.wait_for(future, self._approval_timeout)
        except TimeoutError:
            _LOGGER.info("%s: approval %s timed out: denied", self.label, approval_id)
            return False
        finally:
            self._approvals.pop(approval_id, None)

    def _on_trace(self, event: TraceEvent) -> None:
        self.send({"type": "trace", "event": event.wire()})

    def _set_trace_subscription(self, on: bool) -> None:
        if on and not self._tracing:
            self._chat.tracer.subscribe(self._on_trace)
        elif not on and self._tracing:
            self._chat.tracer.unsubscribe(self._on_trace)
        self._tracing = on
        self.send({"type": "trace_subscribed" if on else "trace_unsubscribed"})

    async def _run_skill_request(self, message: m.SkillRequest) -> None:
        try:
            await self._skill_request(message.type, message.fields)
        except SkillError as exc:
            self.send({"type": "skill_error", "message": str(exc)})
        except ModelUnavailable as exc:
            self.send({"type": "skill_error", "message": str(exc)})
        except Exception:
            _LOGGER.exception("%s: %s failed", self.label, message.type)
            self.send({"type": "skill_error", "message": f"{message.type} failed; see the log"})

    async def _skill_request(self, kind: str, f: dict[str, Any]) -> None:
        store = SkillStore(self._db)
        if kind == "skill_list":
            self.send({"type": "skill_list_response",
                       "skills": [s.wire() for s in await store.skills()]})
        elif kind == "skill_create":
            skill = await store.create_skill(f.get("name"), f.get("prompt"), f.get("description"))
            self.send({"type": "skill_response", "skill": skill.wire()})
        elif kind == "skill_update":
            skill = await store.update_skill(f.get("skillId"), f)
            self.send({"type": "skill_response", "skill": skill.wire()})
        elif kind == "skill_delete":
            deleted = await store.delete_skill(f.get("skillId"))
            self.send({"type": "skill_delete_response", "deleted": deleted,
                       "skillId": f.get("skillId")})
        elif kind == "skill_run":
            skill = await store.skill(f.get("skillId"))
            session = skill_session(skill)
            pieces: list[str] = []
            async with aclosing(run_skill(self._chat, skill)) as stream:
                async for piece in stream:
                    pieces.append(piece)
                    self.send({"type": "chunk", "content": piece, "sessionId": session})
            self.send({"type": "message_end", "sessionId": session})
            self.send({"type": "skill_run_response", "skillId": skill.id,
                       "result": "".join(pieces).strip()})
        elif kind == "cron_list":
            self.send({"type": "cron_list_response",
                       "jobs": [j.wire() for j in await store.jobs()]})
        elif kind == "cron_create":
            job = await store.create_job(f.get("skillId"), f.get("cronExpression"),
                                         f.get("enabled", True))
            self.send({"type": "cron_response", "job": job.wire()})
        elif kind == "cron_update":
            job = await store.update_job(f.get("id"), f)
            self.send({"type": "cron_response", "job": job.wire()})
        elif kind == "cron_delete":
            deleted = await store.delete_job(f.get("id"))
            self.send({"type": "cron_delete_response", "deleted": deleted, "id": f.get("id")})

    # knowledge

    def _rag_error(self, message: str, upload_id: str | None = None) -> None:
        reply: dict[str, Any] = {"type": "rag_error", "message": message}
        if upload_id is not None:
            reply["uploadId"] = upload_id
        self.send(reply)

    def _on_rag(
        self, message: m.RagUploadStart | m.RagUploadChunk | m.RagList | m.RagDelete
    ) -> None:
        knowledge = self._chat.knowledge
        if knowledge is None:
            self._rag_error(f"the knowledge base is unavailable: {self._chat.knowledge_error}")
            return
        now = asyncio.get_running_loop().time()
        for upload_id in self.uploads.expire(now):
            self._rag_error("upload was idle too long and was discarded", upload_id)
        if isinstance(message, m.RagUploadStart):
            try:
                self.uploads.start(message.upload_id, message.filename, message.total_chunks, now)
            except UploadError as exc:
                self._rag_error(exc.message, exc.upload_id)
                return
            self._arm_sweeper()
        elif isinstance(message, m.RagUploadChunk):
            filename = self.uploads.filename(message.upload_id)
            try:
                received, total, data = self.uploads.add(
                    message.upload_id, message.index, message.content, now
                )
            except UploadError as exc:
                self._rag_error(exc.message, exc.upload_id)
                return
            self.send({"type": "rag_upload_progress", "uploadId": message.upload_id,
                       "received": received, "total": total})
            if data is not None and filename is not None:
                self._spawn(self._run_ingest(message.upload_id, filename, data))
        elif isinstance(message, m.RagList):
            self._spawn(self._run_rag_list())
        else:
            self._spawn(self._run_rag_delete(message.doc_id))

    def _arm_sweeper(self) -> None:
        if self._sweeper is None and not self.closed:
            self._sweeper = asyncio.get_running_loop().call_later(
                self._upload_sweep_s, self._sweep_uploads
            )

    def _sweep_uploads(self) -> None:
        self._sweeper = None
        for upload_id in self.uploads.expire(asyncio.get_running_loop().time()):
            self._rag_error("upload was idle too long and was discarded", upload_id)
        if self.uploads.buffered or self.uploads.in_progress:
            self._arm_sweeper()

    async def _run_ingest(self, upload_id: str, filename: str, data: bytes) -> None:
        knowledge = self._chat.knowledge
        assert knowledge is not None  # noqa: S101 - checked before the upload started

        def progress(done: int, total: int) -> None:
            self.send({"type": "rag_ingest_progress", "uploadId": upload_id,
                       "chunksDone": done, "chunksTotal": total})

        try:
            result = await knowledge.ingest(filename, data, progress)
        except ExtractError as exc:
            self._rag_error(str(exc), upload_id)
            return
        except Exception:
            _LOGGER.exception("%s: ingest of %s failed", self.label, filename)
            self._rag_error(f"{filename}: could not be stored; see the box's log", upload_id)
            return
        self.send({"type": "rag_upload_response", "docId": result.doc_id,
                   "chunks": result.chunks, "filename": result.source})

    async def _run_rag_list(self) -> None:
        assert self._chat.knowledge is not None  # noqa: S101
        docs = await self._chat.knowledge.store.documents()
        self.send({"type": "rag_list_response", "documents": [
            {"doc_id": d.doc_id, "source": d.source, "chunks": d.chunks} for d in docs
        ]})

    async def _run_rag_delete(self, doc_id: str) -> None:
        assert self._chat.knowledge is not None  # noqa: S101
        deleted = await self._chat.knowledge.store.delete(doc_id)
        self.send({"type": "rag_delete_response", "deleted": deleted, "docId": doc_id})

    async def _run_device_list(self) -> None:
        devices = await self._db.list_devices()
        self.send({
            "type": "device_list_response",
            "devices": [
                {"mobilePubKey": d.pub_key, "name": d.name, "approvedAt": d.approved_at,
                 "lastSeen": d.last_seen, "current": d.pub_key == self.peer_pub_key}
                for d in devices
            ],
        })

    async def _run_device_remove(self, pub_key: str) -> None:
        removed = await self._db.remove_device(pub_key)
        _LOGGER.info("%s: device %s revoked over the channel", self.label, pub_key[:12])
        self.send({"type": "device_remove_response", "removed": removed,
                   "mobilePubKey": pub_key})
        if removed and self._revoke is not None:
            await self._revoke(pub_key)

    def shutdown(self) -> None:
        """The channel is gone: stop timers and generations at once."""
        if self.closed:
            return
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.uploads.clear()
        if self._tracing:
            self._chat.tracer.unsubscribe(self._on_trace)
        for pending in self._approvals.values():
            if not pending.done():
                pending.set_result(False)
        for task in list(self._generations.values()):
            task.cancel()
        _LOGGER.info("%s: closed", self.label)
