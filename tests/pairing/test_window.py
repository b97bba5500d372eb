"""The pairing window state machine, with an explicit clock."""

from __future__ import annotations

import random

import pytest

from nekoni_edge.pairing.window import (
    PAIRING_WINDOW_S,
    REFUSED_MEMORY_S,
    Action,
    Approve,
    ClearAll,
    Led,
    PairingWindow,
    Revoke,
    ShowLed,
    WindowChanged,
    WindowState,
)


def asking(w: PairingWindow, key: str, start: float, end: float, address: str = "10.0.0.2",
           every: float = 1.0) -> list[Action]:
    """A phone that asked at ``start`` and polls every ``every`` s until ``end``."""
    actions = w.request(key, "", start, address)[1]
    t = start + every
    while t <= end:
        actions += w.request(key, "", t, address, again=True)[1]
        t += every
    return actions


def test_press_then_request() -> None:
    w = PairingWindow()
    assert w.press(0.0) == [ShowLed(Led.SLOW_BLINK), WindowChanged(True)]
    status, actions = w.request("A", "Ada", 5.0)
    assert status == "approved"
    assert actions == [Approve("A", "Ada"), ShowLed(Led.SOLID)]
    # the same key asking again in the window is fine
    assert w.request("A", "Ada", 6.0) == ("approved", [])
    # the window runs on for a full window after the approval: a second key then revokes it
    assert w.tick(PAIRING_WINDOW_S) == []
    assert w.tick(5.0 + PAIRING_WINDOW_S) == [ShowLed(Led.OFF), WindowChanged(False)]
    assert w.state is WindowState.IDLE


def test_request_then_press_approves_the_phone_that_is_still_asking() -> None:
    w = PairingWindow()
    status, actions = w.request("A", "", 0.0, "10.0.0.2")
    assert status == "pending_approval"
    assert actions == []  # one request is not yet a phone asking: the LED stays off
    _, blink = w.request("A", "", 1.0, "10.0.0.2", again=True)
    assert blink == [ShowLed(Led.FAST_BLINK)]
    assert w.status("A", 1.0) == "pending_approval"
    asking(w, "A", 2.0, 30.0)
    assert w.press(30.5) == [Approve("A", "", "10.0.0.2"), ShowLed(Led.SOLID)]


def test_a_request_that_stopped_asking_is_never_approved_by_a_press() -> None:
    """The neighbour's hole: a stranger kept one request waiting and the owner's next press
    approved it. A press approves only a phone asking right now."""
    w = PairingWindow()
    w.request("stranger", "", 0.0, "10.0.0.66")
    actions = w.press(30.0)
    assert not [a for a in actions if isinstance(a, Approve)]
    assert w.state is WindowState.OPEN
    # nor later in the window: its key (and its address, with a fresh key) are suspects
    assert w.request("stranger", "", 40.0, "10.0.0.66")[0] == "pending_approval"
    assert w.request("fresh key", "", 41.0, "10.0.0.66")[0] == "pending_approval"
    # and the owner's phone, asking after the press, is approved
    status, actions = w.request("owner", "", 45.0, "10.0.0.2")
    assert status == "approved"
    assert actions[0] == Approve("owner", "", "10.0.0.2")
    # the stranger asking again is no overlap: the owner stays paired
    status, actions = w.request("stranger", "", 100.0, "10.0.0.66")
    assert (status, actions) == ("pending_approval", [])


def test_a_second_new_phone_soon_after_an_approval_revokes_it() -> None:
    """A stranger who races the owner's press is revoked when the owner's phone asks."""
    w = PairingWindow()
    w.press(0.0)
    assert w.request("racer", "", 1.0, "10.0.0.66")[0] == "approved"
    status, actions = w.request("owner", "", 9.0, "10.0.0.2")
    assert status == "refused"
    assert actions[0] == Revoke("racer")
    assert w.state is WindowState.IDLE
    assert w.status("racer", 10.0) == "refused"
    # the owner presses again and asks again: the racer asked in the last window and is not
    # asking now, so it cannot spoil this one
    w.press(20.0)
    assert w.request("owner", "", 25.0, "10.0.0.2")[0] == "approved"


def test_two_phones_asking_at_the_press_pair_nobody() -> None:
    w = PairingWindow()
    asking(w, "A", 0.0, 20.0, "10.0.0.2")
    asking(w, "B", 5.0, 20.0, "10.0.0.3")
    actions = w.press(20.5)
    assert not [a for a in actions if isinstance(a, Approve)]
    assert ShowLed(Led.TRIPLE_FLASH) in actions
    assert w.status("A", 21.0) == "refused"
    assert w.status("B", 21.0) == "refused"


def test_refusal_is_forgotten_or_cleared_by_the_next_press() -> None:
    w = PairingWindow()
    w.press(0.0)
    w.request("A", "", 1.0, "10.0.0.2")
    w.request("B", "", 2.0, "10.0.0.3")
    assert w.request("A", "", 3.0, "10.0.0.2")[0] == "refused"
    assert w.status("B", 2.0 + REFUSED_MEMORY_S + 1) == "not_paired"
    w.press(10.0)
    assert w.request("A", "", 11.0, "10.0.0.2")[0] == "approved"


def test_press_window_expires() -> None:
    w = PairingWindow()
    w.press(0.0)
    status, _ = w.request("A", "", PAIRING_WINDOW_S + 0.1)
    assert status == "pending_approval"  # the window had closed; this one waits for a press


def test_long_press_clears() -> None:
    w = PairingWindow()
    w.request("A", "", 0.0)
    assert w.long_press(1.0) == [ClearAll(), ShowLed(Led.TRIPLE_FLASH), WindowChanged(False)]
    assert w.state is WindowState.IDLE


def test_second_press_in_open_window_extends_it() -> None:
    w = PairingWindow()
    w.press(0.0)
    assert w.press(100.0) == []
    assert w.request("A", "", 150.0)[0] == "approved"


def test_a_press_right_after_the_request_approves_the_phone_once_it_asks_again() -> None:
    w = PairingWindow()
    w.request("owner", "", 0.0, "10.0.0.2")
    assert not [a for a in w.press(0.3) if isinstance(a, Approve)]
    status, actions = w.request("owner", "", 1.0, "10.0.0.2", again=True)
    assert status == "approved"
    assert actions[0] == Approve("owner", "", "10.0.0.2")


def test_a_request_just_before_the_press_that_does_not_go_on_is_not_approved() -> None:
    """A stranger's one-off request a moment before the press: it never asks again from its
    address, so it is never approved (from another address it is a new request that must
    ask twice as well); the owner's phone asking after the press is."""
    w = PairingWindow()
    w.request("stranger", "", 0.0, "10.0.0.66")
    w.press(2.0)
    assert w.request("stranger", "", 30.0, "10.0.0.67")[0] == "pending_approval"
    assert w.request("owner", "", 40.0, "10.0.0.2")[0] == "approved"


def test_the_led_follows_who_is_asking() -> None:
    w = PairingWindow()
    assert asking(w, "A", 0.0, 5.0) == [ShowLed(Led.FAST_BLINK)]
    assert w.tick(20.0) == [ShowLed(Led.OFF)]  # it stopped asking


@pytest.mark.parametrize("fresh_keys", [False, True])
@pytest.mark.parametrize("order", ["press first", "request first", "press at once"])
def test_one_stranger_cannot_keep_the_household_from_pairing(fresh_keys: bool,
                                                             order: str) -> None:
    """The issue's measure: a stranger sends one request a minute from each of three
    addresses for ten minutes (the same key, or a new key each time); the owner presses at
    any moment after the stranger's first minute and pairs on the first try, every time, and
    stays paired through the whole window."""
    rng = random.Random(7)
    for trial in range(200):
        w = PairingWindow()
        events: list[tuple[float, str, str, str]] = []  # (time, kind, key, address)
        for n, address in enumerate(("10.0.0.61", "10.0.0.62", "10.0.0.63")):
            phase = rng.uniform(0, 60)
            for minute in range(10):
                key = f"stranger-{n}-{minute}" if fresh_keys else "stranger"
                events.append((phase + 60 * minute, "stranger", key, address))
        press_at = rng.uniform(60, 600 - PAIRING_WINDOW_S - 40)
        if order == "press first":
            first_ask = press_at + rng.uniform(2, 30)
        elif order == "request first":
            first_ask = press_at - rng.uniform(3, 60)
            events.append((press_at, "press", "", ""))
        else:  # the owner taps "pair", then presses at once
            first_ask = press_at - rng.uniform(0.05, 1.0)
            events.append((press_at, "press", "", ""))
        t = first_ask
        while t < press_at + PAIRING_WINDOW_S + 30:  # the owner's phone polls each second
            events.append((t, "owner", "owner", "10.0.0.2"))
            t += 1.0
        if order == "press first":
            events.append((press_at, "press", "", ""))
        events.sort(key=lambda e: e[0])
        owner_statuses: list[str] = []
        revoked: list[Action] = []
        approved_keys: list[str] = []
        asked = False
        for at, kind, key, address in events:
            if kind == "press":
                actions = w.press(at)
            elif kind == "owner" and asked:
                status, actions = w.request(key, "", at, address, again=True)
                owner_statuses.append(status)
            else:
                status, actions = w.request(key, "", at, address)
                if kind == "owner":
                    asked = True
                    owner_statuses.append(status)
            revoked += [a for a in actions if isinstance(a, Revoke)]
            approved_keys += [a.pub_key for a in actions if isinstance(a, Approve)]
        assert approved_keys == ["owner"], (trial, approved_keys)
        assert revoked == [], trial
        assert "refused" not in owner_statuses, trial
