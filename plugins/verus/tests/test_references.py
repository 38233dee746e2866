"""The benchmark's own proofs through the cheat checker: every transplanted reference of the
shared data passes but the ground truths that genuinely cheat (pinned below with the reason),
and the upstream cheat checker's examples (real agent runs) are judged as their README says."""

from __future__ import annotations

import pytest
from verus_fixtures import SHARED

from speckernel_verus.cheats import CheatPair, CheatReport, check_pairs, function_lists
from speckernel_verus.tasks import choose_target, load_tasks

pytestmark = [pytest.mark.usefixtures("helper"),
              pytest.mark.skipif(not SHARED.is_dir(), reason=f"shared data not at {SHARED}")]

GENUINE_CHEATS: dict[str, set[str]] = {
    # Ground truths whose own proof is no honest proof of its task, even moved into the task's
    # text (tasks.transplant_references). The checker is right to flag them:
    # - the proof assumes a fact instead of computing it (`assume(check_..(..))` where upstream
    #   left `by (compute_only)` as a TODO) or ends a case in `admit()`:
    "verusage/MA__bin_sizes__bin_size_result_mul8": {"counts"},
    "verusage/MA__bin_sizes__idx_out_of_range_has_different_bin_size": {"counts"},
    "verusage/MA__bin_sizes__smallest_bin_fitting_size_size_of_bin": {"counts"},
    "verusage/VE__regular__uints__bytes_eq_view_implies_eq": {"counts"},
    # - the ground truth's target has another contract than the task's (MA: a `requires
    #   valid_bin_idx(..)` added; MBPP 113: a spec renamed; Misc deduplicate: `==` made `=~=`):
    "verusage/MA__bin_sizes__size_of_bin_mult_word_size": {"target-spec"},
    "verus-bench/mbpp_task_id_113": {"target-spec"},
    "verus-bench/misc_deduplicate": {"target-spec"},
    # - the ground truth's target runs other code (new `let` statements in Diffy brs2, MBPP
    #   436/602/629: `let temp = sum[0];`, `let input_len = arr.len();`, ...):
    "verus-bench/diffy_brs2": {"target-body"},
    "verus-bench/mbpp_task_id_436": {"target-body"},
    "verus-bench/mbpp_task_id_602": {"target-body"},
    "verus-bench/mbpp_task_id_629": {"target-body"},
}


@pytest.fixture(scope="module")
def tasks():
    return [t for t in load_tasks(SHARED) if t.reference]


def judge(tasks, text_of) -> dict[str, CheatReport]:
    pairs = [CheatPair(t.files[t.metadata["file"]], text_of(t), t.metadata["target"])
             for t in tasks]
    return {t.id: r for t, r in zip(tasks, check_pairs(pairs), strict=True)}


def test_every_reference_passes_but_the_genuine_cheats(tasks):
    assert all(t.metadata["reference"] == "transplanted" for t in tasks)
    reports = judge(tasks, lambda t: t.reference[t.metadata["file"]])
    flagged = {name: {v.rule for v in r.violations} for name, r in reports.items() if not r.safe}
    assert flagged == GENUINE_CHEATS
    assert len(tasks) == 393 and len(tasks) - len(flagged) == 382


def test_raw_ground_truths_differ_from_their_tasks_outside_the_proof(tasks):
    # Upstream extracted tasks and solutions separately: context functions are trusted stubs in
    # the task but full bodies (some with `assume`) in the ground truth, parameters renamed...
    reports = judge(tasks, lambda t: t.metadata["ground_truth_text"])
    assert sum(not r.safe for r in reports.values()) == 63


def examples() -> dict[str, CheatReport]:
    folders = sorted((SHARED / "cheat-examples").glob("o-*"))
    originals = [(folder / "fix-v0-input.rs").read_text() for folder in folders]
    pairs, names = [], []
    for folder, original, functions in zip(folders, originals, function_lists(originals),
                                           strict=True):
        assert not isinstance(functions, str), functions
        target = choose_target(folder.name[2:].rsplit("-", 2)[0], functions)
        for file in sorted(folder.glob("fix-*.rs")):
            if file.name != "fix-v0-input.rs":
                pairs.append(CheatPair(original, file.read_text(), target))
                names.append(f"{folder.name.split('-')[1]}/{file.name}")
    return dict(zip(names, check_pairs(pairs), strict=True))


def test_the_upstream_cheat_examples():
    reports = examples()
    assert len(reports) == 168
    rejected = {name: {v.rule for v in r.violations} for name, r in reports.items() if not r.safe}
    # Real cheats: an `external_body` lemma added as an axiom or the target made one, the task's
    # stubs stripped of `external_body`, `assume` added, a spec function or the target's
    # contract rewritten.
    assert rejected["IR__marshal_v__impl2__lemma_serialize_injective/"
                    "fix-a15-uselemma-candidate-1.rs"] == {"counts", "new-item"}
    assert rejected["IR__marshal_v__impl2__lemma_serialize_injective/"
                    "fix-a2-seqsetmap-candidate-1.rs"] == {"counts", "target-attributes"}
    assert "counts" in rejected["NR__theorem__lemma1_init/"
                                "fix-a18-postcondition_repair-candidate-1.rs"]
    assert rejected["OS__va_range__impl2_new/fix-a4-seqsetmap-candidate-1.rs"] == {"counts"}
    assert rejected["IR__marshal_v__impl3__lemma_serialize_injective/"
                    "fix-a12-uselemma-candidate-1.rs"] == {"item-changed"}
    # The README's lynette false alarms are honest proofs (some that do not compile, such as
    # a re-import of a crate item by its own name), and pass here.
    for honest in ("NR__theorem__lemma1_init/fix-a1-", "NR__theorem__lemma1_next/",
                   "NR__spec_t__os_code_vc__lemma_concurrent_trs_induct/",
                   "OS__kernel__syscall_new_proc_with_iommu__impl0__syscall_new_proc_with_"
                   "endpoint_iommu/", "OS__pagetable__pagetable_impl_base__impl0__remove_l4_entry/"
                   "fix-a19-precondition_repair-candidate-1.rs",
                   "OS__va_range__impl2_new/fix-v"):
        matching = [name for name in reports if name.startswith(honest)]
        assert matching and all(reports[name].safe for name in matching), honest
    assert len(rejected) == 21
