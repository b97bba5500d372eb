"""The pairing window, WPS push-button style, as a sans-IO state machine (clock passed in).

A press approves only a phone the owner can tell is theirs: one that is *asking right now*.

- Press first: the press opens a window for 120 s and the next request in it is approved.
- Request first: nekoni's apps keep asking (a signed join every ~3 s after their request; the
  box's own client polls the signed status every second), so a phone that asks is *present*
  (two asks from its address within ``PRESENT_S``) and the LED blinks fast. A press while one
  phone is present approves it; while two are, nobody (the overlap rule).
- A request made before the press by a phone that is no longer asking is someone else's: the
  owner's own phone is still asking when they press. Its key and its address are *suspects* for
  that window: never approved, and never an overlap either, so a neighbour who sends a request
  now and then can neither ride the owner's press nor spoil it.
- Overlap rule: a second key that is not a suspect, in the window or within 120 s after an
  approval, means nobody is paired (the approved one is revoked) — a stranger who races the
  owner's press is caught when the owner's phone asks. Both are refused until the next press.
  Until its window ends a device approved here is on probation (it may chat, not manage the
  box, and what it added goes if it is revoked).
"""

from __future__ import annotations

import enum
import logging
from collections import OrderedDict
from dataclasses import dataclass, field

_LOGGER = logging.getLogger(__name__)

PAIRING_WINDOW_S = 120.0
LONG_PRESS_S = 10.0
# A phone is asking right now when it asked twice from one address, the last time this
# recently: nekoni's apps join every ~3.2 s after their request, the box's client polls each 1 s.
PRESENT_S = 10.0
# How long a refused (overlapping) key keeps reporting "refused", unless a press comes first.
REFUSED_MEMORY_S = 300.0
MAX_REMEMBERED = 64  # keys that asked, and refused keys, each


class WindowState(enum.Enum):
    """Where the pairing window stands."""

    IDLE = "idle"  # no press: requests are noted, and wait for one
    OPEN = "open"  # the button was pressed; the next request that is not a suspect is approved
    APPROVED = "approved"  # one key approved; the window runs on to catch an overlap


class Led(enum.Enum):
    """What the LED shows (the adapter turns these into blink patterns)."""

    OFF = "off"
    SLOW_BLINK = "slow_blink"  # window open
    FAST_BLINK = "fast_blink"  # a phone is asking right now: a press approves it
    SOLID = "solid"  # paired (2 s)
    TRIPLE_FLASH = "triple_flash"  # refused / overlap


# What each pattern tells the owner (the log line of a box without an LED, and README's table).
LED_WORDS = {
    Led.OFF: "off: nothing is pairing",
    Led.SLOW_BLINK: "slow blink: the button was pressed; ask to pair from your phone now",
    Led.FAST_BLINK: "fast blink: a phone is asking to pair right now; press the button if it "
                    "is yours, and if you are not pairing, someone else is: don't press",
    Led.SOLID: "solid: a phone was paired",
    Led.TRIPLE_FLASH: "triple flash: two phones asked at once, so neither was paired; press "
                      "the button and ask again from your phone",
}


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


@dataclass(slots=True)
class _Asker:
    """A key that asked to pair and is not approved."""

    name: str
    address: str | None
    first: float  # its request: it waits one window from here, however often it asks again
    last: float  # its latest ask
    previous: float | None = None  # the ask before, from the same address
    uninvited: bool = False  # it asked while no press was active

    def present(self, now: float, window_s: float) -> bool:
        return (now - self.first < window_s and self.previous is not None
                and now - self.last < PRESENT_S and self.last - self.previous < PRESENT_S)


@dataclass(slots=True)
class _Suspects:
    """Who asked before this window's press and had stopped asking by then."""

    keys: set[str] = field(default_factory=set)
    addresses: set[str] = field(default_factory=set)
    # Asked a moment before the press and not yet twice: taken only once it is asking (its
    # address is its own: another key from there is a suspect too).
    just_asked: dict[str, str | None] = field(default_factory=dict)

    def __contains__(self, asker: tuple[str, str | None]) -> bool:
        key, address = asker
        if key in self.keys:
            return True
        if key in self.just_asked:
            return False  # judged by whether it goes on asking, not by its address
        return address is not None and (address in self.addresses
                                        or address in self.just_asked.values())


class PairingWindow:
    """Feed it presses, requests and ticks; it returns the actions to carry out."""

    def __init__(self, window_s: float = PAIRING_WINDOW_S) -> None:
        self.window_s = window_s
        self.state = WindowState.IDLE
        self._deadline = 0.0
        self._key: str | None = None  # the approved key
        self._askers: OrderedDict[str, _Asker] = OrderedDict()
        self._suspects = _Suspects()
        self._refused: OrderedDict[str, float] = OrderedDict()
        self._led = Led.OFF

    def _set_state(self, state: WindowState, why: str) -> None:
        _LOGGER.info("pairing %s -> %s (%s)", self.state.value, state.value, why)
        self.state = state

    def _show(self, pattern: Led) -> list[Action]:
        if pattern is self._led and pattern is not Led.TRIPLE_FLASH:
            return []
        self._led = pattern
        return [ShowLed(pattern)]

    @property
    def is_open(self) -> bool:
        """True while a press is active (a request would be, or has just been, taken)."""
        return self.state is not WindowState.IDLE

    def _present(self, now: float) -> list[str]:
        return [key for key, a in self._askers.items()
                if a.present(now, self.window_s) and self._refused.get(key, 0.0) <= now]

    def asking_now(self, now: float) -> bool:
        """True while a phone is asking right now (what a press would approve)."""
        return bool(self._present(now))

    def press(self, now: float) -> list[Action]:
        """A short press of the button."""
        actions = self.tick(now)
        if self.state is WindowState.APPROVED:
            return actions
        present = self._present(now)
        if len(present) > 1:
            _LOGGER.warning("button pressed while %d phones were asking: nobody paired",
                            len(present))
            return [*actions, *self._overlap(present, now)]
        # Whoever asked uninvited in the last window and is not asking now is not the owner,
        # unless it asked only a moment ago (the owner taps "pair", then presses at once): that
        # one is approved if it goes on asking, as the owner's phone does.
        recent = [(k, a) for k, a in self._askers.items()
                  if a.uninvited and now - a.last < self.window_s and k not in present]
        stale = [(k, a) for k, a in recent if now - a.first >= PRESENT_S]
        self._suspects = _Suspects({k for k, _ in stale},
                                   {a.address for _, a in stale if a.address is not None},
                                   {k: a.address for k, a in recent if now - a.first < PRESENT_S})
        if stale:
            _LOGGER.warning("button pressed: %d earlier request(s) that stopped asking are "
                            "ignored in this window (not the owner's phone)", len(stale))
        self._refused.clear()  # the owner is at the box and tries again
        was_open = self.is_open
        self._deadline = now + self.window_s
        if present:
            return [*actions, *self._approve(present[0], now, "button pressed while it asked")]
        self._set_state(WindowState.OPEN, "button pressed")
        actions += self._show(Led.SLOW_BLINK)
        return actions if was_open else [*actions, WindowChanged(True)]

    def long_press(self, now: float) -> list[Action]:
        """A press held for LONG_PRESS_S: forget every paired device."""
        self._close("long press: all pairings cleared")
        self._refused.clear()
        self._askers.clear()
        self._led = Led.TRIPLE_FLASH
        return [ClearAll(), ShowLed(Led.TRIPLE_FLASH), WindowChanged(False)]

    def request(self, pub_key: str, name: str, now: float, address: str | None = None, *,
                again: bool = False) -> tuple[str, list[Action]]:
        """A signed, fresh pair request from a key not yet approved (``POST /api/pair``), or
        with ``again`` the same phone still asking (a signed status poll, a join: noted only
        while its request waits); returns its status."""
        actions = self.tick(now)
        if self._refused.get(pub_key, 0.0) > now:
            return "refused", actions
        if pub_key == self._key:
            return "approved", actions
        if again and not self.is_waiting(pub_key, now):
            return "not_paired", actions
        asker = self._note(pub_key, name, now, address)
        present = asker.present(now, self.window_s)
        if self.state is WindowState.IDLE:
            if present:
                actions += self._show(Led.FAST_BLINK)
            return "pending_approval", actions
        if (pub_key, address) in self._suspects:
            _LOGGER.info("pair request from %s (key %s) ignored: it asked before the press "
                         "and had stopped asking", address, pub_key[:12])
            return "pending_approval", actions
        if pub_key in self._suspects.just_asked and not present:
            return "pending_approval", actions
        if self.state is WindowState.OPEN:
            return "approved", [*actions, *self._approve(pub_key, now, "asking after a press")]
        assert self._key is not None  # noqa: S101 - set on the way into APPROVED
        return "refused", [*actions, *self._overlap([self._key, pub_key], now)]

    def _note(self, pub_key: str, name: str, now: float, address: str | None) -> _Asker:
        asker = self._askers.get(pub_key)
        if asker is None or asker.address != address or now - asker.first >= self.window_s:
            asker = _Asker(name, address, now, now)
        else:
            asker.previous, asker.last, asker.name = asker.last, now, name or asker.name
        asker.uninvited = asker.uninvited or self.state is WindowState.IDLE
        self._askers[pub_key] = asker
        self._askers.move_to_end(pub_key)
        while len(self._askers) > MAX_REMEMBERED:
            self._askers.popitem(last=False)
        return asker

    def _approve(self, pub_key: str, now: float, why: str) -> list[Action]:
        asker = self._askers.pop(pub_key)
        self._key = pub_key
        self._deadline = now + self.window_s  # a second key in the next 120 s revokes it
        self._set_state(WindowState.APPROVED, why)
        return [Approve(pub_key, asker.name, asker.address), *self._show(Led.SOLID)]

    def _overlap(self, keys: list[str], now: float) -> list[Action]:
        approved = self._key if self.state is WindowState.APPROVED else None
        for key in keys:
            self._refused[key] = now + REFUSED_MEMORY_S
            self._refused.move_to_end(key)
            self._askers.pop(key, None)
        while len(self._refused) > MAX_REMEMBERED:
            self._refused.popitem(last=False)
        was_open = self.is_open
        self._close("two different phones asked in one window: nobody paired")
        actions: list[Action] = [Revoke(approved)] if approved is not None else []
        actions += self._show(Led.TRIPLE_FLASH)
        return [*actions, WindowChanged(False)] if was_open else actions

    def status(self, pub_key: str, now: float) -> str:
        """The status of a key that is not in the approved list (changes nothing: closing an
        expired window is ``tick``'s, whose actions reach the LED and mDNS)."""
        if self._refused.get(pub_key, 0.0) > now:
            return "refused"
        if self.is_waiting(pub_key, now):
            return "pending_approval"
        return "not_paired"

    def is_waiting(self, pub_key: str, now: float) -> bool:
        """True while ``pub_key``'s request (made less than a window ago) waits for a press."""
        asker = self._askers.get(pub_key)
        return asker is not None and now - asker.first < self.window_s and \
            self._refused.get(pub_key, 0.0) <= now

    def tick(self, now: float) -> list[Action]:
        """Let time pass: close an expired window; the LED follows who is asking."""
        actions: list[Action] = []
        if self.state is not WindowState.IDLE and now >= self._deadline:
            self._close("window closed")
            actions.append(WindowChanged(False))
        if self.state is WindowState.IDLE and self._led is not Led.OFF:
            if not self._present(now):
                actions[:0] = self._show(Led.OFF)
        return actions

    def _close(self, why: str) -> None:
        self._key = None
        self._suspects = _Suspects()
        if self.state is not WindowState.IDLE:
            self._set_state(WindowState.IDLE, why)
