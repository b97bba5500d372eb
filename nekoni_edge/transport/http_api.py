"""The box's HTTP door for phones: signaling, ``/api/info``, pairing and the page's QR code,
each also under the label's ``/p/<setup code>`` prefix (with CORS for nekoni's web app)."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from nekoni_edge import qr
from nekoni_edge.protocol.signaling import SETUP_PREFIX, SIGNAL_PATH
from nekoni_edge.transport.cors import cors

QR_CACHE = 16  # pairing codes kept drawn (two apps a listening address)
MAX_BODY = 64 * 1024

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def own_host(request: web.Request, port: int) -> str:
    """``address:port`` of the box's own socket the request arrived on: what a phone on that
    network reaches. Never the request's Host header, which the sender chooses."""
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    if not sockname:
        return f"127.0.0.1:{port}"
    address, local_port = str(sockname[0]), int(sockname[1])
    return f"[{address}]:{local_port}" if ":" in address else f"{address}:{local_port}"


class HttpApi:
    """What phones reach over HTTP; the answers come from the parts passed in."""

    def __init__(self, *, signal: Handler, pair: Handler, pair_status: Handler,
                 info: Callable[[str, bool], dict[str, Any]],
                 pair_code: Callable[[str, str], Awaitable[dict[str, Any]]],
                 lan_address: Callable[[], str], port: Callable[[], int]) -> None:
        self._signal, self._pair, self._pair_status = signal, pair, pair_status
        self._info_of = info
        self._pair_code = pair_code  # the one ``pair_code`` handler every door uses
        self._lan_address = lan_address
        self._port = port
        # Drawn once per code: unauthenticated, each drawing cost ~20 ms of Python, and a loop
        # of requests took the phone's first token from 0.11 s to 5.5 s. The codes are few (an
        # app and an address the box listens on), so the cache stays small.
        self.qr_drawn: dict[str, str] = {}

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[cors])
        # Each under the label's URLs too (``/p/<setup code>/…``), where a phone that scanned
        # the label keeps talking to the box; only pairing reads the code.
        for prefix in ("", SETUP_PREFIX + "/{code}"):
            app.router.add_get(prefix + SIGNAL_PATH, self._signal)
            app.router.add_get(prefix + "/api/info", self._info)
            app.router.add_post(prefix + "/api/pair", self._pair)
            app.router.add_get(prefix + "/api/pair/status", self._pair_status)
        app.router.add_get("/api/pair/qr", self._qr)
        return app

    async def _info(self, request: web.Request) -> web.Response:
        return web.json_response(self._info_of(own_host(request, self._port()),
                                               request.secure))

    async def _qr(self, request: web.Request) -> web.Response:
        """``GET /api/pair/qr?app=web|mobile``: the pairing code as SVG (the box's page)."""
        app = request.query.get("app", "web")
        if app not in qr.APPS:
            raise web.HTTPBadRequest(text=f"app must be one of {', '.join(qr.APPS)}")
        address = own_host(request, self._port()).rpartition(":")[0].strip("[]")
        if ipaddress.ip_address(address).is_loopback:
            address = self._lan_address()  # asked on the box itself: what a phone would use
        reply = await self._pair_code(app, address)
        if reply.get("type") != "pair_code_response":
            raise web.HTTPBadRequest(text=str(reply.get("message")))
        text = str(reply["text"])
        body = self.qr_drawn.get(text)
        if body is None:
            body = await asyncio.to_thread(qr.svg, text, inverted=app == "web")
            if len(self.qr_drawn) >= QR_CACHE:
                self.qr_drawn.pop(next(iter(self.qr_drawn)))
            self.qr_drawn[text] = body
        return web.Response(text=body, content_type="image/svg+xml",
                            headers={"Cache-Control": "no-store"})
