"""The ``tla.conformance`` verifier on the bundled artifacts: gold models, a seeded fault, a
tampered trace, malformed inputs and a budget, each checked by real TLC runs.

The TLC-backed verdicts are computed once per module (one run per artifact, about 45 s in all)
and shared by the tests that read them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from speckernel.components import ToolResolver, VerifyContext
from speckernel.model import Candidate, Diagnostic, Provenance, Status, Task, Verdict
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools
from speckernel.yamlio import load_yaml, plain
from tla_testdata import DATA, LIMITS, Evaluator, attacks

import speckernel_tla
from speckernel_tla.artifact import Deadline, ModelUnderTest, model_under_test
from speckernel_tla.benchmark import TlaBenchmark
from speckernel_tla.conformance import EVALUATOR_MAPPING, ConformanceVerifier
from speckernel_tla.evaluator import evaluator_view, mapping_answer
from speckernel_tla.fact_tags import new_tag
from speckernel_tla.specification import trace_config
from speckernel_tla.toolchain import Tla2ToolsToolchain
from speckernel_tla.trace_validation import (
    InputError,
    ModelConfig,
    TraceMapping,
    group_traces,
    introduced_names,
    mapping_problem,
    parse_mapping,
    parse_trace,
    read_config,
    read_facts,
    tla_value,
)

ARTIFACTS = Path(speckernel_tla.__file__).parent / "artifacts"
NAMES = ("spinlock", "mutex", "rwlock", "locksrv", "twophase")
DATA_KEYS = {"m_c", "m_ac", "transition_score", "per_action", "traces", "mapped_by"}
TRACE_01 = "traces/trace_01.ndjson"

GOLD_UNLOCK = """Unlock(t) ==
    /\\ pc[t] = "locked"
    /\\ lock_state' = FALSE"""
FAULTY_UNLOCK = GOLD_UNLOCK.replace("lock_state' = FALSE", "lock_state' = lock_state")
GOLD_INIT = '/\\ call_type = [t \\in Threads |-> "none"]'
HUGE_INIT = "/\\ call_type \\in [Threads -> 0..1000]"  # 10^9 initial states
GUESSED_TAGS = ("SkFact", "Sk" + "0" * 24)
"""The tag the facts had before it was drawn at random, and a guess of the tag's form."""
FORGED_FACTS = "\n".join(
    f'    /\\ \\A t \\in 1..8, n \\in 1..40 : PrintT(<<"{tag}", "line", t, n, 0>>)\n'
    f'    /\\ \\A p \\in 1..30, q \\in 1..30 : PrintT(<<"{tag}", "win", p, q, 1>>)'
    for tag in GUESSED_TAGS)
"""An ``Init`` conjunct printing what the trace module prints when a behaviour matches every
line of every trace: a model that could forge the facts would pass the traces it fails."""


def artifact_task(name: str, budgets: Mapping[str, float] | None = None,
                  edit: Mapping[str, str] | None = None) -> Task:
    """A task in the benchmark's schema from a bundled artifact; ``edit`` replaces traces."""
    folder = ARTIFACTS / name
    traces = {f"traces/{p.name}": p.read_text() for p in sorted(folder.glob("traces/*.ndjson"))}
    mapping = plain(load_yaml((folder / "mapping.yaml").read_text(), "mapping.yaml"))
    return Task(f"tla/{name}", "tla", files={**traces, **(edit or {})},
                metadata={"module": name, "mapping": mapping, "traces": sorted(traces),
                          "budgets": dict(budgets or {})})


REPLAYED_UNLOCK = ("lock_state' = e.locked /\\\\ pc' = [pc EXCEPT ![e.actor] = e.state]"
                   " /\\\\ call_type' = [call_type EXCEPT ![e.actor] = e.call]")
"""An action that sets the state to what the line logged, whatever the model's Unlock does."""


def gold_faulty_with_mapping(old: str, new: str) -> Candidate:
    """The faulty spinlock with its own mapping: the task's, with one edit (it must apply)."""
    mapping = (ARTIFACTS / "spinlock" / "mapping.yaml").read_text()
    assert old in mapping
    candidate = with_model(gold("spinlock"), GOLD_UNLOCK, FAULTY_UNLOCK)
    return attrs.evolve(candidate, files={**candidate.files,
                                          "mapping.yaml": mapping.replace(old, new)})


def gold(name: str, **files: str) -> Candidate:
    """The artifact's gold model and cfg, plus ``files``."""
    folder = ARTIFACTS / name / "gold"
    texts = {f"{name}.tla": (folder / f"{name}.tla").read_text(),
             f"{name}.cfg": (folder / f"{name}.cfg").read_text()}
    return Candidate({**texts, **files}, Provenance("test", "none"))


def with_model(candidate: Candidate, old: str, new: str) -> Candidate:
    """``candidate`` with one edit of its spinlock model (the edit must apply)."""
    text = candidate.files["spinlock.tla"]
    assert old in text
    return attrs.evolve(candidate, files={**candidate.files,
                                          "spinlock.tla": text.replace(old, new)})


def renamed(candidate: Candidate, names: Mapping[str, str]) -> Candidate:
    """``candidate`` with the spinlock model's operators ``names`` renamed (in its cfg too)."""
    files = dict(candidate.files)
    for path in ("spinlock.tla", "spinlock.cfg"):
        for old, new in names.items():
            files[path] = re.sub(rf"\b{old}\b", new, files[path])
    return attrs.evolve(candidate, files=files)


def without_line(text: str, number: int) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[: number - 1] + lines[number:])


@attrs.define
class ModuleContext(VerifyContext):
    """A verifier context that outlives one test (the conftest's is per test)."""

    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


def cases() -> dict[str, tuple[Candidate, Task]]:
    spinlock = gold("spinlock")
    trace = artifact_task("spinlock").files[TRACE_01]
    return {
        **{name: (gold(name), artifact_task(name)) for name in NAMES},
        "faulty": (with_model(spinlock, GOLD_UNLOCK, FAULTY_UNLOCK), artifact_task("spinlock")),
        "faulty_replaying_unlock": (gold_faulty_with_mapping(
            '"Unlock(e.actor)"', f'"{REPLAYED_UNLOCK}"'), artifact_task("spinlock")),
        "faulty_forging_facts": (with_model(with_model(spinlock, GOLD_UNLOCK, FAULTY_UNLOCK),
                                            GOLD_INIT, f"{GOLD_INIT}\n{FORGED_FACTS}"),
                                 artifact_task("spinlock")),
        "tampered": (spinlock, artifact_task("spinlock", edit={TRACE_01: without_line(trace, 10)})),
        "huge": (with_model(spinlock, GOLD_INIT, HUGE_INIT),
                 artifact_task("spinlock", {"wall_s": 5})),
        "few_states": (spinlock, artifact_task("spinlock", {"states": 60})),
        "start_step": (renamed(spinlock, {"Init": "Start", "Next": "Step", "Spec": "Behaviours"}),
                       artifact_task("spinlock")),
        "faulty_few_states": (with_model(spinlock, GOLD_UNLOCK, FAULTY_UNLOCK),
                              artifact_task("spinlock", {"states": 60})),
        "bad_expression": (gold("spinlock", **{"mapping.yaml": (
            ARTIFACTS / "spinlock" / "mapping.yaml").read_text().replace(
            "locked: \"lock_state'\"", "locked: \"lock_state' +* \"", 1)}),
            artifact_task("spinlock")),
    }


@pytest.fixture(scope="module")
def verdicts(jar: Path) -> dict[str, Verdict]:
    """Every TLC-backed case, verified one after the other (TLC runs in parallel race on the
    standard modules SANY extracts into /tmp)."""
    tools = DetectedTools({Tla2ToolsToolchain.name: Tla2ToolsToolchain()})
    ctx = ModuleContext(LocalSandbox(), tools, LIMITS, {})

    async def run() -> dict[str, Verdict]:
        return {name: await ConformanceVerifier().verify(candidate, task, ctx)
                for name, (candidate, task) in cases().items()}

    return anyio.run(run)


# --------------------------------------------------------------------------- TLC-backed


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_gold_models_conform(verdicts: dict[str, Verdict], name: str) -> None:
    verdict = verdicts[name]
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert set(verdict.data) == DATA_KEYS
    assert (verdict.data["m_c"], verdict.data["m_ac"], verdict.data["transition_score"]) == (
        1.0, 1.0, 1.0)
    events = set(load_yaml((ARTIFACTS / name / "mapping.yaml").read_text(), "m")["events"])
    assert set(verdict.data["per_action"]) == events
    assert set(verdict.data["per_action"].values()) == {1.0}
    assert all(t == {"ok": True, "failed_line": None, "event": None}
               for t in verdict.data["traces"].values())
    assert verdict.diagnostics == ()


@pytest.mark.slow
def test_wrong_transition_is_located(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["faulty"]
    assert verdict.status is Status.FAILURE
    data = verdict.data
    assert data["traces"][TRACE_01] == {"ok": False, "failed_line": 6, "event": "Unlock"}
    assert data["m_ac"] == 0.0 and data["m_c"] < 1.0 and data["transition_score"] < 1.0
    assert {a for a, rate in data["per_action"].items() if rate < 1.0} == {"Unlock"}
    assert len(verdict.diagnostics) == 4  # one per failing trace
    first = verdict.diagnostics[0]
    assert (first.file, first.line) == (TRACE_01, 6)
    assert "line 6 (event Unlock)" in first.message and "Unlock(e.actor)" in first.message


@pytest.mark.slow
def test_a_model_printing_facts_gets_the_verdict_of_one_that_does_not(
        verdicts: dict[str, Verdict]) -> None:
    forged, faulty = verdicts["faulty_forging_facts"], verdicts["faulty"]
    assert forged.status is Status.FAILURE
    assert forged.data == faulty.data and forged.diagnostics == faulty.diagnostics


@pytest.mark.slow
def test_a_mapped_action_is_a_step_of_the_model(verdicts: dict[str, Verdict]) -> None:
    """An action replaying the line (its own mapping's) made the faulty Unlock's lines pass:
    each step must also be one of the model's next-state relation."""
    replayed, faulty = verdicts["faulty_replaying_unlock"], verdicts["faulty"]
    assert replayed.status is Status.FAILURE
    assert replayed.data["traces"] == faulty.data["traces"]
    assert replayed.data["m_ac"] == 0.0


@pytest.mark.slow
def test_tampered_trace_fails(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["tampered"]
    assert verdict.status is Status.FAILURE
    traces = verdict.data["traces"]
    assert traces[TRACE_01] == {"ok": False, "failed_line": 10, "event": "Unlock"}
    assert sum(t["ok"] for t in traces.values()) == 3 and verdict.data["m_ac"] == 0.75
    assert [d.line for d in verdict.diagnostics] == [10]


@pytest.mark.slow
def test_wall_budget_stops_a_huge_state_space(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["huge"]
    assert verdict.status is Status.TIMEOUT, verdict.summary()
    assert set(verdict.data) == DATA_KEYS and verdict.duration_s < 30
    assert not any(t["ok"] or t["failed_line"] for t in verdict.data["traces"].values())
    assert "ran out of budget" in verdict.summary()


@pytest.mark.slow
@pytest.mark.parametrize(("budgeted", "unbounded"), [("few_states", "spinlock"),
                                                     ("faulty_few_states", "faulty")])
def test_state_budget_cuts_the_windows_not_the_whole_trace_verdicts(
        verdicts: dict[str, Verdict], budgeted: str, unbounded: str) -> None:
    verdict, full = verdicts[budgeted], verdicts[unbounded]
    # The whole-trace verdicts of the run without the budget: status, M_ac, M_c, failing lines.
    assert verdict.status is full.status
    assert verdict.data["traces"] == full.data["traces"]
    assert (verdict.data["m_ac"], verdict.data["m_c"]) == (full.data["m_ac"], full.data["m_c"])
    # Only the windows are partial, and a diagnostic says so.
    assert 0.0 < verdict.data["transition_score"] < full.data["transition_score"]
    assert "window search ran out of its state budget" in verdict.summary()


@pytest.mark.slow
def test_init_and_next_come_from_the_specification(verdicts: dict[str, Verdict]) -> None:
    # The cfg says SPECIFICATION Behaviours, defined as Start /\ [][Step]_vars /\ fairness.
    verdict = verdicts["start_step"]
    assert cases()["start_step"][0].files["spinlock.cfg"].startswith(
        "SPECIFICATION Behaviours\n")
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert verdict.data == verdicts["spinlock"].data


@pytest.mark.slow
def test_mapping_expression_that_does_not_parse(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["bad_expression"]
    assert verdict.status is Status.FAILURE
    assert "does not parse" in verdict.summary()
    assert "((lock_state' +*) = e.locked)" in verdict.summary()  # the generated line, quoted


# --------------------------------------------------------------------------- no TLC run


@pytest.mark.anyio
@pytest.mark.parametrize(("files", "edit", "needle"), [
    ({"mapping.yaml": "events: [unclosed"}, {}, "invalid YAML"),
    ({"mapping.yaml": "init: {event: Init}\nevents: {}\n"}, {}, "at least one trace event"),
    ({"mapping.yaml": "events: {Acquire: {fields: {locked: x}}}\n"}, {}, "events.Acquire.action"),
    ({}, {TRACE_01: '{"event":"Init","locked":false}\n'}, "field(s) threads"),
    ({}, {TRACE_01: '{"event":"Init","threads":["t1"],"locked":0.5}\n'}, "no TLA+ value"),
])
async def test_malformed_input_is_a_failure_verdict(make_ctx: Any, files: dict[str, str],
                                                    edit: dict[str, str], needle: str) -> None:
    verdict = await ConformanceVerifier().verify(
        gold("spinlock", **files), artifact_task("spinlock", edit=edit), make_ctx())
    assert verdict.status is Status.FAILURE
    assert needle in verdict.summary()
    assert set(verdict.data) == DATA_KEYS and verdict.data["m_ac"] == 0.0


@pytest.mark.anyio
@pytest.mark.parametrize(("cfg", "needle"), [
    # every line then matches a step that leaves the model's variables as they are: a faulty
    # model validated every trace (M_ac 1, transition score 1) before this was refused
    ("CONSTANTS SkStep <- AnyStep", "names SkStep, a name the verifier generates"),
    ("CONSTANTS Threads <- SkRec", "names SkRec"),  # the model handed the whole trace
    ("CONSTANTS TLCGet <- Level1", "replaces TLCGet, an operator of a standard module"),
])
async def test_a_cfg_reaching_into_the_validation_module_checks_no_trace(
        make_ctx: Any, cfg: str, needle: str) -> None:
    candidate = with_model(gold("spinlock"), GOLD_UNLOCK, FAULTY_UNLOCK)
    model = candidate.files["spinlock.tla"].replace(
        "\nInit ==", "\nAnyStep(e) == UNCHANGED vars\nLevel1(x) == 1\nInit ==", 1)
    candidate = attrs.evolve(candidate, files={
        **candidate.files, "spinlock.tla": model,
        "spinlock.cfg": candidate.files["spinlock.cfg"] + f"\n{cfg}\n"})
    verdict = await ConformanceVerifier().verify(candidate, artifact_task("spinlock"), make_ctx())
    assert verdict.status is Status.FAILURE and needle in verdict.summary()
    assert [d.code for d in verdict.diagnostics] == ["cfg-tampering"]
    assert verdict.data["m_ac"] == verdict.data["transition_score"] == 0.0


MAPPING_ATTACKS = attacks(DATA / "conformance" / "mapping_attacks.yaml")


@pytest.mark.parametrize("attack", MAPPING_ATTACKS, ids=[a["name"] for a in MAPPING_ATTACKS])
def test_a_mapping_that_could_judge_the_line_by_itself_is_refused(attack: dict[str, Any]) -> None:
    """A candidate's mapping is verification criteria it wrote: each attack of the corpus
    passes a model whatever it does, hands it the trace, or leaves part of a line unchecked,
    and is refused before any TLC run."""
    text = (ARTIFACTS / attack["task"] / "mapping.yaml").read_text()
    for edit in attack["edits"]:
        assert edit["old"] in text, edit["old"]
        text = text.replace(edit["old"], edit["new"], edit.get("count", 1))
    problem = audit(attack["task"], plain(load_yaml(text, "mapping.yaml")))
    assert problem is not None and attack["refused"] in problem, problem


def audit(name: str, own: Any) -> str | None:
    """:func:`mapping_problem` of the mapping ``own`` (a parsed or raw one) on task ``name``."""
    task = artifact_task(name)
    own = own if isinstance(own, TraceMapping) else parse_mapping(own)
    traces = [parse_trace(k, task.files[k]) for k in task.metadata["traces"]]
    introduced = introduced_names(name, ModelConfig(), own, group_traces(traces, own)[0])
    return mapping_problem(own, parse_mapping(task.metadata["mapping"]), introduced)


def renamed_expressions(mapping: TraceMapping, names: Mapping[str, str]) -> TraceMapping:
    """``mapping`` with the model's identifiers ``names`` renamed in every expression."""
    def rename(text: str) -> str:
        return re.sub(r"(?<![\w.!])[A-Za-z_]\w*",
                      lambda m: names.get(m.group(), m.group()), text)

    def pairs(items: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        return tuple((k, rename(v)) for k, v in items)

    return attrs.evolve(mapping, constants=pairs(mapping.constants),
                        init_fields=pairs(mapping.init_fields),
                        events=tuple(attrs.evolve(e, action=rename(e.action),
                                                  fields=pairs(e.fields),
                                                  checks=tuple(map(rename, e.checks)))
                                     for e in mapping.events))


def test_without_a_task_mapping_a_field_may_not_read_itself() -> None:
    own = parse_mapping({"events": {"Set": {"action": "Set(e.actor)", "fields": {
        "x": "x'[e.actor]", "y": "IF e.y THEN 1 ELSE 0"}}}})
    assert mapping_problem(own, None, frozenset()) == (
        "events.Set.fields.y reads e.y of the trace line: a field is compared with the model, "
        "not with the line")
    honest = parse_mapping({"events": {"Set": {"action": "Set(e.actor)",
                                               "fields": {"x": "x'[e.actor]"}}}})
    assert mapping_problem(honest, None, frozenset()) is None


MODEL_NAMES = {"spinlock": ("lock_state", "pc", "call_type", "LockRequest", "Acquire", "Unlock"),
               "mutex": ("locked", "queue", "pc", "woken", "Threads"),
               "rwlock": ("readers", "writer", "pc", "waiting_writers", "Threads")}
FRESH = st.from_regex(r"[a-z][a-z0-9_]{2,8}", fullmatch=True).filter(
    lambda n: n not in {"e", "in", "let", "if", "then", "else", "except", "case", "other"})


@settings(max_examples=30, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(MODEL_NAMES)))
def test_a_task_mapping_under_any_renaming_is_accepted(data: st.DataObject, name: str) -> None:
    """A model naming its variables, actions and constants otherwise maps its trace honestly
    with the task's mapping renamed: the audit accepts every such mapping."""
    olds = MODEL_NAMES[name]
    news = data.draw(st.lists(FRESH, min_size=len(olds), max_size=len(olds), unique=True))
    task = parse_mapping(artifact_task(name).metadata["mapping"])
    assert audit(name, renamed_expressions(task, dict(zip(olds, news, strict=True)))) is None


@settings(max_examples=40, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(MODEL_NAMES)))
def test_a_field_reading_more_of_the_line_than_the_tasks_is_refused(
        data: st.DataObject, name: str) -> None:
    """Whatever field of whichever event: an expression that also reads a field of the line
    the task's expression for it does not read is refused, however the read is spelt."""
    task = parse_mapping(artifact_task(name).metadata["mapping"])
    event = data.draw(st.sampled_from([e for e in task.events if e.fields]))
    index = data.draw(st.integers(0, len(event.fields) - 1))
    field, expression = event.fields[index]
    allowed = {m.group(1) for m in re.finditer(r"\be\.(\w+)", expression)}
    read = data.draw(st.sampled_from(sorted(event.reads - allowed - {"event"} | {field})))
    spelt = data.draw(st.sampled_from([f"e.{read}", f"e . {read}", f'e["{read}"]',
                                       f"(LET r == e IN r.{read})", "[x \\in {e} |-> x]"]))
    wrapped = data.draw(st.sampled_from([f"IF {spelt} = {spelt} THEN {expression} ELSE 0",
                                         f"{spelt}", f"<<{expression}, {spelt}>>[1]"]))
    fields = (*event.fields[:index], (field, wrapped), *event.fields[index + 1:])
    own = attrs.evolve(task, events=tuple(attrs.evolve(e, fields=fields) if e is event else e
                                          for e in task.events))
    problem = audit(name, own)
    assert problem is not None and "of the trace line" in problem, problem


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_check_may_move_but_not_go(data: st.DataObject) -> None:
    """Whichever of the task's checks is dropped, the mapping is refused; moved into the
    event's action it is accepted (a conjunct of the step either way)."""
    task = parse_mapping(artifact_task("rwlock").metadata["mapping"])
    event = data.draw(st.sampled_from([e for e in task.events if e.checks]))
    check = data.draw(st.sampled_from(event.checks))
    rest = tuple(c for c in event.checks if c != check)

    def with_event(changed: Any) -> Any:
        return attrs.evolve(task, events=tuple(changed if e is event else e
                                               for e in task.events))

    dropped = audit("rwlock", with_event(attrs.evolve(event, checks=rest)))
    assert dropped is not None and f"events.{event.event} does not read e." in dropped
    moved = attrs.evolve(event, action=f"({event.action}) /\\ ({check})", checks=rest)
    assert audit("rwlock", with_event(moved)) is None


@pytest.mark.parametrize("variant", sorted(p.parent for p in
                                           (DATA / "variants").glob("*/*/mapping.yaml")))
def test_the_variants_own_mappings_are_accepted(variant: Path) -> None:
    """Renamed variables and actions, merged and split actions: honest mappings pass."""
    name = variant.parent.name
    task = artifact_task(name)
    own = parse_mapping(plain(load_yaml((variant / "mapping.yaml").read_text(), "m")))
    files = {p.name: p.read_text() for p in variant.iterdir() if p.suffix in (".tla", ".cfg")}
    model = model_under_test(Candidate(files, Provenance("test", "none")), task)
    assert not isinstance(model, Diagnostic)
    traces = [parse_trace(k, task.files[k]) for k in task.metadata["traces"]]
    introduced = introduced_names(name, read_config(model.cfg_text), own,
                                  group_traces(traces, own)[0])
    assert mapping_problem(own, parse_mapping(task.metadata["mapping"]), introduced) is None


@pytest.mark.anyio
@pytest.mark.parametrize(("mapping", "edit", "needle"), [
    (True, {TRACE_01: '{"event":"Init","threads":["t1"],"locked":false}\n{oops\n'},
     f"the task's trace {TRACE_01}:2: not JSON"),
    # the decoder recursed out on it (a RecursionError traceback)
    (True, {TRACE_01: '{"event":"Init","threads":' + "[" * 5000 + "]" * 5000 + "}\n"},
     f"{TRACE_01}:1: not JSON (nested more than 200 levels)"),
    (True, {TRACE_01: '{"event":"Init","threads":["t1"],"locked":false,"locked":true}\n'},
     f"{TRACE_01}:1: not JSON (key 'locked' twice)"),
    (False, {}, "no mapping.yaml in the candidate and no mapping in the task"),
])
async def test_traces_that_cannot_be_validated_score_none(
        make_ctx: Any, mapping: bool, edit: dict[str, str], needle: str) -> None:
    # Issue 16: a task whose traces cannot be checked (no mapping, a malformed trace of its
    # own) said FAILURE with M_c 0; it is unknown, every metric None.
    task = artifact_task("spinlock", edit=edit)
    if not mapping:
        task = attrs.evolve(task, metadata={**task.metadata, "mapping": None})
    verdict = await ConformanceVerifier().verify(gold("spinlock"), task, make_ctx())
    assert verdict.status is Status.UNKNOWN
    assert needle in verdict.summary()
    assert (verdict.data["m_c"], verdict.data["m_ac"], verdict.data["transition_score"]) == (
        None, None, None)


@pytest.mark.anyio
async def test_task_without_traces_scores_none(make_ctx: Any) -> None:
    task = attrs.evolve(artifact_task("spinlock"), metadata={"module": "spinlock", "traces": []})
    verdict = await ConformanceVerifier().verify(gold("spinlock"), task, make_ctx())
    assert verdict.status is Status.UNKNOWN and verdict.data["m_c"] is None
    assert "the task has no traces" in verdict.summary()


def test_config_keeps_init_next_and_constants() -> None:
    config = read_config(
        '\\* comment\nSPECIFICATION Spec\nINIT MyInit NEXT MyNext\n'
        'CONSTANTS N = 3 Names = {"a", "b=c"} (* x = 1 *)\n  Nil = Nil\n  C <- [Mod] Def\n'
        'INVARIANT TypeOK\n')
    assert (config.init, config.next) == ("MyInit", "MyNext")
    assert config.constants == (("N", "N = 3"), ("Names", 'Names = {"a", "b=c"}'),
                                ("Nil", "Nil = Nil"), ("C", "C <- [Mod] Def"))


def test_an_empty_constants_section_is_read_as_no_constant() -> None:
    # it raised ValueError out of zip() (found by a hypothesis test of cfg rewriting)
    assert read_config("CONSTANTS\nINIT Init\nNEXT Next\n") == ModelConfig("Init", "Next", ())


SPEC_MODEL = ("---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\nStart == x = 0\n"
              "Step(t) == x' = x + t\nWrong == x = 7\n{spec}\n====\n{after}")


def parts_read(config: ModelConfig) -> tuple[list[str], str]:
    """The texts (on one line) of the initial predicate's conjuncts and of the action that
    ``config``'s definitions give, checking ``init`` and ``next`` name them."""
    bodies: dict[str, list[str]] = {}
    for line in config.definitions:
        if (head := re.fullmatch(r"(SkShape_\w+) ==", line)) is not None:
            name = head[1]
            bodies[name] = []
        else:
            bodies[name].append(line)
    flat = {n: " ".join(" ".join(b).split()) for n, b in bodies.items()}
    assert config.next == "SkShape_Next" and config.init.split(" /\\ ") == [
        n for n in flat if n != "SkShape_Next"]
    return [flat[n] for n in config.init.split(" /\\ ")], flat["SkShape_Next"]


@pytest.mark.anyio
@pytest.mark.parametrize(("spec", "after", "expected"), [
    ("\\* Spec == Wrong /\\ [][Wrong]_x\nSpec ==\n    /\\ Start\n"
     "    /\\ [][\\E t \\in {1, 2} : Step(t)]_<<x>>\n    /\\ WF_x(Step(1))", "",
     (["Start"], "\\E t \\in {1, 2} : Step(t)")),
    # forms the text reader got wrong where SANY does not: an indented definition, a decoy
    # after the module's end, an initial predicate of two conjuncts
    ("   Spec == Start /\\ [][Step(1)]_x", "", (["Start"], "Step(1)")),
    ("Spec == Start /\\ [][Step(1)]_x", "Spec == Wrong /\\ [][Step(2)]_x\n",
     (["Start"], "Step(1)")),
    ("Spec == Start /\\ x < 5 /\\ [][Step(1)]_x", "", (["Start /\\ x < 5"], "Step(1)")),
    ("Spec == /\\ Start\n        /\\ [][Step(1)]_x\n        /\\ x < 5", "",
     (["Start", "x < 5"], "Step(1)")),
    # no parts to read: the verdict says so, and no trace is checked (a formula of another
    # module's instance too: its text copied here would name this module's operators)
    ("Base == INSTANCE Other\nSpec == Base!Spec", "", None),
    ("Spec == Start /\\ [][Step(1)]_x /\\ [][Step(2)]_x", "", None),
    ("Spec == Start /\\ []<>(x > 1) /\\ [][Step(1)]_x", "", None),
    ("Other == Start", "", None),
])
async def test_the_specifications_parts_are_read_as_sany_resolves_them(
        make_ctx: Any, jar: Path, spec: str, after: str,
        expected: tuple[list[str], str] | None) -> None:
    other = ("---- MODULE Other ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\n"
             "Next == x' = x + 1\nSpec == Init /\\ [][Next]_x\n====\n")
    files = {"M.tla": SPEC_MODEL.format(spec=spec, after=after), "Other.tla": other,
             "M.cfg": "SPECIFICATION Spec\nCONSTANT N = 1\n"}
    model = ModelUnderTest("M", "M.cfg", files)
    config = await trace_config(make_ctx(), jar, model, Deadline.after(60.0), 30.0)
    if expected is None:
        assert isinstance(config, Diagnostic) and config.code == "specification-unread"
        assert "no trace is checked" in config.message
    else:
        assert not isinstance(config, Diagnostic)
        assert parts_read(config) == expected
        assert config.constants == (("N", "N = 1"),)
    # INIT and NEXT name the operators themselves
    named = attrs.evolve(model, files={**files, "M.cfg": "INIT Start\nNEXT Step\n"})
    assert await trace_config(make_ctx(), jar, named, Deadline.after(60.0), 30.0) == \
        ModelConfig("Start", "Step", ())


@pytest.mark.anyio
@pytest.mark.parametrize(("cfg", "base", "why"), [
    # TLC checks the replacement, not the formula as written (found by an attacker)
    ("SPECIFICATION Spec\nCONSTANT Spec <- Lazy\n", "", "the cfg replaces it"),
    # an extended module's LOCAL N is not inherited: copied as N it named the model's own N
    ("SPECIFICATION Spec\n", "LOCAL Hidden == 1\n", "the model has LOCAL definitions"),
])
async def test_a_specification_whose_text_would_mislead_checks_no_trace(
        make_ctx: Any, jar: Path, cfg: str, base: str, why: str) -> None:
    model = SPEC_MODEL.format(spec="Spec == Start /\\ [][Step(1)]_x\nLazy == Start /\\ [][FALSE]_x",
                              after="")
    files = {"M.tla": model.replace("EXTENDS Naturals", "EXTENDS Naturals, Base"), "M.cfg": cfg,
             "Base.tla": f"---- MODULE Base ----\n{base}====\n"}
    config = await trace_config(make_ctx(), jar, ModelUnderTest("M", "M.cfg", files),
                                Deadline.after(60.0), 30.0)
    assert isinstance(config, Diagnostic) and why in config.message


@pytest.mark.anyio
async def test_a_specifications_parts_keep_their_layout(make_ctx: Any) -> None:
    """The action written inline as a junction list, ``/\\ IF c THEN A ELSE B`` over ``/\\
    D``: made one line, it reads ``IF c THEN A ELSE (B /\\ D)``, which drops ``D`` when ``c``
    holds. The spinlock whose inline action so conjoins ``FALSE`` takes no step: no trace
    conforms, as TLC checks it."""
    task, candidate = artifact_task("spinlock"), gold("spinlock")
    model = candidate.files["spinlock.tla"]
    spec = re.search(r"(?m)^Spec ==.*(?:\n[ \t]+.*)*", model)
    assert spec is not None
    inline = ("Spec == Init /\\ [][ /\\ IF TRUE THEN Next ELSE FALSE\n"
              "                    /\\ FALSE ]_vars")
    assert inline.index("/\\ IF") == inline.index("/\\ FALSE") - inline.index("\n") - 1
    model = model[:spec.start()] + inline + model[spec.end():]
    verdict = await ConformanceVerifier().verify(
        Candidate({**candidate.files, "spinlock.tla": model}, candidate.provenance), task,
        make_ctx())
    assert verdict.status is Status.FAILURE, verdict.summary()
    assert verdict.data["m_ac"] == 0.0


@pytest.mark.anyio
@pytest.mark.parametrize("form", ["indented", "decoy after the end", "second conjunct"])
async def test_a_specification_that_never_moves_conforms_to_no_trace(
        make_ctx: Any, form: str) -> None:
    """A spinlock whose specification stutters forever (or has no initial state), written so
    that reading its parts from the text found the gold ``Init`` and ``Next`` (found by an
    attacker): every trace validated while TLC checked that other model in the other phases."""
    task, candidate = artifact_task("spinlock"), gold("spinlock")
    model = candidate.files["spinlock.tla"]
    spec = re.search(r"(?m)^Spec ==.*(?:\n[ \t]+.*)*", model)
    assert spec is not None
    stutter = "Stutter == UNCHANGED vars\n"
    replacement = {
        "indented": stutter + "  Spec == Init /\\ [][Stutter]_vars",
        "decoy after the end": stutter + "Spec == Init /\\ [][Stutter]_vars",
        # an initial predicate no state satisfies: the model has no behaviour at all
        "second conjunct": "Spec == Init /\\ lock_state = TRUE /\\ [][Next]_vars",
    }[form]
    model = model[:spec.start()] + replacement + model[spec.end():]
    if form == "decoy after the end":
        model += "Spec == Init /\\ [][Next]_vars\n"
    verdict = await ConformanceVerifier().verify(
        Candidate({**candidate.files, "spinlock.tla": model}, candidate.provenance), task,
        make_ctx())
    assert verdict.status is Status.FAILURE, verdict.summary()
    assert verdict.data["m_ac"] == 0.0


def test_json_values_become_tla_values() -> None:
    value: dict[str, object] = {"a": [1, -2, True], "s": 'say "hi"\\', "n": None, "e": {}}
    assert tla_value(value, "x") == (
        '[a |-> <<1, -2, TRUE>>, s |-> "say \\"hi\\"\\\\", n |-> "null", '
        'e |-> [sk_none \\in {} |-> 0]]')
    for bad in (2**40, 1.5, "é", {"not id": 1}):
        with pytest.raises(InputError):
            tla_value(bad, "x")


def test_trace_lines_end_only_at_line_ends() -> None:
    # U+2028 may stand raw in a JSON string; a BOM may open the file
    text = '\ufeff{"event":"A","note":"x\u2028y"}\r\n{"event":"B"}\r{"event":"C"}'
    trace = parse_trace("t", text)
    assert [r["event"] for r in trace.records] == ["A", "B", "C"] and trace.lines == (1, 2, 3)


def test_traces_group_by_first_line_and_share_records() -> None:
    mapping = parse_mapping({"init": {"fields": {"x": "x"}},
                             "events": {"Inc": {"action": "Inc", "fields": {"x": "x'"}}}})
    one = parse_trace("a", '{"event":"Init","x":0}\n\n{"event":"Inc","x":1,"noise":7}\n')
    two = parse_trace("b", '{"event":"Init","x":0}\n{"event":"Inc","x":1,"noise":8}\n')
    three = parse_trace("c", '{"event":"Init","x":5}\n')
    groups = group_traces([one, two, three], mapping)
    assert [len(g.traces) for g in groups] == [2, 1]
    assert groups[0].ids == ((1, 2), (1, 2)) and one.lines == (1, 3)
    assert groups[0].records[1] == '[event |-> "Inc", x |-> 1]'


def test_facts_keep_the_least_window_level() -> None:
    tag = new_tag()
    facts = read_facts(f'<<"{tag}", "line", 1, 3, 0>>\nnoise\n<<"{tag}", "win", 2, 5, 4>>\n'
                       f'<<"{tag}", "win", 2, 5, 2>>\n<<"{new_tag()}", "line", 2, 9, 0>>\n', tag)
    assert facts.reached(1) == 3 and facts.reached(2) == 0
    assert facts.window((2, 5), 3) and not facts.window((2, 5), 2)


# ------------------------------------------------------------------- the evaluator's mapping

RWLOCK_RENAMED = DATA / "variants" / "rwlock" / "renamed_variables"
LAST_READER_WAKES = """    /\\ phase' = IF nreaders = 1 THEN WakeAll([phase EXCEPT ![t] = "idle"])
                            ELSE [phase EXCEPT ![t] = "idle"]"""
EVERY_READER_WAKES = """    /\\ phase' = WakeAll([phase EXCEPT ![t] = "idle"])"""
EMPTIED = "SetOf(e.woken) = SetOf(e.woken)"


def rwlock_renamed(**files: str) -> Candidate:
    """The rwlock variant in other names, with its own (honest) mapping, plus ``files``."""
    texts = {p.name: p.read_text() for p in RWLOCK_RENAMED.iterdir()
             if p.name in ("rwlock.tla", "rwlock.cfg", "mapping.yaml")}
    return Candidate({**texts, **files}, Provenance("test", "none"))


def every_reader_wakes() -> Candidate:
    """A faulty rwlock in other names whose every reader, not only the last, wakes the waiters
    on release, with the variant's mapping and each ``woken`` check kept but emptied: it reads
    the field, so the mapping audit passes it, and says nothing of it."""
    honest = rwlock_renamed()
    model, mapping = honest.files["rwlock.tla"], honest.files["mapping.yaml"]
    assert LAST_READER_WAKES in model
    emptied, count = re.subn(r'(?m)^(\s+- )"SetOf\(e\.woken\) = \{.*$', rf'\1"{EMPTIED}"', mapping)
    assert count == 2
    return rwlock_renamed(**{"rwlock.tla": model.replace(LAST_READER_WAKES, EVERY_READER_WAKES),
                             "mapping.yaml": emptied})


@pytest.mark.anyio
async def test_the_evaluators_mapping_judges_a_model_in_other_names(make_ctx: Any) -> None:
    """A check a candidate keeps but empties passes the mapping audit, which reads what a
    mapping reads, not what it says: the faulty rwlock validates every trace through its own
    mapping. With an evaluator model, the evaluator maps the traces onto the candidate's model,
    as upstream's does, shown the task's mapping and the model, not the candidate's mapping;
    through its mapping the fault fails, and the honest variant still conforms."""
    task = artifact_task("rwlock")
    faulty = every_reader_wakes()
    alone = await ConformanceVerifier().verify(faulty, task, make_ctx())
    assert alone.status is Status.SUCCESS, alone.summary()
    assert alone.data["mapped_by"] == "candidate" and alone.data["m_ac"] == 1.0

    honest_mapping = rwlock_renamed().files["mapping.yaml"]
    for candidate, conforms in ((faulty, False), (rwlock_renamed(), True)):
        evaluator = Evaluator(f"Here it is.\n\n```mapping.yaml\n{honest_mapping}```\n")
        added = await TlaBenchmark().prepare(candidate, task, evaluator)
        assert added == {EVALUATOR_MAPPING: honest_mapping}
        (asked,) = evaluator.asked
        assert evaluator_view(candidate.files["rwlock.tla"]) in asked
        assert EMPTIED not in asked and "nreaders" not in asked.split("```yaml")[1]
        judged = Candidate({**candidate.files, **added}, candidate.provenance)
        verdict = await ConformanceVerifier().verify(judged, task, make_ctx())
        assert verdict.data["mapped_by"] == "evaluator"
        assert (verdict.status is Status.SUCCESS) is conforms, verdict.summary()
        assert (verdict.data["m_ac"] == 1.0) is conforms


MAPPING = "events:\n  Acquire:\n    action: Acquire(e.thread)\n"


@pytest.mark.parametrize(("answer", "picked"), [
    (f"```mapping.yaml\n{MAPPING}```", MAPPING),
    # an answer quoting the model, then a trace line, before its mapping
    (f"Your model:\n```tla\n---- MODULE m ----\n====\n```\nA line:\n```json\n"
     f'{{"event": "Acquire"}}\n```\nThe mapping:\n```yaml\n{MAPPING}```', MAPPING),
    # no block reads as a mapping: the first block is the file, and conformance refuses it
    ("```\nevents: [\n```\n```\nkey: 1\n```", "events: [\n"),
    ("events:\n  Acquire: {}", "events:\n  Acquire: {}"),
])
def test_the_evaluators_mapping_is_the_answers_mapping_block(answer: str, picked: str) -> None:
    assert mapping_answer(answer) == picked


@pytest.mark.anyio
@pytest.mark.parametrize(("answer", "needle"), [
    ("I cannot map this model.", "the evaluator's evaluator/mapping.yaml: "),
    # the evaluator's mapping is audited as the candidate's is: here it compares a field with
    # the line itself
    (None, "the evaluator's evaluator/mapping.yaml: events.AcquireRead.fields.readers reads "
           "e.readers of the trace line"),
])
async def test_an_evaluators_mapping_that_cannot_judge_fails_the_phase(
        make_ctx: Any, answer: str | None, needle: str) -> None:
    """An evaluator's mapping that cannot be read or is refused fails the phase, with no
    return to the candidate's own (a model could otherwise make its judge's answer useless
    on purpose)."""
    task = artifact_task("rwlock")
    honest = rwlock_renamed()
    if answer is None:
        answer = honest.files["mapping.yaml"].replace('readers: "nreaders\'"', "readers: e.readers")
        assert answer != honest.files["mapping.yaml"]
    added = await TlaBenchmark().prepare(honest, task, Evaluator(answer))
    verdict = await ConformanceVerifier().verify(
        Candidate({**honest.files, **added}, honest.provenance), task, make_ctx())
    assert verdict.status is Status.FAILURE and verdict.data["mapped_by"] == "evaluator"
    assert needle in verdict.summary() and verdict.data["m_ac"] == 0.0


@pytest.mark.anyio
@pytest.mark.parametrize("case", ["no evaluator model", "no mapping of its own", "PGo traces"])
async def test_the_evaluator_maps_only_a_candidate_with_a_mapping_of_its_own(case: str) -> None:
    task, candidate = artifact_task("rwlock"), rwlock_renamed()
    evaluator = Evaluator(None if case == "no evaluator model" else "unused")
    if case == "no mapping of its own":
        candidate = gold("rwlock")
    if case == "PGo traces":
        task = attrs.evolve(task, metadata={**task.metadata, "trace_format": "tracelink"})
    assert await TlaBenchmark().prepare(candidate, task, evaluator) == {}
    assert evaluator.asked == []


@pytest.mark.anyio
@pytest.mark.parametrize(("override", "refused"), [("", False),
                                                    ("CONSTANT Phases <- Fixed\n", True)])
async def test_a_cfg_cannot_change_a_definition_the_mapping_reads(
        make_ctx: Any, override: str, refused: bool) -> None:
    """A mapping the candidate did not write reads the model through a definition (here the
    task's: the threads' phases as ``Phases``); a cfg replacing it would change what the mapping
    checks and nothing else, so no trace is checked then."""
    task = artifact_task("spinlock")
    mapping = task.metadata["mapping"]
    events = {name: {**event, "fields": {f: t.replace("pc'[e.actor]", "Phases'[e.actor]")
                                         for f, t in (event.get("fields") or {}).items()}}
              for name, event in mapping["events"].items()}
    task = attrs.evolve(task, metadata={**task.metadata,
                                        "mapping": {**mapping, "events": events}})
    candidate = gold("spinlock")
    model = candidate.files["spinlock.tla"]
    end = model.rindex("\n====") + 1
    model = model[:end] + "Phases == pc\nFixed == [t \\in Threads |-> \"idle\"]\n" + model[end:]
    judged = Candidate({**candidate.files, "spinlock.tla": model,
                        "spinlock.cfg": candidate.files["spinlock.cfg"] + override},
                       candidate.provenance)
    verdict = await ConformanceVerifier().verify(judged, task, make_ctx())
    if refused:
        assert verdict.status is Status.FAILURE and verdict.data["m_ac"] == 0.0
        assert "the cfg replaces Phases, which the mapping reads" in verdict.summary()
    else:
        assert verdict.status is Status.SUCCESS, verdict.summary()
