"""systemd's notify protocol (READY=1, STATUS=…, WATCHDOG=1), with no dependency.

The watchdog is petted from the event loop itself, so a blocked loop stops the pings and
systemd restarts the daemon.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket

from nekoni_edge.aio import cancel_and_wait

_LOGGER = logging.getLogger(__name__)


class Notifier:
    """Talks to ``$NOTIFY_SOCKET`` when systemd set one; does nothing otherwise."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = dict(os.environ) if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self._address = "\0" + address[1:] if address.startswith("@") else address
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        watchdog_ok = usec.isdigit() and (not pid or pid == str(os.getpid()))
        self.watchdog_s = int(usec) / 1_000_000 if watchdog_ok else None
        self._task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return bool(self._address)

    def notify(self, *fields: str) -> bool:
        """Send ``KEY=value`` lines; True if systemd was told."""
        if not self._address:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            try:
                sock.sendto("\n".join(fields).encode("utf-8"), self._address)
            except OSError as exc:
                _LOGGER.warning("sd_notify failed: %s", exc)
                return False
        return True

    def ready(self, status: str) -> None:
        self.notify("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.notify(f"STATUS={status}")

    def stopping(self) -> None:
        self.notify("STOPPING=1", "STATUS=shutting down")

    def start_watchdog(self) -> None:
        """Pet the watchdog at half its interval, from the loop."""
        if self.watchdog_s is None or not self._address:
            return
        self._task = asyncio.get_running_loop().create_task(self._pet(self.watchdog_s / 2))
        _LOGGER.info("systemd watchdog: petting every %.1f s", self.watchdog_s / 2)

    async def _pet(self, interval: float) -> None:
        while True:
            self.notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    async def stop_watchdog(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None
