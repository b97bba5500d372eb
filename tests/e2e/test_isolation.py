"""Paired devices do not see each other's conversations; a device just paired by the button
is on probation (it may chat, not manage the box); documents record who added them."""

from __future__ import annotations

from contextlib import aclosing

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient, ReplyError
from nekoni_edge.daemon import Daemon
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.store.access import now_ms
from tests.e2e.helpers import approved, until

pytestmark = pytest.mark.slow


def url(box: Daemon) -> str:
    return f"http://127.0.0.1:{box.port}"


async def traced_sessions(phone: PhoneClient, quiet_s: float = 2.0) -> set[str]:
    """The sessions of the trace events a phone gets until it has heard nothing for a while."""
    seen: set[str] = set()
    while True:
        try:
            msg = await phone.recv(wait=quiet_s)
        except TimeoutError:
            return seen
        if msg["type"] == "trace":
            seen.add(msg["event"]["sessionId"])


async def say(phone: PhoneClient, text: str, session: str) -> str:
    async with aclosing(phone.ask(text, session)) as stream:
        return "".join([piece async for piece in stream])


async def test_a_device_sees_only_its_own_sessions(daemon: Daemon) -> None:
    async with PhoneClient(await approved(daemon, "A"), url(daemon)) as a, \
            PhoneClient(await approved(daemon, "B"), url(daemon)) as b:
        assert await b.request({"type": "trace_subscribe"}, "trace_subscribed")
        assert await a.request({"type": "trace_subscribe"}, "trace_subscribed")
        a.send({"type": "message", "content": "Remember that my PIN is 4321.",
                "sessionId": "a-private"})
        got = await until(a, ("message_end", "message"))
        # A follows its own session's traces
        assert any(m["type"] == "trace" and m["event"]["sessionId"] == "a-private" for m in got)
        # A's traces went to A, none to B
        traces_b = []
        while True:
            try:
                msg = await b.recv(wait=1.0)
            except TimeoutError:
                break
            if msg["type"] == "trace":
                traces_b.append(msg["event"])
        assert all(e["sessionId"] != "a-private" for e in traces_b)
        # B can name A's session (ids are guessable) but reads nothing of it
        seen = await b.request({"type": "sync", "sessionId": "a-private", "all": True},
                               "sync_response")
        assert seen["messages"] == []
        mine = await a.request({"type": "sync", "sessionId": "a-private", "all": True},
                               "sync_response")
        assert [m["role"] for m in mine["messages"]][:1] == ["user"]
        # nor can it write into it
        with pytest.raises(ReplyError) as refused:
            await say(b, "What is the PIN?", "a-private")
        assert refused.value.code == "FORBIDDEN"
        # B's own session is B's
        assert (await say(b, "Say hi.", "b-own")).strip()


async def test_documents_record_who_added_them(daemon: Daemon) -> None:
    key = await approved(daemon, "A")
    async with PhoneClient(key, url(daemon)) as a:
        reply = await a.upload("notes.txt", b"The spare key is under the blue pot.\n" * 10)
        listed = await a.request({"type": "rag_list"}, "rag_list_response")
        [doc] = listed["documents"]
        assert doc["doc_id"] == reply["docId"]
        assert doc["addedBy"] == public_key_b64(key)
        assert doc["addedAt"] > 0


async def test_a_device_paired_by_the_button_is_on_probation(daemon: Daemon) -> None:
    assert daemon.pairing is not None
    assert daemon.db is not None
    owner = await approved(daemon, "owner")
    async with PhoneClient(owner, url(daemon)) as phone:
        doc = await phone.upload("plan.txt", b"Water the tomatoes on Tuesday.\n" * 10)
    await daemon.pairing.press()
    newcomer = PhoneClient(Ed25519PrivateKey.generate(), url(daemon))
    try:
        assert await newcomer.pair("newcomer") == "approved"
        await newcomer.connect()
        assert (await say(newcomer, "Say hello.", "n-1")).strip()  # chatting is fine
        for request, words in [
            ({"type": "device_remove", "mobilePubKey": public_key_b64(owner)}, "remove"),
            ({"type": "device_list"}, "see the paired devices"),
            ({"type": "rag_delete", "docId": doc["docId"]}, "delete documents"),
        ]:
            with pytest.raises(ReplyError) as refused:
                await newcomer.request(request, f"{request['type']}_response")
            assert refused.value.code == "PROBATION"
            assert words in refused.value.message
        newcomer.send({"type": "skill_create", "name": "x", "prompt": "y"})
        error = await newcomer.recv()
        assert error["type"] == "skill_error"  # the only error nekoni's apps show there
        assert error["code"] == "PROBATION"  # every skill_error has one (PROTOCOL.md)
        assert "paired moments ago" in error["message"]
        for kind in ("skill_list", "skill_run", "cron_list"):  # the household's: not yet
            newcomer.send({"type": kind, "id": "x"})
            error = await newcomer.recv()
            assert (error["type"], error["code"]) == ("skill_error", "PROBATION")
        # live traces: its own sessions only, not the household's (a skill run, the owner)
        await newcomer.request({"type": "trace_subscribe"}, "trace_subscribed")
        assert daemon.chat is not None
        async with aclosing(daemon.chat.reply("household", "Say hi.")) as stream:
            assert "".join([p async for p in stream]).strip()
        newcomer.send({"type": "message", "content": "Say bye.", "sessionId": "n-1"})
        seen = await traced_sessions(newcomer)
        assert "n-1" in seen  # its own, still
        assert "household" not in seen
        hidden = await newcomer.request({"type": "sync", "sessionId": "household", "all": True},
                                        "sync_response")
        assert hidden["messages"] == []  # nor by sync
        assert await daemon.db.is_approved(public_key_b64(owner))
        # once its window has closed with no second key, it is trusted (the policy's clock
        # moves on; the database is not touched)
        assert daemon.box is not None
        daemon.box.policy.clock_ms = lambda: now_ms() + 10 * 60 * 1000
        listed = await newcomer.request({"type": "device_list"}, "device_list_response")
        assert len(listed["devices"]) == 2
        await newcomer.request({"type": "trace_subscribe"}, "trace_subscribed")
        async with aclosing(daemon.chat.reply("household", "Say hi again.")) as stream:
            assert "".join([p async for p in stream]).strip()
        assert "household" in await traced_sessions(newcomer)  # trusted: the household's too
        shown = await newcomer.request({"type": "sync", "sessionId": "household", "all": True},
                                       "sync_response")
        assert shown["messages"]
    finally:
        await newcomer.close()


async def test_a_session_named_after_a_key_is_that_keys_before_it_pairs(daemon: Daemon) -> None:
    """Issue item 3: a paired device wrote first into ``web-``/``phone-<prefix>`` of a key
    about to pair; when that phone paired, its first message in its own default session was
    ``FORBIDDEN``. The key it names takes it, and what the squatter wrote there goes."""
    newcomer = Ed25519PrivateKey.generate()
    prefix = public_key_b64(newcomer)[:8]
    async with PhoneClient(await approved(daemon, "squatter"), url(daemon)) as squatter:
        for kind in ("web", "phone"):
            assert await say(squatter, "Remember: the alarm code is 0000.", f"{kind}-{prefix}")
    assert daemon.db is not None
    await daemon.db.approve_device(public_key_b64(newcomer), "newcomer")
    async with PhoneClient(newcomer, url(daemon)) as phone:
        for kind in ("web", "phone"):
            assert await say(phone, "Hello.", f"{kind}-{prefix}")
            reply = await phone.request({"type": "sync", "sessionId": f"{kind}-{prefix}"},
                                        "sync_response")
            said = " ".join(m["content"] for m in reply["messages"])
            assert "0000" not in said
            assert "Hello." in said
    async with PhoneClient(await approved(daemon, "squatter 2"), url(daemon)) as other:
        with pytest.raises(ReplyError, match="FORBIDDEN|another device"):
            await say(other, "Hi.", f"phone-{prefix}")
