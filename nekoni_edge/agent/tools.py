"""The tool registry: name, description, JSON-Schema parameters, async execute, and what the
router and the answer prompt need (example requests, a plain-words view of a result)."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from nekoni_edge.errors import NekoniError

Execute = Callable[[dict[str, Any]], Awaitable[Any]]
# Arguments read off the request without a model call (e.g. a city name -> a timezone).
Extract = Callable[[str], dict[str, Any]]
# A result as one or two plain sentences for the answer prompt: a small model copies JSON.
Describe = Callable[[Any], str]
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "object": (dict,), "array": (list,),
}


class ToolError(NekoniError):
    """A tool call the model made cannot run; the model sees this message as the result."""


@dataclass(frozen=True)
class Tool:
    """One tool the agent may call."""

    name: str
    description: str
    parameters: dict[str, Any]
    execute: Execute
    requires_approval: bool = False
    # Requests this tool answers, for the embedding router; none: the description is one.
    examples: tuple[str, ...] = ()
    # Words (folded: ``words.fold``) a request for this tool holds at least one of; a request
    # with none is not embedded for the router. Empty: any request may be for it.
    cues: frozenset[str] = frozenset()
    # Requests close to its examples that it still never answers (``None``: none).
    not_for: re.Pattern[str] | None = None
    extract: Extract | None = None
    describe: Describe | None = None
    # What an answer must contain to have stated the result for the request (the time's
    # "14:05", or "Sunday" for what day it is); when it does not, the fact itself is told.
    essential: Callable[[Any, str], str] | None = None

    def fact(self, result: Any) -> str:
        """The result in plain words, as the answer prompt shows it."""
        if self.describe is not None:
            return self.describe(result)
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        return f"Result of {self.name}: {text}"


def validate_arguments(schema: dict[str, Any], args: object) -> dict[str, Any]:
    """Check arguments against the (object) schema subset our tools use; raise ToolError."""
    if not isinstance(args, dict):
        raise ToolError("arguments must be an object")
    properties: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            raise ToolError(f"missing required argument {name!r}")
    for name, value in args.items():
        spec = properties.get(name)
        if spec is None:
            if schema.get("additionalProperties", True) is False:
                raise ToolError(f"unknown argument {name!r}")
            continue
        kind = spec.get("type")
        if kind and (not isinstance(value, _JSON_TYPES[kind]) or
                     (kind in ("integer", "number") and isinstance(value, bool))):
            raise ToolError(f"argument {name!r} must be of type {kind}")
        if "enum" in spec and value not in spec["enum"]:
            raise ToolError(f"argument {name!r} must be one of {spec['enum']}")
        if kind == "string" and "maxLength" in spec and len(value) > spec["maxLength"]:
            raise ToolError(f"argument {name!r} is longer than {spec['maxLength']}")
    return args


class ToolRegistry:
    """The tools of this box, in the order they were registered."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool name {tool.name!r} is taken")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())
