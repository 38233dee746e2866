"""What an exec target asserts stays asserted (``cheatcheck/src/claims.rs``): the rule
``target-claim``, on Verus-Bench's two tasks that state their property inline
(``Misc/unverified/havoc_inline_post.rs``, its "inline postcondition" in a ``proof`` block, and
``arg_free.rs``, whose ``main`` ends with ``assert(res == 25)``), read from ``../shared/data``
with their published solutions as the honest candidates.

Ghost erasure removes assertions before exec code is compared, so without this rule dropping
the task's assertions (the property to prove) passed as an honest proof.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from verus_fixtures import SHARED

from speckernel_verus.cheats import check

pytestmark = pytest.mark.usefixtures("helper")

MISC = SHARED / "Verus-Bench" / "Misc"
if not MISC.is_dir():
    pytest.skip(f"{MISC} is not there (../shared/data beside the checkout)",
                allow_module_level=True)

HAVOC_TASK = (MISC / "unverified" / "havoc_inline_post.rs").read_text()
HAVOC_PROOF = (MISC / "verified" / "havoc_inline_post.rs").read_text()
ARG_TASK = (MISC / "unverified" / "arg_free.rs").read_text()
ARG_PROOF = (MISC / "verified" / "arg_free.rs").read_text()

CLAIMS = ("assert(20 < 2*a < 40);",
          "assert(forall |k:int| 0 <= k < v.len() ==> v[k] == 1 + a);",
          "assert(c == true);")
"""havoc_inline_post's inline postcondition, as its task writes it."""


def rules(task: str, candidate: str) -> list[str]:
    return [v.rule for v in check(task, candidate).violations]


def once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_the_published_solutions_keep_their_tasks_claims():
    assert all(line in HAVOC_PROOF for line in CLAIMS)
    assert check(HAVOC_TASK, HAVOC_PROOF).safe
    assert check(ARG_TASK, ARG_PROOF).safe


def test_dropping_the_inline_postcondition_is_caught():
    block = HAVOC_PROOF[HAVOC_PROOF.index("    proof {  // inline"):HAVOC_PROOF.rindex("}\n}")]
    assert rules(HAVOC_TASK, HAVOC_PROOF.replace(block, "")) == ["target-claim"] * 3


def test_dropping_the_final_assertion_of_main_is_caught():
    cheat = once(ARG_PROOF, "assert(res == 25);", "")
    report = check(ARG_TASK, cheat)
    assert [v.rule for v in report.violations] == ["target-claim"]
    assert "res==25" in report.violations[0].reason


@given(kept=st.lists(st.booleans(), min_size=3, max_size=3),
       split=st.booleans(), hints=st.booleans(), order=st.permutations(range(3)))
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_each_claim_counts_whatever_the_proof_around_it(kept, split, hints, order):
    """The claims may be reordered, split over several ``proof`` blocks, written as statements
    of their own and given proofs (`by`, other assertions between them); each one
    the candidate drops is reported once."""
    written = []
    for i in order:
        if not kept[i]:
            continue
        claim = CLAIMS[i]
        if hints:
            claim = claim[:-1] + " by { assert(10 < a < 20); };"
            written.append("assert(a > 0);")
        written.append(f"proof {{ {claim} }}" if split else claim)
    proof = "proof {\n" + "\n".join(written) + "\n}" if not split else "\n".join(written)
    start = HAVOC_PROOF.index("    proof {  // inline")
    candidate = HAVOC_PROOF[:start] + proof + "\n}\n}\n"
    assert rules(HAVOC_TASK, candidate) == ["target-claim"] * kept.count(False)


@pytest.mark.parametrize("moved", [
    # out of the place the task asserts it: before the loop, into the loop
    "before-loop", "in-loop",
    # no longer on every path: under a ghost condition
    "under-if",
])
def test_a_claim_moved_elsewhere_is_no_longer_made(moved):
    cheat = once(HAVOC_PROOF, "        assert(c == true);\n", "")
    if moved == "before-loop":
        cheat = once(cheat, "    while (idx > 0)", "    assert(c == true);\n    while (idx > 0)")
    elif moved == "in-loop":
        cheat = once(cheat, "        idx = idx - 1;",
                     "        assert(c == true);\n        idx = idx - 1;")
    else:
        cheat = once(cheat, "        assert(20 < 2*a < 40);",
                     "        assert(20 < 2*a < 40);\n        if a > 15 { assert(c == true); }")
    assert rules(HAVOC_TASK, cheat) == ["target-claim"]


@pytest.mark.parametrize("binding", [
    "let ghost res = 25u64;",
    "let ghost res: u64 = 25;",
    "let tracked res = 25u64;",
    "proof { let res = 25u64; }",
])
def test_a_ghost_binding_of_a_claimed_name_changes_what_is_claimed(binding):
    """``let ghost res = 25;`` before ``assert(res == 25)`` asserts a tautology about a new
    variable: the task's claim about the loop's result is gone."""
    cheat = once(ARG_PROOF, "    assert(res == 25);", f"    {binding}\n    assert(res == 25);")
    assert rules(ARG_TASK, cheat) == ["target-claim"]


def test_a_binding_in_the_claims_own_proof_block_changes_it_too():
    cheat = once(HAVOC_PROOF, "        assert(c == true);",
                 "        let c = true;\n        assert(c == true);")
    assert rules(HAVOC_TASK, cheat) == ["target-claim"]


def test_a_binding_out_of_the_claims_scope_is_honest():
    """A ghost ``res`` bound inside the loop body is gone when ``main`` asserts its own; one bound
    after the claim comes too late to change it."""
    body = ARG_PROOF.index("res = res + 1;")
    honest = ARG_PROOF[:body] + "let ghost res_old = res;\n        proof { let res = 3int; }\n" \
        "        " + ARG_PROOF[body:]
    honest = once(honest, "    assert(res == 25);",
                  "    assert(res == 25);\n    let ghost res = 0int;")
    assert check(ARG_TASK, honest).safe


GHOST_TASK = """\
use vstd::prelude::*;
fn main() {}

verus! {

fn bump(v: &mut Vec<u64>)
    requires old(v).len() == 1, old(v)[0] < 100,
{
    let ghost before = v[0];
    let mut i: usize = 0;
    while i < 3 {
        assert(i < 3);
        i = i + 1;
    }
    v.set(0, v[0] + 1);
    assert(v[0] == before + 1);
}

} // verus!
"""


def test_the_tasks_own_ghost_binding_stays_as_it_is():
    assert check(GHOST_TASK, GHOST_TASK.replace("    while i < 3 {\n",
                                                "    while i < 3\n        invariant i <= 3,\n"
                                                "    {\n")).safe
    cheat = once(GHOST_TASK, "let ghost before = v[0];", "let ghost before = v[0] + 7;")
    assert rules(GHOST_TASK, cheat) == ["target-claim"]
    cheat = once(GHOST_TASK, "    v.set(0, v[0] + 1);\n",
                 "    v.set(0, v[0] + 1);\n    proof { before = v[0] - 1; }\n")
    assert rules(GHOST_TASK, cheat) == ["target-claim"]


def test_a_write_later_in_the_loop_body_reaches_the_claim_at_its_start():
    """The next iteration runs the end of the body before the claim at its start."""
    task = GHOST_TASK.replace("        assert(i < 3);", "        let ghost j = i;\n"
                              "        assert(j < 3);")
    cheat = once(task, "        i = i + 1;\n", "        i = i + 1;\n        proof { j = 0; }\n")
    assert rules(task, cheat) == ["target-claim"]


def test_a_proof_targets_assertions_are_steps_it_may_replace():
    task = """\
use vstd::prelude::*;
fn main() {}

verus! {

proof fn lemma(x: int)
    requires x > 0,
    ensures x * x > 0,
{
    assert(x * x > 0) by (nonlinear_arith) requires x > 0;
}

} // verus!
"""
    honest = task.replace("    assert(x * x > 0) by (nonlinear_arith) requires x > 0;\n",
                          "    vstd::arithmetic::mul::lemma_mul_strictly_positive(x, x);\n")
    assert honest != task and check(task, honest).safe



NESTED_TASK = GHOST_TASK.replace("    assert(v[0] == before + 1);\n",
                                 "    proof { if before < 50 { assert(v[0] < 51); } }\n"
                                 "    match i { 3 => proof { assert(v[0] == before + 1); }, "
                                 "_ => {} }\n")


def test_a_claim_the_task_nests_in_ghost_code_keeps_that_code():
    assert check(NESTED_TASK, NESTED_TASK).safe
    proved = NESTED_TASK.replace("assert(v[0] < 51);",
                                 "assert(v[0] < 51) by { assert(v[0] >= 1); }")
    assert check(NESTED_TASK, proved).safe
    for old, new in [("if before < 50 {", "if false {"),
                     ("3 => proof { assert(v[0] == before + 1); }, _ => {}",
                      "3 => {}, _ => proof { assert(v[0] == before + 1); }")]:
        assert rules(NESTED_TASK, once(NESTED_TASK, old, new)) == ["target-claim"], new


@pytest.mark.parametrize("between", ["", "proof { let ghost other = 1int; }", "assert(idx == 10);"])
def test_a_claim_asserted_a_thousand_times_is_judged_as_once(between):
    """Copies of a claim in a row, whatever ghost code stands between them that writes none of
    its names, stand in one place (one key serves them all); one copy after a write of its name
    is another claim."""
    copies = f"\n    {between}\n".join(["    assert(res == 25);"] * 1000)
    assert check(ARG_TASK, once(ARG_PROOF, "    assert(res == 25);", copies)).safe
    shadowed = once(ARG_PROOF, "    assert(res == 25);",
                    copies.replace("    assert(res == 25);", "    proof { let res = 25u64; }\n"
                                   "    assert(res == 25);", 100))
    assert rules(ARG_TASK, shadowed) == ["target-claim"]


# ------------------------------------------------- a reviewer's attacks on the first version


@pytest.mark.parametrize("place", [
    "proof { #[cfg(any())] assert(res == 25); }",
    "#[cfg(any())] proof { assert(res == 25); }",
    "proof { #![cfg(any())] assert(res == 25); }",
    "#[cfg(any())] assert(res == 25);",
])
def test_an_attribute_on_a_claim_makes_it_another_claim(place):
    """``#[cfg(any())]`` removes the statement it stands on before Verus sees it."""
    assert rules(ARG_TASK, once(ARG_PROOF, "    assert(res == 25);", f"    {place}")) \
        == ["target-claim"]


@pytest.mark.parametrize("rebinding", [
    "proof { rebind!(res); assert(res == 25); }",
    "proof { let rebind!(res): u64 = 25; assert(res == 25); }",
])
def test_a_macro_before_a_claim_may_bind_or_change_every_name_it_is_given(rebinding):
    """A new ``macro_rules!`` handed ``res`` can expand to ``let res = 25;`` (the name is the
    call site's, so hygiene lets the claim see it)."""
    cheat = once(ARG_PROOF, "    assert(res == 25);", f"    {rebinding}")
    cheat = once(cheat, "verus!{\n", "verus!{\nmacro_rules! rebind { ($x:ident) => { $x } }\n")
    assert rules(ARG_TASK, cheat) == ["target-claim"]


COUNTER_TASK = """\
use vstd::prelude::*;
fn main() {}

verus! {

fn count(n: u64) {
    let mut i: u64 = 0;
    let mut total: Ghost<int> = Ghost(0int);
    while i < n {
        i = i + 1;
        proof { total@ = total@ + 2; }
    }
    assert(total@ == 2 * n);
}

} // verus!
"""


@pytest.mark.parametrize(("where", "write"), [
    ("    assert(total@", "proof { total@ = 2 * n; }"),
    ("    assert(total@", "proof { *total.borrow_mut() = 2 * n; }"),
    ("        proof { total@ = total@ + 2; }", "total = Ghost(2 * n);"),
])
def test_a_change_of_a_claimed_value_anywhere_before_the_claim_is_caught(where, write):
    """Values change through views, ``borrow_mut`` and in nested blocks too (a binding in a
    nested block ends with it, here the loop's body; a change of value does not)."""
    indent = where[:len(where) - len(where.lstrip())]
    cheat = once(COUNTER_TASK, where, f"{indent}{write}\n{where}")
    assert rules(COUNTER_TASK, cheat) == ["target-claim"]


def test_a_change_later_in_a_loop_body_before_the_claim_is_caught():
    """The next iteration asserts about the value the end of the body left."""
    task = COUNTER_TASK.replace("    assert(total@ == 2 * n);\n", "")
    task = task.replace("        i = i + 1;\n", "        assert(total@ == 2 * i);\n"
                        "        i = i + 1;\n")
    cheat = once(task, "proof { total@ = total@ + 2; }",
                 "proof { total@ = total@ + 2; }\n        proof { total@ = 2 * i; }")
    assert rules(task, cheat) == ["target-claim"]


def test_the_tasks_own_changes_of_a_claimed_value_must_stay():
    cheat = once(COUNTER_TASK, "        proof { total@ = total@ + 2; }\n", "")
    assert rules(COUNTER_TASK, cheat) == ["target-claim"]


@pytest.mark.parametrize("ghost", [
    "let ghost len = v.len();",  # a method name the claim calls
    "let ghost k = 0int;",  # a variable the claim's quantifier binds
    "proof { let n = v.len(); }",  # a block of its own: ends before the claim
])
def test_names_the_claim_does_not_read_as_variables_are_free(ghost):
    honest = once(HAVOC_PROOF, "    let c: bool = !b;", f"    let c: bool = !b;\n    {ghost}")
    assert check(HAVOC_TASK, honest).safe


# ------------------------------------------------ a second reviewer's attacks and false alarms


@pytest.mark.parametrize(("item", "claim"), [
    # a local macro named like vstd's `calc!`, trusted as a proof macro, rebinding `res`
    ("macro_rules! calc { ($x:ident) => { let $x: u64 = 25; }; }", "calc!(res);"),
    # a local `use` renaming a new spec function to a name the claim calls
    ("use crate::yes as choose_odd;", "assert(choose_odd() == 25);"),
])
def test_a_use_or_macro_in_a_body_may_not_bind_a_name_the_task_resolves(item, claim):
    cheat = once(ARG_PROOF, "    assert(res == 25);",
                 f"    proof {{ {item} {claim} assert(res == 25); }}")
    cheat = once(cheat, "verus!{\n", "verus!{\nspec fn yes() -> u64 { 25 }\n")
    assert "shadowing" in rules(ARG_TASK, cheat)


@pytest.mark.parametrize("write", ["proof { (before, _) = (v[0] - 1, 0int); }",
                                   "proof!{ before = (v[0] - 1) as u64; }"])
def test_a_destructuring_or_proof_macro_write_reaches_the_claim(write):
    cheat = once(GHOST_TASK, "    assert(v[0] == before + 1);",
                 f"    {write}\n    assert(v[0] == before + 1);")
    assert rules(GHOST_TASK, cheat) == ["target-claim"]


def test_assert_forall_implies_proves_the_tasks_forall_claim():
    honest = once(HAVOC_PROOF, CLAIMS[1].replace("assert(", "        assert(", 1).strip(),
                  "assert forall |k:int| 0 <= k < v.len() implies v[k] == 1 + a by {}")
    assert check(HAVOC_TASK, honest).safe


def test_a_method_called_on_a_claimed_ghost_value_may_change_it():
    """A proof method of a new inherent impl may take ``&mut self``; on a view it cannot."""
    cheat = once(COUNTER_TASK, "    assert(total@",
                 "    proof { total.reset(2 * n); }\n    assert(total@")
    assert rules(COUNTER_TASK, cheat) == ["target-claim"]


def test_a_lemma_called_on_a_claimed_variable_changes_nothing():
    honest = once(HAVOC_PROOF, "        assert(c == true);",
                  "        v@.to_multiset_ensures();\n        assert(c == true);")
    assert check(HAVOC_TASK, honest).safe
