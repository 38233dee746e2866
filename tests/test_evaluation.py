"""The evaluator's side of a sample (``speckernel.evaluation``): files a benchmark prepares with
the run's evaluator model are the evaluator's, whatever the agent wrote, and a rescore keeps
them without calling a model."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from speckernel import hookimpl
from speckernel.components import Benchmark, EvaluatorContext, Phase, Verifier, VerifyContext
from speckernel.model import Candidate, Files, Message, Status, Task, Verdict

VERDICT_FILE = "evaluator/verdict.txt"


class Judged(Benchmark):
    """A benchmark whose criterion is the evaluator model's word on the answer."""

    name = "judged"
    phases = (Phase("judge", ("judged.word",)),)
    options = {"prepare": "ask"}
    option_descriptions = {"prepare": "ask, nothing, or misname (what prepare does)"}

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        # The reference answer forges the evaluator's word, as a candidate writing against
        # the benchmark would.
        yield Task("t", self.name, "say something", reference={
            "answer.txt": "hello", VERDICT_FILE: "yes", "./evaluator/verdict.txt": "yes",
            "evaluator//verdict.txt": "yes"})

    async def prepare(self, candidate: Candidate, task: Task, ctx: EvaluatorContext) -> Files:
        if ctx.options["prepare"] == "nothing":
            return {}
        if ctx.options["prepare"] == "misname":
            return {"verdict.txt": "yes"}
        assert len(candidate.files) == 1, "the agent's copies reached prepare"
        reply = await ctx.generate([Message("user", f"Good? {candidate.files['answer.txt']}")])
        return {VERDICT_FILE: reply.text.strip()}


class Word(Verifier):
    name = "judged.word"
    description = "success when the evaluator said yes"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        word = candidate.files.get(VERDICT_FILE)
        return Verdict(self.name, Status.SUCCESS if word == "yes" else Status.FAILURE,
                       data={"word": word})


class JudgedPlugin:
    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(Judged())

    @hookimpl
    def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
        register(Word())


@pytest.fixture
def judged(kernel_plugins: Callable[..., None]) -> None:
    kernel_plugins(JudgedPlugin())


def records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]


@pytest.mark.usefixtures("judged")
def test_the_evaluators_files_replace_what_the_agent_wrote_there(
        kernel_cli: Any, scripted_model: Any, run_dir: Path) -> None:
    evaluator = scripted_model(["no"])  # one answer: a second call would fail the sample
    result = kernel_cli("run", "judged", "--evaluator-model", evaluator, "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 0, result.stderr
    [record] = records(run_dir)
    assert record["status"] == "failure" and record["verdicts"][0]["data"] == {"word": "no"}
    assert record["candidate"]["files"] == {"answer.txt": "hello", VERDICT_FILE: "no"}
    notes = record["candidate"]["provenance"]["notes"]["evaluator"]
    assert notes["model"] == evaluator and notes["calls"] == 1
    assert notes["files"] == [VERDICT_FILE] and notes["usage"]["calls"] == 1
    assert record["candidate"]["provenance"]["usage"]["calls"] == 0, "the agent asked nothing"
    assert any("dropped 3 file(s) the agent wrote under evaluator/" in line
               for line in record["log"])
    responses = (run_dir / "responses.jsonl").read_text().splitlines()
    assert [json.loads(r)["model"] for r in responses] == [evaluator]

    again = kernel_cli("rescore", run_dir, "--display", "none")
    assert again.exit_code == 0, again.stderr
    [rescored] = records(run_dir)
    assert rescored["status"] == "failure"
    assert rescored["candidate"]["files"][VERDICT_FILE] == "no"


@pytest.mark.usefixtures("judged")
def test_without_an_evaluator_model_asking_one_is_a_one_line_error(
        kernel_cli: Any, run_dir: Path) -> None:
    result = kernel_cli("run", "judged", "--output", run_dir, "--display", "none")
    assert result.exit_code == 3
    [record] = records(run_dir)
    assert record["status"] == "error"
    assert record["error"] == ("preparation: KernelError: this run names no evaluator model "
                               "(--evaluator-model PROVIDER:NAME)")
    assert VERDICT_FILE not in record["candidate"]["files"]

    # A rescore calls no model, so it cannot prepare the answer: judged without the
    # evaluator's files it would be judged by what its agent wrote. It stays as it was.
    again = kernel_cli("rescore", run_dir, "--display", "none")
    assert again.exit_code == 0, again.stderr
    assert "kept as it was: its preparation failed" in again.stderr
    [rescored] = records(run_dir)
    assert (rescored["status"], rescored["error"]) == ("error", record["error"])
    assert rescored["verdicts"] == [] and rescored["candidate"] == record["candidate"]
    assert rescored["candidate"]["provenance"]["notes"]["evaluator"] == {
        "error": record["error"]}


@pytest.mark.usefixtures("judged")
@pytest.mark.parametrize(("prepare", "status", "error"), [
    ("nothing", "failure", None),
    ("misname", "error", "preparation: KernelError: benchmark judged: prepare must give text "
                         "files named under evaluator/, not {'verdict.txt': 'yes'}"),
])
def test_what_prepare_may_give(kernel_cli: Any, run_dir: Path, prepare: str, status: str,
                               error: str | None) -> None:
    """Nothing (the agent's forged word is still dropped), or files under evaluator/ only."""
    result = kernel_cli("run", "judged", "-o", f"prepare={prepare}", "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == (0 if error is None else 3), result.stderr
    [record] = records(run_dir)
    assert (record["status"], record["error"]) == (status, error)
    assert record["candidate"]["files"] == {"answer.txt": "hello"}


def test_an_evaluator_model_must_name_its_provider(kernel_cli: Any, judged: None,
                                                    run_dir: Path) -> None:
    result = kernel_cli("run", "judged", "--evaluator-model", "gpt-5", "--output", run_dir)
    assert result.exit_code == 2
    assert "model 'gpt-5' must be PROVIDER:NAME" in result.stderr
