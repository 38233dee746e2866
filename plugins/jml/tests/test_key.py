"""The KeyCheck driver: its protocol, the verdicts it stands for, and one warm sandboxed JVM
serving several checks with a per-check timeout that kills and restarts it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from speckernel.model import Status
from speckernel.sandbox.local import LocalSandbox

from speckernel_jml.failures import Category
from speckernel_jml.key import (
    ContractResult,
    KeyReport,
    KeyServer,
    _report_from_output,
    check_once,
    java_argv,
    parse_report,
)
from speckernel_jml.verifiers import key_outcome

CLOSED = ("CONTRACT\tclosed\tA::f\tA[A::f(int)].JML normal_behavior operation contract.0\t0\t"
          "135\t487\t")
OPEN = ("CONTRACT\topen\tA::g\tA[A::g(int)].JML normal_behavior operation contract.0\t2\t1056\t"
        "5224\tBody Preserves Invariant | if b_2 true | Overflow check; Invariant Initially Valid")


def test_protocol_lines_parse() -> None:
    report = parse_report([CLOSED, OPEN, "noise from KeY"])
    assert [c.status for c in report.contracts] == ["closed", "open"]
    assert report.contracts[1].open_goals == 2
    assert report.contracts[1].reasons == (
        "Body Preserves Invariant | if b_2 true | Overflow check", "Invariant Initially Valid")
    assert not report.proved
    assert parse_report([CLOSED]).proved
    assert not parse_report([]).proved
    assert parse_report(["LOADERROR\tParserException: bad"]).load_error == "ParserException: bad"


def contract(status: str, nodes: int = 100, reasons: tuple[str, ...] = ()) -> ContractResult:
    return ContractResult(status, "A::f", "c0", 0 if status == "closed" else 1, nodes, 10,
                          reasons)


@pytest.mark.parametrize("separator", ["\x0c", "\x1c", "\x85", "\u2028"])
def test_a_quoted_separator_does_not_cut_a_protocol_line(separator: str) -> None:
    """KeY's messages quote the candidate's JML, and the driver removes only tabs and line
    ends from them: the rest of a line after a form feed, ``\\x1c`` or U+2028 is still that
    line (the cold path read it with ``str.splitlines``; the warm one splits bytes at \\n)."""
    message = f"ParserException: mismatched input '{separator}CONTRACT closed A::f' at 3:18"
    error = f"CONTRACT\terror\tA::f\tc0\t0\t0\t12\t{message}"
    report = _report_from_output(f"{error}\nLOADERROR\t{message}\nDONE\t1\n", 1.0, "")
    assert report.load_error == message and report.contracts[0].reasons == (message,)
    assert [c.status for c in report.contracts] == ["error"]


def test_all_closed_is_success() -> None:
    assert key_outcome(KeyReport((contract("closed"),)), "A.java", 20000).status is \
        Status.SUCCESS


def test_open_goals_are_categorised_failures() -> None:
    outcome = key_outcome(KeyReport((contract("closed"), contract(
        "open", reasons=("Body Preserves Invariant | Overflow check",
                         "Invariant Initially Valid")))), "A.java", 20000)
    assert outcome.status is Status.FAILURE
    assert outcome.categories == ["ArithmeticOperationRange", "LoopInvariantFailure"]


def test_exhausted_step_budget_is_unknown_and_wall_timeout_is_timeout() -> None:
    spent = key_outcome(KeyReport((contract("open", nodes=20000),)), "A.java", 20000)
    assert spent.status is Status.UNKNOWN
    late = key_outcome(KeyReport((), timed_out=True), "A.java", 20000)
    assert late.status is Status.TIMEOUT


def test_unreadable_files_and_missing_contracts_fail() -> None:
    bad = key_outcome(KeyReport((), load_error="ParserException: mismatched input"), "A.java",
                      20000)
    assert bad.status is Status.FAILURE and bad.categories == [Category.SYNTAX_ERROR]
    none = key_outcome(KeyReport(()), "A.java", 20000)
    assert none.status is Status.FAILURE
    assert none.categories == [Category.MISSING_SPECIFICATION]


PROVABLE_AND_NOT = """class Duo {
    /*@ public normal_behavior
      @ ensures \\result >= a && \\result >= b;
      @ ensures \\result == a || \\result == b;
      @*/
    public static int max(int a, int b) {
        if (a > b) {
            return a;
        }
        return b;
    }

    /*@ public normal_behavior
      @ ensures \\result == a + b;
      @*/
    public static int add(int a, int b) {
        return a + b;
    }
}
"""
BROKEN_JML = PROVABLE_AND_NOT.replace("ensures \\result == a + b;", "ensures \\result == ;")


SANDBOX = LocalSandbox()


@pytest.fixture(scope="module")
def server(key_installed: None) -> Iterator[KeyServer]:
    running = KeyServer()
    yield running
    running.close()


def duo(text: str) -> dict[str, str]:
    return {"Duo.java": text}


@pytest.mark.slow
def test_warm_server_proves_refutes_and_survives_a_timeout(server: KeyServer) -> None:
    report = server.check(SANDBOX, duo(PROVABLE_AND_NOT), timeout=600)
    by_method = {c.target: c for c in report.contracts}
    assert by_method["Duo::max"].status == "closed"
    # Java int semantics with overflow checking: a + b may overflow.
    assert by_method["Duo::add"].status == "open"
    assert any("Overflow check" in r for r in by_method["Duo::add"].reasons)
    starts = server.starts

    hung = server.check(SANDBOX, duo(PROVABLE_AND_NOT), timeout=0.5)
    assert hung.timed_out

    broken = server.check(SANDBOX, duo(BROKEN_JML), timeout=600)
    assert server.starts == starts + 1, "the timed-out JVM was replaced"
    assert broken.load_error and not broken.contracts


@pytest.mark.slow
def test_parse_trees_are_reused_across_loads_but_syntax_errors_are_not(server: KeyServer) -> None:
    """The warm JVM keeps the parse tree of every error-free JML comment (KeY's library's above
    all): a file checked again gets the same verdicts, a broken comment is reported every time,
    and fixing it at the same place is read afresh."""
    first = server.check(SANDBOX, duo(PROVABLE_AND_NOT), timeout=600)
    again = server.check(SANDBOX, duo(PROVABLE_AND_NOT), timeout=600)
    assert [(c.target, c.status, c.reasons) for c in first.contracts] == [
        (c.target, c.status, c.reasons) for c in again.contracts]
    for _ in range(2):
        broken = server.check(SANDBOX, duo(BROKEN_JML), timeout=600)
        assert broken.load_error and not broken.contracts
    fixed = server.check(SANDBOX, duo(BROKEN_JML.replace("== ;", "== a;")), timeout=600)
    assert fixed.load_error is None
    assert {c.target: c.status for c in fixed.contracts}["Duo::add"] == "open"


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_fresh_jvm_per_check_reaches_the_warm_servers_verdicts(
        server: KeyServer) -> None:
    """The throughput baseline is honest: the same driver with the same JVM flags, only the
    mode differs, and it decides every contract as the warm server does."""
    serve, prove = java_argv(["serve"]), java_argv(["prove", "DIR"])
    assert serve[:-1] == prove[:-2]
    cold = await check_once(SANDBOX, duo(PROVABLE_AND_NOT), timeout=600)
    warm = server.check(SANDBOX, duo(PROVABLE_AND_NOT), timeout=600)
    assert {(c.target, c.status) for c in cold.contracts} == {
        (c.target, c.status) for c in warm.contracts} == {
        ("Duo::max", "closed"), ("Duo::add", "open")}


@pytest.mark.slow
def test_the_few_shot_examples_are_proved(server: KeyServer) -> None:
    """The prompt examples teach JML that KeY accepts: every contract closes (one load for
    all three classes)."""
    from speckernel_jml.javasource import top_level_class
    from speckernel_jml.prompting import _EXAMPLES

    sources = {f"{top_level_class(spec)}.java": spec for _, _, spec in _EXAMPLES}
    report = server.check(SANDBOX, sources, timeout=900)
    assert len(report.contracts) == len(_EXAMPLES)
    assert report.proved, report


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from the host's /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def jvm_environments(launcher_pid: int) -> list[dict[str, str]]:
    """The environment of every ``java`` process under a sandbox launcher."""
    environments = []
    for pid in _descendants(launcher_pid):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() != "java":
                continue
            raw = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        environments.append(dict(item.split("=", 1) for item in
                                 raw.decode(errors="replace").split("\0") if "=" in item))
    return environments


@pytest.mark.slow
def test_the_key_jvm_runs_sandboxed_without_the_kernels_secrets(
        key_installed: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: KeY's JVM used to inherit the kernel's environment, provider keys included.
    It now runs behind the sandbox: not as the kernel's user, with only the environment the
    sandbox gives it, its home the work directory (where KeY keeps its settings)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-planted-secret")
    own = KeyServer()
    try:
        report = own.check(SANDBOX, duo(PROVABLE_AND_NOT), timeout=600)
        assert {c.target for c in report.contracts} == {"Duo::max", "Duo::add"}
        process = own._process
        assert process is not None
        [environment] = jvm_environments(process.pid)  # type: ignore[attr-defined]
        assert not any("planted" in value for value in environment.values())
        assert "OPENAI_API_KEY" not in environment and "ANTHROPIC_API_KEY" not in environment
        assert environment["HOME"] == str(process.workdir)
        assert (process.workdir / ".key").is_dir(), "KeY's settings live in the work directory"
    finally:
        own.close()
