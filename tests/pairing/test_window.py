"""The pairing window state machine, with an explicit clock."""

from __future__ import annotations

import random

import pytest

from nekoni_edge.pairing.window import (
    PAIRING_WINDOW_S,
    PRESENT_S,
    REFUSED_MEMORY_S,
    Action,
    Approve,
    ClearAll,
    Contest,
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
    assert actions == [ShowLed(Led.FAST_BLINK)]  # a phone is asking: the LED says so
    assert w.status("A", 1.0) == "pending_approval"
    asking(w, "A", 2.0, 30.0)
    assert w.press(30.5) == [Approve("A", "", "10.0.0.2"), ShowLed(Led.SOLID)]


def test_a_request_that_stopped_asking_is_not_approved_by_a_press() -> None:
    """A request whose phone stopped asking is not what the owner's press is for."""
    w = PairingWindow()
    w.request("stranger", "", 0.0, "10.0.0.66")
    actions = w.press(30.0)
    assert not [a for a in actions if isinstance(a, Approve)]
    assert w.state is WindowState.OPEN
    status, actions = w.request("owner", "", 45.0, "10.0.0.2")
    assert status == "approved"
    assert actions[0] == Approve("owner", "", "10.0.0.2")


def test_a_phone_that_asked_before_and_asks_once_after_the_press_is_approved() -> None:
    """Round two's simple client: one request, no polling. Asked before the press (and gave
    up) or a moment before it, its one request after the press is approved at once (the old
    rules kept it "pending" and told it to press the button the owner had just pressed)."""
    for before in (0.5, 5.0, 60.0):
        w = PairingWindow()
        w.request("owner", "", 100.0 - before, "10.0.0.2")
        w.tick(100.0)
        w.press(100.0 + PRESENT_S)  # it is not asking by now
        assert w.request("owner", "", 101.0 + PRESENT_S, "10.0.0.2")[0] == "approved", before


def test_a_second_phone_after_one_press_is_told_the_press_is_taken() -> None:
    """Two phones each asking once after one press: the first is paired, the second told so
    (press again); the first is never undone by that request, but held on probation."""
    w = PairingWindow()
    w.press(0.0)
    assert w.request("A", "", 1.0, "10.0.0.2")[0] == "approved"
    status, actions = w.request("B", "", 2.0, "10.0.0.3")
    assert (status, actions) == ("taken", [Contest("A")])
    assert w.status("B", 3.0) == "taken"
    assert w.request("C", "", 4.0, "10.0.0.4") == ("taken", [])  # held once is enough
    w.press(10.0)
    assert w.request("B", "", 11.0, "10.0.0.3")[0] == "approved"


def test_a_stranger_who_raced_the_press_is_held_and_the_label_code_removes_it() -> None:
    w = PairingWindow()
    w.press(0.0)
    assert w.request("racer", "", 1.0, "10.0.0.66")[0] == "approved"
    assert w.request("owner", "", 9.0, "10.0.0.2") == ("taken", [Contest("racer")])
    status, actions = w.request("owner", "", 12.0, "10.0.0.2", coded=True)
    assert status == "approved"
    assert actions[:2] == [Revoke("racer"), Approve("owner", "", "10.0.0.2", coded=True)]


def test_a_new_press_is_a_new_window_and_keeps_the_phone_paired_before() -> None:
    """The household pairs two phones one after the other (22 s apart): each press pairs one
    phone and the first is never undone by the second's request."""
    w = PairingWindow()
    w.press(0.0)
    assert w.request("first", "", 3.0, "10.0.0.2")[0] == "approved"
    actions = w.press(22.0)
    assert not [a for a in actions if isinstance(a, Revoke)]
    status, actions = w.request("second", "", 25.0, "10.0.0.3")
    assert status == "approved"
    assert not [a for a in actions if isinstance(a, Revoke)]


def test_the_setup_code_pairs_whoever_else_asks() -> None:
    """A stranger who keeps asking spoils the plain press (both orders); the owner's phone
    with the label's code is approved by a press all the same, and stays paired."""
    # request first: both asking at the press
    w = PairingWindow()
    asking(w, "stranger", 0.0, 30.0, "10.0.0.66")
    w.request("owner", "", 20.0, "10.0.0.2", coded=True)
    asking(w, "owner", 21.0, 30.0, "10.0.0.2")
    actions = w.press(30.2)
    assert actions[0] == Approve("owner", "", "10.0.0.2", coded=True)
    assert w.request("stranger", "", 31.0, "10.0.0.66")[0] == "taken"
    assert not [a for a in w.tick(31.5) if isinstance(a, Revoke)]
    # press first: the stranger wins the race, the owner's coded request replaces it
    w = PairingWindow()
    asking(w, "stranger", 0.0, 30.0, "10.0.0.66")
    w.press(10.0)  # the stranger was asking: approved at the press
    status, actions = w.request("owner", "", 14.0, "10.0.0.2", coded=True)
    assert status == "approved"
    assert actions[:2] == [Revoke("stranger"), Approve("owner", "", "10.0.0.2", coded=True)]
    assert w.request("stranger", "", 15.0, "10.0.0.66")[0] == "taken"
    # an owner told "refused" (two asking at the press) comes back with the code
    w = PairingWindow()
    w.request("stranger", "", 0.5, "10.0.0.66")
    w.request("owner", "", 0.7, "10.0.0.2")
    w.press(1.0)
    assert w.status("owner", 2.0) == "refused"
    assert w.request("owner", "", 6.0, "10.0.0.2", coded=True)[0] == "approved"


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
    w.request("A", "", 0.5, "10.0.0.2")
    w.request("B", "", 0.6, "10.0.0.3")
    w.press(1.0)  # both asking: nobody
    assert w.request("A", "", 3.0, "10.0.0.2")[0] == "refused"
    assert w.status("B", 1.0 + REFUSED_MEMORY_S + 1) == "not_paired"
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


def test_the_led_follows_who_is_asking() -> None:
    w = PairingWindow()
    assert asking(w, "A", 0.0, 5.0) == [ShowLed(Led.FAST_BLINK)]
    assert w.tick(20.0) == [ShowLed(Led.OFF)]  # it stopped asking


@pytest.mark.parametrize("fresh_keys", [False, True])
@pytest.mark.parametrize("order", ["press first", "request first", "press at once"])
def test_a_stranger_asking_now_and_then_never_pairs_and_never_stops_the_code(
        fresh_keys: bool, order: str) -> None:
    """A stranger sends one request a minute from each of three addresses for ten minutes
    (the same key, or a new key each time); the owner presses at any moment after the
    stranger's first minute. Without the code the owner is paired or told why not (never left
    waiting) and a stranger still paired at the end is held on probation; with the label's
    code the owner pairs on the first try, every time, and stays paired."""
    rng = random.Random(7)
    for coded in (False, True):
        paired_first_try = 0
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
            else:  # the owner taps "pair", then presses at once
                first_ask = press_at - rng.uniform(0.05, 1.0)
            events.append((press_at, "press", "", ""))
            t = first_ask
            while t < press_at + PAIRING_WINDOW_S + 30:  # the owner's phone polls each second
                events.append((t, "owner", "owner", "10.0.0.2"))
                t += 1.0
            events.sort(key=lambda e: (e[0], e[1] != "press"))
            owner_statuses: list[str] = []
            paired: set[str] = set()
            held: set[str] = set()
            asked = False
            for at, kind, key, address in events:
                if kind == "press":
                    actions = w.press(at)
                else:
                    is_owner = kind == "owner"
                    status, actions = w.request(key, "", at, address, again=is_owner and asked,
                                                coded=coded and is_owner)
                    if is_owner:
                        asked = True
                        owner_statuses.append(status)
                for action in actions:
                    if isinstance(action, Approve):
                        paired.add(action.pub_key)
                    elif isinstance(action, Revoke):
                        paired.discard(action.pub_key)
                    elif isinstance(action, Contest):
                        held.add(action.pub_key)
            # a stranger stays paired only on probation, held until the household decides
            assert {k for k in paired if k.startswith("stranger")} <= held, (trial, paired)
            told = [s for s in owner_statuses if s != "pending_approval"]
            assert told, trial  # never only "waiting"
            if coded:
                assert paired == {"owner"}, (trial, paired)
                assert "refused" not in owner_statuses, trial
            paired_first_try += paired == {"owner"} and "refused" not in owner_statuses
        if coded:
            assert paired_first_try == 200
