"""The ``devices`` table: the phones allowed to talk to the box."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from nekoni_edge.store.access import Access, now_ms

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Device:
    """A phone allowed to talk to the box."""

    pub_key: str
    name: str
    approved_at: int
    last_seen: int | None


class Devices(Access):
    """Approve, revoke, list and touch paired devices."""

    async def approve_device(self, pub_key: str, name: str = "") -> bool:
        """Approve a key; True if it was not approved before."""
        added: bool = await self.write(lambda conn: conn.execute(
            "INSERT INTO devices (pub_key, name, approved_at) VALUES (?, ?, ?) "
            "ON CONFLICT (pub_key) DO NOTHING", (pub_key, name, now_ms())).rowcount == 1)
        _LOGGER.info("device %s %s", pub_key[:12], "approved" if added else "already approved")
        return added

    async def remove_device(self, pub_key: str) -> bool:
        """Revoke a key; True if it was approved."""
        removed: bool = await self.write(lambda conn: conn.execute(
            "DELETE FROM devices WHERE pub_key = ?", (pub_key,)).rowcount == 1)
        if removed:
            _LOGGER.info("device %s removed", pub_key[:12])
        return removed

    async def list_devices(self) -> list[Device]:
        """Every approved device, oldest first."""
        rows = await self._fetchall(
            "SELECT pub_key, name, approved_at, last_seen FROM devices ORDER BY approved_at"
        )
        return [Device(*row) for row in rows]

    async def is_approved(self, pub_key: str) -> bool:
        """True if ``pub_key`` is approved."""
        row = await self._fetchone("SELECT 1 FROM devices WHERE pub_key = ?", (pub_key,))
        return row is not None

    async def touch_device(self, pub_key: str) -> None:
        """Record that the device was just seen."""
        when = now_ms()
        await self.write(lambda conn: conn.execute(
            "UPDATE devices SET last_seen = ? WHERE pub_key = ?", (when, pub_key)))
