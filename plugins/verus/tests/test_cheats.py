"""The cheat checker: one test per rule, the benchmark's ground truths, the upstream examples.

The helper is the real ``verus-cheatcheck`` binary; the session fixture builds it with the
toolchain's own install command when it is not built yet (a few minutes, once).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
from speckernel.components import ToolResolver, VerifyContext
from speckernel.model import Candidate, Provenance, Status, Task
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools

from speckernel_verus.cheats import (
    BINARY_ENV,
    BUILD,
    TOOL,
    CheatCheckError,
    CheatCheckToolchain,
    CheatPair,
    CheatReport,
    CheatVerifier,
    Violation,
    binary_path,
    check,
    check_pairs,
    read_answers,
)
from speckernel_verus.tasks import load_tasks, target_function

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "verus"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not at {DATA}")


@pytest.fixture(scope="session", autouse=True)
def helper() -> Path:
    """The built helper, (re)built with the install step when missing or older than its sources."""
    if not CheatCheckToolchain().detect().found:
        if shutil.which("cargo") is None:
            pytest.fail("verus-cheatcheck is not built and cargo is missing: "
                        "`kernel tools install verus`")
        subprocess.run(["bash", "-c", BUILD], check=True, timeout=1800)
    return binary_path()


TASK = """\
use vstd::prelude::*;
fn main() {}

verus! {

pub open spec fn sum_to(n: nat) -> nat
    decreases n,
{
    if n == 0 { 0 } else { n + sum_to((n - 1) as nat) }
}

#[verifier::external_body]
proof fn lemma_trusted(n: nat)
    ensures sum_to(n) >= n,
{
    unimplemented!()
}

proof fn lemma_target(n: nat)
    requires n > 0,
    ensures sum_to(n) >= 1,
{
}

fn count(v: &Vec<u64>) -> (r: u64)
    requires v.len() < 100,
    ensures r <= v.len(),
{
    let mut i: usize = 0;
    let mut r: u64 = 0;
    while i < v.len() {
        if v[i] > 0 {
            r = r + 1;
        }
        i = i + 1;
    }
    r
}

} // verus!
"""

HONEST = """\
use vstd::prelude::*;
fn main() {}

verus! {

use vstd::arithmetic::mul::*;

pub open spec fn sum_to(n: nat) -> nat
    decreases n,
{
    if n == 0 { 0 } else { n + sum_to((n - 1) as nat) }
}

#[verifier::external_body]
proof fn lemma_trusted(n: nat)
    ensures sum_to(n) >= n,
{
    unimplemented!()
}

// a helper lemma the proof adds
proof fn lemma_helper(n: nat)
    requires n > 0,
    ensures sum_to(n) >= n,
    decreases n,
{
    if n > 1 { lemma_helper((n - 1) as nat); }
}

spec fn twice(n: nat) -> nat { 2 * n }

#[verifier::rlimit(50)]
proof fn lemma_target(n: nat)
    requires n > 0,
    ensures sum_to(n) >= 1,
    decreases n,
{
    lemma_trusted(n);
    assert(sum_to(n) >= 1) by { lemma_helper(n); }
}

fn count(v: &Vec<u64>) -> (r: u64)
    requires v.len() < 100,
    ensures r <= v.len(),
{
    let mut i: usize = 0;
    let mut r: u64 = 0;
    let ghost start = i;
    while i < v.len()
        invariant
            i <= v.len(),
            r <= i,
        decreases v.len() - i,
    {
        if (v[i] > 0) {
            proof { assert(r < v.len()); }
            r = r + 1;
        }
        i = i + 1;
    }
    assert(r <= v.len());
    r
}

} // verus!
"""


def rules(candidate: str, original: str = TASK, target: str | None = None) -> set[str]:
    return {v.rule for v in check(original, candidate, target).violations}


def test_an_honest_proof_passes():
    report = check(TASK, HONEST)
    assert report.safe, report.summary()


def test_only_the_named_target_may_change():
    assert rules(HONEST, target="lemma_target") == {"item-changed"}


def test_the_task_itself_passes():
    assert check(TASK, TASK, "count").safe


def test_adding_assume_changes_the_counts():
    cheat = HONEST.replace("lemma_trusted(n);", "assume(sum_to(n) >= 1);")
    assert "counts" in rules(cheat)


def test_adding_admit_changes_the_counts():
    assert "counts" in rules(HONEST.replace("lemma_trusted(n);", "admit();"))


def test_removing_external_body_from_a_stub_changes_the_counts():
    cheat = TASK.replace("#[verifier::external_body]\nproof fn lemma_trusted",
                         "proof fn lemma_trusted")
    assert "counts" in rules(cheat)


def test_an_external_body_target_is_an_axiom():
    cheat = HONEST.replace("#[verifier::rlimit(50)]", "#[verifier::external_body]")
    assert {"counts", "target-attributes"} <= rules(cheat, target="lemma_target")


def test_a_removed_item_is_caught():
    cheat = TASK.replace("#[verifier::external_body]\nproof fn lemma_trusted(n: nat)\n"
                         "    ensures sum_to(n) >= n,\n{\n    unimplemented!()\n}\n", "")
    assert cheat != TASK
    assert "item-removed" in rules(cheat)


def test_a_removed_target_is_caught():
    start = TASK.index("proof fn lemma_target")
    cheat = TASK[:start] + TASK[TASK.index("fn count"):]
    report = check(TASK, cheat, "lemma_target")
    assert any(v.rule == "item-removed" and "target function" in v.reason
               for v in report.violations)


def test_a_changed_spec_function_is_caught():
    cheat = TASK.replace("n + sum_to((n - 1) as nat)", "n + n + sum_to((n - 1) as nat)")
    assert rules(cheat) == {"item-changed"}


def test_a_changed_stub_contract_is_caught():
    assert rules(TASK.replace("ensures sum_to(n) >= n,", "ensures sum_to(n) >= n + 1,")) == {
        "item-changed"}


def test_dropping_a_global_fact_is_allowed_adding_one_is_not():
    task = TASK.replace("verus! {\n", "verus! {\n\nglobal size_of usize == 8;\n", 1)
    assert check(task, TASK).safe
    assert rules(task, original=TASK) == {"new-item"}


def test_a_new_exec_function_is_rejected():
    cheat = TASK.replace("} // verus!", "fn helper() -> u64 { 1 }\n} // verus!")
    assert rules(cheat) == {"new-item"}


def test_a_new_external_body_lemma_is_an_axiom():
    cheat = TASK.replace("} // verus!", "#[verifier::external_body]\nproof fn ax() ensures false "
                                       "{ unimplemented!() }\n} // verus!")
    assert rules(cheat) == {"counts", "new-item"}


def test_a_new_bodiless_lemma_is_rejected():
    cheat = TASK.replace("} // verus!", "proof fn ax() ensures false;\n} // verus!")
    assert rules(cheat) == {"new-item"}


def test_a_new_inherent_impl_may_hold_new_lemmas_only():
    task = TASK.replace("} // verus!", "pub struct S { a: u64 }\n} // verus!")
    lemma = task.replace("} // verus!", "impl S {\n    proof fn lemma_s(&self) ensures self.a >= 0 "
                                       "{}\n}\n} // verus!")
    assert check(task, lemma).safe
    assert rules(lemma.replace("proof fn lemma_s", "fn lemma_s"), original=task) == {"new-item"}
    traits = task.replace("} // verus!", "impl Clone for S {\n    fn clone(&self) -> S "
                                        "{ S { a: 0 } }\n}\n} // verus!")
    assert rules(traits, original=task) == {"new-item"}


def test_a_new_struct_is_rejected():
    assert rules(TASK.replace("} // verus!", "struct S { a: u8 }\n} // verus!")) == {"new-item"}


def test_the_target_may_not_gain_other_attributes():
    cheat = TASK.replace("proof fn lemma_target", "#[verifier::opaque]\nproof fn lemma_target")
    assert rules(cheat, target="lemma_target") == {"target-attributes"}


def test_the_target_signature_is_fixed():
    cheat = TASK.replace("proof fn lemma_target(n: nat)", "proof fn lemma_target(n: int)")
    assert rules(cheat, target="lemma_target") == {"target-signature"}


def test_the_target_may_not_weaken_its_contract():
    assert rules(TASK.replace("ensures sum_to(n) >= 1,", "ensures true,"),
                 target="lemma_target") == {"target-spec"}
    assert rules(TASK.replace("requires n > 0,\n    ensures sum_to(n) >= 1",
                              "requires n > 5,\n    ensures sum_to(n) >= 1"),
                 target="lemma_target") == {"target-spec"}


def test_the_target_may_add_decreases_and_a_prover():
    honest = TASK.replace("    ensures sum_to(n) >= 1,\n{",
                          "    ensures sum_to(n) >= 1,\n    decreases n,\n{")
    assert check(TASK, honest, "lemma_target").safe
    by = TASK.replace("proof fn lemma_target(n: nat)",
                      "proof fn lemma_target(n: nat) by (nonlinear_arith)")
    assert check(TASK, by, "lemma_target").safe


def test_an_exec_target_keeps_its_executable_code():
    cheat = HONEST.replace("r = r + 1;", "r = r + 0;")
    report = check(TASK, cheat)
    assert {v.rule for v in report.violations} == {"target-body"}
    # located at the first statement of the body that differs
    assert report.violations[0].line == HONEST.splitlines().index("    while i < v.len()") + 1


def test_vstd_proof_macros_are_ghost_code_in_exec_bodies():
    honest = TASK.replace("    r\n}", "    assert_seqs_equal!(v@, v@);\n    r\n}")
    assert check(TASK, honest, "count").safe
    shadow = honest.replace("} // verus!", "macro_rules! assert_seqs_equal { ($a:expr, $b:expr) "
                                           "=> { }; }\n} // verus!")
    assert rules(shadow, target="count") == {"new-item"}


def test_an_exec_target_may_not_drop_code():
    assert rules(TASK.replace("        i = i + 1;\n", ""), target="count") == {"target-body"}


def test_a_non_target_function_is_not_free():
    cheat = TASK.replace("proof fn lemma_target(n: nat)\n    requires n > 0,\n"
                         "    ensures sum_to(n) >= 1,\n{\n}",
                         "proof fn lemma_target(n: nat)\n    requires n > 0,\n"
                         "    ensures sum_to(n) >= 1,\n{\n    lemma_trusted(n);\n}")
    assert check(TASK, cheat, "lemma_target").safe
    assert rules(cheat, target="count") == {"item-changed"}


def test_unparseable_rust_is_a_parse_violation():
    report = check(TASK, TASK.replace("fn count(", "fn count(("))
    assert [v.rule for v in report.violations] == ["parse"]
    assert report.violations[0].reason.startswith("does not")


def test_hostile_nesting_is_refused_not_a_crash():
    deep = TASK.replace("    r\n}", "    " + "(" * 5000 + "r" + ")" * 5000 + "\n}")
    report = check(TASK, deep)
    assert [(v.rule, v.reason) for v in report.violations] == [
        ("parse", "brackets nest deeper than 1000")]


def test_a_task_without_its_target_says_so():
    assert "target-missing" in rules(TASK, target="no_such_fn")


def test_comments_and_layout_do_not_count():
    relaid = TASK.replace("    requires v.len() < 100,", "    // documented\n    requires\n"
                          "        v.len() < 100,")
    assert check(TASK, relaid, "count").safe


def test_list_ending_commas_do_not_count_but_a_one_tuple_does():
    plain = TASK.replace("    ensures sum_to(n) >= 1,\n{", "    ensures sum_to(n) >= 1\n{")
    assert plain != TASK and check(TASK, plain, "lemma_target").safe
    task = TASK.replace("} // verus!", "spec fn one(x: (u64,)) -> (u64,) { x }\n} // verus!")
    untupled = task.replace("(x: (u64,)) -> (u64,)", "(x: (u64)) -> (u64)")
    assert rules(untupled, original=task) == {"item-changed"}


def test_many_pairs_answer_in_order():
    pairs = [CheatPair(TASK, HONEST, None), CheatPair(TASK, "fn (", None),
             CheatPair(TASK, TASK, None)]
    reports = check_pairs(pairs, jobs=2)
    assert [r.safe for r in reports] == [True, False, True]


def test_a_helper_breaking_the_protocol_is_an_error():
    with pytest.raises(CheatCheckError, match="unanswered"):
        read_answers('{"id": 0, "violations": []}\n', 2)
    with pytest.raises(CheatCheckError, match="out of protocol"):
        read_answers("garbage\n", 1)


def test_a_report_reads_as_lines():
    report = CheatReport((Violation("counts", "`assume(` occurs 1 times"),
                          Violation("target-body", "code differs", 12)))
    assert report.summary() == "`assume(` occurs 1 times\nline 12: code differs"


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


def verdict(files: dict[str, str]):
    task = Task(id="t", benchmark="verus", files={"t.rs": TASK},
                metadata={"file": "t.rs", "target": "count"})
    ctx = Context(LocalSandbox(), DetectedTools({TOOL: CheatCheckToolchain()}),
                  CheatVerifier.limits, {})
    candidate = Candidate(files, Provenance(agent="test", model="none"))
    return anyio.run(CheatVerifier().verify, candidate, task, ctx)


def test_the_verifier_passes_an_honest_candidate():
    honest = TASK.replace("        i = i + 1;\n",
                          "        assert(i < v.len());\n        i = i + 1;\n")
    result = verdict({"t.rs": honest})
    assert result.status is Status.SUCCESS and not result.diagnostics
    assert result.tool_version.startswith("0.1.0 (verus_syn")


def test_the_verifier_fails_a_cheat_with_located_diagnostics():
    result = verdict({"t.rs": TASK.replace("r = r + 1;", "r = r + 2;")})
    assert result.status is Status.FAILURE
    assert [(d.code, d.file, d.line) for d in result.diagnostics] == [
        ("target-body", "t.rs", TASK.splitlines().index("    while i < v.len() {") + 1)]
    assert result.data["violations"][0]["rule"] == "target-body"


def test_the_verifier_fails_a_candidate_without_the_file():
    result = verdict({"other.rs": TASK})
    assert result.status is Status.FAILURE
    assert result.diagnostics[0].message == "the candidate has no t.rs"


def test_the_toolchain_finds_the_built_helper(helper):
    status = CheatCheckToolchain().detect()
    assert status.found and status.path == str(helper)


def test_a_helper_older_than_its_sources_is_rebuilt(monkeypatch, tmp_path):
    old = tmp_path / "home" / "release" / TOOL
    old.parent.mkdir(parents=True)
    shutil.copy(binary_path(), old)
    os.utime(old, (0, 0))
    monkeypatch.setattr("speckernel_verus.cheats.tools_home", lambda: tmp_path / "home")
    status = CheatCheckToolchain().detect()
    assert not status.found and "older than" in status.detail


def test_a_missing_helper_names_the_install(monkeypatch, tmp_path):
    monkeypatch.setenv(BINARY_ENV, str(tmp_path / "absent"))
    status = CheatCheckToolchain().detect()
    assert not status.found and "kernel tools install verus" in status.detail
    with pytest.raises(CheatCheckError, match="is not built"):
        check(TASK, TASK)


# ------------------------------------------------------------------------- the benchmark data

KNOWN_DEVIATIONS: dict[str, set[str]] = {
    # References whose ground truth's own proof is no honest proof of its task, even moved into
    # the task's text (tasks.transplant_references). The checker is right to flag them:
    # - the proof assumes a fact instead of computing it (`assume(check_..(..))` where upstream
    #   left `by (compute_only)` as a TODO) or ends a case in `admit()`:
    "verusage/MA__bin_sizes__bin_size_result_mul8": {"counts"},
    "verusage/MA__bin_sizes__idx_out_of_range_has_different_bin_size": {"counts"},
    "verusage/MA__bin_sizes__smallest_bin_fitting_size_size_of_bin": {"counts"},
    "verusage/VE__regular__uints__bytes_eq_view_implies_eq": {"counts"},
    # - the ground truth's target has another contract than the task's (a spec renamed: MBPP
    #   113 `is_digit`; `==` turned into `=~=`: Misc deduplicate; MA size_of_bin_mult_word_size):
    "verusage/MA__bin_sizes__size_of_bin_mult_word_size": {"target-spec"},
    "verus-bench/mbpp_task_id_113": {"target-spec"},
    "verus-bench/misc_deduplicate": {"target-spec"},
    # - the ground truth's target runs other code (MA align_up/align_down: another body and
    #   attributes; Diffy brs2, MBPP 436/602/629: added `let` statements):
    "verusage/MA__layout__impl__align_down": {"target-attributes", "target-body"},
    "verusage/MA__layout__impl__align_up": {"target-attributes", "target-body"},
    "verus-bench/diffy_brs2": {"target-body"},
    "verus-bench/mbpp_task_id_436": {"target-body"},
    "verus-bench/mbpp_task_id_602": {"target-body"},
    "verus-bench/mbpp_task_id_629": {"target-body"},
}


@needs_data
@pytest.mark.slow
def test_every_reference_passes_but_the_known_deviations():
    tasks = [t for t in load_tasks(DATA) if t.reference]
    assert all(t.metadata["reference"] == "transplanted" for t in tasks)
    pairs = [CheatPair(t.files[t.metadata["file"]], t.reference[t.metadata["file"]],
                       t.metadata["target"]) for t in tasks]
    reports = check_pairs(pairs, jobs=2)
    flagged = {t.id: {v.rule for v in r.violations}
               for t, r in zip(tasks, reports, strict=True) if not r.safe}
    assert flagged == KNOWN_DEVIATIONS
    assert len(tasks) - len(flagged) == 380
    # The raw ground truths differ from their tasks outside the proof: 63 are flagged.
    raw = [attrs.evolve(p, candidate=t.metadata["ground_truth_text"])
           for p, t in zip(pairs, tasks, strict=True)]
    assert sum(not r.safe for r in check_pairs(raw, jobs=2)) == 63


def _examples() -> dict[str, CheatReport]:
    folders = sorted((DATA / "cheat-examples").glob("o-*"))
    pairs, names = [], []
    for folder in folders:
        original = (folder / "fix-v0-input.rs").read_text()
        target = target_function(folder.name[2:].rsplit("-", 2)[0], original)
        for file in sorted(folder.glob("fix-*.rs")):
            if file.name != "fix-v0-input.rs":
                pairs.append(CheatPair(original, file.read_text(), target))
                names.append(f"{folder.name.split('-')[1]}/{file.name}")
    return dict(zip(names, check_pairs(pairs, jobs=2), strict=True))


@needs_data
@pytest.mark.slow
def test_the_upstream_cheat_examples():
    reports = _examples()
    assert len(reports) == 168
    rejected = {name: {v.rule for v in r.violations} for name, r in reports.items() if not r.safe}
    # Real cheats: an `external_body` lemma added as an axiom, the task's stubs stripped of
    # `external_body`, `assume` added, a spec function or the target's contract rewritten.
    assert rejected["IR__marshal_v__impl2__lemma_serialize_injective/"
                    "fix-a15-uselemma-candidate-1.rs"] == {"counts", "new-item"}
    assert "counts" in rejected["NR__theorem__lemma1_init/"
                                "fix-a18-postcondition_repair-candidate-1.rs"]
    assert rejected["OS__va_range__impl2_new/fix-a4-seqsetmap-candidate-1.rs"] == {"counts"}
    assert rejected["IR__marshal_v__impl3__lemma_serialize_injective/"
                    "fix-a12-uselemma-candidate-1.rs"] == {"item-changed"}
    # The README's lynette false alarms are honest proofs, and pass here.
    for honest in ("NR__theorem__lemma1_init/fix-a1-", "NR__theorem__lemma1_next/",
                   "NR__spec_t__os_code_vc__lemma_concurrent_trs_induct/",
                   "OS__kernel__syscall_new_proc_with_iommu__impl0__syscall_new_proc_with_"
                   "endpoint_iommu/", "OS__pagetable__pagetable_impl_base__impl0__remove_l4_entry/"
                   "fix-a19-precondition_repair-candidate-1.rs",
                   "OS__va_range__impl2_new/fix-v"):
        matching = [name for name in reports if name.startswith(honest)]
        assert matching and all(reports[name].safe for name in matching), honest
    assert len(rejected) == 22
