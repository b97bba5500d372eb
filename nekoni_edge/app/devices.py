"""Paired devices: list them, revoke one (its channels and peer connections close at once),
rename one; and the pairing code that adds one."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from nekoni_edge.app.registry import Box, Context, handles, require_trusted
from nekoni_edge.errors import NekoniError
from nekoni_edge.protocol import messages as m

_LOGGER = logging.getLogger(__name__)


class AtTheBoxOnly(NekoniError):
    """A request only the box's owner may make, at the box."""

    def reply(self) -> dict[str, Any]:
        return m.error_reply("FORBIDDEN", str(self))


@dataclass(frozen=True, slots=True)
class Revoked:
    """What one revocation did."""

    was_paired: bool
    on_probation: bool  # paired by the button less than a window ago: what it added is undone
    closed: int  # peer connections closed
    documents: int = 0  # documents it added, removed
    messages: int = 0  # messages of its sessions (and its own elsewhere), removed


async def revoke(box: Box, pub_key: str, why: str) -> Revoked:
    """The one way a key stops being trusted: the owner's ``device_remove`` (any door), an
    overlap found in the pairing window, a long press.

    Its channels close and everything they were doing (turns, uploads, an ingest) is stopped
    before this returns. A device still on probation is a stranger who may have won a race to
    the button: what it added goes too (its documents, which would otherwise keep feeding the
    household's answers, and the sessions it wrote). A trusted device's documents stay: the
    household added them through it.
    """
    device = await box.db.device(pub_key)
    on_probation = box.policy.on_probation(device)
    removed = await box.db.remove_device(pub_key)
    closed = await box.disconnect(pub_key)
    documents = messages = 0
    if on_probation:
        documents = await box.db.delete_added_by(pub_key)
        messages = await box.db.forget_device_sessions(pub_key)
    _LOGGER.warning(
        "device %s revoked (%s): %s; %d peer connection(s) closed%s", pub_key[:12], why,
        "was paired" if removed else "was not paired", closed,
        f"; on probation, so its {documents} document(s) and {messages} message(s) are gone"
        if on_probation else "")
    return Revoked(removed, on_probation, closed, documents, messages)


@handles(m.DeviceList)
async def device_list(ctx: Context, message: m.DeviceList) -> m.DeviceListResponse:
    await require_trusted(ctx, "see the paired devices")
    return m.DeviceListResponse([
        m.DeviceInfo(d.pub_key, d.name, d.approved_at, d.last_seen,
                     d.pub_key == ctx.device_key)
        for d in await ctx.box.db.list_devices()
    ])


@handles(m.DeviceRemove)
async def device_remove(ctx: Context, message: m.DeviceRemove) -> m.DeviceRemoveResponse:
    await require_trusted(ctx, "remove devices")
    revoked = await revoke(ctx.box, message.pub_key, f"removed by {ctx.label}")
    return m.DeviceRemoveResponse(revoked.was_paired, message.pub_key)


@handles(m.DeviceAdd)
async def device_add(ctx: Context, message: m.DeviceAdd) -> m.DeviceAddResponse:
    """A key approved by hand at the box (``nekoni-edge devices add``), or a paired one
    confirmed (its probation ends); a phone pairs by the button, never by this."""
    if ctx.device_key is not None:
        raise AtTheBoxOnly("devices are added by the button on the box, or at the box itself")
    added = await ctx.box.db.approve_device(message.pub_key, message.name)
    _LOGGER.warning("%s: device %s %s by hand", ctx.label, message.pub_key[:12],
                    "approved" if added else "was already approved: confirmed")
    return m.DeviceAddResponse(added, message.pub_key)


@handles(m.DeviceRename)
async def device_rename(ctx: Context, message: m.DeviceRename) -> m.DeviceRenameResponse:
    await require_trusted(ctx, "rename devices")
    renamed = await ctx.box.db.rename_device(message.pub_key, message.name)
    return m.DeviceRenameResponse(renamed, message.pub_key, message.name)


@handles(m.PairCode)
def pair_code(ctx: Context, message: m.PairCode) -> m.PairCodeResponse | dict[str, Any]:
    """What ``nekoni-edge qr`` prints and the box's page draws (public: mDNS tells the same),
    or, for the owner at the box only, the label's code with the setup code in its URLs."""
    if ctx.box.pair_code is None:
        return m.error_reply("NOT_AVAILABLE", "this box is not serving, so no app can pair")
    if message.label and ctx.device_key is not None:
        return m.error_reply("FORBIDDEN", "The label's pairing code is shown only on the box "
                                          "itself (nekoni-edge qr --label).")
    return m.PairCodeResponse(message.app, ctx.box.pair_code(message.app, message.address,
                                                             message.label))
