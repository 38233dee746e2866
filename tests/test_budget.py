"""Money and providers (issue 20): the cost cap reserves the worst case of the calls in flight
and is never passed by more than one call; impossible usage is refused; a stalled provider is an
infrastructure error, re-run on resume, with a message that says so."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speckernel import hookimpl
from speckernel.budget import Budget, BudgetExhausted
from speckernel.components import Model, ModelProvider
from speckernel.errors import ProviderError
from speckernel.model import Completion, GenerateParams, Message, Usage
from speckernel.providers.anthropic import AnthropicProvider
from speckernel.providers.openai import OpenAIProvider
from speckernel.providers.pricing import input_token_bound, prices

pytestmark = pytest.mark.usefixtures("pyfunc")

GOOD_GCD = ("```solution.py\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n"
            "    return a\n```")


# --------------------------------------------------------------------------- the cap


@settings(max_examples=40, deadline=None)
@given(costs=st.lists(st.floats(0.01, 50), min_size=1, max_size=30),
       cap=st.floats(0, 100), concurrency=st.integers(1, 8), known=st.booleans())
def test_the_cap_is_never_passed_by_more_than_one_call(costs: list[float], cap: float,
                                                       concurrency: int, known: bool) -> None:
    """Whatever the costs, the cap and the concurrency: spent <= cap when each call's worst
    case is known; spent <= cap + the dearest call when it is not but no call costs more than
    the dearest before it (here: all cost the same)."""
    if not known:
        costs = [costs[0]] * len(costs)
    budget = Budget(cap)

    async def call(cost: float, slots: anyio.CapacityLimiter) -> None:
        async with slots:
            try:
                async with budget.reserve("m", cost if known else None):
                    await anyio.sleep(0.001 * (1 + int(cost) % 3))
                    budget.charge("m", Usage(1, 1, cost, 1))
            except BudgetExhausted:
                pass

    async def run() -> None:
        slots = anyio.CapacityLimiter(concurrency)
        async with anyio.create_task_group() as tg:
            for cost in costs:
                tg.start_soon(call, cost, slots)

    anyio.run(run)
    # a call whose worst case is known never starts when it could pass the cap; one whose
    # cost is unknown runs alone the first time
    assert budget.spent <= cap + (0 if known else max(costs)) + 1e-9
    assert budget.reserved == 0


class Pricey(ModelProvider):
    """$20 a call, 0.2 s each; ``max_cost_usd`` says so when ``known``."""

    name = "pricey"
    known = True
    calls: list[float] = []

    def model(self, model: str, options: Mapping[str, Any]) -> Model:
        provider = self

        class Dear(Model):
            id = f"pricey:{model}"

            def max_cost_usd(self, messages: Sequence[Message],
                             params: GenerateParams) -> float | None:
                return 20.0 if provider.known else None

            async def complete(self, messages: Sequence[Message],
                               params: GenerateParams) -> Completion:
                provider.calls.append(time.monotonic())
                await anyio.sleep(0.2)
                return Completion(GOOD_GCD, self.id, Usage(10, 10, 20.0, 1))

        return Dear()


@pytest.fixture
def pricey(kernel_plugins: Callable[..., None]) -> Iterator[type[Pricey]]:
    class Plugin:
        @hookimpl
        def register_models(self, register: Callable[[ModelProvider], None]) -> None:
            register(Pricey())

    kernel_plugins(Plugin())
    Pricey.calls = []
    yield Pricey
    Pricey.known = True


@pytest.mark.parametrize("known", [True, False], ids=["bounded", "unbounded"])
@pytest.mark.parametrize("concurrency", [2, 8])
def test_max_cost_30_with_20_dollar_calls_never_starts_a_call_that_could_pass_it(
        kernel_cli, pricey: type[Pricey], run_dir: Path, known: bool, concurrency: int) -> None:
    """The first $20 call fits under $30; a second could pass it, so it is never started (issue
    17 D: a $0.001 cap stopped at $0.0031). A model that cannot bound its cost has its first call
    run alone, and is reserved at that call's cost after it."""
    pricey.known = known
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "-n", "8", "--agent", "prompt",
                        "--model", "pricey:x", "--max-cost", "30", "--no-cache",
                        "--model-concurrency", str(concurrency), "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 4, result.stderr  # a budget stop has its own exit status
    assert "stopped early: max cost $30 reached" in result.stdout
    assert len(pricey.calls) == 1, f"{len(pricey.calls)} calls of $20"
    assert "cost $20.0000" in result.stdout


def test_a_cap_below_one_calls_worst_case_starts_no_call(kernel_cli, pricey: type[Pricey],
                                                         run_dir: Path) -> None:
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model",
                        "pricey:x", "--max-cost", "0.001", "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 4 and pricey.calls == []
    assert "cost $0.0000" in result.stdout
    [record] = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert record["status"] == "error" and "the next call could cost up to $20" in record["error"]


# --------------------------------------------------------------------------- usage


class Liar(ModelProvider):
    """Reports the usage a test gives it."""

    name = "liar"
    usage = Usage()

    def model(self, model: str, options: Mapping[str, Any]) -> Model:
        provider = self

        class Lying(Model):
            id = f"liar:{model}"

            async def complete(self, messages: Sequence[Message],
                               params: GenerateParams) -> Completion:
                return Completion(GOOD_GCD, self.id, provider.usage)

        return Lying()


IMPOSSIBLE = [Usage(-1000, 10, 0.1, 1), Usage(10, -1, 0.1, 1), Usage(10, 10, -5.0, 1),
              Usage(10, 10, float("nan"), 1), Usage(10, 10, float("inf"), 1),
              Usage(10, 10, 0.1, -1), Usage(10, 10, -1e-9, 1)]


@pytest.mark.parametrize("usage", IMPOSSIBLE, ids=[str(u) for u in IMPOSSIBLE])
def test_impossible_usage_is_an_error_and_never_a_refund(kernel_cli, kernel_plugins,
                                                         run_dir: Path, usage: Usage) -> None:
    class Plugin:
        @hookimpl
        def register_models(self, register: Callable[[ModelProvider], None]) -> None:
            register(Liar())

    kernel_plugins(Plugin())
    Liar.usage = usage
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "-n", "2", "--agent", "prompt",
                        "--model", "liar:x", "--max-cost", "1", "--no-cache",
                        "--output", run_dir, "--display", "none")
    assert result.exit_code == 3, result.stderr  # samples ended in error
    assert "cost $0.0000" in result.stdout
    records = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["error", "error"]
    assert all("impossible usage" in r["error"] for r in records)


@pytest.mark.parametrize("field", ["prompt_tokens", "completion_tokens"])
def test_openai_refuses_negative_token_counts(field: str) -> None:
    from test_providers import Canned, ScriptedServer, chat_reply, openai_model

    usage = {"prompt_tokens": 1000, "completion_tokens": 500, field: -1000}
    with ScriptedServer() as server:
        server.script.append(Canned(body={**chat_reply().body, "usage": usage}))
        with pytest.raises(ProviderError, match=f"negative token usage .{field} = -1000"):
            anyio.run(openai_model(server).complete, [Message("user", "hi")],
                      GenerateParams())


def test_the_builtin_providers_bound_the_cost_of_a_call() -> None:
    messages = [Message("system", "s" * 100), Message("user", "é" * 50)]
    assert input_token_bound(messages) == 100 + 100 + 2 * 16
    gpt = OpenAIProvider().model("gpt-4o", {})
    assert gpt.max_cost_usd(messages, GenerateParams()) is None  # no max_tokens: unbounded
    bound = gpt.max_cost_usd(messages, GenerateParams(max_tokens=1000))
    price = prices().lookup("openai:gpt-4o")
    assert price is not None and bound == price.cost_usd(232, 1000)
    claude = AnthropicProvider().model("claude-opus-4-5", {})
    assert claude.max_cost_usd(messages, GenerateParams()) is not None  # max_tokens always sent
    local = OpenAIProvider().model("my-local-model", {})
    assert local.max_cost_usd(messages, GenerateParams()) == 0.0  # unpriced: free


# --------------------------------------------------------------------------- stalls


class Stalling:
    """An OpenAI-compatible server that never finishes an answer: it drips one byte of a valid
    response at a time, or answers 429 with ``Retry-After: 999999``."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                if self.mode == "retry-after":
                    conn.sendall(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 999999\r\n"
                                 b"content-length: 2\r\n\r\n{}")
                    return
                body = json.dumps({"choices": [{"message": {"content": "x"}}]}).encode()
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                             b"content-length: %d\r\n\r\n" % len(body))
                for byte in body:
                    if self.stop.wait(0.3):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.mark.parametrize("mode", ["drip", "retry-after"])
def test_a_stalled_provider_is_an_error_that_resume_reruns(kernel_cli, kernel_env: Path,
                                                           run_dir: Path, mode: str,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    server = Stalling(mode)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (kernel_env / "run.yaml").write_text(
        "benchmark: pyfunc\ntasks: [gcd]\nagents: [prompt]\nmodels: [openai:local-model]\n"
        "model_timeout_s: 1.5\nsample_timeout_s: 3600\n")
    try:
        started = time.monotonic()
        result = kernel_cli("run", "run.yaml", "--output", run_dir, "--display", "none")
        assert result.exit_code == 3, result.stderr  # the sample ended in error
        assert time.monotonic() - started < 30, "cut at the model timeout"
        [record] = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
        assert record["status"] == "error"
        assert "no answer within 1.5 s (model_timeout_s)" in record["error"]
        assert "3600" not in record["error"]
        resumed = kernel_cli("run", "--resume", run_dir, "--display", "none")
        assert "1 samples finished (1 error), 0 solved; 0 already done" in resumed.stdout
    finally:
        server.close()
