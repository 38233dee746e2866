"""Recorded Verus runs (``tests/fixtures/verus/<case>/``) in Verus's exact output format:
``stdout.json`` (the ``--output-json`` report), ``stderr.jsonl`` (rustc's JSON diagnostics),
``returncode``. The runs are of Verus-Bench's ``MBPP/unverified/task_id_105.rs`` and edits of it."""

from __future__ import annotations

from pathlib import Path

from speckernel_verus.output import VerusResult, parse_run

FIXTURES = Path(__file__).parent / "fixtures" / "verus"
SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "verus"


def recorded(case: str) -> tuple[str, str, int]:
    """(stdout, stderr, returncode) of one recorded run."""
    folder = FIXTURES / case
    return ((folder / "stdout.json").read_text(), (folder / "stderr.jsonl").read_text(),
            int((folder / "returncode").read_text()))


def parsed(case: str) -> VerusResult:
    """A recorded run through the parser."""
    return parse_run(*recorded(case))
