"""A phone's view of the box: ``ping`` and ``sync`` (the log of a session)."""

from __future__ import annotations

from nekoni_edge.app.registry import Context, handles
from nekoni_edge.protocol import messages as m


@handles(m.Ping)
def ping(ctx: Context, message: m.Ping) -> m.Pong:
    return m.Pong()


@handles(m.Sync)
async def sync(ctx: Context, message: m.Sync) -> m.SyncResponse:
    """A device reads only the sessions it started (and the household's: skill runs, the
    box's own); another's reads as empty, so nothing is told about it."""
    owner = await ctx.box.chat.owner(message.session_id)
    if not await ctx.box.policy.may_read(ctx.box.db, ctx.device_key, owner):
        return m.SyncResponse([])
    rows = await ctx.box.db.messages_after(message.session_id, message.after_timestamp,
                                           all_roles=message.all_roles)
    return m.SyncResponse([m.SyncedMessage(r.role, r.content, r.timestamp) for r in rows])
