"""The web client's files (``nekoni_edge/web/``), served at ``/`` with strict headers."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

WEB_DIR = Path(__file__).with_name("web")
FILES = frozenset({"index.html", "app.js", "nekoni.js", "style.css"})

# Scripts and sockets only from the box itself: the page talks to nobody else.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}


async def _serve(name: str) -> web.StreamResponse:
    if name not in FILES:
        raise web.HTTPNotFound(text=f"no file {name[:64]!r}")
    path = WEB_DIR / name
    return web.Response(
        body=path.read_bytes(), charset="utf-8", content_type=_TYPES[path.suffix],
        headers=_HEADERS,
    )


async def _index(request: web.Request) -> web.StreamResponse:
    return await _serve("index.html")


async def _asset(request: web.Request) -> web.StreamResponse:
    return await _serve(request.match_info["name"])


def add_routes(app: web.Application) -> None:
    """``GET /`` and ``GET /web/<file>``: a fixed list of small files, nothing else."""
    app.router.add_get("/", _index)
    app.router.add_get("/web/{name}", _asset)
