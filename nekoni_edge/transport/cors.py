"""CORS on ``/api/*``: nekoni's web app runs on another origin, and its ``POST /api/pair`` is
preflighted.

Every origin is allowed, as nekoni's agent does: the API trusts signatures, never the origin,
cookies or ambient credentials (it sets and reads none), and what it answers unsigned
(``/api/info``, the pairing code) is what the box tells the whole LAN by mDNS anyway. The
``/signal`` WebSocket needs no CORS; the box's own page (``/``) gets none.

Private Network Access (a public page asking a LAN address) is granted to every origin too, by
decision: nekoni's web app may be served from anywhere, so no list of origins would stay true,
and a page gets nothing a device on the LAN does not (its failures never block a paired key).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from nekoni_edge.protocol.signaling import SETUP_PREFIX

API_PREFIX = "/api/"
MAX_AGE_S = 600
_ALLOW = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": str(MAX_AGE_S),
}


def _headers(request: web.Request) -> dict[str, str]:
    headers = dict(_ALLOW)
    # Chrome's Private Network Access: a page on a public origin asking a LAN address.
    if request.headers.get("Access-Control-Request-Private-Network") == "true":
        headers["Access-Control-Allow-Private-Network"] = "true"
    return headers


@web.middleware
async def cors(request: web.Request,
               handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
               ) -> web.StreamResponse:
    """Answer preflights, and let every origin read ``/api/*`` replies (errors too)."""
    path = request.path
    if path.startswith(SETUP_PREFIX + "/"):  # the label's URLs: /p/<code>/api/…
        path = "/" + path.split("/", 3)[-1]
    if not path.startswith(API_PREFIX):
        return await handler(request)
    if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        return web.Response(status=204, headers=_headers(request))
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        exc.headers.update(_headers(request))
        raise
    response.headers.update(_headers(request))
    return response
