"""A bounded coverage-guided run of the parsers (the harness can also run for hours)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
HARNESS = Path(__file__).with_name("atheris_messages.py")


# 200k instrumented runs take about 2 minutes on 2 cores (the linear nesting scan is Python,
# and atheris instruments it): a bounded run gets its own limit, not the suite's 120 s.
@pytest.mark.timeout(600)
def test_parsers_survive_a_coverage_guided_run(tmp_path: Path) -> None:
    pytest.importorskip("atheris", reason="atheris has no wheel for this platform")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, seed in enumerate(['{"type":"hello","pubKey":"x","nonce":"y"}',
                              '{"type":"rag_upload_chunk","uploadId":"u","index":0,'
                              '"content":"aGk="}', '{"content":"hi","sessionId":"s"}',
                              '{"type":"offer","sdp":"v=0","to":"a","ts":0,"sig":"x"}']):
        (corpus / f"seed{i}").write_text(seed)
    result = subprocess.run(
        [sys.executable, str(HARNESS), "-atheris_runs=200000", "-max_len=4096", str(corpus)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Done 200000 in" in result.stderr
