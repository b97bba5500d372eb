"""nekoni-edge doctor: a table, --json, a non-zero exit on any failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from nekoni_edge.config import load_settings
from nekoni_edge.doctor import check_clock, check_data_dir, run_checks


def doctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nekoni_edge", "doctor", *args],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})


def test_healthy_box_passes(tmp_path: Path) -> None:
    result = doctor("--data-dir", str(tmp_path), "--json", env={"NEKONI_GPIO": "off",
                                                                 "NEKONI_MDNS": "false"})
    assert result.returncode == 0, result.stdout
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    for name in ("python", "sqlite + sqlite-vec", "LLM (GGUF)", "embedder (ONNX)",
                 "tokenizer", "memory", "disk", "gpio", "mdns", "clock", "data dir"):
        assert name in checks, name
    assert checks["sqlite + sqlite-vec"]["detail"].count("vec v") == 1
    assert "sha256 8199be6f" in checks["embedder (ONNX)"]["detail"]
    assert all(c["status"] in ("ok", "warn") for c in checks.values())


def test_missing_model_fails_with_the_fix(tmp_path: Path) -> None:
    result = doctor("--data-dir", str(tmp_path),
                    env={"NEKONI_MODEL_PATH": str(tmp_path / "gone.gguf"), "NEKONI_GPIO": "off"})
    assert result.returncode == 1
    line = next(x for x in result.stdout.splitlines() if "LLM (GGUF)" in x)
    assert line.startswith("FAIL")
    assert "model_path" in line


def test_truncated_model_fails(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf at all")
    settings = load_settings(env={}, data_dir=tmp_path, model_path=bad, gpio="off")
    [llm] = [c for c in run_checks(settings) if c.name == "LLM (GGUF)"]
    assert llm.status == "fail"
    assert "not a GGUF" in llm.detail


def test_clock_and_permissions(tmp_path: Path) -> None:
    assert check_clock(lambda: 0.0).status == "fail"  # 1970: signed messages would fail
    settings = load_settings(env={}, data_dir=tmp_path)
    settings.key_path.write_text("key")
    settings.key_path.chmod(0o644)
    assert check_data_dir(settings).status == "fail"
    settings.key_path.chmod(0o600)
    assert check_data_dir(settings).status == "ok"
