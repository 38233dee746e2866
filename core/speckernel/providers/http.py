"""What every HTTP model provider shares: retries, adaptive rate limiting, error reporting.

Model APIs fail in a few well-known ways, and a benchmark run of thousands of requests meets all
of them: ``429 Too Many Requests`` (with a ``Retry-After`` header, RFC 9110 §10.2.3), overloaded
servers (``5xx``), dropped connections and slow responses. ``HttpEndpoint.post_json`` retries
those with exponential backoff and jitter, and reports everything else as a one-line
``ProviderError`` carrying the server's own explanation, never the API key.

Concurrency is capped per server by an ``AdaptiveLimiter``: a 429 halves the number of requests
in flight and pauses new ones for the ``Retry-After`` period, and a run of successes grows the cap
back one slot at a time (additive increase, multiplicative decrease, as TCP does), so a run
settles at the rate its API key is actually granted instead of hammering the server.
"""

from __future__ import annotations

import abc
import contextlib
import email.utils
import json
import math
import os
import random
import time
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

import anyio
import attrs
import httpx

from speckernel import runstate
from speckernel.components import ModelProvider
from speckernel.errors import KernelError, ProviderError
from speckernel.model import JSON
from speckernel.validation import MAX_CONCURRENCY, MAX_TIMEOUT_S

_RETRYABLE_TRANSPORT_ERRORS = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)
"""Failures of the connection rather than of the request: worth another try."""

_MESSAGE_LIMIT = 500


def _one_line(text: str) -> str:
    """Collapse whitespace and cut ``text`` to ``_MESSAGE_LIMIT`` characters: the CLI prints
    errors as one line, and a server's error page can be a whole HTML document."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _MESSAGE_LIMIT else flat[: _MESSAGE_LIMIT - 3] + "..."


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait according to a ``Retry-After`` header: delay-seconds or an HTTP-date
    (RFC 9110 §10.2.3). Fractional seconds are accepted, as some servers send them; a value that
    is neither form, or absent, gives ``None``."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


@attrs.frozen
class RetryPolicy:
    """How often and how patiently to retry a failed request."""

    max_attempts: int = attrs.field(default=6, validator=attrs.validators.ge(1))
    backoff_s: float = 1.0
    max_delay_s: float = 60.0

    def delay(self, attempt: int) -> float:
        """The wait after failed attempt number ``attempt`` (1-based): exponential, capped at
        ``max_delay_s``, with "equal jitter" (half fixed, half random) so that clients throttled
        together do not all come back at the same instant."""
        ceiling = min(self.max_delay_s, self.backoff_s * 2.0 ** (attempt - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


class AdaptiveLimiter:
    """Caps the requests in flight to one server, adapting the cap to the server's 429s.

    ``throttled`` halves the cap (down to 1) and pauses new requests for the ``Retry-After``
    period; ``grow_after`` successes in a row raise it by one, up to ``max_concurrency``. Requests
    that were already in flight when the cap was cut belong to the same burst: their 429s extend
    the pause but do not cut the cap again, which is why ``slot`` yields an *epoch* that
    ``throttled`` takes back.

    The limiter lives as long as its provider, possibly across several event loops, so it holds
    no loop-bound primitive between calls: waiters create their own ``anyio.Event``.
    """

    def __init__(self, max_concurrency: int, *, grow_after: int = 10) -> None:
        if max_concurrency < 1 or grow_after < 1:
            raise ValueError("max_concurrency and grow_after must be at least 1")
        self.max_concurrency = max_concurrency
        self.grow_after = grow_after
        self._limit = max_concurrency
        self._in_flight = 0
        self._successes = 0
        self._epoch = 0
        self._paused_until = 0.0
        self._waiters: list[anyio.Event] = []

    @property
    def limit(self) -> int:
        """The current cap on requests in flight."""
        return self._limit

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def paused_for(self) -> float:
        """Seconds until new requests may start (0 when not paused)."""
        return max(0.0, self._paused_until - time.monotonic())

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
        """Hold one request slot; yields the epoch to pass to ``throttled``."""
        epoch = await self._acquire()
        try:
            yield epoch
        finally:
            self._in_flight -= 1
            self._wake()

    def succeeded(self) -> None:
        self._successes += 1
        if self._successes >= self.grow_after and self._limit < self.max_concurrency:
            self._limit += 1
            self._successes = 0
            self._wake()

    def throttled(self, retry_after_s: float | None, epoch: int) -> None:
        """Record a 429 for a request that started in ``epoch``."""
        self._successes = 0
        if retry_after_s:
            self._paused_until = max(self._paused_until, time.monotonic() + retry_after_s)
        if epoch == self._epoch:
            self._limit = max(1, self._limit // 2)
            self._epoch += 1

    async def _acquire(self) -> int:
        while True:
            pause = self.paused_for
            if pause > 0:
                await anyio.sleep(pause)
            elif self._in_flight < self._limit:
                self._in_flight += 1
                return self._epoch
            else:
                event = anyio.Event()
                self._waiters.append(event)
                await event.wait()

    def _wake(self) -> None:
        """Let every waiter check again; those that find no free slot wait anew."""
        waiters, self._waiters = self._waiters, []
        for event in waiters:
            event.set()


@attrs.frozen
class EndpointConfig:
    """Where and how a provider reaches its server."""

    base_url: str
    api_key: str | None = attrs.field(default=None, repr=False)
    timeout_s: float = 600.0
    retry: RetryPolicy = RetryPolicy()
    max_concurrency: int = 8


@attrs.frozen
class Reply:
    """A successful response: its JSON object, and how long the successful attempt took (rate
    limit waits and failed attempts excluded, so latency measures the model, not the queue)."""

    body: Mapping[str, Any]
    latency_s: float


@attrs.frozen
class _Retry:
    """A failed attempt worth repeating."""

    reason: str
    retry_after_s: float | None = None
    rate_limited: bool = False


class HttpEndpoint:
    """One API server as one model sees it: POSTs JSON with retries and rate limiting.

    ``name`` (the model id, ``openai:gpt-4o``) prefixes every error message.
    """

    def __init__(
        self,
        name: str,
        config: EndpointConfig,
        headers: Mapping[str, str],
        limiter: AdaptiveLimiter,
    ) -> None:
        self.name = name
        self.config = config
        self.limiter = limiter
        self._headers = dict(headers)

    async def post_json(self, path: str, body: JSON) -> Reply:
        """POST ``body`` to ``base_url + path`` and return the JSON object the server answered.

        A client per call, not per endpoint: a connection pool is bound to the event loop that
        opened it, and an endpoint may outlive its loop. Against the seconds a model takes to
        answer, one connection setup per call is noise.
        """
        url = self.config.base_url + path
        retry = self.config.retry
        timeout = self.config.timeout_s
        async with httpx.AsyncClient(headers=self._headers, timeout=timeout) as client:
            for attempt in range(1, retry.max_attempts):
                outcome = await self._attempt(client, url, body)
                if isinstance(outcome, Reply):
                    return outcome
                runstate.note_retry(outcome.rate_limited)
                await anyio.sleep(max(retry.delay(attempt), outcome.retry_after_s or 0.0))
            last = await self._attempt(client, url, body)
        if isinstance(last, Reply):
            return last
        raise self._error(f"gave up after {retry.max_attempts} attempts on {url}: {last.reason}")

    async def _attempt(self, client: httpx.AsyncClient, url: str, body: JSON) -> Reply | _Retry:
        async with self.limiter.slot() as epoch:
            started = time.perf_counter()
            try:
                response = await client.post(url, content=request_body(body),
                                             headers={"content-type": "application/json"})
            except _RETRYABLE_TRANSPORT_ERRORS as exc:
                return _Retry(_describe(exc))
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise self._error(f"request to {url} failed: {_describe(exc)}") from exc
            latency_s = time.perf_counter() - started
        return self._judge(response, url, latency_s, epoch)

    def _judge(
        self, response: httpx.Response, url: str, latency_s: float, epoch: int
    ) -> Reply | _Retry:
        status = response.status_code
        if response.is_success:
            self.limiter.succeeded()
            return Reply(self._decode(response, url), latency_s)
        failure = f"HTTP {status}: {_server_message(response)}"
        if status == 429 or status >= 500:
            retry_after_s = parse_retry_after(response.headers.get("retry-after"))
            if retry_after_s is not None:
                retry_after_s = min(retry_after_s, self.config.retry.max_delay_s)
            if status == 429:
                self.limiter.throttled(retry_after_s, epoch)
            return _Retry(failure, retry_after_s, status == 429)
        raise self._error(f"{failure} (from {url})")

    def _decode(self, response: httpx.Response, url: str) -> Mapping[str, Any]:
        try:
            data = response.json()
        except ValueError as exc:
            raise self._error(f"malformed JSON in the response from {url}: {exc}") from None
        if not isinstance(data, dict):
            raise self._error(f"expected a JSON object from {url}, got {type(data).__name__}")
        return data

    def _error(self, message: str) -> ProviderError:
        """A one-line ProviderError. The API key is masked, should a server echo it back, before
        the message is cut, so that no prefix of it survives either."""
        if self.config.api_key:
            message = message.replace(self.config.api_key, "***")
        return ProviderError(_one_line(f"{self.name}: {message}"))


def _describe(exc: Exception) -> str:
    detail = str(exc)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _server_message(response: httpx.Response) -> str:
    """The explanation in an error response: ``{"error": {"message": ...}}`` (OpenAI,
    Anthropic), ``{"error": "..."}`` (Ollama), ``{"message": ...}`` (vLLM), else the raw text."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        nested = error.get("message") if isinstance(error, dict) else error
        for candidate in (nested, data.get("message")):
            if isinstance(candidate, str) and candidate:
                return candidate
    return response.text or response.reason_phrase


def extract(name: str, data: Any, *path: str | int) -> Any:
    """``data[path[0]][path[1]]...``, or a ProviderError naming what is missing: the server
    speaks another dialect than the one the provider implements."""
    value = data
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            where = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)
            raise ProviderError(f"{name}: unexpected response: no {where.lstrip('.')}") from None
    return value


def token_count(name: str, usage: Any, key: str) -> int:
    """A token count from a response's usage object; 0 when the server does not report it (some
    local servers omit usage altogether). A negative count is a ``ProviderError``: priced, it
    would be a refund that keeps ``--max-cost`` from ever triggering."""
    value = usage.get(key) if isinstance(usage, dict) else None
    if not isinstance(value, int) or isinstance(value, bool):
        return 0
    if value < 0:
        raise ProviderError(f"{name}: the server reported negative token usage "
                            f"({key} = {value}); the call is not counted")
    return value


class HttpProvider(ModelProvider):
    """A provider speaking a JSON-over-HTTP API, configured by options and the environment.

    Options (all optional): ``base_url``; ``api_key_env``, the name of the environment variable
    holding the key (it must then be set); ``timeout_s`` per attempt; ``max_attempts`` and
    ``backoff_s`` for retries; ``max_concurrency`` of requests to one server. Any other option is
    an error, so that a misspelt one is not silently ignored.
    """

    base_url_env: ClassVar[str]
    default_base_url: ClassVar[str]
    api_key_env: ClassVar[str]

    OPTIONS: ClassVar[frozenset[str]] = frozenset(
        {"base_url", "api_key_env", "timeout_s", "max_attempts", "backoff_s", "max_concurrency"}
    )

    def __init__(self) -> None:
        self._limiters: dict[str, AdaptiveLimiter] = {}

    @abc.abstractmethod
    def headers(self, api_key: str | None) -> dict[str, str]:
        """The request headers, authentication included when there is a key."""

    def cache_identity(self, model: str, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Two servers may serve different weights under one model name (a local vLLM and the
        vendor's API), so the base URL is part of the identity. The key is not."""
        return {**super().cache_identity(model, options), "base_url": self.base_url(options)}

    def base_url(self, options: Mapping[str, Any]) -> str:
        url = options.get("base_url") or os.environ.get(self.base_url_env) or self.default_base_url
        if not isinstance(url, str):
            raise KernelError(f"{self.name}: option 'base_url' must be a string, got {url!r}")
        return url.rstrip("/")

    def endpoint(self, model: str, options: Mapping[str, Any]) -> HttpEndpoint:
        """The endpoint of ``model`` under ``options``.

        Endpoints share one limiter per base URL, whatever the model: a local server's capacity
        is shared by everything it serves, and where a vendor limits models separately, sharing
        errs on the side of caution. The first endpoint made for a URL sets its
        ``max_concurrency``.
        """
        config = self.config(options)
        limiter = self._limiters.get(config.base_url)
        if limiter is None:
            limiter = self._limiters[config.base_url] = AdaptiveLimiter(config.max_concurrency)
        return HttpEndpoint(f"{self.name}:{model}", config, self.headers(config.api_key), limiter)

    def config(self, options: Mapping[str, Any]) -> EndpointConfig:
        unknown = sorted(set(options) - self.OPTIONS)
        if unknown:
            raise KernelError(
                f"{self.name}: unknown option(s) {', '.join(unknown)}"
                f" (known: {', '.join(sorted(self.OPTIONS))})"
            )
        return EndpointConfig(
            base_url=self.base_url(options),
            api_key=self._api_key(options),
            timeout_s=self._number(options, "timeout_s", 600.0, MAX_TIMEOUT_S),
            retry=RetryPolicy(
                max_attempts=int(self._number(options, "max_attempts", 6, 100, integer=True)),
                backoff_s=self._number(options, "backoff_s", 1.0, 3600.0),
            ),
            max_concurrency=int(self._number(options, "max_concurrency", 8, MAX_CONCURRENCY,
                                             integer=True)),
        )

    def _api_key(self, options: Mapping[str, Any]) -> str | None:
        """The key from the variable ``api_key_env`` names, which must be set, or else from the
        provider's usual variable, which may be unset (local servers need no key)."""
        named = options.get("api_key_env")
        if named is None:
            return os.environ.get(self.api_key_env) or None
        key = os.environ.get(named) if isinstance(named, str) else None
        if not key:
            raise KernelError(f"{self.name}: api_key_env names {named!r}, which is not set")
        return key

    def _number(
        self, options: Mapping[str, Any], key: str, default: float, maximum: float, *,
        integer: bool = False
    ) -> float:
        value = options.get(key, default)
        valid = (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and 0 < value <= maximum
            and (not integer or float(value).is_integer())
        )
        if not valid:
            kind = "a positive integer" if integer else "a positive number"
            raise KernelError(f"{self.name}: option '{key}' must be {kind} of at most "
                              f"{maximum:g}, got {value!r}")
        return float(value)


def request_body(body: JSON) -> bytes:
    """``body`` as the UTF-8 JSON sent: a lone surrogate (a model's ``"\\ud800"``, decoded by
    a provider's JSON reader, then quoted back in a prompt) has no UTF-8 form and becomes ``?``,
    as the sandbox writes it into a tool's file, rather than failing the call before it is
    made (httpx's own ``json=`` encodes strictly)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", errors="replace")
