"""With the real GGUF: time questions produce a valid get_time call through the grammar."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.agent.builtins import register_builtins
from nekoni_edge.agent.chat import ChatService
from nekoni_edge.agent.tools import ToolRegistry
from nekoni_edge.store.database import Database

pytestmark = pytest.mark.slow

# None of these is one of the loop's own examples.
PROMPTS = ["Could you tell me the time?", "What is the date today?",
           "Which day of the week is it?", "What time is it in Tokyo right now?"]


async def test_time_questions_call_get_time(tmp_path: Path, llama_provider: Any) -> None:
    tools = ToolRegistry()
    register_builtins(tools, data_dir=tmp_path, knowledge=None)
    async with await Database.open(tmp_path / "db") as db:
        chat = ChatService(db, llama_provider, system_prompt="You are a helpful assistant.",
                           context_messages=20, n_ctx=2048, max_tokens=24, tools=tools)
        for i, prompt in enumerate(PROMPTS):
            session = f"time-{i}"
            async with aclosing(chat.reply(session, prompt)) as stream:
                answer = "".join([p async for p in stream])
            assert answer.strip(), prompt
            events = [e for _, e in await chat.tracer.recent(session_id=session)]
            decisions = [e for e in events if e.type == "llm_call"
                         and e.data.get("kind") == "tool_decision"
                         and e.data["phase"] == "complete"]
            calls = [e for e in events if e.type == "tool_call" and e.data["phase"] == "complete"]
            # the grammar made the first decision a parseable call of a real tool
            assert '"tool_call"' in decisions[0].data["output"], prompt
            assert [c.data["tool"] for c in calls][:1] == ["get_time"], prompt
            assert calls[0].data["ok"] is True, prompt
            tool_rows = [m for m in await db.messages_after(session, 0, all_roles=True)
                         if m.role == "tool"]
            assert '"iso"' in tool_rows[0].content
