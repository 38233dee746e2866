"""The cheat checker's rules, one test each, on a small task and honest proof; the protocol; the
verifier. The adversarial corpus (``cheats/*.cheat``) is in ``test_corpus.py``, layout
invariance in ``test_layout.py``, the benchmark's own references in ``test_references.py``.

The helper is the real ``verus-cheatcheck`` binary; ``helper`` (``conftest.py``) installs it
with the toolchain's own install step when it is not built yet (a few minutes, once).
"""

from __future__ import annotations

import anyio
import pytest
from speckernel.model import Candidate, Provenance, Status, Task
from speckernel.testing import verify_context

from speckernel_verus import helper as helper_module
from speckernel_verus.cheats import (
    TOOL,
    CheatCheckError,
    CheatPair,
    CheatReport,
    CheatVerifier,
    Violation,
    check,
    check_pairs,
    report_of,
)
from speckernel_verus.toolchain import (
    CHEATCHECK_ENV,
    CheatCheckToolchain,
    cheatcheck_binary,
)

pytestmark = pytest.mark.usefixtures("helper")

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


def add_item(text: str, item: str) -> str:
    return text.replace("} // verus!", f"{item}\n}} // verus!")


# ----------------------------------------------------------------------------- honest work


def test_an_honest_proof_passes():
    report = check(TASK, HONEST)
    assert report.safe, report.summary()


def test_the_task_itself_passes():
    assert check(TASK, TASK, "count").safe


def test_only_the_named_target_may_change():
    assert rules(HONEST, target="lemma_target") == {"item-changed"}


def test_comments_and_layout_do_not_count():
    relaid = TASK.replace("    requires v.len() < 100,", "    // documented\n    requires\n"
                          "        v.len() < 100,")
    assert check(TASK, relaid, "count").safe


def test_list_ending_commas_do_not_count_but_a_one_tuple_does():
    plain = TASK.replace("    ensures sum_to(n) >= 1,\n{", "    ensures sum_to(n) >= 1\n{")
    assert plain != TASK and check(TASK, plain, "lemma_target").safe
    task = add_item(TASK, "spec fn one(x: (u64,)) -> (u64,) { x }")
    untupled = task.replace("(x: (u64,)) -> (u64,)", "(x: (u64)) -> (u64)")
    assert rules(untupled, original=task) == {"item-changed"}
    grouped = add_item(TASK, "spec fn f(x: u64) -> u64 { (x) }")
    assert check(grouped, grouped.replace("{ (x) }", "{ (\n    x\n) }"), "count").safe
    assert check(grouped, grouped.replace("{ (x) }", "{ (\n    x,\n) }"), "count").violations


def test_trailing_commas_anywhere_do_not_count():
    task = add_item(TASK, "spec fn g<A, B>(a: A, b: B) -> (A, B) { (a, b) }\n"
                          "spec fn h(x: int) -> int { match x { 0 => { 1 } _ => 2 } }")
    commas = (task.replace("g<A, B>(a: A, b: B)", "g<A, B,>(a: A, b: B,)")
              .replace("{ (a, b) }", "{ (a, b,) }")
              .replace("0 => { 1 } _ => 2 }", "0 => { 1 }, _ => 2, }"))
    assert commas != task and check(task, commas, "count").safe


def test_an_empty_requires_is_no_requires():
    empty = TASK.replace("proof fn lemma_trusted(n: nat)\n", "proof fn lemma_trusted(n: nat)\n"
                         "    requires\n")
    assert empty != TASK and check(TASK, empty, "count").safe


def test_an_impl_header_may_be_laid_out_anyhow():
    task = add_item(TASK, "pub struct P<A, B> { a: A, b: B }\n"
                          "impl<A, B> P<A, B> { spec fn first(&self) -> A { self.a } }")
    relaid = task.replace("impl<A, B> P<A, B> {",
                          "impl<\n    A,\n    B,\n> P<\n    A,\n    B,\n> {")
    assert relaid != task and check(task, relaid, "count").safe


def test_attribute_spelling_and_order_do_not_count():
    task = add_item(TASK, "#[verifier::opaque]\n#[allow(unused)]\nspec fn s() -> bool { true }")
    spelled = task.replace("#[verifier::opaque]\n#[allow(unused)]",
                           "#[allow(unused)]\n#[verifier(opaque)]")
    assert check(task, spelled, "count").safe
    assert rules(task.replace("#[verifier::opaque]\n", ""), original=task) == {"item-changed"}


def test_a_crate_path_and_its_relative_form_are_one_path():
    task = add_item(TASK, "mod m { pub open spec fn k() -> int { 1 } }\n"
                          "spec fn uses() -> int { m::k() }")
    assert check(task, task.replace("{ m::k() }", "{ crate::m::k() }"), "count").safe


def test_the_target_may_add_decreases_and_a_prover():
    honest = TASK.replace("    ensures sum_to(n) >= 1,\n{",
                          "    ensures sum_to(n) >= 1,\n    decreases n,\n{")
    assert check(TASK, honest, "lemma_target").safe
    by = TASK.replace("proof fn lemma_target(n: nat)",
                      "proof fn lemma_target(n: nat) by (nonlinear_arith)")
    assert check(TASK, by, "lemma_target").safe


def test_lint_and_inline_attributes_on_the_target_do_not_count():
    inlined = TASK.replace("fn count(", "#[inline]\n#[allow(unused_variables)]\nfn count(")
    assert check(TASK, inlined, "count").safe


def test_dropping_a_global_fact_is_allowed_adding_one_is_not():
    task = TASK.replace("verus! {\n", "verus! {\n\nglobal size_of usize == 8;\n", 1)
    assert check(task, TASK).safe
    assert rules(task, original=TASK) == {"new-item"}


def test_a_new_inherent_impl_may_hold_new_lemmas_only():
    task = add_item(TASK, "pub struct S { a: u64 }")
    lemma = add_item(task, "impl S {\n    proof fn lemma_s(&self) ensures self.a >= 0 {}\n}")
    assert check(task, lemma).safe
    assert rules(lemma.replace("proof fn lemma_s", "fn lemma_s"), original=task) == {"new-item"}
    traits = add_item(task, "impl Clone for S {\n    fn clone(&self) -> S { S { a: 0 } }\n}")
    assert rules(traits, original=task) == {"new-item"}


def test_importing_vstds_own_proof_macro_is_no_shadowing():
    assert check(TASK, add_item(HONEST, "use vstd::{calc};")).safe
    assert rules(add_item(HONEST, "use vstd::prelude::arbitrary as calc;")) == {"shadowing"}
    assert "shadowing" in rules(add_item(HONEST, "macro_rules! calc { ($($t:tt)*) => {} }"))


def test_importing_a_name_from_the_module_the_task_globs_is_no_shadowing():
    task = TASK.replace("use vstd::prelude::*;", "use vstd::prelude::*;\nuse vstd::seq_lib::*;")
    task = add_item(task, "spec fn uses(s: Seq<int>) -> bool { lemma_x(s) }")
    assert check(task, add_item(task, "use vstd::seq_lib::lemma_x;")).safe
    assert rules(add_item(task, "use vstd::set_lib::lemma_x;"), original=task) == {"shadowing"}


def test_a_same_crate_reimport_by_its_own_name_is_no_shadowing():
    task = add_item(TASK, "mod m { pub open spec fn k() -> int { 1 } }")
    reimport = add_item(task, "use crate::m::k;")
    assert check(task, reimport).safe
    assert rules(add_item(task, "use vstd::prelude::arbitrary as k;"), original=task) == {
        "shadowing"}


# ----------------------------------------------------------------------------- ghost erasure


def test_vstd_proof_macros_are_ghost_code_in_exec_bodies():
    honest = TASK.replace("    r\n}", "    assert_seqs_equal!(v@, v@);\n    r\n}")
    assert check(TASK, honest, "count").safe


def test_ghost_reassignment_and_wrappers_are_ghost_code():
    task = TASK.replace("    let mut r: u64 = 0;\n", "    let mut r: u64 = 0;\n"
                        "    let mut g: Ghost<int> = Ghost(0);\n")
    honest = task.replace("        i = i + 1;\n",
                          "        i = i + 1;\n        g = Ghost(g@ + 1);\n")
    assert honest != task and check(task, honest, "count").safe
    assert rules(task.replace("        i = i + 1;\n", "        i = i + 1;\n        r = r + 1;\n"),
                 original=task, target="count") == {"target-body"}


def test_a_proof_in_an_added_else_branch_leaves_nothing_behind():
    honest = TASK.replace("            r = r + 1;\n        }",
                          "            r = r + 1;\n        } else {\n"
                          "            assert(v[i as int] == 0);\n        }")
    assert honest != TASK and check(TASK, honest, "count").safe


def test_naming_the_result_to_prove_things_about_it_is_honest():
    honest = TASK.replace("    r\n}", "    let result = r;\n    assert(result <= v.len());\n"
                          "    result\n}")
    assert check(TASK, honest, "count").safe


def test_an_exec_target_keeps_its_executable_code():
    cheat = HONEST.replace("r = r + 1;", "r = r + 0;")
    report = check(TASK, cheat)
    assert {v.rule for v in report.violations} == {"target-body"}
    # located at the first statement of the body that differs
    assert report.violations[0].line == HONEST.splitlines().index("    while i < v.len()") + 1


def test_parentheses_are_erased_by_the_tree_not_by_the_text():
    task = TASK.replace("r = r + 1;", "r = (r + 1) * 1;")
    cheat = task.replace("r = (r + 1) * 1;", "r = r + 1 * 1;")
    assert rules(cheat, original=task, target="count") == {"target-body"}


def test_an_exec_target_may_not_drop_code():
    assert rules(TASK.replace("        i = i + 1;\n", ""), target="count") == {"target-body"}


# ----------------------------------------------------------------------------- cheats


def test_adding_assume_changes_the_counts():
    assert "counts" in rules(HONEST.replace("lemma_trusted(n);", "assume(sum_to(n) >= 1);"))


def test_adding_admit_changes_the_counts():
    assert "counts" in rules(HONEST.replace("lemma_trusted(n);", "admit();"))


def test_removing_external_body_from_a_stub_is_caught():
    cheat = TASK.replace("#[verifier::external_body]\nproof fn lemma_trusted",
                         "proof fn lemma_trusted")
    assert {"counts", "item-changed"} <= rules(cheat)


def test_an_external_body_target_is_an_axiom():
    cheat = HONEST.replace("#[verifier::rlimit(50)]", "#[verifier::external_body]")
    assert {"counts", "target-attributes"} <= rules(cheat, target="lemma_target")


def test_a_removed_item_is_caught():
    cheat = TASK.replace("#[verifier::external_body]\nproof fn lemma_trusted(n: nat)\n"
                         "    ensures sum_to(n) >= n,\n{\n    unimplemented!()\n}\n", "")
    assert cheat != TASK and "item-removed" in rules(cheat)


def test_a_removed_target_is_caught():
    start = TASK.index("proof fn lemma_target")
    report = check(TASK, TASK[:start] + TASK[TASK.index("fn count"):], "lemma_target")
    assert any(v.rule == "item-removed" and "target function" in v.reason
               for v in report.violations)


def test_a_changed_spec_function_is_caught():
    cheat = TASK.replace("n + sum_to((n - 1) as nat)", "n + n + sum_to((n - 1) as nat)")
    assert rules(cheat) == {"item-changed"}


def test_a_changed_stub_contract_is_caught():
    assert rules(TASK.replace("ensures sum_to(n) >= n,", "ensures sum_to(n) >= n + 1,")) == {
        "item-changed"}


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


def test_a_non_target_function_is_not_free():
    cheat = TASK.replace("proof fn lemma_target(n: nat)\n    requires n > 0,\n"
                         "    ensures sum_to(n) >= 1,\n{\n}",
                         "proof fn lemma_target(n: nat)\n    requires n > 0,\n"
                         "    ensures sum_to(n) >= 1,\n{\n    lemma_trusted(n);\n}")
    assert check(TASK, cheat, "lemma_target").safe
    assert rules(cheat, target="count") == {"item-changed"}


def test_nothing_may_be_added_to_a_trait_impl():
    task = add_item(TASK, "pub struct S { a: u64 }\ntrait T { spec fn f(&self) -> bool { true } }\n"
                          "impl T for S {}")
    override = task.replace("impl T for S {}",
                            "impl T for S { spec fn f(&self) -> bool { false } }")
    assert rules(override, original=task) == {"new-item"}


def test_a_task_macro_that_assumes_may_not_be_invoked_again():
    task = add_item(TASK, "macro_rules! trusted { () => { assume(false) } }")
    cheat = task.replace("    lemma_target(n: nat)", "    lemma_target(n: nat)").replace(
        "    ensures sum_to(n) >= 1,\n{\n}", "    ensures sum_to(n) >= 1,\n{\n    trusted!();\n}")
    assert cheat != task and rules(cheat, original=task, target="lemma_target") == {"counts"}


def test_a_task_alias_of_assume_may_not_be_used_again():
    task = TASK.replace("use vstd::prelude::*;", "use vstd::prelude::*;\n"
                        "use vstd::prelude::assume_ as trusted;")
    cheat = task.replace("    ensures sum_to(n) >= 1,\n{\n}",
                         "    ensures sum_to(n) >= 1,\n{\n    trusted(false);\n}")
    assert cheat != task and rules(cheat, original=task, target="lemma_target") == {"counts"}


ASSUMING_TASK = TASK.replace("    let mut i: usize = 0;\n",
                             "    assume(v.len() < 50);\n    let mut i: usize = 0;\n", 1)


def test_the_tasks_own_assume_may_stay():
    honest = HONEST.replace("    let mut i: usize = 0;\n",
                            "    assume(v.len()<50 /* kept */);\n    let mut i: usize = 0;\n", 1)
    assert check(ASSUMING_TASK, honest).safe


def test_what_the_task_assumes_may_not_change():
    # same number of assumes, so the counts agree; the exec body is equal once they are erased
    cheat = ASSUMING_TASK.replace("assume(v.len() < 50)", "assume(false)")
    assert rules(cheat, original=ASSUMING_TASK, target="count") == {"assumed"}
    cheat = ASSUMING_TASK.replace("assume(v.len() < 50)", "vstd::prelude::r#assume(false)")
    assert "assumed" in rules(cheat, original=ASSUMING_TASK, target="count")


def test_a_header_builtin_call_in_a_new_lemma_is_caught():
    cheat = add_item(HONEST, "proof fn lemma_extra(n: nat) { requires(n > 0); }")
    assert rules(cheat) == {"header-call"}


def test_the_tasks_own_header_call_may_stay_a_new_one_may_not():
    task = TASK.replace("    ensures sum_to(n) >= 1,\n{\n}",
                        "    ensures sum_to(n) >= 1,\n{\n    decreases(n);\n}")
    honest = task.replace("    decreases(n);\n}", "    decreases(n);\n    lemma_trusted(n);\n}")
    assert check(task, honest, "lemma_target").safe
    cheat = task.replace("    decreases(n);\n}", "    decreases(n);\n    requires(false);\n}")
    assert rules(cheat, original=task, target="lemma_target") == {"header-call"}


# VeruSAGE tasks define `open spec fn requires(&self)` and call `self.requires()`
METHOD_TASK = """\
use vstd::prelude::*;
fn main() {}

verus! {

pub struct Op { pub x: nat }

impl Op {
    pub open spec fn requires(&self) -> bool { self.x > 0 }

    proof fn lemma_op(&self)
        requires self.requires(),
        ensures self.x >= 1,
    {
    }
}

} // verus!
"""


def method_proof(body: str) -> str:
    return METHOD_TASK.replace("        ensures self.x >= 1,\n    {\n",
                               "        ensures self.x >= 1,\n    {\n" + body, 1)


def test_a_method_named_like_a_header_builtin_is_no_header_call():
    honest = method_proof("        calc! {\n            (==)\n            self.requires(); {}\n"
                          "            self.x > 0;\n        }\n"
                          "        assert_by_contradiction!(self.requires(), { });\n"
                          "        assert(self.requires()) by { assert(self.requires()); }\n")
    assert check(METHOD_TASK, honest, "lemma_op").safe


@pytest.mark.parametrize("call", [
    "Self::requires([false])",    # a path, even through `Self`: still flagged
    "self::requires([false])",
    "Op::requires([false])",
    "requires::<[bool; 1]>([false])",
    "(requires)([false])",
    "self..requires([false])",    # a range, not a method call
])
def test_a_header_builtin_in_a_proof_macro_is_still_caught(call):
    cheat = method_proof("        calc! {\n            (==)\n            " + call + "; {}\n"
                         "            true;\n        }\n")
    assert rules(cheat, original=METHOD_TASK, target="lemma_op") == {"header-call"}


def test_only_vstds_proof_macros_may_pass_a_method_named_like_a_header():
    # a new macro can drop the `self .` before the name and leave the header call
    drop = "macro_rules! cheat_drop { ($a:ident . $($t:tt)*) => { $($t)* } }\n} // verus!"
    cheat = method_proof("        cheat_drop!(self . requires([false]));\n")
    assert rules(cheat.replace("} // verus!", drop), original=METHOD_TASK,
                 target="lemma_op") == {"header-call"}
    inner = method_proof("        calc! {\n            (==)\n            true; "
                         "{ cheat_drop!(self . requires([false])); }\n"
                         "            true;\n        }\n")
    assert rules(inner.replace("} // verus!", drop), original=METHOD_TASK,
                 target="lemma_op") == {"header-call"}


@pytest.mark.parametrize("use", [
    "use vstd::prelude::requires as hdr;",
    "use verus_builtin::requires as hdr;",
    "use vstd::prelude::{requires as hdr};",
    "use vstd::prelude::{seq, requires as hdr};",
    "use vstd::prelude::r#requires as hdr;",
    "use verus_builtin::recommends;",
])
def test_a_new_use_of_a_header_builtin_is_caught(use):
    assert rules(add_item(HONEST, use)) == {"header-call"}
    in_body = HONEST.replace("    lemma_trusted(n);\n", f"    {use}\n    lemma_trusted(n);\n", 1)
    assert rules(in_body) == {"header-call"}
    in_lemma = add_item(HONEST, "proof fn lemma_extra() { " + use + " }")
    assert rules(in_lemma) == {"header-call"}
    in_macro = HONEST.replace("    lemma_trusted(n);\n",
                              "    calc! { (==) 1int; { " + use + " } 1int; }\n"
                              "    lemma_trusted(n);\n", 1)
    assert rules(in_macro) == {"header-call"}


def test_a_use_of_a_module_named_like_a_header_builtin_is_no_import_of_one():
    assert check(TASK, add_item(HONEST, "use vstd::invariant::*;")).safe


def test_the_tasks_own_header_alias_is_a_header_builtin_too():
    task = TASK.replace("verus! {\n", "verus! {\n\nuse vstd::prelude::requires as r;\n", 1)
    honest = HONEST.replace("verus! {\n", "verus! {\n\nuse vstd::prelude::requires as r;\n", 1)
    assert check(task, honest).safe
    cheat = honest.replace("    lemma_trusted(n);\n", "    r([false]);\n    lemma_trusted(n);\n", 1)
    assert rules(cheat, original=task) == {"header-call"}
    again = add_item(honest, "use self::r as s;")
    assert "header-call" in rules(again, original=task)


def test_a_new_exec_function_is_rejected():
    assert rules(add_item(TASK, "fn helper() -> u64 { 1 }")) == {"new-item"}


def test_a_new_struct_is_rejected():
    assert rules(add_item(TASK, "struct S { a: u8 }")) == {"new-item"}


def test_a_new_function_may_not_take_a_name_the_task_uses():
    assert rules(add_item(TASK, "spec fn sum_to2(n: nat) -> nat { n }")) == set()
    assert rules(add_item(TASK, "proof fn r() {}")) == {"shadowing"}


# ----------------------------------------------------------------------------- bad input


def test_unparseable_rust_is_a_parse_violation():
    report = check(TASK, TASK.replace("fn count(", "fn count(("))
    assert [v.rule for v in report.violations] == ["parse"]
    assert report.violations[0].reason.startswith("does not")


def test_hostile_nesting_is_refused_not_a_crash():
    deep = TASK.replace("    r\n}", "    " + "(" * 5000 + "r" + ")" * 5000 + "\n}")
    assert [(v.rule, v.reason) for v in check(TASK, deep).violations] == [
        ("parse", "brackets or prefix operators nest deeper than 1000")]


@pytest.mark.parametrize("operator", ["!", "-", "- ", "&", "*"])
def test_a_hostile_run_of_prefix_operators_is_refused_not_a_crash(operator):
    # 200,000 prefix operators overflowed the parser's stack (an abort no caller can catch)
    deep = TASK.replace("    r\n}", "    assert(" + operator * 200_000 + "true);\n    r\n}")
    assert [(v.rule, v.reason) for v in check(TASK, deep).violations] == [
        ("parse", "brackets or prefix operators nest deeper than 1000")]


def test_a_short_run_of_prefix_operators_still_parses():
    ok = HONEST.replace("    assert(r <= v.len());", "    assert(" + "!" * 900 + "true);\n"
                        "    assert(r <= v.len());")
    assert check(TASK, ok).safe


def test_a_task_without_its_target_says_so():
    assert "target-missing" in rules(TASK, target="no_such_fn")
    assert "target-missing" in rules(TASK, target="sum_to")  # a spec function is no target


# ----------------------------------------------------------------------------- the protocol


def test_many_pairs_answer_in_order():
    pairs = [CheatPair(TASK, HONEST, None), CheatPair(TASK, "fn (", None),
             CheatPair(TASK, TASK, None)] * 5
    assert [r.safe for r in check_pairs(pairs, jobs=2)] == [True, False, True] * 5


def test_a_helper_breaking_the_protocol_is_an_error():
    with pytest.raises(CheatCheckError, match="out of protocol"):
        report_of({"id": 0})
    with pytest.raises(CheatCheckError, match="refused"):
        report_of({"id": 0, "error": "request lacks `original` text"})


def test_bad_requests_get_an_error_answer_not_silence():
    answers = helper_module.ask([{"mode": "check"}, {"mode": "nonsense", "original": ""},
                                 {"mode": "functions", "original": "fn ("}])
    assert all("error" in a for a in answers)


def test_a_report_reads_as_lines():
    report = CheatReport((Violation("counts", "`assume` occurs 1 times"),
                          Violation("target-body", "code differs", 12)))
    assert report.summary() == "`assume` occurs 1 times\nline 12: code differs"


# ----------------------------------------------------------------------------- the verifier

TARGET_TASK = Task(id="t", benchmark="verus", files={"t.rs": TASK},
                   metadata={"file": "t.rs", "target": "count"})


def verdict(files: dict[str, str], ctx=None):
    ctx = ctx or verify_context(toolchains=[CheatCheckToolchain()], limits=CheatVerifier.limits)
    candidate = Candidate(files, Provenance(agent="test", model="none"))
    return anyio.run(CheatVerifier().verify, candidate, TARGET_TASK, ctx)


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


def test_the_verifier_reuses_one_warm_helper_per_sandbox():
    ctx = verify_context(toolchains=[CheatCheckToolchain()], limits=CheatVerifier.limits)
    verdict({"t.rs": TASK}, ctx)
    server = helper_module.server_for(ctx.sandbox)
    verdict({"t.rs": HONEST}, ctx)
    assert helper_module.server_for(ctx.sandbox) is server and server.alive


def test_a_helper_dying_under_a_request_answers_it_again_alone():
    ctx = verify_context(toolchains=[CheatCheckToolchain()], limits=CheatVerifier.limits)
    verdict({"t.rs": TASK}, ctx)
    helper_module.server_for(ctx.sandbox).process.kill()
    result = verdict({"t.rs": TASK.replace("r = r + 1;", "r = r + 2;")}, ctx)
    assert result.status is Status.FAILURE and result.diagnostics[0].code == "target-body"


def test_a_helper_that_cannot_answer_a_candidate_puts_it_on_the_candidate(monkeypatch):
    async def never(*args, **kwargs):
        raise helper_module.HelperError("died")

    monkeypatch.setattr("speckernel_verus.cheats.ask_warm", never)
    monkeypatch.setattr("speckernel_verus.cheats.ask_alone", never)
    ctx = verify_context(toolchains=[CheatCheckToolchain()], limits=CheatVerifier.limits)
    candidate = Candidate({"t.rs": TASK}, Provenance(agent="test", model="none"))
    with pytest.raises(Exception, match="broke the cheat checker"):
        anyio.run(CheatVerifier().verify, candidate, TARGET_TASK, ctx)


# ----------------------------------------------------------------------------- the toolchain


def test_the_toolchain_finds_the_built_helper(helper):
    status = CheatCheckToolchain().detect()
    assert status.found and status.path == str(helper) == str(cheatcheck_binary())


def test_a_helper_older_than_its_sources_is_rebuilt(monkeypatch, tmp_path, helper):
    import os
    import shutil

    monkeypatch.delenv(CHEATCHECK_ENV, raising=False)
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path))
    old = tmp_path / TOOL / "release" / TOOL
    old.parent.mkdir(parents=True)
    shutil.copy(helper, old)
    os.utime(old, (0, 0))
    status = CheatCheckToolchain().detect()
    assert not status.found and "older than" in status.detail


def test_a_missing_helper_names_the_install(monkeypatch, tmp_path):
    monkeypatch.setenv(CHEATCHECK_ENV, str(tmp_path / "absent"))
    status = CheatCheckToolchain().detect()
    assert not status.found and "kernel tools install verus" in status.detail
    with pytest.raises(CheatCheckError, match="is not built"):
        check(TASK, TASK)
