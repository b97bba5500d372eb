"""Settings: defaults < TOML file < ``NEKONI_*`` environment; unknown keys are refused.

The one place for every default: modules that need one take it from ``Settings``."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nekoni_edge.errors import ConfigError

ENV_PREFIX = "NEKONI_"

DEFAULT_SYSTEM_PROMPT = (
    "You are nekoni, a helpful assistant running offline on a small box in the user's home. "
    "Answer briefly and clearly."
)


@dataclass(frozen=True)
class Settings:
    """The effective configuration of the box."""

    data_dir: Path = Path("var")
    host: str = "0.0.0.0"  # noqa: S104 - an appliance serves its LAN
    port: int = 8470
    # "auto": HTTPS with the box's self-signed certificate unless ``host`` is loopback (browsers
    # need a secure context for WebCrypto on a LAN address; loopback already is one).
    tls: str = "auto"
    # With TLS on a LAN address: plain HTTP on 127.0.0.1 too, for local tools (0: any free port).
    loopback_port: int = 8471
    # With TLS on a LAN address: plain HTTP/WS for nekoni's mobile app, which cannot trust a
    # self-signed certificate; only /api and /signal, never the page (-1: off, 0: any free port).
    app_port: int = 8472
    agent_name: str = "nekoni-edge"
    model_path: Path | None = None  # None: the embedded default GGUF
    # A bigger model on another machine: an OpenAI-compatible engine (llama-server, Ollama,
    # llama-cpp-python's server), e.g. "http://192.168.1.20:8080"; "" answers on the box.
    model_url: str = ""
    # The engine's name for the model (its /v1/models id); unset: the engine's only model.
    model_name: str = ""
    model_api_key: str = ""  # sent as a bearer token; never shown by `config show`
    model_fallback: str = "local"  # "local": the box's GGUF answers while the engine is down
    model_timeout_s: float = 60.0  # the engine silent this long mid-answer is given up on
    model_health_s: float = 30.0  # how often the engine is checked
    n_threads: int = field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)))
    n_ctx: int = 2048  # KV cache memory grows with it (≈ 47 MiB per 1k for SmolLM2-135M)
    model_mmap: bool = True  # map the GGUF instead of reading it into memory
    # "q8_0" halves the KV cache (-22 MiB at n_ctx 2048) but evaluates prompts ~2x slower (x86);
    # "auto" picks q8_0 on boards with under 3 GiB of RAM, f16 elsewhere.
    kv_cache_type: str = "auto"
    n_batch: int = 128  # prompt tokens per llama.cpp step; compute buffers grow with it
    max_tokens: int = 256
    # Saved model state (KV cache) of sessions not in the model, so a phone's next turn
    # evaluates only its new tokens; ~23 KiB a token with SmolLM2-135M. 0: none kept.
    model_state_mib: int = 64
    # The answers' sampling temperature: the sets' 118 general questions were answered right
    # 66 times at 0.3 (two seeds) against 49 and 55 at 0.7 and 68 greedy; the documents'
    # answers held or gained (bench_general, docs/BENCHMARKS.md).
    temperature: float = 0.3
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    context_messages: int = 20
    # Addresses ICE may offer; empty means every interface of the box.
    ice_addresses: tuple[str, ...] = ()
    # A phone that acknowledges nothing of an answer for this long is gone: cancel, free it.
    vanish_after_s: float = 0.6  # well above delayed-ack (200 ms) plus a LAN round trip
    log_level: str = "INFO"
    # Agent
    tools: bool = True  # get_time and device_status, chosen by the embedding router
    trace_ring_size: int = 10_000
    cron_tick_s: float = 15.0
    # Knowledge base
    rag: bool = True
    rag_top_k: int = 5
    rag_min_score: float = 0.3
    rag_max_file_bytes: int = 25 * 1024 * 1024
    # Run the embedder in fp32, its int8 weights expanded once at load (+65 MiB resident, slower
    # than the default int8 kernels; closest to the original model, for comparison).
    embedder_fold_weights: bool = False
    # Load the embedder when first needed (a search in documents, a request with a tool's
    # words) and release it after this many idle seconds (~70 MiB with onnxruntime's library,
    # whose pages stay mapped); 0 loads it at start and keeps it.
    embedder_keep_s: float = 300.0
    # Discovery and pairing
    mdns: bool = True
    # Addresses to advertise and answer mDNS on; empty means every interface.
    mdns_interfaces: tuple[str, ...] = ()
    gpio: str = "auto"  # "auto": use the button and LED if the board has GPIO; "off": never
    button_pin: int = 17
    button_pull_up: bool = True
    led_pin: int = 27

    @property
    def db_path(self) -> Path:
        return self.data_dir / "nekoni.db"

    @property
    def cache_path(self) -> Path:
        """Files the box derives from its packages and can always build again."""
        return self.data_dir / "cache"

    @property
    def control_path(self) -> Path:
        return self.data_dir / "control.sock"

    @property
    def key_path(self) -> Path:
        return self.data_dir / "identity.pem"

    @property
    def tls_cert_path(self) -> Path:
        return self.data_dir / "tls.crt"

    @property
    def tls_key_path(self) -> Path:
        return self.data_dir / "tls.key"

    @property
    def host_is_loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    @property
    def use_tls(self) -> bool:
        return self.tls == "on" or (self.tls == "auto" and not self.host_is_loopback)

    def validate(self) -> Settings:
        """Refuse values that cannot work, naming the key."""
        for name in ("port", "loopback_port"):
            if not 0 <= getattr(self, name) <= 65535:
                raise ConfigError(name, f"{getattr(self, name)} is not a TCP port")
        if not -1 <= self.app_port <= 65535:
            raise ConfigError("app_port", f"{self.app_port} is not a TCP port (or -1: off)")
        if self.tls not in ("auto", "on", "off"):
            raise ConfigError("tls", f"{self.tls!r} is not 'auto', 'on' or 'off'")
        for name in ("n_threads", "n_ctx", "n_batch", "max_tokens", "context_messages", "rag_top_k",
                     "rag_max_file_bytes"):
            if getattr(self, name) < 1:
                raise ConfigError(name, "must be at least 1")
        if not -1.0 <= self.rag_min_score <= 1.0:
            raise ConfigError("rag_min_score", "must be a cosine similarity, -1 to 1")
        if self.model_state_mib < 0:
            raise ConfigError("model_state_mib", "must be 0 (keep none) or more")
        if self.embedder_keep_s < 0:
            raise ConfigError("embedder_keep_s", "must be 0 (keep) or a number of seconds")
        if not 0.25 <= self.vanish_after_s <= 30.0:
            raise ConfigError("vanish_after_s", "must be between 0.25 and 30 seconds")
        if not 0.0 <= self.temperature <= 2.0:
            raise ConfigError("temperature", "must be between 0 and 2")
        if self.kv_cache_type not in ("auto", "f16", "q8_0"):
            raise ConfigError("kv_cache_type",
                              f"{self.kv_cache_type!r} is not 'auto', 'f16' or 'q8_0'")
        if self.model_url:
            if not self.model_url.startswith(("http://", "https://")):
                raise ConfigError("model_url", f"{self.model_url!r} is not an http(s) URL")
        if self.model_fallback not in ("local", "none"):
            raise ConfigError("model_fallback",
                              f"{self.model_fallback!r} is neither 'local' nor 'none'")
        if self.model_timeout_s <= 0 or self.model_health_s <= 0:
            raise ConfigError("model_timeout_s" if self.model_timeout_s <= 0
                              else "model_health_s", "must be a positive number of seconds")
        for address in self.ice_addresses:
            try:
                ipaddress.ip_address(address)
            except ValueError:
                raise ConfigError("ice_addresses",
                                  f"{address!r} is not an IP address (e.g. 192.168.1.5)") from None
        if self.gpio not in ("auto", "off"):
            raise ConfigError("gpio", f"{self.gpio!r} is neither 'auto' nor 'off'")
        if self.log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ConfigError("log_level", f"{self.log_level!r} is not a log level")
        return self


def _convert(name: str, kind: Any, value: Any) -> Any:
    """Coerce a TOML or environment value to the field's type, or refuse it by name."""
    text_kind = str(kind)
    if "tuple" in text_kind:
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise ConfigError(name, f"expected a list of strings, got {value!r}")
    if "Path" in text_kind:
        if value in ("", None):
            return None
        if not isinstance(value, str):
            raise ConfigError(name, f"expected a path, got {value!r}")
        return Path(value)
    if text_kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false",
                                                         "no", "off"):
            return value.lower() in ("1", "true", "yes", "on")
        raise ConfigError(name, f"expected true or false, got {value!r}")
    if text_kind in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ConfigError(name, f"expected a number, got {value!r}")
        try:
            return int(value) if text_kind == "int" else float(value)
        except ValueError:
            raise ConfigError(name, f"expected a number, got {value!r}") from None
    if not isinstance(value, str):
        raise ConfigError(name, f"expected a string, got {value!r}")
    return value


SERVICE_DATA_DIR = Path("/var/lib/nekoni-edge")  # the unit's StateDirectory=


def load_settings(
    path: Path | None = None, env: Mapping[str, str] | None = None, *,
    service_dir: Path = SERVICE_DATA_DIR, **overrides: Any
) -> Settings:
    """Build the settings from defaults, an optional TOML file, the environment, overrides."""
    fields = {f.name: f.type for f in dataclasses.fields(Settings)}
    values: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError("config", f"cannot read {path}: {exc}") from exc
        for key, value in data.items():
            if key not in fields:
                raise ConfigError(key, f"unknown key in {path}")
            values[key] = _convert(key, fields[key], value)
    for key, value in (os.environ if env is None else env).items():
        if not key.startswith(ENV_PREFIX):
            continue
        name = key[len(ENV_PREFIX) :].lower()
        if name not in fields:
            raise ConfigError(key, "unknown NEKONI_ setting")
        values[name] = _convert(name, fields[name], value)
    for key, value in overrides.items():
        if value is not None:
            values[key] = value
    environ = os.environ if env is None else env
    if "data_dir" not in values and environ.get("STATE_DIRECTORY"):
        # Run as a service: systemd made StateDirectory= and told us where.
        values["data_dir"] = Path(environ["STATE_DIRECTORY"].split(":")[0])
    elif "data_dir" not in values and service_dir.is_dir():
        # A command typed on the box: the installed service's data, not ./var.
        values["data_dir"] = service_dir
    elif "data_dir" not in values:
        # A development machine: the user's own data dir, wherever the command is typed.
        values["data_dir"] = user_data_dir(environ)
    return Settings(**values).validate()


def user_data_dir(environ: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/nekoni-edge``, else ``~/.local/share/nekoni-edge`` (absolute)."""
    base = environ.get("XDG_DATA_HOME") or str(Path(environ.get("HOME") or Path.home())
                                                 / ".local" / "share")
    return Path(base).expanduser().absolute() / "nekoni-edge"


SECRETS = frozenset({"model_api_key"})


def describe(settings: Settings) -> str:
    """The effective settings as TOML (``config show``), secrets left out."""
    lines = []
    for f in dataclasses.fields(Settings):
        value = getattr(settings, f.name)
        if f.name in SECRETS:
            lines.append(f"# {f.name} = {'(set, not shown)' if value else '(unset)'}")
        elif value is None:
            lines.append(f"# {f.name} = (unset)")
        elif isinstance(value, bool):
            lines.append(f"{f.name} = {'true' if value else 'false'}")
        elif isinstance(value, int | float):
            lines.append(f"{f.name} = {value}")
        elif isinstance(value, tuple):
            lines.append(f"{f.name} = [{', '.join(json.dumps(v) for v in value)}]")
        else:
            lines.append(f"{f.name} = {json.dumps(str(value), ensure_ascii=False)}")
    return "\n".join(lines)
