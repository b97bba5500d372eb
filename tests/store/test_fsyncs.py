"""What a chat turn waits for on the disk, counted with strace on a real SQLite file: no fsync
before the model is asked, at most two a turn, and the answer durable when the turn ends."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.turn_fsyncs import TRACED, fsyncs_per_turn

pytestmark = pytest.mark.skipif(shutil.which("strace") is None,
                                reason="strace is not installed (apt-get install strace)")


def traced_turns(tmp_path: Path, *extra: str) -> list[tuple[int, int]]:
    log = tmp_path / "strace.log"
    result = subprocess.run(
        ["strace", "-f", "-e", f"trace={TRACED}", "-o", str(log), sys.executable, "-m",
         "benchmarks.turn_fsyncs", str(tmp_path), "3", *extra],
        capture_output=True, text=True, timeout=300, check=False)
    if result.returncode != 0 and "ptrace" in result.stderr:
        pytest.skip(f"strace cannot trace here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr
    return fsyncs_per_turn(log.read_text())


def test_a_turn_waits_for_the_disk_once_and_never_before_the_model(tmp_path: Path) -> None:
    turns = traced_turns(tmp_path)
    assert len(turns) == 3
    for before, total in turns:
        assert before == 0  # the question and its traces do not wait for an fsync
        assert 1 <= total <= 2  # the answer does: durable before message_end


def test_the_count_sees_every_write_that_waits(tmp_path: Path) -> None:
    """The same turns with every write durable (as before): the count is not blind."""
    turns = traced_turns(tmp_path, "--all-durable")
    assert all(before >= 3 for before, _ in turns)
