"""The one place that decides which local addresses ICE may offer."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiortc import RTCConfiguration

_LOGGER = logging.getLogger(__name__)
_ORIGINAL = "_nekoni_original_get_host_addresses"


def pin_host_addresses(addresses: Sequence[str]) -> None:
    """Make aioice gather candidates only on ``addresses`` (empty: every interface).

    aioice gathers from every real interface and leaves out 127.0.0.1, so on a loopback-only
    host (or in tests) the DataChannel would silently never open.
    """
    import aioice.ice  # heavy; only the transport imports it

    if not hasattr(aioice.ice, _ORIGINAL):
        setattr(aioice.ice, _ORIGINAL, aioice.ice.get_host_addresses)
    original = getattr(aioice.ice, _ORIGINAL)
    if not addresses:
        aioice.ice.get_host_addresses = original
        return
    pinned = list(addresses)

    def get_host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        return [a for a in pinned if (":" in a and use_ipv6) or (":" not in a and use_ipv4)]

    aioice.ice.get_host_addresses = get_host_addresses
    _LOGGER.info("ICE host addresses pinned to %s", ", ".join(pinned))


def rtc_configuration() -> RTCConfiguration:
    """No STUN, no TURN: the box and its phones share a LAN."""
    from aiortc import RTCConfiguration

    # iceServers=None would make aiortc add a public STUN server.
    return RTCConfiguration(iceServers=[])
