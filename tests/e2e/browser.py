"""Debian's Chromium, headless, driven by selenium + chromedriver from async tests."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-dev-shm-usage", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--no-first-run",
    "--window-size=420,900",
    # WebRTC on loopback: gather 127.0.0.1 candidates, and give them as addresses rather than
    # as .local names (aiortc cannot resolve those, and nothing answers mDNS here).
    "--allow-loopback-in-peer-connection",
    "--disable-features=WebRtcHideLocalIpsWithMdns",
)


def chromium_or_fail() -> None:
    """The web tests are not optional: say what to install when the browser is missing."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if shutil.which(p) is None]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: apt-get install chromium chromium-driver "
                    "(.ci/run does)")


class Browser:
    """One headless Chromium; every call runs in a thread so the daemon's loop keeps going."""

    def __init__(self, profile: Path, extra_flags: tuple[str, ...] = ()) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (*FLAGS, *extra_flags):
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium fetch a driver
        self.driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))

    @classmethod
    async def start(cls, profile: Path, extra_flags: tuple[str, ...] = ()) -> Browser:
        chromium_or_fail()
        return await asyncio.to_thread(cls, profile, extra_flags)

    async def call(self, fn: Any, *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def get(self, url: str) -> None:
        await self.call(self.driver.get, url)

    async def js(self, script: str, *args: Any) -> Any:
        return await self.call(self.driver.execute_script, script, *args)

    async def wait_js(self, script: str, *args: Any, timeout: float = 90.0) -> Any:  # noqa: ASYNC109
        """Poll ``script`` (a ``return …`` body) until it gives something truthy."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = await self.js(script, *args)
            if value:
                return value
            if loop.time() > deadline:
                status = await self.js("return document.getElementById('status')?.textContent")
                raise AssertionError(f"timed out waiting for {script!r}; status: {status!r}; "
                                     f"console: {await self.console()}")
            await asyncio.sleep(0.1)

    async def text(self, element_id: str) -> str:
        return str(await self.js(f"return document.getElementById({element_id!r}).textContent"))

    async def click(self, element_id: str) -> None:
        await self.js(f"document.getElementById({element_id!r}).click()")

    async def type_into(self, element_id: str, text: str) -> None:
        from selenium.webdriver.common.by import By

        element = await self.call(self.driver.find_element, By.ID, element_id)
        await self.call(element.send_keys, text)

    async def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        await self.call(self.driver.save_screenshot, str(path))
        return path

    async def console(self) -> list[str]:
        entries = await self.call(self.driver.get_log, "browser")
        return [str(e.get("message")) for e in entries]

    async def quit(self) -> None:
        await self.call(self.driver.quit)
