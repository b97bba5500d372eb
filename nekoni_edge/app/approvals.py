"""The owner's answer to an ``approval_request`` (each approval is used once)."""

from __future__ import annotations

from nekoni_edge.app.registry import Context, handles
from nekoni_edge.protocol import messages as m


@handles(m.ApprovalDecision)
def approval_decision(ctx: Context, message: m.ApprovalDecision) -> None:
    pending = ctx.approvals.pop(message.approval_id, None)
    if pending is not None and not pending.done():
        pending.set_result(message.approved)
