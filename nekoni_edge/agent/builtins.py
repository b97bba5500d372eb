"""Built-in tools, all offline: get_time and device_status, each with the requests it answers
and its result in plain words (the answer prompt never shows a small model JSON)."""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import os
import re
import shutil
import time
import zoneinfo
from pathlib import Path
from typing import Any

from nekoni_edge.agent.tools import Tool, ToolError, ToolRegistry
from nekoni_edge.memory import meminfo
from nekoni_edge.words import fold, words

_STARTED = time.monotonic()

TIME_EXAMPLES = (
    "What time is it?", "What's the time?", "Tell me the time.", "What is the date today?",
    "What day of the week is it?", "What's today's date?", "What time is it in Tokyo?",
    "Is it morning or afternoon right now?", "What year is it?", "Current time please",
    "Is it getting late?", "What's the month and year?", "Have you got the time?",
)
STATUS_EXAMPLES = (
    "How much memory is free on the box?", "How is the box doing?", "What's the box's uptime?",
    "How much disk space is left?", "What is the CPU temperature?", "Is the device overloaded?",
    "Show me the system status.", "How long has the box been running?",
    "Is the box overheating?", "How hard is the CPU working?", "Is the box healthy?",
    "What temperature is the box running at?",
)

# Words without which a request is not about the time or the box: such a request is not
# embedded for the router (the embedder, ~70 MiB with onnxruntime, is then loaded only when a
# turn needs it). Broad on purpose: the router still decides; these only say "maybe".
TIME_CUES = frozenset(fold(w) for w in (
    "time clock o'clock hour hours minute minutes late early date day days today tonight "
    "tomorrow yesterday week weekday weekend month year now noon midday midnight morning "
    "afternoon evening night timezone calendar utc gmt am pm current currently").split())
STATUS_CUES = frozenset(fold(w) for w in (
    "box device system status memory ram free disk storage space sd cpu processor load busy "
    "temperature hot heat overheating warm cool uptime up running started boot reboot health "
    "healthy ok okay working overloaded doing slow battery power swap").split())

# "What time does the ferry leave?", "what time does it start?", "which day is she out?",
# "what date is the party?", "when is sports day?": an event's time or day, which a note may
# hold; the clock answers "what time is it?", "what time do you have?" and "what day is it
# today?" ("when" never asks the clock: it asks when something is; nor "hours", a span: "and
# what hours is it?" of the nursery's morning session; nor "how many weeks are in a year?";
# nor a greeting with no question, "Morning!", "Good evening, box").
EVENT_TIME = re.compile(r"\b(?:what|which) (?:time|day|date) (?:(?:does|do|did|will|should|"
                        r"shall|can) (?!you\b)|(?:is|are|was|were) (?!it\b|today\b|"
                        r"tomorrow\b|now\b))|^\s*when\b|\bhours\b|^\s*how many\b|"
                        r"^\s*(?:good\s+)?(?:morning|afternoon|evening|night)\b[^?]*$",
                        re.IGNORECASE)


@functools.cache
def _zones_by_city() -> dict[str, str]:
    """'tokyo' -> 'Asia/Tokyo', 'new york' -> 'America/New_York' (IANA's last component)."""
    zones: dict[str, str] = {}
    for name in sorted(zoneinfo.available_timezones()):
        if "/" in name and not name.startswith(("Etc/", "SystemV/", "US/")):
            zones.setdefault(name.rsplit("/", 1)[1].replace("_", " ").lower(), name)
    return zones


def extract_timezone(request: str) -> dict[str, Any]:
    """``{"timezone": …}`` when the request names a city IANA knows ("in Tokyo"), else ``{}``."""
    words = re.findall(r"[a-z]+", request.lower())
    zones = _zones_by_city()
    for size in (3, 2, 1):  # longest name first: "new york" before "york"
        for i in range(len(words) - size + 1):
            zone = zones.get(" ".join(words[i : i + size]))
            if zone is not None:
                return {"timezone": zone}
    return {}


async def get_time(args: dict[str, Any]) -> dict[str, Any]:
    name = args.get("timezone")
    try:
        zone: dt.tzinfo | None = zoneinfo.ZoneInfo(name) if name else None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ToolError(f"unknown timezone {name!r}: use an IANA name like Europe/Paris") from exc
    now = dt.datetime.now(zone).astimezone(zone)  # no zone asked: the box's own
    return {"iso": now.isoformat(timespec="seconds"), "timezone": name or now.tzname(),
            "weekday": now.strftime("%A"), "date": now.date().isoformat(),
            "time": now.strftime("%H:%M")}


def time_essential(result: dict[str, Any], request: str) -> str:
    """What an answer must say of the clock's result: the weekday for what day or date it is
    ("The box is set for 23:25 UTC" does not say it is Sunday), else the time."""
    asked = {fold(w) for w in words(request)}
    if asked & {"day", "weekday", "date"} and "time" not in asked:
        return str(result["weekday"])
    return str(result["time"])


def describe_time(result: dict[str, Any]) -> str:
    """'Current time on the box: 14:05 UTC, Thursday 3 December 2026.'"""
    when = dt.datetime.fromisoformat(result["iso"])
    where = "on the box" if "/" not in str(result["timezone"]) else f"in {result['timezone']}"
    return (f"Current time {where}: {result['time']} {when.tzname() or ''}, "
            f"{result['weekday']} {when.day} {when:%B %Y}.").replace("  ", " ")


def _device_status(data_dir: Path) -> dict[str, Any]:
    mem = meminfo()
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


def _duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    days, hours = divmod(hours, 24)
    parts = [f"{days} d"] if days else []
    return " ".join([*parts, f"{hours} h {rest // 60} min"])


# What a status request may be about, and the words that say so; none of them: everything.
ASPECTS = {
    "memory": ("memory", "ram"), "disk": ("disk", "storage", "space", "sd"),
    "uptime": ("uptime", "up", "long", "started", "boot", "since"),
    "temperature": ("temperature", "hot", "heat", "overheating", "warm", "cool"),
    "load": ("load", "busy", "cpu", "processor", "working", "overloaded"),
}


def extract_aspects(request: str) -> dict[str, Any]:
    """``{"about": [...]}``: the parts of the status the request names (a shorter fact is
    read faster and repeated more faithfully by a small model)."""
    words = set(re.findall(r"[a-z]+", request.lower()))
    about = [aspect for aspect, keys in ASPECTS.items() if words & set(keys)]
    return {"about": about} if about else {}


def describe_status(status: dict[str, Any]) -> str:
    """The status (or the parts asked about) as a sentence a small model can repeat."""
    about = status.get("about") or list(ASPECTS)
    memory, disk = status["memory_mib"], status["disk_gib"]
    parts = {
        "uptime": f"running for {_duration(status['uptime_s'])}",
        "memory": f"{memory['available']} MiB of {memory['total']} MiB memory free",
        "disk": f"{disk['free']} GiB of {disk['total']} GiB disk free",
        "load": f"load average {status['load'][0]}",
        "temperature": (f"CPU temperature {status['cpu_temp_c']:.0f} °C"
                        if "cpu_temp_c" in status else "no CPU temperature sensor"),
    }
    return "Box status: " + "; ".join(parts[a] for a in ASPECTS if a in about) + "."


def register_builtins(registry: ToolRegistry, *, data_dir: Path) -> None:
    """Register the built-in tools. The owner's documents need no tool: every turn retrieves."""
    registry.register(Tool(
        "get_time", "The current date, time and weekday, optionally in a timezone.",
        {"type": "object", "properties": {"timezone": {"type": "string", "maxLength": 64}},
         "additionalProperties": False},
        get_time, examples=TIME_EXAMPLES, cues=TIME_CUES, not_for=EVENT_TIME,
        extract=extract_timezone, describe=describe_time,
        essential=time_essential,
    ))

    async def device_status(args: dict[str, Any]) -> dict[str, Any]:
        status = await asyncio.get_running_loop().run_in_executor(None, _device_status,
                                                                  data_dir)
        return {**status, "about": args.get("about", [])}

    registry.register(Tool(
        "device_status", "The box's uptime, load, memory, disk and CPU temperature.",
        {"type": "object", "properties": {"about": {"type": "array"}},
         "additionalProperties": False}, device_status,
        examples=STATUS_EXAMPLES, cues=STATUS_CUES, extract=extract_aspects,
        describe=describe_status,
    ))
