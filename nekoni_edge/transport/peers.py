"""One aiortc RTCPeerConnection per phone, each with its own DataChannel session."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.app import Box
from nekoni_edge.errors import SignalingError
from nekoni_edge.protocol.canonical import b64url_encode
from nekoni_edge.protocol.handshake import REASON_BAD_LABEL, AgentHandshake
from nekoni_edge.protocol.messages import MAX_MESSAGE_BYTES
from nekoni_edge.protocol.signaling import IceCandidate
from nekoni_edge.rag.upload import MAX_FILE_BYTES, DeviceBudget, UploadAssembler
from nekoni_edge.ratelimit import FailureLimiter
from nekoni_edge.transport.ice import rtc_configuration
from nekoni_edge.transport.liveness import POLL_S, VANISH_AFTER_S, AckWatch, unacked_tsns
from nekoni_edge.transport.reassembly import ReassemblyCap
from nekoni_edge.transport.session import HELLO_TIMEOUT_S, ChannelSession

_LOGGER = logging.getLogger(__name__)

CHANNEL_LABEL = "nekoni"
MAX_PEERS = 16
# A phone needs one; a few allow for a reconnect racing its old connection's close.
MAX_PEERS_PER_KEY = 4
# The SCTP receive window the box offers: four of the largest message a phone may send (the
# session's 64 KiB cap), room for a few in flight on a lossy link.
RECEIVE_WINDOW_BYTES = 4 * MAX_MESSAGE_BYTES
# What aiortc may hold of messages still being reassembled before the peer is closed. An
# honest sender holds at most the window (a lost packet, and the window behind it), which
# once made the cap's edge: a reference client's upload was cut off there on a loaded box. A
# client that ignores the advertised max-message-size is cut off here, not at its message's end.
MAX_REASSEMBLY_BYTES = 2 * RECEIVE_WINDOW_BYTES
INTERRUPT_WAIT_S = 2.0  # for answers being written to end when the box stops
DRAIN_S = 0.2  # then for their last messages to leave


@dataclass
class Peer:
    """A phone's peer connection and the sessions of its channels."""

    client_id: str
    pub_key: str
    pc: Any
    sessions: list[ChannelSession]
    remote: str | None = None
    watch: asyncio.Task[None] | None = None
    reassembly: ReassemblyCap | None = None


class PeerManager:
    """Answers offers with new peer connections and closes them when they go away."""

    def __init__(
        self,
        agent_key: Ed25519PrivateKey,
        box: Box,
        *,
        hello_timeout: float = HELLO_TIMEOUT_S,
        limiter: FailureLimiter | None = None,
        max_upload_bytes: int = MAX_FILE_BYTES,
        vanish_after_s: float = VANISH_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
        nonce_factory: Callable[[], str] = lambda: b64url_encode(secrets.token_bytes(32)),
    ) -> None:
        self._key = agent_key
        self._hello_timeout = hello_timeout
        self._nonce_factory = nonce_factory
        self.limiter = limiter or FailureLimiter()
        self._max_upload_bytes = max_upload_bytes
        # Each paired key's upload budget, shared by all its channels on all its peers.
        self._budgets: dict[str, DeviceBudget] = {}
        self._vanish_after_s = vanish_after_s
        self._clock = clock
        self.peers: dict[str, Peer] = {}
        self._approved: set[str] = set()
        self.box = box  # built by the daemon: its ``disconnect`` is this manager's

    def owner_of(self, client_id: str) -> str | None:
        """The key whose peer connection uses ``client_id``, if any."""
        peer = self.peers.get(client_id)
        return peer.pub_key if peer is not None else None

    def _is_approved(self, pub_key: str) -> bool:
        return pub_key in self._approved

    async def handle_offer(
        self, client_id: str, pub_key: str, sdp: str, remote: str | None = None
    ) -> str:
        """Create this client's peer connection from its (verified, approved) offer."""
        from aiortc import RTCPeerConnection, RTCSessionDescription

        # The caller checked approval in the database just now; the handshake checks this set.
        self._approved.add(pub_key)
        if self.owner_of(client_id) not in (None, pub_key):
            raise SignalingError("INVALID_JOIN", "clientId is taken")
        if client_id in self.peers:
            await self.close_client(client_id)
        own = [cid for cid, p in self.peers.items() if p.pub_key == pub_key]
        if len(own) >= MAX_PEERS_PER_KEY:
            # One device makes room among its own connections, never among another's.
            _LOGGER.warning("key %s has %d peer connections; closing its oldest", pub_key[:12],
                            len(own))
            await self.close_client(own[0])
        if len(self.peers) >= MAX_PEERS:
            oldest = next(iter(self.peers))
            _LOGGER.warning("peer limit %d reached; closing %s", MAX_PEERS, oldest)
            await self.close_client(oldest)
        pc = RTCPeerConnection(configuration=rtc_configuration())
        peer = Peer(client_id, pub_key, pc, [], remote)
        self.peers[client_id] = peer

        @pc.on("datachannel")
        def on_datachannel(channel: Any) -> None:
            self._attach(peer, channel)

        @pc.on("connectionstatechange")
        async def on_state() -> None:
            _LOGGER.info("peer %s: connection %s", client_id[:32], pc.connectionState)
            if pc.connectionState in ("failed", "closed"):
                await self.close_client(client_id, peer)

        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="offer"))
            if pc.sctp is not None:  # before the association carries any data
                peer.reassembly = ReassemblyCap(pc.sctp, RECEIVE_WINDOW_BYTES,
                                                MAX_REASSEMBLY_BYTES,
                                                lambda _held: self._drop(peer))
                # The SDP says what the session takes, 64 KiB (aiortc would say 256 KiB).
                pc.sctp.getCapabilities = _capabilities  # type: ignore[method-assign]
            await pc.setLocalDescription(await pc.createAnswer())
        except Exception:
            await self.close_client(client_id, peer)
            raise
        peer.watch = asyncio.get_running_loop().create_task(self._watch_acks(peer))
        return str(pc.localDescription.sdp)

    async def _watch_acks(self, peer: Peer) -> None:
        """Close a peer that stopped acknowledging what it is sent (see ``liveness``)."""
        watch = AckWatch(self._vanish_after_s)
        while True:
            await asyncio.sleep(POLL_S)
            if watch.observe(*unacked_tsns(peer.pc), self._clock()):
                _LOGGER.warning("peer %s: nothing acknowledged for %.2f s while being sent "
                                "data; the phone is gone, closing it", peer.client_id[:32],
                                self._vanish_after_s)
                await self.close_client(peer.client_id, peer)
                return

    def _attach(self, peer: Peer, channel: Any) -> None:
        label = f"{peer.client_id[:32]}/{channel.label[:16]}"
        if channel.label != CHANNEL_LABEL:
            # Said, and the whole peer connection freed at once (it was held ~30 s).
            _LOGGER.info("%s: unexpected channel label; closing the peer", label)

            def refuse() -> None:
                channel.send(json.dumps({"type": "auth_failed", "reason": REASON_BAD_LABEL}))
                self._drop(peer)

            if channel.readyState == "open":
                refuse()
            else:
                channel.on("open", refuse)
            return
        handshake = AgentHandshake(
            self._key,
            is_approved=self._is_approved,
            nonce=self._nonce_factory(),
            offer_pub_key=peer.pub_key,
        )
        session = ChannelSession(
            label=label,
            handshake=handshake,
            box=self.box,
            send=channel.send,
            close=channel.close,
            hello_timeout=self._hello_timeout,
            uploads=UploadAssembler(max_file_bytes=self._max_upload_bytes,
                                    budget=self._budgets.setdefault(peer.pub_key,
                                                                    DeviceBudget())),
            on_auth_failed=lambda reason: self._count_failure(peer),
        )
        peer.sessions.append(session)

        def on_close() -> None:
            session.shutdown()
            asyncio.get_running_loop().create_task(self.close_client(peer.client_id, peer))

        channel.on("message", session.on_message)
        channel.on("close", on_close)

        if channel.readyState == "open":
            session.on_open()
        else:
            channel.on("open", session.on_open)
        _LOGGER.info("%s: channel opened", label)

    def _drop(self, peer: Peer) -> None:
        """A peer that broke the rules: counted as a failure, and closed at once."""
        self._count_failure(peer)
        asyncio.get_running_loop().create_task(self.close_client(peer.client_id, peer))

    def _count_failure(self, peer: Peer) -> None:
        self.limiter.failure(peer.pub_key, peer.remote, now=self._clock())

    async def add_ice(self, candidate: IceCandidate) -> None:
        """Add a trickled candidate to the sender's peer connection."""
        from aiortc.sdp import candidate_from_sdp

        peer = self.peers.get(candidate.sender)
        if peer is None or not candidate.candidate:
            return
        text = candidate.candidate
        if text.startswith("candidate:"):
            text = text[len("candidate:") :]
        ice = candidate_from_sdp(text)
        ice.sdpMid = candidate.sdp_mid
        ice.sdpMLineIndex = candidate.sdp_mline_index
        await peer.pc.addIceCandidate(ice)

    def announce(self, message: dict[str, Any], *, except_key: str | None = None,
                 to: set[str] | None = None) -> int:
        """Send ``message`` to every authenticated channel (but ``except_key``'s; only the
        keys in ``to``, when given)."""
        sent = 0
        for peer in list(self.peers.values()):
            if peer.pub_key == except_key or (to is not None and peer.pub_key not in to):
                continue
            for session in peer.sessions:
                if session.ready and not session.closed:
                    session.send(message)
                    sent += 1
        return sent

    async def device_added(self, pub_key: str, name: str) -> None:
        """Tell the paired devices a new one was just paired: whoever won a race to the
        button is noticed, and can be removed once its probation ends (or by the owner's
        long press at once)."""
        told = self.announce({"type": "device_added", "mobilePubKey": pub_key, "name": name,
                              "message": device_added_words(name)}, except_key=pub_key)
        _LOGGER.info("device %s (%s) paired; told %d channel(s)", pub_key[:12], name or "-",
                     told)

    async def disconnect(self, pub_key: str) -> int:
        """Forget a key and close every peer it has, waiting until the work its channels
        started has ended; return how many peers were closed."""
        self._approved.discard(pub_key)
        doomed = [p for p in self.peers.values() if p.pub_key == pub_key]
        for peer in doomed:
            await self.close_client(peer.client_id)
        for peer in doomed:
            for session in peer.sessions:
                if not await session.stopped():
                    _LOGGER.warning("%s: some of its work did not stop in time", session.label)
        return len(doomed)

    async def close_client(self, client_id: str, peer: Peer | None = None) -> None:
        """Close one client's peer connection (if ``peer`` is given, only if still current)."""
        current = self.peers.get(client_id)
        if current is None or (peer is not None and current is not peer):
            if peer is not None:
                _stop_watch(peer)
                await peer.pc.close()
            return
        del self.peers[client_id]
        _stop_watch(current)
        for session in current.sessions:
            session.shutdown()  # its uploads are cleared: their bytes leave the budget
        if all(p.pub_key != current.pub_key for p in self.peers.values()):
            self._budgets.pop(current.pub_key, None)
        await current.pc.close()
        _LOGGER.info("peer %s: closed", client_id[:32])

    async def interrupt_answers(self, wait_s: float = INTERRUPT_WAIT_S) -> int:
        """Stop every answer being written while the channels are still open (the box is
        stopping): each phone is sent what it was shown, marked as cut short, and keeps it
        (nekoni's apps dropped a streamed answer whose channel closed before its end).
        Returns how many answers were stopped."""
        turns = [task for peer in self.peers.values() for session in peer.sessions
                 for queue in session.generations.values() for task in queue]
        for task in turns:
            task.cancel()
        if turns:
            await asyncio.wait(turns, timeout=wait_s)
            await asyncio.sleep(DRAIN_S)  # the last messages leave before the peers close
            _LOGGER.info("%d answer(s) cut short: the box is stopping", len(turns))
        return len(turns)

    async def close_all(self) -> None:
        """Close every peer connection."""
        for client_id in list(self.peers):
            await self.close_client(client_id)


def device_added_words(name: str) -> str:
    """What a paired device shows when another one is paired: enough to act on."""
    return (f"A new device, \u201c{name or 'without a name'}\u201d, was just paired with the "
            "box by a press of its button. If nobody in your home did that, remove it now "
            "under Devices (what it added goes with it in its first two minutes), or hold the "
            "box's button for 10 seconds to unpair every device.")


def _capabilities() -> Any:
    """The box's SCTP capabilities: the largest message it takes (PROTOCOL.md)."""
    from aiortc import RTCSctpCapabilities  # aiortc is imported lazily

    return RTCSctpCapabilities(maxMessageSize=MAX_MESSAGE_BYTES)


def _stop_watch(peer: Peer) -> None:
    if peer.watch is not None and peer.watch is not asyncio.current_task():
        peer.watch.cancel()
