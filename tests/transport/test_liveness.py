"""AckWatch: when unacknowledged SCTP data means the phone is gone."""

from __future__ import annotations

from types import SimpleNamespace

from nekoni_edge.transport.liveness import AckWatch, unacked_tsns


def test_a_peer_that_acknowledges_is_never_gone() -> None:
    watch = AckWatch(0.75)
    for step in range(100):  # the head moves on every poll: acknowledgements arrive
        assert not watch.observe(step, step + 3, step * 0.1)


def polls(watch: AckWatch, head: int | None, tail: int | None, start: float,
          end: float) -> bool:
    """Observe every 0.1 s from ``start`` to ``end``; the last verdict."""
    verdict, now = False, start
    while now <= end + 1e-9:
        verdict = watch.observe(head, tail, now)
        now += 0.1
    return verdict


def test_data_stuck_behind_an_unacknowledged_head() -> None:
    watch = AckWatch(0.75)
    assert not polls(watch, 10, 20, 0.0, 0.6)
    assert polls(watch, 10, 30, 0.7, 0.8)


def test_a_stalled_loop_is_not_the_peer_going_away() -> None:
    # Our own loop slept 2 s: acknowledgements may be waiting unread; start counting again.
    watch = AckWatch(0.75)
    assert not polls(watch, 10, 20, 0.0, 0.5)
    assert not watch.observe(10, 20, 2.5)
    assert not polls(watch, 10, 20, 2.6, 3.1)
    assert polls(watch, 10, 20, 3.2, 3.3)


def test_a_lone_message_before_a_pause_is_not_judged() -> None:
    # Its acknowledgement may have been lost; SCTP retransmits it. Nothing was sent behind it.
    watch = AckWatch(0.75)
    assert not polls(watch, 10, 10, 0.0, 5.0)


def test_nothing_outstanding_resets() -> None:
    watch = AckWatch(0.75)
    polls(watch, 10, 12, 0.0, 0.5)
    assert not polls(watch, None, None, 0.6, 0.9)
    assert not polls(watch, 10, 12, 1.0, 1.7)  # a fresh start at 1.0, not stale since 0.0
    assert polls(watch, 10, 12, 1.8, 1.8)


def test_reads_aiortc_sent_queue() -> None:
    chunk = SimpleNamespace
    pc = SimpleNamespace(sctp=SimpleNamespace(_sent_queue=[chunk(tsn=5), chunk(tsn=9)]))
    assert unacked_tsns(pc) == (5, 9)
    assert unacked_tsns(SimpleNamespace(sctp=SimpleNamespace(_sent_queue=[]))) == (None, None)
    assert unacked_tsns(SimpleNamespace(sctp=None)) == (None, None)
    assert unacked_tsns(SimpleNamespace(sctp=SimpleNamespace())) == (None, None)
