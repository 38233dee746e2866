"""``kernel compare``: paired outcomes, bootstrap intervals and McNemar p-values checked against
SciPy on runs with a known difference; refusals and the intersection rule; every output format."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from runbuilder import sample, write_run
from speckernel.compare import compare_runs, render_html, render_json, render_markdown
from speckernel.model import Message

BOTH, ONLY_A, ONLY_B, NEITHER = 16, 4, 12, 8
TASKS = [f"t{i:02d}" for i in range(BOTH + ONLY_A + ONLY_B + NEITHER)]


def outcomes() -> list[tuple[bool, bool]]:
    """(A solved, B solved) per task: 16 both, 4 only A, 12 only B, 8 neither."""
    return ([(True, True)] * BOTH + [(True, False)] * ONLY_A + [(False, True)] * ONLY_B
            + [(False, False)] * NEITHER)


def rate_a(i: int) -> float:
    return round((i * 7 % 11) / 10, 2)


def rate_b(i: int) -> float:
    return round(min(1.0, rate_a(i) + (i % 5) / 20), 2)


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    a = write_run(tmp_path / "run-a", [
        sample(t, model="openai:model-a", solved=sa, digest=f"d-{t}",
               metrics={"passed": float(sa), "check_rate": rate_a(i)})
        for i, (t, (sa, _)) in enumerate(zip(TASKS, outcomes(), strict=True))])
    b = write_run(tmp_path / "run-b", [
        sample(t, model="openai:model-b", solved=sb, digest=f"d-{t}",
               metrics={"passed": float(sb), "check_rate": rate_b(i)})
        for i, (t, (_, sb)) in enumerate(zip(TASKS, outcomes(), strict=True))])
    return a, b


def scipy_interval(diffs: list[float]) -> tuple[float, float]:
    ci = scipy_stats.bootstrap((np.array(diffs),), np.mean, method="percentile",
                               n_resamples=20_000, confidence_level=0.95,
                               random_state=np.random.default_rng(1)).confidence_interval
    return float(ci.low), float(ci.high)


def test_known_difference_matches_scipy(two_runs) -> None:
    comparison = compare_runs(list(two_runs), resamples=20_000)
    assert [(a.label, a.model, a.tasks) for a in comparison.arms] == [
        ("A", "openai:model-a", 40), ("B", "openai:model-b", 40)]
    (pair,) = comparison.pairs
    assert pair.notes == () and comparison.notes == ()
    tests = {t.outcome: t for t in pair.tests}
    assert set(tests) == {"solved", "passed"}  # check_rate is not binary
    solved = tests["solved"]
    assert (solved.pairs, solved.both, solved.only_a, solved.only_b, solved.neither) == (
        40, BOTH, ONLY_A, ONLY_B, NEITHER)
    assert solved.p_value == pytest.approx(scipy_stats.binomtest(ONLY_A, ONLY_A + ONLY_B,
                                                                 0.5).pvalue, rel=1e-12)
    assert tests["passed"].p_value == solved.p_value

    differences = {d.metric: d for d in pair.differences}
    solved_diffs = [float(b) - float(a) for a, b in outcomes()]
    rate_diffs = [rate_b(i) - rate_a(i) for i in range(len(TASKS))]
    for name, diffs in (("solved", solved_diffs), ("check_rate", rate_diffs)):
        d = differences[name]
        assert d.tasks == 40
        assert d.difference.estimate == pytest.approx(float(np.mean(diffs)))
        low, high = scipy_interval(diffs)
        se = float(np.std(diffs, ddof=1) / np.sqrt(len(diffs)))
        # two Monte Carlo estimates of the same percentiles: they agree to a fraction of a SE
        assert d.difference.low == pytest.approx(low, abs=0.25 * se)
        assert d.difference.high == pytest.approx(high, abs=0.25 * se)
    assert differences["solved"].difference.estimate == pytest.approx(0.2)
    assert differences["solved"].mean_a == pytest.approx(0.5)
    assert differences["solved"].mean_b == pytest.approx(0.7)

    assert pair.disagreements == ONLY_A + ONLY_B
    assert all(t.disagree for t in pair.tasks[:16]) and not any(t.disagree
                                                                 for t in pair.tasks[16:])


def test_cli_prints_the_same_numbers_in_every_format(kernel_cli, two_runs, tmp_path) -> None:
    a, b = two_runs
    md = kernel_cli("compare", a, b)
    assert md.exit_code == 0, md.stderr
    p = scipy_stats.binomtest(ONLY_A, ONLY_A + ONLY_B, 0.5).pvalue
    assert f"| {p:.3g} |" in md.stdout
    assert "16 of 40 task(s) disagree" in md.stdout
    first_task_row = next(line for line in md.stdout.splitlines()
                          if line.startswith(tuple(f"| {t} |" for t in TASKS)))
    assert first_task_row.endswith("| yes |")

    raw = kernel_cli("compare", a, b, "--format", "json")
    data = json.loads(raw.stdout)
    pair = data["pairs"][0]
    assert pair["disagreements"] == 16
    solved = next(t for t in pair["tests"] if t["outcome"] == "solved")
    assert solved["p_value"] == pytest.approx(p)
    diff = next(d for d in pair["differences"] if d["metric"] == "solved")
    assert diff["difference"]["estimate"] == pytest.approx(0.2)
    assert diff["difference"]["low"] < 0.2 < diff["difference"]["high"]

    out = tmp_path / "comparison.html"
    written = kernel_cli("compare", a, b, "--format", "html", "--output", out)
    assert written.exit_code == 0 and str(out) in written.stdout
    page = out.read_text()
    assert f"{p:.3g}" in page and "<style>" in page
    assert "<script" not in page and "<link" not in page and "http" not in page.split(
        "</head>")[0]

    assert kernel_cli("compare", a, b, "--format", "pdf").stderr.startswith(
        "error: unknown format 'pdf'")
    assert kernel_cli("compare", a, b, "--resamples", "0").exit_code == 2


def test_several_attempts_use_rates_and_first_attempts(tmp_path: Path) -> None:
    # per task: A solves 1 of 3 attempts (the first), B 3 of 3; B's last attempt of t1 errored
    a = write_run(tmp_path / "a", [sample(t, model="m:a", index=i, solved=i == 0)
                                   for t in ("t0", "t1") for i in range(3)])
    b = write_run(tmp_path / "b", [sample(t, model="m:b", index=i,
                                          error="rate limited" if (t, i) == ("t1", 2) else None)
                                   for t in ("t0", "t1") for i in range(3)])
    comparison = compare_runs([a, b], resamples=2000)
    assert comparison.notes == ("B: 1 sample(s) ended in error and are left out",)
    (pair,) = comparison.pairs
    rows = {t.task_id: (t.a.solved, t.a.samples, t.b.solved, t.b.samples) for t in pair.tasks}
    assert rows == {"t0": (1, 3, 3, 3), "t1": (1, 3, 2, 2)}
    solved = next(d for d in pair.differences if d.metric == "solved")
    assert solved.difference.estimate == pytest.approx(2 / 3)
    test = next(t for t in pair.tests if t.outcome == "solved")
    assert (test.pairs, test.both, test.p_value) == (2, 2, 1.0)  # first attempts all solved


def test_partly_overlapping_tasks_compare_on_the_intersection(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", [sample(t, model="m:a") for t in ("x", "y", "z")])
    b = write_run(tmp_path / "b", [sample(t, model="m:b", solved=False) for t in ("y", "z", "w")])
    comparison = compare_runs([a, b], resamples=500)
    (pair,) = comparison.pairs
    assert [t.task_id for t in pair.tasks] == ["y", "z"]
    assert pair.notes == ("compared on the 2 task(s) both have: 1 only in A, 1 only in B are "
                          "left out",)
    assert "compared on the 2 task(s) both have" in render_markdown(comparison)


def test_one_run_with_two_models_compares_them(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [sample(t, model=m, solved=m == "m:a")
                                       for t in ("x", "y") for m in ("m:a", "m:b")])
    comparison = compare_runs([run], resamples=200)
    assert [a.model for a in comparison.arms] == ["m:a", "m:b"]
    assert comparison.pairs[0].disagreements == 2


def test_three_arms_give_every_pair(tmp_path: Path) -> None:
    runs = [write_run(tmp_path / m, [sample("x", model=f"m:{m}")]) for m in "abc"]
    comparison = compare_runs(runs, resamples=100)
    assert [(p.a, p.b) for p in comparison.pairs] == [("A", "B"), ("A", "C"), ("B", "C")]


@pytest.mark.parametrize(("setup", "message"), [
    ("benchmarks", "runs of different benchmarks cannot be compared"),
    ("digest", "task 'x' is not the same task in"),
    ("disjoint", "have no task in common"),
    ("single", "nothing to compare"),
    ("missing", "is not a run directory"),
])
def test_refusals_name_the_reason(kernel_cli, tmp_path: Path, setup: str, message: str) -> None:
    a = write_run(tmp_path / "a", [sample("x", model="m:a", digest="1")])
    runs = [a]
    if setup == "benchmarks":
        runs.append(write_run(tmp_path / "b", [sample("x", model="m:b")], benchmark="other"))
    elif setup == "digest":
        runs.append(write_run(tmp_path / "b", [sample("x", model="m:b", digest="2")]))
    elif setup == "disjoint":
        runs.append(write_run(tmp_path / "b", [sample("y", model="m:b")]))
    elif setup == "missing":
        runs.append(tmp_path / "nowhere")
    result = kernel_cli("compare", *runs)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_hostile_names_stay_text_in_markdown_and_html(tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>|`x`"
    a = write_run(tmp_path / "a", [sample(evil, model="m:<img src=x onerror=alert(1)>")])
    b = write_run(tmp_path / "b", [sample(evil, model="m:b", solved=False)])
    comparison = compare_runs([a, b], resamples=100)
    page = render_html(comparison)
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    md = render_markdown(comparison)
    assert "<script>" not in md and "\\|" in md
    assert json.loads(render_json(comparison))["pairs"][0]["tasks"][0]["task_id"] == evil


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.floats(0, 1), st.floats(0, 1)),
                min_size=1, max_size=12))
def test_swapping_runs_mirrors_the_comparison(tmp_path_factory, rows) -> None:
    root = tmp_path_factory.mktemp("swap")
    a = write_run(root / "a", [sample(f"t{i}", model="m:a", solved=sa, metrics={"r": ra})
                               for i, (sa, _, ra, _) in enumerate(rows)])
    b = write_run(root / "b", [sample(f"t{i}", model="m:b", solved=sb, metrics={"r": rb})
                               for i, (_, sb, _, rb) in enumerate(rows)])
    forward = compare_runs([a, b], resamples=300, seed=4).pairs[0]
    backward = compare_runs([b, a], resamples=300, seed=4).pairs[0]
    for f, g in zip(forward.differences, backward.differences, strict=True):
        assert f.metric == g.metric and (f.mean_a, f.mean_b) == (g.mean_b, g.mean_a)
        assert g.difference.estimate == pytest.approx(-f.difference.estimate, abs=1e-12)
        assert g.difference.low == pytest.approx(-f.difference.high, abs=1e-12)
        assert g.difference.high == pytest.approx(-f.difference.low, abs=1e-12)
        assert f.difference.low <= f.difference.estimate + 1e-12
        assert f.difference.estimate <= f.difference.high + 1e-12
    for f, g in zip(forward.tests, backward.tests, strict=True):
        assert (f.only_a, f.only_b, f.p_value) == (g.only_b, g.only_a, g.p_value)
    assert forward.disagreements == backward.disagreements


def test_kernel_runs_of_two_models(kernel_cli, scripted_model, tmp_path, pyfunc) -> None:
    """Two real ``kernel run``s of the fixture benchmark: a model that answers with the
    reference solutions and one that answers nonsense; every task disagrees."""
    from speckernel_pyfunc.plugin import TASKS

    def right(messages: list[Message]) -> str:
        task = next(name for name in TASKS if f"Write {name}(" in messages[1].content)
        return f"```solution.py\n{TASKS[task][1]}```"

    runs = []
    for name, script in (("good", right), ("bad", lambda m: "```solution.py\nx = (\n```")):
        run = tmp_path / name
        result = kernel_cli("run", "pyfunc", "--agent", "prompt", "--model",
                            scripted_model(script), "--output", run, "--display", "none")
        assert result.exit_code == 0, result.stderr
        runs.append(run)
    data = json.loads(kernel_cli("compare", *runs, "--format", "json").stdout)
    (pair,) = data["pairs"]
    assert pair["disagreements"] == 3
    solved = next(t for t in pair["tests"] if t["outcome"] == "solved")
    assert (solved["only_a"], solved["only_b"]) == (3, 0)
    assert solved["p_value"] == pytest.approx(scipy_stats.binomtest(3, 3, 0.5).pvalue)
    diff = next(d for d in pair["differences"] if d["metric"] == "solved")["difference"]
    assert diff == {"estimate": -1.0, "low": -1.0, "high": -1.0}


def test_numbers_beyond_the_float_range_are_left_out_with_the_reason(tmp_path: Path) -> None:
    big = 1.7e308
    a = write_run(tmp_path / "a", [sample(f"t{i}", model="m:a", cost=big,
                                          metrics={"x": (-1) ** i * big, "y": 1.0})
                                   for i in range(4)])
    b = write_run(tmp_path / "b", [sample(f"t{i}", model="m:b", cost=big,
                                          metrics={"x": big, "y": 0.5}) for i in range(4)])
    comparison = compare_runs([a, b], resamples=100)
    (pair,) = comparison.pairs
    assert "x: values beyond the float range; not compared" in pair.notes
    assert [d.metric for d in pair.differences] == ["solved", "y"]
    json.loads(render_json(comparison))
    render_html(comparison)
