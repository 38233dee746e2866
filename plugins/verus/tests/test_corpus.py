"""The adversarial corpus (``tests/cheats/*.cheat``, see ``corpus.py``): every cheat is caught,
with the rules its file names, on every base it applies to: the small task of
``test_cheats.py`` with each of its targets, and (with the shared data) every honest reference
of the benchmark."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import pytest
from corpus import Base, Cheat, corpus, first_provable, planted
from test_cheats import HONEST, TASK
from verus_fixtures import SHARED

from speckernel_verus.cheats import CheatPair, check_pairs
from speckernel_verus.helper import ask
from speckernel_verus.tasks import load_tasks

pytestmark = pytest.mark.usefixtures("helper")

CHEATS = corpus()
STRUCT = "pub struct Account { balance: u64 }\n} // verus!"


def bases_of(rows: Sequence[tuple[str, str, str, str | None]]) -> list[Base]:
    """Bases from (name, task, honest candidate, target) rows."""
    answers = ask([{"mode": "functions", "original": text}
                   for _, task, candidate, _ in rows for text in (candidate, task)])
    out = []
    for i, (name, task, candidate, target) in enumerate(rows):
        functions, task_functions = answers[2 * i], answers[2 * i + 1]
        at = target or first_provable(task_functions)
        if at is not None:
            out.append(Base(name, task, candidate, target, at, functions))
    return out


def outcomes(cheats: Sequence[Cheat], bases: Sequence[Base]) -> dict[str, Counter[str]]:
    """Per cheat: how often it was planted, caught, and caught with its rules."""
    cases = planted(cheats, bases)
    reports = check_pairs([CheatPair(b.task, text, b.target) for _, b, text in cases])
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for (cheat, base, _), report in zip(cases, reports, strict=True):
        found = {v.rule for v in report.violations}
        out[cheat.name]["planted"] += 1
        out[cheat.name]["caught"] += not report.safe
        out[cheat.name]["as stated"] += cheat.rules <= found
        if not cheat.rules <= found:
            out[cheat.name][f"missed on {base.name}: {sorted(found)}"] += 1
    return out


def test_the_corpus_is_well_formed():
    assert len(CHEATS) >= 40
    for cheat in CHEATS:
        assert cheat.why and cheat.rules and cheat.sections, cheat.name


def test_every_cheat_is_caught_on_the_small_task():
    task, honest = (t.replace("} // verus!", STRUCT) for t in (TASK, HONEST))
    bases = bases_of([("small/any", task, honest, None), ("small/count", task, honest, "count"),
                      ("small/lemma", task, honest, "lemma_target")])
    assert len(bases) == 3
    found = outcomes(CHEATS, bases)
    for cheat in CHEATS:
        counts = found[cheat.name]
        assert counts["planted"] >= 1, f"{cheat.name} applies to no small base"
        assert counts["as stated"] == counts["planted"], (cheat.name, counts)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason=f"shared data not at {SHARED}")
def test_every_cheat_is_caught_on_every_reference_of_the_shared_data():
    tasks = [t for t in load_tasks(SHARED) if t.reference]
    rows = [(t.id, t.files[t.metadata["file"]], t.reference[t.metadata["file"]],
             t.metadata["target"]) for t in tasks]
    reports = check_pairs([CheatPair(task, ref, target) for _, task, ref, target in rows])
    bases = bases_of([row for row, r in zip(rows, reports, strict=True) if r.safe])
    assert len(bases) >= 380
    found = outcomes(CHEATS, bases)
    for cheat in CHEATS:
        counts = found[cheat.name]
        assert counts["as stated"] == counts["planted"] > 0, (cheat.name, counts)
    # the cheats that need nothing of their base apply to every base
    unconditional = [c for c in CHEATS if not c.needs and not c.targets
                     and all(w != "header" for w, _ in c.sections)]
    assert all(found[c.name]["planted"] == len(bases) for c in unconditional)
