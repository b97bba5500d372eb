"""Discovery across two network namespaces joined by a veth pair, made by this test.

The box (daemon subprocess) lives in one namespace, the phone (CLI subprocesses) in the other:
the phone finds the box by mDNS, reads its TXT, pairs by a (simulated) button press, chats; then
the box's address changes and the phone finds the new one; then a box with another key under
the same name is refused.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root"),
    pytest.mark.skipif(shutil.which("ip") is None, reason="needs iproute2's ip"),
]


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


class Net:
    """Two namespaces, box and phone, on a veth pair in 10.231.N.0/24."""

    def __init__(self) -> None:
        tag = secrets.token_hex(3)
        self.box, self.phone = f"nekbox-{tag}", f"nekphone-{tag}"
        self.subnet = f"10.231.{secrets.randbelow(200) + 20}"
        self.box_ip = f"{self.subnet}.1"

    def up(self) -> None:
        sh("ip", "netns", "add", self.box)
        sh("ip", "netns", "add", self.phone)
        sh("ip", "link", "add", "vbox", "netns", self.box, "type", "veth",
           "peer", "name", "vphone", "netns", self.phone)
        for ns, dev, ip in ((self.box, "vbox", self.box_ip),
                            (self.phone, "vphone", f"{self.subnet}.2")):
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up", "multicast", "on")
            sh("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", dev)

    def move_box(self, new_ip: str) -> None:
        """As a DHCP renew that hands out another address: the old one goes, a new one comes."""
        sh("ip", "-n", self.box, "addr", "del", f"{self.box_ip}/24", "dev", "vbox")
        sh("ip", "-n", self.box, "addr", "add", f"{new_ip}/24", "dev", "vbox")
        sh("ip", "-n", self.box, "route", "replace", "224.0.0.0/4", "dev", "vbox")
        self.box_ip = new_ip

    def down(self) -> None:
        for ns in (self.box, self.phone):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


@pytest.fixture
def net() -> Iterator[Net]:
    n = Net()
    try:
        n.up()
    except subprocess.CalledProcessError as exc:
        n.down()
        pytest.skip(f"cannot create network namespaces here: {exc.stderr!r}")
    yield n
    n.down()


def cli(ns: str, *args: str, env: dict[str, str], timeout: float = 120,
        **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        ["ip", "netns", "exec", ns, sys.executable, "-m", "nekoni_edge", *args],
        capture_output=True, text=True, timeout=timeout, env=env, check=False, **kw,
    )


class Box:
    def __init__(self, net: Net, data_dir: Path, name: str) -> None:
        self.env = {**os.environ, "NEKONI_AGENT_NAME": name, "NEKONI_GPIO": "off",
                    "NEKONI_MAX_TOKENS": "32", "NEKONI_TEMPERATURE": "0"}
        self.data_dir = data_dir
        data_dir.mkdir(parents=True)
        self.log = data_dir.parent / f"{data_dir.name}.log"
        with self.log.open("w") as log:  # a file, so a chatty daemon never blocks on a pipe
            self.proc = subprocess.Popen(
                ["ip", "netns", "exec", net.box, sys.executable, "-m", "nekoni_edge", "serve",
                 "--data-dir", str(data_dir), "--host", "0.0.0.0", "--port", "8470"],
                stderr=log, text=True, env=self.env,
            )
        self.wait_log("mDNS: advertising")

    def wait_log(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no {text!r} in the daemon's log:\n{self.log.read_text()}")
            time.sleep(0.1)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def discover_until(net: Net, env: dict[str, str], want: str, tries: int = 10) -> str:
    out = ""
    for _ in range(tries):
        out = cli(net.phone, "discover", "--timeout", "2", env=env).stdout
        if want in out:
            return out
    raise AssertionError(f"{want!r} never discovered; last: {out!r}")


def test_find_pair_chat_then_follow_address_change(net: Net, tmp_path: Path) -> None:
    name = f"kitchen-{secrets.token_hex(2)}"
    phone_env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "phone")}
    box = Box(net, tmp_path / "box", name)
    try:
        found = discover_until(net, phone_env, name)
        line = next(x for x in found.splitlines() if x.startswith(name))
        # A box on a LAN address serves HTTPS and publishes its certificate's fingerprint.
        assert f"https://{net.box_ip}:8470" in line
        assert "agentPubKey=" in line
        fingerprint = line.split("tlsFingerprint=", 1)[1].split()[0]
        assert len(fingerprint) == 64

        pairing = subprocess.Popen(
            ["ip", "netns", "exec", net.phone, sys.executable, "-m", "nekoni_edge", "pair",
             "--name", name, "--device-name", "test phone"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=phone_env,
        )
        time.sleep(4)  # the phone browses, then asks
        pressed = cli(net.box, "press", "--data-dir", str(box.data_dir), env=box.env)
        assert pressed.stdout.strip() == "ok", pressed.stderr
        out, err = pairing.communicate(timeout=60)
        assert pairing.returncode == 0, err
        assert out.strip() == "approved"
        known = json.loads((tmp_path / "phone" / "nekoni-edge" / "known_boxes.json").read_text())
        assert name in known

        chat = cli(net.phone, "chat", "--name", name, "Say hello.", env=phone_env)
        assert chat.returncode == 0, chat.stderr
        assert chat.stdout.strip()

        # A wrong pin is refused before anything is sent.
        wrong = cli(net.phone, "chat", "--host", f"https://{net.box_ip}:8470",
                    "--tls-fingerprint", "00" * 32, "Hello?", env=phone_env)
        assert wrong.returncode == 1
        assert "fingerprint" in wrong.stderr.lower()
        # Plain HTTP is there for local tools on the box's loopback only.
        local = cli(net.box, "chat", "--host", "127.0.0.1", "--port", "8471", "Hi.",
                    env=phone_env)
        assert local.returncode == 0, local.stderr
        from_lan = cli(net.phone, "chat", "--host", net.box_ip, "--port", "8471", "Hi.",
                       env=phone_env)
        assert from_lan.returncode == 1

        new_ip = f"{net.subnet}.3"
        net.move_box(new_ip)
        box.wait_log("re-announcing")
        discover_until(net, phone_env, f"https://{new_ip}:8470", tries=15)
        chat = cli(net.phone, "chat", "--name", name, "Say hi.", env=phone_env)
        assert chat.returncode == 0, chat.stderr
    finally:
        box.stop()

    # Another box (another key) under the same name: the phone refuses it.
    impostor = Box(net, tmp_path / "impostor", name)
    try:
        discover_until(net, phone_env, name)
        chat = cli(net.phone, "chat", "--name", name, "Hello?", env=phone_env)
        assert chat.returncode == 1
        assert "key changed" in chat.stderr
    finally:
        impostor.stop()
