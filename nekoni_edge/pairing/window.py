"""The pairing window, WPS push-button style, as a sans-IO state machine (clock passed in).

Press first: a window opens for 120 s and the next request in it is approved at once.
Request first: the request waits up to 120 s and a press approves it. Either way, if a second,
different key requests within the same window, or within 120 s after an approval, nobody is
approved (the overlap rule): a stranger who wins the race is revoked when the owner asks. Until
then a device approved here is on probation (it may chat, not manage the box).
"""

from __future__ import annotations

import enum
import logging
from collections import OrderedDict
from dataclasses import dataclass

_LOGGER = logging.getLogger(__name__)

PAIRING_WINDOW_S = 120.0
LONG_PRESS_S = 10.0
# How long a refused (overlapping) key keeps reporting "refused" to its status polls.
REFUSED_MEMORY_S = 300.0
MAX_REMEMBERED = 64


class WindowState(enum.Enum):
    """Where the pairing window stands."""

    IDLE = "idle"  # nothing happening; requests start a wait
    OPEN = "open"  # the button was pressed; the next request is approved
    WAITING = "waiting"  # a request came first; a press approves it
    APPROVED = "approved"  # one key approved; the window runs on to catch an overlap


class Led(enum.Enum):
    """What the LED shows (the adapter turns these into blink patterns)."""

    OFF = "off"
    SLOW_BLINK = "slow_blink"  # window open
    FAST_BLINK = "fast_blink"  # a request is waiting for a press
    SOLID = "solid"  # paired (2 s)
    TRIPLE_FLASH = "triple_flash"  # refused / overlap


@dataclass(frozen=True, slots=True)
class Approve:
    """Store this key as approved (and lift any block on it and the address it asked from)."""

    pub_key: str
    name: str
    address: str | None = None


@dataclass(frozen=True, slots=True)
class Revoke:
    """Remove this key's approval (an overlap was found after it was approved)."""

    pub_key: str


@dataclass(frozen=True, slots=True)
class ClearAll:
    """Factory reset of pairings (long press)."""


@dataclass(frozen=True, slots=True)
class ShowLed:
    """Change the LED."""

    pattern: Led


@dataclass(frozen=True, slots=True)
class WindowChanged:
    """The window opened or closed (mDNS TXT ``pairing``)."""

    open: bool


Action = Approve | Revoke | ClearAll | ShowLed | WindowChanged


class PairingWindow:
    """Feed it presses, requests and ticks; it returns the actions to carry out."""

    def __init__(self, window_s: float = PAIRING_WINDOW_S) -> None:
        self.window_s = window_s
        self.state = WindowState.IDLE
        self._deadline = 0.0
        self._key: str | None = None  # the waiting or approved key
        self._name = ""
        self._address: str | None = None
        self._refused: OrderedDict[str, float] = OrderedDict()

    def _set_state(self, state: WindowState, why: str) -> None:
        _LOGGER.info("pairing %s -> %s (%s)", self.state.value, state.value, why)
        self.state = state

    @property
    def is_open(self) -> bool:
        """True while a request would be (or has just been) taken."""
        return self.state is not WindowState.IDLE

    def press(self, now: float) -> list[Action]:
        """A short press of the button."""
        actions = self.tick(now)
        if self.state is WindowState.WAITING:
            assert self._key is not None  # noqa: S101 - set on the way into WAITING
            self._set_state(WindowState.APPROVED, "button pressed for a waiting request")
            self._deadline = now + self.window_s  # a second key in the next 120 s revokes it
            return [*actions, Approve(self._key, self._name, self._address), ShowLed(Led.SOLID)]
        if self.state is WindowState.APPROVED:
            return actions
        was_open = self.is_open
        self._deadline = now + self.window_s
        self._set_state(WindowState.OPEN, "button pressed")
        actions += [ShowLed(Led.SLOW_BLINK)]
        return actions if was_open else [*actions, WindowChanged(True)]

    def long_press(self, now: float) -> list[Action]:
        """A press held for LONG_PRESS_S: forget every paired device."""
        self._close("long press: all pairings cleared")
        self._refused.clear()
        return [ClearAll(), ShowLed(Led.TRIPLE_FLASH), WindowChanged(False)]

    def request(self, pub_key: str, name: str, now: float, address: str | None = None
                ) -> tuple[str, list[Action]]:
        """A signed, fresh pair request from a key not yet approved; returns its status."""
        actions = self.tick(now)
        if self._refused.get(pub_key, 0.0) > now:
            return "refused", actions
        if self.state is WindowState.IDLE:
            self._key, self._name, self._address = pub_key, name, address
            self._deadline = now + self.window_s
            self._set_state(WindowState.WAITING, "request waiting for a press")
            return "pending_approval", [*actions, ShowLed(Led.FAST_BLINK), WindowChanged(True)]
        if self.state is WindowState.OPEN:
            self._key, self._name, self._address = pub_key, name, address
            self._set_state(WindowState.APPROVED, "request in an open window")
            self._deadline = now + self.window_s  # a second key in the next 120 s revokes it
            return "approved", [*actions, Approve(pub_key, name, address), ShowLed(Led.SOLID)]
        if pub_key == self._key:
            status = "approved" if self.state is WindowState.APPROVED else "pending_approval"
            return status, actions
        return "refused", [*actions, *self._overlap(pub_key, now)]

    def _overlap(self, second_key: str, now: float) -> list[Action]:
        first_key, approved = self._key, self.state is WindowState.APPROVED
        assert first_key is not None  # noqa: S101
        for key in (first_key, second_key):
            self._refused[key] = now + REFUSED_MEMORY_S
            self._refused.move_to_end(key)
        while len(self._refused) > MAX_REMEMBERED:
            self._refused.popitem(last=False)
        self._close("two different keys in one window: nobody paired")
        actions: list[Action] = [Revoke(first_key)] if approved else []
        return [*actions, ShowLed(Led.TRIPLE_FLASH), WindowChanged(False)]

    def status(self, pub_key: str, now: float) -> str:
        """The status of a key that is not in the approved list (changes nothing: closing an
        expired window is ``tick``'s, whose actions reach the LED and mDNS)."""
        if self._refused.get(pub_key, 0.0) > now:
            return "refused"
        if self.is_waiting(pub_key, now):
            return "pending_approval"
        return "not_paired"

    def is_current(self, pub_key: str) -> bool:
        """True if ``pub_key`` is the key this window holds (waiting or approved)."""
        return self.state is not WindowState.IDLE and pub_key == self._key

    def is_waiting(self, pub_key: str, now: float) -> bool:
        """True while ``pub_key``'s request waits for a press."""
        return (self.state is WindowState.WAITING and pub_key == self._key
                and now < self._deadline)

    def tick(self, now: float) -> list[Action]:
        """Let time pass: close an expired window."""
        if self.state is not WindowState.IDLE and now >= self._deadline:
            timed_out = self.state is WindowState.WAITING
            self._close("request timed out" if timed_out else "window closed")
            return [ShowLed(Led.OFF), WindowChanged(False)]
        return []

    def _close(self, why: str) -> None:
        self._key, self._name, self._address = None, "", None
        if self.state is not WindowState.IDLE:
            self._set_state(WindowState.IDLE, why)
