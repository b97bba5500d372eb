"""Power loss: the daemon (a subprocess) is SIGKILLed during chat turns, ingests and skill runs
at random points, 21 times; after each, the file is intact and nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nekoni_edge.client.phone import PhoneClient
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.store.connection import connect
from nekoni_edge.transport.ice import pin_host_addresses

pytestmark = pytest.mark.slow
CYCLES = 21


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Box:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.log = data_dir.parent / "box.log"
        env = {**os.environ, "NEKONI_ICE_ADDRESSES": "127.0.0.1", "NEKONI_MDNS": "false",
               "NEKONI_GPIO": "off", "NEKONI_MAX_TOKENS": "200", "NEKONI_TOOLS": "false"}
        with self.log.open("a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "nekoni_edge", "serve", "--data-dir", str(data_dir),
                 "--host", "127.0.0.1", "--port", str(self.port)], stderr=log, env=env)
        deadline = time.monotonic() + 60
        while f":{self.port} " not in self.log.read_text():
            assert self.proc.poll() is None, self.log.read_text()[-2000:]
            assert time.monotonic() < deadline
            time.sleep(0.05)

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(5)  # reaping a SIGKILLed child is immediate


def check_file(db: Path, acked_user: set[str], acked_docs: set[str],
               acked_skills: set[str]) -> list[str]:
    """Asserts the file is whole; returns the unpublished documents a cut ingest left."""
    conn = connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        users = {r[0] for r in conn.execute("SELECT content FROM messages WHERE role='user'")}
        assert acked_user <= users, acked_user - users
        docs = {r[0]: r[1] for r in conn.execute(
            "SELECT doc_id, chunks FROM documents WHERE complete = 1")}
        assert acked_docs <= set(docs)
        for doc_id, chunks in docs.items():  # every published document is whole
            n = conn.execute("SELECT COUNT(*) FROM chunks WHERE doc_id = ?", (doc_id,))
            assert n.fetchone()[0] == chunks
            indexed = conn.execute("SELECT COUNT(*) FROM vec_bits WHERE rowid IN "
                                   "(SELECT id FROM chunks WHERE doc_id = ?)", (doc_id,))
            assert indexed.fetchone()[0] == chunks
        # An ingest cut short leaves at most one unpublished document (the next start
        # removes it, asserted below), and nothing of it is indexed.
        unpublished = [r[0] for r in conn.execute(
            "SELECT doc_id FROM documents WHERE complete = 0")]
        assert len(unpublished) <= 1
        orphans = conn.execute(
            "SELECT COUNT(*) FROM vec_bits WHERE rowid NOT IN (SELECT c.id FROM chunks c "
            "JOIN documents d ON d.doc_id = c.doc_id WHERE d.complete = 1)")
        assert orphans.fetchone()[0] == 0
        strays = conn.execute("SELECT COUNT(*) FROM chunks WHERE doc_id NOT IN "
                              "(SELECT doc_id FROM documents)")
        assert strays.fetchone()[0] == 0
        skills = {r[0] for r in conn.execute("SELECT id FROM skills")}
        assert acked_skills <= skills
        return unpublished
    finally:
        conn.close()


def unpublished_docs(db: Path) -> list[str]:
    conn = connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT doc_id FROM documents WHERE complete = 0")]
    finally:
        conn.close()


async def chat_and_die(phone: PhoneClient, n: int, box: Box, rng: random.Random,
                       acked: set[str]) -> None:
    question = f"Tell me a long story about lighthouse number {n}."
    phone.send({"type": "message", "content": question, "sessionId": f"pl{n}"})
    msg = await phone.recv(wait=60)
    assert msg["type"] == "chunk"
    acked.add(question)  # a chunk means the turn (and so the question) was accepted
    await asyncio.sleep(rng.uniform(0, 0.5))
    box.kill()


async def ingest_and_die(phone: PhoneClient, n: int, box: Box, rng: random.Random,
                         acked: set[str]) -> None:
    text = " ".join(f"Cycle {n} sentence {i} about boxes, bins and boilers." for i in range(900))

    async def upload() -> None:
        reply = await phone.upload(f"doc{n}.txt", text.encode())
        acked.add(reply["docId"])

    task = asyncio.create_task(upload())
    await asyncio.sleep(rng.uniform(0, 2.5))
    box.kill()
    try:
        await asyncio.wait_for(task, 5)
    except (Exception, asyncio.CancelledError):  # the box died under it
        pass


async def skill_and_die(phone: PhoneClient, n: int, box: Box, rng: random.Random,
                        acked: set[str]) -> None:
    created = await phone.request({"type": "skill_create", "name": f"S{n}",
                                   "prompt": "Write a long poem about the sea."},
                                  "skill_response")
    acked.add(created["skill"]["id"])
    phone.send({"type": "skill_run", "id": created["skill"]["id"]})
    await asyncio.sleep(rng.uniform(0, 1.0))
    box.kill()


async def test_kill_9_at_random_points(tmp_path: Path) -> None:
    rng = random.Random(20261202)
    data_dir = tmp_path / "box"
    key = Ed25519PrivateKey.generate()
    # Blocking steps (subprocesses, waiting for the log, SQLite checks) run off the loop.
    await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "nekoni_edge", "devices", "--data-dir",
                         str(data_dir), "add", public_key_b64(key)],
        check=True, capture_output=True)
    pin_host_addresses(["127.0.0.1"])
    acked_user: set[str] = set()
    acked_docs: set[str] = set()
    acked_skills: set[str] = set()
    operations = [(chat_and_die, acked_user), (ingest_and_die, acked_docs),
                  (skill_and_die, acked_skills)]
    leftover: list[str] = []
    for n in range(CYCLES):
        box = await asyncio.to_thread(Box, data_dir)
        if leftover:  # the start removed what the cut ingest left
            assert await asyncio.to_thread(unpublished_docs, data_dir / "nekoni.db") == []
        phone = PhoneClient(key, f"http://127.0.0.1:{box.port}")
        try:
            await phone.connect()
            operation, acked = operations[n % 3]
            await operation(phone, n, box, rng, acked)
        finally:
            if box.proc.poll() is None:
                box.kill()
            await phone.close()
        leftover = await asyncio.to_thread(check_file, data_dir / "nekoni.db", acked_user,
                                           acked_docs, acked_skills)
    assert len(acked_user) == 7
    assert len(acked_skills) == 7
