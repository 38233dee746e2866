"""The model providers, over real HTTP against a scripted server on 127.0.0.1.

The server speaks whatever the test scripts (status, JSON or raw body, headers, delay) and
records what it received, so each test checks both directions of the wire: the exact request a
provider sends and how it reads the answer, including retries, throttling and failures.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

from speckernel.errors import KernelError, ProviderError
from speckernel.model import Completion, GenerateParams, Message, Usage
from speckernel.providers.anthropic import AnthropicProvider
from speckernel.providers.http import (
    AdaptiveLimiter,
    EndpointConfig,
    HttpEndpoint,
    RetryPolicy,
    parse_retry_after,
)
from speckernel.providers.openai import OpenAIProvider, max_tokens_field
from speckernel.providers.pricing import PRICES_ENV, PriceTable, cost_usd
from speckernel.providers.replay import ReplayProvider, ReplayRecord

FAST = {"backoff_s": 0.01}
"""Retry options that keep the backoff between attempts negligible."""

PROMPT = (Message("system", "You write TLA+."), Message("user", "Specify a counter."))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                 PRICES_ENV):
        monkeypatch.delenv(name, raising=False)


# --------------------------------------------------------------------------- scripted server


@attrs.frozen
class Canned:
    """One scripted response; a ``str`` body is sent as is, anything else as JSON."""

    status: int = 200
    body: Any = attrs.field(factory=dict)
    headers: Mapping[str, str] = attrs.field(factory=dict)
    delay_s: float = 0.0


@attrs.frozen
class Seen:
    """One request as the server received it."""

    path: str
    headers: Mapping[str, str]
    body: Any
    started: float
    concurrent: int
    status: int


class ScriptedServer:
    """Answers with ``script`` in order, then with ``fallback`` forever."""

    def __init__(self) -> None:
        self.script: deque[Canned] = deque()
        self.fallback = Canned(500, {"error": {"message": "no scripted response"}})
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._active = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, path: str, headers: Mapping[str, str], raw: bytes) -> Canned:
        with self._lock:
            self._active += 1
            canned = self.script.popleft() if self.script else self.fallback
            body = json.loads(raw) if raw else None
            seen = Seen(path, headers, body, time.monotonic(), self._active, canned.status)
            self.seen.append(seen)
        time.sleep(canned.delay_s)
        with self._lock:
            self._active -= 1
        return canned


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            headers = {k.lower(): v for k, v in self.headers.items()}
            canned = server.answer(self.path, headers, raw)
            body = canned.body if isinstance(canned.body, str) else json.dumps(canned.body)
            try:
                self.send_response(canned.status)
                for name, value in canned.headers.items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body.encode())))
                self.end_headers()
                self.wfile.write(body.encode())
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (the read-timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as scripted:
        yield scripted


def chat_reply(text: str = "---- MODULE Counter ----", **usage: int) -> Canned:
    return Canned(body={
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": usage or {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500},
    })


def openai_model(server: ScriptedServer, **options: Any) -> Any:
    return OpenAIProvider().model("gpt-4o", {"base_url": server.url + "/v1", **FAST, **options})


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# --------------------------------------------------------------------------- openai


@pytest.mark.anyio
async def test_openai_sends_the_chat_completions_request(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server.script.append(chat_reply())
    params = GenerateParams(temperature=0.2, max_tokens=100, top_p=0.9, stop=("END",), seed=7)

    await openai_model(server).complete(PROMPT, params)

    [seen] = server.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.headers["content-type"] == "application/json"
    assert seen.body == {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "You write TLA+."},
            {"role": "user", "content": "Specify a counter."},
        ],
        "temperature": 0.2,
        "max_tokens": 100,
        "top_p": 0.9,
        "stop": ["END"],
        "seed": 7,
    }


@pytest.mark.anyio
async def test_openai_omits_unset_params_and_auth_for_a_keyless_local_server(
    server: ScriptedServer,
) -> None:
    server.script.append(chat_reply())

    await openai_model(server).complete(PROMPT[1:], GenerateParams())

    [seen] = server.seen
    assert "authorization" not in seen.headers
    assert seen.body == {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "Specify a counter."}],
    }


@pytest.mark.anyio
async def test_openai_parses_the_answer_and_prices_it(server: ScriptedServer) -> None:
    server.script.append(chat_reply("MODULE Counter"))

    completion = await openai_model(server).complete(PROMPT, GenerateParams())

    assert completion.text == "MODULE Counter"
    assert completion.model == "openai:gpt-4o"
    assert completion.finish_reason == "stop"
    assert completion.usage == Usage(1000, 500, (1000 * 2.50 + 500 * 10.00) / 1e6, calls=1)
    assert 0 < completion.latency_s < 5


@pytest.mark.anyio
async def test_a_lone_surrogate_in_a_prompt_is_sent_as_the_sandbox_writes_it(
        server: ScriptedServer) -> None:
    """A model's ``"\\ud800"`` (decoded by a provider's JSON reader) quoted back in a prompt
    has no UTF-8 form: it is sent as ``?``, the character a tool reads in its file, and the
    call is made (it failed before any connection with UnicodeEncodeError)."""
    server.script.append(chat_reply())
    quoted = (Message("user", 'Tag == "a\ud800b"'),)

    await openai_model(server).complete(quoted, GenerateParams())

    [seen] = server.seen
    assert seen.body["messages"] == [{"role": "user", "content": 'Tag == "a?b"'}]


@pytest.mark.anyio
async def test_openai_key_from_a_named_variable(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default")
    monkeypatch.setenv("ROUTER_KEY", "sk-router")
    server.script.append(chat_reply())

    await openai_model(server, api_key_env="ROUTER_KEY").complete(PROMPT, GenerateParams())

    assert server.seen[0].headers["authorization"] == "Bearer sk-router"


def test_openai_options_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = OpenAIProvider()
    with pytest.raises(KernelError, match=r"UNSET_KEY.*not set"):
        provider.model("m", {"api_key_env": "UNSET_KEY"})
    with pytest.raises(KernelError, match=r"unknown option.*max_retries"):
        provider.model("m", {"max_retries": 3})
    with pytest.raises(KernelError, match="'max_attempts' must be a positive integer"):
        provider.model("m", {"max_attempts": 1.5})
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1/")
    assert provider.cache_identity("m", {}) == {
        "provider": "openai", "model": "m", "base_url": "http://localhost:8000/v1",
    }


def test_openai_reasoning_models_get_max_completion_tokens() -> None:
    assert max_tokens_field("https://api.openai.com/v1") == "max_completion_tokens"
    assert max_tokens_field("http://localhost:8000/v1") == "max_tokens"


# --------------------------------------------------------------------------- anthropic


@pytest.mark.anyio
async def test_anthropic_sends_the_messages_request_and_parses_text_blocks(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    server.script.append(Canned(body={
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "a counter has one variable"},
            {"type": "text", "text": "---- MODULE Counter ----\n"},
            {"type": "text", "text": "===="},
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 2000, "output_tokens": 100},
    }))
    model = AnthropicProvider().model("claude-sonnet-4-5", {"base_url": server.url})
    params = GenerateParams(temperature=0.0, stop=("====",), seed=3)

    completion = await model.complete((*PROMPT, Message("system", "Be brief.")), params)

    [seen] = server.seen
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == "sk-ant-test"
    assert seen.headers["anthropic-version"] == "2023-06-01"
    assert seen.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": "You write TLA+.\n\nBe brief.",
        "messages": [{"role": "user", "content": "Specify a counter."}],
        "temperature": 0.0,
        "stop_sequences": ["===="],
    }
    assert completion.text == "---- MODULE Counter ----\n===="
    assert completion.model == "anthropic:claude-sonnet-4-5"
    assert completion.finish_reason == "end_turn"
    assert completion.usage == Usage(2000, 100, (2000 * 3.00 + 100 * 15.00) / 1e6, calls=1)


@pytest.mark.anyio
async def test_anthropic_overloaded_529_is_retried(server: ScriptedServer) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.script.extend([Canned(529, overloaded), Canned(body={"content": [], "usage": {}})])
    model = AnthropicProvider().model("claude-haiku-4-5", {"base_url": server.url, **FAST})

    completion = await model.complete(PROMPT, GenerateParams(max_tokens=10))

    assert [s.status for s in server.seen] == [529, 200]
    assert server.seen[1].body["max_tokens"] == 10
    assert completion.text == ""
    assert completion.usage == Usage(calls=1)


# --------------------------------------------------------------------------- retries and errors


@pytest.mark.anyio
async def test_a_server_error_is_retried_until_success(server: ScriptedServer) -> None:
    server.script.extend([Canned(500, {"error": {"message": "boom"}}), chat_reply("ok")])

    completion = await openai_model(server).complete(PROMPT, GenerateParams())

    assert completion.text == "ok"
    assert [s.status for s in server.seen] == [500, 200]
    assert server.seen[0].body == server.seen[1].body


@pytest.mark.anyio
async def test_retry_after_is_honoured(server: ScriptedServer) -> None:
    server.script.extend([Canned(429, {"error": {"message": "slow down"}},
                                 headers={"Retry-After": "1"}), chat_reply()])

    await openai_model(server).complete(PROMPT, GenerateParams())

    first, second = server.seen
    assert second.started - first.started >= 0.95


@pytest.mark.anyio
async def test_a_client_error_is_not_retried_and_the_key_is_not_shown(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    server.script.append(Canned(400, {"error": {
        "message": "Invalid 'temperature'\n(key sk-secret-123):  expected <= 2", "type": "x"}}))

    with pytest.raises(ProviderError) as caught:
        await openai_model(server).complete(PROMPT, GenerateParams(temperature=9.0))

    message = str(caught.value)
    assert len(server.seen) == 1
    assert "\n" not in message
    assert message.startswith("openai:gpt-4o: HTTP 400: Invalid 'temperature' (key ***): expected")
    assert "sk-secret-123" not in message


@pytest.mark.anyio
async def test_an_error_page_is_reported_on_one_short_line(server: ScriptedServer) -> None:
    page = "<html>\n<body>\n" + "<p>Bad gateway</p>\n" * 200 + "</body></html>"
    server.fallback = Canned(502, page)

    with pytest.raises(ProviderError) as caught:
        await openai_model(server, max_attempts=2).complete(PROMPT, GenerateParams())

    message = str(caught.value)
    assert len(server.seen) == 2
    assert message.startswith("openai:gpt-4o: gave up after 2 attempts on http://127.0.0.1:")
    assert "HTTP 502: <html> <body> <p>Bad gateway</p>" in message
    assert "\n" not in message
    assert len(message) <= 500


@pytest.mark.anyio
async def test_connection_refused_gives_up_after_the_attempts() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    model = OpenAIProvider().model("m", {"base_url": base_url, "max_attempts": 3, **FAST})

    with pytest.raises(ProviderError, match=r"gave up after 3 attempts .*ConnectError") as caught:
        await model.complete(PROMPT, GenerateParams())

    assert "\n" not in str(caught.value)


@pytest.mark.anyio
async def test_a_read_timeout_is_retried(server: ScriptedServer) -> None:
    server.script.extend([Canned(delay_s=1.0), chat_reply("second try")])

    completion = await openai_model(server, timeout_s=0.3).complete(PROMPT, GenerateParams())

    assert completion.text == "second try"
    assert len(server.seen) == 2


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "error"),
    [
        ('{"choices": [', "malformed JSON in the response"),
        ("[]", "expected a JSON object"),
        ({"choices": []}, r"unexpected response: no choices\[0\]"),
        ({"choices": [{"message": {"content": 5}}]}, "content is not text"),
    ],
)
async def test_a_malformed_answer_is_a_provider_error(
    server: ScriptedServer, body: Any, error: str
) -> None:
    server.script.append(Canned(200, body))

    with pytest.raises(ProviderError, match=error):
        await openai_model(server).complete(PROMPT, GenerateParams())

    assert len(server.seen) == 1


# --------------------------------------------------------------------------- adaptive limiter


@pytest.mark.anyio
async def test_limiter_halves_once_per_burst_and_grows_back() -> None:
    limiter = AdaptiveLimiter(8, grow_after=3)
    async with limiter.slot() as burst:
        pass
    limiter.throttled(None, burst)
    limiter.throttled(None, burst)  # another 429 of the same burst
    assert limiter.limit == 4

    for expected in (2, 1, 1):
        async with limiter.slot() as epoch:
            pass
        limiter.throttled(None, epoch)
        assert limiter.limit == expected

    for expected in (1, 1, 2, 2, 2, 3):
        limiter.succeeded()
        assert limiter.limit == expected
    for _ in range(100):
        limiter.succeeded()
    assert limiter.limit == 8


@pytest.mark.anyio
async def test_limiter_caps_concurrency_and_pauses_after_retry_after() -> None:
    limiter = AdaptiveLimiter(2)
    peak = 0

    async def hold() -> None:
        nonlocal peak
        async with limiter.slot():
            peak = max(peak, limiter.in_flight)
            await anyio.sleep(0.02)

    async with anyio.create_task_group() as group:
        for _ in range(6):
            group.start_soon(hold)
    assert peak == 2
    assert limiter.in_flight == 0

    async with limiter.slot() as epoch:
        pass
    limiter.throttled(0.3, epoch)
    started = time.monotonic()
    async with limiter.slot():
        waited = time.monotonic() - started
    assert 0.25 <= waited < 1.0


@pytest.mark.anyio
async def test_limiter_adapts_to_a_burst_of_429s_over_http(server: ScriptedServer) -> None:
    limiter = AdaptiveLimiter(4, grow_after=4)
    config = EndpointConfig(server.url, retry=RetryPolicy(max_attempts=3, backoff_s=0.01))
    endpoint = HttpEndpoint("test:model", config, {}, limiter)
    throttled = Canned(429, {"error": {"message": "rate limited"}},
                       headers={"Retry-After": "0.3"}, delay_s=0.1)
    server.script.extend([throttled] * 4)
    server.fallback = Canned(200, {"ok": True}, delay_s=0.1)

    async def wave(size: int) -> None:
        async with anyio.create_task_group() as group:
            for _ in range(size):
                group.start_soon(endpoint.post_json, "/x", {})

    await wave(4)
    burst, retries = server.seen[:4], server.seen[4:]
    assert [s.status for s in burst] == [429] * 4
    assert max(s.concurrent for s in burst) == 4
    assert max(s.concurrent for s in retries) == 2  # halved once, not four times
    assert min(s.started for s in retries) - max(s.started for s in burst) >= 0.35
    assert limiter.limit == 3  # four successes grew it back by one

    await wave(8)
    assert limiter.limit == 4


def test_retry_after_parsing() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("3", now) == 3.0
    assert parse_retry_after("0.25", now) == 0.25
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30
    assert parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now) == 0
    assert parse_retry_after("-1", now) == 0.0
    for junk in (None, "", "soon", "nan"):
        assert parse_retry_after(junk, now) is None


def test_backoff_grows_exponentially_with_jitter_up_to_a_cap() -> None:
    policy = RetryPolicy(backoff_s=1.0, max_delay_s=10.0)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (9, 10.0)]:
        delays = [policy.delay(attempt) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1


# --------------------------------------------------------------------------- replay


def record(text: str, content: str = "Specify a counter.", **params: Any) -> ReplayRecord:
    return ReplayRecord(
        model="openai:gpt-4o",
        messages=(Message("user", content),),
        params=GenerateParams(**params),
        completion=Completion(text, "openai:gpt-4o", Usage(10, 20, 0.0004, 1), 2.5, "stop"),
    )


def write_records(path: Path, *records: ReplayRecord) -> str:
    path.write_text("".join(r.to_line() + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.mark.anyio
async def test_replay_serves_identical_requests_in_recorded_order(tmp_path: Path) -> None:
    first, second = record("first", temperature=0.7), record("second\u2028line", temperature=0.7)
    other = record("other", content="Specify a queue.")
    path = write_records(tmp_path / "responses.jsonl", first, other, second)
    provider = ReplayProvider()
    model = provider.model(path, {})
    request = ((Message("user", "Specify a counter."),), GenerateParams(temperature=0.7))

    assert await model.complete(*request) == first.completion
    same_model = provider.model(path, {"base_url": "http://options.are.ignored"})
    assert await same_model.complete(*request) == second.completion
    with pytest.raises(ProviderError, match="no recorded response left for this request"):
        await model.complete(*request)
    queue = await model.complete((Message("user", "Specify a queue."),), GenerateParams())
    assert queue.text == "other"
    assert queue.usage == Usage(10, 20, 0.0004, 1)
    assert queue.latency_s == 2.5
    with pytest.raises(ProviderError, match="never recorded"):
        await model.complete((Message("user", "Specify a stack."),), GenerateParams())


def test_replay_record_round_trips_and_defaults_omitted_fields() -> None:
    original = record("text", seed=1, stop=("END",))
    assert ReplayRecord.from_line(original.to_line()) == original
    sparse = ReplayRecord.from_line(json.dumps({
        "model": "m", "messages": [], "params": {}, "completion": {"text": "t", "model": "m"},
    }))
    assert sparse.params == GenerateParams()
    assert sparse.completion == Completion("t", "m")


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("\n{not json\n", r":2: invalid JSON"),
        ('{"model": "m"}\n', r":1: not a record"),
        ('{"model": "m", "messages": null, "params": {},'
         ' "completion": {"text": "t", "model": "m"}}', r":1: not a record: 'messages' must be"),
        ('{"model": "m", "messages": [], "params": {}, "completion": {"text": 1, "model": "m"}}',
         r":1: not a record: the completion has no text"),
        (b"\xff\xfe".decode("latin-1"), "cannot read replay file"),
    ],
)
def test_replay_reports_a_malformed_file_with_its_line(
    tmp_path: Path, content: str, error: str
) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_text(content, encoding="latin-1")

    with pytest.raises(ProviderError, match=error) as caught:
        ReplayProvider().model(str(path), {})

    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_replay_reports_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match=r"cannot read replay file .*No such file"):
        ReplayProvider().model(str(tmp_path / "absent.jsonl"), {})


# --------------------------------------------------------------------------- pricing


def test_builtin_prices_prefer_the_most_specific_pattern() -> None:
    million = 1_000_000
    assert cost_usd("openai:gpt-4o", million, million) == 12.50
    assert cost_usd("openai:gpt-4o-2024-08-06", million, 0) == 2.50
    assert cost_usd("openai:gpt-4o-mini", million, million) == 0.75
    assert cost_usd("anthropic:claude-opus-4-1-20250805", million, million) == 90.0
    assert cost_usd("anthropic:claude-opus-4-5", million, million) == 30.0
    assert cost_usd("openai:llama-3.1-8b-instruct", million, million) == 0.0


def test_kernel_prices_merges_over_the_builtin_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    override = tmp_path / "prices.yaml"
    override.write_text('"openai:gpt-4o": {input: 1, output: 2}\n'
                        '"openai:my-llama*": {input: 0.1, output: 0.2}\n')
    monkeypatch.setenv(PRICES_ENV, str(override))

    assert cost_usd("openai:gpt-4o", 1_000_000, 1_000_000) == 3.0
    assert cost_usd("openai:my-llama-70b", 1_000_000, 1_000_000) == pytest.approx(0.3)
    assert cost_usd("openai:gpt-4o-mini", 1_000_000, 0) == 0.15


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ('"m": {input: 1}\n', r"price of 'm' must be \{input: USD, output: USD\}"),
        ('"m": {input: -1, output: 1}\n', "price of 'm'"),
        ("- a list\n", "expected a mapping"),
        ('"m": [1,\n', r"prices\.yaml:\d+: "),
    ],
)
def test_a_malformed_price_file_is_a_kernel_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str, error: str
) -> None:
    override = tmp_path / "prices.yaml"
    override.write_text(content)
    monkeypatch.setenv(PRICES_ENV, str(override))

    with pytest.raises(KernelError, match=error):
        OpenAIProvider().model("gpt-4o", {})


def test_an_unreadable_price_file_is_a_kernel_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PRICES_ENV, str(tmp_path / "absent.yaml"))
    with pytest.raises(KernelError, match=f"cannot read {PRICES_ENV}=.*absent.yaml"):
        cost_usd("openai:gpt-4o", 1, 1)


def test_an_empty_price_table_prices_nothing() -> None:
    assert PriceTable.parse("", "empty.yaml").cost_usd("openai:gpt-4o", 10, 10) == 0.0
