"""Raw llama-cpp-python vs the whole phone path (client → WebRTC → daemon → model → back);
and an OpenAI-compatible engine (llama-cpp-python's server) called directly vs through the box.

Same GGUF, prompt, threads, temperature 0 and token budget, measured in one run; each phone
answer is paired with a raw (or direct) answer run next to it, and the table gives medians and
the median of the per-pair ratios. Run: ``.venv/bin/python -m benchmarks.bench_chat``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.config import DEFAULT_SYSTEM_PROMPT, load_settings
from nekoni_edge.daemon import Daemon
from nekoni_edge.llm.llama import LlamaProvider
from nekoni_edge.llm.models import default_gguf
from nekoni_edge.llm.provider import ChatTurn
from nekoni_edge.llm.remote import OpenAIProvider
from nekoni_edge.protocol.canonical import public_key_b64

QUESTION = "Write a short paragraph about why cats like boxes."


Run = tuple[float, int, float, int]  # first piece s, characters, total s, messages (or tokens)


def raw_run(llm: Any, max_tokens: int) -> Run:
    """(time to first token, characters, total seconds, tokens) from llama-cpp-python."""
    messages = [{"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
                {"role": "user", "content": QUESTION}]
    started = time.perf_counter()
    first = 0.0
    tokens = 0
    chars = 0
    for chunk in llm.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                            temperature=0.0, stream=True):
        if piece := chunk["choices"][0]["delta"].get("content"):
            if not tokens:
                first = time.perf_counter() - started
            tokens += 1
            chars += len(piece)
    return first, chars, time.perf_counter() - started, tokens


async def client_runs(url: str) -> None:
    """The phone's side, in its own process (a phone is another device, with its own GIL).

    Reads its key (PEM, base64 on one line) from stdin, connects, prints ``connect_s``, then
    answers one question per ``go`` line on stdin with a JSON line of its timings.
    """
    import base64

    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    loop = asyncio.get_running_loop()
    key = load_pem_private_key(base64.b64decode(sys.stdin.readline()), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    started = time.perf_counter()
    async with PhoneClient(key, url) as phone:
        print(json.dumps({"connect_s": time.perf_counter() - started}), flush=True)
        i = 0
        while (await loop.run_in_executor(None, sys.stdin.readline)).strip() == "go":
            started = time.perf_counter()
            first, chars, messages, last = 0.0, 0, 0, 0.0
            phone.send({"type": "message", "content": QUESTION, "sessionId": f"b{i}"})
            while True:
                msg = await phone.recv()
                if msg["type"] == "chunk":
                    if not messages:
                        first = time.perf_counter() - started
                    messages += 1
                    chars += len(msg["content"])
                    last = time.perf_counter() - started
                elif msg["type"] in ("message_end", "message", "error"):
                    break
            # Speed up to the last text the phone shows (as raw: up to llama.cpp's last
            # token); what the box does after it (log, state) is the "tail".
            print(json.dumps({"run": [first, chars, last, messages],
                              "tail_s": time.perf_counter() - started - last}), flush=True)
            i += 1


Baseline = Callable[[], Awaitable[Run]]


@dataclass
class Paired:
    connect_s: float
    pairs: list[tuple[Run, Run]]  # (baseline, phone)
    tail_s: float  # median: last piece → message_end
    loop_cpu_s: float  # median CPU of the box's event loop thread per phone answer


async def paired_runs(provider: Any, baseline: Baseline, runs: int, threads: int,
                      max_tokens: int, **overrides: Any) -> Paired:
    """Daemon here, phone client in a subprocess over WebRTC on loopback. Each phone answer is
    paired with a baseline answer run right before or after it (the order alternates): this
    machine's speed drifts by tens of percent within minutes, and runs made in blocks minutes
    apart measured the drift (0.79x to 1.05x in one session)."""
    import base64

    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(env={}, data_dir=Path(tmp), host="127.0.0.1", port=0,
                                 ice_addresses=("127.0.0.1",), max_tokens=max_tokens,
                                 temperature=0.0, n_threads=threads, mdns=False, gpio="off",
                                 rag=False, tools=False,  # the same single LLM call as raw
                                 **overrides)
        box = Daemon(settings, provider=provider)
        await box.start()
        proc = None
        try:
            assert box.db is not None
            key = Ed25519PrivateKey.generate()
            await box.db.approve_device(public_key_b64(key))
            pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "benchmarks.bench_chat", "--client",
                f"http://127.0.0.1:{box.port}",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            )
            stdin, stdout = proc.stdin, proc.stdout
            assert stdin is not None
            assert stdout is not None
            stdin.write(base64.b64encode(pem) + b"\n")
            line = await stdout.readline()
            if not line:
                raise SystemExit(f"client process failed ({await proc.wait()})")
            connect_s = float(json.loads(line)["connect_s"])

            loop_cpu: list[float] = []

            async def phone() -> tuple[Run, float]:
                stdin.write(b"go\n")
                cpu = time.thread_time()  # this thread runs the box's event loop
                line = await stdout.readline()
                loop_cpu.append(time.thread_time() - cpu)
                if not line:
                    raise SystemExit(f"client process failed ({await proc.wait()})")
                data = json.loads(line)
                first, chars, last, messages = data["run"]
                return (first, chars, last, messages), float(data["tail_s"])

            pairs, tails = [], []
            for i in range(runs):
                if i % 2:
                    (run, tail), base = await phone(), await baseline()
                else:
                    base, (run, tail) = await baseline(), await phone()
                pairs.append((base, run))
                tails.append(tail)
            stdin.close()
            await proc.wait()
        finally:
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()
            await box.stop()
    return Paired(connect_s, pairs, statistics.median(tails), statistics.median(loop_cpu))


def start_engine(path: Path, threads: int) -> tuple[subprocess.Popen[bytes], str]:
    """llama-cpp-python's OpenAI-compatible server on loopback with the same GGUF."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    engine = subprocess.Popen(  # our own interpreter and arguments
        [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias",
         "bench", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
         "--n_threads", str(threads), "--seed", "1", "--verbose", "false"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"{url}/v1/models", timeout=1):  # loopback
                return engine, url
        except OSError:
            time.sleep(0.2)
    engine.kill()
    raise SystemExit("llama_cpp.server did not start")


def engine_run(provider: OpenAIProvider, max_tokens: int) -> Baseline:
    """One answer from the engine called straight over HTTP (the box's provider minus the box)."""
    turns = [ChatTurn("system", DEFAULT_SYSTEM_PROMPT), ChatTurn("user", QUESTION)]

    async def run() -> Run:
        started = time.perf_counter()
        first, tokens, chars = 0.0, 0, 0
        async for piece in provider.stream_chat(turns, max_tokens=max_tokens):
            if not tokens:
                first = time.perf_counter() - started
            tokens += 1
            chars += len(piece)
        return first, chars, time.perf_counter() - started, tokens

    return run


def summarize(results: list[Run]) -> tuple[float, float, int]:
    """Median first piece (s), characters per second, and messages (or tokens) per answer:
    the phone path may send several tokens in one message, so speed is counted in text."""
    ttft = statistics.median(r[0] for r in results)
    rate = statistics.median(r[1] / r[2] for r in results)
    pieces = int(statistics.median(r[3] for r in results))
    return ttft, rate, pieces


def ratios(pairs: list[tuple[Run, Run]]) -> tuple[float, float, float, float]:
    """Median of the per-pair speed ratios (phone/baseline), its quartiles, and the median
    first-piece difference in seconds."""
    speed = sorted((p[1] / p[2]) / (b[1] / b[2]) for b, p in pairs)
    q1, _, q3 = statistics.quantiles(speed, n=4) if len(speed) > 1 else (speed[0],) * 3
    return statistics.median(speed), q1, q3, statistics.median(p[0] - b[0] for b, p in pairs)


def rows(name: str, base_name: str, pairs: list[tuple[Run, Run]]) -> None:
    b_ttft, b_rate, b_pieces = summarize([b for b, _ in pairs])
    p_ttft, p_rate, p_pieces = summarize([p for _, p in pairs])
    speed, q1, q3, extra = ratios(pairs)
    print(f"{base_name:<30}{b_ttft * 1000:>9.1f}{b_rate:>10.1f}{b_pieces:>8}")
    print(f"{name:<30}{p_ttft * 1000:>9.1f}{p_rate:>10.1f}{p_pieces:>8}")
    print(f"{'  per pair: ratio, +first ms':<30}{extra * 1000:>+9.1f}{speed:>10.3f}"
          f"   (quartiles {q1:.3f}-{q3:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15, help="pairs of answers per path")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-engine", action="store_true",
                        help="skip the OpenAI-compatible engine rows (llama_cpp.server)")
    parser.add_argument("--client", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        from nekoni_edge.transport.ice import pin_host_addresses

        pin_host_addresses(["127.0.0.1"])
        asyncio.run(client_runs(args.client))
        return

    from concurrent.futures import ThreadPoolExecutor

    from llama_cpp import Llama

    path = default_gguf()
    # Raw runs in the very thread the box's provider generates in: llama.cpp's OpenMP team
    # belongs to the thread that calls it, and a second team (raw in the main thread, the box in
    # its worker) halved the box's speed in this benchmark (docs/TRAPS.md).
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")
    llm = worker.submit(Llama, model_path=str(path), n_threads=args.threads, n_ctx=2048,
                        seed=1, verbose=False).result()
    worker.submit(raw_run, llm, 8).result()  # warm up
    provider = LlamaProvider(llm, path, temperature=0.0, owns_model=False, executor=worker)

    async def raw() -> Run:
        return await asyncio.get_running_loop().run_in_executor(worker, raw_run, llm,
                                                                args.max_tokens)

    own = asyncio.run(paired_runs(provider, raw, args.runs, args.threads, args.max_tokens))
    llm.close()
    engine_pairs = None
    if not args.no_engine:
        engine, url = start_engine(path, args.threads)

        async def through_engine() -> list[tuple[Run, Run]]:
            direct = OpenAIProvider(url, "bench", temperature=0.0)
            try:
                await engine_run(direct, args.max_tokens)()  # warms the engine up
                return (await paired_runs(None, engine_run(direct, args.max_tokens), args.runs,
                                          args.threads, args.max_tokens, model_url=url,
                                          model_name="bench", model_fallback="none")).pairs
            finally:
                await direct.aclose()

        try:
            engine_pairs = asyncio.run(through_engine())
        finally:
            engine.kill()
            engine.wait()

    print(f"model {path.name}, threads {args.threads}, max_tokens {args.max_tokens}, "
          f"{args.runs} pairs, each phone answer next to a baseline answer (medians)")
    print(f"{'path':<30}{'TTFT ms':>9}{'chars/s':>10}{'pieces':>8}   (pieces: tokens raw, "
          "messages on the phone path)")
    rows("phone over WebRTC (2 procs)", "raw llama-cpp-python", own.pairs)
    if engine_pairs is not None:
        rows("phone → box → engine", "engine called directly", engine_pairs)
    print(f"connect (join → offer → answer → handshake ready): {own.connect_s * 1000:.0f} ms; "
          f"after the last piece until message_end (log, model state): {own.tail_s * 1000:.0f} "
          f"ms; the box's event loop: {own.loop_cpu_s * 1000:.1f} ms CPU per answer")


if __name__ == "__main__":
    main()
