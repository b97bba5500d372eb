"""(edge) Live trace events: ``trace_subscribe`` / ``trace_unsubscribe``."""

from __future__ import annotations

from nekoni_edge.app.registry import Context, handles
from nekoni_edge.policy import Standing, may_see
from nekoni_edge.protocol import messages as m


@handles(m.TraceSubscription)
async def trace_subscription(ctx: Context, message: m.TraceSubscription) -> m.TraceSubscribed:
    """A device on probation follows only its own sessions until it is trusted (the
    household's skill runs and prompts may hold secrets: an alarm code)."""
    until = await ctx.box.policy.own_traces_only_until(ctx.box.db, ctx.device_key) \
        if message.subscribe else 0
    ctx.set_tracing(message.subscribe, own_only_until=until)
    return m.TraceSubscribed(message.subscribe)


@handles(m.TraceList)
async def trace_list(ctx: Context, message: m.TraceList) -> m.TraceListResponse:
    """Stored events, of the sessions the sender may read (the box's owner: all)."""
    rows = await ctx.box.chat.tracer.recent(session_id=message.session_id,
                                           after_id=message.after_id, limit=message.limit)
    # Where the sender stands is read once, not once per event (a page is up to 1000).
    standing, _ = await ctx.box.policy.standing(ctx.box.db, ctx.device_key)
    events = []
    for row, event in rows:
        owner = await ctx.box.chat.owner(event.session_id)
        if may_see(ctx.device_key, owner, own_only=standing is Standing.PROBATION):
            events.append((row, event.wire()))
    return m.TraceListResponse(events)
