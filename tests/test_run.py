"""End-to-end runs through the CLI, with the fixture benchmark's real Python checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("pyfunc")

GOOD_GCD = ("```solution.py\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n"
            "    return a\n```")
BAD_GCD = "```python\ndef gcd(a, b):\n    return a\n```"


def lines(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]


def test_reference_run_succeeds_and_records_everything(kernel_cli, run_dir: Path) -> None:
    result = kernel_cli("run", "pyfunc", "--output", run_dir, "--display", "plain")
    assert result.exit_code == 0, result.stderr
    assert "3 samples finished (3 success)" in result.stdout
    records = lines(run_dir)
    assert {r["key"]["task_id"] for r in records} == {"gcd", "is_prime", "reverse_words"}
    assert all(r["status"] == "success" for r in records)
    assert records[0]["verdicts"][0]["tool"] == "python"
    info = (run_dir / "run.yaml").read_text()
    assert "benchmark:" in info and "pyfunc" in info and "seed: 0" in info
    written = kernel_cli("artifacts", run_dir, "gcd")
    assert written.exit_code == 0
    gcd = next(r for r in records if r["key"]["task_id"] == "gcd")
    mirrored = run_dir / "artifacts" / "gcd__reference__none__0" / "solution.py"
    assert mirrored.read_text() == gcd["candidate"]["files"]["solution.py"]


def test_prompt_agent_repairs_with_verifier_feedback(kernel_cli, scripted_model, run_dir) -> None:
    model = scripted_model([BAD_GCD, GOOD_GCD])
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
                        "--agent-option", "rounds=1", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    [record] = lines(run_dir)
    assert record["status"] == "success"
    prov = record["candidate"]["provenance"]
    assert prov["verifier_calls"] == 1 and prov["usage"]["calls"] == 2
    repair = prov["messages"][3]["content"]
    assert "gcd(12, 18) == 6: false" in repair
    assert len((run_dir / "responses.jsonl").read_text().splitlines()) == 2


def test_garbage_output_is_judged_not_crashed(kernel_cli, scripted_model, run_dir) -> None:
    model = scripted_model(lambda messages: "I cannot help with that. \x00\x1b[31m")
    result = kernel_cli("run", "pyfunc", "--agent", "prompt", "--model", model,
                        "--output", run_dir, "--display", "none")
    assert result.exit_code == 0
    assert {r["status"] for r in lines(run_dir)} == {"failure"}
    assert lines(run_dir)[0]["verdicts"][0]["diagnostics"][0]["message"] == "no solution.py"


def test_a_lone_surrogate_in_a_candidate_is_judged(kernel_cli, scripted_model, run_dir) -> None:
    """A model's JSON answer may carry a lone surrogate: the candidate is hashed, written for
    the tool (as U+FFFD) and judged like any other, never an ``error`` re-run forever."""
    answer = "```solution.py\ndef gcd(a, b):\n    return 0  # \ud800\n```"
    model = scripted_model(lambda messages: answer)
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
                        "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    [record] = lines(run_dir)
    assert record["status"] == "failure"
    assert "\ud800" in record["candidate"]["files"]["solution.py"]


def test_hanging_candidate_is_a_timeout_verdict(kernel_cli, scripted_model, run_dir) -> None:
    model = scripted_model(lambda m: "```solution.py\nwhile True:\n    pass\n```")
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
                        "--timeout", "1", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0
    assert lines(run_dir)[0]["status"] == "timeout"


def test_resume_reruns_errors_and_keeps_the_rest(kernel_cli, scripted_model, run_dir) -> None:
    model = scripted_model([GOOD_GCD])  # one answer: the second sample's call fails
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "-n", "2", "--agent", "prompt",
                        "--model", model, "--output", run_dir, "--display", "none")
    assert result.exit_code == 3  # a sample ended in error (issue 17 D)
    assert "1 sample(s) ended in error" in result.stdout
    assert f"kernel run --resume {run_dir}" in result.stdout
    assert sorted(r["status"] for r in lines(run_dir)) == ["error", "success"]
    # The cache now holds sample 0's answer; sample 1 is re-run on resume.
    from speckernel import testing

    name = model.split(":")[1]
    testing._SCRIPTS[name] = [GOOD_GCD, GOOD_GCD]
    result = kernel_cli("run", "--resume", run_dir, "--display", "plain")
    assert result.exit_code == 0, result.stderr
    assert "1 samples finished (1 success), 1 solved; 1 already done" in result.stdout
    records = lines(run_dir)
    assert sorted(r["status"] for r in records) == ["success", "success"]
    assert len({(r["key"]["index"]) for r in records}) == 2


def test_cache_serves_the_second_identical_run(kernel_cli, scripted_model, tmp_path) -> None:
    model = scripted_model([GOOD_GCD])
    args = ("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model, "--display",
            "none")
    assert kernel_cli(*args, "--output", tmp_path / "r1").exit_code == 0
    assert kernel_cli(*args, "--output", tmp_path / "r2").exit_code == 0  # script exhausted
    [record] = lines(tmp_path / "r2")
    assert record["status"] == "success" and record["verdicts"][0]["cached"] is True
    stats = kernel_cli("cache", "stats")
    assert "model: 1 entries" in stats.stdout and "verdict: 1 entries" in stats.stdout


def test_max_cost_stops_cleanly(kernel_cli, kernel_plugins, run_dir) -> None:
    from speckernel import hookimpl
    from speckernel.model import Completion, Usage
    from speckernel.testing import _SCRIPTS, ScriptedModel, ScriptedProvider

    class Pricey(ScriptedProvider):
        name = "pricey"

        def model(self, model, options):
            inner = ScriptedModel(model)

            class Costly(type(inner)):
                async def complete(self, messages, params):
                    c = await inner.complete(messages, params)
                    return Completion(c.text, c.model, Usage(1, 1, 0.6, 1))

            return Costly(model)

    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(Pricey())

    kernel_plugins(Plugin())
    _SCRIPTS["costly"] = lambda m: GOOD_GCD
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "-n", "6", "--agent", "prompt",
                        "--model", "pricey:costly", "--max-cost", "1", "--model-concurrency",
                        "1", "--verifier-concurrency", "1", "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 4  # its own code: a budget stop (issue 17 D)
    assert "stopped early: max cost $1 reached" in result.stdout
    assert len(lines(run_dir)) < 6


def test_shards_split_the_work_and_report_merges(kernel_cli, tmp_path) -> None:
    run = tmp_path / "shared"
    for i in range(2):
        assert kernel_cli("run", "pyfunc", "-n", "2", "--shard", f"{i}/2", "--output", run,
                          "--display", "none").exit_code == 0
    files = sorted(p.name for p in run.glob("samples*.jsonl"))
    assert files == ["samples-0of2.jsonl", "samples-1of2.jsonl"]
    from speckernel.store import RunStore

    assert len(RunStore(run).load_samples()) == 6


def test_rescore_rejudges_saved_candidates(kernel_cli, run_dir) -> None:
    assert kernel_cli("run", "pyfunc", "--output", run_dir, "--display", "none").exit_code == 0
    result = kernel_cli("rescore", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert [r["status"] for r in lines(run_dir)] == ["success"] * 3


def test_agent_params_refine_the_run_params() -> None:
    from speckernel.model import GenerateParams

    run = GenerateParams(temperature=0.7, max_tokens=100, stop=("END",))
    assert GenerateParams(seed=3, max_tokens=50).over(run) == GenerateParams(
        temperature=0.7, max_tokens=50, stop=("END",), seed=3)


def test_rescore_with_other_options_into_a_new_directory(kernel_cli, run_dir, tmp_path) -> None:
    assert kernel_cli("run", "pyfunc", "--output", run_dir, "--display", "none").exit_code == 0
    before = (run_dir / "samples.jsonl").read_text()
    out = tmp_path / "only-gcd"
    result = kernel_cli("rescore", run_dir, "-o", "only=gcd", "--output", out,
                        "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert (run_dir / "samples.jsonl").read_text() == before
    assert "only: gcd" in (out / "run.yaml").read_text()
    rescored = {r["key"]["task_id"]: r for r in lines(out)}
    assert set(rescored) == {"gcd", "is_prime", "reverse_words"}  # others kept as they were
    again = kernel_cli("rescore", run_dir, "--output", out, "--display", "none")
    assert again.exit_code == 2 and "already holds a run" in again.stderr


def test_timeouts_are_not_served_from_the_cache(kernel_cli, scripted_model, tmp_path) -> None:
    model = scripted_model(lambda m: "```solution.py\nimport time\ntime.sleep(30)\n```")
    args = ("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
            "--timeout", "1", "--display", "none")
    assert kernel_cli(*args, "--output", tmp_path / "r1").exit_code == 0
    assert kernel_cli(*args, "--output", tmp_path / "r2").exit_code == 0
    [record] = lines(tmp_path / "r2")
    assert record["status"] == "timeout" and record["verdicts"][0]["cached"] is False


def test_a_run_whose_tool_is_missing_is_refused_before_any_model_call(
        kernel_cli, kernel_plugins, scripted_model, run_dir) -> None:
    """Issue 17 B: a missing tool used to cost every sample its model calls and then an
    ``error`` verdict. The run is refused up front with the install command, no model called.
    The runner asks ``tools_for(options)``: the tool an option does not pick is not needed."""
    from speckernel import hookimpl
    from speckernel.components import Benchmark, Phase, Toolchain, ToolStatus, Verifier
    from speckernel.model import Status, Task, Verdict

    calls: list[str] = []

    class Absent(Toolchain):
        name = "absent-tool"

        def detect(self) -> ToolStatus:
            return ToolStatus(self.name, False, detail="not on PATH")

    class NeedsTool(Verifier):
        """Needs the absent tool unless option ``backend`` picks the tool-free backend."""

        name = "needs.tool"
        tools = ("absent-tool",)

        def tools_for(self, options):
            return () if options.get("backend") == "builtin" else self.tools

        async def verify(self, candidate, task, ctx):
            calls.append(task.id)
            return Verdict(self.name, Status.SUCCESS)

    class Bench(Benchmark):
        name = "needs-tool"
        phases = (Phase("check", ("needs.tool",)),)
        options = {"backend": "absent"}

        def tasks(self, options):
            return [Task("t", self.name, reference={"a.txt": "x"})]

    class Plugin:
        @hookimpl
        def register_benchmarks(self, register):
            register(Bench())

        @hookimpl
        def register_verifiers(self, register):
            register(NeedsTool())

        @hookimpl
        def register_toolchains(self, register):
            register(Absent())

    kernel_plugins(Plugin())
    asked: list[object] = []
    model = scripted_model(lambda messages: asked.append(messages) or "```a.txt\nx\n```")
    result = kernel_cli("run", "needs-tool", "--agent", "prompt", "--model", model,
                        "--output", run_dir, "--display", "none")
    assert result.exit_code == 2 and calls == [] and asked == []
    assert result.stderr == (
        "error: a tool this run needs is missing: absent-tool (not on PATH); install with: "
        "kernel tools install absent-tool (kernel doctor shows them)\n")
    assert not (run_dir / "samples.jsonl").exists()

    other = run_dir.parent / "builtin"
    result = kernel_cli("run", "needs-tool", "--backend", "builtin", "--output", other,
                        "--display", "none")
    assert result.exit_code == 0, result.stdout
    [record] = lines(other)
    assert record["status"] == "success" and calls == ["t"]


def test_a_benchmark_refuses_a_run_up_front_and_options_are_flags(kernel_cli, kernel_plugins,
                                                                  run_dir) -> None:
    """``preflight`` stops a run with one line; ``pipeline`` drops the phases an option turns
    off; ``--check-only`` on the command line is the benchmark option ``check_only``."""
    from speckernel import hookimpl
    from speckernel.components import Benchmark, Phase, Verifier
    from speckernel.errors import KernelError
    from speckernel.model import Status, Task, Verdict

    called: list[str] = []

    class Check(Verifier):
        def __init__(self, name: str) -> None:
            self.name = name

        async def verify(self, candidate, task, ctx):
            called.append(self.name)
            return Verdict(self.name, Status.SUCCESS)

    class Bench(Benchmark):
        name = "two-phase"
        phases = (Phase("cheap", ("cheap.check",)), Phase("costly", ("costly.check",)))
        options = {"check_only": False}

        def tasks(self, options):
            return [Task("t", self.name, reference={"a.txt": "x"})]

        def pipeline(self, options):
            return self.phases[:1] if options["check_only"] else self.phases

        def preflight(self, options, agents):
            if not options["check_only"]:
                raise KernelError("the costly tool is missing; install it with: make costly")

    class Plugin:
        @hookimpl
        def register_benchmarks(self, register):
            register(Bench())

        @hookimpl
        def register_verifiers(self, register):
            register(Check("cheap.check"))
            register(Check("costly.check"))

    kernel_plugins(Plugin())
    refused = kernel_cli("run", "two-phase", "--output", run_dir, "--display", "none")
    assert refused.exit_code == 2 and called == []
    assert refused.stderr.strip() == (
        "error: the costly tool is missing; install it with: make costly")
    result = kernel_cli("run", "two-phase", "--check-only", "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert called == ["cheap.check"]
    assert [v["verifier"] for v in lines(run_dir)[0]["verdicts"]] == ["cheap.check"]
    typo = kernel_cli("run", "two-phase", "--check-onyl", "--display", "none")
    assert typo.exit_code == 2 and "check_onyl" in typo.stderr and "check_only" in typo.stderr
    stray = kernel_cli("run", "two-phase", "stray", "--display", "none")
    assert stray.exit_code == 2 and "unexpected argument 'stray'" in stray.stderr


def test_an_agent_reads_the_runs_benchmark_options(kernel_cli, kernel_plugins, run_dir) -> None:
    from speckernel import hookimpl
    from speckernel.components import Agent

    seen: list[dict] = []

    class Peek(Agent):
        name = "peek"
        needs_model = False

        async def solve(self, task, ctx):
            seen.append(dict(ctx.benchmark_options))
            return dict(task.reference or {})

    class Plugin:
        @hookimpl
        def register_agents(self, register):
            register(Peek())

    kernel_plugins(Plugin())
    result = kernel_cli("run", "pyfunc", "--only", "gcd", "--agent", "peek", "--output",
                        run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert seen == [{"only": "gcd"}]


def test_a_harness_measures_successful_samples_and_writes_to_their_log(
        kernel_cli, kernel_plugins, run_dir) -> None:
    """Benchmarking runs after verification, only for samples that succeeded; its numbers are
    the sample's measurements and its ``ctx.log`` lines join the sample's log."""
    from speckernel import hookimpl
    from speckernel.components import Benchmark, Harness, Metric, Phase, Verifier
    from speckernel.model import Status, Task, Verdict

    class Exact(Verifier):
        name = "exact"

        async def verify(self, candidate, task, ctx):
            good = candidate.files.get("a.txt") == "ok"
            return Verdict(self.name, Status.SUCCESS if good else Status.FAILURE)

    class Length(Harness):
        name = "length"
        metrics = (Metric("bytes", "size of a.txt", unit="count"),)

        async def measure(self, candidate, task, ctx):
            ctx.log(f"measured {task.id} on {ctx.options['where']}")
            return {"bytes": float(len(candidate.files["a.txt"]))}

    class Bench(Benchmark):
        name = "measured"
        phases = (Phase("check", ("exact",)),)
        harnesses = ("length",)
        options = {"where": "loopback"}

        def tasks(self, options):
            return [Task("good", self.name, reference={"a.txt": "ok"}),
                    Task("bad", self.name, reference={"a.txt": "no"})]

    class Plugin:
        @hookimpl
        def register_benchmarks(self, register):
            register(Bench())

        @hookimpl
        def register_verifiers(self, register):
            register(Exact())

        @hookimpl
        def register_harnesses(self, register):
            register(Length())

    kernel_plugins(Plugin())
    result = kernel_cli("run", "measured", "--where", "test-hosts", "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 0, result.stdout
    records = {r["key"]["task_id"]: r for r in lines(run_dir)}
    assert records["good"]["status"] == "success"
    assert records["good"]["measurements"] == {"bytes": 2.0}
    assert "measured good on test-hosts" in records["good"]["log"]
    assert records["bad"]["status"] == "failure" and records["bad"]["measurements"] == {}


# --------------------------------------------------------------------------- issue 17


def test_errors_exit_3_unless_allowed_and_the_summary_has_json(kernel_cli, scripted_model,
                                                               tmp_path) -> None:
    """Issue 17 D: every sample ending in ``error`` used to exit 0."""
    model = scripted_model(lambda messages: (_ for _ in ()).throw(RuntimeError("no key")))
    args = ("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
            "--display", "none")
    failed = kernel_cli(*args, "--output", tmp_path / "a")
    assert failed.exit_code == 3
    allowed = kernel_cli(*args, "--allow-errors", "--json", "--output", tmp_path / "b")
    assert allowed.exit_code == 0, allowed.stderr
    summary = json.loads(allowed.stdout)
    assert summary["counts"] == {"error": 1} and summary["exit_code"] == 0
    assert summary["run"] == str(tmp_path / "b") and summary["solved"] == 0
    assert summary["report"] == str(tmp_path / "b" / "report.html")


def test_the_run_directory_is_shown_when_the_run_starts(kernel_cli, run_dir) -> None:
    """Issue 17 I: nothing said where the run was being written until it was over."""
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--output", run_dir, "--display", "plain")
    assert result.stdout.splitlines()[0] == f"run directory {run_dir}"


def test_an_agent_without_a_model_runs_once_whatever_the_models(kernel_cli, scripted_model,
                                                                run_dir) -> None:
    """Issue 17 F: ``--agent reference --model A --model B`` ran the reference once per model,
    labelled with models it never used."""
    a, b = scripted_model([GOOD_GCD]), scripted_model([GOOD_GCD])
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "reference", "--agent",
                        "prompt", "--model", a, "--model", b, "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 0, result.stderr
    keys = sorted((r["key"]["agent"], r["key"]["model"]) for r in lines(run_dir))
    assert keys == sorted([("reference", "none"), ("prompt", a), ("prompt", b)])


def test_an_unknown_price_is_unknown_not_zero(kernel_cli, kernel_plugins, run_dir) -> None:
    """Issue 17 M: a model the price table does not list showed as $0.0000."""
    from speckernel import hookimpl
    from speckernel.components import Model, ModelProvider
    from speckernel.model import Completion
    from speckernel.providers.pricing import prices

    class Local(Model):
        def __init__(self, name: str) -> None:
            self.id = f"local:{name}"

        async def complete(self, messages, params):
            return Completion(GOOD_GCD, self.id, prices().usage(self.id, 120, 40))

    class LocalProvider(ModelProvider):
        name = "local"

        def model(self, model, options):
            return Local(model)

    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(LocalProvider())

    kernel_plugins(Plugin())
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model",
                        "local:my-finetune", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert "cost unknown (1 unpriced call)" in result.stdout
    assert lines(run_dir)[0]["candidate"]["provenance"]["usage"]["unpriced_calls"] == 1
    shown = kernel_cli("show", run_dir, "gcd")
    assert "cost unknown (1 unpriced call)" in shown.stdout and "$0.0000" not in shown.stdout
    assert "| unknown (1 unpriced call) |" in (run_dir / "report.md").read_text()


def test_a_replay_keeps_the_name_of_the_model_it_replays(kernel_cli, scripted_model,
                                                         tmp_path) -> None:
    """Issue 17 N: a replay run lost the original model's name."""
    model = scripted_model([GOOD_GCD])
    first = tmp_path / "first"
    assert kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
                      "--output", first, "--display", "none").exit_code == 0
    replay = f"replay:{first / 'responses.jsonl'}"
    again = tmp_path / "again"
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", replay,
                        "--no-cache", "--output", again, "--display", "none")
    assert result.exit_code == 0, result.stderr
    [record] = lines(again)
    assert record["key"]["model"] == replay
    assert record["candidate"]["provenance"]["model"] == model
    assert f"answered by {model}" in kernel_cli("show", again, "gcd").stdout
    assert f"(answered by {model})" in (again / "report.md").read_text()


def test_the_reference_agent_leaves_out_tasks_without_a_reference(kernel_cli, kernel_plugins,
                                                                 run_dir) -> None:
    """A task with no reference artifact cannot be attempted by ``reference``: it gets no sample
    (an ``error`` there would ask for a resume that can never help), the run says so in one
    line and exits 0; a selection of only such tasks is refused up front."""
    from speckernel import hookimpl
    from speckernel.components import Benchmark, Phase, Verifier
    from speckernel.model import Status, Task, Verdict

    class Check(Verifier):
        name = "gold.check"

        async def verify(self, candidate, task, ctx):
            return Verdict(self.name, Status.SUCCESS)

    class Bench(Benchmark):
        name = "half-gold"
        phases = (Phase("check", ("gold.check",)),)

        def tasks(self, options):
            return [Task("gold", self.name, reference={"a.txt": "x"}),
                    *(Task(f"bare{i}", self.name) for i in range(5))]

    class Plugin:
        @hookimpl
        def register_benchmarks(self, register):
            register(Bench())

        @hookimpl
        def register_verifiers(self, register):
            register(Check())

    kernel_plugins(Plugin())
    result = kernel_cli("run", "half-gold", "--output", run_dir, "--display", "plain")
    assert result.exit_code == 0, result.stderr
    assert [r["key"]["task_id"] for r in lines(run_dir)] == ["gold"]
    warning = ("agent 'reference' cannot attempt 5 task(s), left out of the run: bare0 (no "
               "reference artifact), bare1 (no reference artifact), bare2 (no reference "
               "artifact), and 2 more")
    assert result.stderr.count("\n") == 1 and warning in result.stderr
    refused = kernel_cli("run", "half-gold", "-t", "bare*", "--display", "none")
    assert refused.exit_code == 2 and refused.stderr.strip() == (
        "error: nothing to run: agent 'reference' cannot attempt task 'bare0' (no reference "
        "artifact), nor any other task selected")
