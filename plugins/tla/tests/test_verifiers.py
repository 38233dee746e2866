"""The ``tla.sany`` verifier end to end: verdicts, never tracebacks."""

from __future__ import annotations

from typing import Any

import pytest
import tla_testdata as m
from speckernel.model import Candidate, Provenance, Status, Task

from speckernel_tla.verifiers import SanyVerifier


def task(module: str | None = "spin") -> Task:
    return Task("t", "sysmobench", metadata={"module": module} if module else {})


def candidate(**files: str) -> Candidate:
    return Candidate(files, Provenance("test", "none"))


@pytest.mark.anyio
async def test_good_model_succeeds(make_ctx: Any) -> None:
    good = m.SPIN.replace("Broken(t) == pc[t] = \"held\" /\\ locked' = = FALSE\n", "")
    verdict = await SanyVerifier().verify(candidate(**{"spin.tla": good}), task(), make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert verdict.tool == "tla2tools" and verdict.tool_version
    assert verdict.data == {"module": "spin", "ok": True}


@pytest.mark.anyio
async def test_per_action_credit_on_request(make_ctx: Any) -> None:
    verdict = await SanyVerifier().verify(candidate(**{"spin.tla": m.SPIN}), task(),
                                          make_ctx(per_action=True))
    assert verdict.status is Status.FAILURE
    assert verdict.data["actions_total"] == 9 and verdict.data["actions_passed"] == 8
    assert verdict.data["action_success_rate"] == pytest.approx(8 / 9)
    assert verdict.data["actions"]["Broken"]["ok"] is False
    assert (verdict.diagnostics[0].line, verdict.diagnostics[0].column) == (23, 44)


@pytest.mark.anyio
@pytest.mark.parametrize(("text", "needle"), [
    (m.PROSE, "Fatal errors"),
    (m.UNICODE.replace("Unicode", "spin"), "Lexical error"),
    (m.SEMANTIC.replace("Semantic", "spin"), "Unknown operator"),
])
@pytest.mark.parametrize("per_action", [False, True])
async def test_bad_input_fails_with_diagnostics(make_ctx: Any, text: str, needle: str,
                                                per_action: bool) -> None:
    verdict = await SanyVerifier().verify(candidate(**{"spin.tla": text}), task(),
                                          make_ctx(per_action=per_action))
    assert verdict.status is Status.FAILURE
    assert needle in verdict.summary()


@pytest.mark.anyio
async def test_other_modules_of_the_artifact_are_visible(make_ctx: Any) -> None:
    helper = "---- MODULE Helper ----\nEXTENDS Naturals\nDouble(n) == 2 * n\n====\n"
    main = "---- MODULE Main ----\nEXTENDS Helper\nX == Double(2)\n====\n"
    verdict = await SanyVerifier().verify(
        candidate(**{"Main.tla": main, "lib/Helper.tla": helper}), task("Main"), make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()


@pytest.mark.anyio
async def test_missing_module_is_a_failure(make_ctx: Any) -> None:
    verdict = await SanyVerifier().verify(candidate(**{"other.tla": m.GOOD}), task(),
                                          make_ctx())
    assert verdict.status is Status.FAILURE
    assert "expected module spin" in verdict.diagnostics[0].message
    guessed = await SanyVerifier().verify(candidate(**{"Good.tla": m.GOOD}), task(None),
                                          make_ctx())
    assert guessed.status is Status.SUCCESS
