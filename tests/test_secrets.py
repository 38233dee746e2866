"""The kernel's secrets stay in: redacted from every stored and prompted string (tested with a
planted key), and a sealed kernel process whose environment other processes cannot read."""

from __future__ import annotations

import ctypes
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speckernel import hookimpl
from speckernel.components import Benchmark, Phase, Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Message, Status, Task, Verdict
from speckernel.secrets import Redactor, redact, seal_process

PLANTED = "sk-planted-0123456789abcdef"


def test_redactor_replaces_keys_and_tokens_only() -> None:
    environ = {"OPENAI_API_KEY": PLANTED, "HF_TOKEN": "hf_abcdefgh1234", "PATH": "/usr/bin:/bin",
               "SHORT_KEY": "abc", "KERNEL_MODEL": "openai:gpt-4o-mini-long-name"}
    redactor = Redactor(environ)
    text = f"key {PLANTED} token hf_abcdefgh1234 path /usr/bin:/bin short abc"
    assert redactor.redact(text) == ("key [redacted:OPENAI_API_KEY] token [redacted:HF_TOKEN] "
                                     "path /usr/bin:/bin short abc")
    assert redactor.redact("openai:gpt-4o-mini-long-name") == "openai:gpt-4o-mini-long-name"


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF), min_size=8,
               max_size=40).filter(lambda s: s.strip() == s),
       st.text(max_size=50), st.text(max_size=50))
def test_a_secret_never_survives_in_plain_or_json_form(secret: str, before: str,
                                                       after: str) -> None:
    redactor = Redactor({"SOME_API_KEY": secret})
    plain = redactor.redact(before + secret + after)
    assert secret not in plain or secret in "[redacted:SOME_API_KEY]"
    encoded = redactor.redact(json.dumps(before + secret + after))
    assert json.dumps(secret)[1:-1] not in encoded or secret in "[redacted:SOME_API_KEY]"


class LeakyBench(Benchmark):
    name = "leaky"
    phases = (Phase("check", ("leaky.check",)),)

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        yield Task("t", self.name, "write a.txt", reference={"a.txt": "x"})


class LeakyVerifier(Verifier):
    """A careless plugin: puts the kernel's key into its diagnostic."""

    name = "leaky.check"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        key = os.environ["OPENAI_API_KEY"]
        return Verdict(self.name, Status.FAILURE, (Diagnostic(f"cannot load {key}"),))


class LeakyPlugin:
    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(LeakyBench())

    @hookimpl
    def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
        register(LeakyVerifier())


def test_a_planted_key_reaches_neither_the_model_nor_the_run_directory(
        kernel_cli, kernel_plugins, scripted_model, run_dir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The key goes into a diagnostic, the repair agent feeds diagnostics back to the model:
    the model never sees the key, and no file of the run holds it."""
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    kernel_plugins(LeakyPlugin())
    seen: list[Sequence[Message]] = []

    def answer(messages: Sequence[Message]) -> str:
        seen.append(messages)
        return "```a.txt\ny\n```"

    model = scripted_model(answer)
    result = kernel_cli("run", "leaky", "--agent", "prompt", "--model", model,
                        "--agent-option", "rounds=1", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert len(seen) == 2  # the repair round saw the diagnostic
    assert "[redacted:OPENAI_API_KEY]" in seen[1][-1].content
    assert all(PLANTED not in m.content for messages in seen for m in messages)
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert PLANTED not in path.read_text(errors="replace"), path
    assert "[redacted:OPENAI_API_KEY]" in (run_dir / "samples.jsonl").read_text()


def test_redact_reads_the_environment_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-later-set-123456")
    assert redact("x sk-ant-later-set-123456 y") == "x [redacted:ANTHROPIC_API_KEY] y"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run two processes as another user")
@pytest.mark.parametrize("sealed", [True, False])
def test_a_sealed_kernel_environment_is_unreadable_to_its_own_user(sealed: bool) -> None:
    """Two processes of one unprivileged user: the sealed one's environment cannot be read by
    the other; without the seal it can."""
    ready_r, ready_w = os.pipe()
    kernel = os.fork()
    if kernel == 0:
        os.setgid(65534)
        os.setuid(65534)
        if sealed:
            seal_process()
        else:  # as after an exec: changing user made it non-dumpable already
            ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)
        os.write(ready_w, b"x")
        time.sleep(30)
        os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"x"
        done_r, done_w = os.pipe()
        reader = os.fork()
        if reader == 0:
            os.setgid(65534)
            os.setuid(65534)
            try:
                with open(f"/proc/{kernel}/environ", "rb") as environ:
                    os.write(done_w, b"read" if b"PATH=" in environ.read() else b"empty")
            except OSError:
                os.write(done_w, b"denied")
            os._exit(0)
        os.waitpid(reader, 0)
        assert os.read(done_r, 16) == (b"denied" if sealed else b"read")
    finally:
        os.kill(kernel, 9)
        os.waitpid(kernel, 0)
