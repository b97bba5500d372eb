"""Paired devices: list them, revoke one (its channels and peer connections close at once),
rename one; and the pairing code that adds one."""

from __future__ import annotations

import logging
from typing import Any

from nekoni_edge.app.registry import Context, handles, require_trusted
from nekoni_edge.protocol import messages as m

_LOGGER = logging.getLogger(__name__)


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
    removed = await ctx.box.db.remove_device(message.pub_key)
    closed = await ctx.box.revoke(message.pub_key)
    _LOGGER.info("%s: device %s revoked (%s); %d peer connection(s) closed", ctx.label,
                 message.pub_key[:12], "was paired" if removed else "was not paired", closed)
    return m.DeviceRemoveResponse(removed, message.pub_key)


@handles(m.DeviceRename)
async def device_rename(ctx: Context, message: m.DeviceRename) -> m.DeviceRenameResponse:
    await require_trusted(ctx, "rename devices")
    renamed: bool = await ctx.box.db.write(lambda conn: conn.execute(
        "UPDATE devices SET name = ? WHERE pub_key = ?",
        (message.name, message.pub_key)).rowcount == 1)
    return m.DeviceRenameResponse(renamed, message.pub_key, message.name)


@handles(m.PairCode)
def pair_code(ctx: Context, message: m.PairCode) -> m.PairCodeResponse | dict[str, Any]:
    """What ``nekoni-edge qr`` prints and the box's page draws (public: mDNS tells the same)."""
    if ctx.box.pair_code is None:
        return m.error_reply("NOT_AVAILABLE", "this box is not serving, so no app can pair")
    return m.PairCodeResponse(message.app, ctx.box.pair_code(message.app))
