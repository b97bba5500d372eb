"""A model on another machine of the LAN that speaks the OpenAI chat-completions API
(llama.cpp's ``llama-server``, Ollama, llama-cpp-python's server), and the fallback to the box's
own GGUF when that engine is unreachable or fails.

The SSE stream is parsed here, sans surprises: every line is checked, a malformed or truncated
stream is an ``EngineError`` naming what was wrong, and closing the generator closes the HTTP
response, which is how these servers learn to stop generating. Tokens are estimated locally
(characters per token, corrected by the usage each reply reports), so counting a conversation
costs no round trip.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from typing import Any

import aiohttp

from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.provider import ChatTurn, ModelProvider, Usage

_LOGGER = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5.0
CHARS_PER_TOKEN = 3.6  # English prose in BPE vocabularies; corrected by each reply's usage
MAX_LINE_BYTES = 1 << 20  # one SSE line; anything longer is no chat completion


class EngineError(ModelUnavailable):
    """The engine failed: unreachable, an HTTP error, a malformed or truncated stream, silent."""


class EngineRefused(EngineError):
    """The engine refused the request itself (HTTP 400/422): another form may do."""


def api_base(url: str) -> str:
    """The ``/v1`` root of an engine given as ``http://host:port`` or ``…/v1``."""
    url = url.rstrip("/")
    return url if url.endswith("/v1") else f"{url}/v1"


class TokenEstimate:
    """Characters per token, learnt from what the engine reports."""

    def __init__(self, chars_per_token: float = CHARS_PER_TOKEN) -> None:
        self.chars_per_token = chars_per_token

    def count(self, text: str) -> int:
        return max(1, math.ceil(len(text) / self.chars_per_token)) if text else 0

    def learn(self, chars: int, tokens: int) -> None:
        """Move towards the ratio the engine just reported (a prompt of ``chars`` took
        ``tokens``), a quarter of the way each time."""
        if chars >= 64 and tokens > 0:
            self.chars_per_token += 0.25 * (chars / tokens - self.chars_per_token)


def parse_sse_line(line: bytes) -> dict[str, Any] | None:
    """One line of the engine's stream: its JSON event, None for blank lines, comments and
    other fields, or ``{"done": True}`` for ``data: [DONE]``. Raises EngineError."""
    text = line.decode("utf-8", "replace").rstrip("\r\n")
    if not text or text.startswith(":") or not text.startswith("data:"):
        return None
    data = text[5:].strip()
    if data == "[DONE]":
        return {"done": True}
    try:
        event = json.loads(data)
    except ValueError as exc:
        raise EngineError(f"the engine sent a malformed event: {data[:80]!r}") from exc
    if not isinstance(event, dict):
        raise EngineError(f"the engine sent a malformed event: {data[:80]!r}")
    if "error" in event:
        error = event["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise EngineError(f"the engine failed mid-answer: {str(message)[:200]}")
    return event


class OpenAIProvider:
    """Chat completions from an OpenAI-compatible engine over HTTP."""

    def __init__(self, url: str, model: str, *, api_key: str = "", timeout_s: float = 60.0,
                 temperature: float = 0.7) -> None:
        self.base = api_base(url)
        self.model = model
        self.name = f"{model} at {self.base}"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout_s = timeout_s
        self._temperature = temperature
        self.tokens = TokenEstimate()
        self._json_schema_form = False  # which structured-output form the engine takes
        self._http: aiohttp.ClientSession | None = None

    def _session(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            # sock_read: an engine that stops sending (hung, or a dead host) is given up on.
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(
                total=None, connect=CONNECT_TIMEOUT_S, sock_read=self._timeout_s))
        return self._http

    def _body(self, messages: Sequence[ChatTurn], max_tokens: int, **extra: Any
              ) -> dict[str, Any]:
        return {"model": self.model, "max_tokens": max_tokens, "temperature": self._temperature,
                "messages": [{"role": t.role, "content": t.content} for t in messages], **extra}

    async def _post(self, path: str, body: dict[str, Any]) -> aiohttp.ClientResponse:
        try:
            response = await self._session().post(f"{self.base}{path}", json=body,
                                                  headers=self._headers)
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            raise EngineError(f"the model engine at {self.base} is unreachable: "
                              f"{exc or type(exc).__name__}") from exc
        if response.status >= 400:
            text = (await response.text())[:300]
            response.release()
            kind = EngineRefused if response.status in (400, 422) else EngineError
            raise kind(f"the model engine at {self.base} answered HTTP {response.status}: "
                       f"{text}")
        return response

    async def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int, usage: Usage | None = None,
        plain_text: bool = False, session: str | None = None,
    ) -> AsyncGenerator[str, None]:
        """Stream the reply; closing this generator closes the request (the engine stops).

        ``plain_text`` cannot be enforced by token bans here (the engine's vocabulary is not
        known); the agent's answer gate still refuses an answer that opens like JSON.
        """
        body = self._body(messages, max_tokens, stream=True,
                          stream_options={"include_usage": True})
        response = await self._post("/chat/completions", body)
        produced: list[str] = []
        finish: str | None = None
        reported: dict[str, Any] | None = None
        done = False
        try:
            while True:
                try:
                    line = await response.content.readline()
                except TimeoutError as exc:  # aiohttp's read timeout is one too
                    raise EngineError(f"the engine sent nothing for {self._timeout_s:g} s"
                                      ) from exc
                except (aiohttp.ClientError, OSError) as exc:
                    raise EngineError(f"the engine's answer broke off: {exc}") from exc
                if not line:
                    break
                if len(line) > MAX_LINE_BYTES:
                    raise EngineError("the engine sent an event over 1 MiB")
                event = parse_sse_line(line)
                if event is None:
                    continue
                if event.get("done"):
                    done = True
                    break
                reported = event.get("usage") or reported
                for choice in event.get("choices") or []:
                    if not isinstance(choice, dict):
                        raise EngineError("the engine sent a malformed choice")
                    finish = choice.get("finish_reason") or finish
                    piece = (choice.get("delta") or {}).get("content")
                    if isinstance(piece, str) and piece:
                        produced.append(piece)
                        yield piece
            if not done and finish is None:
                raise EngineError("the engine's answer ended before it was complete")
        finally:
            response.close()  # mid-stream: the engine sees the connection go and stops
        self._account(messages, "".join(produced), reported, finish, usage)

    def _account(self, messages: Sequence[ChatTurn], text: str, reported: dict[str, Any] | None,
                 finish: str | None, usage: Usage | None) -> None:
        prompt_chars = sum(len(t.content) for t in messages)
        prompt = completion = 0
        if reported:
            prompt = int(reported.get("prompt_tokens") or 0)
            completion = int(reported.get("completion_tokens") or 0)
            self.tokens.learn(prompt_chars, prompt)
        if usage is not None:
            usage.prompt_tokens = prompt or self.tokens.count(" ".join(t.content for t in
                                                                      messages))
            usage.evaluated_tokens = usage.prompt_tokens  # the engine does not say
            usage.completion_tokens = completion or self.tokens.count(text)
            usage.finish_reason = finish

    async def complete_structured(
        self, messages: Sequence[ChatTurn], schema: dict[str, Any], *, max_tokens: int,
        usage: Usage | None = None,
    ) -> str:
        """JSON matching ``schema``, through the engine's ``response_format`` (llama-server,
        llama-cpp-python and Ollama turn it into a grammar)."""
        # llama-server and llama-cpp-python take a schema in ``json_object``; Ollama and
        # OpenAI want ``json_schema``. The first the engine accepts is kept.
        formats = [{"type": "json_object", "schema": schema},
                   {"type": "json_schema", "json_schema": {"name": "arguments", "schema": schema,
                                                           "strict": True}}]
        if self._json_schema_form:
            formats.reverse()
        for n, response_format in enumerate(formats):
            body = self._body(messages, max_tokens, response_format=response_format)
            try:
                response = await self._post("/chat/completions", body)
                break
            except EngineRefused:
                if n == len(formats) - 1:
                    raise
                self._json_schema_form = not self._json_schema_form
        try:
            reply = await response.json(content_type=None)
        except (ValueError, aiohttp.ClientError, TimeoutError) as exc:
            raise EngineError(f"the engine's reply was not JSON: {exc}") from exc
        finally:
            response.release()
        try:
            choice = reply["choices"][0]
            text = str(choice["message"]["content"])
        except (KeyError, IndexError, TypeError) as exc:
            raise EngineError("the engine's reply had no message") from exc
        self._account(messages, text, reply.get("usage"), choice.get("finish_reason"), usage)
        return text

    async def count_tokens(self, text: str) -> int:
        """An estimate, corrected by what the engine reports (no round trip per message)."""
        return self.tokens.count(text)

    async def check(self) -> list[str]:
        """What is wrong with the engine (nothing: []): reachable, has the model."""
        try:
            response = await self._session().get(f"{self.base}/models", headers=self._headers)
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            return [f"the model engine at {self.base} is unreachable: "
                    f"{exc or type(exc).__name__}"]
        try:
            if response.status >= 400:
                return [f"the model engine at {self.base} answered HTTP {response.status}"]
            listed = await response.json(content_type=None)
        except (ValueError, aiohttp.ClientError) as exc:
            return [f"the model engine's model list is not JSON: {exc}"]
        finally:
            response.release()
        names = {str(m.get("id")) for m in (listed.get("data") or []) if isinstance(m, dict)}
        if not self.model and len(names) == 1:
            # No model_name: an engine serving exactly one model means that one.
            [self.model] = names
            self.name = f"{self.model} at {self.base}"
            _LOGGER.info("model_name is not set: using the engine's only model, %s (set "
                         "model_name to choose another)", self.model)
        if not self.model:
            return [f"the model engine at {self.base} serves "
                    f"{len(names) or 'no'} models ({', '.join(sorted(names))[:200]}): set "
                    "model_name to one of them" if names else
                    f"the model engine at {self.base} serves no model"]
        if self.model not in names:
            return [f"the model engine has no model {self.model!r} (it has: "
                    f"{', '.join(sorted(names))[:200] or 'none'})"]
        return []

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None


class FallbackProvider:
    """The engine while it is healthy, the box's own model otherwise.

    A failure before the first piece is answered by the local model at once (and the engine
    is marked down until its next health check); a failure mid-answer cannot be hidden — part
    of an answer was sent — so it is raised, and the next turn goes to the local model.
    """

    def __init__(self, remote: OpenAIProvider, local: ModelProvider | None, *,
                 health_s: float = 30.0,
                 on_change: Callable[[str | None], None] | None = None) -> None:
        self.remote = remote
        self.local = local
        self.health_s = health_s
        self.error: str | None = None  # why the engine is not used now; None: it is
        self._on_change = on_change
        self._checker: asyncio.Task[None] | None = None
        self._checked_at = 0.0

    @property
    def name(self) -> str:
        if self.error is None or self.local is None:
            return self.remote.name
        return f"{self.local.name} (fallback; {self.remote.model} unavailable)"

    def _set(self, error: str | None) -> None:
        if error != self.error:
            if error is None:
                _LOGGER.info("model engine %s is back: answering with it", self.remote.base)
            else:
                _LOGGER.warning("model engine unavailable (%s): answering with %s", error,
                                self.local.name if self.local else "nothing")
            self.error = error
            if self._on_change is not None:
                self._on_change(error)

    async def check(self) -> str | None:
        """Check the engine now; returns why it is down (None: up)."""
        self._checked_at = time.monotonic()
        problems = await self.remote.check()
        self._set("; ".join(problems) or None)
        return self.error

    def start(self) -> None:
        self._checker = asyncio.get_running_loop().create_task(self._check_forever())

    async def _check_forever(self) -> None:
        while True:
            await asyncio.sleep(self.health_s)
            try:
                await self.check()
            except Exception:  # a health check never stops the box
                _LOGGER.exception("model engine health check failed")

    def _chosen(self) -> ModelProvider:
        if self.error is not None and self.local is not None:
            return self.local
        return self.remote

    async def stream_chat(
        self, messages: Sequence[ChatTurn], *, max_tokens: int, usage: Usage | None = None,
        plain_text: bool = False, session: str | None = None,
    ) -> AsyncGenerator[str, None]:
        provider = self._chosen()
        sent = False
        try:
            async with aclosing(provider.stream_chat(
                    messages, max_tokens=max_tokens, usage=usage, plain_text=plain_text,
                    session=session)) as pieces:
                async for piece in pieces:
                    sent = True
                    yield piece
        except EngineError as exc:
            self._set(str(exc))
            if sent or self.local is None:
                raise
        else:
            return
        async with aclosing(self.local.stream_chat(
                messages, max_tokens=max_tokens, usage=usage, plain_text=plain_text,
                session=session)) as pieces:
            async for piece in pieces:
                yield piece

    async def complete_structured(
        self, messages: Sequence[ChatTurn], schema: dict[str, Any], *, max_tokens: int,
        usage: Usage | None = None,
    ) -> str:
        provider = self._chosen()
        try:
            return await provider.complete_structured(messages, schema, max_tokens=max_tokens,
                                                      usage=usage)
        except EngineError as exc:
            self._set(str(exc))
            if self.local is None:
                raise
        return await self.local.complete_structured(messages, schema, max_tokens=max_tokens,
                                                    usage=usage)

    async def count_tokens(self, text: str) -> int:
        return await self._chosen().count_tokens(text)

    async def aclose(self) -> None:
        if self._checker is not None:
            self._checker.cancel()
            await asyncio.gather(self._checker, return_exceptions=True)
            self._checker = None
        await self.remote.aclose()
        if self.local is not None:
            await self.local.aclose()
