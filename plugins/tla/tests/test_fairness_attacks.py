"""Adversarial models for the residual path of the invariant verifier (a liveness template
checked without its conjuncts that are the specification's own fairness conditions): for each
attack of ``data/properties/attacks/attacks.yaml``, every template's verdict is the one a TLC
run of it alone gives, and each template is checked the way the corpus lists (so it shows
whether the residual path was taken)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from speckernel.model import Candidate, Provenance, Task
from test_properties import FULL, verdicts_alone
from tla_testdata import DATA, attacks, corpus_files, invariant_task

from speckernel_tla.invariants import InvariantVerifier

ATTACKS_DIR = DATA / "properties" / "attacks"
ATTACKS = attacks(ATTACKS_DIR / "attacks.yaml")


def attack_task(attack: dict[str, Any]) -> Task:
    templates = {name: ("liveness", body) for name, body in attack["templates"].items()}
    return invariant_task(attack["name"], attack["module"], templates,
                          attrs.evolve(FULL, **attack.get("budgets", {})))


def attack_candidate(attack: dict[str, Any]) -> Candidate:
    return Candidate(corpus_files(ATTACKS_DIR, attack["files"]), Provenance("test", "none"))


@pytest.mark.anyio
@pytest.mark.parametrize("attack", ATTACKS, ids=[a["name"] for a in ATTACKS])
async def test_an_attack_on_the_residual_path_gets_the_verdicts_of_runs_alone(
        make_ctx: Any, jar: Path, attack: dict[str, Any]) -> None:
    task, candidate = attack_task(attack), attack_candidate(attack)
    verdict = await InvariantVerifier().verify(candidate, task, make_ctx())
    results = verdict.data["invariants"]
    shared = {name: r["outcome"] for name, r in results.items()}
    checked = {name: r["checked_as"] for name, r in results.items()}
    assert checked == attack["checked_as"]
    if attack.get("refused"):
        assert set(shared.values()) == {"error"} and verdict.data["tlc_runs"] == 0
        assert all(attack["refused"] in r["message"] for r in results.values())
        return
    if attack.get("nondeterministic"):  # each template's verdict is its own run's
        assert verdict.data["tlc_runs"] == len(attack["templates"])
        return
    alone = await verdicts_alone(task, candidate, jar, make_ctx())
    assert shared == alone, checked
