"""SANY output reading, and SanyBatch against one SANY process per module."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import tla_testdata as m
from speckernel.sandbox.base import Sandbox
from tla_testdata import LIMITS

from speckernel_tla.jvm import JVM_OPTIONS
from speckernel_tla.sany import parse_modules, parse_sany_output
from speckernel_tla.stdlib import bundled_modules

CASES = {
    "Good": m.GOOD,
    "Semantic": m.SEMANTIC,
    "Syntax": m.SYNTAX,
    "Prose": m.PROSE,
    "Unicode": m.UNICODE,
    "MissingImport": m.MISSING_IMPORT,
    "WrongName": m.WRONG_NAME,
    "Community": m.COMMUNITY,
    # Modules the batch shares (Lib kept after its first clean use, BrokenLib never kept), and
    # a definition clashing with a kept standard module's.
    "UsesBroken": "---- MODULE UsesBroken ----\nEXTENDS BrokenLib\nY == Z\n====\n",
    "UsesLib": "---- MODULE UsesLib ----\nEXTENDS Lib, Naturals\nY == Double(2)\n====\n",
    "UsesBroken2": "---- MODULE UsesBroken2 ----\nEXTENDS BrokenLib, Lib\nY == 1\n====\n",
    "UsesLib2": "---- MODULE UsesLib2 ----\nEXTENDS Lib\nY == Double(Nope)\n====\n",
    "Clash": "---- MODULE Clash ----\nEXTENDS Naturals\nNat == 1\n====\n",
}
LIBRARIES = {
    "Lib.tla": "---- MODULE Lib ----\nEXTENDS Naturals\nDouble(n) == 2 * n\n====\n",
    "BrokenLib.tla": "---- MODULE BrokenLib ----\nEXTENDS Naturals\nZ == Undefined + 1\n====\n",
}


def single_run(jar: Path, workdir: Path, module: str) -> tuple[str, int]:
    """What one ``java -cp jar tla2sany.SANY`` process prints (stdout and stderr merged)."""
    done = subprocess.run(["java", *JVM_OPTIONS, "-cp", str(jar), "tla2sany.SANY",
                           f"{module}.tla"], cwd=workdir, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60,
                          env={**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})
    return done.stdout, done.returncode


def comparable(output: str, module: str) -> str:
    """``output`` with the directory SANY ran in replaced by ``DIR``, and without the progress
    lines for modules other than ``module``: SanyBatch parses and analyses a module the files use
    once per JVM, so only the first file using it shows them."""
    where = re.search(rf"Parsing file (\S+)/{module}\.tla", output)
    progress = re.compile(rf"^(?:Parsing file \S+/(?!{module}\.tla$)\S+"
                          rf"|Semantic processing of module (?!{module}$)\S+)$")
    kept = [line for line in output.split("\n") if not progress.match(line)]
    text = "\n".join(kept)
    return text.replace(where.group(1), "DIR") if where else text


@pytest.mark.anyio
async def test_batch_matches_separate_sany_runs(jar: Path, sandbox: Sandbox,
                                                tmp_path: Path) -> None:
    # Good twice: once first, once after every broken module, to catch state SANY leaks.
    order = {**CASES, "Good2": m.GOOD.replace("MODULE Good", "MODULE Good2")}
    batch = await parse_modules(sandbox, jar, order, limits=LIMITS, extra_files=LIBRARIES)
    assert list(batch) == list(order)
    files = {**bundled_modules(), **LIBRARIES, **{f"{k}.tla": v for k, v in order.items()}}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for name in order:
        expected, code = single_run(jar, tmp_path, name)
        got = batch[name]
        assert got.exit_code == code, name
        # The directories differ (the sandbox's vs tmp_path); nothing else may.
        assert comparable(got.output, name) == comparable(expected, name), name
    assert [n for n, r in batch.items() if r.ok] == ["Good", "Community", "UsesLib", "Good2"]


@pytest.mark.anyio
async def test_semantic_errors_exit_zero_but_fail(jar: Path, sandbox: Sandbox) -> None:
    result = (await parse_modules(sandbox, jar, {"Semantic": m.SEMANTIC}, limits=LIMITS))[
        "Semantic"]
    assert result.exit_code == 0 and not result.ok
    assert result.unknown_operators == ("y", "Foo", "Bar")
    assert result.arities == {"Init": 0}
    first = result.errors[0]
    assert (first.file, first.line, first.column) == ("Semantic.tla", 4, 13)


@pytest.mark.anyio
async def test_every_module_gets_a_result_past_the_per_module_budget(
        jar: Path, sandbox: Sandbox) -> None:
    results = await parse_modules(sandbox, jar, {"Good": m.GOOD, "Syntax": m.SYNTAX},
                                  limits=LIMITS, per_module_s=0.001)
    assert all(r.timed_out and not r.ok and r.exit_code is None for r in results.values())
    assert results["Good"].errors[0].message == "SANY timed out"


def test_parse_error_location() -> None:
    output = ("Parsing file /w/Syntax.tla\n***Parse Error***\nWas expecting \"Expression\"\n"
              "Encountered \"Beginning of definition\" at line 4, column 9 and token \"==\"\n\n"
              "Fatal errors while parsing TLA+ spec in file Syntax\n")
    result = parse_sany_output("Syntax", output, 255)
    assert not result.ok
    assert [(d.line, d.column, d.code) for d in result.errors] == [(4, 9, "sany-parse")]


def test_failure_without_structured_message_keeps_the_tail() -> None:
    output = ("\n****** SANY2 Version 2.1\n\nParsing file /w/Prose.tla\n\n"
              "Fatal errors while parsing TLA+ spec in file Prose.tla\n\n"
              "java.lang.NullPointerException\n")
    result = parse_sany_output("Prose", output, 255)
    assert not result.ok
    assert result.errors[0].message.endswith("java.lang.NullPointerException")


def test_many_messages_are_read_in_one_pass() -> None:
    """Each message is the paragraph after its header, read in place (a copy of the rest of
    the output per message made 20,000 of them take minutes)."""
    output = "***Parse Error***\nEncountered x at line 1, column 1\n" * 20_000
    result = parse_sany_output("Many", output, 255)
    assert not result.ok and len(result.errors) == 20_000
    assert result.errors[-1].message == "***Parse Error***\nEncountered x at line 1, column 1"
