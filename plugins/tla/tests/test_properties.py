"""Liveness templates that are safety properties, and properties TLC names (``shapes`` and the
invariant verifier's use of it): the forms read from SANY's analysis, the TLA+ written for them,
and real TLC runs showing every template's verdict is the one a TLC run of it alone gives,
including a violated safety property written as a temporal formula, a genuine liveness
property, an action property, and a model whose fairness no behaviour meets (where a violated
prefix is no violation to TLC, and none is reported); and templates restating the
specification's fairness, checked without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Task
from speckernel.sandbox.base import Sandbox
from speckernel.yamlio import load_yaml, plain
from tla_testdata import DATA, LIMITS, invariant_task

from speckernel_tla.artifact import ModelUnderTest, model_under_test
from speckernel_tla.cfg_tampering import defined_names
from speckernel_tla.invariants import (
    AS_INVARIANT,
    AS_MONITOR,
    AS_PROPERTY,
    AS_RESIDUAL,
    AS_SAFETY,
    InvariantSession,
    InvariantVerifier,
    concretised,
)
from speckernel_tla.sany import parse_modules, run_batch
from speckernel_tla.shapes import (
    MAX_BOUNDS,
    MAX_COMPARISONS,
    MAX_DEPTH,
    SHAPE_PREFIX,
    Node,
    classify,
    conjunction,
    monitor_module,
    node_text,
    parse_shapes,
    safety_invariant,
    safety_obligations,
    same_formula,
    searches_tableau,
    shape_module,
    spec_parts,
    unimplied_conjuncts,
)
from speckernel_tla.tasks import Budgets

PROPERTIES = DATA / "properties"
MODEL = (PROPERTIES / "Turns.tla").read_text()
CFG = (PROPERTIES / "Turns.cfg").read_text()
FORMS = plain(load_yaml((PROPERTIES / "forms.yaml").read_text(), "forms.yaml"))["forms"]
RESTATED = plain(load_yaml((PROPERTIES / "fairness.yaml").read_text(), "fairness.yaml"))["cases"]

FIRST_COME_FIRST_SERVED = """
    \\A p, q \\in Procs :
        p # q =>
        [](/\\ pc[p] = "wait"
           /\\ pc[q] = "idle"
           => ~<>(/\\ pc[q] = "cs"
                  /\\ pc[p] = "wait"))"""
TEMPLATES = {
    "MutualExclusion": ("safety", ' \\A p, q \\in Procs : p # q => ~(pc[p] = "cs" /\\ '
                                  'pc[q] = "cs")'),
    "AlwaysTyped": ("liveness", ' \\A p \\in Procs : [](pc[p] \\in {"idle", "wait", "cs", '
                                '"done"})'),
    "NeverAllDone": ("liveness", ' \\A p, q \\in Procs : p # q => [](~(pc[p] = "done" /\\ '
                                 'pc[q] = "done"))'),
    "FirstComeFirstServed": ("liveness", FIRST_COME_FIRST_SERVED),
    "DoneStaysDone": ("liveness", ' \\A p \\in Procs : [](pc[p] = "done" => [](pc[p] = '
                                  '"done"))'),
    "EventuallyServed": ("liveness", ' \\A p \\in Procs : pc[p] = "wait" ~> pc[p] = "cs"'),
    "ReleaseEmpties": ("liveness", " [][holder # 0 => holder' = 0]_holder"),
    "HolderGrows": ("liveness", " [][holder' > holder]_holder"),
    "NeverTwo": ("safety", " holder # 2"),
    "HolderWaits": ("safety", ' pc[holder] # "gone"'),
    "PredecessorTyped": ("liveness", ' \\A p \\in Procs : [](pc[p - 1] # "gone")'),
    "GoneStaysPut": ("liveness", ' \\A p \\in Procs : [](pc[p] = "gone" => '
                                 '[](pc[p - 1] # "gone"))'),
    # the specification restated (locksvc's SpecNoDeadlock), and its fairness with a step
    # property that fails
    "SpecAgain": ("liveness", " Init /\\ [][Next]_vars /\\ \\A p \\in Procs : WF_vars(Step(p))"),
    "FairlyGrowing": ("liveness", " (\\A p \\in Procs : WF_vars(Step(p))) /\\ "
                                  "[][holder' > holder]_holder"),
}
HOLDS = {name: "holds" for name in TEMPLATES} | {
    # a violated invariant among several, and two whose evaluation fails (pc[0])
    "NeverTwo": "violated", "HolderWaits": "error", "PredecessorTyped": "error",
    # whose pc[0] TLC's tableau evaluates on every state, though its pre never holds
    "GoneStaysPut": "error", "FairlyGrowing": "violated"}
EXPECTED = {
    # a later request served first; two processes done; Release lowers the holder
    "Spec": HOLDS | {"NeverAllDone": "violated", "FirstComeFirstServed": "violated",
                     "HolderGrows": "violated"},
    # no behaviour is fair: TLC's tableau finds no counterexample to any temporal formula,
    # while the steps it checks [][A]_v on are the reachable ones whatever the fairness
    "Vacuous": HOLDS | {"HolderGrows": "violated"},
}
CHECKED_AS = {
    "MutualExclusion": AS_INVARIANT, "AlwaysTyped": AS_SAFETY, "NeverAllDone": AS_SAFETY,
    "FirstComeFirstServed": AS_MONITOR, "DoneStaysDone": AS_MONITOR,
    "EventuallyServed": AS_PROPERTY, "ReleaseEmpties": AS_PROPERTY, "HolderGrows": AS_PROPERTY,
    "NeverTwo": AS_INVARIANT, "HolderWaits": AS_INVARIANT,
    # an invariant that does not evaluate is checked the template's own way
    "PredecessorTyped": AS_PROPERTY, "GoneStaysPut": AS_PROPERTY,
    # concluded from a shared run that searched EventuallyServed's tableau; a violation of
    # what is left is checked the template's own way
    "SpecAgain": AS_RESIDUAL, "FairlyGrowing": AS_PROPERTY,
}
FULL = Budgets(depth=0, states=0, wall_s=60.0)


def turns_task(budgets: Budgets = FULL) -> Task:
    return invariant_task("turns", "Turns", TEMPLATES, budgets)


def turns(spec: str) -> Candidate:
    return Candidate({"Turns.tla": MODEL, "Turns.cfg": CFG.replace("Spec", spec)},
                     Provenance("test", "none"))


async def verdicts_alone(task: Task, candidate: Candidate, jar: Path,
                         ctx: Any) -> dict[str, str]:
    """Each template in its own TLC run, as its type says: upstream's way."""
    model = model_under_test(candidate, task)
    assert isinstance(model, ModelUnderTest)
    session = InvariantSession(jar, model, Budgets.of(task), ctx)
    checks, _ = concretised(task, candidate)
    return {c.name: (await session.check_alone(c)).outcome for c in checks}


@pytest.mark.anyio
@pytest.mark.parametrize(("spec", "budgets"), [("Spec", FULL), ("Vacuous", FULL),
                                               ("Spec", Budgets())])
async def test_every_template_gets_the_verdict_of_its_own_run(make_ctx: Any, jar: Path,
                                                              spec: str,
                                                              budgets: Budgets) -> None:
    """At the full search and at the default budgets (where no template is watched and a
    violation found as an invariant is checked again the template's way). The budgets cut
    nothing of this model (no result is ``bounded``): its runs alone explore what they do at
    the full search, and give the verdicts of the full search's case, not run again here."""
    task, candidate = turns_task(budgets), turns(spec)
    verdict = await InvariantVerifier().verify(candidate, task, make_ctx())
    results = verdict.data["invariants"]
    outcomes = {name: r["outcome"] for name, r in results.items()}
    assert outcomes == EXPECTED[spec]
    assert not any(r["bounded"] for r in results.values())
    if budgets == FULL:
        assert outcomes == await verdicts_alone(task, candidate, jar, make_ctx())
    assert verdict.data["shapes_analysed"]
    checked = {name: r["checked_as"] for name, r in results.items()}
    if spec == "Spec" and budgets == FULL:
        assert checked == CHECKED_AS
        message = results["FirstComeFirstServed"]["message"]
        assert message.startswith("violated after ")
    elif spec == "Spec":  # an unnamed tableau violation: each property alone, SpecAgain whole
        assert checked == CHECKED_AS | {"NeverAllDone": AS_PROPERTY,
                                        "FirstComeFirstServed": AS_PROPERTY,
                                        "DoneStaysDone": AS_PROPERTY,
                                        "SpecAgain": AS_PROPERTY}
    else:  # the violations found as invariants are no violations to TLC: checked its way;
        # Vacuous's fairness is not Spec's, which SpecAgain restates
        assert checked == CHECKED_AS | {"NeverAllDone": AS_PROPERTY,
                                        "FirstComeFirstServed": AS_PROPERTY,
                                        "SpecAgain": AS_PROPERTY}


@pytest.mark.anyio
@pytest.mark.parametrize(("spec", "names", "checked_as"), [
    ("Spec", ("MutualExclusion", "EventuallyServed", "SpecAgain"), AS_RESIDUAL),
    ("Spec", ("MutualExclusion", "SpecAgain"), AS_PROPERTY),
    ("Spec", ("ReleaseEmpties", "FairlyGrowing", "EventuallyServed"), AS_PROPERTY),
    ("Vacuous", ("MutualExclusion", "EventuallyServed", "SpecAgain"), AS_PROPERTY)])
async def test_a_template_restating_the_fairness_rides_on_a_tableau_search(
        make_ctx: Any, jar: Path, spec: str, names: tuple[str, ...], checked_as: str) -> None:
    """SpecAgain (locksvc's SpecNoDeadlock) is checked as ``Init /\\ [][Next]_vars`` in a run
    that searches another template's tableau (and so evaluates Spec's fairness); with no such
    template, with a violation (FairlyGrowing's step property), or under a specification whose
    fairness it does not restate, whole: one run, or with the violation one shared run, one
    for the rest and one of FairlyGrowing whole. The verdicts of runs alone."""
    task = attrs.evolve(turns_task(), metadata={**turns_task().metadata, "invariants": [
        t for t in turns_task().metadata["invariants"] if t["name"] in names]})
    candidate = turns(spec)
    verdict = await InvariantVerifier().verify(candidate, task, make_ctx())
    results = verdict.data["invariants"]
    assert {n: r["outcome"] for n, r in results.items()} == await verdicts_alone(
        task, candidate, jar, make_ctx())
    restating = next(n for n in names if n in ("SpecAgain", "FairlyGrowing"))
    assert results[restating]["checked_as"] == checked_as
    assert verdict.data["tlc_runs"] == (1 if "FairlyGrowing" not in names else 3)


CONJUNCTS = (
    "\\A p \\in Procs : WF_vars(Step(p))",  # Spec's own fairness condition
    "\\A q \\in Procs : WF_vars(Step(q))",
    "\\A p \\in Procs : SF_vars(Step(p))",
    "Init", "[][Next]_vars", "[](holder \\in Procs \\cup {0})", "[][holder' > holder]_holder",
    "[]<>(holder = 0)", "<>(pc[1] = \"cs\")", "[](pc[0] = \"idle\")")
PARTNERS = ("EventuallyServed", "MutualExclusion", "ReleaseEmpties")


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(CONJUNCTS), min_size=1, max_size=3), min_size=1,
                max_size=2),
       st.lists(st.sampled_from(PARTNERS), unique=True, max_size=2),
       st.sampled_from(["Spec", "Vacuous"]))
def test_conjunctions_with_the_fairness_get_the_verdicts_of_their_own_runs(
        make_ctx: Any, jar: Path, formulas: list[list[str]], partners: list[str],
        spec: str) -> None:
    """Templates conjoining Spec's fairness condition (or look-alikes) with properties that
    hold, fail, fail to evaluate or need a tableau, beside other templates or not: every
    verdict is the one a TLC run of the template alone gives."""
    restated = [{"name": f"Restated{i}", "type": "liveness",
                 "tla_example": f"Restated{i} == " + " /\\ ".join(f"({c})" for c in conjuncts)}
                for i, conjuncts in enumerate(formulas)]
    task = attrs.evolve(turns_task(), metadata={**turns_task().metadata, "invariants": [
        *restated, *(t for t in turns_task().metadata["invariants"] if t["name"] in partners)]})
    candidate = turns(spec)

    async def both() -> tuple[dict[str, str], dict[str, str]]:
        verdict = await InvariantVerifier().verify(candidate, task, make_ctx())
        shared = {n: r["outcome"] for n, r in verdict.data["invariants"].items()}
        return shared, await verdicts_alone(task, candidate, jar, make_ctx())

    shared, alone = anyio.run(both)
    assert shared == alone, formulas


@pytest.mark.anyio
async def test_a_local_definition_keeps_templates_their_own_way(make_ctx: Any,
                                                               jar: Path) -> None:
    """A LOCAL definition of the model is not what its name means in a module extending it: no
    template changes form, and SANY is not asked. (The cfg's VIEW and SYMMETRY are never used
    for the invariants: ``test_batching_attacks``.)"""
    task, candidate = turns_task(), turns("Spec")
    candidate = attrs.evolve(candidate, files={
        "Turns.tla": MODEL.replace("AlwaysTyped ==", "LOCAL Typed == TypeOK\n\nAlwaysTyped =="),
        "Turns.cfg": candidate.files["Turns.cfg"]})
    model = model_under_test(candidate, task)
    assert isinstance(model, ModelUnderTest)
    session = InvariantSession(jar, model, FULL, make_ctx())
    checks, _ = concretised(task, candidate)
    assert await session.shape(checks) == checks
    assert not session.shaped and session.runs == 0


@pytest.mark.parametrize(("budgets", "cfg_extra", "model_extra", "exact"), [
    (FULL, "", "", True),
    (attrs.evolve(FULL, depth=50), "", "", False),
    (attrs.evolve(FULL, states=1000), "", "", False),
    (FULL, "CONSTRAINT TypeOK", "", False),
    (FULL, "ACTION_CONSTRAINT Next", "", False),
    (FULL, "", 'Level == TLCGet("level")', False),
    (FULL, "", "Pick == RandomElement(Procs)", False),
])
def test_a_watch_and_a_violated_prefix_need_an_unconstrained_exploration(
        make_ctx: Any, jar: Path, budgets: Budgets, cfg_extra: str, model_extra: str,
        exact: bool) -> None:
    """A budget (the default ones replace the cfg's constraints, which are dropped) or an
    exploration-dependent operator can make the watched model reach other states, or cut off
    the fair continuation TLC's tableau needs of a violated prefix: then no template is watched
    and no violation found as an invariant is kept."""
    text = MODEL.replace("AlwaysTyped ==", f"{model_extra}\n\nAlwaysTyped ==")
    candidate = Candidate({"Turns.tla": text, "Turns.cfg": f"{CFG}{cfg_extra}\n"},
                          Provenance("test", "none"))
    model = model_under_test(candidate, turns_task(budgets))
    assert isinstance(model, ModelUnderTest)
    session = InvariantSession(jar, model, budgets, make_ctx())
    assert session.unconstrained is exact


@pytest.mark.anyio
async def test_a_template_using_tlcget_keeps_its_own_way(make_ctx: Any, jar: Path) -> None:
    """TLCGet's value depends on how TLC explores: such a template is not shaped, and SANY is
    not asked when no other template could be."""
    task = Task("levels", "tla", metadata={"module": "Turns", "invariants": [
        {"name": "Shallow", "type": "liveness",
         "tla_example": 'Shallow == \\A p \\in Procs : [](TLCGet("level") < 100)'}]})
    candidate = turns("Spec")
    model = model_under_test(candidate, task)
    assert isinstance(model, ModelUnderTest)
    session = InvariantSession(jar, model, FULL, make_ctx())
    checks, _ = concretised(task, candidate)
    assert await session.shape(checks) == checks and not session.shaped


def shape_of(described: str | None) -> Node:
    assert described is not None, "SANY gave no description (the module did not parse)"
    return parse_shapes(described)[f"{SHAPE_PREFIX}Def"]


async def described(sandbox: Sandbox, jar: Path,
                    formulas: list[str]) -> tuple[list[Node], Node, dict[str, str]]:
    """SANY's trees of ``formulas`` over Turns, of its Spec, and the texts they stand in."""
    modules = {f"{SHAPE_PREFIX}{i}": shape_module(f"{SHAPE_PREFIX}{i}", "Turns", " " + formula)
               for i, formula in enumerate(formulas)}
    modules[f"{SHAPE_PREFIX}spec"] = shape_module(f"{SHAPE_PREFIX}spec", "Turns", " Spec")
    raw = await run_batch(sandbox, jar, modules, limits=LIMITS,
                          extra_files={"Turns.tla": MODEL}, describe=f"{SHAPE_PREFIX}Def")
    trees = [shape_of(raw[f"{SHAPE_PREFIX}{i}"][3]) for i in range(len(formulas))]
    return trees, shape_of(raw[f"{SHAPE_PREFIX}spec"][3]), {"Turns": MODEL, **modules}


async def assert_all_parse(sandbox: Sandbox, jar: Path, written: dict[str, str]) -> None:
    parsed = await parse_modules(sandbox, jar, written, limits=LIMITS,
                                 extra_files={"Turns.tla": MODEL})
    assert {name: r.ok for name, r in parsed.items()} == dict.fromkeys(written, True), {
        name: r.output for name, r in parsed.items() if not r.ok}


@pytest.mark.anyio
async def test_forms_are_read_from_sanys_analysis(sandbox: Sandbox, jar: Path) -> None:
    """Every formula of the corpus gets the form it lists; the TLA+ written for the safety
    ones (an invariant, or a watched model) parses."""
    trees, spec, texts = await described(sandbox, jar, [form["formula"] for form in FORMS])
    parts = spec_parts(texts, spec)
    assert parts is not None and parts.machine_closed
    written: dict[str, str] = {}
    for i, (form, tree) in enumerate(zip(FORMS, trees, strict=True)):
        assert classify(tree) == form["form"], form["formula"]
        obligations = safety_obligations(tree)
        if form["form"] == "safety":
            assert obligations is not None
            lines = safety_invariant("SkSafe_X", obligations, texts)
            assert lines is not None
            written[f"Safe{i}"] = "\n".join([f"---- MODULE Safe{i} ----",
                                             "EXTENDS Turns, Naturals, FiniteSets", *lines,
                                             "===="]) + "\n"
        elif form["form"] == "watched":
            assert obligations is not None
            text = monitor_module(f"Watched{i}", "Turns, Naturals, FiniteSets", parts,
                                  [("SkMon_X", obligations)], texts)
            assert text is not None
            written[f"Watched{i}"] = text
    await assert_all_parse(sandbox, jar, written)


@pytest.mark.anyio
async def test_only_the_specifications_own_fairness_conditions_are_set_aside(
        sandbox: Sandbox, jar: Path) -> None:
    """Every formula of the corpus keeps the conjuncts it lists, what is left is written as
    definitions that parse, and being the same formula is symmetric."""
    trees, spec, texts = await described(sandbox, jar, [case["formula"] for case in RESTATED])
    written: dict[str, str] = {}
    for i, (case, tree) in enumerate(zip(RESTATED, trees, strict=True)):
        rest = unimplied_conjuncts(texts, spec, tree)
        assert (None if rest is None else len(rest)) == case["left"], case["formula"]
        if rest is not None:
            lines = conjunction("SkRest_X", rest, texts)
            assert lines is not None
            written[f"Rest{i}"] = "\n".join([f"---- MODULE Rest{i} ----", "EXTENDS Turns",
                                             *lines, "===="]) + "\n"
    for a in [spec, *trees]:
        for b in [spec, *trees]:
            assert same_formula(texts, a, b) == same_formula(texts, b, a)
    await assert_all_parse(sandbox, jar, written)


@pytest.mark.anyio
async def test_a_fairness_condition_off_the_next_state_action_is_not_machine_closed(
        sandbox: Sandbox, jar: Path) -> None:
    specs = {"Spec": True, "Unfair": True, "Vacuous": False}
    modules = {f"{SHAPE_PREFIX}{s}": shape_module(f"{SHAPE_PREFIX}{s}", "Turns", f" {s}")
               for s in specs}
    raw = await run_batch(sandbox, jar, modules, limits=LIMITS,
                          extra_files={"Turns.tla": MODEL}, describe=f"{SHAPE_PREFIX}Def")
    texts = {"Turns": MODEL, **modules}
    for spec, closed in specs.items():
        parts = spec_parts(texts, shape_of(raw[f"{SHAPE_PREFIX}{spec}"][3]))
        assert parts is not None and parts.machine_closed is closed, spec
        assert " ".join(parts.next.split()) == "Next"


def test_a_description_that_does_not_fit_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_shapes("DEF\tX\t0\n0\tO\t3\tM\t1\t1\t1\t5\t[]\n")  # a field short
    with pytest.raises(ValueError):
        parse_shapes("DEF\tX\t0\n0\tO\t3\tM\t1\t1\t1\t5\t[]\t\n2\tU\t1\tM\t1\t3\t1\t4\tP\t0\n")



def test_a_description_line_ends_only_at_the_drivers_newline() -> None:
    """SanyShapes ends each line with ``\\n``; a separator ``str.splitlines`` also knows
    (U+2028, form feed) is part of a field, not the start of a malformed line."""
    text = "DEF\tX\t0\n" + shape_row(0, "U", 1, "a\u2028b\x0cc", "0") + "\n"
    assert parse_shapes(text)["X"].name == "a\u2028b\x0cc"

LINE = st.text(alphabet=" \tab/\\=()[]<>~x", max_size=12)


def sany_column(line: str, index: int) -> int:
    """The column SANY's reader gives ``line[index]``: one per character, and a tab moves on
    to the column after the next multiple of 8."""
    column = 1
    for char in line[:index]:
        column = (column - 1) // 8 * 8 + 9 if char == "\t" else column + 1
    return column


@given(st.lists(LINE, min_size=1, max_size=6), st.data())
def test_copied_text_keeps_every_column(lines: list[str], data: st.DataObject) -> None:
    """A node's text, copied as a block, has each of its characters on the same column of the
    same relative line as in place, and nothing of the line before it, whatever ends the lines
    (``\\n``, ``\\r\\n``, a lone ``\\r``) and wherever tabs stand."""
    first = data.draw(st.integers(1, len(lines)))
    last = data.draw(st.integers(first, len(lines)))
    if not lines[first - 1] or not lines[last - 1]:
        return
    begin = data.draw(st.integers(0, len(lines[first - 1]) - 1))
    end = data.draw(st.integers(begin if first == last else 0, len(lines[last - 1]) - 1))
    ends = data.draw(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=len(lines),
                              max_size=len(lines)))
    # a lone \r before an empty line's \n is one \r\n line end, to SANY as here
    assume(not any(end_ == "\r" and not lines[i + 1] and ends[i + 1] == "\n"
                   for i, end_ in enumerate(ends[:-1])))
    node = Node("X", 1, "M", (first, sany_column(lines[first - 1], begin), last,
                              sany_column(lines[last - 1], end)))
    block = node_text({"M": "".join(line + e for line, e in zip(lines, ends, strict=True))},
                      node)
    assert block is not None
    copied = block.split("\n")
    assert len(copied) == last - first + 1
    for offset, line in enumerate(copied):
        original = lines[first - 1 + offset]
        start = begin if offset == 0 else 0
        stop = end + 1 if offset == len(copied) - 1 else len(original)
        assert line[start:] == original[start:stop]
        assert line[:start].strip(" \t") == ""
        assert [c == "\t" for c in line[:start]] == [c == "\t" for c in original[:start]]


def test_every_definition_a_cfg_could_override_is_found() -> None:
    """Definitions of every form, wherever they stand (after the module's end too, in any
    file), and nothing from comments or strings: a cfg replacing one is never taken for one
    giving a constant its value."""
    text = ('---- MODULE M ----\nCONSTANT N\nFair == 1\n1Fair(x, F(_)) == 2\n'
            'f[x \\in {y \\in S : y = 1}] == 3\nI == INSTANCE Other WITH N <- 0\n'
            'P(a) ==\n  a\n====\nAfter == 4\n\\* Commented == 5\n(* Block == 6 *)\n'
            'Use == "Str == 7" /\\ x === y\n')
    assert defined_names([text]) == {"Fair", "1Fair", "f", "I", "P", "After", "Use"}
    assert defined_names(["CONSTANTS A, B\nVARIABLE v\n"]) == set()
    # a bracket never closed, or closed by another kind, takes the rest of the text with it
    assert defined_names(["Q(x ] == 1\nS(( == 3\n"]) == set()
    assert defined_names(["T(a, [b]) == 1\nU(c] == 2\n"]) == {"T"}


def test_copied_text_refuses_spans_outside_the_module() -> None:
    texts = {"M": "ab\ncd"}
    assert node_text(texts, Node("X", 1, "M", (1, 1, 3, 1))) is None
    assert node_text(texts, Node("X", 1, "N", (1, 1, 1, 1))) is None
    assert node_text(texts, Node("X", 1, "M", (1, 2, 1, 1))) is None
    assert node_text({"M": "a\U0001F600b"}, Node("X", 1, "M", (1, 3, 1, 3))) is None


def shape_row(depth: int, kind: str, level: int, name: str = "", extra: str = "") -> str:
    """One node line of a SanyShapes description (module M, line 1)."""
    return "\t".join(map(str, (depth, kind, level, "M", 1, 1, 1, 1, name, extra)))


def test_a_formula_nested_past_the_limit_is_malformed_not_a_recursion_error() -> None:
    """``<><>...<>P`` 1,500 deep made every recursive walk raise RecursionError, a traceback
    out of the verifier: past MAX_DEPTH the description is malformed (the caller checks the
    template its own way), and at the limit every walk is far from Python's."""
    rows = [shape_row(d, "O", 3, "<>") for d in range(1_500)]
    with pytest.raises(ValueError, match="nested deeper"):
        parse_shapes("\n".join(["DEF\tSkShape_Def\t0", *rows]))
    tree = parse_shapes("\n".join(["DEF\tSkShape_Def\t0", *rows[:MAX_DEPTH + 1]]))["SkShape_Def"]
    assert classify(tree) == "own" and searches_tableau(tree)


def fairness(index: int) -> Node:
    """``WF_vars(A<index>)``, as SanyShapes describes it."""
    return Node("O", 3, "M", (1, 1, 1, 1), "$WF", children=(
        Node("U", 1, "M", (1, 1, 1, 1), "vars", "0"),
        Node("U", 2, "M", (1, 1, 1, 1), f"A{index}", "0")))


def test_too_many_fairness_comparisons_leave_the_template_whole() -> None:
    """A template of T conjuncts against a specification of F fairness conditions costs T x F
    tree comparisons: past MAX_COMPARISONS nothing is dropped (the template is checked whole),
    below it the same formula still is."""
    conj = Node("O", 3, "M", (1, 1, 1, 1), "$ConjList")
    many = 1 + MAX_COMPARISONS // 100
    spec = attrs.evolve(conj, children=tuple(fairness(i) for i in range(many)))
    template = attrs.evolve(conj, children=tuple(fairness(i) for i in range(100)))
    texts = {"M": "vars"}
    assert unimplied_conjuncts(texts, spec, template) is None
    small = attrs.evolve(conj, children=(fairness(0), fairness(1)))
    assert unimplied_conjuncts(texts, small, attrs.evolve(conj, children=(fairness(1),))) == []


def test_a_quantifier_over_too_many_names_is_checked_its_own_way() -> None:
    """Each set a bound name ranges over becomes an operator of the names bound before it, so
    an obligation's text grows as the square of their count: past MAX_BOUNDS names no
    obligation is made."""
    domain = Node("U", 0, "M", (1, 1, 1, 1), "S", "0")
    always = Node("O", 3, "M", (1, 1, 1, 1), "[]", children=(
        Node("U", 1, "M", (1, 1, 1, 1), "P", "0"),))

    def forall(count: int) -> Node:
        names = ",".join(f"a{i}" for i in range(count))
        return Node("O", 3, "M", (1, 1, 1, 1), "$BoundedForall", names, (domain, always))

    assert safety_obligations(forall(MAX_BOUNDS)) is not None
    assert safety_obligations(forall(MAX_BOUNDS + 1)) is None
