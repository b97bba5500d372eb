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


def add_routes(app: web.Application) -> None:
    """``GET /`` and ``GET /web/<file>``: a fixed list of small files, read once, nothing else."""
    bodies = {name: (WEB_DIR / name).read_bytes() for name in FILES}  # ~25 KB in all

    def serve(name: str) -> web.Response:
        if name not in bodies:
            raise web.HTTPNotFound(text=f"no file {name[:64]!r}")
        return web.Response(body=bodies[name], charset="utf-8",
                            content_type=_TYPES[Path(name).suffix], headers=_HEADERS)

    async def index(request: web.Request) -> web.StreamResponse:
        return serve("index.html")

    async def asset(request: web.Request) -> web.StreamResponse:
        return serve(request.match_info["name"])

    app.router.add_get("/", index)
    app.router.add_get("/web/{name}", asset)
