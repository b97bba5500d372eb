"""Five failures in a minute block a key or address for five minutes; memory is bounded."""

from __future__ import annotations

from nekoni_edge.ratelimit import FailureLimiter


def test_blocks_after_five_failures_in_a_minute() -> None:
    lim = FailureLimiter()
    for i in range(4):
        assert not lim.failure("addr", "key", now=float(i))
    assert not lim.is_blocked("addr", now=4.0)
    assert lim.failure("addr", None, now=5.0)
    assert lim.is_blocked("addr", now=6.0)
    assert lim.is_blocked("other", "addr", now=6.0)
    assert not lim.is_blocked("key", now=6.0)  # the key had only four
    assert not lim.is_blocked("addr", now=5.0 + 300.0)


def test_spread_out_failures_do_not_block() -> None:
    lim = FailureLimiter()
    for i in range(20):
        lim.failure("addr", now=i * 20.0)
    assert not lim.is_blocked("addr", now=400.0)


def test_memory_is_bounded() -> None:
    lim = FailureLimiter(max_tracked=100)
    for i in range(10_000):
        lim.failure(f"key-{i}", now=0.0)
    assert len(lim._failures) <= 100
