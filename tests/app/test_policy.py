"""Who may do what, on the policy's clock: probation ends when the clock moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from nekoni_edge.policy import OnProbation, Policy, Standing
from nekoni_edge.store.access import now_ms
from nekoni_edge.store.database import Database

KEY, OTHER = "k" * 43, "o" * 43


async def test_probation_ends_on_the_policys_clock(tmp_path: Path) -> None:
    clock = [now_ms()]
    policy = Policy(clock_ms=lambda: clock[0])
    async with await Database.open(tmp_path / "db") as db:
        await db.approve_device(KEY, "newcomer", probation_ms=120_000)
        await db.approve_device(OTHER, "old phone")
        assert (await policy.standing(db, None))[0] is Standing.OWNER
        assert (await policy.standing(db, OTHER))[0] is Standing.TRUSTED
        standing, trusted_at = await policy.standing(db, KEY)
        assert standing is Standing.PROBATION
        with pytest.raises(OnProbation, match=r"remove devices in 12[01] s"):
            await policy.require_trusted(db, KEY, "remove devices")
        assert await policy.may_read(db, KEY, KEY)  # its own
        assert not await policy.may_read(db, KEY, None)  # not the household's yet
        assert not await policy.may_read(db, OTHER, KEY)  # another's, never
        assert await policy.own_traces_only_until(db, KEY) == trusted_at
        assert policy.own_only_now(trusted_at)
        clock[0] = trusted_at  # the window closes with no second key
        assert (await policy.standing(db, KEY))[0] is Standing.TRUSTED
        await policy.require_trusted(db, KEY, "remove devices")
        assert await policy.may_read(db, KEY, None)
        assert not policy.own_only_now(trusted_at)
