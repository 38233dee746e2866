"""Layout invariance: a file and any re-layout of it (verusfmt's, or random whitespace, comments
and optional commas) get the same verdict from the cheat checker, honest or cheating.

verusfmt runs on every task and reference of the shared data (``layout.verusfmt``, through the
sandbox); hypothesis draws random re-layouts (``layout.points``/``vary``) of the small task of
``test_cheats.py`` and, with the shared data, of the benchmark's tasks and references, with and
without a cheat from the corpus planted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from corpus import Base, corpus, plant
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layout import points, vary, verusfmt
from speckernel.sandbox.local import LocalSandbox
from test_cheats import HONEST, TASK
from verus_fixtures import SHARED

from speckernel_verus.cheats import CheatPair, check_pairs, report_of
from speckernel_verus.helper import HelperServer, ask, helper_binary
from speckernel_verus.tasks import load_tasks

pytestmark = pytest.mark.usefixtures("helper")
needs_data = pytest.mark.skipif(not SHARED.is_dir(), reason=f"shared data not at {SHARED}")
CHEATS = corpus()


@pytest.fixture(scope="module")
def server() -> Iterator[HelperServer]:
    running = HelperServer(LocalSandbox(), helper_binary(), jobs=2)
    yield running
    running.close()


def verdict(server: HelperServer, task: str, candidate: str, target: str | None) -> frozenset[str]:
    report = report_of(server.submit(CheatPair(task, candidate, target).payload()).result(120))
    return frozenset(v.rule for v in report.violations)


@st.composite
def relaid(draw: st.DrawFn, text: str) -> str:
    """``text`` with a random subset of its layout points edited."""
    found = points(text)
    if not found:
        return text
    picks = draw(st.lists(st.tuples(st.integers(0, len(found) - 1), st.integers(0, 6)),
                          max_size=60))
    return vary(text, [(found[i], k) for i, k in picks])


SMALL = [(TASK, HONEST, None), (TASK, HONEST, "count"), (TASK, HONEST, "lemma_target"),
         (TASK, TASK.replace("r = r + 1;", "r = r + 2;"), "count"),
         (TASK, HONEST.replace("lemma_trusted(n);", "assume_(false);"), None)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(SMALL), data=st.data())
def test_a_relaid_small_pair_keeps_its_verdict(server, case, data):
    task, candidate, target = case
    expected = verdict(server, task, candidate, target)
    task2 = data.draw(relaid(task), label="task")
    candidate2 = data.draw(relaid(candidate), label="candidate")
    assert verdict(server, task2, candidate2, target) == expected


def test_the_layout_points_are_found_in_real_lists():
    text = "verus! { fn f(a: u8, b: u8) -> (u8, u8) { match a { 0 => { (a, b) }, _ => (b, a) } } }"
    kinds = {p.kind for p in points(text)}
    assert kinds == {"space", "add-comma", "drop-comma"}
    closure = "verus! { proof fn g() { assert(forall|i: int, j: int| i + j == j + i); } }"
    assert not any(p.kind == "add-comma" for p in points(closure))


@pytest.fixture(scope="module")
def shared_pairs() -> list[tuple[str, str, str, str | None]]:
    """(id, task, transplanted reference, target) for every task with a reference."""
    return [(t.id, t.files[t.metadata["file"]], t.reference[t.metadata["file"]],
             t.metadata["target"]) for t in load_tasks(SHARED) if t.reference]


@pytest.mark.slow
@needs_data
@pytest.mark.usefixtures("verusfmt")
def test_verusfmt_changes_no_verdict_on_the_shared_data(shared_pairs):
    tasks = [task for _, task, _, _ in shared_pairs]
    refs = [ref for _, _, ref, _ in shared_pairs]
    formatted = verusfmt(tasks + refs)
    assert all(f is not None for f in formatted)
    ftasks, frefs = formatted[:len(tasks)], formatted[len(tasks):]
    assert sum(f != t for f, t in zip(ftasks, tasks, strict=True)) > len(tasks) // 2
    targets = [target for _, _, _, target in shared_pairs]

    def rules(originals, candidates):
        pairs = [CheatPair(o, c, t) for o, c, t in zip(originals, candidates, targets, strict=True)]
        return [frozenset(v.rule for v in r.violations) for r in check_pairs(pairs)]

    # a model that only reformats the task is no cheat
    assert not any(rules(tasks, ftasks))
    base = rules(tasks, refs)
    for originals, candidates in ((ftasks, frefs), (tasks, frefs), (ftasks, refs)):
        changed = [shared_pairs[i][0] for i, (a, b) in
                   enumerate(zip(base, rules(originals, candidates), strict=True)) if a != b]
        assert changed == []


@pytest.mark.slow
@needs_data
@pytest.mark.usefixtures("verusfmt")
def test_verusfmt_hides_no_cheat(shared_pairs):
    sample = shared_pairs[::24]
    honest = [r for r in check_pairs([CheatPair(t, c, g) for _, t, c, g in sample])]
    sample = [row for row, r in zip(sample, honest, strict=True) if r.safe]
    listings = ask([{"mode": "functions", "original": text}
                    for _, task, ref, _ in sample for text in (ref, task)])
    cases = []
    for i, (name, task, ref, target) in enumerate(sample):
        at = target or next(f["name"] for f in listings[2 * i + 1]["functions"]
                            if f["mode"] in ("exec", "proof") and f["body"] and not f["stub"])
        base = Base(name, task, ref, target, at, listings[2 * i])
        cases += [(c, base, text) for c in CHEATS if (text := plant(c, base)) is not None]
    formatted = verusfmt([text for _, _, text in cases])
    kept = [(c, b, f) for (c, b, _), f in zip(cases, formatted, strict=True) if f is not None]
    assert len(kept) > 0.9 * len(cases)
    reports = check_pairs([CheatPair(b.task, f, b.target) for _, b, f in kept])
    missed = [(c.name, b.name) for (c, b, _), r in zip(kept, reports, strict=True)
              if not c.rules <= {v.rule for v in r.violations}]
    assert missed == []


@pytest.mark.slow
@needs_data
@settings(max_examples=120, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_relaid_benchmark_pair_keeps_its_verdict(server, shared_pairs, data):
    _, task, ref, target = data.draw(st.sampled_from(shared_pairs), label="task")
    expected = verdict(server, task, ref, target)
    assert verdict(server, data.draw(relaid(task)), data.draw(relaid(ref)), target) == expected
