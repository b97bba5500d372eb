"""Giving freed memory back: glibc keeps freed heap for reuse unless asked to return it."""

from __future__ import annotations

import ctypes
import gc
import logging

_LOGGER = logging.getLogger(__name__)

_libc: ctypes.CDLL | None = None
try:
    _libc = ctypes.CDLL("libc.so.6")
    _libc.malloc_trim  # noqa: B018 - present on glibc only
except (OSError, AttributeError):
    _libc = None


def return_freed_memory(*, collect: bool = False) -> None:
    """``malloc_trim(0)``: a few milliseconds, and idle RSS stays what is really in use.

    Blocking: call it from a worker thread, or where a short pause does not matter.
    """
    if collect:
        gc.collect()
    if _libc is not None:
        _libc.malloc_trim(0)


def meminfo() -> dict[str, int]:
    """/proc/meminfo in bytes (``MemTotal``, ``MemAvailable``, …); empty where there is none."""
    out: dict[str, int] = {}
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return out
