"""Recorded Verus runs (``tests/fixtures/verus/<case>/``) in Verus's exact output format:
``stdout.json`` (the ``--output-json`` report), ``stderr.jsonl`` (rustc's JSON diagnostics),
``returncode``. The runs are of Verus-Bench's ``MBPP/unverified/task_id_105.rs`` and edits of it."""

from __future__ import annotations

import json
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


SPLITLINES_ONLY = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Where ``str.splitlines`` ends a line and rustc does not."""


def as_rustc_prints(stderr: str, source_line: str) -> str:
    """``stderr`` with every span quoting ``source_line`` instead, each diagnostic on one line
    the way rustc's JSON emitter (serde_json) writes it: control characters below U+0020
    escaped, everything else (U+0085, U+2028, U+2029) raw. Python's encoder with
    ``ensure_ascii=False`` escapes exactly that set."""
    out = []
    for line in stderr.splitlines():  # the recorded file holds no separator but "\n"
        diagnostic = json.loads(line)
        for span in diagnostic["spans"]:
            span["text"] = [{**t, "text": source_line} for t in span["text"]]
        out.append(json.dumps(diagnostic, ensure_ascii=False, separators=(",", ":")) + "\n")
    return "".join(out)
