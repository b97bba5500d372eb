"""The composition root: start the parts in order, stop them in reverse."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any

from aiohttp import web

from nekoni_edge import __version__, qr, tls, webpage
from nekoni_edge.agent.builtins import register_builtins
from nekoni_edge.agent.chat import ChatService
from nekoni_edge.agent.tools import ToolRegistry
from nekoni_edge.app import Box, devices, local
from nekoni_edge.config import Settings
from nekoni_edge.discovery import Advertiser, current_addresses
from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.identity import load_or_create_key, setup_code
from nekoni_edge.llm.provider import ModelProvider
from nekoni_edge.llm.remote import FallbackProvider
from nekoni_edge.loading import load_embedder, load_knowledge, load_provider, start_engine
from nekoni_edge.memory import return_freed_memory
from nekoni_edge.pairing.service import LedOutput, LogLed, PairingService
from nekoni_edge.protocol.canonical import public_key_b64
from nekoni_edge.protocol.signaling import SETUP_PREFIX, SIGNAL_PATH
from nekoni_edge.rag.embed import TextEmbedder
from nekoni_edge.ratelimit import FailureLimiter
from nekoni_edge.sdnotify import Notifier
from nekoni_edge.skills.scheduler import Scheduler, run_skill, skill_session
from nekoni_edge.store.database import Database, now_ms
from nekoni_edge.store.skills import Skill
from nekoni_edge.tracer import Tracer
from nekoni_edge.transport.control import ControlServer
from nekoni_edge.transport.gate import ConnectionGate, GatedSite, Limits, descriptor_limit
from nekoni_edge.transport.http_api import HttpApi
from nekoni_edge.transport.ice import pin_host_addresses
from nekoni_edge.transport.peers import PeerManager
from nekoni_edge.transport.signaling_server import SignalingEndpoint

_LOGGER = logging.getLogger(__name__)

PROTOCOL_VERSION = "1"
STATUS_EVERY_S = 30.0
# A connection that has sent no (complete) request for this long is closed, the first one
# included: aiohttp's default is an hour, so silent sockets would hold the box's descriptors.
HTTP_IDLE_S = 15.0
# At a stop, what an HTTP request still running may take (the unit's TimeoutStopSec is 30 s;
# sockets and peers are closed before, so nothing long is left by then).
SHUTDOWN_WAIT_S = 2.0


def private_dir(path: Path) -> None:
    """The data dir, 0700 whoever started the box (the unit's StateDirectoryMode says the same;
    a box started by hand got the umask's 0755)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)


async def _start_site(site: GatedSite) -> int:
    await site.start()
    server: Any = site._server  # the only way to learn an ephemeral port
    return int(server.sockets[0].getsockname()[1])


class Daemon:
    """The running box: database, identity, model, signaling and peers, HTTP."""

    def __init__(self, settings: Settings, provider: ModelProvider | None = None) -> None:
        self.settings = settings
        self._given_provider = provider
        self.db: Database | None = None
        self.chat: ChatService | None = None
        self.peers: PeerManager | None = None
        self.box: Box | None = None  # what every door's handlers use
        self.signaling: SignalingEndpoint | None = None
        self._runner: web.AppRunner | None = None
        self.pairing: PairingService | None = None
        self.advertiser: Advertiser | None = None
        self._control: ControlServer | None = None
        self._hardware: list[Any] = []
        self._embedder: TextEmbedder | None = None
        self.scheduler: Scheduler | None = None
        self.port = 0
        self.loopback_port: int | None = None
        self.app_port: int | None = None
        self._app_runner: web.AppRunner | None = None
        self.http: HttpApi | None = None  # the HTTP door (signaling, /api, the page's code)
        self.certificate: tls.Certificate | None = None
        self.engine: FallbackProvider | None = None  # with model_url: the engine and fallback
        self.pub_key = ""
        self.room_id = ""
        self.agent_id = ""
        self.setup_code = ""
        # Connections before trust, bounded below this process's descriptor limit.
        self.gate = ConnectionGate(Limits.for_descriptors(descriptor_limit()))
        self._stopped = asyncio.Event()

    async def start(self) -> None:
        """Start every part; the box serves when this returns."""
        s = self.settings
        started = time.monotonic()
        private_dir(s.data_dir)
        key = load_or_create_key(s.key_path)
        self.pub_key = public_key_b64(key)
        self.setup_code = setup_code(key)
        digest = hashlib.sha256(self.pub_key.encode("ascii")).hexdigest()
        self.room_id = f"room-{digest[:16]}"
        self.agent_id = f"agent-{digest[:8]}"
        self.db = await Database.open(s.db_path)
        try:
            # An ingest the box was stopped in (or lost power during) left an unpublished
            # document: no query ever saw it; it goes, and the owner adds the file again.
            await self.db.discard_unfinished()
            provider = await self._start_agent(self._scheduled)
            assert self.chat is not None  # set by _start_agent
            pin_host_addresses(s.ice_addresses)
            limiter = FailureLimiter()
            # The one Box every door's handlers use, built here with everything it needs.
            box = Box(self.db, self.chat, disconnect=self._disconnect,
                      pair_code=self.pair_code)
            self.box = box
            self.peers = PeerManager(key, box, limiter=limiter,
                                     max_upload_bytes=s.rag_max_file_bytes,
                                     vanish_after_s=s.vanish_after_s)
            self.pairing = PairingService(
                self.db, led=self._make_led(), limiter=limiter,
                on_window_changed=self._on_window_changed, on_revoke=self._revoke,
                on_paired=self.peers.device_added, setup_code=self.setup_code,
            )
            self.signaling = SignalingEndpoint(
                key, self.agent_id, self.room_id, self.db, self.peers,
                is_waiting=self.pairing.asking, on_trusted=self.gate.trust,
            )
            self.http = self._http_api()
            app = self.http.app()
            webpage.add_routes(app)
            self._runner = web.AppRunner(app, access_log=None, keepalive_timeout=HTTP_IDLE_S,
                                         shutdown_timeout=SHUTDOWN_WAIT_S)
            await self._runner.setup()
            await self._listen()
            self.pairing.start()
            self._start_button()

            async def requests(obj: dict[str, Any]) -> list[dict[str, Any]]:
                return await local.request(box, obj)

            async def conversation(messages: AsyncIterator[dict[str, Any]],
                                   reply: Callable[[dict[str, Any]], None]) -> None:
                await local.conversation(box, messages, reply)

            self._control = ControlServer(s.control_path, {
                "press": self.pairing.press, "long_press": self.pairing.long_press,
            }, requests, conversation)
            await self._control.start()
            if s.mdns:
                self.advertiser = Advertiser(
                    s.agent_name, self.port, self._txt(), interfaces=s.mdns_interfaces
                )
                await self.advertiser.start()
        except BaseException:
            await self.stop()
            raise
        await asyncio.to_thread(return_freed_memory)  # what loading needed and let go of
        _LOGGER.info(
            "nekoni-edge %s serving on %s://%s:%d (pubKey %s, model %s) in %.2f s",
            __version__, "https" if self.certificate else "http", s.host, self.port, self.pub_key,
            provider.name if provider else "none", time.monotonic() - started,
        )

    async def _revoke(self, pub_key: str, why: str) -> devices.Revoked:
        assert self.box is not None  # pairing starts after the box is built
        return await devices.revoke(self.box, pub_key, why)

    async def _disconnect(self, pub_key: str) -> int:
        return await self.peers.disconnect(pub_key) if self.peers is not None else 0

    def _http_api(self) -> HttpApi:
        """The HTTP door phones use, over the signaling endpoint and pairing built before."""
        assert self.signaling is not None
        assert self.pairing is not None
        box = self.box
        assert box is not None

        async def pair_code(app: str, address: str) -> dict[str, Any]:
            # The same handler as every other door's ``pair_code``; only the drawing is HTTP's.
            [reply] = await local.request(box, {"type": "pair_code", "app": app,
                                                "address": address})
            return reply

        return HttpApi(
            signal=self.signaling.handle, pair=self.pairing.handle_pair,
            pair_status=self.pairing.handle_status,
            info=lambda host, secure: self.info(host, secure=secure), pair_code=pair_code,
            lan_address=self.lan_address, port=lambda: self.port)

    async def _listen(self) -> None:
        """The LAN listener (HTTPS unless told otherwise), and plain HTTP on loopback beside it."""
        s = self.settings
        assert self._runner is not None
        limits = self.gate.limits
        _LOGGER.info("connections: at most %d from one address, %d from strangers, %d in all "
                     "(descriptor limit %d)", limits.per_address, limits.strangers,
                     limits.total, descriptor_limit())
        context = None
        if s.use_tls:
            self.certificate = await asyncio.to_thread(
                tls.load_or_create, s.tls_cert_path, s.tls_key_path, s.agent_name
            )
            context = self.certificate.server_context()
        self.port = await _start_site(GatedSite(self._runner, s.host, s.port, self.gate,
                                                ssl_context=context))
        if context is not None and not s.host_is_loopback:
            self.loopback_port = await _start_site(
                GatedSite(self._runner, "127.0.0.1", s.loopback_port, self.gate)
            )
            _LOGGER.info("plain HTTP for local tools on 127.0.0.1:%d", self.loopback_port)
        if context is not None and s.app_port >= 0:
            # nekoni's mobile app cannot trust the certificate; the channel it opens is bound
            # by the signed SDP all the same (SECURITY.md: the plain app port).
            assert self.http is not None
            self._app_runner = web.AppRunner(self.http.app(), access_log=None,
                                             keepalive_timeout=HTTP_IDLE_S,
                                             shutdown_timeout=SHUTDOWN_WAIT_S)
            await self._app_runner.setup()
            self.app_port = await _start_site(GatedSite(self._app_runner, s.host, s.app_port,
                                                        self.gate))
            _LOGGER.info("plain HTTP/WS for nekoni's mobile app on %s:%d (API and signaling "
                         "only)", s.host, self.app_port)

    def _make_led(self) -> LedOutput:
        if self.settings.gpio == "off":
            return LogLed()
        from nekoni_edge.pairing.hardware import gpio_led

        return gpio_led(self.settings.led_pin, self._hardware)

    def _start_button(self) -> None:
        assert self.pairing is not None
        if self.settings.gpio != "off":
            from nekoni_edge.pairing.hardware import start_button

            start_button(self.settings, self.pairing, self._hardware)

    def _txt(self) -> dict[str, str]:
        # Not whether the pairing window is open: a stranger watching for it could ask in the
        # same instant as the owner (the LED tells the owner, who is at the box).
        secure = {"tlsFingerprint": self.certificate.fingerprint} if self.certificate else {}
        return {
            **secure,
            "agentPubKey": self.pub_key,
            "roomId": self.room_id,
            "agentName": self.settings.agent_name,
            "signalPath": SIGNAL_PATH,
            "v": PROTOCOL_VERSION,
        }

    async def _on_window_changed(self, is_open: bool) -> None:
        _LOGGER.info("pairing window %s", "open" if is_open else "closed")

    def info(self, host: str, *, secure: bool = False) -> dict[str, Any]:
        """What nekoni's pairing QR code carried, for a client that reached us at ``host``."""
        model = self.chat.provider if self.chat else None
        endpoint = qr.Endpoint(host, secure=secure)
        return {
            "agentPubKey": self.pub_key,
            "agentName": self.settings.agent_name,
            "roomId": self.room_id,
            "signalUrl": endpoint.signal_url,
            "agentUrl": endpoint.agent_url,
            "tlsFingerprint": self.certificate.fingerprint if self.certificate else None,
            "v": PROTOCOL_VERSION,
            "model": model.name if model else None,
            "modelError": self.chat.model_error if self.chat else None,
            # (edge) the engine on the LAN, if configured, and why it is not used now
            "engine": {"url": self.engine.remote.base, "model": self.engine.remote.model,
                       "error": self.engine.error} if self.engine else None,
            "knowledgeError": self.chat.knowledge_error if self.chat else None,
        }

    def lan_address(self) -> str:
        """The address a phone on the LAN reaches the box at (for the pairing code)."""
        s = self.settings
        if s.host not in ("0.0.0.0", "::", ""):  # noqa: S104 - comparing, not binding
            return s.host
        addresses = current_addresses(s.mdns_interfaces)
        return addresses[0] if addresses else "127.0.0.1"

    def pair_code(self, app: str, address: str | None = None, label: bool = False) -> str:
        """The text of the QR code nekoni's ``app`` ("web" or "mobile") scans to add the box;
        with ``label``, the label's code, whose URLs carry the setup code.

        The web app gets the port the box's page is on (HTTPS when TLS is on); the mobile app
        the plain app port when there is one, since it cannot trust a self-signed certificate.
        """
        if app not in qr.APPS:
            raise ValueError(f"app must be one of {', '.join(qr.APPS)}")
        host = address or self.lan_address()
        host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        prefix = f"{SETUP_PREFIX}/{self.setup_code}" if label else ""
        main = qr.Endpoint(f"{host}:{self.port}", secure=self.certificate is not None,
                           prefix=prefix)
        endpoint = main
        if app == "mobile" and self.app_port is not None:
            endpoint = qr.Endpoint(f"{host}:{self.app_port}", secure=False, prefix=prefix)
        return qr.pairing_text(
            agent_pub_key=self.pub_key, room_id=self.room_id,
            agent_name=self.settings.agent_name, endpoint=endpoint,
            https=main if app == "web" and main.secure else None,
        )

    async def stop(self) -> None:
        """Stop in reverse order; safe to call twice."""
        if self.advertiser is not None:
            await self.advertiser.stop()
            self.advertiser = None
        if self._control is not None:
            await self._control.stop()
            self._control = None
        for device in self._hardware:
            device.close()
        self._hardware.clear()
        if self.pairing is not None:
            await self.pairing.stop()
        if self.scheduler is not None:
            await self.scheduler.stop()
            self.scheduler = None
        # Apps first: open /signal sockets are told "going away" and peers closed, so no
        # message is answered after a stop is asked for, and the HTTP server has nothing left
        # to wait for (it waited for open sockets up to a minute: systemd would SIGKILL us).
        if self.peers is not None:
            await self.peers.interrupt_answers()
        if self.signaling is not None:
            await self.signaling.close()
            self.signaling = None
        if self.peers is not None:
            await self.peers.close_all()
            self.peers = None
        for runner in (self._app_runner, self._runner):
            if runner is not None:
                await runner.cleanup()
        self._app_runner = self._runner = None
        if self.chat is not None and self.chat.provider is not None:
            await self.chat.provider.aclose()
        self.chat = None
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None
        if self.db is not None:
            await self.db.close()
            self.db = None
        self._stopped.set()
        _LOGGER.info("nekoni-edge stopped")

    async def _start_agent(
        self, scheduled: Callable[[Skill], Awaitable[str]] | None, *, with_model: bool = True,
    ) -> ModelProvider | None:
        """Model, knowledge, tools, tracer, chat; and the cron scheduler if ``scheduled``."""
        s = self.settings
        assert self.db is not None
        provider, model_error = self._given_provider, None
        if not with_model:
            s = dataclasses.replace(s, model_url="")
            model_error = "this command does not load the model"
        wants_local = with_model and (not s.model_url or s.model_fallback == "local")
        if provider is None and wants_local:
            try:
                provider = await load_provider(s)
            except ModelUnavailable as exc:
                # The box still starts: it can pair and sync, and says why it cannot answer.
                model_error = str(exc)
                _LOGGER.error("model unavailable: %s", exc)  # noqa: TRY400 - said in full
        if s.model_url:
            self.engine = await start_engine(s, provider)
            provider, model_error = self.engine, None
        embedder, embedder_error = await load_embedder(s)
        self._embedder = embedder
        knowledge, knowledge_error = load_knowledge(s, self.db, embedder, embedder_error)
        tools = ToolRegistry()
        if s.tools and embedder is not None:
            register_builtins(tools, data_dir=s.data_dir)
        elif s.tools:
            _LOGGER.warning("tools are off: the router needs the embedder (%s)", embedder_error)
        self.chat = ChatService(
            self.db, provider,
            system_prompt=s.system_prompt, context_messages=s.context_messages,
            n_ctx=s.n_ctx, max_tokens=s.max_tokens, model_error=model_error,
            knowledge=knowledge, knowledge_error=knowledge_error, tools=tools,
            embed=embedder.embed if embedder is not None else None,
            tracer=Tracer(self.db, s.trace_ring_size),
        )
        if provider is not None and scheduled is not None:
            self.scheduler = Scheduler(self.db, scheduled, clock_ms=now_ms,
                                       tick_s=s.cron_tick_s)
            self.scheduler.start()
        return provider

    async def _scheduled(self, skill: Skill) -> str:
        """A cron job's run. nekoni's apps show a job's last run time and nothing of what it
        said, but they show any ``message`` in the chat: the result goes there, to the paired
        devices connected now that are past probation (a skill's output may hold a secret),
        and stays in the skill's session for ``sync`` and ``nekoni-edge skills``."""
        assert self.chat is not None
        async with aclosing(run_skill(self.chat, skill)) as stream:
            result = "".join([piece async for piece in stream])
        if self.peers is not None and self.db is not None and result.strip():
            now = now_ms()
            trusted = {d.pub_key for d in await self.db.list_devices()
                       if not d.on_probation(now)}
            told = self.peers.announce({
                "type": "message", "sessionId": skill_session(skill), "skillId": skill.id,
                "content": f"\u201c{skill.name}\u201d ran on schedule: {result.strip()}",
            }, to=trusted)
            _LOGGER.info("skill %s's scheduled result sent to %d channel(s)", skill.id, told)
        return result

    async def start_local(self, *, with_model: bool = True) -> Box:
        """Start only what a command at the box needs while no daemon serves: database,
        knowledge, agent (and the model, if ``with_model``); return the box its requests go
        through (the same handlers as a phone's; nobody is connected to disconnect)."""
        s = self.settings
        private_dir(s.data_dir)
        self.db = await Database.open(s.db_path)
        try:
            await self._start_agent(None, with_model=with_model)
        except BaseException:
            await self.stop()
            raise
        assert self.chat is not None  # set by _start_agent

        async def nobody(pub_key: str) -> int:
            return 0

        self.box = Box(self.db, self.chat, nobody)
        return self.box

    def status_line(self) -> str:
        """One line for systemd's STATUS= and the log."""
        model = self.chat.provider.name if self.chat and self.chat.provider else "no model"
        peers = len(self.peers.peers) if self.peers else 0
        scheme = "https" if self.certificate else "http"
        return f"serving {scheme} on port {self.port}; {model}; {peers} phone(s) connected"

    async def serve_forever(self, notifier: Notifier | None = None) -> None:
        """Run until SIGTERM or SIGINT, then stop cleanly; tell systemd each step."""
        notifier = notifier or Notifier()
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        notifier.status("starting")
        try:
            await self.start()
            notifier.ready(self.status_line())
            notifier.start_watchdog()
            while not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), STATUS_EVERY_S)
                except TimeoutError:
                    notifier.status(self.status_line())
            _LOGGER.info("signal received; shutting down")
        finally:
            notifier.stopping()
            await notifier.stop_watchdog()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)
            await self.stop()
