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

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from speckernel.model import Candidate, Provenance, Status, Task, Verdict
from tla_testdata import DATA

from speckernel_tla.conformance import ConformanceVerifier
from speckernel_tla.pgo_model import NotPGo, Ref, read_pgo_model
from speckernel_tla.pgo_validation import plan, section_checks
from speckernel_tla.scoring import ConformanceScorer
from speckernel_tla.tasks import Budgets, bundled_root, load_upstream
from speckernel_tla.tracelink import TraceLinkError, build_run, check_value, parse_log

UPSTREAM = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "sysmobench"
PGO_TREE = DATA / "pgo"
HUB_LOG = "traces/1001/trace-0-10.log"


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
    }
    if UPSTREAM.is_dir():
        dqueue = upstream_task(UPSTREAM, "dqueue")
        found["dqueue"] = (reference(dqueue), dqueue)
        found["dqueue_stream"] = (reference(dqueue, dqueue_tla=(
            "stream' = ((stream) + (1))", "stream' = ((stream) + (2))")), dqueue)
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
    assert hub.refs == (Ref("box", None), Ref("owner", "owner"))
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
                                   '(("type") :> ("put") @@ ("key") :> ("key1"))'])
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
                   hub.metadata["trace_constants"], hub.files)
    first, second = planned["runs"]
    assert (first["key"], second["key"]) == ("1001", "1002") and second["error"] is None
    # one module replays both runs
    assert "N = 2" in planned["cfg"] and "N = 3" not in planned["cfg"]
    assert "SkAct(op, self) == CASE" in planned["text"] and "hubLoop [] " in planned["text"]
    assert "sk_run \\in 1..Len(SkProcsOf)" in planned["text"]
    assert [len(rows) for rows in first["records"]] == [4, 3, 7]
    assert first["records"][0][2] == ["traces/1001/trace-1-11.log", 3, "AClient.release", True,
                                      "release"]
