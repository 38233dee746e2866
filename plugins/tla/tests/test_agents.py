"""The SysMoBench agents: conversation flow, lenient answer reading, trace digests."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from speckernel.components import AgentContext
from speckernel.model import (
    Completion,
    Diagnostic,
    Files,
    GenerateParams,
    Message,
    Status,
    Task,
    Verdict,
)
from speckernel.yamlio import load_yaml, plain

import speckernel_tla
from speckernel_tla.agents import (
    PROMPTS,
    BasicAgent,
    Draft,
    ModelingAgent,
    TraceAgent,
    TranslateAgent,
    apply_correction,
    compress_traces,
    find_config,
    find_module,
    json_object,
    parse_invariants,
    split_source,
)

ARTIFACTS = Path(speckernel_tla.__file__).parent / "artifacts"
NAMES = ("spinlock", "mutex", "rwlock", "locksrv", "twophase")
SOURCES = {"spinlock": ["spinlock.c"], "mutex": ["src/main.rs"], "rwlock": ["rwlock.go"],
           "locksrv": ["locksrv.go"], "twophase": ["src/main.rs"]}


def read_yaml(path: Path) -> Any:
    return plain(load_yaml(path.read_text(), str(path)))


def bundled(name: str) -> Task:
    """A bundled artifact as a ``tla`` task, in the shape the benchmark's loader gives it."""
    folder = ARTIFACTS / name
    spec = read_yaml(folder / "task.yaml")
    traces = {f"traces/{p.name}": p.read_text() for p in sorted(folder.glob("traces/*.ndjson"))}
    sources = {path: (folder / path).read_text() for path in SOURCES[name]}
    return Task(name, "tla", prompt=json.dumps(spec["modelling_requirements"], indent=1),
                files={**sources, **traces}, metadata={
                    "module": name, "system_type": spec["system_type"],
                    "language": spec["language"],
                    "invariants": read_yaml(folder / "invariants.yaml")["invariants"],
                    "mapping": read_yaml(folder / "mapping.yaml"), "traces": list(traces),
                    "artifact_files": [f"{name}.tla", f"{name}.cfg"]})


def gold(name: str, ext: str) -> str:
    return (ARTIFACTS / name / "gold" / f"{name}.{ext}").read_text()


GOLD = gold("spinlock", "tla")
GOLD_CFG = "SPECIFICATION Spec\nCONSTANT Threads = {\"t1\", \"t2\", \"t3\"}\n"
INVARIANTS = ["MutualExclusion == Cardinality({t \\in Threads : pc[t] = \"locked\"}) <= 1",
              "GuardLifecycle == \\A t \\in Threads : pc[t] = \"locked\" ~> pc[t] = \"idle\""]


def opening(name: str) -> str:
    """The fixed words a prompt starts with, which tell the prompts apart."""
    text = (PROMPTS / f"{name}.txt").read_text()
    return text[:min(text.index("$"), text.index("\n"))]


KINDS = ("basic", "translate", "assemble", "trace", "config", "invariants", "correct")


def kind(prompt: str) -> str:
    return next(k for k in KINDS if prompt.startswith(opening(k)))


def well_formed(prompt: str) -> str:
    """What a good model answers to each prompt."""
    return {
        "basic": f"Here it is.\n```tla spinlock.tla\n{GOLD}```\n",
        "translate": "```tla\nAcquireCAS(t) == lock_state' = TRUE\n```",
        "assemble": f"```spinlock.tla\n{GOLD}```",
        "trace": f"```spinlock.tla\n{GOLD}```",
        "config": f"```spinlock.cfg\n{GOLD_CFG}```",
        "invariants": json.dumps({"invariants": INVARIANTS}),
        "correct": json.dumps({"specification": GOLD, "configuration": GOLD_CFG}),
    }[kind(prompt)]


@attrs.define
class Conversation(AgentContext):
    """An agent context that answers from a function of the prompt and replays verdicts."""

    answer: Callable[[str], str]
    verdicts: list[list[Verdict]] = attrs.Factory(list)
    options: Mapping[str, Any] = attrs.Factory(dict)
    seed: int = 0
    prompts: list[str] = attrs.Factory(list)
    verified: list[Files] = attrs.Factory(list)
    lines: list[str] = attrs.Factory(list)

    async def generate(self, messages: Sequence[Message],
                       params: GenerateParams | None = None) -> Completion:
        assert [m.role for m in messages] == ["system", "user"]
        self.prompts.append(messages[1].content)
        return Completion(self.answer(messages[1].content), "stub")

    async def verify(self, files: Files) -> list[Verdict]:
        self.verified.append(dict(files))
        return self.verdicts.pop(0) if self.verdicts else [Verdict("tla.sany", "success")]

    def log(self, message: str) -> None:
        self.lines.append(message)

    @property
    def kinds(self) -> list[str]:
        return [kind(p) for p in self.prompts]


FAILED = [Verdict("tla.sany", Status.FAILURE, (Diagnostic(
    "Unknown operator: `Aquire'", file="spinlock.tla", line=41, column=5),))]


async def solve(agent: ModelingAgent, ctx: Conversation, name: str = "spinlock") -> Files:
    return await agent.solve(bundled(name), ctx)


# --------------------------------------------------------------------------- flows


@pytest.mark.anyio
async def test_basic_drafts_then_configures_then_concretises_then_verifies() -> None:
    ctx = Conversation(well_formed)
    files = await solve(BasicAgent(), ctx)
    assert ctx.kinds == ["basic", "config", "invariants"]
    draft, config, invariants = ctx.prompts
    assert (ARTIFACTS / "spinlock" / "spinlock.c").read_text() in draft
    assert "TryLockSuccess(t)" in draft and "- lock_state: the AtomicBool" in draft
    assert "trace_01" not in draft
    assert GOLD in config and GOLD in invariants
    assert "### MutualExclusion (safety)" in invariants
    assert "### SpinProgress (liveness)" in invariants
    assert files == {"spinlock.tla": GOLD, "spinlock.cfg": GOLD_CFG,
                     "invariants.json": json.dumps({"invariants": INVARIANTS}, indent=2) + "\n"}
    assert ctx.verified == [files]


@pytest.mark.anyio
async def test_refinement_feeds_the_diagnostics_back_until_all_pass() -> None:
    broken = GOLD.replace("Acquire(t) ==", "Aquire(t) ==")
    answers = {"basic": f"```spinlock.tla\n{broken}```"}
    ctx = Conversation(lambda p: answers.get(kind(p)) or well_formed(p),
                       verdicts=[FAILED, [Verdict("tla.sany", Status.SUCCESS)]])
    files = await solve(BasicAgent(), ctx)
    assert ctx.kinds == ["basic", "config", "invariants", "correct"]
    correct = ctx.prompts[-1]
    assert "spinlock.tla:41:5: Unknown operator: `Aquire'" in correct
    assert "round 1 of 3" in correct and broken in correct and GOLD_CFG in correct
    assert INVARIANTS[0] in correct
    assert [v["spinlock.tla"] for v in ctx.verified] == [broken, GOLD]
    assert files["spinlock.tla"] == GOLD
    assert ctx.lines[-2:] == ["correction round 1: tla.sany failed",
                              "correction round 2: all passed"]


@pytest.mark.anyio
async def test_refinement_stops_after_the_rounds_asked_for() -> None:
    ctx = Conversation(well_formed, verdicts=[FAILED] * 5, options={"rounds": 2})
    await solve(BasicAgent(), ctx)
    assert ctx.kinds == ["basic", "config", "invariants", "correct", "correct"]
    assert len(ctx.verified) == 2 and "round 2 of 2" in ctx.prompts[-1]


@pytest.mark.anyio
async def test_translate_covers_the_code_piece_by_piece_then_assembles() -> None:
    ctx = Conversation(well_formed, options={"max_chars": 1500})
    files = await solve(TranslateAgent(), ctx)
    source = (ARTIFACTS / "spinlock" / "spinlock.c").read_text()
    pieces = [p for p in ctx.prompts if kind(p) == "translate"]
    assert len(pieces) >= 5
    assert ctx.kinds == ["translate"] * len(pieces) + ["assemble", "config", "invariants"]
    codes = [p.split("```c\n", 1)[1].rsplit("\n```", 1)[0] for p in pieces]
    assert "".join(codes) == source and all(len(c) <= 1500 for c in codes)
    assert f"Piece 1 of {len(pieces)} of spinlock.c" in pieces[0]
    assembly = ctx.prompts[len(pieces)]
    assert assembly.count("AcquireCAS(t) == lock_state' = TRUE") == len(pieces)
    assert files["spinlock.tla"] == GOLD


@pytest.mark.anyio
async def test_trace_learning_sees_the_traces_not_the_code() -> None:
    ctx = Conversation(well_formed, seed=7)
    files = await solve(TraceAgent(), ctx)
    assert ctx.kinds == ["trace", "config", "invariants"]
    prompt = ctx.prompts[0]
    assert "TLS\tTryLockSuccess" in prompt and "trace_04.ndjson: 31 records" in prompt
    assert "#include" not in prompt and "pthread_create" not in prompt
    assert files["spinlock.tla"] == GOLD


@pytest.mark.anyio
@pytest.mark.parametrize("agent", [BasicAgent(), TranslateAgent(), TraceAgent()])
async def test_garbage_answers_still_make_a_candidate(agent: ModelingAgent) -> None:
    ctx = Conversation(lambda p: "I cannot help with that. \x00 {\"specification\": 3",
                       verdicts=[FAILED] * 3)
    files = await solve(agent, ctx)
    assert set(files) == {"spinlock.tla", "spinlock.cfg", "invariants.json"}
    assert files["spinlock.tla"].startswith("I cannot help")
    assert json.loads(files["invariants.json"]) == {"invariants": []}


@pytest.mark.anyio
async def test_a_task_without_templates_skips_the_invariant_call() -> None:
    task = bundled("spinlock")
    task = attrs.evolve(task, metadata={**task.metadata, "invariants": [], "mapping": None})
    ctx = Conversation(well_formed)
    await BasicAgent().solve(task, ctx)
    assert ctx.kinds == ["basic", "config"]
    assert "lock_state:" not in ctx.prompts[0]


# --------------------------------------------------------------------------- reading answers


MODULE = "---- MODULE spinlock ----\nVARIABLE x\nInit == x = 0 /\\ TRUE\n===="


@pytest.mark.parametrize("answer", [
    f"```spinlock.tla\n{MODULE}\n```",
    f"Sure!\n```tla\n{MODULE}\n```\nand the config:\n```\nSPECIFICATION Spec\n```",
    f"Here is the model:\n\n{MODULE}\n\nIt models the lock.",
    f"```tla\n---- MODULE Helper ----\n====\n```\n```tla\n{MODULE}\n```",
])
def test_find_module_in_any_shape(answer: str) -> None:
    assert find_module(answer, "spinlock") == MODULE + "\n"


def test_find_module_without_a_footer_takes_the_rest() -> None:
    assert find_module("---- MODULE m ----\nX == 1", "m") == "---- MODULE m ----\nX == 1\n"
    assert find_module("no TLA+ at all", "m") is None


@pytest.mark.parametrize(("answer", "expected"), [
    ("```spinlock.cfg\nSPECIFICATION Spec\n```", "SPECIFICATION Spec\n"),
    ("```\nCONSTANT N = 2\nSPECIFICATION Spec\n```", "CONSTANT N = 2\nSPECIFICATION Spec\n"),
    (f"{MODULE}\nSPECIFICATION Spec\nCONSTANTS\n  N = 2\nThat is all.",
     "SPECIFICATION Spec\nCONSTANTS\n  N = 2\n"),
])
def test_find_config_in_any_shape(answer: str, expected: str) -> None:
    assert find_config(answer, "spinlock") == expected


DRAFT = Draft("spinlock", "old model", "old config")


@pytest.mark.parametrize("answer", [
    json.dumps({"specification": MODULE, "configuration": "SPECIFICATION Spec"}),
    "```json\n" + json.dumps({"specification": MODULE, "configuration": "SPECIFICATION Spec"})
    + "\n```\nI renamed the action.",
    '{"specification": "' + MODULE.replace("\n", "\\n") + '",\n "configuration": '
    '"SPECIFICATION Spec"} (backslashes left unescaped)',
    json.dumps({"specification": f"```tla\n{MODULE}\n```", "configuration":
                "```\nSPECIFICATION Spec\n```"}),
])
def test_corrections_are_read_from_json_however_wrapped(answer: str) -> None:
    corrected = apply_correction(DRAFT, answer)
    assert corrected.spec == MODULE + "\n"
    assert corrected.config.strip() == "SPECIFICATION Spec"


def test_unescaped_tla_operators_survive_json_repair() -> None:
    spec = "Inv == \\A t \\in T : x \\notin S /\\ y \\/ z \\times w"
    answer = '{"specification": "' + spec + '\\nNext == TRUE"}'
    assert apply_correction(DRAFT, answer).spec == spec + "\nNext == TRUE"


def test_a_correction_keeps_what_it_lacks() -> None:
    assert apply_correction(DRAFT, '{"configuration": "INIT Init"}') == attrs.evolve(
        DRAFT, config="INIT Init")
    assert apply_correction(DRAFT, "I could not fix it.") == DRAFT
    assert apply_correction(DRAFT, f"```tla\n{MODULE}\n```") == attrs.evolve(
        DRAFT, spec=MODULE + "\n")


def test_invariants_from_json_or_from_definitions() -> None:
    assert parse_invariants("```json\n" + json.dumps({"invariants": INVARIANTS})
                            + "\n```\nDone.") == tuple(INVARIANTS)
    prose = "Here:\nTypeOK ==\n  /\\ x \\in Nat\n  /\\ y = 1\nSafe == x < 3\nthat's it"
    assert parse_invariants(prose) == ("TypeOK ==\n  /\\ x \\in Nat\n  /\\ y = 1", "Safe == x < 3")


# --------------------------------------------------------------------------- pieces and digests


def test_split_source_keeps_whole_items_within_the_limit() -> None:
    items = ["int a(void) {\n    return 1;\n}\n\n", "int b(void) {\n\n    return 2;\n}\n\n",
             "int c(void) {\n    return 3;\n}\n"]
    source = "".join(items)
    assert split_source(source, len(source)) == [source]
    assert split_source(source, len(items[0] + items[1])) == [items[0] + items[1], items[2]]
    assert split_source(source, 20) == ["int a(void) {\n", "    return 1;\n}\n\n",
                                        "int b(void) {\n\n", "    return 2;\n}\n\n",
                                        "int c(void) {\n", "    return 3;\n}\n"]
    assert split_source("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]


def decode(digest: str) -> dict[str, list[dict[str, Any]]]:
    """Reads a trace digest back the way the trace prompt tells the model to."""
    legend_part, *tables = digest.split("\n\n")
    legend = dict(line.split("\t")[::-1] for line in legend_part.splitlines()[1:])
    legend = {short: event for event, short in legend.items()}
    logs: dict[str, list[dict[str, Any]]] = {}
    for table in tables:
        title, header, *rows = table.splitlines()
        columns = header.split("\t")
        logs[title.split(":")[0]] = [
            {c: legend[v] if c == "event" else cell(v) for c, v in zip(columns, r.split("\t"),
                                                                        strict=False) if v}
            for r in rows if not r.startswith("[")]
    return logs


def cell(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


@pytest.mark.parametrize("name", NAMES)
def test_trace_digest_is_lossless_given_the_legend(name: str) -> None:
    traces = bundled(name).files
    traces = {k: v for k, v in traces.items() if k.startswith("traces/")}
    digest = compress_traces(traces, 100_000, random.Random(0))
    expected = {k.removeprefix("traces/"): [json.loads(line) for line in v.splitlines()]
                for k, v in traces.items()}
    assert decode(digest) == expected
    assert len(digest) < 0.5 * sum(len(v) for v in traces.values())


def test_trace_digest_fits_the_budget_and_samples_by_seed() -> None:
    traces = {k: v for k, v in bundled("mutex").files.items() if k.startswith("traces/")}
    whole = len(compress_traces(traces, 100_000, random.Random(0)))
    digests = [compress_traces(traces, whole // 2, random.Random(seed)) for seed in range(8)]
    assert all(len(d) <= whole // 2 for d in digests)
    assert all(0 < len(decode(d)) < 4 for d in digests)
    assert len({tuple(decode(d)) for d in digests}) > 1
    cut = compress_traces(traces, 600, random.Random(0))
    assert len(cut) <= 600 and "more records not shown]" in cut
    [(name, rows)] = decode(cut).items()
    assert rows == [json.loads(x) for x in traces[f"traces/{name}"].splitlines()][:len(rows)]


# --------------------------------------------------------------------------- end to end


def test_basic_agent_through_the_kernel(kernel_cli: Any, scripted_model: Any,
                                        run_dir: Path) -> None:
    from speckernel.cli import registry

    if "tla" not in registry().names("benchmark"):
        pytest.skip("benchmark 'tla' is not registered yet")
    model = scripted_model(lambda messages: well_formed(messages[-1].content))
    result = kernel_cli("run", "tla", "-t", "spinlock", "--agent", "basic", "--model", model,
                        "--agent-option", "rounds=1", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    [record] = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert record["status"] != "error", record["error"]
    files = record["candidate"]["files"]
    assert files["spinlock.tla"] == GOLD
    assert json.loads(files["invariants.json"]) == {"invariants": INVARIANTS}
    prompts = [m["content"] for m in record["candidate"]["provenance"]["messages"]
               if m["role"] == "user"]
    assert [kind(p) for p in prompts][:3] == ["basic", "config", "invariants"]


def test_json_nested_past_the_interpreter_s_limit_is_no_object() -> None:
    """A reply nesting objects thousands deep makes the JSON decoder raise RecursionError:
    that is no object, not a traceback out of the agent."""
    assert json_object('{"tla": ' * 5_000, "tla") is None
    assert json_object('{"tla": ' * 5_000 + ' {"tla": "M"}', "tla") == {"tla": "M"}
