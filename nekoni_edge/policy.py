"""Who may do what (SECURITY.md's table), decided in one place on a clock it is given.

A door's sender is the box's owner (no key: the CLI, the control socket), a trusted device, or
a device on probation (paired by the button less than a window ago: a second key could still
revoke it). Probation ends on the policy's clock, so tests move the clock, never the database.
Sessions: a device writes the ones it started (``session_refusal``, asked by
``ChatService.claim`` with what it knows of the session) and reads its own and, unless on
probation, the household's (``may_see``).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from nekoni_edge.errors import NekoniError
from nekoni_edge.protocol import messages as m
from nekoni_edge.store.access import now_ms
from nekoni_edge.store.database import Database
from nekoni_edge.store.devices import Device

SKILL_SESSION = "skill:"  # the household's sessions: skill runs, written by the box only
# The reference clients' default ids: a device's own conversation, named by its key.
DEFAULT_SESSION = re.compile(r"(?:phone|web)-([A-Za-z0-9_-]{8})")


def named_key(session_id: str) -> str | None:
    """The key prefix a default id (``phone-<key8>``, ``web-<key8>``) names, if it is one."""
    named = DEFAULT_SESSION.fullmatch(session_id)
    return named.group(1) if named is not None else None


def names_another_key(prefix: str, device_key: str, paired: Iterable[str]) -> bool:
    """A default id naming another paired device's key: ids are guessable and keys announced
    to every device, so writing first must not lock a phone out of its own conversation
    (nekoni's web app's random ``web-<8 hex>`` ids name none)."""
    return not device_key.startswith(prefix) and any(key.startswith(prefix) for key in paired)


def squatted(session_id: str, device_key: str | None, first_writer: str | None) -> bool:
    """True when another device started the default id that names ``device_key``: the key it
    is named after takes it (what the squatter wrote there goes), paired or not yet when the
    squatter wrote."""
    prefix = named_key(session_id)
    return (device_key is not None and prefix is not None and device_key.startswith(prefix)
            and first_writer is not None and first_writer != device_key)


def session_refusal(session_id: str, device_key: str | None, first_writer: str | None,
                    named_for_another: bool) -> str | None:
    """Why ``device_key`` may not write to this session (None: it may). The box's owner
    writes anywhere; a skill's session is the household's; a session is its starter's."""
    if device_key is None:
        return None
    if session_id.startswith(SKILL_SESSION):
        return "a skill's conversation is the household's: run the skill instead"
    if named_for_another:
        return "this conversation id names another device's key"
    if first_writer is not None and first_writer != device_key:
        return "this conversation belongs to another device"
    return None


def may_see(device_key: str | None, session_owner: str | None, *, own_only: bool) -> bool:
    """May the sender read a session started by ``session_owner`` (None: the household's)?
    Its own; the household's unless ``own_only`` (on probation); another device's never."""
    return device_key is None or session_owner == device_key or (
        session_owner is None and not own_only)


class Standing(enum.Enum):
    OWNER = "owner"  # at the box itself
    TRUSTED = "trusted"
    PROBATION = "probation"


class OnProbation(NekoniError):
    """A device paired by the button less than a window ago asked to change what it may not
    yet (if a second key turns up in that time, it is revoked)."""

    def reply(self) -> dict[str, Any]:
        return m.error_reply("PROBATION", str(self))


@dataclass
class Policy:
    """The rules, on ``clock_ms`` (Unix ms)."""

    clock_ms: Callable[[], int] = now_ms

    def on_probation(self, device: Device | None) -> bool:
        return device is not None and device.on_probation(self.clock_ms())

    async def standing(self, db: Database, device_key: str | None) -> tuple[Standing, int]:
        """Where the sender stands, and (on probation) when it becomes trusted (ms)."""
        if device_key is None:
            return Standing.OWNER, 0
        device = await db.device(device_key)
        if device is not None and self.on_probation(device):
            return Standing.PROBATION, device.trusted_at or 0
        return Standing.TRUSTED, 0

    async def require_trusted(self, db: Database, device_key: str | None, what: str) -> None:
        """Refuse ``what`` to a device still on probation (the owner at the box is trusted)."""
        standing, trusted_at = await self.standing(db, device_key)
        if standing is Standing.PROBATION:
            wait_s = max(1, (trusted_at - self.clock_ms() + 999) // 1000)
            raise OnProbation(f"this device was paired moments ago; it may chat now, and "
                              f"{what} in {wait_s} s, once its pairing window has closed")

    async def may_read(self, db: Database, device_key: str | None,
                       session_owner: str | None) -> bool:
        """May the sender read a session started by ``session_owner`` (None: the
        household's: the box owner's, a skill run)? Its own always; the household's unless it
        is on probation (skill runs and prompts may hold secrets); another device's never."""
        if device_key is None or session_owner is not None:
            return may_see(device_key, session_owner, own_only=True)
        standing, _ = await self.standing(db, device_key)
        return may_see(device_key, None, own_only=standing is Standing.PROBATION)

    async def own_traces_only_until(self, db: Database, device_key: str | None) -> int:
        """Until when (ms) live traces show the sender only its own sessions: a device on
        probation follows nothing of the household's."""
        standing, trusted_at = await self.standing(db, device_key)
        return trusted_at if standing is Standing.PROBATION else 0

    def own_only_now(self, until: int) -> bool:
        return self.clock_ms() < until
