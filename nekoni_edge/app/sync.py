"""A phone's view of the box: ``ping`` and ``sync`` (the log of a session)."""

from __future__ import annotations

from nekoni_edge.app.registry import Context, handles
from nekoni_edge.protocol import messages as m
from nekoni_edge.store.access import now_ms


@handles(m.Ping)
def ping(ctx: Context, message: m.Ping) -> m.Pong:
    return m.Pong()


@handles(m.Sync)
async def sync(ctx: Context, message: m.Sync) -> m.SyncResponse:
    """A device reads only the sessions it started (and the household's: skill runs, the
    box's own); another's reads as empty, so nothing is told about it."""
    owner = await ctx.box.chat.owner(message.session_id)
    if ctx.device_key is not None and owner not in (None, ctx.device_key):
        return m.SyncResponse([])
    if ctx.device_key is not None and owner is None:
        # The household's (skill runs, the box's own): not to a device still on probation.
        device = await ctx.box.db.device(ctx.device_key)
        if device is not None and device.on_probation(now_ms()):
            return m.SyncResponse([])
    rows = await ctx.box.db.messages_after(message.session_id, message.after_timestamp,
                                           all_roles=message.all_roles)
    return m.SyncResponse([m.SyncedMessage(r.role, r.content, r.timestamp) for r in rows])
