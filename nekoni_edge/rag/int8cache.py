"""The integer-kernel MiniLM (``int8graph``) built in a child process and kept on disk.

Rewriting the graph needs the ``onnx`` package and a few copies of the 23 MB model as protobuf
objects; done inside the daemon that left ~65 MiB resident for good (glibc could not give the
fragments back) on top of onnxruntime's own session, and the daemon is the process a 2 GiB
board must keep small. A child process does the rewrite once, writes the file atomically into
the box's cache folder and exits; the daemon only ever loads the finished file.

Run as ``python -m nekoni_edge.rag.int8cache SOURCE TARGET`` (what ``integer_model`` does).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nekoni_edge.errors import ModelUnavailable

_LOGGER = logging.getLogger(__name__)

# Part of the cached file's name: change it whenever ``int8graph`` writes a different graph.
REWRITE_VERSION = 1
BUILD_TIMEOUT_S = 300.0  # a Pi 3 takes a few seconds; only a wedged child takes this long


def cached_name(source: Path) -> str:
    """The file name a rewrite of ``source`` is kept under: a new package version (another size
    or time) or a new rewrite gets a new file, never a stale one."""
    stat = source.stat()
    return f"minilm-int8-v{REWRITE_VERSION}-{stat.st_size}-{stat.st_mtime_ns}.onnx"


def build(source: Path, target: Path) -> dict[str, int]:
    """Rewrite ``source`` onto integer kernels into ``target`` (atomically, synced). In the
    child process only: it imports ``onnx``."""
    import onnx  # only the child pays for it

    from nekoni_edge.rag.int8graph import fuse_attention, integer_graph

    rewritten = integer_graph(onnx.load(str(source)))
    if not rewritten.shared + rewritten.blockwise:
        raise ModelUnavailable("no int8 weights found in the graph")
    graph, blocks = fuse_attention(rewritten.model)
    data = graph.SerializeToString()
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with open(partial, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)  # a full disk must not stay full of our leftovers
        raise
    return {"shared": rewritten.shared, "blockwise": rewritten.blockwise,
            "tables": rewritten.tables, "attention_blocks": blocks}


def _build_in_child(source: Path, target: Path) -> dict[str, int]:
    try:
        done = subprocess.run(  # noqa: S603 - our own module, by the running interpreter
            [sys.executable, "-m", "nekoni_edge.rag.int8cache", str(source), str(target)],
            capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ModelUnavailable(f"the int8 rewrite could not run: {exc}") from exc
    if done.returncode != 0:
        for partial in target.parent.glob(f".{target.name}.*.partial"):  # a killed child's
            partial.unlink(missing_ok=True)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ModelUnavailable(f"the int8 rewrite failed: {last}")
    counts: dict[str, int] = json.loads(done.stdout)
    return counts


@contextmanager
def integer_model(source: Path, cache_dir: Path | None) -> Iterator[Path]:
    """The rewritten model's file: from ``cache_dir`` when it is there, else built by a child
    process (into ``cache_dir`` to keep, or into a temporary folder without one). Blocking."""
    if cache_dir is None:
        with tempfile.TemporaryDirectory(prefix="nekoni-int8-") as tmp:
            target = Path(tmp) / cached_name(source)
            _LOGGER.info("embedder: rewriting %s onto int8 kernels (no cache folder)",
                         source.name)
            _build_in_child(source, target)
            yield target
        return
    target = cache_dir / cached_name(source)
    if not target.is_file():
        cache_dir.mkdir(parents=True, exist_ok=True)
        _LOGGER.info("embedder: rewriting %s onto int8 kernels once, kept as %s",
                     source.name, target)
        counts = _build_in_child(source, target)
        _LOGGER.info("embedder: rewrite done (%s)",
                     ", ".join(f"{k} {v}" for k, v in counts.items()))
        for stale in cache_dir.glob("minilm-int8-*.onnx"):
            if stale != target:
                stale.unlink(missing_ok=True)
    yield target


def forget(source: Path, cache_dir: Path | None) -> None:
    """Drop a cached rewrite that would not load, so the next load builds it again."""
    if cache_dir is not None:
        (cache_dir / cached_name(source)).unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m nekoni_edge.rag.int8cache SOURCE TARGET", file=sys.stderr)
        return 2
    try:
        counts = build(Path(argv[0]), Path(argv[1]))
    except Exception as exc:  # the parent reads the last line of stderr
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
