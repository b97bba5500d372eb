"""The box as nekoni's signal server: WebSocket ``/signal``; the agent is always in the room."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.errors import BadMessage, NotApproved, PendingApproval, SignalingError
from nekoni_edge.protocol import signaling as sig
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.protocol.messages import decode
from nekoni_edge.store.database import Database, now_ms
from nekoni_edge.transport.lobby import Lobby
from nekoni_edge.transport.peers import PeerManager

_LOGGER = logging.getLogger(__name__)

# Refusals that count towards a key's or address's block (PROTOCOL.md: edge limits).
# Malformed frames count too: a client that sends them repeatedly (crafted to cost the parser)
# is no phone.
# The close code of a join whose pair request waits for the button (4000-4999: the application's).
PENDING_CLOSE_CODE = 4100
_COUNTED_FAILURES = frozenset({"INVALID_SIGNATURE", "STALE_TIMESTAMP", "NOT_APPROVED",
                               "INVALID_MESSAGE"})
CLOSE_WAIT_S = 1.0  # the close handshake is one LAN round trip; a silent peer gets no more
FULL_WARNING_EVERY_S = 60.0  # a crowd fills the lobby over and over: one line a minute


class SignalingEndpoint:
    """Handles one WebSocket per client: join, then offers and trickled candidates."""

    def __init__(
        self,
        agent_key: Ed25519PrivateKey,
        agent_id: str,
        room_id: str,
        db: Database,
        peers: PeerManager,
        clock_ms: Callable[[], int] = now_ms,
        clock: Callable[[], float] = time.monotonic,
        is_waiting: Callable[[str, str | None, str | None], Awaitable[bool]] | None = None,
        on_trusted: Callable[[str | None], None] | None = None,
    ) -> None:
        # A paired key's signed join came from this address (its connections get room).
        self._on_trusted = on_trusted
        self._key = agent_key
        # Does this key's pair request wait for the button? (Its join says it still asks.)
        self._is_waiting = is_waiting
        self._pub_key = public_key_b64(agent_key)
        self.agent_id = agent_id
        self.room_id = room_id
        self._db = db
        self._peers = peers
        self._clock_ms = clock_ms
        self._clock = clock
        self.members: dict[str, web.WebSocketResponse] = {}
        self.lobby: Lobby[web.WebSocketResponse] = Lobby()
        self._sweep: asyncio.TimerHandle | None = None
        self._sending_away: set[asyncio.Task[None]] = set()
        self._full_warned_at: float | None = None
        self._replays = sig.ReplayGuard()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """aiohttp handler for ``GET /signal``."""
        ws = web.WebSocketResponse(max_msg_size=sig.MAX_SIGNAL_BYTES, heartbeat=30,
                                   timeout=CLOSE_WAIT_S)
        await ws.prepare(request)
        joined: sig.Join | None = None
        peer_name = request.remote or "?"
        self._wait_to_join(ws)
        try:
            async for frame in ws:
                if frame.type is not WSMsgType.TEXT:
                    if frame.type is WSMsgType.BINARY:
                        await ws.send_json(sig.error("UNKNOWN_TYPE", "send JSON text frames"))
                    continue
                try:
                    # A joined, paired key has proven itself: what others did from its address
                    # does not block it. Until then the address is all there is: any refusal
                    # (bad frame, stale or stranger's join) becomes RATE_LIMITED when it is
                    # blocked, and only a join signed by a paired key gets past a block.
                    if joined is not None:
                        self._check_not_blocked(joined.pub_key)
                    try:
                        joined = await self._on_text(ws, frame.data, joined, request.remote,
                                                     request.match_info.get("code"))
                    except SignalingError:
                        if joined is None:
                            self._check_not_blocked(request.remote)
                        raise
                except SignalingError as exc:
                    if ws.closed:
                        break  # sent away from the lobby meanwhile: nobody to answer
                    _LOGGER.info("signal %s: refused: %s", peer_name, exc)
                    key = exc.pub_key if isinstance(exc, NotApproved) else None
                    if exc.code in _COUNTED_FAILURES:
                        self._peers.limiter.failure(
                            request.remote, key or (joined.pub_key if joined else None),
                            now=self._clock(),
                        )
                    if isinstance(exc, PendingApproval):
                        # Waiting is no failure: nekoni's mobile app shows every signaling
                        # error as an "Agent error" toast (four in a 10 s wait), and a close
                        # without one as "reconnecting", which it does in ~3 s.
                        await ws.close(code=PENDING_CLOSE_CODE, message=exc.message.encode())
                        break
                    await ws.send_json(sig.error(exc.code, exc.message))
                    if isinstance(exc, NotApproved):
                        break  # nothing more to say here until approved; closing frees it now
                except Exception:
                    if ws.closed:
                        break  # sent away from the lobby meanwhile: nobody to answer
                    _LOGGER.exception("signal %s: internal error", peer_name)
                    await ws.send_json(sig.error("INTERNAL_ERROR", "the box failed; see its log"))
        finally:
            self.lobby.leave(ws)
            if joined is not None and self.members.get(joined.client_id) is ws:
                del self.members[joined.client_id]
                _LOGGER.info("signal: %s left", joined.client_id[:32])
        return ws

    async def close(self) -> None:
        """Stop the join-deadline timer and close every open socket with 1001 (going away), so
        that apps know the box is stopping and the HTTP server need not wait for them."""
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        sockets = [*self.members.values(), *self.lobby.waiting()]
        if sockets:
            _LOGGER.info("signal: telling %d connected app(s) the box is stopping",
                         len(sockets))
        await asyncio.gather(*(_going_away(ws) for ws in sockets))

    def _wait_to_join(self, ws: web.WebSocketResponse) -> None:
        now = self._clock()
        evicted = self.lobby.enter(ws, now)
        if evicted and (self._full_warned_at is None
                        or now - self._full_warned_at >= FULL_WARNING_EVERY_S):
            self._full_warned_at = now
            _LOGGER.warning("signal: %d sockets wait to join, the most there may be; closing "
                            "the oldest as new ones open", self.lobby.capacity)
        for old in evicted:
            self._send_away(old, "BUSY", "too many sockets are waiting to join; try again")
        self._schedule_sweep()

    def _schedule_sweep(self) -> None:
        when = self.lobby.next_deadline()
        if self._sweep is not None or when is None:
            return
        delay = max(0.0, when - self._clock())
        self._sweep = asyncio.get_running_loop().call_later(delay, self._on_sweep)

    def _on_sweep(self) -> None:
        self._sweep = None
        expired = self.lobby.expired(self._clock())
        if expired:
            _LOGGER.info("signal: closing %d socket(s) that did not join within %.0f s",
                         len(expired), self.lobby.deadline_s)
        for ws in expired:
            self._send_away(ws, "JOIN_TIMEOUT",
                            f"send join within {self.lobby.deadline_s:.0f} s of opening")
        self._schedule_sweep()

    def _send_away(self, ws: web.WebSocketResponse, code: str, message: str) -> None:
        task = asyncio.create_task(self._async_send_away(ws, code, message))
        self._sending_away.add(task)
        task.add_done_callback(self._sending_away.discard)

    @staticmethod
    async def _async_send_away(ws: web.WebSocketResponse, code: str, message: str) -> None:
        # The socket may be closing already (its peer left): then there is nobody to tell.
        with contextlib.suppress(ConnectionError, RuntimeError):
            await ws.send_json(sig.error(code, message))
        await ws.close()

    async def _on_text(
        self, ws: web.WebSocketResponse, text: str, joined: sig.Join | None, remote: str | None,
        code: str | None = None,
    ) -> sig.Join | None:
        """One text frame; ``code`` is the setup code in the URL the phone was given, if any."""
        try:
            msg = decode(text, sig.MAX_SIGNAL_BYTES)
        except BadMessage as exc:
            raise SignalingError("INVALID_MESSAGE", exc.message) from exc
        msg_type = msg.get("type")
        now = self._clock_ms()
        if msg_type == "join":
            join = sig.parse_join(msg, now)  # its signature proves the key
            if join.room_id != self.room_id:
                raise SignalingError("INVALID_JOIN", "no such room on this box")
            self._check_not_blocked(join.pub_key)
            if join.client_id == self.agent_id or self._peers.owner_of(join.client_id) not in (
                    None, join.pub_key):
                # A clientId belongs to the key that first connected with it: another
                # device reusing it would close that device's connection.
                raise SignalingError("INVALID_JOIN", "clientId is taken")
            # Only paired keys enter the room (pairing is over /api/pair, never through it): a
            # crowd of strangers is sent away after one message each, their signatures proved.
            if not await self._db.is_approved(join.pub_key):
                if self._is_waiting is None or \
                        not await self._is_waiting(join.pub_key, remote, code):
                    raise NotApproved(join.pub_key)
                if not await self._db.is_approved(join.pub_key):  # its press may have come
                    raise PendingApproval
            self._replays.take(msg, now)  # a paired key's join: replayed, it could close its peer
            if self._on_trusted is not None:
                self._on_trusted(remote)
            if ws.closed:
                raise SignalingError("BUSY", "sent away while joining")  # by the lobby
            self.lobby.leave(ws)
            self.members[join.client_id] = ws
            _LOGGER.info("signal: %s joined (key %s)", join.client_id[:32], join.pub_key[:12])
            await ws.send_json(
                {"type": "peer_joined", "clientId": self.agent_id, "pubKey": self._pub_key}
            )
            return join
        if msg_type in ("offer", "ice"):
            if joined is None:
                raise SignalingError("NOT_JOINED", "send join first")
            if msg_type == "offer":
                # Checked again: the key may have been revoked since its join. Before the
                # (large) signature, since the join already proved the key.
                if not await self._db.is_approved(joined.pub_key):
                    raise NotApproved(joined.pub_key)
                offer = sig.parse_offer(msg, now, joined)
                self._replays.take(msg, now)
                await self._on_offer(ws, offer, joined, remote)
            else:
                candidate = sig.parse_ice(msg, now, joined)
                self._check_to(candidate.to)
                await self._peers.add_ice(candidate)
            return joined
        if msg_type == "leave":
            return joined
        raise SignalingError("UNKNOWN_TYPE", f"unknown type {str(msg_type)[:64]!r}")

    def _check_not_blocked(self, *idents: str | None) -> None:
        if self._peers.limiter.is_blocked(*idents, now=self._clock()):
            raise SignalingError("RATE_LIMITED", "too many failures; try again in a few minutes")

    def _check_to(self, to: str) -> None:
        if to != self.agent_id:
            raise SignalingError("PEER_NOT_FOUND", f"no peer {to[:64]!r} in this room")

    async def _on_offer(
        self, ws: web.WebSocketResponse, offer: sig.Offer, joined: sig.Join, remote: str | None
    ) -> None:
        self._check_to(offer.to)
        answer_sdp = await self._peers.handle_offer(
            joined.client_id, joined.pub_key, offer.sdp, remote
        )
        answer: dict[str, Any] = {
            "type": "answer",
            "sdp": answer_sdp,
            "from": self.agent_id,
            "to": joined.client_id,
            "ts": self._clock_ms(),
        }
        await ws.send_json(sig.signed_by_agent(self._key, answer))
        _LOGGER.info("signal: answered %s", joined.client_id[:32])


async def _going_away(ws: web.WebSocketResponse) -> None:
    with contextlib.suppress(ConnectionError, RuntimeError):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"the box is stopping")
