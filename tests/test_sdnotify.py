"""sd_notify over a real datagram socket: READY, STATUS, WATCHDOG from the loop, STOPPING."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from nekoni_edge.daemon import Daemon
from nekoni_edge.sdnotify import Notifier


@pytest.fixture
def notify_socket(tmp_path: Path) -> Any:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.setblocking(False)
    yield sock, str(tmp_path / "notify")
    sock.close()


def drain(sock: socket.socket) -> list[str]:
    out = []
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except BlockingIOError:
            return out


def test_disabled_without_notify_socket() -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    assert not notifier.notify("READY=1")
    assert notifier.watchdog_s is None


def test_watchdog_for_another_pid_is_ignored(notify_socket: Any) -> None:
    _, path = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000",
                         "WATCHDOG_PID": str(os.getpid() + 1)})
    assert notifier.watchdog_s is None


@pytest.mark.slow
async def test_daemon_tells_systemd(notify_socket: Any, settings: Any,
                                    llama_provider: Any) -> None:
    sock, path = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000",
                         "WATCHDOG_PID": str(os.getpid())})
    assert notifier.watchdog_s == 0.2
    box = Daemon(dataclasses.replace(settings), provider=llama_provider)
    task = asyncio.create_task(box.serve_forever(notifier))
    loop = asyncio.get_running_loop()
    messages: list[str] = []
    async with asyncio.timeout(60):  # what arrives, as it arrives: no guess at the timing
        while sum(m == "WATCHDOG=1" for m in messages) < 3:
            messages.append((await loop.sock_recv(sock, 4096)).decode())
    assert messages[0] == "STATUS=starting"
    ready = next(m for m in messages if m.startswith("READY=1"))
    assert f"serving http on port {box.port}" in ready
    # (every 0.1 s, from the loop: three came)
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(task, 30)
    assert "STOPPING=1\nSTATUS=shutting down" in drain(sock)
