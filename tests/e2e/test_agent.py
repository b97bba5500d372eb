"""The agent over the DataChannel: skills and cron, traces, tool approvals."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from nekoni_edge.agent.tools import Tool
from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.daemon import Daemon
from nekoni_edge.llm.scripted import ScriptedProvider
from tests.e2e.helpers import approved, until

pytestmark = pytest.mark.slow


async def test_skill_run_answers_in_its_reply(phone: PhoneClient, daemon: Daemon) -> None:
    created = await phone.request({"type": "skill_create", "name": "Greeting",
                                   "prompt": "Say good morning in one short sentence."},
                                  "skill_response")
    skill = created["skill"]
    assert set(skill) == {"id", "name", "description", "prompt", "createdAt"}  # nekoni's shape
    listed = await phone.request({"type": "skill_list"}, "skill_list_response")
    assert [s["id"] for s in listed["skills"]] == [skill["id"]]

    phone.send({"type": "skill_run", "id": skill["id"]})
    received = await until(phone, ("skill_run_response", "skill_error"))
    # as nekoni's agent: nothing streams (nekoni's web app shows a chunk as a chat bubble)
    assert [m["type"] for m in received] == ["skill_run_response"]
    result = received[-1]
    assert result["id"] == skill["id"]
    assert result["result"].strip()
    assert daemon.db is not None
    logged = await daemon.db.messages_after(f"skill:{skill['id']}", 0, all_roles=True)
    assert logged[0].content == skill["prompt"]  # episodic memory of the run
    assert logged[-1].role == "assistant"


async def test_cron_over_the_channel(phone: PhoneClient) -> None:
    skill = (await phone.request({"type": "skill_create", "name": "S", "prompt": "Hi"},
                                 "skill_response"))["skill"]
    job = (await phone.request({"type": "cron_create", "skillId": skill["id"],
                                "cronExpression": "0 7 * * *"}, "cron_response"))["job"]
    assert job["enabled"] is True
    assert job["lastRun"] is None
    updated = await phone.request({"type": "cron_update", "id": job["id"], "enabled": False},
                                  "cron_response")
    assert updated["job"]["enabled"] is False
    phone.send({"type": "cron_create", "skillId": skill["id"], "cronExpression": "soon"})
    error = await phone.recv()
    assert error["type"] == "skill_error"
    assert "invalid cron expression" in error["message"]
    listed = await phone.request({"type": "cron_list"}, "cron_list_response")
    assert [j["id"] for j in listed["jobs"]] == [job["id"]]
    mine = await phone.request({"type": "cron_list", "skillId": skill["id"]},
                               "cron_list_response")
    assert [j["id"] for j in mine["jobs"]] == [job["id"]]
    other = await phone.request({"type": "cron_list", "skillId": "sk_other"},
                                "cron_list_response")
    assert other["jobs"] == []
    deleted = await phone.request({"type": "cron_delete", "id": job["id"]},
                                  "cron_delete_response")
    assert deleted == {"type": "cron_delete_response", "id": job["id"]}
    phone.send({"type": "cron_delete", "id": job["id"]})
    gone = await phone.recv()
    assert gone["type"] == "skill_error"  # nekoni's apps would drop it from the list otherwise
    assert gone["code"] == "NOT_FOUND"
    removed = await phone.request({"type": "skill_delete", "id": skill["id"]},
                                  "skill_delete_response")
    assert removed == {"type": "skill_delete_response", "id": skill["id"]}


async def test_traces_stream_to_subscribers(phone: PhoneClient) -> None:
    assert (await phone.request({"type": "trace_subscribe"}, "trace_subscribed"))
    phone.send({"type": "message", "content": "Say hi.", "sessionId": "traced"})
    received = await until(phone, ("message_end", "message"))
    events = [m["event"] for m in received if m["type"] == "trace"]
    while not (events and events[-1]["type"] == "message" and events[-1]["data"]["role"]
               == "assistant"):
        events.append((await phone.recv())["event"])
    assert events[0]["type"] == "message"
    assert events[0]["sessionId"] == "traced"
    assert {"llm_call"} <= {e["type"] for e in events}
    assert all(e.get("parentId") for e in events[1:])
    assert (await phone.request({"type": "trace_unsubscribe"}, "trace_unsubscribed"))


@pytest.fixture
async def scripted_box(settings: Any) -> AsyncIterator[tuple[Daemon, list[str], Any]]:
    """A box whose model is scripted (the approval logic, not the model, is under test)."""
    provider = ScriptedProvider([["Done."]] * 3)
    box = Daemon(dataclasses.replace(settings, rag=False), provider=provider)
    await box.start()
    runs: list[str] = []

    async def unlock(args: dict[str, Any]) -> str:
        runs.append("unlocked")
        return "unlocked"

    assert box.chat is not None
    box.chat.tools.register(Tool("unlock_door", "Unlocks the door.",
                                 {"type": "object", "properties": {},
                                  "additionalProperties": False},
                                 unlock, requires_approval=True,
                                 examples=("Open the door", "Unlock the front door")))
    key = await approved(box)
    yield box, runs, key
    await box.stop()


@pytest.mark.parametrize("decision", [True, False, None])
async def test_approval_over_the_channel(scripted_box: Any, decision: bool | None) -> None:
    box, runs, key = scripted_box
    async with PhoneClient(key, f"http://127.0.0.1:{box.port}") as phone:
        if decision is None:  # quick timing: no answer in time means denied
            [peer] = box.peers.peers.values()
            peer.sessions[0]._approval_timeout = 0.2
        phone.send({"type": "message", "content": "Open the door", "sessionId": "door"})
        request = await phone.recv()
        assert request["type"] == "approval_request"
        assert request["tool"] == "unlock_door"
        assert request["arguments"] == {}
        if decision is not None:
            phone.send({"type": "approval_decision", "approvalId": request["approvalId"],
                        "approved": decision})
            # a replayed decision is ignored: an approved call runs at most once
            phone.send({"type": "approval_decision", "approvalId": request["approvalId"],
                        "approved": True})
        received = await until(phone, ("message_end",))
    assert runs == (["unlocked"] if decision else [])
    assert any(m.get("content") == "Done." for m in received)
