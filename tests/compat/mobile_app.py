"""nekoni's mobile app hooks, run for real: ``mobile/harness.jsx`` bundles the app's own
``useIdentity``, ``useWebRTC`` and ``useAgent`` from a checkout of ``nekonihq/nekoni`` (the
directory ``NEKONI_SRC`` names) with werift as its WebRTC, and prints what the chat screen
shows; :class:`MobileApp` drives one install of it and reads that back."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "mobile"
BUNDLE = HERE / "out" / "harness.mjs"
# The app's imports that are native on a phone, and what stands in for them in node.
SHIMS = {"react-native-webrtc": "webrtc.mjs", "react-native-toast-message": "toast.mjs",
         "expo-secure-store": "secure-store.mjs", "expo-crypto": "expo-crypto.mjs"}
EXTERNAL = ("werift", "ws", "react", "react-test-renderer")


def mobile_source() -> Path | None:
    """The app's ``src`` directory in the checkout ``NEKONI_SRC`` names, if there is one."""
    src = Path(os.environ.get("NEKONI_SRC", "")) / "apps" / "mobile" / "src"
    return src if os.environ.get("NEKONI_SRC") and (src / "hooks").is_dir() else None


def build(src: Path) -> Path:
    """Bundle the harness with the app's hooks; returns the bundle. Its packages (pinned in
    package.json) are installed before the tests' network namespace (make check-mobile)."""
    if not (HERE / "node_modules").is_dir():
        raise FileNotFoundError(f"run npm ci in {HERE} first (make check-mobile does)")
    args = [str(HERE / "node_modules" / ".bin" / "esbuild"), "harness.jsx", "--bundle",
            "--platform=node", "--format=esm", "--jsx=automatic", f"--outfile={BUNDLE}",
            f"--alias:mobile={src}",
            # an ES module bundle still meets the CommonJS require() of tweetnacl
            "--banner:js=import { createRequire } from 'module'; "
            "const require = createRequire(import.meta.url);"]
    args += [f"--alias:{name}=./shims/{shim}" for name, shim in SHIMS.items()]
    args += [f"--external:{name}" for name in EXTERNAL]
    # The app's files import react and tweetnacl from where they lie: look here instead.
    env = dict(os.environ, NODE_PATH=str(HERE / "node_modules"))
    subprocess.run(args, cwd=HERE, check=True, env=env)
    return BUNDLE


def node_available() -> bool:
    return shutil.which("node") is not None and shutil.which("npm") is not None


class MobileApp:
    """One install of the mobile app: its store (its key), the box it scanned."""

    def __init__(self, agent: dict[str, Any], store: Path, session: str | None = None) -> None:
        self.agent, self.store, self.session = agent, store, session
        self.events: list[dict[str, Any]] = []
        self.key = ""
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        env = dict(os.environ, AGENT=json.dumps(self.agent), MOBILE_STORE=str(self.store))
        if self.session:
            env["SESSION"] = self.session
        self._proc = await asyncio.create_subprocess_exec(
            "node", str(BUNDLE), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env=env, limit=2**24)
        self._reader = asyncio.create_task(self._read())
        await self.until(lambda: any("identity" in e for e in self.events), 60)
        self.key = next(e["identity"] for e in self.events if "identity" in e)

    async def _read(self) -> None:
        assert self._proc is not None
        assert self._proc.stdout is not None
        while line := await self._proc.stdout.readline():
            try:
                event = json.loads(line)
            except ValueError:
                continue  # the hooks' own console.log lines
            if isinstance(event, dict):
                self.events.append(event)

    def command(self, **cmd: Any) -> None:
        """``pair`` (as the pair screen after a scan), ``open`` (the chat screen), ``say``
        (the text box), ``raw`` (a message as the knowledge and skills views send)."""
        assert self._proc is not None
        assert self._proc.stdin is not None
        self._proc.stdin.write((json.dumps(cmd) + "\n").encode())

    def shown(self) -> dict[str, Any]:
        """The chat screen now: rtcState, authState, thinking, pending, messages."""
        screens = [e["shown"] for e in self.events if "shown" in e]
        return screens[-1] if screens else {}

    def agent_messages(self) -> list[str]:
        return [x["content"] for x in self.shown().get("messages", []) if x["role"] == "agent"]

    def toasts(self) -> list[dict[str, Any]]:
        return [e["toast"] for e in self.events if "toast" in e]

    def views(self, kind: str) -> list[dict[str, Any]]:
        """Messages for the knowledge and skills views, of one type."""
        return [e["view"] for e in self.events if e.get("view", {}).get("type") == kind]

    async def until(self, done: Callable[[], bool], wait: float) -> None:
        deadline = time.monotonic() + wait
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError(f"the app shows: {json.dumps(self.events[-4:])[:2000]}")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        if self._proc is None:
            return
        if self._proc.returncode is None:
            self.command(quit=True)
            try:
                await asyncio.wait_for(self._proc.wait(), 10)
            except TimeoutError:
                self._proc.kill()
                await self._proc.wait()
        if self._reader is not None:
            await self._reader
