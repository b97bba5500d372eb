"""Raw llama-cpp-python vs the whole phone path (client → WebRTC → daemon → model → back);
and an OpenAI-compatible engine (llama-cpp-python's server) called directly vs through the box.

Same GGUF, prompt, threads, temperature 0 and token budget, measured in one run; prints a
table of medians and the ratio. Run: ``.venv/bin/python -m benchmarks.bench_chat``.
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


async def client_runs(url: str, key_pem: bytes, runs: int) -> dict[str, Any]:
    """The phone's side, run in its own process (a phone is another device, with its own GIL)."""
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(key_pem, password=None)
    assert isinstance(key, Ed25519PrivateKey)
    started = time.perf_counter()
    async with PhoneClient(key, url) as phone:
        connect_s = time.perf_counter() - started
        results, tails = [], []
        for i in range(runs):
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
            # token); what the box does after it (log, state) is in "after last" below.
            results.append((first, chars, last, messages))
            tails.append(time.perf_counter() - started - last)
    return {"connect_s": connect_s, "results": results, "tail_s": statistics.median(tails)}


async def phone_runs(provider: Any, threads: int, max_tokens: int, runs: int,
                     **overrides: Any) -> tuple[float, list[Run], float]:
    """Daemon here, phone client in a subprocess, over WebRTC on loopback."""
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
        try:
            assert box.db is not None
            key = Ed25519PrivateKey.generate()
            await box.db.approve_device(public_key_b64(key))
            pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "benchmarks.bench_chat", "--client",
                f"http://127.0.0.1:{box.port}", "--runs", str(runs),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            )
            out, _ = await proc.communicate(pem)
            if proc.returncode != 0:
                raise SystemExit(f"client process failed ({proc.returncode})")
            data = json.loads(out)
        finally:
            await box.stop()
    return (data["connect_s"], [(r[0], r[1], r[2], r[3]) for r in data["results"]],
            data["tail_s"])


def start_engine(path: Path, threads: int) -> tuple[subprocess.Popen[bytes], str]:
    """llama-cpp-python's OpenAI-compatible server on loopback with the same GGUF."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    engine = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias",
         "bench", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
         "--n_threads", str(threads), "--seed", "1", "--verbose", "false"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"{url}/v1/models", timeout=1):  # noqa: S310 - loopback
                return engine, url
        except OSError:
            time.sleep(0.2)
    engine.kill()
    raise SystemExit("llama_cpp.server did not start")


async def engine_direct(url: str, max_tokens: int, runs: int) -> list[Run]:
    """The engine called straight over HTTP (what the box's provider does, minus the box)."""
    provider = OpenAIProvider(url, "bench", temperature=0.0)
    turns = [ChatTurn("system", DEFAULT_SYSTEM_PROMPT), ChatTurn("user", QUESTION)]
    results = []
    try:
        for _ in range(runs + 1):  # the first warms the engine up
            started = time.perf_counter()
            first, tokens, chars = 0.0, 0, 0
            async for piece in provider.stream_chat(turns, max_tokens=max_tokens):
                if not tokens:
                    first = time.perf_counter() - started
                tokens += 1
                chars += len(piece)
            results.append((first, chars, time.perf_counter() - started, tokens))
    finally:
        await provider.aclose()
    return results[1:]


def summarize(results: list[Run]) -> tuple[float, float, int]:
    """Median first piece (s), characters per second, and messages (or tokens) per answer:
    the phone path may send several tokens in one message, so speed is counted in text."""
    ttft = statistics.median(r[0] for r in results)
    rate = statistics.median(r[1] / r[2] for r in results)
    pieces = int(statistics.median(r[3] for r in results))
    return ttft, rate, pieces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="answers per path and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-engine", action="store_true",
                        help="skip the OpenAI-compatible engine rows (llama_cpp.server)")
    parser.add_argument("--client", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        from nekoni_edge.transport.ice import pin_host_addresses

        pin_host_addresses(["127.0.0.1"])
        print(json.dumps(asyncio.run(client_runs(args.client, sys.stdin.buffer.read(),
                                                 args.runs))))
        return

    from concurrent.futures import ThreadPoolExecutor

    from llama_cpp import Llama

    path = default_gguf()
    # Raw runs in the very thread the box's provider generates in: llama.cpp's OpenMP team
    # belongs to the thread that calls it, and a second team (raw in the main thread, the box in
    # its worker) halved the box's speed in this benchmark (docs/TRAPS.md).
    worker: ThreadPoolExecutor | None = ThreadPoolExecutor(max_workers=1,
                                                           thread_name_prefix="llama")
    llm = worker.submit(Llama, model_path=str(path), n_threads=args.threads, n_ctx=2048,
                        seed=1, verbose=False).result()
    worker.submit(raw_run, llm, 8).result()  # warm up
    # Rounds alternate raw and phone: this machine's speed drifts within minutes, and a ratio
    # of runs made minutes apart measured the drift (0.79x to 1.05x in one session).
    raw: list[Run] = []
    phone: list[Run] = []
    for _ in range(args.rounds):
        if worker is None:  # the box's stop ends its provider's worker: one per round
            worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")
        provider = LlamaProvider(llm, path, temperature=0.0, owns_model=False, executor=worker)
        raw += [worker.submit(raw_run, llm, args.max_tokens).result() for _ in range(args.runs)]
        connect_s, runs, tail_s = asyncio.run(phone_runs(provider, args.threads,
                                                         args.max_tokens, args.runs))
        phone += runs
        worker = None
    llm.close()
    engine_rows = None
    if not args.no_engine:
        engine, url = start_engine(path, args.threads)
        try:
            direct = asyncio.run(engine_direct(url, args.max_tokens, args.runs))
            _, through, _ = asyncio.run(phone_runs(None, args.threads, args.max_tokens, args.runs,
                                                model_url=url, model_name="bench",
                                                model_fallback="none"))
        finally:
            engine.kill()
            engine.wait()
        engine_rows = (summarize(direct), summarize(through))

    r_ttft, r_rate, r_tok = summarize(raw)
    p_ttft, p_rate, p_tok = summarize(phone)
    print(f"model {path.name}, threads {args.threads}, max_tokens {args.max_tokens}, "
          f"{args.rounds} rounds of {args.runs} runs each, alternating (medians)")
    print(f"{'path':<28}{'TTFT ms':>10}{'chars/s':>10}{'pieces':>8}   (pieces: tokens raw, "
          "messages on the phone path)")
    print(f"{'raw llama-cpp-python':<28}{r_ttft * 1000:>10.1f}{r_rate:>10.1f}{r_tok:>8}")
    print(f"{'phone over WebRTC (2 procs)':<28}{p_ttft * 1000:>10.1f}{p_rate:>10.1f}{p_tok:>8}")
    print(f"{'ratio phone/raw':<28}{p_ttft / r_ttft:>10.2f}{p_rate / r_rate:>10.2f}")
    if engine_rows is not None:
        (d_ttft, d_rate, d_tok), (t_ttft, t_rate, t_tok) = engine_rows
        print(f"{'engine called directly':<28}{d_ttft * 1000:>10.1f}{d_rate:>10.1f}{d_tok:>8}")
        print(f"{'phone → box → engine':<28}{t_ttft * 1000:>10.1f}{t_rate:>10.1f}{t_tok:>8}")
        print(f"{'ratio via box/direct':<28}{t_ttft / d_ttft:>10.2f}{t_rate / d_rate:>10.2f}")
    print(f"connect (join → offer → answer → handshake ready): {connect_s * 1000:.0f} ms; "
          f"after the last piece until message_end (log, model state): {tail_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
