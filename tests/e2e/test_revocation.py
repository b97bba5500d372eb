"""A phone revoked while it chats is cut off at once, however it is revoked: on the box's
command line (through the daemon), by another phone, or by a long press."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge import cli
from nekoni_edge.client.phone import PhoneClient, ReplyError
from nekoni_edge.daemon import Daemon
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.transport.control import send_command
from tests.e2e.helpers import approved

pytestmark = pytest.mark.slow

# "At once" is well under a second here; the deadline holds on a loaded machine.
CLOSE_DEADLINE_S = 5.0


def url(box: Daemon) -> str:
    return f"http://127.0.0.1:{box.port}"


async def cut_off_while_chatting(box: Daemon, key: Ed25519PrivateKey,
                                 revoke: Callable[[], Awaitable[Any]]) -> float:
    """Revoke ``key`` while its phone streams an answer; check what the phone can still do."""
    phone = PhoneClient(key, url(box))
    await phone.connect()
    try:
        phone.send({"type": "message", "sessionId": "s",
                    "content": "Tell me a long story about a cat who lives in a lighthouse."})
        assert (await phone.recv())["type"] == "chunk"  # it is chatting
        started = time.monotonic()
        await revoke()
        await asyncio.wait_for(phone.closed.wait(), CLOSE_DEADLINE_S)
        elapsed = time.monotonic() - started
        print(f"channel closed {elapsed * 1000:.0f} ms after the revocation")
        # a new DataChannel on the same peer connection gets nowhere: the box closed it
        assert box.peers is not None
        assert all(p.pub_key != public_key_b64(key) for p in box.peers.peers.values())
        from aiortc.exceptions import InvalidStateError

        opened = asyncio.Event()
        try:
            channel: Any = phone._pc.createDataChannel("nekoni")
        except InvalidStateError:  # the phone already knows its connection is closed
            channel = None
        if channel is not None:
            channel.on("open", opened.set)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(opened.wait(), 2)
    finally:
        await phone.close()
    again = PhoneClient(key, url(box))
    try:
        with pytest.raises(Exception, match="NOT_APPROVED"):
            await again.connect()
    finally:
        await again.close()
    return elapsed


@pytest.mark.usefixtures("keep_logging")
async def test_devices_remove_on_the_box(daemon: Daemon, settings: Any, capsys: Any) -> None:
    key = await approved(daemon, "lost phone")
    pub = public_key_b64(key)

    async def remove() -> None:
        # `cli.main` reads the arguments as the installed command would
        code = await cli.main(["devices", "remove", pub, "--data-dir", str(settings.data_dir)])
        assert code == 0

    await cut_off_while_chatting(daemon, key, remove)
    out = capsys.readouterr()
    assert out.out.splitlines()[0] == "removed"
    assert "the box's handlers run here" not in out.err  # it went through the daemon
    assert daemon.db is not None
    assert await daemon.db.list_devices() == []


async def test_device_remove_from_another_phone(daemon: Daemon) -> None:
    owner, lost = await approved(daemon, "owner"), await approved(daemon, "lost")
    async with PhoneClient(owner, url(daemon)) as admin:
        async def remove() -> None:
            reply = await admin.request({"type": "device_remove",
                                         "mobilePubKey": public_key_b64(lost)},
                                        "device_remove_response")
            assert reply["removed"] is True

        await cut_off_while_chatting(daemon, lost, remove)
        assert (await admin.request({"type": "ping"}, "pong")) == {"type": "pong"}


async def test_long_press(daemon: Daemon, settings: Any) -> None:
    key = await approved(daemon, "phone")

    async def long_press() -> None:
        assert await send_command(settings.control_path, "long_press") == "ok"

    await cut_off_while_chatting(daemon, key, long_press)


@pytest.mark.usefixtures("keep_logging")
async def test_without_a_daemon_the_cli_says_where_it_runs(settings: Any,
                                                           capsys: Any) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    code = await cli.main(["devices", "list", "--data-dir", str(settings.data_dir)])
    assert code == 0
    assert "the box's handlers run here" in capsys.readouterr().err


async def test_a_revoked_devices_ingest_stops_and_leaves_nothing(daemon: Daemon) -> None:
    """A revocation cancels all of the device's work: an ingest it started too."""
    from nekoni_edge.app import local

    lost = await approved(daemon, "lost")
    indexing = asyncio.Event()

    def seen(msg: dict[str, Any]) -> None:
        if msg.get("type") == "rag_ingest_progress":
            indexing.set()

    text = "".join(f"Note {i}: the spare fuse for socket {i} is in drawer {i % 7}.\n"
                   for i in range(6000)).encode()
    async with PhoneClient(lost, url(daemon)) as phone:
        upload = asyncio.create_task(phone.upload("big.txt", text, on_message=seen))
        await asyncio.wait_for(indexing.wait(), 120)
        assert daemon.peers is not None
        [reply] = await local.request(daemon.box, {
            "type": "device_remove", "mobilePubKey": public_key_b64(lost)})
        assert reply["removed"] is True
        with pytest.raises((ConnectionError, ReplyError, TimeoutError)):
            await asyncio.wait_for(upload, 60)
    assert daemon.chat is not None
    assert daemon.chat.knowledge is not None
    store = daemon.chat.knowledge.store
    for _ in range(100):  # the cancelled ingest removes what it stored
        if await store.counts() == (0, 0, 0):
            break
        await asyncio.sleep(0.1)
    assert await store.counts() == (0, 0, 0)
    assert await store.documents() == []


async def test_a_stranger_revoked_in_its_probation_leaves_nothing(daemon: Daemon) -> None:
    """The neighbour wins the race to the owner's press, uploads a document with a fake
    service number and chats; the owner's phone then asks and is told the press is taken, and
    pairs with the code on the box's label, which revokes the stranger, and what it added goes
    with it (before, the document kept feeding the household's answers)."""
    from nekoni_edge.client.phone import PairingRefused

    assert daemon.db is not None
    await send_command(daemon.settings.control_path, "press")
    stranger = Ed25519PrivateKey.generate()
    probe = PhoneClient(stranger, url(daemon))
    try:
        assert await probe.pair("neighbour") == "approved"
    finally:
        await probe.close()
    async with PhoneClient(stranger, url(daemon)) as phone:
        stored = await phone.upload("boiler.txt", b"Boiler service: call Acme Heating on "
                                    b"0800 999 111, the household's service number.")
        assert stored["docId"]
        phone.send({"type": "message", "sessionId": "s", "content": "Hello"})
        while (await phone.recv())["type"] != "message_end":
            pass
        documents = await daemon.db.documents()
        assert [d.added_by for d in documents] == [public_key_b64(stranger)]
        owner_key = Ed25519PrivateKey.generate()
        owner = PhoneClient(owner_key, url(daemon))
        try:
            with pytest.raises(PairingRefused, match="already paired another phone"):
                await owner.pair("owner's phone")
        finally:
            await owner.close()
        owner = PhoneClient(owner_key, f"{url(daemon)}/p/{daemon.setup_code}")
        try:
            assert await owner.pair("owner's phone") == "approved"
        finally:
            await owner.close()
        await asyncio.wait_for(phone.closed.wait(), CLOSE_DEADLINE_S)
    assert not await daemon.db.is_approved(public_key_b64(stranger))
    assert await daemon.db.documents() == []
    assert await daemon.db.recent_messages("s", 10) == []
    kb = daemon.chat.knowledge if daemon.chat else None
    assert kb is not None
    assert not [h for h in await kb.search("Who services the boiler?") if "Acme" in h.content]


async def test_a_trusted_device_revoked_keeps_the_households_documents(daemon: Daemon) -> None:
    """Past its probation a device is the household's: removing it keeps what it added."""

    assert daemon.db is not None
    key = await approved(daemon, "old phone")
    async with PhoneClient(key, url(daemon)) as phone:
        stored = await phone.upload("bins.txt", b"Bins go out on Tuesday evenings.")
        assert stored["docId"]
    code = await cli.main(["devices", "remove", public_key_b64(key), "--data-dir",
                           str(daemon.settings.data_dir)])
    assert code == 0
    assert [d.source for d in await daemon.db.documents()] == ["bins.txt"]
