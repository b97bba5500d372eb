"""Each area's handlers through the box's own door, and what a handler that raises sends:
a reply naming the request, never silence."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.agent.chat import ChatService
from nekoni_edge.app import HANDLERS, Box, local
from nekoni_edge.llm.scripted import ScriptedProvider
from nekoni_edge.protocol import messages as m
from nekoni_edge.rag.knowledge import KnowledgeBase
from nekoni_edge.store.database import Database
from tests.agent.fakes import WordEmbedder


@pytest.fixture
async def box(tmp_path: Path) -> AsyncIterator[Box]:
    revoked: list[str] = []

    async def revoke(pub_key: str) -> int:
        revoked.append(pub_key)
        return 1

    async with await Database.open(tmp_path / "db") as db:
        embedder: Any = WordEmbedder()
        embedder.tokenizer = None
        knowledge = KnowledgeBase(embedder, db)
        chat = ChatService(db, ScriptedProvider([["Hello", " there."]]), system_prompt="S",
                           context_messages=20, n_ctx=4096, max_tokens=16, knowledge=knowledge)
        box = Box(db, chat, revoke)
        box.revoked = revoked  # type: ignore[attr-defined]
        yield box


async def test_the_box_door_runs_the_same_handlers(box: Box) -> None:
    assert await local.request(box, {"type": "ping"}) == [{"type": "pong"}]
    await box.db.approve_device("k" * 43, "phone")
    [listing] = await local.request(box, {"type": "device_list"})
    assert listing["devices"][0]["name"] == "phone"
    assert listing["devices"][0]["current"] is False  # the box is not a device
    [removed] = await local.request(box, {"type": "device_remove", "mobilePubKey": "k" * 43})
    assert removed == {"type": "device_remove_response", "removed": True,
                       "mobilePubKey": "k" * 43}
    assert box.revoked == ["k" * 43]  # type: ignore[attr-defined]
    replies = await local.request(box, {"type": "message", "content": "hi", "sessionId": "c"})
    # (how the words are cut into chunks is the pacing's business: the opening is held a
    # moment to see it is not the prompt read back)
    assert [r["type"] for r in replies][-1] == "message_end"
    assert {r["type"] for r in replies[:-1]} == {"chunk"}
    [synced] = await local.request(box, {"type": "sync", "sessionId": "c", "all": True})
    assert [x["role"] for x in synced["messages"]] == ["user", "assistant"]
    [refused] = await local.request(box, {"type": "trace_subscribe"})
    assert refused["code"] == "NOT_AVAILABLE"
    assert (await local.request(box, {"type": "nope"}))[0]["code"] == "UNKNOWN_TYPE"


def boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("boom")


# (area, request, what to break) -> every area answers a failure in words
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("chat", {"type": "message", "content": "hi"}, "chat.reply"),
    ("sync", {"type": "sync", "sessionId": "s"}, "db.messages_after"),
    ("devices", {"type": "device_list"}, "db.list_devices"),
    ("devices", {"type": "device_remove", "mobilePubKey": "k"}, "db.remove_device"),
    ("knowledge", {"type": "rag_list"}, "knowledge.store.documents"),
    ("knowledge", {"type": "rag_delete", "docId": "d"}, "knowledge.store.delete"),
    ("knowledge", {"type": "rag_upload_start", "uploadId": "u", "filename": "a.txt",
                   "totalChunks": 1}, "uploads.start"),
    ("traces", {"type": "trace_subscribe"}, "door.set_tracing"),
    ("approvals", {"type": "approval_decision", "approvalId": "a", "approved": True},
     "door.approvals.pop"),
    ("sync", {"type": "ping"}, "m.Pong"),
    ("chat", {"type": "cancel", "sessionId": "s"}, "door.generations.get"),
    ("knowledge", {"type": "rag_upload_chunk", "uploadId": "u", "index": 0, "content": "aGk="},
     "uploads.filename"),
]


@pytest.mark.parametrize(("area", "request_", "broken"), CASES,
                         ids=[f"{c[0]}-{c[1]['type']}" for c in CASES])
async def test_a_handler_that_raises_is_answered(box: Box, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture, area: str,
                                                 request_: dict[str, Any], broken: str) -> None:
    door = local.LocalDoor(box)
    owner_name, _, attribute = broken.rpartition(".")
    owners: dict[str, Any] = {
        "chat": box.chat, "db": box.db, "knowledge.store": box.chat.knowledge.store
        if box.chat.knowledge else None, "door": door, "uploads": door.uploads,
        "m": m,
    }
    if owner_name == "door.approvals":
        door.approvals = _Exploding()
    elif owner_name == "door.generations":
        door.generations = _Exploding()
    else:
        monkeypatch.setattr(owners[owner_name], attribute, boom)
    from nekoni_edge.app import dispatch

    dispatch(door, m.parse(request_))
    await door.settle()
    assert door.replies, f"{area}: {request_['type']} was answered with silence"
    [reply] = [r for r in door.replies if r["type"] == "error" and r["code"] == "INTERNAL_ERROR"]
    assert reply["message"] == f"{request_['type']} failed on the box; see its log"
    assert any("boom" in (r.exc_text or "") or (r.exc_info and "boom" in str(r.exc_info[1]))
               for r in caplog.records), "logged once with its traceback"


async def test_skills_answer_failures_as_skill_error(box: Box,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from nekoni_edge.store.skills import SkillStore

    monkeypatch.setattr(SkillStore, "skills", boom)
    [reply] = await local.request(box, {"type": "skill_list"})
    # the only error nekoni's apps show for skills
    assert reply == {"type": "skill_error", "message": "skill_list failed on the box; see its log",
                     "code": "INTERNAL_ERROR"}


class _Exploding(dict[str, Any]):
    def pop(self, *args: Any) -> Any:
        raise RuntimeError("boom")

    def get(self, *args: Any) -> Any:
        raise RuntimeError("boom")


def sample(kind: type) -> Any:
    """A message of ``kind`` with placeholder fields."""
    placeholders = {"str": "x", "int": 0, "bool": True, "Any": None, "dict[str, Any]": {},
                    "str | None": None, "int | None": None, "bool | None": None}
    return kind(*(placeholders[str(f.type)] for f in dataclasses.fields(kind)))


@pytest.mark.parametrize("kind", sorted(HANDLERS, key=lambda k: k.__name__),
                         ids=lambda k: k.__name__)
async def test_any_handler_that_raises_is_answered(box: Box, kind: type,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the type (one added later too), an exception is a reply naming the request."""
    from nekoni_edge.app import dispatch
    from nekoni_edge.app.registry import request_name

    monkeypatch.setitem(HANDLERS, kind, boom)
    door = local.LocalDoor(box)
    message = sample(kind)
    dispatch(door, message)
    await door.settle()
    assert door.replies == [{"type": "error", "code": "INTERNAL_ERROR",
                             "message": f"{request_name(message)} failed on the box; see its log"}]


async def test_pieces_faster_than_the_eye_are_joined_into_whole_chunks() -> None:
    """Coalesced chunks concatenate to exactly the generated text; the first piece goes at
    once; nothing is held back at the end."""
    from nekoni_edge.app.chat import Coalescer
    from tests.timers import FakeTimers

    sent: list[str] = []
    timers = FakeTimers(time=100.0)
    chunks = Coalescer(sent.append, interval_s=0.05, clock=timers.now,
                       call_later=timers.call_later)
    pieces = [f"w{i} " for i in range(40)] + ["é", "\n", "", "end."]
    chunks.push(pieces[0])
    assert sent == ["w0 "]  # the first piece is not delayed
    for piece in pieces[1:20]:
        chunks.push(piece)  # all within the interval: held
    assert len(sent) == 1
    timers.advance(0.08)  # the timer sends what was held
    assert len(sent) == 2
    for piece in pieces[20:]:
        chunks.push(piece)
        timers.advance(0.004)
    chunks.flush()
    assert "".join(sent) == "".join(pieces)
    assert len(sent) < len(pieces) // 3
    assert chunks.sent == len(sent)


async def test_the_last_text_goes_before_the_answer_is_logged(
        box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    """Held pieces are sent once the answer's text is complete, not after the bookkeeping
    (logging, traces): the phone's last words used to wait for it."""
    import nekoni_edge.app.chat as app_chat
    from nekoni_edge.app.local import LocalDoor
    from nekoni_edge.app.registry import dispatch

    monkeypatch.setattr(app_chat, "COALESCE_S", 60.0)  # only the end of the text flushes
    door = LocalDoor(box)
    shown_when_logged: list[str] = []
    append = box.db.append_message

    async def logged(session: str, role: str, content: str, *args: Any, **kw: Any) -> Any:
        if role == "assistant":
            shown_when_logged.append("".join(r.get("content", "") for r in door.replies
                                             if r["type"] == "chunk"))
        return await append(session, role, content, *args, **kw)

    monkeypatch.setattr(box.db, "append_message", logged)
    dispatch(door, m.parse({"type": "message", "content": "hi", "sessionId": "c"}))
    await door.settle()
    assert shown_when_logged == ["Hello there."]
    assert [r["type"] for r in door.replies][-1] == "message_end"


async def test_a_bad_skill_field_is_a_skill_error(box: Box) -> None:
    """Typed at parsing (no ``Any`` fields), and still answered as nekoni's apps read skill
    failures: ``skill_error``, never the generic ``error``."""
    for message in ({"type": "skill_create", "name": 12, "prompt": "p"},
                    {"type": "cron_create", "skillId": "s", "cronExpression": "* * * * *",
                     "enabled": "yes"},
                    {"type": "skill_delete"}):
        [reply] = await local.request(box, message)
        assert reply["type"] == "skill_error", message
        assert reply["code"] == "INVALID_REQUEST"
