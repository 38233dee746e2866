"""Adversarial candidates against the batching of invariant templates
(``data/invariants/batching/batching.yaml``): for each, every template's verdict is the one a
TLC run of it alone gives, and those runs give what the corpus lists; a candidate whose cfg
tampers with what is checked gets an error for every template, without a TLC run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from speckernel.model import Candidate, Provenance, Task
from test_properties import FULL, verdicts_alone
from tla_testdata import DATA, attacks, corpus_files, invariant_task

from speckernel_tla.artifact import ModelUnderTest, model_under_test
from speckernel_tla.cfg_tampering import Replacements, tampering
from speckernel_tla.enclosure import GENERATED_NAME
from speckernel_tla.invariants import InvariantSession, InvariantVerifier
from speckernel_tla.standard_names import standard_names
from speckernel_tla.tasks import Budgets
from speckernel_tla.tlc_config import REDUCING_SECTIONS, sections

BATCHING_DIR = DATA / "invariants" / "batching"
ATTACKS = attacks(BATCHING_DIR / "batching.yaml")


def attack_task(attack: dict[str, Any]) -> Task:
    return invariant_task(attack["name"], attack.get("module", "Counter"), attack["templates"],
                          attrs.evolve(FULL, **attack.get("budgets", {})))


def attack_candidate(attack: dict[str, Any]) -> Candidate:
    module = attack.get("module", "Counter")
    files = corpus_files(BATCHING_DIR, attack.get("files", [f"{module}.tla", f"{module}.cfg"]))
    if "cfg" in attack:
        files[f"{module}.cfg"] = attack["cfg"]
    return Candidate(files, Provenance("test", "none"))


@pytest.mark.anyio
@pytest.mark.parametrize("attack", ATTACKS, ids=[a["name"] for a in ATTACKS])
async def test_a_batching_attack_gets_the_verdicts_of_runs_alone(
        make_ctx: Any, jar: Path, attack: dict[str, Any]) -> None:
    task, candidate = attack_task(attack), attack_candidate(attack)
    verdict = await InvariantVerifier().verify(candidate, task, make_ctx())
    shared = {name: r["outcome"] for name, r in verdict.data["invariants"].items()}
    if attack.get("refused"):
        assert shared == dict.fromkeys(attack["templates"], "error")
        assert verdict.data["tlc_runs"] == 0
        return
    alone = await verdicts_alone(task, candidate, jar, make_ctx())
    assert alone == attack["alone"]
    assert shared == alone
    if "runs" in attack:
        assert verdict.data["tlc_runs"] == attack["runs"]


def test_standard_operators_are_read_from_the_modules(jar: Path) -> None:
    names = standard_names(jar)
    assert {"Nat", "Int", "Cardinality", "Len", "Append", "TLCGet", "+", "..", "\\leq", "<=",
            ":>", "@@", "(+)", "-.", "Max", "ToSet"} <= names
    assert not {"B1", "LOCAL", "CS", "Sum", "x"} & names  # parameters, local definitions


def test_a_cfg_may_set_the_models_own_names_only(jar: Path) -> None:
    model = "---- MODULE M ----\nCONSTANTS Max, Op(_, _)\nVARIABLE x\nLen == 3\n====\n"
    standard = standard_names(jar)
    for cfg in ("CONSTANT Max = 3\nINVARIANT SkInv_A\n", "CONSTANT Len <- Four\n",
                "CONSTANT Op <- Plus\n", 'CONSTANT N = "SkInv_A"\n', "CONSTANT N = xSkInv_A\n"):
        assert tampering(cfg, [model], GENERATED_NAME.fullmatch, standard) is None, cfg
    for cfg in ("CONSTANT Cardinality <- Zero\n", "CONSTANT Nat = {0}\n", "CONSTANT + <- Minus\n",
                "CONSTANT \\leq <- Less\n", "CONSTANT SkSafe_A <- Yes\n", "INIT SkInv_A\n",
                "CONSTRAINT SpeckernelBudgetConstraint\n", "SYMMETRY SkMonWatch\n",
                # a user-defined symbol: no reading of what a cfg replaces follows symbols
                "CONSTANT ++ <- Nix\n"):
        assert tampering(cfg, [model + "a ++ b == a \\cup b\n"], GENERATED_NAME.fullmatch,
                         standard) is not None, cfg


MODEL_USING = "---- MODULE M ----\nEXTENDS Naturals, Helper\nVARIABLE x\n{inside}====\n{after}"


@pytest.mark.parametrize(("inside", "after", "helper", "refused"), [
    ("Assert(a, b) == TRUE\n", "", "", False),
    ("", "", "Assert(a, b) == TRUE\n", False),  # in a module the model extends
    ("I == INSTANCE Inner\n---- MODULE Inner ----\nAssert(a, b) == TRUE\n====\n", "", "", False),
    # decoys SANY never reads (found by an attacker: M_r 1 for a model failing its assertion)
    ("", "Assert(a, b) == TRUE\n", "", True),  # after the module's end
    # a second module after the end, named like the file the model extends: SANY reads the file
    ("", "---- MODULE Helper ----\nAssert(a, b) == TRUE\n====\n", "", True),
    ("---- MODULE Inner ----\nAssert(a, b) == TRUE\n====\n", "", "", True),  # inner, unused
    ("(* Assert(a, b) == TRUE *)\n", "", "", True),
    ("\\* a comment a lone carriage return ends\rAssert(a, b) == TRUE\n", "", "", False),
])
def test_a_model_owns_only_the_definitions_sany_reads(
        jar: Path, inside: str, after: str, helper: str, refused: bool) -> None:
    model = MODEL_USING.format(inside=inside, after=after)
    texts = [model, f"---- MODULE Helper ----\n{helper}====\n",
             "---- MODULE Unused ----\nAssert(a, b) == TRUE\n====\n"]
    why = tampering("CONSTANT Assert <- Yes\n", texts, GENERATED_NAME.fullmatch,
                    standard_names(jar))
    assert (why == "the cfg replaces Assert, an operator of a standard module") is refused, why


@pytest.mark.parametrize("budgets", [FULL, attrs.evolve(FULL, depth=7)])
def test_the_cfgs_reductions_are_never_used(make_ctx: Any, jar: Path, budgets: Budgets) -> None:
    """Every cfg TLC gets is the candidate's without its constraints, view and symmetry; a
    search they bounded is bounded by the default budgets where the task gives none."""
    attack = {"name": "reduced", "templates": {"A": ["safety", " x <= 3"]},
              "cfg": "SPECIFICATION Spec\nCONSTRAINT Never\nCONSTANT N = 1\nVIEW Zero\n"
                     "ACTION_CONSTRAINT Stuck\nSYMMETRY Small\nCONSTRAINTS Never\n"}
    model = model_under_test(attack_candidate(attack), attack_task(attack))
    assert isinstance(model, ModelUnderTest)
    session = InvariantSession(jar, model, budgets, make_ctx())
    assert [k for k, _ in sections(session.model.cfg_text)] == ["SPECIFICATION", "CONSTANT"]
    assert set(session.reductions) <= REDUCING_SECTIONS and len(session.reductions) == 5
    default = Budgets()
    assert (session.budgets.depth, session.budgets.states) == (
        (default.depth, default.states) if budgets == FULL else (7, 0))


MODEL = """---- MODULE M ----
VARIABLE pc
CONSTANT Threads
Holders == {t \\in Threads : pc[t] = 1}
  Hidden == Holders
Shown == LET S == Aux IN S
Aux == 1
NoOne == {}
====
Decoy == Holders
"""


@pytest.mark.parametrize(("cfg", "criterion", "read"), [
    ("CONSTANT Holders <- NoOne", "Cardinality(Holders) <= 1", ["Holders"]),
    # through an indented definition, a LET, a definition past the module's end
    ("CONSTANT Holders <- NoOne", "Hidden = {}", ["Holders"]),
    ("CONSTANT Aux <- NoOne", "Shown = 1", ["Aux"]),
    ("CONSTANT Holders = {}", "Decoy = {}", ["Holders"]),
    # a constant given its value, a definition nothing read, strings and comments name nothing
    ("CONSTANT Threads = {1}", "Holders = {}", []),
    ("CONSTANT Aux <- NoOne", "pc = 1", []),
    ("CONSTANT Holders <- NoOne", '"Holders" = "x" \\* Holders', []),
])
def test_the_definitions_a_criterion_reads_that_the_cfg_replaces(
        cfg: str, criterion: str, read: list[str]) -> None:
    assert Replacements.of(cfg, [MODEL]).read_by([criterion]) == read
