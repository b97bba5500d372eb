"""(edge) Live trace events: ``trace_subscribe`` / ``trace_unsubscribe``."""

from __future__ import annotations

from nekoni_edge.app.registry import Context, handles
from nekoni_edge.protocol import messages as m


@handles(m.TraceSubscription)
def trace_subscription(ctx: Context, message: m.TraceSubscription) -> m.TraceSubscribed:
    ctx.set_tracing(message.subscribe)
    return m.TraceSubscribed(message.subscribe)
