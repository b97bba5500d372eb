"""Pairing around the window state machine: HTTP endpoints, the database, LED, mDNS, revocation."""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from aiohttp import web

from nekoni_edge.aio import cancel_and_wait
from nekoni_edge.errors import BadMessage
from nekoni_edge.pairing.window import (
    LED_WORDS,
    Action,
    Approve,
    ClearAll,
    Contest,
    Led,
    PairingWindow,
    Revoke,
    ShowLed,
    WindowChanged,
)
from nekoni_edge.protocol.canonical import is_valid_public_key, verify_message
from nekoni_edge.protocol.messages import decode
from nekoni_edge.protocol.signaling import TS_TOLERANCE_MS
from nekoni_edge.ratelimit import FailureLimiter
from nekoni_edge.store.database import Database, now_ms

_LOGGER = logging.getLogger(__name__)

TICK_S = 1.0
MAX_PAIR_BODY = 4096
MAX_DEVICE_NAME = 64

ASKS_PER_ADDRESS = 3  # new keys asking to pair from one address within ASKS_WINDOW_S
ASKS_WINDOW_S = 120.0
TOO_MANY_ASKS = "Too many devices asked to pair from this address just now. Wait two " \
                "minutes, then try again (or pair with the code on the box's label)."

# What a person reads for each status (nekoni's apps show ``detail``). A refusal is an HTTP
# error: nekoni's apps take any 2xx status for success.
DETAIL = {
    "already_approved": "This device is already paired with the box. You can connect now.",
    "approved": "Paired. You can connect now.",
    "pending_approval": "Now press the button on the box (within 2 minutes) to approve "
                        "this device.",
    "refused": "Another device asked to pair at the same time, so neither was paired. If "
               "both were yours, pair one at a time: press the button, then ask from one "
               "phone. If not, someone nearby is asking too: scan the code on the box's label "
               "(or run `nekoni-edge qr --label` on the box), then press the button.",
    "taken": "This press of the button already paired another phone a moment ago. To pair "
             "this one too, press the button again, then ask again. If you did not pair "
             "another phone just now, someone nearby did: it can only chat until you remove "
             "it (Devices) or confirm it at the box; the code on the box's label pairs your "
             "phone whatever else asks.",
    "not_paired": "This device is not paired with the box.",
}
STATUS_HTTP = {"refused": 409, "taken": 409}
RATE_LIMITED_DETAIL = "Too many failed attempts from this device or network. " \
                      "Try again in 5 minutes."


# What the wire says for a status: nekoni's apps know a paired key only as "already_approved"
# (they told the owner to "approve on the dashboard" after the box's "approved").
WIRE_STATUS = {"approved": "already_approved", "taken": "refused"}


def status_response(status: str) -> web.Response:
    """A pairing status as nekoni's apps read it: ``status``, and ``detail`` in words."""
    return web.json_response({"status": WIRE_STATUS.get(status, status),
                              "detail": DETAIL[status]}, status=STATUS_HTTP.get(status, 200))


def error_response(code: str, message: str, status: int) -> web.Response:
    """A refused request: the box's ``error``/``message`` and nekoni's ``detail``."""
    return web.json_response({"error": code, "message": message, "detail": message},
                             status=status)


class LedOutput(Protocol):
    """Something that can show an LED pattern (gpiozero, or a log line)."""

    def show(self, pattern: Led) -> None: ...


class LogLed:
    """The LED of a box without GPIO: a log line per change."""

    def __init__(self) -> None:
        self.pattern = Led.OFF

    def show(self, pattern: Led) -> None:
        self.pattern = pattern
        _LOGGER.info("LED %s", LED_WORDS[pattern])


class PairingService:
    """Turns presses and pair requests into approvals, LED patterns and TXT updates."""

    def __init__(
        self,
        db: Database,
        *,
        led: LedOutput,
        on_window_changed: Callable[[bool], Awaitable[None]],
        on_revoke: Callable[[str, str], Awaitable[object]],
        on_paired: Callable[[str, str], Awaitable[None]] | None = None,
        window: PairingWindow | None = None,
        limiter: FailureLimiter | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_ms: Callable[[], int] = now_ms,
        tick_s: float = TICK_S,
        setup_code: str | None = None,
    ) -> None:
        self._db = db
        # The code on the box's label (in its QR's URLs): a request that carries it comes from
        # someone who has the box in hand, and outranks every other request at a press.
        self._setup_code = setup_code
        self.led = led
        self._on_window_changed = on_window_changed
        self._on_revoke = on_revoke
        self._on_paired = on_paired
        # Valid pair requests for new keys, per address: a flood of fresh keys (each a valid
        # request) is slowed, not only bad ones. Never in all: one address's flood then kept
        # the owner's phone, asking from another, out.
        self.asks = FailureLimiter(max_failures=ASKS_PER_ADDRESS, window_s=ASKS_WINDOW_S,
                                   block_s=ASKS_WINDOW_S)
        self.window = window or PairingWindow()
        self.limiter = limiter or FailureLimiter()
        self._clock = clock
        self._wall_ms = wall_ms
        self._tick_s = tick_s
        self._lock = asyncio.Lock()
        self._ticker: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start closing expired windows."""
        self._ticker = asyncio.get_running_loop().create_task(self._tick_forever())

    async def stop(self) -> None:
        await cancel_and_wait(self._ticker)
        self._ticker = None

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(self._tick_s)
            async with self._lock:
                await self._apply(self.window.tick(self._clock()))

    async def press(self) -> None:
        """A short press of the button (real or simulated)."""
        _LOGGER.info("button pressed")
        async with self._lock:
            await self._apply(self.window.press(self._clock()))

    async def long_press(self) -> None:
        """A long press: every pairing is cleared."""
        _LOGGER.warning("button held: clearing every paired device")
        async with self._lock:
            await self._apply(self.window.long_press(self._clock()))

    async def _apply(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, Approve):
                # On probation for its window (see the window), unless the box was in hand.
                probation_ms = 0 if action.coded else int(self.window.window_s * 1000)
                await self._db.approve_device(action.pub_key, action.name,
                                              probation_ms=probation_ms)
                # Its joins while it waited were answered as waiting, not counted; whatever
                # else blocked it (a typo'd retry storm) the owner's press overrides.
                self.limiter.forgive(action.pub_key, action.address)
                if self._on_paired is not None:
                    await self._on_paired(action.pub_key, action.name)
                _LOGGER.info("paired device %s (%s)", action.pub_key[:12], action.name or "-")
            elif isinstance(action, Contest):
                await self._db.hold_probation(action.pub_key)
                _LOGGER.warning("device %s stays on probation until the household confirms "
                                "or removes it: another phone asked after the press that "
                                "paired it", action.pub_key[:12])
            elif isinstance(action, Revoke):
                await self._on_revoke(action.pub_key, "a second device asked to pair in its "
                                                      "pairing window")
            elif isinstance(action, ClearAll):
                for device in await self._db.list_devices():
                    await self._on_revoke(device.pub_key, "the button was held")
                _LOGGER.warning("all pairings cleared")
            elif isinstance(action, ShowLed):
                self.led.show(action.pattern)
            elif isinstance(action, WindowChanged):
                await self._on_window_changed(action.open)

    # HTTP

    def _refuse(self, request: web.Request, key: str | None, status: int, code: str,
                message: str) -> web.Response:
        self.limiter.failure(request.remote, key, now=self._clock())
        _LOGGER.info("pair request from %s refused: %s", request.remote, code)
        return error_response(code, message, status)

    def someone_asking(self) -> bool:
        """True while a phone is asking to pair right now (the LED blinks fast)."""
        return self.window.asking_now(self._clock())

    def coded(self, code: str | None) -> bool:
        """True if ``code`` (from the URL a phone was given) is the box's setup code."""
        return code is not None and self._setup_code is not None and \
            hmac.compare_digest(code.encode(), self._setup_code.encode())

    async def asking(self, pub_key: str, address: str | None, code: str | None = None) -> bool:
        """A signed join from a key that is not paired: the phone is still asking (what a
        press needs of it). True while its request waits, or once this made it paired."""
        async with self._lock:
            status = await self._ask(pub_key, "", address, again=True, coded=self.coded(code))
        return status in ("pending_approval", "approved")

    async def _ask(self, key: str, name: str, address: str | None, *, again: bool,
                   coded: bool = False) -> str:
        """The window's answer to a key asking (under the lock), its actions carried out."""
        status, actions = self.window.request(key, name, self._clock(), address, again=again,
                                              coded=coded)
        await self._apply(actions)
        return status

    def _wrong_code(self, request: web.Request) -> web.Response | None:
        """A refusal if the URL names a setup code that is not this box's (counted)."""
        code = request.match_info.get("code")
        if code is None or self.coded(code):
            return None
        return self._refuse(request, None, 403, "BAD_SETUP_CODE",
                            "The code in this link is not this box's. Scan the QR code on "
                            "the box's label again.")

    async def _told(self, key: str, status: str) -> str:
        """The status a phone is told: the window may remember approving a key revoked since,
        and a replayed request (still fresh) must not read as approved."""
        if status == "approved" and not await self._db.is_approved(key):
            return "refused"
        return status

    async def handle_pair(self, request: web.Request) -> web.Response:
        """POST /api/pair {mobilePubKey, ts, deviceName?, sig}."""
        now = self._clock()
        if self.limiter.is_blocked(request.remote, now=now):
            return error_response("RATE_LIMITED", RATE_LIMITED_DETAIL, 429)
        if (wrong := self._wrong_code(request)) is not None:
            return wrong
        coded = self.coded(request.match_info.get("code"))
        raw = await request.content.read(MAX_PAIR_BODY + 1)
        if len(raw) > MAX_PAIR_BODY:
            return self._refuse(request, None, 413, "TOO_LARGE", "request body too large")
        try:
            body = decode(raw, MAX_PAIR_BODY)
        except BadMessage as exc:
            if exc.code == "NOT_AN_OBJECT":
                return self._refuse(request, None, 400, "INVALID_REQUEST", "body must be an object")
            return self._refuse(request, None, 400, "INVALID_JSON", f"body is not JSON: {exc}")
        key = body.get("mobilePubKey")
        if not is_valid_public_key(key):
            return self._refuse(request, None, 400, "INVALID_REQUEST",
                                "mobilePubKey must be 32 bytes of base64url")
        assert isinstance(key, str)
        if self.limiter.is_blocked(key, now=now):
            return error_response("RATE_LIMITED", RATE_LIMITED_DETAIL, 429)
        # Until its signature verifies, a request only names a key: its failures count against
        # the address it came from, never against that key (a stranger would lock it out).
        if not verify_message(key, body):
            return self._refuse(request, None, 401, "INVALID_SIGNATURE",
                                "signature does not verify")
        name = body.get("deviceName", "")
        if not isinstance(name, str) or len(name) > MAX_DEVICE_NAME:
            return self._refuse(request, key, 400, "INVALID_REQUEST",
                                f"deviceName must be a string of at most {MAX_DEVICE_NAME}")
        ts = body.get("ts")
        if isinstance(ts, bool) or not isinstance(ts, int | float) or \
                abs(self._wall_ms() - ts) > TS_TOLERANCE_MS:
            return self._refuse(request, key, 400, "STALE_TIMESTAMP",
                                "ts is more than 5 minutes from the box's clock")
        if await self._db.is_approved(key):
            return status_response("already_approved")
        # While a press is active every request reaches the window: a limit must never keep
        # a second phone from counting as an overlap (nor the owner's from being approved);
        # nor does it hold a request with the setup code.
        if not self.window.is_open and not coded:
            if self.asks.is_blocked(request.remote, now=now):
                _LOGGER.warning("pair request from %s (key %s): too many new keys asking",
                                request.remote, key[:12])
                return error_response("RATE_LIMITED", TOO_MANY_ASKS, 429)
            self.asks.failure(request.remote, now=now)
        async with self._lock:
            status = await self._told(key, await self._ask(key, name, request.remote,
                                                           again=False, coded=coded))
        _LOGGER.info("pair request from %s (key %s%s): %s", request.remote, key[:12],
                     ", with the setup code" if coded else "", status)
        return status_response(status)

    async def handle_status(self, request: web.Request) -> web.Response:
        """GET /api/pair/status?mobilePubKey=…&ts=…&sig=… — asked by the key itself.

        The query is signed like a pair request ({mobilePubKey, ts} with the key's ``sig``) and
        fresh (±5 min): an unsigned answer told anyone which keys are paired.
        """
        if (wrong := self._wrong_code(request)) is not None:
            return wrong
        key = request.query.get("mobilePubKey", "")
        if not is_valid_public_key(key):
            return error_response("INVALID_REQUEST", "mobilePubKey must be a public key", 400)
        try:
            ts = int(request.query.get("ts", ""))
        except ValueError:
            ts = 0
        query = {"mobilePubKey": key, "ts": ts, "sig": request.query.get("sig", "")}
        if abs(self._wall_ms() - ts) > TS_TOLERANCE_MS or not verify_message(key, query):
            return self._refuse(request, None, 401, "INVALID_SIGNATURE",
                                "sign the query with the key it names: mobilePubKey, ts, sig")
        # Under the lock: a press between the database read and the window read would otherwise
        # answer "not_paired" for a request that is being approved at that moment.
        async with self._lock:
            if await self._db.is_approved(key):
                return status_response("approved")
            status = await self._ask(key, "", request.remote, again=True,
                                     coded=self.coded(request.match_info.get("code")))
            return status_response(await self._told(key, status))
