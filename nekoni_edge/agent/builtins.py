"""Built-in tools, all offline: get_time, device_status, rag_query."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import shutil
import time
import zoneinfo
from pathlib import Path
from typing import Any

from nekoni_edge.agent.tools import Tool, ToolError, ToolRegistry
from nekoni_edge.rag.knowledge import KnowledgeBase

_STARTED = time.monotonic()


async def get_time(args: dict[str, Any]) -> dict[str, Any]:
    name = args.get("timezone") or "UTC"
    try:
        zone = zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ToolError(f"unknown timezone {name!r}: use an IANA name like Europe/Paris") from exc
    now = dt.datetime.now(zone)
    return {"iso": now.isoformat(timespec="seconds"), "timezone": name,
            "weekday": now.strftime("%A"), "date": now.date().isoformat(),
            "time": now.strftime("%H:%M")}


def _meminfo() -> dict[str, int]:
    out = {}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            key, value = line.split(":", 1)
            out[key] = int(value.split()[0]) * 1024
    except (OSError, ValueError):
        pass
    return out


def _device_status(data_dir: Path) -> dict[str, Any]:
    mem = _meminfo()
    disk = shutil.disk_usage(data_dir if data_dir.exists() else Path("."))
    status: dict[str, Any] = {
        "uptime_s": round(time.monotonic() - _STARTED),
        "load": [round(x, 2) for x in os.getloadavg()],
        "memory_mib": {"total": mem.get("MemTotal", 0) // 2**20,
                       "available": mem.get("MemAvailable", 0) // 2**20},
        "disk_gib": {"total": round(disk.total / 2**30, 1), "free": round(disk.free / 2**30, 1)},
    }
    try:
        status["system_uptime_s"] = round(float(Path("/proc/uptime").read_text().split()[0]))
    except (OSError, ValueError):
        pass
    thermal = Path("/sys/class/thermal/thermal_zone0/temp")
    if thermal.exists():  # the Pi has one; many PCs do not
        try:
            status["cpu_temp_c"] = int(thermal.read_text().strip()) / 1000
        except (OSError, ValueError):
            pass
    return status


def register_builtins(registry: ToolRegistry, *, data_dir: Path,
                      knowledge: KnowledgeBase | None) -> None:
    """Register the built-in tools (rag_query only when the knowledge base exists)."""
    registry.register(Tool(
        "get_time", "The current date, time and weekday, optionally in a timezone.",
        {"type": "object", "properties": {"timezone": {"type": "string", "maxLength": 64}},
         "additionalProperties": False},
        get_time,
    ))

    async def device_status(args: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.get_running_loop().run_in_executor(None, _device_status, data_dir)

    registry.register(Tool(
        "device_status", "The box's uptime, load, memory, disk and CPU temperature.",
        {"type": "object", "properties": {}, "additionalProperties": False}, device_status,
    ))
    if knowledge is not None:
        async def rag_query(args: dict[str, Any]) -> list[dict[str, Any]]:
            return await knowledge.rag_query(str(args["query"]))

        registry.register(Tool(
            "rag_query", "Search the owner's documents.",
            {"type": "object", "properties": {"query": {"type": "string", "maxLength": 500}},
             "required": ["query"], "additionalProperties": False},
            rag_query,
        ))
