"""Chat: a user turn streamed as ``chunk``s, queued per session, and ``cancel``.

nekoni's apps send the next message while the last still streams and show nothing but
``chunk``/``message_end`` and a non-empty ``message``: so a turn waits for the one before it
in its session, and a turn that cannot be answered says why in a ``message`` too.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from contextlib import aclosing
from typing import Any

from nekoni_edge.agent.answer import CUT_MARK, NO_ANSWER
from nekoni_edge.app.registry import Context, handles, reply_for, request_name
from nekoni_edge.errors import BadMessage
from nekoni_edge.pacing import Joiner
from nekoni_edge.protocol import messages as m
from nekoni_edge.store.chunks import Hit

_LOGGER = logging.getLogger(__name__)

# Turns of one session on one door: the one streaming plus those waiting behind it. A phone
# typing ahead waits; a client flooding one session is told to slow down.
MAX_TURNS_PER_SESSION = 4
# Pieces arriving faster than this are sent together. Ten updates a second still read as
# continuous text, and on two cores each message costs the model's lockstep threads time
# (both processes wake): against raw llama.cpp, 0.955-0.960x at 50 ms, 0.968-0.974x at 100 ms
# (bench_chat). A model slower than ten tokens a second (a Pi) is never held at all.
COALESCE_S = 0.1

STOPPED = "(stopped before answering)"
# What a person reads when a turn fails, by the error's code.
PLAIN_WORDS = {
    "MODEL_UNAVAILABLE": "Sorry, I can't answer right now: the box's language model is not "
                         "working. Whoever looks after the box can run `nekoni-edge doctor` "
                         "on it to see why.",
    "BUSY": "Please wait: several of your messages are still being answered.",
    "FORBIDDEN": "This conversation belongs to another device. Please start a new one.",
    "INTERNAL_ERROR": "Sorry, something went wrong on the box while answering. "
                      "Please try again; if it keeps happening, the box's log says why.",
}


def unreadable(obj: dict[str, Any], exc: BadMessage) -> dict[str, Any] | None:
    """What nekoni's apps show for a chat message the box could not take (they show no
    ``error``: their typing dots turned until the next message): the reason in plain words,
    as a ``message`` of its session. None when ``obj`` is not a chat message."""
    if obj.get("type", "message") != "message" or "content" not in obj:
        return None
    session_id = obj.get("sessionId", m.DEFAULT_SESSION_ID)
    if not isinstance(session_id, str) or not session_id or \
            len(session_id) > m.MAX_SESSION_ID_CHARS:
        return None
    content = obj.get("content")
    if isinstance(content, str) and len(content) > m.MAX_CONTENT_CHARS:
        words = (f"Your message is {len(content):,} characters long; the box takes at most "
                 f"{m.MAX_CONTENT_CHARS:,}. Please shorten it, or add the text as a document "
                 "and ask about it.")
    elif isinstance(content, str) and not content.strip():
        words = "Your message was empty. Please type a question."
    else:
        words = "The box could not read that message. Please send it again."
    return {"type": "message", "content": words, "sessionId": session_id, "code": exc.code}


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
    # The code and the box's own words stay for clients (``detail``); a person reads words.
    ctx.send({"type": "message", "content": words.format(message=reply.get("message", "")),
              "sessionId": session_id, "code": code, "detail": reply.get("message", "")})


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


class Coalescer:
    """Joins pieces that come faster than the eye needs into one ``chunk``: the first goes at
    once, later ones at most every ``interval_s`` (each message on the channel is encrypted,
    framed and acknowledged; nekoni's apps concatenate chunks, so this is invisible to them).
    """

    def __init__(self, send: Callable[[str], None], interval_s: float | None = None, *,
                 clock: Callable[[], float] | None = None,
                 call_later: Callable[[float, Callable[[], None]], Any] | None = None) -> None:
        """``clock`` and ``call_later`` default to the running loop's (tests pass their own)."""
        self._send = send
        self._joiner = Joiner(COALESCE_S if interval_s is None else interval_s)
        self._timer: Any = None
        self._clock = clock
        self._call_later = call_later

    @property
    def sent(self) -> int:
        """Chunks sent."""
        return self._joiner.taken

    def _now(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    def push(self, piece: str) -> None:
        wait = self._joiner.push(piece, self._now())
        if wait <= 0:
            self.flush()
        elif self._timer is None:
            later = self._call_later or asyncio.get_running_loop().call_later
            self._timer = later(wait, self.flush)

    def flush(self) -> None:
        """Send what is held (at the end of the answer, before anything else is sent)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if text := self._joiner.take(self._now()):
            self._send(text)


async def _turn(ctx: Context, message: m.Chat) -> None:
    sources: list[Hit] = []
    chunks = Coalescer(lambda text: ctx.send({"type": "chunk", "content": text}))
    try:
        async with aclosing(ctx.box.chat.reply(message.session_id, message.content,
                                               ctx.device_key, on_context=sources.extend,
                                               approve=ctx.approve,
                                               on_text_end=chunks.flush)) as pieces:
            async for piece in pieces:
                if ctx.closed:
                    break
                chunks.push(piece)
        chunks.flush()
        streamed = chunks.sent
        # nekoni's apps show a ``message`` only when it has content.
        end: dict[str, object] = {"type": "message_end"} if streamed else \
            {"type": "message", "content": NO_ANSWER}
        if sources:  # (edge) what the answer was grounded on
            end["sources"] = [{"source": h.source, "page": h.page, "score": round(h.score, 4)}
                              for h in sources]
        ctx.send(end)
    except asyncio.CancelledError:
        chunks.flush()  # what was generated before the stop is shown, and logged
        if chunks.sent:  # nekoni's apps keep a streamed answer only once it ends
            ctx.send({"type": "chunk", "content": CUT_MARK})
            ctx.send({"type": "message_end", "cancelled": True})
        else:
            ctx.send({"type": "message", "content": STOPPED, "cancelled": True})
        if ctx.closed:
            raise
    except Exception as exc:
        chunks.flush()
        fail(ctx, message.session_id, reply_for(ctx, request_name(message), exc))
