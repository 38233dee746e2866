"""Conformance on PGo systems: TraceLink logs merged by vector clock, the mapping derived from a
PGo-compiled model, checked by real TLC runs.

Data: SysMoBench's dqueue (its gold model and four runs, ``../shared/data``), and ``data/pgo``, a
tree in upstream's flat layout holding ``lockhub``, a PGo-style system written for these tests:
a ``process (TheHub = 0)`` (plain locals, actions without ``self``), clients with a local that the
PlusCal translation renames (``req`` -> ``req0``), a channel behind a mapping macro and plain
``ref`` globals, an aborted section, and a run (1001) whose hub receives client 2's request first
although client 1 asked first in its log: only an interleaving that the clocks allow, not the
order of the files, matches it. ``data/tracelink`` is a corpus of malformed logs, one case per
file (``expected.json`` says what each must be rejected for): adding a case is adding a file.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Status, Task, Verdict
from tla_testdata import DATA

from speckernel_tla import pgo_model
from speckernel_tla.conformance import ConformanceVerifier
from speckernel_tla.pgo_model import NotPGo, PGoModel, Ref, Role, read_pgo_model
from speckernel_tla.pgo_validation import plan, section_checks
from speckernel_tla.scoring import ConformanceScorer
from speckernel_tla.tasks import Budgets, bundled_root, load_upstream
from speckernel_tla.tracelink import (
    TraceLinkError,
    build_run,
    check_value,
    group_runs,
    parse_log,
)

UPSTREAM = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "sysmobench"
PGO_TREE = DATA / "pgo"
HUB_LOG = "traces/1001/trace-0-10.log"
HUB_INSTANCE = "instance AHub(ref box[_], ref owner)\n        mapping box[_] via Mailbox;"
"""Where lockhub's MPCal block (a comment of the model) has the hub run archetype AHub."""
FORGED_FACTS = "\n".join(
    f'        /\\ \\A r \\in 1..4, i \\in 1..3, k \\in 0..9 :\n'
    f'               /\\ PrintT(<<"{tag}", "at", r, i, k>>)\n'
    f'               /\\ PrintT(<<"{tag}", "ready", r, i, k>>)\n'
    f'               /\\ PrintT(<<"{tag}", "done", r, 0, 0>>)'
    for tag in ("SkFact", "Sk" + "0" * 24))
"""An ``Init`` conjunct printing what the validation module prints when every run is replayed
to its end (with the tag the facts had before it was drawn at random, and a guess of its form):
a model that could forge the facts would pass the runs it fails."""


def upstream_task(root: Path, name: str) -> Task:
    return next(t for t in load_upstream(root, Budgets()) if t.id == f"sysmobench/{name}")


def reference(task: Task, **edits: tuple[str, str]) -> Candidate:
    """The task's gold model, with ``file=(old, new)`` edits (each must apply)."""
    assert task.reference is not None
    files = dict(task.reference)
    for name, (old, new) in edits.items():
        path = name.replace("_", ".")
        assert old in files[path]
        files[path] = files[path].replace(old, new)
    return Candidate(files, Provenance("test", "none"))


def with_files(task: Task, files: dict[str, str]) -> Task:
    keys = sorted(files)
    return attrs.evolve(task, files=files, metadata={**task.metadata, "traces": keys})


def cases() -> dict[str, tuple[Candidate, Task]]:
    hub = upstream_task(PGO_TREE, "lockhub")
    wrong_owner = dict(hub.files)
    lines = wrong_owner[HUB_LOG].splitlines()
    owner = '"name":{"name":"owner","prefix":"AHub","self":"0"},"tag":"write","value":"1"'
    assert owner in lines[5]
    lines[5] = lines[5].replace(owner, owner.replace('"value":"1"', '"value":"2"'))
    wrong_owner[HUB_LOG] = "\n".join(lines) + "\n"
    wrong_owner["traces/1004/trace-0-40.log"] = wrong_owner["traces/1002/trace-1-21.log"].replace(
        '["AHub","0"]', '["AHub","7"]')
    found = {
        "hub": (reference(hub), hub),
        "hub_wrong_owner": (reference(hub), with_files(hub, wrong_owner)),
        "hub_wrong_owner_claiming_a_channel": (reference(hub, lockhub_tla=(
            HUB_INSTANCE, HUB_INSTANCE.replace(";", "\n        mapping owner via Mailbox;"))),
            with_files(hub, wrong_owner)),
        "hub_wrong_owner_forging_facts": (reference(hub, lockhub_tla=(
            "Init == (* Global variables *)\n",
            f"Init == (* Global variables *)\n{FORGED_FACTS}\n")), with_files(hub, wrong_owner)),
    }
    if UPSTREAM.is_dir():
        dqueue = upstream_task(UPSTREAM, "dqueue")
        found["dqueue"] = (reference(dqueue), dqueue)
        found["dqueue_stream"] = (reference(dqueue, dqueue_tla=(
            "stream' = ((stream) + (1))", "stream' = ((stream) + (2))")), dqueue)
        # a Next that never lets a consumer receive; a specification that never moves
        found["dqueue_next_without_c2"] = (reference(dqueue, dqueue_tla=(
            "Next == (\\E self \\in (1) .. (NUM_CONSUMERS): Consumer(self))\n",
            "Next == (\\E self \\in (1) .. (NUM_CONSUMERS): c(self) \\/ c1(self))\n")), dqueue)
        found["dqueue_never_moving"] = (reference(dqueue, dqueue_tla=(
            "Spec == /\\ Init /\\ [][Next]_vars\n", "Spec == /\\ Init /\\ [][FALSE]_vars\n")),
            dqueue)
    return found


@pytest.fixture(scope="module")
def verdicts(jar: Path, workers: Any) -> dict[str, Verdict]:
    """Every TLC-backed case, verified one after the other."""
    import anyio
    from speckernel.execution import KernelVerifyContext
    from speckernel.sandbox.local import LocalSandbox
    from speckernel.toolchains import DetectedTools
    from tla_testdata import LIMITS

    from speckernel_tla.toolchain import Tla2ToolsToolchain

    tools = DetectedTools({Tla2ToolsToolchain.name: Tla2ToolsToolchain()})
    ctx = KernelVerifyContext(LocalSandbox(), tools, LIMITS, {}, workers)

    async def run_all() -> dict[str, Verdict]:
        return {name: await ConformanceVerifier().verify(candidate, task, ctx)
                for name, (candidate, task) in cases().items()}

    return anyio.run(run_all)


def test_the_loader_keeps_each_run_together() -> None:
    hub = upstream_task(PGO_TREE, "lockhub")
    assert hub.metadata["trace_format"] == "tracelink"
    assert sorted({k.split("/")[1] for k in hub.metadata["traces"]}) == ["1001", "1002"]
    assert "N = 2" in hub.metadata["trace_constants"]


def test_the_gold_model_validates_every_run(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["hub"]
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert verdict.data["m_c"] == verdict.data["m_ac"] == verdict.data["transition_score"] == 1.0
    # named by the model's actions, as the runtime metric names them
    assert set(verdict.data["per_action"]) == {"hubLoop", "hubRecv", "hubGrant", "ask", "wait",
                                               "release"}


def test_a_wrong_write_fails_its_section_and_a_broken_run_is_skipped(
        verdicts: dict[str, Verdict]) -> None:
    # The runs share one TLC run: the failing one does not hide the other's verdict.
    verdict = verdicts["hub_wrong_owner"]
    assert verdict.status is Status.FAILURE
    data = verdict.data
    assert data["traces"]["1001"] == {"ok": False, "failed_line": 6, "file": HUB_LOG,
                                      "event": "AHub.hubGrant"}
    assert data["traces"]["1002"]["ok"] is True and "1004" not in data["traces"]
    assert data["m_ac"] == 0.5 and data["m_c"] == 5 / 6
    messages = [d.message for d in verdict.diagnostics]
    assert any("run 1004 is skipped" in m and "AHub(7), which logged nothing" in m
               for m in messages)
    assert any(f"{HUB_LOG}:6 (AHub.hubGrant) does not conform" in m for m in messages)


def test_the_channels_are_the_gold_models_not_the_candidates(
        verdicts: dict[str, Verdict]) -> None:
    """A candidate's MPCal block is a comment: claiming there that the hub's owner goes
    through a mapping macro changed nothing TLC runs but left every owner value unchecked, and
    the run logging a wrong owner validated (M_ac 1). Which refs are channels is the gold's."""
    claiming, plain = verdicts["hub_wrong_owner_claiming_a_channel"], verdicts["hub_wrong_owner"]
    assert claiming.status is Status.FAILURE
    assert claiming.data == plain.data


def test_a_model_printing_facts_gets_the_verdict_of_one_that_does_not(
        verdicts: dict[str, Verdict]) -> None:
    forged, plain = verdicts["hub_wrong_owner_forging_facts"], verdicts["hub_wrong_owner"]
    assert forged.status is Status.FAILURE
    assert forged.data == plain.data and forged.diagnostics == plain.diagnostics


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason=f"SysMoBench data not found at {UPSTREAM}")
def test_dqueue_gold_validates_all_four_published_runs(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["dqueue"]
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert len(verdict.data["traces"]) == 4 and verdict.data["m_c"] == 1.0
    score = ConformanceScorer().score(Task("t", "tla"), None, [verdict])
    assert score.values["conformance"] == 1.0


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason=f"SysMoBench data not found at {UPSTREAM}")
def test_a_dqueue_model_sending_wrong_values_fails_at_the_consumer(
        verdicts: dict[str, Verdict]) -> None:
    # The producer's messages are behind a mapping macro; the consumer writes what it read to
    # `processor`, a plain ref: that is where the wrong value shows.
    verdict = verdicts["dqueue_stream"]
    assert verdict.status is Status.FAILURE
    failed = {run["event"] for run in verdict.data["traces"].values() if not run["ok"]}
    assert failed == {"AConsumer.c2"} and verdict.data["per_action"]["c2"] == 0.0


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason=f"SysMoBench data not found at {UPSTREAM}")
def test_every_section_is_a_step_of_the_models_next_state_relation(
        verdicts: dict[str, Verdict]) -> None:
    """A section is a step of its label's action *and* of the specification's next-state
    relation: replayed by the label's action alone, a Next without the consumer's receive (c2)
    and a specification that never moves validated every run (found by an attacker)."""
    cut = verdicts["dqueue_next_without_c2"]
    assert cut.status is Status.FAILURE
    assert cut.data["per_action"]["c2"] == 0.0 and cut.data["m_c"] == 5 / 6
    assert all(run["event"] == "AConsumer.c2" for run in cut.data["traces"].values()
               if not run["ok"])
    still = verdicts["dqueue_never_moving"]
    assert still.status is Status.FAILURE and still.data["m_c"] == still.data["m_ac"] == 0.0


@pytest.mark.anyio
async def test_a_cfg_reaching_into_the_validation_module_checks_no_run(make_ctx: Any) -> None:
    # every section's first reads then hold: the run with the wrong owner would validate
    hub = upstream_task(PGO_TREE, "lockhub")
    candidate = reference(hub, lockhub_tla=("\nInit ==", "\nAnyReads(cs) == TRUE\nInit =="),
                          lockhub_cfg=("CONSTANT N = 3",
                                       "CONSTANT N = 3\nCONSTANT SkPre <- AnyReads"))
    verdict = await ConformanceVerifier().verify(candidate, hub, make_ctx())
    assert verdict.status is Status.FAILURE
    assert "names SkPre, a name the verifier generates" in verdict.summary()
    assert [d.code for d in verdict.diagnostics] == ["cfg-tampering"]
    assert verdict.data["m_ac"] == 0.0


@pytest.mark.anyio
async def test_a_model_not_compiled_by_pgo_scores_none(make_ctx: Any) -> None:
    hub = upstream_task(PGO_TREE, "lockhub")
    spin = (bundled_root() / "spinlock" / "gold" / "spinlock.tla").read_text()
    candidate = Candidate({"lockhub.tla": spin.replace("MODULE spinlock", "MODULE lockhub"),
                           "lockhub.cfg": "SPECIFICATION Spec\n"}, Provenance("test", "none"))
    verdict = await ConformanceVerifier().verify(candidate, hub, make_ctx())
    assert verdict.status is Status.UNKNOWN
    assert "no --mpcal algorithm" in verdict.summary()
    score = ConformanceScorer().score(hub, candidate, [verdict])
    assert score.values == {"conformance": None, "action_conformance": None,
                            "transition_score": None}


def test_roles_are_derived_from_the_model() -> None:
    model = read_pgo_model((PGO_TREE / "pgo" / "lockhub" / "lockhub.tla").read_text())
    hub, client = model.roles
    assert (hub.archetype, hub.process, hub.indexed) == ("AHub", "TheHub", False)
    assert hub.locals == (("req", "req"), ("served", "served"))
    assert hub.refs == (Ref("box", "box", through_macro=True), Ref("owner", "owner"))
    assert [r.variable for r in hub.refs] == [None, "owner"]  # behind the macro: unchecked
    assert (client.archetype, client.indexed, client.locals) == ("AClient", True,
                                                                 (("req", "req0"),))
    assert client.labels == (("ask", "ask"), ("wait", "wait"), ("release", "release"))
    assert model.variables == ("pc", "box", "owner", "held", "req", "served", "req0")


@pytest.mark.parametrize(("edit", "message"), [
    (("--mpcal lockhub", "-- lockhub"), "no --mpcal algorithm"),
    (("    release:\n        held[self] := FALSE;", "        held[self] := FALSE;"),
     "archetype AClient has 2 labels but its process Client has 3"),
    (("fair process (Client \\in ClientSet) == instance AClient",
      "fair process (Client \\in ClientSet) == instance AWorker"), "archetype AWorker"),
    (("release(self) == /\\ pc[self]", "leave(self) == /\\ pc[self]"),
     "label release of process Client is not an action"),
])
def test_models_that_do_not_line_up_are_not_pgo(edit: tuple[str, str], message: str) -> None:
    text = (PGO_TREE / "pgo" / "lockhub" / "lockhub.tla").read_text()
    assert edit[0] in text
    with pytest.raises(NotPGo, match=message):
        read_pgo_model(text.replace(*edit))


def test_a_section_checks_first_reads_and_last_writes() -> None:
    model = read_pgo_model((PGO_TREE / "pgo" / "lockhub" / "lockhub.tla").read_text())
    hub = model.roles[0]
    line = {"archetypeName": "AHub", "self": "0", "clock": [[["AHub", "0"], 1]], "csElements": [
        {"indices": [], "name": {"name": ".pc", "prefix": "", "self": "0"}, "tag": "read",
         "value": '"AHub.hubGrant"'},
        {"indices": [], "name": {"name": "served", "prefix": "AHub", "self": "0"},
         "tag": "read", "value": "4"},
        {"indices": [], "name": {"name": "served", "prefix": "AHub", "self": "0"},
         "tag": "write", "value": "5"},
        {"indices": [], "name": {"name": "served", "prefix": "AHub", "self": "0"},
         "tag": "read", "value": "5"},  # after the write: says nothing of the pre-state
        {"indices": ["2"], "name": {"name": "owner", "prefix": "AHub", "self": "0"},
         "tag": "write", "value": "9"},
        {"indices": [], "name": {"name": "owner", "prefix": "AHub", "self": "0"},
         "tag": "write", "value": "2"},  # the whole variable: the entry's write is moot
        {"indices": ["1"], "name": {"name": "box", "prefix": "AHub", "self": "0"},
         "tag": "write", "value": '"grant"'},  # behind a mapping macro: not checked
        {"indices": [], "name": {"name": ".pc", "prefix": "", "self": "0"}, "tag": "write",
         "value": '"AHub.hubLoop"'}]}
    process = parse_log("hub.log", json.dumps(line))
    pre, post = section_checks(hub, process, process.records[0])
    assert pre == [("served", (), "4")]
    assert post == [("served", (), "5"), ("owner", (), "2"), ("pc", ("0",), '"hubLoop"')]


@functools.cache
def lockhub_model() -> PGoModel:
    return read_pgo_model((PGO_TREE / "pgo" / "lockhub" / "lockhub.tla").read_text())


def hub_section(*accesses: tuple[str, str, list[str], str]) -> tuple[Role, Any]:
    """The hub role and one hubGrant section of the given (tag, variable, indices, value)."""
    model = lockhub_model()
    elements = [{"indices": indices, "name": {"name": name, "prefix": "AHub", "self": "0"},
                 "tag": tag, "value": value} for tag, name, indices, value in accesses]
    line = {"archetypeName": "AHub", "self": "0", "clock": [[["AHub", "0"], 1]], "csElements": [
        {"indices": [], "name": {"name": ".pc", "prefix": "", "self": "0"}, "tag": "read",
         "value": '"AHub.hubGrant"'}, *elements]}
    process = parse_log("hub.log", json.dumps(line))
    return model.roles[0], process


def test_a_read_under_a_write_that_a_finer_write_followed_is_not_of_the_pre_state() -> None:
    # served := 7 then served[1] := 8: served[2] was written (as part of served) before it is
    # read, so the read says nothing of the state before the section (it was checked against
    # the pre-state, failing a conformant run).
    role, process = hub_section(("write", "served", [], "7"), ("write", "served", ["1"], "8"),
                                ("read", "served", ["2"], "9"))
    pre, post = section_checks(role, process, process.records[0])
    assert pre == []
    assert post == [("served", ("1",), "8")]


def reference_section_checks(accesses: Sequence[tuple[bool, tuple[str, ...], str]]) -> tuple[
        list[tuple[tuple[str, ...], str]], list[tuple[tuple[str, ...], str]]]:
    """The rule, written directly (quadratic): a read is of the pre-state when it is the first
    read of its location and no earlier write overlaps it (one path a prefix of the other);
    a write is of the post-state when no later write overlaps it, in write order."""
    def overlaps(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return a[:len(b)] == b[:len(a)]
    pre: dict[tuple[str, ...], str] = {}
    for n, (write, path, value) in enumerate(accesses):
        if not write and path not in pre and not any(
                w and overlaps(p, path) for w, p, _ in accesses[:n]):
            pre[path] = value
    post = [(path, value) for n, (write, path, value) in enumerate(accesses) if write
            and not any(w and overlaps(p, path) for w, p, _ in accesses[n + 1:])]
    return list(pre.items()), post


PATHS = st.lists(st.sampled_from(["1", "2", '"a"']), max_size=3).map(tuple)


@settings(max_examples=500)
@given(st.lists(st.tuples(st.booleans(), PATHS, st.sampled_from(["0", "1", "TRUE"])),
                max_size=10))
def test_section_checks_follow_the_rule(
        accesses: list[tuple[bool, tuple[str, ...], str]]) -> None:
    role, process = hub_section(*(("write" if write else "read", "served", list(path), value)
                                  for write, path, value in accesses))
    pre, post = section_checks(role, process, process.records[0])
    expected_pre, expected_post = reference_section_checks(accesses)
    assert pre == [("served", path, value) for path, value in expected_pre]
    assert post == [("served", path, value) for path, value in expected_post]


@pytest.mark.parametrize("case", sorted(json.loads(
    (DATA / "tracelink" / "expected.json").read_text())))
def test_malformed_logs_are_one_line_errors(case: str) -> None:
    expected = json.loads((DATA / "tracelink" / "expected.json").read_text())[case]
    text = (DATA / "tracelink" / f"{case}.log").read_text()
    with pytest.raises(TraceLinkError) as caught:
        parse_log(f"traces/run/{case}.log", text)
    assert expected in str(caught.value) and "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"traces/run/{case}.log")


def test_every_malformed_log_is_in_the_corpus_manifest() -> None:
    files = {p.stem for p in (DATA / "tracelink").glob("*.log")}
    assert files == set(json.loads((DATA / "tracelink" / "expected.json").read_text()))


@pytest.mark.parametrize("value", ['"AClient.ask"', "-3", "TRUE", "defaultInitValue", "<<>>",
                                   "{1, 2}", "[a |-> <<1, {}>>, b |-> \"x\"]",
                                   '(("type") :> ("put") @@ ("key") :> ("key1"))',
                                   '"say \\"hi\\"\\n"', "-2147483648", "2147483647",
                                   "(1 :> (2 :> 3))", "{}", "BOOLEAN"])
def test_values_pgo_prints_are_accepted(value: str) -> None:
    assert check_value(value) == value


def test_runs_need_every_process_they_depend_on() -> None:
    hub = upstream_task(PGO_TREE, "lockhub")
    logs = {k: v for k, v in hub.files.items() if k.startswith("traces/1002/")}
    run = build_run("1002", logs)
    assert [p.key for p in run.processes] == [("AClient", "1"), ("AClient", "2"), ("AHub", "0")]
    del logs["traces/1002/trace-0-20.log"]
    with pytest.raises(TraceLinkError, match=r"AHub\(0\), which logged nothing in run 1002"):
        build_run("1002", logs)


@pytest.mark.parametrize("encode", [
    lambda text: "\ufeff" + text,  # a byte-order mark
    lambda text: text.replace("\n", "\r\n"),
    lambda text: text.replace("\n", "\r"),  # bare CRs: a line each
    # U+2028 and U+0085 may stand raw in a JSON string: they do not end a line
    lambda text: text.replace('"endTime":"', '"endTime":"\u2028\u0085'),
])
def test_logs_read_alike_whatever_their_line_ends(encode: Any) -> None:
    hub = upstream_task(PGO_TREE, "lockhub")
    text = hub.files[HUB_LOG]
    assert encode(text) != text
    assert parse_log(HUB_LOG, encode(text)) == parse_log(HUB_LOG, text)


def two_process_run(first: list[list[Any]], second: list[list[Any]]) -> dict[str, str]:
    """Logs of clients 1 and 2, one section per clock given ([[process, self], count] ...)."""
    def log(identity: str, clocks: list[list[Any]]) -> str:
        return "".join(json.dumps({
            "archetypeName": "AClient", "self": identity, "isAbort": False, "clock": clock,
            "csElements": [{"indices": [], "name": {"name": ".pc", "prefix": "", "self": identity},
                            "tag": "read", "value": '"AClient.ask"'}]}) + "\n" for clock in clocks)
    return {"traces/9/c1.log": log("1", first), "traces/9/c2.log": log("2", second)}


def test_clocks_that_order_sections_in_a_cycle_make_a_malformed_run() -> None:
    # Client 1's second section needs client 2's second, which needs client 1's second: no
    # order of the sections respects the clocks (TLC would find none and blame the model).
    c1, c2 = ["AClient", "1"], ["AClient", "2"]
    logs = two_process_run([[[c1, 1]], [[c1, 2], [c2, 2]]], [[[c2, 1]], [[c2, 2], [c1, 2]]])
    with pytest.raises(TraceLinkError, match=r"run 9: the clocks order sections in a cycle "
                                             r"\(traces/9/c1.log:2 waits for traces/9/c2.log:2"):
        build_run("9", logs)
    acyclic = two_process_run([[[c1, 1]], [[c1, 2], [c2, 1]]], [[[c2, 1]], [[c2, 2], [c1, 2]]])
    assert build_run("9", acyclic).records == 4


def test_runs_are_told_apart_by_their_whole_folder() -> None:
    hub = upstream_task(PGO_TREE, "lockhub")
    logs = {k.replace("traces/", f"traces/{n}/"): v for n in ("a", "b")
            for k, v in hub.files.items() if k.startswith("traces/1002/")}
    assert [key for key, _ in group_runs(logs)] == ["a/1002", "b/1002"]


def copy_tree(tmp_path: Path) -> Path:
    import shutil
    root = tmp_path / "tree"
    shutil.copytree(PGO_TREE, root)
    return root


def test_a_fifo_or_a_folder_named_like_a_log_skips_its_run(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import os
    root = copy_tree(tmp_path)
    runs = root / "pgo" / "lockhub" / "traces_found"
    (runs / "1001" / "extra.log").mkdir()
    (runs / "1003").mkdir()
    os.mkfifo(runs / "1003" / "trace-0-30.log")  # reading it would wait for a writer forever
    hub = upstream_task(root, "lockhub")
    assert sorted({k.split("/")[1] for k in hub.metadata["traces"]}) == ["1002"]
    warnings = [r.getMessage() for r in caplog.records]
    assert any("run 1001" in w and "extra.log is not a regular file" in w for w in warnings)
    assert any("run 1003" in w and "trace-0-30.log is not a regular file" in w for w in warnings)


def test_an_alias_bomb_in_a_task_file_skips_the_task(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # six levels of ten aliases: a million values once expanded (str() of it took seconds and
    # memory; nine levels took forever)
    root = copy_tree(tmp_path)
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [
        f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, 6)]
    task = root / "tasks" / "lockhub" / "task.yaml"
    task.write_text(task.read_text().replace('system_type: "distributed"', "\n".join(
        [*levels, "system_type: *a5"])))
    assert list(load_upstream(root, Budgets())) == []
    assert any("more than 100,000 values" in r.getMessage() for r in caplog.records)


def without_abort_flags_and_times(text: str) -> str:
    """A log as PGo wrote it before it logged aborted sections (e.g. SysMoBench's locksvc run
    11441128439251388031): each record without ``isAbort``, ``startTime`` and ``endTime``."""
    records = [json.loads(line) for line in text.splitlines()]
    assert all(record["isAbort"] is False for record in records)
    return "".join(json.dumps({k: v for k, v in record.items()
                               if k not in ("isAbort", "startTime", "endTime")},
                              separators=(",", ":")) + "\n" for record in records)


def test_logs_in_pgo_earlier_format_make_the_same_run() -> None:
    # Published runs come in both formats; the optional fields must not change the behaviour.
    hub = upstream_task(PGO_TREE, "lockhub")
    logs = {k: v for k, v in hub.files.items() if k.startswith("traces/1002/")}
    earlier = {k: without_abort_flags_and_times(v) for k, v in logs.items()}
    assert all("isAbort" not in text and "Time" not in text for text in earlier.values())
    assert build_run("1002", earlier) == build_run("1002", logs)


def test_planning_runs_in_plain_data() -> None:
    hub = upstream_task(PGO_TREE, "lockhub")
    assert hub.reference is not None
    planned = plan("lockhub", hub.reference["lockhub.tla"], hub.reference["lockhub.cfg"],
                   "Init", "Next", hub.metadata["trace_constants"], hub.files)
    first, second = planned["runs"]
    assert (first["key"], second["key"]) == ("1001", "1002") and second["error"] is None
    # one module replays both runs
    assert "N = 2" in planned["cfg"] and "N = 3" not in planned["cfg"]
    assert "SkAct(op, self) == CASE" in planned["text"] and "hubLoop [] " in planned["text"]
    assert "sk_run \\in 1..Len(SkProcsOf)" in planned["text"]
    assert [len(rows) for rows in first["records"]] == [4, 3, 7]
    assert first["records"][0][2] == ["traces/1001/trace-1-11.log", 3, "AClient.release", True,
                                      "release"]



# Adversarial model text: on each input below the earlier code (quadratic: four times the time
# per doubling) took minutes. The tests check the results; a hang is pytest's timeout. Where
# the rule is the same as before, hypothesis compares the code with that rule written directly
# (the earlier code) on small texts.

def tokens(*parts: str, size: int = 16) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(parts), max_size=size).map("".join)


def outcome(fn: Any, *args: Any) -> Any:
    """What ``fn`` returns (a generator drained), or the message of the NotPGo it raises."""
    try:
        result = fn(*args)
        return list(result) if isinstance(result, Iterator) else result
    except NotPGo as error:
        return f"NotPGo: {error}"


def reference_mapping(text: str) -> list[str]:
    return re.findall(r"\bmapping\s+(@\d+|[A-Za-z_]\w*)\s*(?:\[_\])?\s*via\s+[A-Za-z_]\w*", text)


def test_a_mapping_then_a_long_run_of_blanks() -> None:
    blanks = " " * 1_000_000
    assert pgo_model._MAPPING.findall(f"mapping x{blanks}y") == []
    assert pgo_model._MAPPING.findall(f"mapping x{blanks}[_]{blanks}via M") == ["x"]


BLANKS = st.sampled_from(["", " ", "  ", "\n\t"])
MAPPINGS = st.lists(st.tuples(
    st.sampled_from(["mapping", "mappingx", "x mapping"]), BLANKS, st.sampled_from(
        ["x", "@1", "@", "1x"]), BLANKS, st.sampled_from(["", "[_]", "[_", "[x]"]), BLANKS,
    st.sampled_from(["via", "vi", ""]), BLANKS, st.sampled_from(["M", "", "[_]"])).map(
        "".join), max_size=3).map("".join)


@settings(max_examples=1000)  # microseconds each; the rarer shapes need the draws
@given(MAPPINGS)
def test_mappings_are_read_as_before(text: str) -> None:
    assert pgo_model._MAPPING.findall(text) == reference_mapping(text)


def reference_declarations(text: str, at: int) -> tuple[list[str], int]:
    names: list[str] = []
    head = re.compile(r"\s*variables?\b").match(text, at)
    position = head.end() if head else at
    if head:
        end = position
        while True:
            semicolon = pgo_model._top_level_semicolon(text, end)
            rest = text[semicolon + 1:].lstrip()
            end = semicolon + 1
            if rest.startswith("{") or not rest:
                break
        names = [m.group() for part in pgo_model._split(text[position:end], ",;")
                 if (m := re.match(r"[A-Za-z_][A-Za-z0-9_]*", part))]
        position = end
    brace = text.find("{", position)
    if brace < 0:
        raise NotPGo("an archetype or process without a body")
    return names, brace


def test_many_declarations_before_a_body() -> None:
    text = "archetype A() variables " + "a; " * 1_000_000 + "{ skip }"
    names, brace = pgo_model._declarations(text, len("archetype A()"))
    assert names == ["a"] * 1_000_000 and text[brace:] == "{ skip }"


DECLARATIONS = st.tuples(
    BLANKS, st.sampled_from(["variables", "variable", "variablesx", ""]),
    st.lists(st.tuples(st.sampled_from([" a = 1", " b", "(c;)", " d = {1;2}", "e"]),
                       st.sampled_from([";", ",", ""]), BLANKS), max_size=5).map(
        lambda parts: "".join("".join(p) for p in parts)),
    st.sampled_from(["", "\u00a0", "\n"]),
    st.sampled_from(["{ skip }", "", ";", " ; {", "}", "f; {"])).map("".join)


@given(DECLARATIONS)
def test_declarations_end_where_they_did(text: str) -> None:
    assert outcome(pgo_model._declarations, text, 0) == outcome(reference_declarations, text, 0)


def reference_block(text: str, open_at: int) -> str:
    if open_at < 0:
        raise NotPGo("an algorithm without a body")
    depth, position = 0, open_at
    while position < len(text):
        char = text[position]
        if char == '"':
            end = re.compile(r'(?:[^"\\\n]|\\.)*"').match(text, position + 1)
            position = end.end() if end else position + 1
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[open_at:position + 1]
        position += 1
    raise NotPGo("an algorithm whose braces do not close")


def test_a_line_of_quotes_none_of_which_closes() -> None:
    text = "{ " + '"\\' * 500_000 + "\n}"
    assert pgo_model._block(text, 0) == text


@settings(max_examples=1000)
@given(tokens("{", "}", '"', '\\"', "\\", "\n", "a", '"}"', '"{', "\\\n", size=14))
def test_blocks_end_where_they_did(text: str) -> None:
    assert outcome(pgo_model._block, "{" + text, 0) == outcome(reference_block, "{" + text, 0)


def test_nested_archetype_and_process_headers_are_read_once() -> None:
    n = 20_000
    archetypes = "{ " + "archetype A(" * n + ")" * n + " { skip } }"
    inner = "archetype A(" * (n - 1) + ")" * (n - 1)
    assert list(pgo_model._archetypes(archetypes)) == [("A", ([inner], [], []))]
    headers = "process (p = " * n + ")" * n
    assert list(pgo_model._processes("{ " + headers + " {\n s: skip\n} }")) == [
        ("p", (["s"], []))]
    assert list(pgo_model._instances("{ " + headers + " == instance A() ; }")) == [
        ("p", False, "A", [], set())]


def test_instances_without_semicolons_end_at_the_next_process() -> None:
    n = 80_000
    mpcal = ("{ archetype A(ref x) { skip } " + "process (p = 1) == instance A(ref y) "
             "mapping y via M " * n + "process (q = 1) == instance A(ref z) }")
    found = list(pgo_model._instances(mpcal))
    assert found == [("p", False, "A", ["ref y"], {"y"})] * n + [
        ("q", False, "A", ["ref z"], set())]


def test_a_header_inside_a_body_is_not_an_archetype() -> None:
    # Archetypes are units of the block (PGo's grammar): text of a body is not one, even if it
    # reads like one (here inside a string).
    mpcal = '{ archetype A() { a: print "archetype B() { b: skip }"; } archetype C() { c: skip } }'
    assert [name for name, _ in pgo_model._archetypes(mpcal)] == ["A", "C"]


def reference_units(mpcal: str, plus: str) -> tuple[Any, Any, Any]:
    """The archetypes, processes and instances as first read: every header anywhere."""
    archetypes = []
    for match in re.finditer(r"\barchetype\s+([A-Za-z_]\w*)\s*\(", mpcal):
        inside, after = pgo_model._parenthesised(mpcal, match.end() - 1)
        local_names, brace = pgo_model._declarations(mpcal, after)
        body = pgo_model._block(mpcal, brace)
        archetypes.append((match.group(1), (pgo_model._split(inside), local_names, re.findall(
            pgo_model._LABEL, pgo_model.without_comments(body)))))
    processes = []
    for match in pgo_model._PROCESS.finditer(plus):
        _, after = pgo_model._parenthesised(plus, plus.index("(", match.start()))
        variables, brace = pgo_model._declarations(plus, after)
        body = pgo_model._block(plus, brace)
        processes.append((match.group(1), (re.findall(
            pgo_model._LABEL, pgo_model.without_comments(body)), variables)))
    instances = []
    for match in pgo_model._PROCESS.finditer(mpcal):
        _, after = pgo_model._parenthesised(mpcal, mpcal.index("(", match.start()))
        instance = re.compile(r"\s*==\s*instance\s+([A-Za-z_]\w*)\s*\(").match(mpcal, after)
        if instance is None:
            continue
        inside, after = pgo_model._parenthesised(mpcal, instance.end() - 1)
        end = mpcal.find(";", after)
        mapped = set(reference_mapping(mpcal[after:end if end >= 0 else len(mpcal)]))
        instances.append((match.group(1), match.group(2) == "\\in", instance.group(1),
                          pgo_model._split(inside), mapped))
    return archetypes, processes, instances


BLANK = st.sampled_from(["", " ", "\n  ", "\t"])
ARCHETYPE = st.tuples(st.sampled_from(["A", "B", "AClient"]), BLANK, st.sampled_from(
    ["", "ref x", "ref net[_], self", "a, (b, c)"]), st.sampled_from(
    ["", " variables r = 0;", " variable r, s = <<1, 2>>;", "\nvariables r = {1}; s = 2;"]),
    st.sampled_from(["skip;", "l1: x := 1;", "l1: x := 1;\n  l2: either { y := 2 } or { skip };",
                     'l: print "}";'])).map(
    lambda a: f"archetype {a[0]}{a[1]}({a[2]}){a[3]} {{\n  {a[4]}\n}}")
INSTANCE = st.tuples(st.sampled_from(["fair ", "", "fair+ "]), st.sampled_from(
    ["P \\in 1..N", "Q = 0", "R \\in {1, 2}"]), BLANK, st.sampled_from(
    ["A(ref x)", "B(ref y[_], 3)", "AClient()"]), st.sampled_from(
    ["", " mapping x via M", " mapping @1[_] via M\n    mapping y via N"])).map(
    lambda i: f"{i[0]}process ({i[1]}){i[2]}== instance {i[3]}{i[4]};")
PROCESS = st.tuples(st.sampled_from(["P \\in 1..N", "Q = 0"]), st.sampled_from(
    ["", " variables r = 0;", " variables r = 0; s1 = 1;"]), st.sampled_from(
    ["skip;", "l1: x := 1;\n  l2: skip;"])).map(
    lambda p: f"fair process ({p[0]}){p[1]}\n{{\n  {p[2]}\n}}")


@given(st.lists(ARCHETYPE, max_size=4), st.lists(INSTANCE, max_size=4),
       st.lists(PROCESS, max_size=4), BLANK)
def test_well_formed_blocks_are_read_as_before(archetypes: list[str], instances: list[str],
                                               processes: list[str], blank: str) -> None:
    mpcal = "{" + blank + blank.join([*archetypes, "variables x = 0;", *instances]) + "\n}"
    plus = "{" + blank.join(["variables x = 0;", *processes]) + "\n}"
    expected = reference_units(mpcal, plus)
    assert (list(pgo_model._archetypes(mpcal)), list(pgo_model._processes(plus)),
            list(pgo_model._instances(mpcal))) == expected


def reference_locals(process: str, names: Sequence[str],
                     variables: Sequence[str]) -> list[tuple[str, str]]:
    found_all = []
    for name in names:
        found = [v for v in variables if v == name] or [
            v for v in variables if re.fullmatch(rf"{re.escape(name)}\d+", v)]
        if len(found) != 1:
            raise NotPGo(f"local variable {name} has no unique variable in process {process}")
        found_all.append((name, found[0]))
    return found_all


def test_many_locals_find_their_variables() -> None:
    n = 200_000
    names = [f"l{i}" for i in range(n)]
    assert list(pgo_model._locals("P", names, names)) == list(zip(names, names, strict=True))
    # PlusCal's renaming, every name with one stem: only its own variable has its digits
    names = [f"x{i:06d}" for i in range(n)]
    renamed = [f"{name}0" for name in names]
    assert list(pgo_model._locals("P", names, renamed)) == list(zip(names, renamed, strict=True))


NAMES = st.lists(tokens("a", "b", "1", "0", "\u0663", size=4), max_size=6)
DIGITS = tokens("1", "0", "\u0663", "a", size=3)


@given(NAMES, st.data())
def test_locals_find_the_variables_they_did(names: list[str], data: st.DataObject) -> None:
    # most variables are a local's name and digits (PlusCal's renaming), or a local's name
    variables = data.draw(st.lists(st.tuples(st.sampled_from([*names, "a", "b1"]), DIGITS).map(
        "".join), max_size=8))
    assert outcome(pgo_model._locals, "P", names, variables) == outcome(
        reference_locals, "P", names, variables)


def test_many_instances_of_an_archetype_with_many_locals() -> None:
    n = 16_000
    names = [f"v{i}" for i in range(n)]
    declared = ", ".join(names)
    text = ("---- MODULE m ----\n(* --mpcal m {\n archetype A() variables " + declared
            + "; {\n a: skip;\n }\n" + "process (P = 1) == instance A();\n" * n + "}\n"
            + "--algorithm m {\n process (P = 1) variables " + declared
            + "; {\n a: skip;\n }\n}\n*)\n" + "VARIABLES pc, " + declared
            + "\na == pc = 1\n====\n")
    roles = read_pgo_model(text).roles
    assert len(roles) == n and roles[0] == Role("A", "P", False, (("a", "a"),), tuple(zip(
        names, names, strict=True)), ())
    assert all(role == roles[0] for role in roles)  # cheap: the roles share their tuples


def gold_models() -> Iterator[str]:
    yield (PGO_TREE / "pgo" / "lockhub" / "lockhub.tla").read_text()
    if UPSTREAM.is_dir():
        yield (UPSTREAM / "pgo" / "dqueue" / "dqueue.tla").read_text()


@pytest.mark.parametrize("text", list(gold_models()))
def test_gold_models_are_read_as_before(text: str) -> None:
    start = text.index("--mpcal")
    translation = text.index("--algorithm", start)
    mpcal_text = pgo_model.without_comments(text[start:translation])
    mpcal = pgo_model._block(mpcal_text, mpcal_text.index("{"))
    plus = pgo_model.without_comments(pgo_model._block(text, text.index("{", translation)))
    archetypes, processes, instances = reference_units(mpcal, plus)
    assert len(archetypes) == len(instances) >= 2 and processes
    assert list(pgo_model._archetypes(mpcal)) == archetypes
    assert list(pgo_model._processes(plus)) == processes
    assert list(pgo_model._instances(mpcal)) == instances


few_names = st.sampled_from(["a", "b", "c", "d"])


pairs = st.lists(st.tuples(few_names, few_names))


@given(archetypes=st.lists(st.tuples(few_names, st.booleans(), pairs, pairs,
                                     st.lists(st.tuples(few_names, st.none() | few_names))),
                           max_size=6),
       asked=few_names)
def test_a_model_s_lookups_are_those_of_its_tuples(
        archetypes: list[tuple[str, bool, list[tuple[str, str]], list[tuple[str, str]],
                               list[tuple[str, str | None]]]], asked: str) -> None:
    """A trace asks a role for a label, a local, a ref per event and the model for the roles of
    an archetype per section: answered from lookups built once (rebuilt per event, a long trace
    of a model of many labels took their product), they are the tuples' own answers: the last
    pair of a label or local (as ``dict`` reads pairs), the first ref, the roles in order."""
    roles = tuple(Role(archetype, f"P{i}", indexed, tuple(labels), tuple(locals_),
                       tuple(Ref(p, v) for p, v in refs))
                  for i, (archetype, indexed, labels, locals_, refs) in enumerate(archetypes))
    model = PGoModel(roles, ("pc",), frozenset())
    assert model.roles_of(asked) == tuple(r for r in roles if r.archetype == asked)
    assert model.indexed_actions == {a for r in roles if r.indexed for _, a in r.labels}
    for role in roles:
        assert role.label(asked) == dict(role.labels).get(asked)
        assert role.local(asked) == dict(role.locals).get(asked)
        assert role.ref(asked) == next((r for r in role.refs if r.parameter == asked), None)
