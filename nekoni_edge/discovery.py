"""mDNS: advertise ``_nekoni._tcp.local.`` with python-zeroconf; browse for boxes (client).

TXT as in PROTOCOL.md; updated when the pairing window opens or closes; re-announced when the
box's addresses change (DHCP renew, Wi-Fi reconnect); unregistered on shutdown.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nekoni_edge.aio import cancel_and_wait

_LOGGER = logging.getLogger(__name__)

SERVICE_TYPE = "_nekoni._tcp.local."
ADDRESS_POLL_S = 5.0
BROWSE_S = 3.0


def current_addresses(interfaces: Sequence[str]) -> list[str]:
    """The IPv4 addresses to advertise: the configured ones, else every non-loopback one."""
    if interfaces:
        return sorted(interfaces)
    import ifaddr  # comes with zeroconf

    found = set()
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ipaddress.ip_address(ip.ip).is_loopback:
                found.add(ip.ip)
    return sorted(found)


def _host_label(name: str) -> str:
    label = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-").lower()
    return (label or "nekoni-edge")[:63]


class Advertiser:
    """Keeps the box's service record on the LAN in step with its state and addresses."""

    def __init__(
        self,
        name: str,
        port: int,
        txt: dict[str, str],
        *,
        interfaces: Sequence[str] = (),
        poll_s: float = ADDRESS_POLL_S,
        cooperating: bool = False,
    ) -> None:
        self.name = name
        self.port = port
        self.txt = dict(txt)
        self._interfaces = tuple(interfaces)
        self._poll_s = poll_s
        self._cooperating = cooperating  # skip name probing (tests only)
        self._zc: Any = None
        self._info: Any = None
        self.addresses: list[str] = []
        self._watch: asyncio.Task[None] | None = None

    def _service_info(self) -> Any:
        from zeroconf import ServiceInfo

        return ServiceInfo(
            SERVICE_TYPE,
            f"{self.name}.{SERVICE_TYPE}",
            addresses=[socket.inet_aton(a) for a in self.addresses],
            port=self.port,
            properties=self.txt,
            server=f"{_host_label(self.name)}.local.",
        )

    async def _register(self) -> None:
        from zeroconf import InterfaceChoice, IPVersion
        from zeroconf.asyncio import AsyncZeroconf

        if not self.addresses:
            _LOGGER.warning("mDNS: the box has no address yet; will announce when it has one")
            return

        interfaces: Any = list(self.addresses) if self._interfaces else InterfaceChoice.All
        self._zc = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        self._info = self._service_info()
        await self._zc.async_register_service(
            self._info, allow_name_change=True, cooperating_responders=self._cooperating
        )
        _LOGGER.info("mDNS: advertising %r on %s port %d", self.name,
                     ", ".join(self.addresses) or "no address", self.port)

    async def _unregister(self) -> None:
        if self._zc is None:
            return
        try:
            await self._zc.async_unregister_service(self._info)
        finally:
            await self._zc.async_close()
            self._zc = None

    async def start(self) -> None:
        self.addresses = current_addresses(self._interfaces)
        await self._register()
        self._watch = asyncio.get_running_loop().create_task(self._watch_addresses())

    async def _watch_addresses(self) -> None:
        while True:
            await asyncio.sleep(self._poll_s)
            try:
                addresses = await asyncio.get_running_loop().run_in_executor(
                    None, current_addresses, self._interfaces
                )
                if addresses != self.addresses:
                    _LOGGER.info("mDNS: addresses changed %s -> %s; re-announcing",
                                 self.addresses, addresses)
                    await self._unregister()
                    self.addresses = addresses
                    await self._register()
            except Exception:
                _LOGGER.exception("mDNS: re-announce failed; will retry")

    async def stop(self) -> None:
        await cancel_and_wait(self._watch)
        self._watch = None
        await self._unregister()
        _LOGGER.info("mDNS: unregistered %r", self.name)


@dataclass(frozen=True, slots=True)
class FoundBox:
    """A box seen on the LAN."""

    name: str
    addresses: tuple[str, ...]
    port: int
    txt: dict[str, str]

    @property
    def tls_fingerprint(self) -> str | None:
        """The certificate's SHA-256 when the box serves HTTPS (it says so in its TXT)."""
        return self.txt.get("tlsFingerprint") or None

    @property
    def base_url(self) -> str:
        scheme = "https" if self.tls_fingerprint else "http"
        return f"{scheme}://{self.addresses[0]}:{self.port}"


async def browse(timeout: float = BROWSE_S, interfaces: Sequence[str] = ()) -> list[FoundBox]:  # noqa: ASYNC109
    """Every nekoni box that answers within ``timeout`` seconds."""
    from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange
    from zeroconf.asyncio import (
        AsyncServiceBrowser,
        AsyncServiceInfo,
        AsyncZeroconf,
    )

    names: set[str] = set()

    def on_change(zeroconf: Any, service_type: str, name: str,
                  state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Removed:
            names.add(name)

    zc = AsyncZeroconf(interfaces=list(interfaces) or InterfaceChoice.All,
                       ip_version=IPVersion.V4Only)
    try:
        browser = AsyncServiceBrowser(zc.zeroconf, [SERVICE_TYPE], handlers=[on_change])
        await asyncio.sleep(timeout)
        await browser.async_cancel()
        found = []
        for name in sorted(names):
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(zc.zeroconf, 3000):
                continue
            txt = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
            addresses = tuple(info.parsed_addresses(IPVersion.V4Only))
            if addresses:
                found.append(FoundBox(name.removesuffix("." + SERVICE_TYPE), addresses,
                                      int(info.port or 0), txt))
        return found
    finally:
        await zc.async_close()
