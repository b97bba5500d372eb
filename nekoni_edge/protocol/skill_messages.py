"""nekoni's ``skill_*`` and ``cron_*`` messages, typed, and their replies (sans-IO).

Every field is checked here; a bad one is a ``BadSkillMessage``, answered ``skill_error`` (the
only error nekoni's apps show for skills), not the generic ``error``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from nekoni_edge.errors import BadMessage

MAX_SKILL_NAME = 100
MAX_SKILL_PROMPT = 4000
MAX_ID = 128


class BadSkillMessage(BadMessage):
    """A skill or cron request with a bad field: ``skill_error`` with the words."""

    def __init__(self, message: str) -> None:
        super().__init__("INVALID_REQUEST", message)

    def reply(self) -> dict[str, Any]:
        return {"type": "skill_error", "message": self.message, "code": self.code}


def _text(obj: dict[str, Any], key: str, limit: int, *, required: bool = True) -> str | None:
    """A field's text, stripped; None when it is absent and not ``required``."""
    value = obj.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()) or len(value) > limit:
        raise BadSkillMessage(f"{key} must be a non-empty string of at most {limit} "
                              "characters" if required else
                              f"{key} must be a string of at most {limit} characters")
    return value.strip()


def _required(obj: dict[str, Any], key: str, limit: int) -> str:
    text = _text(obj, key, limit)
    assert text is not None  # required: never None
    return text


def _flag(obj: dict[str, Any], key: str) -> bool | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, bool):
        raise BadSkillMessage(f"{key} must be true or false")
    return value


@dataclass(frozen=True, slots=True)
class SkillList:
    """List the skills."""

    TYPE: ClassVar[str] = "skill_list"

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> SkillList:
        return cls()


@dataclass(frozen=True, slots=True)
class SkillCreate:
    """Create a skill: a name and the prompt it runs."""

    TYPE: ClassVar[str] = "skill_create"

    name: str
    prompt: str
    description: str = ""

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> SkillCreate:
        return cls(_required(obj, "name", MAX_SKILL_NAME),
                   _required(obj, "prompt", MAX_SKILL_PROMPT),
                   _text(obj, "description", MAX_SKILL_PROMPT, required=False) or "")


@dataclass(frozen=True, slots=True)
class SkillUpdate:
    """Change some fields of a skill (None: unchanged)."""

    TYPE: ClassVar[str] = "skill_update"

    id: str
    name: str | None = None
    prompt: str | None = None
    description: str | None = None

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> SkillUpdate:
        return cls(_required(obj, "id", MAX_ID),
                   _text(obj, "name", MAX_SKILL_NAME) if "name" in obj else None,
                   _text(obj, "prompt", MAX_SKILL_PROMPT) if "prompt" in obj else None,
                   _text(obj, "description", MAX_SKILL_PROMPT, required=False))


@dataclass(frozen=True, slots=True)
class SkillDelete:
    """Delete a skill (and its cron jobs)."""

    TYPE: ClassVar[str] = "skill_delete"

    id: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> SkillDelete:
        return cls(_required(obj, "id", MAX_ID))


@dataclass(frozen=True, slots=True)
class SkillRun:
    """Run a skill now; the result comes whole in the reply."""

    TYPE: ClassVar[str] = "skill_run"

    id: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> SkillRun:
        return cls(_required(obj, "id", MAX_ID))


@dataclass(frozen=True, slots=True)
class CronList:
    """List the cron jobs (of one skill, with nekoni's optional ``skillId``)."""

    TYPE: ClassVar[str] = "cron_list"

    skill_id: str | None = None

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> CronList:
        return cls(_text(obj, "skillId", MAX_ID, required=False))


@dataclass(frozen=True, slots=True)
class CronCreate:
    """Schedule a skill with a cron expression (checked by the store: it needs croniter)."""

    TYPE: ClassVar[str] = "cron_create"

    skill_id: str
    cron_expression: str
    enabled: bool = True

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> CronCreate:
        enabled = _flag(obj, "enabled")
        return cls(_required(obj, "skillId", MAX_ID),
                   _required(obj, "cronExpression", MAX_SKILL_NAME),
                   True if enabled is None else enabled)


@dataclass(frozen=True, slots=True)
class CronUpdate:
    """Change some fields of a cron job (None: unchanged)."""

    TYPE: ClassVar[str] = "cron_update"

    id: str
    cron_expression: str | None = None
    enabled: bool | None = None

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> CronUpdate:
        return cls(_required(obj, "id", MAX_ID),
                   _text(obj, "cronExpression", MAX_SKILL_NAME)
                   if "cronExpression" in obj else None,
                   _flag(obj, "enabled"))


@dataclass(frozen=True, slots=True)
class CronDelete:
    """Delete a cron job."""

    TYPE: ClassVar[str] = "cron_delete"

    id: str

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> CronDelete:
        return cls(_required(obj, "id", MAX_ID))


@dataclass(frozen=True, slots=True)
class SkillView:
    """A skill as nekoni's apps read it."""

    id: str
    name: str
    prompt: str
    description: str
    created_at: int

    def wire(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "prompt": self.prompt,
                "description": self.description, "createdAt": self.created_at}


@dataclass(frozen=True, slots=True)
class CronJobView:
    """A cron job as nekoni's apps read it."""

    id: str
    skill_id: str
    cron_expression: str
    enabled: bool
    last_run: int | None
    created_at: int

    def wire(self) -> dict[str, Any]:
        return {"id": self.id, "skillId": self.skill_id, "cronExpression": self.cron_expression,
                "enabled": self.enabled, "lastRun": self.last_run, "createdAt": self.created_at}


@dataclass(frozen=True, slots=True)
class SkillListResponse:
    skills: tuple[SkillView, ...]

    def wire(self) -> dict[str, Any]:
        return {"type": "skill_list_response", "skills": [s.wire() for s in self.skills]}


@dataclass(frozen=True, slots=True)
class SkillResponse:
    skill: SkillView

    def wire(self) -> dict[str, Any]:
        return {"type": "skill_response", "skill": self.skill.wire()}


@dataclass(frozen=True, slots=True)
class CronListResponse:
    jobs: tuple[CronJobView, ...]

    def wire(self) -> dict[str, Any]:
        return {"type": "cron_list_response", "jobs": [j.wire() for j in self.jobs]}


@dataclass(frozen=True, slots=True)
class CronResponse:
    job: CronJobView

    def wire(self) -> dict[str, Any]:
        return {"type": "cron_response", "job": self.job.wire()}


@dataclass(frozen=True, slots=True)
class Deleted:
    """``skill_delete_response`` / ``cron_delete_response``: the id that went."""

    kind: str  # "skill" or "cron"
    id: str

    def wire(self) -> dict[str, Any]:
        return {"type": f"{self.kind}_delete_response", "id": self.id}


@dataclass(frozen=True, slots=True)
class SkillRunResponse:
    id: str
    result: str

    def wire(self) -> dict[str, Any]:
        return {"type": "skill_run_response", "id": self.id, "result": self.result}


SkillReply = (SkillListResponse | SkillResponse | CronListResponse | CronResponse | Deleted
              | SkillRunResponse)
