"""One DataChannel: the auth gate, then each message to its handler (``nekoni_edge.app``).

What a message does lives in the handlers; this session is the door: the handshake until
``ready``, decoding and typing what arrives, the channel's tasks (cancelled when it closes),
its running turns, approvals and uploads, and streaming replies back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from nekoni_edge import app
from nekoni_edge.errors import BadMessage
from nekoni_edge.protocol import messages as m
from nekoni_edge.protocol.handshake import REASON_TIMEOUT, AgentHandshake, AgentState
from nekoni_edge.rag.upload import UploadAssembler
from nekoni_edge.tracer import TraceEvent

_LOGGER = logging.getLogger(__name__)

HELLO_TIMEOUT_S = 10.0
UPLOAD_SWEEP_S = 5.0
APPROVAL_TIMEOUT_S = 60.0
STOP_WAIT_S = 10.0  # a cancelled turn or ingest ends within a model step or a batch


class ChannelSession:
    """Drives one DataChannel: nothing but the handshake until ``ready``, then the handlers."""

    def __init__(
        self,
        *,
        label: str,
        handshake: AgentHandshake,
        box: app.Box,
        send: Callable[[str], None],
        close: Callable[[], None],
        hello_timeout: float = HELLO_TIMEOUT_S,
        on_auth_failed: Callable[[str | None], None] | None = None,
        uploads: UploadAssembler | None = None,
        upload_sweep_s: float = UPLOAD_SWEEP_S,
        approval_timeout: float = APPROVAL_TIMEOUT_S,
    ) -> None:
        self.label = label
        self.box = box
        self._handshake = handshake
        self._send_text = send
        self._close = close
        self._hello_timeout = hello_timeout
        self._on_auth_failed = on_auth_failed
        self.uploads = uploads or UploadAssembler()
        self._upload_sweep_s = upload_sweep_s
        self._sweeper: asyncio.TimerHandle | None = None
        self.approvals: dict[str, asyncio.Future[bool]] = {}
        self._approval_timeout = approval_timeout
        self._tracing = False
        self._own_traces_until = 0  # ms: a device on probation follows only its own sessions
        self._timer: asyncio.TimerHandle | None = None
        self.generations: dict[str, deque[asyncio.Task[None]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stopping: list[asyncio.Task[Any]] = []
        self.closed = False

    @property
    def ready(self) -> bool:
        return self._handshake.state is AgentState.READY

    @property
    def device_key(self) -> str | None:
        return self._handshake.peer_pub_key

    def send(self, reply: m.Reply | dict[str, Any]) -> None:
        """Send one message unless the channel is gone."""
        if self.closed:
            return
        message = reply if isinstance(reply, dict) else reply.wire()
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
        obj: dict[str, Any] = {}
        try:
            obj = m.decode(data)
            message = m.parse(obj)
        except BadMessage as exc:
            _LOGGER.debug("%s: bad message: %s", self.label, exc.message)
            self.send(exc.reply())
            if (words := app.chat.unreadable(obj, exc)) is not None:
                self.send(words)  # what nekoni's apps show, and it ends their typing dots
            return
        app.dispatch(self, message)

    def _handshake_failed(self) -> bool:
        return self._handshake.state is AgentState.FAILED

    def _on_ready(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        key = self.device_key or ""
        _LOGGER.info("%s: authenticated device %s", self.label, key[:12])
        self.spawn(self._touch(key))

    async def _touch(self, key: str) -> None:
        try:
            await self.box.db.touch_device(key)
        except Exception:  # last-seen is bookkeeping: the channel works without it
            _LOGGER.exception("%s: could not record last seen", self.label)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """A task of this channel: kept until done, cancelled by ``shutdown``."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def approve(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Ask the phone to approve a tool call; no answer in time is a no."""
        approval_id = f"ap_{secrets.token_hex(8)}"
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.approvals[approval_id] = future
        self.send({"type": "approval_request", "approvalId": approval_id, "tool": tool,
                   "arguments": arguments})
        try:
            return await asyncio.wait_for(future, self._approval_timeout)
        except TimeoutError:
            _LOGGER.info("%s: approval %s timed out: denied", self.label, approval_id)
            return False
        finally:
            self.approvals.pop(approval_id, None)

    def _on_trace(self, event: TraceEvent) -> None:
        # Its own sessions, and the household's (skill runs) once it is trusted.
        own_only = self.box.policy.own_only_now(self._own_traces_until)
        if self.box.chat.visible_to(event.session_id, self.device_key, own_only=own_only):
            self.send({"type": "trace", "event": event.wire()})

    def set_tracing(self, on: bool, *, own_only_until: int = 0) -> None:
        self._own_traces_until = own_only_until
        if on and not self._tracing:
            self.box.chat.tracer.subscribe(self._on_trace)
        elif not on and self._tracing:
            self.box.chat.tracer.unsubscribe(self._on_trace)
        self._tracing = on

    def upload_activity(self) -> None:
        """Sweep idle uploads every few seconds while any is under way."""
        if self._sweeper is None and not self.closed:
            self._sweeper = asyncio.get_running_loop().call_later(
                self._upload_sweep_s, self._sweep_uploads
            )

    def _sweep_uploads(self) -> None:
        from nekoni_edge.app.documents import expire_uploads

        self._sweeper = None
        expire_uploads(self)
        if self.uploads.buffered or self.uploads.in_progress:
            self.upload_activity()

    def shutdown(self) -> None:
        """The channel is gone (closed, or its device revoked): stop timers, generations and
        every task it started (an ingest of its upload too) at once."""
        if self.closed:
            return
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.uploads.clear()
        if self._tracing:
            self.box.chat.tracer.unsubscribe(self._on_trace)
        for pending in self.approvals.values():
            if not pending.done():
                pending.set_result(False)
        self._stopping = [task for turns in self.generations.values() for task in turns]
        self._stopping += self._tasks
        for task in self._stopping:
            task.cancel()  # an ingest stops between batches and leaves nothing (knowledge.py)
        _LOGGER.info("%s: closed", self.label)

    async def stopped(self) -> bool:
        """After ``shutdown``: wait until the work it cancelled has ended (a write it was
        in the middle of included); False if some of it did not within STOP_WAIT_S."""
        if not self._stopping:
            return True
        _, pending = await asyncio.wait(self._stopping, timeout=STOP_WAIT_S)
        return not pending
