"""The pairing window, WPS push-button style, as a sans-IO state machine (clock passed in).

A press approves one phone that is asking: the owner's, as far as the box can tell.

- Press first: the press opens a window for 120 s and the next request in it is approved.
- Request first: a phone *asking now* (its request, a signed status poll or a join less than
  ``PRESENT_S`` ago: nekoni's apps rejoin every ~3 s, the box's client polls each second) is
  approved by a press; the LED blinks fast while one asks.
- Overlap rule: two phones asking at the press pair nobody; both are refused until the next
  press. A press is one phone: a second key asking after it approved one is told so (press
  again for another phone), and the approved one, perhaps in use already, is never undone by
  that request; since it may have been a stranger who raced the owner, it stays on probation
  (chat only) until the household confirms or removes it. A new press starts a new window.
- Nothing a stranger on the Wi-Fi sends can tell the owner's phone from its own, so a stranger
  who keeps asking can always spoil the plain press. The owner's way out needs the box in hand:
  the setup code on the box's label (carried in the label's QR, so nekoni's apps send it
  without knowing). A request with the code is approved by a press whoever else is asking, is
  never an overlap, replaces a key the same press approved without it, and is trusted at once.
"""

from __future__ import annotations

import enum
import logging
from collections import OrderedDict
from dataclasses import dataclass

_LOGGER = logging.getLogger(__name__)

PAIRING_WINDOW_S = 120.0
LONG_PRESS_S = 10.0
# A phone is asking right now when it asked this recently (its request, a poll or a join).
PRESENT_S = 10.0
# How long a refused (overlapping) key keeps reporting "refused", unless a press comes first.
REFUSED_MEMORY_S = 300.0
MAX_REMEMBERED = 64  # keys that asked, and refused keys, each


class WindowState(enum.Enum):
    """Where the pairing window stands."""

    IDLE = "idle"  # no press: requests are noted, and wait for one
    OPEN = "open"  # the button was pressed; the next request is approved
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
    Led.TRIPLE_FLASH: "triple flash: two phones asked at once, so neither was paired; pair "
                      "with the code on the box's label, then press the button",
}


@dataclass(frozen=True, slots=True)
class Approve:
    """Store this key as approved (and lift any block on it and the address it asked from)."""

    pub_key: str
    name: str
    address: str | None = None
    coded: bool = False  # with the setup code: the box was in hand, so no probation


@dataclass(frozen=True, slots=True)
class Contest:
    """Another key asked after this one was approved by the same press: keep it on probation
    until the household confirms or removes it."""

    pub_key: str


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


Action = Approve | Contest | Revoke | ClearAll | ShowLed | WindowChanged


@dataclass(slots=True)
class _Asker:
    """A key that asked to pair and is not approved."""

    name: str
    address: str | None
    first: float  # its request: it waits one window from here, however often it asks again
    last: float  # its latest ask
    coded: bool  # it asked with the box's setup code

    def asking(self, now: float, window_s: float) -> bool:
        return now - self.first < window_s and now - self.last < PRESENT_S


class PairingWindow:
    """Feed it presses, requests and ticks; it returns the actions to carry out."""

    def __init__(self, window_s: float = PAIRING_WINDOW_S) -> None:
        self.window_s = window_s
        self.state = WindowState.IDLE
        self._deadline = 0.0
        self._key: str | None = None  # the key this window approved
        self._key_coded = False  # ... with the setup code
        self._contested = False  # ... and another key asked after it
        self._askers: OrderedDict[str, _Asker] = OrderedDict()
        # Keys told no, until when, and what they are told ("refused" or "taken").
        self._refused: OrderedDict[str, tuple[float, str]] = OrderedDict()
        # Until then a press ended in an overlap: a phone asking now is told so, not to wait;
        # the press still stands for a phone with the setup code.
        self._spoiled_until = 0.0
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

    def _asking(self, now: float) -> list[str]:
        return [key for key, a in self._askers.items()
                if a.asking(now, self.window_s) and self._refusal(key, now) is None]

    def asking_now(self, now: float) -> bool:
        """True while a phone is asking right now (what a press would approve)."""
        return bool(self._asking(now))

    def press(self, now: float) -> list[Action]:
        """A short press of the button: a new window (what an earlier one approved stays)."""
        actions = self.tick(now)
        was_open = self.is_open
        self._key, self._key_coded = None, False
        self._refused.clear()  # the owner is at the box and tries again
        self._spoiled_until = 0.0
        self._deadline = now + self.window_s
        asking = self._asking(now)
        coded = [key for key in asking if self._askers[key].coded]
        if coded:  # the owner, with the box's label in hand: whoever else asks
            return [*actions, *self._approve(coded[-1], now, "button pressed while it asked "
                                                              "with the setup code")]
        if len(asking) > 1:
            _LOGGER.warning("button pressed while %d phones were asking: nobody paired",
                            len(asking))
            return [*actions, *self._overlap(asking, now)]
        if asking:
            return [*actions, *self._approve(asking[0], now, "button pressed while it asked")]
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
                again: bool = False, coded: bool = False) -> tuple[str, list[Action]]:
        """A signed, fresh pair request from a key not yet approved (``POST /api/pair``), or
        with ``again`` the same phone still asking (a signed status poll, a join: noted only
        while its request waits); ``coded`` when it came with the box's setup code. Returns
        its status."""
        actions = self.tick(now)
        if pub_key == self._key:
            return "approved", actions
        if (told := self._refusal(pub_key, now)) is not None and not coded:
            return told, actions
        if again and not self.is_waiting(pub_key, now) and not coded:
            return "not_paired", actions
        self._refused.pop(pub_key, None)
        if now < self._spoiled_until and not coded:
            self._refuse(pub_key, now)
            return "refused", actions
        asker = self._note(pub_key, name, now, address, coded)
        if now < self._spoiled_until:
            self._spoiled_until = 0.0
            self._deadline = now + self.window_s
            return "approved", [*actions, WindowChanged(True),
                                *self._approve(pub_key, now, "the setup code, after a press "
                                                             "that two others spoiled")]
        if self.state is WindowState.IDLE:
            return "pending_approval", [*actions, *self._show(Led.FAST_BLINK)]
        if self.state is WindowState.OPEN:
            return "approved", [*actions, *self._approve(pub_key, now, "asking after a press")]
        assert self._key is not None  # set on the way into APPROVED
        if asker.coded and not self._key_coded:
            _LOGGER.warning("pair request with the setup code replaces %s, which this press "
                            "approved without it", self._key[:12])
            return "approved", [*actions, Revoke(self._key),
                                *self._approve(pub_key, now, "the setup code outranks a plain "
                                                             "request")]
        # One press, one phone: this one is told so; the approved one stays (it may be in use).
        self._refuse(pub_key, now, "taken")
        if self._key_coded or self._contested:
            return "taken", actions
        self._contested = True
        _LOGGER.warning("pair request from %s after this press approved %s: told to press "
                        "again; %s stays on probation until confirmed", pub_key[:12],
                        self._key[:12], self._key[:12])
        return "taken", [*actions, Contest(self._key)]

    def _note(self, pub_key: str, name: str, now: float, address: str | None,
              coded: bool) -> _Asker:
        asker = self._askers.get(pub_key)
        if asker is None or now - asker.first >= self.window_s:
            asker = _Asker(name, address, now, now, coded)
        else:
            asker.last, asker.name, asker.address = now, name or asker.name, address
            asker.coded = asker.coded or coded
        self._askers[pub_key] = asker
        self._askers.move_to_end(pub_key)
        while len(self._askers) > MAX_REMEMBERED:
            self._askers.popitem(last=False)
        return asker

    def _approve(self, pub_key: str, now: float, why: str) -> list[Action]:
        asker = self._askers.pop(pub_key)
        self._key, self._key_coded, self._contested = pub_key, asker.coded, False
        self._deadline = now + self.window_s  # a second key in the next 120 s revokes it
        self._set_state(WindowState.APPROVED, why)
        return [Approve(pub_key, asker.name, asker.address, asker.coded),
                *self._show(Led.SOLID)]

    def _overlap(self, keys: list[str], now: float) -> list[Action]:
        approved = self._key if self.state is WindowState.APPROVED else None
        for key in keys:
            self._refuse(key, now)
        self._spoiled_until = max(self._deadline, now + PRESENT_S)
        was_open = self.is_open
        self._close("two different phones asked in one window: nobody paired")
        actions: list[Action] = [Revoke(approved)] if approved is not None else []
        actions += self._show(Led.TRIPLE_FLASH)
        return [*actions, WindowChanged(False)] if was_open else actions

    def _refusal(self, key: str, now: float) -> str | None:
        until, told = self._refused.get(key, (0.0, ""))
        return told if until > now else None

    def _refuse(self, key: str, now: float, told: str = "refused") -> None:
        self._refused[key] = (now + REFUSED_MEMORY_S, told)
        self._refused.move_to_end(key)
        self._askers.pop(key, None)
        while len(self._refused) > MAX_REMEMBERED:
            self._refused.popitem(last=False)

    def status(self, pub_key: str, now: float) -> str:
        """The status of a key that is not in the approved list (changes nothing: closing an
        expired window is ``tick``'s, whose actions reach the LED and mDNS)."""
        if (told := self._refusal(pub_key, now)) is not None:
            return told
        if self.is_waiting(pub_key, now):
            return "pending_approval"
        return "not_paired"

    def is_waiting(self, pub_key: str, now: float) -> bool:
        """True while ``pub_key``'s request (made less than a window ago) waits for a press."""
        asker = self._askers.get(pub_key)
        return asker is not None and now - asker.first < self.window_s and \
            self._refusal(pub_key, now) is None

    def tick(self, now: float) -> list[Action]:
        """Let time pass: close an expired window; the LED follows who is asking."""
        actions: list[Action] = []
        if self.state is not WindowState.IDLE and now >= self._deadline:
            self._close("window closed")
            actions.append(WindowChanged(False))
        if self.state is WindowState.IDLE and self._led is not Led.OFF:
            if not self._asking(now):
                actions[:0] = self._show(Led.OFF)
        return actions

    def _close(self, why: str) -> None:
        self._key, self._key_coded = None, False
        if self.state is not WindowState.IDLE:
            self._set_state(WindowState.IDLE, why)
