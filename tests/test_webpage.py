"""The web client's files: served from a fixed list, with strict headers."""

from __future__ import annotations

from typing import Any

import aiohttp

from nekoni_edge.webpage import FILES, WEB_DIR


def test_every_listed_file_ships() -> None:
    assert {p.name for p in WEB_DIR.iterdir() if p.is_file()} >= FILES


async def test_page_and_assets(daemon: Any) -> None:
    base = f"http://127.0.0.1:{daemon.port}"
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/") as resp:
            assert resp.status == 200
            assert resp.content_type == "text/html"
            assert "default-src 'self'" in resp.headers["Content-Security-Policy"]
            assert '<script type="module" src="/web/app.js">' in await resp.text()
        async with http.get(f"{base}/web/nekoni.js") as resp:
            assert resp.content_type == "text/javascript"
            assert "export class NekoniClient" in await resp.text()
        for path in ("/web/../config.py", "/web/%2e%2e%2fdaemon.py", "/web/missing.js"):
            async with http.get(f"{base}{path}") as resp:
                assert resp.status == 404, path
