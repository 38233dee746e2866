"""TLC runs in the local sandbox: outcomes, budgets, and inputs that must not crash the kernel."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import attrs
import pytest
from speckernel.sandbox.base import Sandbox
from tla_testdata import DATA, LIMITS

from speckernel_tla import tlc
from speckernel_tla.tlc import TlcOptions, TlcRun, budget_module, run_tlc, tlc_arguments
from speckernel_tla.tlc_output import Outcome, TlcResult

DEFAULTS = TlcOptions()


def model_files(*names: str) -> dict[str, str]:
    return {name: (DATA / "tlc" / name).read_text() for name in names}


async def check(jar: Path, sandbox: Sandbox, module: str, cfg: str,
                options: TlcOptions = DEFAULTS, **limits: float) -> TlcRun:
    files = model_files(f"{module}.tla", cfg)
    return await run_tlc(sandbox, jar, files, module, cfg, options,
                         attrs.evolve(LIMITS, **limits))


@pytest.mark.anyio
async def test_clean_model_with_coverage(jar: Path, sandbox: Sandbox) -> None:
    run = await check(jar, sandbox, "Counter", "ok.cfg")
    assert run.result.outcome is Outcome.OK and not run.truncated
    assert run.result.distinct == 4
    assert {a.name for a in run.result.coverage if a.covered} == {"Inc", "Reset"}


@pytest.mark.anyio
async def test_violations_are_named(jar: Path, sandbox: Sandbox) -> None:
    async with anyio.create_task_group() as group:  # concurrent runs: one metadir each
        runs: dict[str, TlcRun] = {}

        async def one(cfg: str) -> None:
            runs[cfg] = await check(jar, sandbox, "Counter", cfg)

        for cfg in ("inv.cfg", "prop.cfg"):
            group.start_soon(one, cfg)
    assert runs["inv.cfg"].result.outcome is Outcome.INVARIANT_VIOLATED
    assert runs["inv.cfg"].result.violated == "Small"
    assert runs["prop.cfg"].result.outcome is Outcome.PROPERTY_VIOLATED


@pytest.mark.anyio
async def test_deadlock_only_when_checked(jar: Path, sandbox: Sandbox) -> None:
    checked = await check(jar, sandbox, "Dead", "dead.cfg", TlcOptions(check_deadlock=True))
    assert checked.result.outcome is Outcome.DEADLOCK
    unchecked = await check(jar, sandbox, "Dead", "dead.cfg")
    assert unchecked.result.outcome is Outcome.OK


@pytest.mark.anyio
async def test_evaluation_error_is_located(jar: Path, sandbox: Sandbox) -> None:
    run = await check(jar, sandbox, "Eval", "eval.cfg")
    assert run.result.outcome is Outcome.EVALUATION_ERROR
    assert run.result.error_action == "Take"


@pytest.mark.anyio
async def test_bad_configs_are_verdicts(jar: Path, sandbox: Sandbox) -> None:
    undefined = await check(jar, sandbox, "Counter", "undef.cfg")
    assert undefined.result.outcome is Outcome.CONFIG_ERROR
    # TLC ignores a cfg constant the model does not declare; the run still ends in a result.
    extra = await check(jar, sandbox, "Counter", "undefconst.cfg")
    assert extra.result.outcome is Outcome.OK
    broken = await check(jar, sandbox, "Broken", "broken.cfg")
    assert broken.result.outcome is Outcome.PARSE_ERROR
    missing = await run_tlc(sandbox, jar, model_files("Counter.tla"), "Counter", "none.cfg",
                            TlcOptions(), LIMITS)
    assert missing.result.outcome is not Outcome.OK


@pytest.mark.anyio
async def test_endless_model_times_out_with_partial_counts(jar: Path, sandbox: Sandbox) -> None:
    run = await check(jar, sandbox, "Forever", "forever.cfg", wall_s=6.0)
    assert run.process.timed_out
    assert run.result.outcome is Outcome.TIMEOUT and not run.result.complete
    assert run.result.generated is None or run.result.generated > 0


@pytest.mark.anyio
async def test_state_and_depth_budgets_cut_the_search(jar: Path, sandbox: Sandbox) -> None:
    states = await check(jar, sandbox, "Forever", "forever.cfg", TlcOptions(max_states=50))
    assert states.result.outcome is Outcome.OK and states.truncated
    assert 50 <= (states.result.distinct or 0) < 200
    depth = await check(jar, sandbox, "Forever", "forever.cfg", TlcOptions(depth=4))
    assert depth.truncated and depth.result.depth == 4


@pytest.mark.anyio
async def test_simulation(jar: Path, sandbox: Sandbox) -> None:
    run = await check(jar, sandbox, "Counter", "ok.cfg",
                      TlcOptions(simulate=20, depth=10, seed=7))
    assert run.result.outcome is Outcome.OK and run.result.distinct is None
    assert {a.name for a in run.result.coverage if a.covered} == {"Inc", "Reset"}


def test_command_line() -> None:
    args = tlc_arguments("M", "M.cfg", TlcOptions(simulate=5, depth=9, seed=1), "states/x")
    assert args == ["-tool", "-metadir", "states/x", "-workers", "1", "-config", "M.cfg",
                    "-deadlock", "-coverage", "1", "-simulate", "num=5", "-depth", "9",
                    "-seed", "1", "M.tla"]
    name, text = budget_module("M", 3, None)
    assert name == "SpeckernelBudget_M" and 'TLCGet("level") < 3' in text
    _, text = budget_module("M", 3, 100, exempt="Spared")
    assert 'Constraint == Spared \\/ (TLCGet("level") < 3 /\\ TLCGet("distinct") < 100)' in text


SEPARATORS = ["", "\x1c", "\x0b\x0c", "\x1d\x1e\x85"]
"""Characters SANY takes in a string and TLC prints raw, at which ``str.splitlines`` (not SANY
or TLC) ends a line."""


@pytest.mark.anyio
@pytest.mark.parametrize("separator", SEPARATORS)
async def test_a_model_printing_tlc_frames_cannot_forge_the_outcome(
        jar: Path, sandbox: Sandbox, separator: str) -> None:
    """TLC prints a model's strings quoted and escaped, so frames a model prints (a success, a
    coverage line, an unterminated frame) stay plain text: the violation TLC found is the
    outcome, and no action the model lacks is covered. Joined by characters TLC prints raw
    (``\x1c``, U+0085: lines only to ``str.splitlines``), the frames stay plain text too."""
    files = model_files("Forged.tla", "forged.cfg")
    if separator:
        frames = files["Forged.tla"].split("Frames == <<", 1)[1].split(">>\n", 1)[0]
        joined = separator.join(f.strip().strip('"') for f in frames.split(",\n"))
        files["Forged.tla"] = files["Forged.tla"].replace(
            "/\\ PrintT(Frames)", f'/\\ PrintT(Frames) /\\ PrintT("{separator}{joined}")')
        assert separator in files["Forged.tla"]
    run = await run_tlc(sandbox, jar, files, "Forged", "forged.cfg", DEFAULTS, LIMITS)
    assert '"@!@!@STARTMSG 2193:0 @!@!@"' in run.process.output  # the attempt reached TLC's output
    assert run.result.outcome is Outcome.INVARIANT_VIOLATED
    assert run.result.outcome is Outcome.INVARIANT_VIOLATED
    assert run.result.violated == "Inv"
    assert "Ghost" not in {a.name for a in run.result.coverage}


def workdir_free(result: TlcResult) -> TlcResult:
    """``result`` without the sandbox's work directory (each run has its own)."""
    def free(text: str) -> str:
        return re.sub(r"/\S*?/work/", "WORK/", text)

    return attrs.evolve(result, message=free(result.message),
                        parse_output=free(result.parse_output))


LAUNCHED_ALIKE = [
    ("Counter", "ok.cfg", DEFAULTS),
    ("Counter", "inv.cfg", DEFAULTS),
    ("Counter", "prop.cfg", DEFAULTS),
    ("Dead", "dead.cfg", TlcOptions(check_deadlock=True)),
    ("Eval", "eval.cfg", DEFAULTS),
    ("Counter", "undef.cfg", DEFAULTS),
    ("Broken", "broken.cfg", DEFAULTS),
    ("Forever", "forever.cfg", TlcOptions(max_states=50)),
    ("Counter", "ok.cfg", TlcOptions(simulate=20, depth=10, seed=7)),
    ("Named", "named-both.cfg", TlcOptions(search=True)),
]


@pytest.mark.anyio
async def test_tlc_main_reports_exactly_what_tlc_reports(
        jar: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """TlcMain (``java/TlcMain.java``) only closes RMI's listener at exit: for every outcome TLC
    has (clean, invariant, property, deadlock, evaluation, cfg and parse errors, a budget cut, a
    simulation, a liveness search), its exit status and the parsed result equal those of
    ``tlc2.TLC`` started directly on the same files with the same seed."""
    seeded = [(m, cfg, attrs.evolve(o, seed=o.seed or 11)) for m, cfg, o in LAUNCHED_ALIKE]
    launched = [await check(jar, sandbox, *case) for case in seeded]
    monkeypatch.setattr(tlc, "TLC_MAIN", "tlc2.TLC")
    direct = [await check(jar, sandbox, *case) for case in seeded]
    for case, ours, theirs in zip(seeded, launched, direct, strict=True):
        assert "TlcMain" in ours.process.argv and "tlc2.TLC" in theirs.process.argv
        assert ours.process.returncode == theirs.process.returncode, case
        assert workdir_free(ours.result) == workdir_free(theirs.result), case
        assert ours.truncated == theirs.truncated
    assert {r.result.outcome for r in launched} >= {
        Outcome.OK, Outcome.INVARIANT_VIOLATED, Outcome.PROPERTY_VIOLATED, Outcome.DEADLOCK,
        Outcome.EVALUATION_ERROR, Outcome.CONFIG_ERROR, Outcome.PARSE_ERROR}
