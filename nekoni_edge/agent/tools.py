"""The tool registry: name, description, JSON-Schema parameters, async execute."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nekoni_edge.errors import NekoniError

Execute = Callable[[dict[str, Any]], Awaitable[Any]]
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
    """The tools of this box, and the schema that constrains the model's tool calls."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools or tool.name == "none":
            raise ValueError(f"tool name {tool.name!r} is taken")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def prompt_block(self) -> str:
        """The tool list for the system prompt, as nekoni puts it there."""
        lines = ["You can call these tools:"]
        for tool in self._tools.values():
            lines.append(f"- {tool.name}: {tool.description} "
                         f"Parameters: {json.dumps(tool.parameters, sort_keys=True)}")
        lines.append('To call one, reply {"tool_call": {"name": ..., "arguments": {...}}}; '
                     'use the name "none" when no tool is needed.')
        return "\n".join(lines)

    def call_schema(self) -> dict[str, Any]:
        """JSON Schema of a tool call naming a real tool with arguments of its schema."""
        options = [
            {"type": "object", "properties": {"name": {"const": t.name},
                                              "arguments": t.parameters},
             "required": ["name", "arguments"]}
            for t in self._tools.values()
        ]
        options.append({"type": "object", "properties": {
            "name": {"const": "none"},
            "arguments": {"type": "object", "properties": {}, "additionalProperties": False}},
            "required": ["name", "arguments"]})
        return {"type": "object", "properties": {"tool_call": {"anyOf": options}},
                "required": ["tool_call"]}
