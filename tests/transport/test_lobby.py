"""The signaling lobby's policy, fed times directly: who is sent away, and when."""

from __future__ import annotations

import pytest

from nekoni_edge.transport.lobby import JOIN_DEADLINE_S, MAX_WAITING, Lobby


def test_defaults_are_the_documented_ones() -> None:
    lobby: Lobby[str] = Lobby()
    assert (lobby.capacity, lobby.deadline_s) == (MAX_WAITING, JOIN_DEADLINE_S) == (64, 10.0)


def test_the_oldest_waiting_is_sent_away_when_full() -> None:
    lobby: Lobby[str] = Lobby(capacity=3, deadline_s=10)
    assert [lobby.enter(name, now) for name, now in (("a", 0), ("b", 1), ("c", 2))] == [[]] * 3
    assert lobby.enter("d", 3) == ["a"]
    assert lobby.enter("e", 4) == ["b"]
    assert "a" not in lobby
    assert "e" in lobby
    assert len(lobby) == 3


def test_one_who_joined_no_longer_counts() -> None:
    lobby: Lobby[str] = Lobby(capacity=2, deadline_s=10)
    lobby.enter("phone", 0)
    lobby.enter("stranger", 1)
    lobby.leave("phone")
    lobby.leave("phone")  # idempotent: the handler leaves again when the socket closes
    assert lobby.enter("another", 2) == []
    assert lobby.enter("third", 3) == ["stranger"]


def test_deadline_expires_in_order_of_arrival() -> None:
    lobby: Lobby[str] = Lobby(capacity=8, deadline_s=10)
    assert lobby.next_deadline() is None
    lobby.enter("a", 0)
    lobby.enter("b", 4)
    assert lobby.next_deadline() == 10
    assert lobby.expired(9.9) == []
    assert lobby.expired(10) == ["a"]
    assert lobby.next_deadline() == 14
    assert lobby.expired(100) == ["b"]
    assert lobby.next_deadline() is None
    assert len(lobby) == 0


def test_entering_again_restarts_the_wait() -> None:
    lobby: Lobby[str] = Lobby(capacity=2, deadline_s=10)
    lobby.enter("a", 0)
    lobby.enter("b", 1)
    lobby.enter("a", 5)
    assert lobby.expired(11) == ["b"]
    assert lobby.enter("c", 12) == []
    assert lobby.enter("d", 13) == ["a"]


def test_a_lobby_holds_someone() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Lobby(capacity=0)
