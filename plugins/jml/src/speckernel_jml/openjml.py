"""OpenJML, the verifier FormalBench used: its command line and reading its output.

OpenJML is distributed as GitHub release zips and a Docker image (notes §A2), neither reachable
from the registries this project installs from, so it is used only when the user provides it:
a binary named by the benchmark option ``openjml`` or the ``OPENJML`` environment variable, or a
Docker image (option ``openjml_docker``, e.g. ``thanhlecong/openjml:latest`` whose binary is
``/home/openjml21/openjml``). The command and the reading of its output are FormalBench's, except
where the reading let a specification write the verdict: OpenJML quotes the source line of every
message, JML comments included, so the output holds text of the candidate's choosing. The
counts are read from OpenJML's own summary lines only (see :func:`count_errors`), and the output
is split into lines where OpenJML ends them (:func:`speckernel.lines.split_lines`), not at the
form feeds, ``\\x1c`` or U+2028 a quoted line may hold.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Mapping
from typing import Any

import attrs
from speckernel.lines import split_lines

from speckernel_jml.failures import Category, classify_openjml

FLAGS = ("--esc", "--prover=cvc4", "--nullable-by-default", "--esc-max-warnings", "1")
"""FormalBench's ``verify`` flags; no ``--code-math``/``--spec-math``, so Java code is checked in
OpenJML's safe mode (overflow is an error) and specifications use mathematical integers."""

DOCKER_BINARY = "/home/openjml21/openjml"
ENV = "OPENJML"

_COUNT = re.compile(r"(\d+) (verification failure|warning|error)s?[ \t]*")
"""A summary line, whole: ``N verification failure(s)``, ``N warning(s)``, ``N error(s)``."""
_CARET = re.compile(r"[ \t]*\^[ \t]*")
"""The line under a quoted source line, pointing at the column."""
_HEADER = re.compile(
    r"^(?P<file>[^\s:][^:\n]*\.java):(?P<line>\d+):(?:\s*(?P<column>\d+):)?\s*"
    r"(?P<level>error|warning|verify|note):\s*(?P<text>.*)$")
_SUMMARY = re.compile(r"^\d+ (?:verification failures?|warnings?|errors?)\s*$")
_ASSOCIATED = ("Associated declaration:", "Associated method exit")
INTERNAL_BUG = "Internal JML bug"


@attrs.frozen
class OpenJmlMessage:
    """One reported problem: its header line and the lines after it (source excerpt, caret,
    associated declarations appended as upstream does)."""

    file: str
    line: int
    level: str
    text: str
    detail: str = ""
    category: Category = Category.OTHER


def count_errors(output: str) -> int:
    """FormalBench's ``extract_output``: the sum of the "N verification failure(s)", "N
    warning(s)" and "N error(s)" counts; otherwise -5 for an internal bug, else 0.

    Upstream takes the first match of each anywhere in the output. A quoted source line comes
    before the summary, so a specification whose failing clause carried the comment ``// 0
    verification failures, 0 warnings, 0 errors`` counted 0: verified. A count here is a whole
    line that no caret line follows (a quoted source line is always followed by one), the last
    of its kind (OpenJML prints the summary after every message); on the recorded outputs
    (tests/data/openjml) the two readings agree."""
    found: dict[str, int] = {}
    for line, after in itertools.pairwise([*split_lines(output), ""]):
        match = _COUNT.fullmatch(line)
        if match and not _CARET.fullmatch(after):
            found[match[2]] = int(match[1])
    if found:
        return sum(found.values())
    return -5 if INTERNAL_BUG in output else 0


def parse_messages(output: str) -> list[OpenJmlMessage]:
    """The errors of an OpenJML run, classified; warnings dropped and associated-declaration
    chunks merged into the error before them (FormalBench's ``analyze_failures``)."""
    chunks: list[tuple[re.Match[str], list[str]]] = []
    for line in split_lines(output):
        header = _HEADER.match(line)
        if header:
            chunks.append((header, []))
        elif chunks and not _SUMMARY.match(line):
            chunks[-1][1].append(line)
    messages: list[OpenJmlMessage] = []
    for header, rest in chunks:
        level, text = header["level"], header["text"].strip()
        body = "\n".join(rest).rstrip()
        if any(marker in text for marker in _ASSOCIATED):
            if messages:
                previous = messages[-1]
                extra = f"{header.group(0)}\n{body}".rstrip()
                messages[-1] = attrs.evolve(previous, detail=f"{previous.detail}\n{extra}".strip())
            continue
        if level not in ("error", "verify"):
            continue
        messages.append(OpenJmlMessage(
            file=header["file"], line=int(header["line"]), level=level, text=text, detail=body,
            category=classify_openjml(level, f"{text}\n{body}", output)))
    return messages


def strip_prefix(output: str, prefix: str) -> str:
    """The output with the working directory removed from paths (upstream strips the cwd)."""
    return output.replace(prefix.rstrip("/") + "/", "") if prefix else output


def local_binary(options: Mapping[str, Any]) -> str | None:
    """The OpenJML executable: option ``openjml``, else ``$OPENJML``, else ``openjml`` on PATH."""
    named = options.get("openjml") or os.environ.get(ENV)
    if named:
        path = os.path.expanduser(str(named))
        return path if os.access(path, os.X_OK) else None
    return shutil.which("openjml")


def command(java_file: str, options: Mapping[str, Any]) -> list[str] | None:
    """The argv verifying ``java_file`` (relative to the working directory), or None when no
    OpenJML is configured. A Docker image runs with the (sandbox's) working directory
    mounted and no network."""
    image = options.get("openjml_docker")
    if image:
        if shutil.which("docker") is None:
            return None
        script = ('exec docker run --rm --network none -v "$PWD":/work -w /work "$1" '
                  f'{DOCKER_BINARY} {" ".join(FLAGS)} "$2"')
        return ["sh", "-c", script, "sh", str(image), java_file]
    binary = local_binary(options)
    return [binary, *FLAGS, java_file] if binary else None
