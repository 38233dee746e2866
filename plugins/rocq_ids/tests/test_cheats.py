"""The adversarial corpus: every file of ``cheats/`` is a candidate ``Impl.v`` written against
the audit rather than the spec, and each is rejected by the stage and for the reason its header
names. Adding a cheat is adding a file.

A header is a Coq comment opening the file::

    (* cheat: what it tries
       task: ryw
       rejected-by: commands | coqc | audit | extract
       reason: text the rejection must contain *)

``commands`` cheats are refused by the allow-list before any tool runs. The others pass the
allow-list (the next line of defence is what stops them), and the named verifier, run on the
real tools in the sandbox, fails the candidate with the reason. The honest references pass every
stage (``test_reference.py``, ``test_audit.py``, ``test_extraction.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from conftest import candidate
from speckernel.components import Verifier
from speckernel.model import Status, Task

from speckernel_rocq_ids.audit import AuditVerifier
from speckernel_rocq_ids.commands import check
from speckernel_rocq_ids.extraction import ExtractionVerifier
from speckernel_rocq_ids.verifiers import CoqcVerifier

CORPUS = Path(__file__).parent / "cheats"
_HEADER = re.compile(r"\A\(\* cheat: (?P<what>.*?)\n\s*task: (?P<task>\w+)\n"
                     r"\s*rejected-by: (?P<by>\w+)\n\s*reason: (?P<reason>.*?) \*\)", re.DOTALL)
VERIFIERS: dict[str, Callable[[], Verifier]] = {
    "coqc": CoqcVerifier, "audit": AuditVerifier, "extract": ExtractionVerifier}


@attrs.frozen
class Cheat:
    name: str
    what: str
    task: str
    by: str
    reason: str
    text: str


def load(path: Path) -> Cheat:
    text = path.read_text("utf-8")
    header = _HEADER.match(text)
    assert header is not None, f"{path.name}: no cheat header"
    return Cheat(path.stem, " ".join(header["what"].split()), header["task"], header["by"],
                 " ".join(header["reason"].split()), text)


CHEATS = [load(path) for path in sorted(CORPUS.glob("*.v"))]
REFUSED = [c for c in CHEATS if c.by == "commands"]
JUDGED = [c for c in CHEATS if c.by != "commands"]


def test_the_corpus_covers_every_stage() -> None:
    assert len(CHEATS) >= 40
    assert {c.by for c in CHEATS} == {"commands", *VERIFIERS}
    assert len({c.name for c in CHEATS}) == len(CHEATS)


@pytest.mark.parametrize("cheat", REFUSED, ids=[c.name for c in REFUSED])
def test_refused_by_the_allow_list(cheat: Cheat) -> None:
    found = check(cheat.text, "Impl.v")
    assert found, f"{cheat.name} ({cheat.what}) passed the allow-list"
    assert any(cheat.reason in d.message for d in found), [d.message for d in found]


@pytest.mark.anyio
@pytest.mark.parametrize("cheat", JUDGED, ids=[c.name for c in JUDGED])
async def test_rejected_by_its_stage(cheat: Cheat, tasks_all: dict[str, Task],
                                     make_ctx: Callable[..., Any]) -> None:
    assert check(cheat.text, "Impl.v") == [], "the allow-list is not what stops this one"
    verdict = await VERIFIERS[cheat.by]().verify(candidate(**{"Impl.v": cheat.text}),
                                                 tasks_all[cheat.task], make_ctx(wall_s=300.0))
    said = " | ".join(f"{d.code}: {d.file}: {d.message}" for d in verdict.diagnostics)
    assert verdict.status is Status.FAILURE, f"{cheat.name}: {verdict.status} {said}"
    assert cheat.reason in said, said
