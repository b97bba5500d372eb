"""The ``devices`` table: the phones allowed to talk to the box."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from nekoni_edge.store.access import Access, now_ms

_LOGGER = logging.getLogger(__name__)

# ``trusted_at`` of a device on probation until the household confirms it (the year 2255).
HELD = 9_000_000_000_000


@dataclass(frozen=True, slots=True)
class Device:
    """A phone allowed to talk to the box."""

    pub_key: str
    name: str
    approved_at: int
    last_seen: int | None
    trusted_at: int | None = None  # on probation until then (paired by the button)

    def on_probation(self, now: int) -> bool:
        return self.trusted_at is not None and now < self.trusted_at


class Devices(Access):
    """Approve, revoke, list and touch paired devices."""

    async def approve_device(self, pub_key: str, name: str = "",
                             probation_ms: int = 0) -> bool:
        """Approve a key (on probation for ``probation_ms``); True if it was not approved."""
        when = now_ms()
        trusted_at = when + probation_ms if probation_ms > 0 else None
        def approve(conn: Any) -> bool:
            added = conn.execute(
                "INSERT INTO devices (pub_key, name, approved_at, trusted_at) VALUES "
                "(?, ?, ?, ?) ON CONFLICT (pub_key) DO NOTHING",
                (pub_key, name, when, trusted_at)).rowcount == 1
            if not added and probation_ms == 0:  # approved again by hand: confirmed
                conn.execute("UPDATE devices SET trusted_at = NULL WHERE pub_key = ?",
                             (pub_key,))
            return bool(added)

        added: bool = await self.write(approve)
        _LOGGER.info("device %s %s", pub_key[:12], "approved" if added else "already approved")
        return added

    async def hold_probation(self, pub_key: str) -> None:
        """Keep a device on probation until it is confirmed (``approve_device`` again)."""
        await self.write(lambda conn: conn.execute(
            "UPDATE devices SET trusted_at = ? WHERE pub_key = ? AND trusted_at IS NOT NULL",
            (HELD, pub_key)))

    async def remove_device(self, pub_key: str) -> bool:
        """Revoke a key; True if it was approved."""
        removed: bool = await self.write(lambda conn: conn.execute(
            "DELETE FROM devices WHERE pub_key = ?", (pub_key,)).rowcount == 1)
        if removed:
            _LOGGER.info("device %s removed", pub_key[:12])
        return removed

    async def rename_device(self, pub_key: str, name: str) -> bool:
        """Give a paired key a name; True if it is paired."""
        renamed: bool = await self.write(lambda conn: conn.execute(
            "UPDATE devices SET name = ? WHERE pub_key = ?", (name, pub_key)).rowcount == 1)
        return renamed

    async def list_devices(self) -> list[Device]:
        """Every approved device, oldest first."""
        rows = await self._fetchall(
            "SELECT pub_key, name, approved_at, last_seen, trusted_at FROM devices "
            "ORDER BY approved_at"
        )
        return [Device(*row) for row in rows]

    async def device(self, pub_key: str) -> Device | None:
        """The approved device with this key, if any."""
        row = await self._fetchone(
            "SELECT pub_key, name, approved_at, last_seen, trusted_at FROM devices "
            "WHERE pub_key = ?", (pub_key,))
        return Device(*row) if row is not None else None

    async def is_approved(self, pub_key: str) -> bool:
        """True if ``pub_key`` is approved."""
        row = await self._fetchone("SELECT 1 FROM devices WHERE pub_key = ?", (pub_key,))
        return row is not None

    async def touch_device(self, pub_key: str) -> None:
        """Record that the device was just seen."""
        when = now_ms()
        await self.write(lambda conn: conn.execute(
            "UPDATE devices SET last_seen = ? WHERE pub_key = ?", (when, pub_key)))
