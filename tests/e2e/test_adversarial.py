"""Hostile phones over real WebRTC: each gets auth_failed (or a signaling error), nothing else."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from typing import Any

import aiohttp
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge import daemon as daemon_module
from nekoni_edge.client.phone import PhoneClient, new_nonce
from nekoni_edge.daemon import Daemon
from nekoni_edge.errors import SignalingError
from nekoni_edge.protocol import signaling as sig
from nekoni_edge.protocol.canonical import b64url_encode, public_key_b64, sign
from nekoni_edge.store.database import now_ms
from tests.e2e.helpers import approved, drain, open_fds

pytestmark = pytest.mark.slow


@pytest.fixture
async def raw(daemon: Daemon, approved_key: Ed25519PrivateKey) -> Any:
    """An approved phone whose DataChannel is open but which has sent nothing on it."""
    client = PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}")
    await client.connect(handshake=False)
    yield client
    await client.close()


def hello(key: Ed25519PrivateKey, nonce: str | None = None) -> dict[str, Any]:
    return {"type": "hello", "pubKey": public_key_b64(key), "nonce": nonce or new_nonce()}


async def refused_with(client: PhoneClient, reason: str) -> None:
    assert await drain(client) == [{"type": "auth_failed", "reason": reason}]


async def test_bad_response_signature(raw: PhoneClient, approved_key: Ed25519PrivateKey) -> None:
    raw.send(hello(approved_key))
    challenge = await raw.recv()
    assert challenge["type"] == "challenge"
    raw.send({"type": "response", "sig": b64url_encode(secrets.token_bytes(64))})
    await refused_with(raw, "Invalid response signature")


async def test_response_signed_by_another_key(raw: PhoneClient,
                                              approved_key: Ed25519PrivateKey) -> None:
    raw.send(hello(approved_key))
    challenge = await raw.recv()
    thief = Ed25519PrivateKey.generate()
    raw.send({"type": "response", "sig": sign(thief, {"nonce": challenge["nonce"]})})
    await refused_with(raw, "Invalid response signature")


async def test_reflection_refused(raw: PhoneClient, approved_key: Ed25519PrivateKey) -> None:
    my_nonce = new_nonce()
    raw.send(hello(approved_key, my_nonce))
    await raw.recv()
    # signs its own nonce instead of the agent's
    raw.send({"type": "response", "sig": sign(approved_key, {"nonce": my_nonce})})
    await refused_with(raw, "Invalid response signature")


async def test_message_before_ready(raw: PhoneClient) -> None:
    raw.send({"type": "message", "content": "let me in", "sessionId": "x"})
    await refused_with(raw, "Unexpected message type during handshake: message")


async def test_typeless_chat_before_ready(raw: PhoneClient) -> None:
    raw.send({"content": "let me in", "sessionId": "x"})
    await refused_with(raw, "Unexpected message type during handshake: NoneType")


async def test_invalid_json_before_ready(raw: PhoneClient) -> None:
    raw.send_raw("{{{")
    await refused_with(raw, "Invalid JSON")


async def test_response_before_hello(raw: PhoneClient) -> None:
    raw.send({"type": "response", "sig": "x"})
    await refused_with(raw, "Unexpected response")


async def test_hello_key_differs_from_offer_key(raw: PhoneClient, daemon: Daemon) -> None:
    other = Ed25519PrivateKey.generate()
    assert daemon.db is not None
    await daemon.db.approve_device(public_key_b64(other))  # approved, but not who offered
    raw.send(hello(other))
    await refused_with(raw, "Key does not match offer")


async def test_second_hello(raw: PhoneClient, approved_key: Ed25519PrivateKey) -> None:
    raw.send(hello(approved_key))
    await raw.recv()
    raw.send(hello(approved_key))
    await refused_with(raw, "Unexpected second hello")


async def test_replayed_response_from_earlier_session(daemon: Daemon,
                                                      approved_key: Ed25519PrivateKey) -> None:
    url = f"http://127.0.0.1:{daemon.port}"
    nonce = new_nonce()
    first = PhoneClient(approved_key, url)
    await first.connect(handshake=False)
    try:
        first.send(hello(approved_key, nonce))
        challenge = await first.recv()
        response = {"type": "response", "sig": sign(approved_key, {"nonce": challenge["nonce"]})}
        first.send(response)
        assert await first.recv() == {"type": "ready"}
    finally:
        await first.close()
    # a recorded response is worthless in a new session: the agent's nonce is fresh
    second = PhoneClient(approved_key, url)
    await second.connect(handshake=False)
    try:
        second.send(hello(approved_key, nonce))
        assert (await second.recv())["nonce"] != challenge["nonce"]
        second.send(response)
        await refused_with(second, "Invalid response signature")
    finally:
        await second.close()


async def test_unapproved_key_is_sent_away_at_join(daemon: Daemon) -> None:
    stranger = PhoneClient(Ed25519PrivateKey.generate(), f"http://127.0.0.1:{daemon.port}")
    try:
        with pytest.raises(SignalingError) as info:
            await stranger.connect()
    finally:
        await stranger.close()
    assert info.value.code == "NOT_APPROVED"
    assert daemon.peers is not None
    assert daemon.peers.peers == {}  # no peer connection was made for it
    # on a raw socket: one error for the join, then the box closes; it never entered the room
    async with aiohttp.ClientSession() as http, \
            http.ws_connect(f"ws://127.0.0.1:{daemon.port}/signal") as ws:
        await ws.send_str(json.dumps(join(Ed25519PrivateKey.generate(), daemon)))
        reply = json.loads((await ws.receive()).data)
        assert (reply["type"], reply["code"]) == ("error", "NOT_APPROVED")
        assert (await ws.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)


async def test_key_revoked_after_join_cannot_offer(daemon: Daemon,
                                                   approved_key: Ed25519PrivateKey) -> None:
    offer = sig.signed_by_client(approved_key, {
        "type": "offer", "sdp": "v=0\r\n", "from": "mobile-test", "to": daemon.agent_id,
        "ts": now_ms()})
    async with aiohttp.ClientSession() as http, \
            http.ws_connect(f"ws://127.0.0.1:{daemon.port}/signal") as ws:
        await ws.send_str(json.dumps(join(approved_key, daemon)))
        assert json.loads((await ws.receive()).data)["type"] == "peer_joined"
        assert daemon.db is not None
        assert await daemon.db.remove_device(public_key_b64(approved_key))
        await ws.send_str(json.dumps(offer))
        assert json.loads((await ws.receive()).data)["code"] == "NOT_APPROVED"
    assert daemon.peers is not None
    assert daemon.peers.peers == {}


async def signal_exchange(daemon: Daemon, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """Send signaling messages on a raw WebSocket; return one reply per message."""
    replies = []
    async with aiohttp.ClientSession() as http, \
            http.ws_connect(f"ws://127.0.0.1:{daemon.port}/signal") as ws:
        for message in messages:
            await ws.send_str(json.dumps(message))
            replies.append(json.loads((await ws.receive()).data))
    return replies


def join(key: Ed25519PrivateKey, daemon: Daemon, ts: int | None = None) -> dict[str, Any]:
    return sig.signed_by_client(key, {"type": "join", "roomId": daemon.room_id,
                                      "clientId": "mobile-test", "ts": ts or now_ms()})


async def test_stale_timestamp(daemon: Daemon, approved_key: Ed25519PrivateKey) -> None:
    stale = join(approved_key, daemon, now_ms() - 6 * 60 * 1000)
    [reply] = await signal_exchange(daemon, stale)
    assert reply["type"] == "error"
    assert reply["code"] == "STALE_TIMESTAMP"


async def test_stale_offer(daemon: Daemon, approved_key: Ed25519PrivateKey) -> None:
    offer = sig.signed_by_client(approved_key, {
        "type": "offer", "sdp": "v=0\r\n", "from": "mobile-test", "to": daemon.agent_id,
        "ts": now_ms() - 6 * 60 * 1000})
    joined, reply = await signal_exchange(daemon, join(approved_key, daemon), offer)
    assert joined["type"] == "peer_joined"
    assert joined["pubKey"] == daemon.pub_key
    assert reply["code"] == "STALE_TIMESTAMP"


async def test_signaling_errors(daemon: Daemon, approved_key: Ed25519PrivateKey) -> None:
    offer = {"type": "offer", "sdp": "v=0\r\n", "from": "mobile-test", "ts": now_ms()}
    replies = await signal_exchange(
        daemon,
        sig.signed_by_client(approved_key, {**offer, "to": daemon.agent_id}),  # before join
        {"type": "teleport"},
        join(approved_key, daemon),
        sig.signed_by_client(approved_key, {**offer, "to": "agent-nobody"}),
        {**sig.signed_by_client(approved_key, {**offer, "to": daemon.agent_id}), "sdp": "x"},
        sig.signed_by_client(Ed25519PrivateKey.generate(), {**offer, "to": daemon.agent_id}),
        {**join(approved_key, daemon), "roomId": "room-elsewhere"},
    )
    codes = [r.get("code", r["type"]) for r in replies]
    assert codes == ["NOT_JOINED", "UNKNOWN_TYPE", "peer_joined", "PEER_NOT_FOUND",
                     "INVALID_SIGNATURE", "INVALID_SIGNATURE", "INVALID_SIGNATURE"]


async def test_client_refuses_answer_not_signed_by_pinned_key(
    daemon: Daemon, approved_key: Ed25519PrivateKey
) -> None:
    # A client that pinned another box's key refuses this one before using any SDP.
    client = PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}",
                         agent_pub_key=public_key_b64(Ed25519PrivateKey.generate()))
    try:
        with pytest.raises(Exception, match="key changed"):
            await client.connect()
    finally:
        await client.close()


async def test_repeated_failures_block_the_key(daemon: Daemon,
                                               approved_key: Ed25519PrivateKey) -> None:
    stale = join(approved_key, daemon, now_ms() - 6 * 60 * 1000)
    replies = await signal_exchange(daemon, *[stale] * 6)
    assert [r["code"] for r in replies] == ["STALE_TIMESTAMP"] * 5 + ["RATE_LIMITED"]
    # a stranger's join from that address is refused while it is blocked...
    stranger = Ed25519PrivateKey.generate()
    [reply] = await signal_exchange(daemon, join(stranger, daemon))
    assert reply["code"] == "RATE_LIMITED"
    # ...but a stale join proves nothing (anyone can replay one): a fresh one, signed by the
    # paired key, gets in. Unauthenticated failures never block a key that proved itself.
    [reply] = await signal_exchange(daemon, join(approved_key, daemon))
    assert reply["type"] == "peer_joined"


CLOSED = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED)


async def test_a_socket_that_never_joins_is_closed(daemon: Daemon,
                                                  approved_key: Ed25519PrivateKey) -> None:
    assert daemon.signaling is not None
    daemon.signaling.lobby.deadline_s = 0.5  # quick timing: the box's own deadline is 10 s
    url = f"ws://127.0.0.1:{daemon.port}/signal"
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as phone:
        await phone.send_str(json.dumps(join(approved_key, daemon)))
        assert json.loads((await phone.receive(timeout=10)).data)["type"] == "peer_joined"
        async with http.ws_connect(url) as silent:
            reply = json.loads((await silent.receive(timeout=10)).data)
            assert (reply["type"], reply["code"]) == ("error", "JOIN_TIMEOUT")
            assert (await silent.receive(timeout=10)).type in CLOSED
        # a joined socket has no deadline: well past it, it is still answered
        await asyncio.sleep(1.0)
        await phone.send_str("{}")
        assert json.loads((await phone.receive(timeout=10)).data)["code"] == "UNKNOWN_TYPE"
    assert len(daemon.signaling.lobby) == 0


async def test_silent_crowd_cannot_keep_the_owner_out(daemon: Daemon,
                                                      approved_key: Ed25519PrivateKey) -> None:
    """More silent sockets than may wait: the oldest go, the owner still connects and chats."""
    assert daemon.signaling is not None
    lobby = daemon.signaling.lobby
    url = f"ws://127.0.0.1:{daemon.port}/signal"
    extra = 16
    fds = open_fds()
    # from four addresses: one address may hold no more than 32 connections (the gate)
    sessions = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(
        local_addr=(f"127.0.0.{n}", 0), limit=0)) for n in range(81, 85)]
    async with contextlib.AsyncExitStack() as stack:
        for http in sessions:
            await stack.enter_async_context(http)
        crowd = [await sessions[n % 4].ws_connect(url)
                 for n in range(lobby.capacity + extra)]
        # the k-th BUSY is sent when socket capacity + k enters: after these, all are in
        for ws in crowd[:extra]:
            reply = json.loads((await ws.receive(timeout=10)).data)
            assert (reply["type"], reply["code"]) == ("error", "BUSY")
            assert (await ws.receive(timeout=10)).type in CLOSED
        assert len(lobby) == lobby.capacity
        async with PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}") as phone:
            assert await phone.request({"type": "ping"}, "pong") == {"type": "pong"}
        # the owner's socket pushed out the oldest still waiting, and only that one
        assert json.loads((await crowd[extra].receive(timeout=10)).data)["code"] == "BUSY"
        assert len(lobby) == lobby.capacity - 1
        for ws in crowd:
            await ws.close()
    for _ in range(100):
        if len(lobby) == 0 and open_fds() - fds < 4:
            break
        await asyncio.sleep(0.1)
    assert len(lobby) == 0
    assert open_fds() - fds < 4, (fds, open_fds())


async def test_silent_and_slow_connections_are_closed(settings: Any, llama_provider: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Below the WebSocket: a TCP connection with no whole request is not kept for an hour."""
    monkeypatch.setattr(daemon_module, "HTTP_IDLE_S", 0.5)  # quick timing: the box's is 15 s
    box = Daemon(settings, provider=llama_provider)
    await box.start()
    try:
        key = await approved(box)
        silent_r, silent_w = await asyncio.open_connection("127.0.0.1", box.port)
        slow_r, slow_w = await asyncio.open_connection("127.0.0.1", box.port)
        slow_w.write(b"GET /api/info HTTP/1.1\r\nHost: box\r\n")  # headers never finished
        async with aiohttp.ClientSession() as http, \
                http.ws_connect(f"ws://127.0.0.1:{box.port}/signal") as ws:
            await ws.send_str(json.dumps(join(key, box)))
            assert json.loads((await ws.receive(timeout=10)).data)["type"] == "peer_joined"
            assert await asyncio.wait_for(silent_r.read(), 10) == b""  # closed by the box
            await asyncio.wait_for(slow_r.read(), 10)  # closed, whatever it said first
            # a WebSocket is a request in progress, not an idle connection: still answered
            await asyncio.sleep(1.0)
            await ws.send_str("{}")
            assert json.loads((await ws.receive(timeout=10)).data)["code"] == "UNKNOWN_TYPE"
        for writer in (silent_w, slow_w):
            writer.close()
    finally:
        await box.stop()


async def test_a_channel_with_another_label_is_refused_and_its_peer_freed(
        daemon: Daemon, approved_key: Ed25519PrivateKey) -> None:
    """It was closed without a word and its peer connection held ~30 s."""
    phone = PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}")
    await phone.connect()
    try:
        said: asyncio.Queue[str] = asyncio.Queue()
        other = phone._pc.createDataChannel("other")
        other.on("message", said.put_nowait)
        reply = json.loads(await asyncio.wait_for(said.get(), 10))
        assert reply == {"type": "auth_failed", "reason": "Unexpected channel label: use 'nekoni'"}
        await asyncio.wait_for(phone.closed.wait(), 10)  # the whole peer connection went
        assert daemon.peers is not None
        assert daemon.peers.peers == {}
    finally:
        await phone.close()


async def test_one_paired_phone_cannot_push_another_out(daemon: Daemon) -> None:
    """Sixteen connections from one key closed the owner's live channel, and a phone reusing
    the owner's clientId closed it."""
    from nekoni_edge.transport.peers import MAX_PEERS, MAX_PEERS_PER_KEY

    owner, other = await approved(daemon, "owner"), await approved(daemon, "other")
    url = f"http://127.0.0.1:{daemon.port}"
    async with PhoneClient(owner, url, client_id="mobile-owner") as phone:
        thief = PhoneClient(other, url, client_id="mobile-owner")
        try:
            with pytest.raises(SignalingError, match="clientId is taken"):
                await thief.connect()
        finally:
            await thief.close()
        crowd = [PhoneClient(other, url) for _ in range(MAX_PEERS)]
        try:
            for client in crowd:
                await client.connect()
            assert daemon.peers is not None
            keys = [p.pub_key for p in daemon.peers.peers.values()]
            assert keys.count(public_key_b64(other)) == MAX_PEERS_PER_KEY
            assert (await phone.request({"type": "ping"}, "pong")) == {"type": "pong"}
            assert not phone.closed.is_set()
        finally:
            for client in crowd:
                await client.close()


async def test_malformed_frames_before_join_are_counted(daemon: Daemon) -> None:
    """Crafted frames cost the box parsing and were never counted: the sender could go on."""
    crafted = "[" * 33 + '"' + '\\"' * 2000
    async with aiohttp.ClientSession() as http, \
            http.ws_connect(f"ws://127.0.0.1:{daemon.port}/signal") as ws:
        codes = []
        for _ in range(6):
            await ws.send_str(crafted)
            codes.append(json.loads((await ws.receive()).data)["code"])
    assert codes == ["INVALID_MESSAGE"] * 5 + ["RATE_LIMITED"]


async def test_a_web_page_cannot_lock_the_owner_out(daemon: Daemon,
                                                    approved_key: Ed25519PrivateKey) -> None:
    """Any page the owner visits can send bad frames and text/plain POSTs from the owner's
    address; the address is blocked for strangers, never for the owner's paired key."""
    async with aiohttp.ClientSession() as http:
        for _ in range(6):
            async with http.post(f"http://127.0.0.1:{daemon.port}/api/pair", data="x",
                                 headers={"Content-Type": "text/plain"}) as resp:
                assert resp.status >= 400
        async with http.ws_connect(f"ws://127.0.0.1:{daemon.port}/signal") as ws:
            for _ in range(6):
                await ws.send_str("[" * 40)
                await ws.receive()
    assert daemon.peers is not None
    assert daemon.peers.limiter.is_blocked("127.0.0.1", now=time.monotonic())
    async with PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}") as phone:
        assert await phone.request({"type": "ping"}, "pong") == {"type": "pong"}


async def test_a_join_waiting_for_the_button_is_told_so(daemon: Daemon) -> None:
    """nekoni's apps retry every ~3 s while their request waits: the code they get says it
    waits (and is not counted), not that the key is unknown."""
    from nekoni_edge.protocol.canonical import sign_message

    waiting = Ed25519PrivateKey.generate()
    request = sign_message(waiting, {"mobilePubKey": public_key_b64(waiting), "ts": now_ms(),
                                     "deviceName": "new phone"})
    async with aiohttp.ClientSession() as http, \
            http.post(f"http://127.0.0.1:{daemon.port}/api/pair", json=request) as resp:
        assert (await resp.json())["status"] == "pending_approval"
    from nekoni_edge.transport.signaling_server import PENDING_CLOSE_CODE

    for _ in range(6):  # more than the failure limit: none of them counted
        async with aiohttp.ClientSession() as http, \
                http.ws_connect(f"ws://127.0.0.1:{daemon.port}/signal") as ws:
            await ws.send_str(json.dumps(join(waiting, daemon)))
            # closed with the reason, and no error frame: nekoni's mobile app toasts every
            # signaling error ("Agent error"), and waiting is no error
            frame = await ws.receive()
            assert frame.type in CLOSED
            assert ws.close_code == PENDING_CLOSE_CODE
            assert "press the button" in (frame.extra or "")
    stranger = Ed25519PrivateKey.generate()
    [reply] = await signal_exchange(daemon, join(stranger, daemon))
    assert reply["code"] == "NOT_APPROVED"


async def test_a_replayed_join_and_offer_change_nothing_for_the_live_phone(
    daemon: Daemon, approved_key: Ed25519PrivateKey, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An eavesdropper on the plain app port replays the phone's captured join and offer
    (still fresh): before, the box took the offer as the phone reconnecting and closed its
    live connection."""
    captured: list[dict[str, Any]] = []
    signed = sig.signed_by_client

    def capture(key: Ed25519PrivateKey, msg: dict[str, Any]) -> dict[str, Any]:
        out = signed(key, msg)
        captured.append(out)
        return out

    monkeypatch.setattr(sig, "signed_by_client", capture)
    async with PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}") as phone:
        join, offer = (next(m for m in captured if m["type"] == kind)
                       for kind in ("join", "offer"))
        async with aiohttp.ClientSession() as http, \
                http.ws_connect(f"http://127.0.0.1:{daemon.port}/signal") as ws:
            await ws.send_json(join)
            assert (await ws.receive_json(timeout=10))["code"] == "REPLAYED"
            # with the captured join refused, the offer has no join to ride on
            await ws.send_json(offer)
            assert (await ws.receive_json(timeout=10))["code"] == "NOT_JOINED"
        await asyncio.sleep(1)  # what a closing peer would take to be noticed
        assert not phone.closed.is_set()
        assert await phone.request({"type": "ping"}, "pong") == {"type": "pong"}
        assert daemon.peers is not None
        assert len(daemon.peers.peers) == 1
        assert not daemon.peers.limiter.is_blocked(public_key_b64(approved_key),
                                                   now=time.monotonic())


async def test_one_devices_uploads_share_one_budget_across_its_connections(
    daemon: Daemon, approved_key: Ed25519PrivateKey, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One paired device, several peer connections, unfinished uploads on each: the memory
    cap and the count of uploads hold for the device (each channel kept its own 32 MiB, and a
    device buffered ~120 MiB). Measured here with a 2 MiB cap to keep the test short."""
    import base64
    import functools

    from nekoni_edge.rag import upload
    from nekoni_edge.transport import peers

    cap = 2 * 2**20
    monkeypatch.setattr(peers, "DeviceBudget", functools.partial(upload.DeviceBudget,
                                                                 memory_cap=cap))
    url = f"http://127.0.0.1:{daemon.port}"
    segment = base64.b64encode(secrets.token_bytes(upload.MAX_SEGMENT_CHARS * 3 // 4)).decode()
    phones = [PhoneClient(approved_key, url) for _ in range(2)]
    try:
        for phone in phones:
            await phone.connect()
        for n in range(4):
            phones[n % 2].send({"type": "rag_upload_start", "uploadId": f"u{n}",
                                "filename": f"f{n}.txt", "totalChunks": 300})
        phones[0].send({"type": "rag_upload_start", "uploadId": "u9", "filename": "x.txt",
                        "totalChunks": 1})
        refusal = await phones[0].recv()
        assert refusal["type"] == "rag_error"
        assert "already adding 4 documents from this device" in refusal["message"]
        assert refusal["detail"] == "at most 4 uploads at once from one device"
        sent = 0
        while True:  # each phone's two uploads in turn, one segment at a time
            n = sent % 4
            phones[n % 2].send({"type": "rag_upload_chunk", "uploadId": f"u{n}",
                                "index": sent // 4, "content": segment})
            reply = await phones[n % 2].recv()
            if reply["type"] == "rag_error":
                break
            assert reply["type"] == "rag_upload_progress"
            sent += 1
        assert "Wait for the documents being added to finish" in reply["message"]
        assert reply["detail"] == "too much upload data buffered for this device"
        assert daemon.peers is not None
        [budget] = daemon.peers._budgets.values()
        print(f"refused after {sent} segments ({sent * len(segment) * 3 // 4 / 2**20:.2f} MiB "
              f"over 2 connections); the device holds {budget.buffered / 2**20:.2f} MiB")
        assert budget.buffered <= cap
        assert sent * len(segment) * 3 // 4 > cap - len(segment)  # the cap, not earlier
    finally:
        for phone in phones:
            await phone.close()
    assert daemon.peers is not None
    assert daemon.peers._budgets == {}  # all closed: nothing held for it



def lossy_after(phone: PhoneClient, clean: int, seed: int) -> list[int]:
    """After ``clean`` DATA chunks sent cleanly (the sender's window has grown), the phone's
    link loses one chunk in fifty, and some of those three times over (SCTP sends them again
    after a timeout, while the box holds what came after them). Returns the count lost."""
    import random

    from aiortc.rtcsctptransport import DataChunk

    assert phone._pc is not None
    sctp = phone._pc.sctp
    send = sctp._send_chunk
    rng = random.Random(seed)
    tries: dict[int, int] = {}
    lost = [0]

    async def maybe_send(chunk: Any) -> None:
        if isinstance(chunk, DataChunk):
            tries[chunk.tsn] = tries.get(chunk.tsn, 0) + 1
            if len(tries) > clean and tries[chunk.tsn] <= (3 if rng.random() < 0.2 else 1) \
                    and chunk.tsn % 50 == 7:
                lost[0] += 1
                return
        await send(chunk)

    sctp._send_chunk = maybe_send
    return lost


async def test_the_projects_own_client_uploads_as_an_honest_phone(
    daemon: Daemon, approved_key: Ed25519PrivateKey,
) -> None:
    """Issue item 4: a 2 MiB text sent with ``PhoneClient.upload`` (every segment at once),
    five times with a reconnect each: the first was cut off 0.3 s in (the box's reassembly cap
    tripped: aiortc's sender ignores the receive window, and its window had grown past the
    box's). Here the link is clean for the first 600 KiB, then loses packets: every segment
    arrives, within the window the box offers, and the channel stays open."""
    from nekoni_edge.transport.peers import RECEIVE_WINDOW_BYTES

    data = ("The quick brown fox jumps over the lazy dog. " * 47000).encode()[: 2 << 20]
    key = public_key_b64(approved_key)
    for attempt in range(5):
        async with PhoneClient(approved_key, f"http://127.0.0.1:{daemon.port}") as phone:
            lost = lossy_after(phone, 500, attempt)
            progress: list[dict[str, Any]] = []
            task = asyncio.create_task(phone.upload("notes.txt", data,
                                                    on_message=progress.append))
            try:
                async with asyncio.timeout(120):
                    while not progress or \
                            progress[-1].get("received") != progress[-1].get("total"):
                        assert not task.done(), f"upload {attempt + 1}: {task.exception()}"
                        await asyncio.sleep(0.1)
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            assert daemon.peers is not None
            [peer] = [p for p in daemon.peers.peers.values() if p.pub_key == key]
            assert peer.reassembly is not None
            assert not peer.reassembly.tripped
            assert lost[0] > 5
            # an honest sender: the box never held more than the window it offered
            assert peer.reassembly.peak <= RECEIVE_WINDOW_BYTES + 2048, peer.reassembly.peak
