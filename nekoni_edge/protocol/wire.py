"""The wire's JSON: the one place a peer's message is decoded (size and nesting capped
first), and the field readers every message's parser uses (a bad field is a ``BadMessage``)."""

from __future__ import annotations

import json
import re
from typing import Any, Self

from nekoni_edge.errors import BadMessage, MessageTooLarge

# JSON as it is on the wire: a trace event's ``data`` differs by step, so it is JSON, typed.
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


MAX_CONTENT_CHARS = 16_000  # a chat message's or a search's text
MAX_MESSAGE_BYTES = 64 * 1024


# No message of ours nests deeper than a few levels; a deeper one is refused before json.loads
# recurses into it, so a hostile peer cannot drive the parser near the recursion limit (where a
# finalizer run by the garbage collector at that depth fails in its turn).
MAX_NESTING = 32


# The characters the nesting scan looks at: brackets, and what opens, escapes or closes a string.
_SPECIAL = re.compile(r'[\[\]{}"\\]')


def decode(data: str | bytes, limit: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """Cap, then parse one raw peer message into a JSON object. Raises BadMessage.

    The one place peer JSON is decoded: the handshake and the signaling endpoint call it too.
    """
    size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    if size > limit:
        raise MessageTooLarge(size, limit)
    try:
        text = data if isinstance(data, str) else data.decode("utf-8")
        if nesting_depth(text) > MAX_NESTING:
            raise BadMessage("TOO_DEEP", f"message nests deeper than {MAX_NESTING} levels")
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BadMessage("INVALID_JSON", "message is not valid JSON") from exc
    if not isinstance(obj, dict):
        raise BadMessage("NOT_AN_OBJECT", "message must be a JSON object")
    return obj


def nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside JSON strings, in one pass without recursion.

    0 when there are too few brackets to pass MAX_NESTING at all. Only brackets, quotes and
    backslashes are visited, each once, so the cost is linear in the text whatever it holds (a
    regex that cut strings out first was quadratic in escaped quotes: 36 s for one 64 KB frame);
    the scan stops as soon as the cap is passed.
    """
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0
    depth = deepest = 0
    in_string = False
    escaped_at = -1  # the position of a character a backslash escaped
    for match in _SPECIAL.finditer(text):
        position, char = match.start(), match.group()
        if position == escaped_at:
            continue
        if in_string:
            if char == "\\":
                escaped_at = position + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_NESTING:
                    break
        elif char in "]}":
            depth -= 1
    return deepest


def _string(obj: dict[str, Any], key: str, limit: int, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise BadMessage("BAD_FIELD", f"{key} must be a string")
    if len(value) > limit:
        raise BadMessage("BAD_FIELD", f"{key} is longer than {limit} characters")
    return value


def _integer(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadMessage("BAD_FIELD", f"{key} must be an integer")
    return value


class _Fieldless:
    """A request that carries nothing but its type."""

    __slots__ = ()

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> Self:
        return cls()
