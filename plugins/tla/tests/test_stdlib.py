"""The bundled SequencesExt and FiniteSetsExt: every operator checked by TLC itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from speckernel.sandbox.base import Sandbox
from tla_testdata import LIMITS

from speckernel_tla.tlc import TlcOptions, run_tlc
from speckernel_tla.tlc_output import Outcome

FACTS = r"""---- MODULE Facts ----
EXTENDS Naturals, Sequences, SequencesExt, FiniteSetsExt, TLC
ASSUME ToSet(<<1, 2, 2>>) = {1, 2}
ASSUME Len(SetToSeq({1, 2, 3})) = 3 /\ ToSet(SetToSeq({1, 2, 3})) = {1, 2, 3}
ASSUME SetToSortSeq({3, 1, 2}, LAMBDA a, b : a < b) = <<1, 2, 3>>
ASSUME Cons(0, <<1>>) = <<0, 1>> /\ Front(<<1, 2, 3>>) = <<1, 2>> /\ Last(<<1, 2, 3>>) = 3
ASSUME Reverse(<<1, 2, 3>>) = <<3, 2, 1>> /\ Reverse(<<>>) = <<>>
ASSUME IsPrefix(<<1>>, <<1, 2>>) /\ ~IsPrefix(<<2>>, <<1, 2>>) /\ IsSuffix(<<2>>, <<1, 2>>)
ASSUME IsStrictPrefix(<<>>, <<1>>) /\ ~IsStrictPrefix(<<1>>, <<1>>) /\ ~IsStrictSuffix(<<1>>, <<1>>)
ASSUME FoldLeft(LAMBDA a, b : a - b, 10, <<1, 2>>) = 7
ASSUME FoldRight(LAMBDA a, b : a - b, <<1, 2>>, 10) = 9
ASSUME FoldSeq(LAMBDA a, b : a + b, 0, <<1, 2>>) = 3
ASSUME FlattenSeq(<<<<1>>, <<>>, <<2, 3>>>>) = <<1, 2, 3>>
ASSUME Prefixes(<<1, 2>>) = {<<>>, <<1>>, <<1, 2>>} /\ Suffixes(<<1, 2>>) = {<<>>, <<2>>, <<1, 2>>}
ASSUME InsertAt(<<1, 3>>, 2, 2) = <<1, 2, 3>> /\ RemoveAt(<<1, 2, 3>>, 2) = <<1, 3>>
ASSUME ReplaceAt(<<1, 2>>, 1, 5) = <<5, 2>>
ASSUME Remove(<<1, 2, 1>>, 1) = <<2>> /\ ReplaceAll(<<1, 2, 1>>, 1, 0) = <<0, 2, 0>>
ASSUME SelectInSeq(<<5, 6, 6>>, LAMBDA x : x = 6) = 2
ASSUME SelectLastInSeq(<<5, 6, 6>>, LAMBDA x : x = 6) = 3
ASSUME SelectInSeq(<<5>>, LAMBDA x : x = 6) = 0
ASSUME RemoveFirst(<<1, 2, 1>>, 1) = <<2, 1>>
ASSUME RemoveFirstMatch(<<1, 2>>, LAMBDA x : x > 1) = <<1>>
ASSUME Zip(<<1, 2>>, <<3, 4>>) = <<<<1, 3>>, <<2, 4>>>>
ASSUME Interleave(<<1, 2>>, <<3, 4>>) = <<1, 3, 2, 4>>
ASSUME SeqMod(4, 4) = 4 /\ SeqMod(5, 4) = 1
ASSUME LongestCommonPrefix({<<1, 2, 3>>, <<1, 2>>, <<1, 2, 4>>}) = <<1, 2>>
ASSUME SubSeqs(<<1, 2>>) = {<<>>, <<1>>, <<2>>, <<1, 2>>} /\ Contains(<<1, 2>>, 2)
ASSUME IsInjective(<<1, 2>>) /\ ~IsInjective(<<1, 1>>) /\ SetToSeqs({1, 2}) = {<<1, 2>>, <<2, 1>>}
ASSUME SeqOf({1}, 2) = {<<>>, <<1>>, <<1, 1>>} /\ BoundedSeq({1}, 1) = {<<>>, <<1>>}
ASSUME TupleOf({1}, 2) = {<<1, 1>>}
ASSUME Max({1, 5, 3}) = 5 /\ Min({4, 2, 9}) = 2 /\ Choose({7}) = 7
ASSUME SumSet({1, 2, 3}) = 6 /\ ProductSet({2, 3}) = 6 /\ SumSet({}) = 0
ASSUME FoldSet(LAMBDA x, y : x + y, 0, {1, 2}) = 3 /\ ReduceSet(LAMBDA x, y : x + y, {1}, 1) = 2
ASSUME MapThenFoldSet(LAMBDA x, y : x + y, 0, LAMBDA x : 2 * x,
                      LAMBDA T : CHOOSE t \in T : TRUE, {1, 2}) = 6
ASSUME Quantify(1..10, LAMBDA x : x % 2 = 0) = 5
ASSUME kSubset(2, {1, 2, 3}) = {{1, 2}, {1, 3}, {2, 3}} /\ Ksubsets({1, 2}, 1) = {{1}, {2}}
ASSUME SymDiff({1, 2}, {2, 3}) = {1, 3} /\ Flatten({{1}, {2}}) = {1, 2}
VARIABLE x
Init == x = 0
Next == UNCHANGED x
====
"""


@pytest.mark.anyio
async def test_every_operator_means_what_it_should(jar: Path, sandbox: Sandbox) -> None:
    files = {"Facts.tla": FACTS, "Facts.cfg": "INIT Init\nNEXT Next\n"}
    run = await run_tlc(sandbox, jar, files, "Facts", "Facts.cfg", TlcOptions(), LIMITS)
    assert run.result.outcome is Outcome.OK, run.process.output
