"""(edge) Live trace events: ``trace_subscribe`` / ``trace_unsubscribe``."""

from __future__ import annotations

from nekoni_edge.app.registry import Context, handles
from nekoni_edge.protocol import messages as m
from nekoni_edge.store.access import now_ms


@handles(m.TraceSubscription)
async def trace_subscription(ctx: Context, message: m.TraceSubscription) -> m.TraceSubscribed:
    """A device on probation follows only its own sessions until it is trusted (the
    household's skill runs and prompts may hold secrets: an alarm code)."""
    until = 0
    if message.subscribe and ctx.device_key is not None:
        device = await ctx.box.db.device(ctx.device_key)
        if device is not None and device.on_probation(now_ms()):
            until = device.trusted_at or 0
    ctx.set_tracing(message.subscribe, own_only_until=until)
    return m.TraceSubscribed(message.subscribe)
