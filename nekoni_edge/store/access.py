"""What every table family's store builds on: the writer and the reader (``Database``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def now_ms() -> int:
    """Unix time in milliseconds."""
    return time.time_ns() // 1_000_000


class Access:
    """The two ways a store touches the file; ``Database`` provides them."""

    async def write(self, fn: Callable[[Any], T], *, durable: bool = True) -> T:
        """Run ``fn(conn)`` as one transaction on the writer thread."""
        raise NotImplementedError

    async def _fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        raise NotImplementedError

    async def _fetchone(self, sql: str, params: Iterable[Any] = ()) -> Any:
        raise NotImplementedError
