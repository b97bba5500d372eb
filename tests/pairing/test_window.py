"""The pairing window state machine, with an explicit clock."""

from __future__ import annotations

from nekoni_edge.pairing.window import (
    PAIRING_WINDOW_S,
    REFUSED_MEMORY_S,
    Approve,
    ClearAll,
    Led,
    PairingWindow,
    Revoke,
    ShowLed,
    WindowChanged,
    WindowState,
)


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


def test_a_second_key_soon_after_an_approval_revokes_it() -> None:
    """Request first, press at 113 s, the owner's phone asks 13 s later: the stranger who had
    asked first stayed paired, because the window had closed at 120 s."""
    w = PairingWindow()
    assert w.request("stranger", "", 0.0)[0] == "pending_approval"
    w.press(113.0)
    status, actions = w.request("owner", "", 126.0)
    assert status == "refused"
    assert Revoke("stranger") in actions


def test_request_then_press() -> None:
    w = PairingWindow()
    status, actions = w.request("A", "", 0.0)
    assert status == "pending_approval"
    assert actions == [ShowLed(Led.FAST_BLINK), WindowChanged(True)]
    assert w.status("A", 1.0) == "pending_approval"
    assert w.press(30.0) == [Approve("A", ""), ShowLed(Led.SOLID)]


def test_request_times_out_without_press() -> None:
    w = PairingWindow()
    w.request("A", "", 0.0)
    assert w.status("A", PAIRING_WINDOW_S - 1) == "pending_approval"
    assert w.status("A", PAIRING_WINDOW_S) == "not_paired"
    # a press after the timeout opens a new window; it approves nobody by itself
    assert Approve("A", "") not in w.press(PAIRING_WINDOW_S + 1)


def test_press_window_expires() -> None:
    w = PairingWindow()
    w.press(0.0)
    status, _ = w.request("A", "", PAIRING_WINDOW_S + 0.1)
    assert status == "pending_approval"  # the window had closed; this one waits for a press


def test_overlap_while_waiting() -> None:
    w = PairingWindow()
    w.request("A", "", 0.0)
    status, actions = w.request("B", "", 10.0)
    assert status == "refused"
    assert actions == [ShowLed(Led.TRIPLE_FLASH), WindowChanged(False)]
    assert w.press(11.0)[0] == ShowLed(Led.SLOW_BLINK)  # the press approves nobody
    assert w.status("A", 12.0) == "refused"
    assert w.status("B", 12.0) == "refused"
    # both must start again, after the refusal has been shown for a while
    assert w.request("A", "", 12.0)[0] == "refused"


def test_overlap_after_press_revokes_the_first() -> None:
    w = PairingWindow()
    w.press(0.0)
    assert w.request("A", "", 1.0)[0] == "approved"
    status, actions = w.request("B", "", 2.0)
    assert status == "refused"
    assert actions[0] == Revoke("A")
    assert w.state is WindowState.IDLE
    assert w.status("A", 3.0) == "refused"


def test_refusal_is_forgotten() -> None:
    w = PairingWindow()
    w.request("A", "", 0.0)
    w.request("B", "", 1.0)
    assert w.request("A", "", 1.0 + REFUSED_MEMORY_S + 1)[0] == "pending_approval"


def test_long_press_clears() -> None:
    w = PairingWindow()
    w.request("A", "", 0.0)
    assert w.long_press(1.0) == [ClearAll(), ShowLed(Led.TRIPLE_FLASH), WindowChanged(False)]
    assert w.state is WindowState.IDLE


def test_second_press_in_open_window_extends_it() -> None:
    w = PairingWindow()
    w.press(0.0)
    assert w.press(100.0) == [ShowLed(Led.SLOW_BLINK)]
    assert w.request("A", "", 150.0)[0] == "approved"
