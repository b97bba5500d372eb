"""Chat: a user turn streamed as ``chunk``s, and ``cancel``."""

from __future__ import annotations

import asyncio
import logging
from contextlib import aclosing

from nekoni_edge.app.registry import Context, handles, report
from nekoni_edge.protocol import messages as m
from nekoni_edge.store.knowledge import Hit

_LOGGER = logging.getLogger(__name__)


@handles(m.Chat)
def chat(ctx: Context, message: m.Chat) -> dict[str, str] | None:
    """Start the turn as this door's task; one turn per session at a time."""
    if message.session_id in ctx.generations:
        return m.error_reply("BUSY", "a reply for this session is still streaming; "
                                     "send cancel first")
    ctx.generations[message.session_id] = ctx.spawn(_turn(ctx, message))
    return None


@handles(m.Cancel)
def cancel(ctx: Context, message: m.Cancel) -> None:
    """Stop the session's generation at the next token (it ends with ``cancelled``)."""
    running = ctx.generations.get(message.session_id)
    if running is not None:
        _LOGGER.info("%s: cancel for session %s", ctx.label, message.session_id[:32])
        running.cancel()


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
        end: dict[str, object] = {"type": "message_end"} if streamed else \
            {"type": "message", "content": ""}
        if sources:  # (edge) what the answer was grounded on
            end["sources"] = [{"source": h.source, "page": h.page, "score": round(h.score, 4)}
                              for h in sources]
        ctx.send(end)
    except asyncio.CancelledError:
        if streamed:
            ctx.send({"type": "message_end", "cancelled": True})
        else:
            ctx.send({"type": "message", "content": "", "cancelled": True})
        if ctx.closed:
            raise
    except Exception as exc:
        report(ctx, m.Chat.TYPE, exc)
    finally:
        ctx.generations.pop(message.session_id, None)
