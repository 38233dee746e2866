"""Java types named like a sort of KeY's logic (``Pair``, ``Seq``, ``Heap``...) are verified
under a fresh name, and every name in the verdict is the user's again."""

from __future__ import annotations

from typing import Any

import pytest
from speckernel.model import Diagnostic, Status

from speckernel_jml.javasource import declared_types, rename_words
from speckernel_jml.verifiers import KeyBackend, Outcome, renamed_back, sort_clashes

PAIR = """\
public class Pair {
    /*@ public normal_behavior
      @ requires 0 <= x && x < 1000;
      @ ensures \\result == x + BUMP;
      @*/
    public static int inc(int x) {
        String label = "Pair";  // a Pair, in a comment
        return x + 1;
    }
    static class Seq { }
}
"""


def test_declared_types_are_declarations_not_class_literals() -> None:
    assert declared_types("class A { Object o = B.class; interface C {} enum D {} }") == [
        "A", "C", "D"]


def test_only_clashing_types_are_renamed_in_code_and_jml_but_not_strings_or_comments() -> None:
    renames = sort_clashes(PAIR.replace("BUMP", "1"))
    assert renames == {"Pair": "Pair_", "Seq": "Seq_"}
    renamed = rename_words(PAIR.replace("BUMP", "Pair.ONE"), renames)
    assert "public class Pair_ {" in renamed and "static class Seq_ { }" in renamed
    assert "x + Pair_.ONE;" in renamed
    assert '"Pair"' in renamed and "// a Pair, in a comment" in renamed
    assert sort_clashes("class Counter {}") == {}
    assert sort_clashes("class Pair { int Pair_; }") == {"Pair": "Pair__"}


def test_names_in_the_outcome_are_restored() -> None:
    outcome = Outcome(Status.FAILURE, (Diagnostic("Pair_::inc: open goal of Pair_[...]"),),
                      {"contracts": [{"target": "Pair_::inc"}]})
    back = renamed_back(outcome, {"Pair": "Pair_"})
    assert back.diagnostics[0].message == "Pair::inc: open goal of Pair[...]"
    assert back.data["contracts"] == [{"target": "Pair::inc"}]


@pytest.mark.anyio
async def test_key_proves_a_class_named_pair_and_refutes_a_wrong_spec(
        key_installed: None, make_ctx: Any) -> None:
    ctx = make_ctx(timeout_s=120.0)
    proved = await KeyBackend().check("Pair.java", PAIR.replace("BUMP", "1"), ctx)
    assert proved.status is Status.SUCCESS, proved.diagnostics
    refuted = await KeyBackend().check("Pair.java", PAIR.replace("BUMP", "2"), ctx)
    assert refuted.status is Status.FAILURE
    assert refuted.diagnostics[0].message.startswith("Pair::inc: cannot prove")
    assert "Pair_" not in str(refuted.data)
