"""Turns at the model taken in turn by device, with a cap per device: real asyncio tasks, no
model (what the queue decides does not depend on what the model says)."""

from __future__ import annotations

import asyncio

import pytest

from nekoni_edge.agent.fair import FairTurns, TooManyTurns


async def test_the_owner_waits_for_at_most_one_answer_of_a_busy_device() -> None:
    turns = FairTurns(per_device=24)
    order: list[str] = []
    release = asyncio.Event()

    async def ask(device: str, name: str) -> None:
        async with turns.turn(device):
            order.append(name)
            await release.wait()
            release.clear()

    flood = [asyncio.create_task(ask("stranger", f"s{i}")) for i in range(24)]
    await asyncio.sleep(0)
    owner = asyncio.create_task(ask("owner", "owner"))
    await asyncio.sleep(0)
    for _ in range(3):  # the stranger's first answer ends, then the owner's turn comes
        release.set()
        for _ in range(10):  # let the released turn end and the next one start
            await asyncio.sleep(0)
    assert order[:2] == ["s0", "owner"]
    for task in [*flood, owner]:
        task.cancel()
    await asyncio.gather(*flood, owner, return_exceptions=True)


async def ask_as(turns: FairTurns, device: str, gate: asyncio.Event) -> None:
    async with turns.turn(device):
        await gate.wait()


async def test_a_device_gets_only_so_many_turns_waiting() -> None:
    turns = FairTurns(per_device=3)
    gate = asyncio.Event()
    held = [asyncio.create_task(ask_as(turns, "phone", gate)) for _ in range(3)]
    await asyncio.sleep(0)
    assert turns.waiting("phone") == 3
    with pytest.raises(TooManyTurns) as refused:
        async with turns.turn("phone"):
            pass
    assert refused.value.reply()["code"] == "BUSY"
    other = asyncio.create_task(ask_as(turns, "another", gate))
    await asyncio.sleep(0)
    assert turns.waiting("another") == 1  # another device is not held back by that cap
    gate.set()
    await asyncio.gather(*held, other)
    assert turns.waiting("phone") == 0


async def test_a_turn_cancelled_while_waiting_frees_its_place() -> None:
    turns = FairTurns(per_device=2)
    gate = asyncio.Event()
    first = asyncio.create_task(ask_as(turns, "phone", gate))
    second = asyncio.create_task(ask_as(turns, "phone", gate))
    await asyncio.sleep(0)
    second.cancel()
    await asyncio.gather(second, return_exceptions=True)
    assert turns.waiting("phone") == 1
    gate.set()
    await first
    async with turns.turn("phone"):  # the model is free again
        pass
