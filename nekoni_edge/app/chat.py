"""Chat: a user turn streamed as ``chunk``s, queued per session, and ``cancel``.

nekoni's apps send the next message while the last still streams and show nothing but
``chunk``/``message_end`` and a non-empty ``message``: so a turn waits for the one before it
in its session, and a turn that cannot be answered says why in a ``message`` too.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from contextlib import aclosing
from typing import Any

from nekoni_edge.agent.answer import NO_ANSWER
from nekoni_edge.app.registry import Context, handles, request_name
from nekoni_edge.errors import NekoniError
from nekoni_edge.protocol import messages as m
from nekoni_edge.store.knowledge import Hit

_LOGGER = logging.getLogger(__name__)

# Turns of one session on one door: the one streaming plus those waiting behind it. A phone
# typing ahead waits; a client flooding one session is told to slow down.
MAX_TURNS_PER_SESSION = 4

STOPPED = "(stopped before answering)"
# What a person reads when a turn fails, by the error's code.
PLAIN_WORDS = {
    "MODEL_UNAVAILABLE": "Sorry, I can't answer right now: {message}",
    "BUSY": "Please wait: several of your messages are still being answered.",
    "FORBIDDEN": "This conversation belongs to another device. Please start a new one.",
    "INTERNAL_ERROR": "Sorry, something went wrong on the box while answering. "
                      "Please try again; if it keeps happening, the box's log says why.",
}


@handles(m.Chat)
def chat(ctx: Context, message: m.Chat) -> None:
    """Queue the turn behind the session's running one (one turn per session at a time)."""
    turns = ctx.generations.setdefault(message.session_id, deque())
    if len(turns) >= MAX_TURNS_PER_SESSION:
        fail(ctx, message.session_id, m.error_reply(
            "BUSY", f"{len(turns)} messages of this session are still being answered"))
        return
    before = turns[-1] if turns else None
    if before is not None:
        _LOGGER.info("%s: session %s: message queued behind %d", ctx.label,
                     message.session_id[:32], len(turns))
    turns.append(ctx.spawn(_queued(ctx, message, before)))


@handles(m.Cancel)
def cancel(ctx: Context, message: m.Cancel) -> None:
    """Stop the session's generation at the next token, and drop the turns waiting behind it."""
    turns = ctx.generations.get(message.session_id)
    if turns:
        _LOGGER.info("%s: cancel for session %s", ctx.label, message.session_id[:32])
        for task in list(turns):
            task.cancel()


def fail(ctx: Context, session_id: str, reply: dict[str, Any]) -> None:
    """A turn that gets no answer: the (edge) error, then the reason in plain words."""
    code = str(reply.get("code", "INTERNAL_ERROR"))
    words = PLAIN_WORDS.get(code, "Sorry, I can't answer that: {message}")
    ctx.send({**reply, "sessionId": session_id})
    ctx.send({"type": "message", "content": words.format(message=reply.get("message", "")),
              "sessionId": session_id, "code": code})


async def _queued(ctx: Context, message: m.Chat, before: asyncio.Task[None] | None) -> None:
    try:
        if before is not None:
            await asyncio.wait([before])  # its outcome is its own; only its end matters here
        await _turn(ctx, message)
    finally:
        turns = ctx.generations.get(message.session_id)
        task = asyncio.current_task()
        if turns is not None and task in turns:
            turns.remove(task)  # type: ignore[arg-type]
            if not turns:
                del ctx.generations[message.session_id]


async def _turn(ctx: Context, message: m.Chat) -> None:
    streamed = 0
    sources: list[Hit] = []
    try:
        async with aclosing(ctx.box.chat.reply(message.session_id, message.content,
                                               ctx.device_key, on_context=sources.extend,
                                               approve=ctx.approve)) as pieces:
            async for piece in pieces:
                if ctx.closed:
                    break
                ctx.send({"type": "chunk", "content": piece})
                streamed += 1
        # nekoni's apps show a ``message`` only when it has content.
        end: dict[str, object] = {"type": "message_end"} if streamed else \
            {"type": "message", "content": NO_ANSWER}
        if sources:  # (edge) what the answer was grounded on
            end["sources"] = [{"source": h.source, "page": h.page, "score": round(h.score, 4)}
                              for h in sources]
        ctx.send(end)
    except asyncio.CancelledError:
        if streamed:
            ctx.send({"type": "message_end", "cancelled": True})
        else:
            ctx.send({"type": "message", "content": STOPPED, "cancelled": True})
        if ctx.closed:
            raise
    except Exception as exc:
        reply = exc.reply() if isinstance(exc, NekoniError) else None
        if reply is None:
            _LOGGER.error("%s: %s failed", ctx.label, request_name(message),  # noqa: TRY400
                          exc_info=exc)  # it is not the exception being handled here
            reply = m.error_reply("INTERNAL_ERROR",
                                  f"{request_name(message)} failed on the box; see its log")
        fail(ctx, message.session_id, reply)
