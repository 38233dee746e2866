"""Task loading: the bundled artifacts, an upstream SysMoBench tree, and malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from speckernel.errors import KernelError

from speckernel_tla.benchmark import TlaBenchmark
from speckernel_tla.tasks import (
    Budgets,
    bundled_root,
    fill_placeholders,
    load_bundled,
    load_templates,
    load_upstream,
)

UPSTREAM = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "sysmobench"
BUNDLED = ("locksrv", "mutex", "rwlock", "spinlock", "twophase")
METADATA_KEYS = {"module", "system_type", "language", "invariants", "mapping", "traces",
                 "artifact_files", "budgets", "source", "trace_format", "trace_constants"}

needs_upstream = pytest.mark.skipif(
    not UPSTREAM.is_dir(), reason=f"SysMoBench data not found at {UPSTREAM}")


def test_bundled_tasks_follow_the_schema() -> None:
    tasks = list(TlaBenchmark().tasks(TlaBenchmark.options))
    assert tuple(t.id for t in tasks) == BUNDLED
    for task in tasks:
        module = task.metadata["module"]
        assert task.benchmark == "tla" and set(task.metadata) == METADATA_KEYS
        assert task.metadata["source"] == "bundled"
        assert task.metadata["artifact_files"] == [f"{module}.tla", f"{module}.cfg"]
        assert task.reference is not None and set(task.reference) == {f"{module}.tla",
                                                                        f"{module}.cfg"}
        assert f"MODULE {module}" in task.reference[f"{module}.tla"]
        traces = task.metadata["traces"]
        assert len(traces) == 4 and all(t.startswith("traces/") and t in task.files
                                        for t in traces)
        assert json.loads(task.files[traces[0]].splitlines()[0])["event"] == "Init"
        assert set(task.files) - set(traces), "the program's source is an input"
        assert task.metadata["mapping"]["module"] == module
        templates = task.metadata["invariants"]
        assert {"safety", "liveness"} <= {t["type"] for t in templates}
        assert all(t["tla_example"].lstrip().startswith(t["name"]) for t in templates)
        for heading in ("MANDATORY CORE ACTIONS:", "EXPLICITLY EXCLUDED:", "OUTPUT RULES:",
                        f"{module}.cfg"):
            assert heading in task.prompt


def test_budgets_option_merges_with_the_defaults() -> None:
    options = {**TlaBenchmark.options, "budgets": {"depth": 7, "wall_s": 5}}
    task = next(iter(TlaBenchmark().tasks(options)))
    assert Budgets.of(task) == Budgets(depth=7, wall_s=5.0)
    with pytest.raises(KernelError, match="unknown budget 'dept'"):
        list(TlaBenchmark().tasks({**options, "budgets": {"dept": 7}}))
    with pytest.raises(KernelError, match="must be a positive number"):
        list(TlaBenchmark().tasks({**options, "budgets": {"states": -1}}))


def test_upstream_settings_preset() -> None:
    # SysMoBench's own settings: 20 x 50 behaviours of depth 50, full invariant search, 60 s.
    bench = TlaBenchmark()
    preset = {**bench.options, "upstream_settings": True}
    task = next(iter(bench.tasks(preset)))
    assert Budgets.of(task) == Budgets(depth=0, states=0, simulate_runs=20, simulate_depth=50,
                                       wall_s=60.0)
    tuned = next(iter(bench.tasks({**preset, "budgets": {"wall_s": 30}})))
    assert Budgets.of(tuned) == attrs.evolve(Budgets.of(task), wall_s=30.0)
    with pytest.raises(KernelError, match="upstream_settings: expected true or false"):
        list(bench.tasks({**bench.options, "upstream_settings": "yes"}))
    with pytest.raises(KernelError, match=r"'simulate_runs' must be a positive number$"):
        list(bench.tasks({**bench.options, "budgets": {"simulate_runs": 0}}))
    with pytest.raises(KernelError, match="'depth' must be a positive number or 0"):
        list(bench.tasks({**bench.options, "budgets": {"depth": float("inf")}}))


@pytest.mark.parametrize(("option", "value", "reason"), [
    ("sany_timeout_s", "abc", "expected a positive number of seconds"),
    ("sany_timeout_s", 0, "expected a positive number of seconds"),
    ("sany_timeout_s", float("nan"), "expected a positive number of seconds"),
    ("sany_timeout_s", True, "expected a positive number of seconds"),
    ("per_action", "no", "expected true or false"),
])
def test_a_verifier_option_that_cannot_be_used_stops_the_run_at_planning(
        option: str, value: object, reason: str) -> None:
    """Not an error verdict in every sample's SANY check."""
    bench = TlaBenchmark()
    with pytest.raises(KernelError, match=f"option {option}: {reason}"):
        list(bench.tasks({**bench.options, option: value}))


def test_task_source_options_are_checked() -> None:
    bench = TlaBenchmark()
    with pytest.raises(KernelError, match="not one of bundled, upstream, all"):
        list(bench.tasks({**bench.options, "tasks_from": "both"}))
    with pytest.raises(KernelError, match="needs option upstream"):
        list(bench.tasks({**bench.options, "tasks_from": "upstream"}))
    with pytest.raises(KernelError, match="no directory"):
        list(bench.tasks({**bench.options, "tasks_from": "all", "upstream": "/no/such/dir"}))


def _artifact(tmp_path: Path, task_yaml: str, invariants: str = "invariants: []\n") -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "task.yaml").write_text(task_yaml)
    (folder / "invariants.yaml").write_text(invariants)
    return tmp_path


@pytest.mark.parametrize(("task_yaml", "invariants", "message"), [
    ('name: "demo"\nspecModule: [unclosed\n', "invariants: []\n",
     r"demo/task.yaml:3: invalid YAML"),
    ('name: "demo"\ndescription: "x"\n', "invariants: []\n",
     r"demo/task.yaml:1: missing field 'specModule'"),
    ('name: "demo"\nspecModule: 3\n', "invariants: []\n",
     r"demo/task.yaml:2: field 'specModule' must be a non-empty str"),
    ('name: "demo"\nspecModule: "demo"\ndescription: "x"\nmodelling_requirements: {}\n',
     "invariants:\n  - name: A\n    type: progress\n    natural_language: a\n"
     "    formal_description: a\n    tla_example: A == TRUE\n",
     r"demo/invariants.yaml:3: invariant type must be one of safety, liveness"),
    ('name: "demo"\nspecModule: "demo"\ndescription: "x"\nmodelling_requirements: {}\n',
     "invariants:\n  - name: A\n    type: safety\n",
     r"demo/invariants.yaml:2: missing field 'natural_language'"),
])
def test_malformed_files_are_one_line_errors(tmp_path: Path, task_yaml: str, invariants: str,
                                             message: str) -> None:
    root = _artifact(tmp_path, task_yaml, invariants)
    with pytest.raises(KernelError, match=message) as caught:
        list(load_bundled(root, Budgets()))
    assert "\n" not in str(caught.value)


def test_template_names_must_be_unique(tmp_path: Path) -> None:
    entry = ("  - name: {}\n    type: safety\n    natural_language: a\n"
             "    formal_description: a\n    tla_example: X == TRUE\n")
    path = tmp_path / "invariants.yaml"
    path.write_text("invariants:\n" + entry.format("Same") + entry.format("same"))
    with pytest.raises(KernelError, match="invariant 'same' is defined twice"):
        load_templates(path)


def test_bundled_root_is_the_shipped_folder() -> None:
    assert (bundled_root() / "spinlock" / "task.yaml").is_file()


@needs_upstream
def test_upstream_tasks_load_with_their_templates() -> None:
    bench = TlaBenchmark()
    tasks = {t.id: t for t in bench.tasks({**bench.options, "tasks_from": "upstream",
                                           "upstream": str(UPSTREAM)})}
    assert len(tasks) == 11 and all(i.startswith("sysmobench/") for i in tasks)
    counts = {i.removeprefix("sysmobench/"): (
        sum(t["type"] == "safety" for t in task.metadata["invariants"]),
        sum(t["type"] == "liveness" for t in task.metadata["invariants"]))
        for i, task in tasks.items()}
    # notes §1: the upstream template counts (safety, liveness)
    assert counts == {"spin": (5, 2), "mutex": (6, 1), "rwmutex": (9, 1), "ringbuffer": (5, 2),
                      "etcd": (11, 2), "redisraft": (14, 2), "curp": (5, 2), "zookeeper": (9, 2),
                      "dqueue": (0, 1), "locksvc": (1, 5), "raftkvs": (13, 2)}
    assert tasks["sysmobench/etcd"].metadata["module"] == "etcdraft"
    spin = tasks["sysmobench/spin"]
    assert spin.reference is None and spin.metadata["source"] == "upstream"
    assert "module must be named exactly spin" in spin.prompt


@needs_upstream
def test_upstream_dqueue_has_its_reference_model_and_traces() -> None:
    bench = TlaBenchmark()
    tasks = list(bench.tasks({**bench.options, "tasks_from": "all", "upstream": str(UPSTREAM)}))
    assert [t.id for t in tasks][:5] == list(BUNDLED)
    dqueue = next(t for t in tasks if t.id == "sysmobench/dqueue")
    assert dqueue.reference is not None and set(dqueue.reference) == {"dqueue.tla", "dqueue.cfg"}
    traces = dqueue.metadata["traces"]
    # one folder per distributed run, one log per process: 4 runs of 2 processes
    assert len(traces) == 8 and all(t.startswith("traces/") and t.endswith(".log")
                                    for t in traces)
    assert len({t.split("/")[1] for t in traces}) == 4
    assert '"archetypeName"' in dqueue.files[traces[0]]
    assert dqueue.metadata["trace_format"] == "tracelink"
    assert "NUM_CONSUMERS = 1" in dqueue.metadata["trace_constants"]


TEMPLATE = ("invariants:\n  - name: Safe\n    type: safety\n    natural_language: a\n"
            "    formal_description: a\n    tla_example: Safe == TRUE\n")
ZK_PROMPT = """Model {description} ({system_type}, {language}) from {file_path}:
{source_code}
Focus: {focus}. Log lines look like {"name": "Notification", "nid": 0} and {s.attr}, {0}, {}.
"""


def _checkout(root: Path, name: str, task_yaml: str, invariants: str = TEMPLATE,
              prompt: str | None = None) -> None:
    """A task in the layout of a SysMoBench checkout."""
    folder = root / "tla_eval" / "tasks" / name
    (folder / "prompts").mkdir(parents=True)
    (folder / "task.yaml").write_text(task_yaml)
    if prompt is not None:
        (folder / "prompts" / "direct_call.txt").write_text(prompt)
    templates = root / "data" / "invariant_templates" / name
    templates.mkdir(parents=True)
    (templates / "invariants.yaml").write_text(invariants)


TASK_YAML = ('name: "{0}"\ndescription: "a {0} server"\nsystem_type: "distributed"\n'
             'language: "java"\nspecModule: "{0}"\nsource_files:\n  - path: "src/{0}.java"\n')


def test_upstream_prompts_substitute_only_their_named_placeholders(tmp_path: Path) -> None:
    # ZooKeeper's direct_call.txt holds JSON: str.format_map raised ValueError on it.
    _checkout(tmp_path, "zk", TASK_YAML.format("zk"), prompt=ZK_PROMPT)
    [task] = load_upstream(tmp_path, Budgets())
    assert task.prompt.startswith("Model a zk server (distributed, java) from src/zk.java:")
    assert '{"name": "Notification", "nid": 0} and {s.attr}, {0}, {}.' in task.prompt
    assert "Focus: {focus}." in task.prompt and "(not bundled: src/zk.java" in task.prompt


FILLED = {"description": "D", "system_type": "S", "language": "L", "file_path": "a.go",
          "source_code": "(not bundled: a.go of the system's repository)"}


@given(st.lists(st.sampled_from(["{", "}", "{}", "{0}", '{"a": 1}', "{s.attr}", "x", "{focus}",
                                 *(f"{{{name}}}" for name in FILLED)])).map("".join))
def test_fill_placeholders_replaces_exactly_the_named_placeholders(text: str) -> None:
    expected = text
    for name, value in FILLED.items():
        expected = expected.replace(f"{{{name}}}", value)
    spec = {"description": "D", "system_type": "S", "language": "L"}
    assert fill_placeholders(text, spec, ["a.go"]) == expected


@pytest.mark.parametrize(("broken", "message"), [
    ("task.yaml", "bad/task.yaml:3: invalid YAML"),
    ("invariants.yaml", "invariants.yaml:1: 'invariants' must be a list"),
    ("prompt", "direct_call.txt: cannot read"),
])
def test_a_malformed_upstream_task_is_skipped_with_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, broken: str, message: str) -> None:
    _checkout(tmp_path, "good", TASK_YAML.format("good"), prompt=ZK_PROMPT)
    bad_yaml = 'name: "bad"\nspecModule: [unclosed\n' if broken == "task.yaml" else (
        TASK_YAML.format("bad"))
    _checkout(tmp_path, "bad", bad_yaml,
              invariants="invariants: 3\n" if broken == "invariants.yaml" else TEMPLATE,
              prompt=None if broken == "prompt" else ZK_PROMPT)
    if broken == "prompt":
        (tmp_path / "tla_eval" / "tasks" / "bad" / "prompts" / "direct_call.txt").write_bytes(
            b"\xff\xfe not utf-8")
    with caplog.at_level("WARNING", logger="speckernel_tla"):
        tasks = [t.id for t in load_upstream(tmp_path, Budgets())]
    assert tasks == ["sysmobench/good"]
    [record] = caplog.records
    assert record.getMessage().startswith("tla: skipping task sysmobench/bad: ")
    assert message in record.getMessage() and "\n" not in record.getMessage()
