"""The handler table: one handler per client message type, and how a handler's outcome
becomes replies — the same for every door (DataChannel, the box's control socket).

A handler takes the door's ``Context`` and the typed message and returns a reply (or an
awaitable of one, run as a task of that door). Whatever it raises becomes a reply: a
``NekoniError`` its own, anything else ``INTERNAL_ERROR`` naming the request, logged once
with its traceback. Nothing a peer sends is ever answered with silence.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import typing
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from nekoni_edge.agent.chat import ChatService
from nekoni_edge.errors import NekoniError
from nekoni_edge.policy import Policy
from nekoni_edge.protocol import messages as m
from nekoni_edge.rag.upload import UploadAssembler
from nekoni_edge.store.database import Database

_LOGGER = logging.getLogger(__name__)

Outcome = m.Reply | dict[str, Any] | None
Handler = Callable[[Any, Any], Outcome | Awaitable[Outcome]]
HANDLERS: dict[type, Handler] = {}


@dataclass
class Box:
    """What handlers use of the box beyond their door."""

    db: Database
    chat: ChatService
    # Close every channel and peer connection a key has, its work stopped (the transport's
    # half of ``devices.revoke``, the one way a key stops being trusted); returns how many.
    disconnect: Callable[[str], Awaitable[int]]
    # The pairing QR code's text for nekoni's web or mobile app, at an address, and whether it
    # is the label's (with the setup code); None: the box serves no LAN.
    pair_code: Callable[[str, str | None, bool], str] | None = None
    policy: Policy = field(default_factory=Policy)  # who may do what, on its clock


class Context(Protocol):
    """A door a message came through: who sent it, where replies go, its per-door state."""

    label: str
    box: Box
    closed: bool
    generations: dict[str, deque[asyncio.Task[None]]]  # chat turns by session, running first
    approvals: dict[str, asyncio.Future[bool]]  # tool approvals waiting for this door
    uploads: UploadAssembler

    @property
    def device_key(self) -> str | None:
        """The paired key that sent it; None for the box's owner at the box itself."""

    def send(self, reply: m.Reply | dict[str, Any]) -> None:
        """One reply to the sender (dropped once the door is closed)."""

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run a coroutine as this door's task (cancelled when the door closes)."""

    def set_tracing(self, on: bool, *, own_only_until: int = 0) -> None:
        """Stream trace events to this door, or stop; until ``own_only_until`` (ms, a device
        on probation) only its own sessions' events."""

    async def approve(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Ask the sender to approve a tool call; no answer in time is a no."""

    def upload_activity(self) -> None:
        """An upload began or advanced: keep sweeping idle ones."""


async def require_trusted(ctx: Context, what: str) -> None:
    """Refuse ``what`` to a device still on probation (``Policy.require_trusted``)."""
    await ctx.box.policy.require_trusted(ctx.box.db, ctx.device_key, what)


def handles(*types: type) -> Callable[[Handler], Handler]:
    """Register the decorated function as the one handler of ``types``."""

    def register(handler: Handler) -> Handler:
        for kind in types:
            if kind in HANDLERS:
                raise RuntimeError(f"{kind.__name__} has two handlers: "
                                   f"{HANDLERS[kind].__qualname__} and {handler.__qualname__}")
            HANDLERS[kind] = handler
        return handler

    return register


def check_coverage(handlers: dict[type, Handler] = HANDLERS) -> None:
    """Every client message type has a handler, and only those do (run at import)."""
    expected = set(typing.get_args(m.ClientMessage))
    missing = sorted(t.__name__ for t in expected - set(handlers))
    extra = sorted(t.__name__ for t in set(handlers) - expected)
    if missing or extra:
        raise RuntimeError(f"handler table: no handler for {missing}; not a client message "
                           f"{extra}")


def request_name(message: Any) -> str:
    """The wire type of a typed request."""
    return str(type(message).TYPE)


def dispatch(ctx: Context, message: Any) -> None:
    """Run the message's handler; its outcome, or what it raised, is sent back."""
    name = request_name(message)
    try:
        outcome = HANDLERS[type(message)](ctx, message)
    except Exception as exc:
        report(ctx, name, exc)
        return
    if inspect.isawaitable(outcome):
        ctx.spawn(_finish(ctx, name, outcome))
    elif outcome is not None:
        ctx.send(outcome)


async def _finish(ctx: Context, name: str, outcome: Awaitable[Outcome]) -> None:
    try:
        reply = await outcome
    except Exception as exc:
        report(ctx, name, exc)
        return
    if reply is not None:
        ctx.send(reply)


def report(ctx: Context, name: str, exc: Exception) -> None:
    """Send what ``exc`` becomes on the wire."""
    ctx.send(reply_for(ctx, name, exc))


def reply_for(ctx: Context, name: str, exc: Exception) -> dict[str, Any]:
    """What ``exc`` becomes on the wire; an unexpected one is logged with its traceback."""
    reply = exc.reply() if isinstance(exc, NekoniError) else None
    if reply is None:
        _LOGGER.error("%s: %s failed", ctx.label, name, exc_info=exc)
        reply = m.error_reply("INTERNAL_ERROR", f"{name} failed on the box; see its log")
    return reply
