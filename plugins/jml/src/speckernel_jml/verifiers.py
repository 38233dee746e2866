"""The ``jml.verify`` verifier: the cheating check, then one deductive backend (KeY or OpenJML).

FormalBench's consistency (notes §A2) asks whether the annotated program verifies: success,
failure, or unknown (the tool ran out of time). Before any prover runs, the candidate must be the
task's program with JML added: its code tokens (comments and layout ignored, Unicode escapes
translated first as javac does, see :mod:`speckernel_jml.javasource`) must equal the task's, it
must contain JML annotation comments at all, and its JML may not assume what it should prove
(:mod:`speckernel_jml.vacuity`). Each violation is a recorded failure with its reason; a changed
method body is cheating whatever the prover says.

KeY reads the candidate with FormalBench's semantics: nullable by default
(:mod:`speckernel_jml.nullness`), and a proof counts only if its precondition admits the task's
test inputs (:mod:`speckernel_jml.testinputs`).

Backends share one interface (:class:`Backend`): KeY through the warm-JVM pool of
:mod:`speckernel_jml.key`, OpenJML through the sandbox when the user has it. Each failure
diagnostic carries its FormalBench category (:mod:`speckernel_jml.failures`) as its ``code``.
"""

from __future__ import annotations

import abc
import hashlib
import re
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import anyio.to_thread
import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits, Sandbox

from speckernel_jml import openjml
from speckernel_jml.failures import Category, classify_key_error
from speckernel_jml.goals import goal_diagnostics
from speckernel_jml.javasource import (
    code_tokens,
    declared_types,
    first_difference,
    has_unicode_escape,
    jml_comments,
    rename_words,
    strip_jml,
    tokenize,
    translate_unicode,
)
from speckernel_jml.javatools import JavaParserToolchain, JavaTools, JavaToolsError, shared_tools
from speckernel_jml.key import DEFAULT_MAX_STEPS, KeyReport, KeyUnavailable, shared_pool
from speckernel_jml.nullness import nullable_by_default
from speckernel_jml.testinputs import input_lines, task_calls
from speckernel_jml.toolchain import KeyToolchain, key_jars, key_version
from speckernel_jml.vacuity import vacuity_reason

VERIFY = "jml.verify"


@attrs.frozen
class Outcome:
    """What a backend concluded about one annotated file."""

    status: Status
    diagnostics: tuple[Diagnostic, ...] = ()
    data: Mapping[str, Any] = attrs.field(factory=dict)
    tool: str = ""
    tool_version: str = ""

    @property
    def categories(self) -> list[str]:
        return [d.code for d in self.diagnostics if d.code]


class Backend(abc.ABC):
    """A deductive verifier for one JML-annotated Java file."""

    name: ClassVar[str]
    tools: ClassVar[tuple[str, ...]] = ()
    """The kernel toolchains the backend runs (OpenJML is none: it is not installable)."""

    @abc.abstractmethod
    async def check(self, file_name: str, source: str, ctx: VerifyContext,
                    inputs: str | None = None) -> Outcome:
        """Verify ``source`` (saved as ``file_name``) under ``ctx.options``; ``inputs`` (the
        task's test inputs, :func:`speckernel_jml.testinputs.input_lines`) asks for vacuity
        probes where the backend has them."""


class KeyBackend(Backend):
    """KeY's automatic strategy on every contract, in a warm sandboxed JVM (:class:`KeyPool`).

    Closed proofs for all contracts is success, unless every contract of a method is vacuous
    (its precondition refuted alone or with each test input: a failure); an open goal is a
    failure categorised by its branch labels, unless the step budget ran out, which is unknown
    (KeY could not decide in the budget, FormalBench's timeout); a wall timeout is timeout; Java
    or JML KeY cannot read is a syntax-error failure, unless KeY cannot load the program even
    without its JML (:func:`program_load_error`): that is KeY's limit, ``unknown`` with the
    ``UnsupportedByKeY`` category. A file with no contract at all fails: nothing was
    verified.

    KeY reads the file as javac does (:func:`key_input`: Unicode escapes translated, generics
    erased and boxing written out for its pre-generics front end, the plugin's library stubs on
    its boot class path), with every type nullable by default, as FormalBench's OpenJML runs.
    A program KeY cannot read at all is ``unknown`` with the ``UnsupportedByKeY`` category:
    no specification could have verified it.
    """

    name = "key"
    tools = (KeyToolchain.name, JavaParserToolchain.name)

    async def check(self, file_name: str, source: str, ctx: VerifyContext,
                    inputs: str | None = None) -> Outcome:
        steps = int(ctx.options.get("key_max_steps", DEFAULT_MAX_STEPS))
        timeout = min(float(ctx.options.get("timeout_s", 300.0)), ctx.limits.wall_s)
        version = key_version(key_jars()) or ""
        try:
            text, unsupported = await anyio.to_thread.run_sync(
                key_input, source, Path(file_name).stem, shared_tools(ctx.sandbox))
        except JavaToolsError as exc:
            return Outcome(Status.ERROR, (Diagnostic(f"preparing the program for KeY failed: "
                                                     f"{exc}"),), tool="key",
                           tool_version=version)
        if unsupported:
            return Outcome(Status.UNKNOWN, (Diagnostic(
                f"KeY cannot verify this program: it uses {unsupported}, which KeY's Java "
                "front end cannot read (not a fault of the specification)", file=file_name,
                code=Category.UNSUPPORTED_BY_KEY),), {"backend": "key", "unsupported":
                                                      unsupported}, tool="key",
                tool_version=version)
        renames = sort_clashes(text)
        key_file = Path(file_name).with_stem(renames.get(Path(file_name).stem,
                                                         Path(file_name).stem)).name
        sources = {key_file: rename_words(text, renames) if renames else text}
        try:
            report = await anyio.to_thread.run_sync(
                lambda: shared_pool().check(ctx.sandbox, sources, steps, timeout, inputs))
            if report.load_error is not None:
                bare = await anyio.to_thread.run_sync(
                    program_load_error, ctx.sandbox, {n: strip_jml(t) for n, t in sources.items()})
                if bare is not None:
                    return Outcome(Status.UNKNOWN, (Diagnostic(
                        f"KeY cannot load the program itself, without any JML (a limit of KeY, "
                        f"not a fault of the specification): {bare}", file=file_name,
                        code=Category.UNSUPPORTED_BY_KEY),), {"backend": "key",
                                                              "unsupported": bare},
                        tool="key", tool_version=version)
        except KeyUnavailable as exc:
            return Outcome(Status.ERROR, (Diagnostic(str(exc)),), tool="key",
                           tool_version=version)
        outcome = key_outcome(report, file_name, steps, text)
        if renames:
            outcome = renamed_back(outcome, renames)
        return attrs.evolve(outcome, tool="key", tool_version=version)


_BARE_LOADS: dict[str, str | None] = {}
_BARE_LOADS_LOCK = threading.Lock()


def program_load_error(sandbox: Sandbox, sources: Mapping[str, str]) -> str | None:
    """Why KeY cannot load ``sources`` (the program without its JML), or None when it can;
    remembered per program. A load error the bare program shares is KeY's limit (the code is
    the task's: the cheating check saw to that), not the candidate's."""
    key = hashlib.sha256(repr(sorted(sources.items())).encode()).hexdigest()
    with _BARE_LOADS_LOCK:
        if key in _BARE_LOADS:
            return _BARE_LOADS[key]
    error = shared_pool().check(sandbox, sources, 1, 60.0).load_error
    with _BARE_LOADS_LOCK:
        _BARE_LOADS[key] = error
    return error


def key_input(source: str, class_name: str, tools: JavaTools | None,
              library: bool = True) -> tuple[str, str]:
    """The text KeY reads for ``source``, and why KeY cannot verify it ("" when it can try).

    Unicode escapes are translated (KeY reads exactly the characters the cheating check
    compared); with ``library`` (and ``tools``, the JavaParser helper), what javac does
    implicitly is written out for KeY's pre-generics front end (erasure, the casts it implies,
    boxing and unboxing: ``javatools/java/KeySource.java``), which may find a construct KeY
    cannot read; every type is nullable by default (:mod:`speckernel_jml.nullness`). Every
    rewrite keeps the file's lines. Raises ``JavaToolsError`` when the helper fails."""
    text = translate_unicode(source).text
    if library and tools is not None:
        answer = tools.request("keysource", class_name, text)
        if answer["unsupported"]:
            return text, str(answer["unsupported"])
        text = str(answer["source"])
    return nullable_by_default(text), ""


KEY_SORT_NAMES = frozenset({"Field", "Free", "Heap", "LocSet", "Map", "Null", "Pair",
                            "Permission", "PermissionOwnerList", "RegEx", "SORT", "Seq", "any",
                            "fp", "numbers", "real"})
"""Sorts of KeY 2.12.3's logic whose names are legal Java type names (read from the sort
namespace of a loaded problem). A Java type of the same name clashes with the sort: every
contract of its class fails to build (``TermCreationException``), whatever the spec says."""


def sort_clashes(source: str) -> dict[str, str]:
    """A fresh name for each type ``source`` declares under a KeY sort's name."""
    taken = {t.text for t in tokenize(source) if t.kind == "word"}
    renames: dict[str, str] = {}
    for name in declared_types(source):
        if name in KEY_SORT_NAMES and name not in renames:
            fresh = f"{name}_"
            while fresh in taken:
                fresh += "_"
            renames[name] = fresh
            taken.add(fresh)
    return renames


def renamed_back(outcome: Outcome, renames: Mapping[str, str]) -> Outcome:
    """``outcome`` with the names KeY saw (see :func:`sort_clashes`) replaced by the user's."""
    back = {fresh: name for name, fresh in renames.items()}
    words = re.compile(r"\b(" + "|".join(map(re.escape, back)) + r")\b")

    def restore(value: Any) -> Any:
        if isinstance(value, str):
            return words.sub(lambda m: back[m.group()], value)
        if isinstance(value, list | tuple):
            return type(value)(map(restore, value))
        if isinstance(value, dict):
            return {k: restore(v) for k, v in value.items()}
        return value

    return attrs.evolve(outcome, diagnostics=tuple(
        attrs.evolve(d, message=restore(d.message)) for d in outcome.diagnostics),
        data=restore(outcome.data))


def key_outcome(report: KeyReport, file_name: str, max_steps: int, source: str = "") -> Outcome:
    """The verdict a KeyCheck report stands for (see :class:`KeyBackend`); ``source`` is the
    text KeY verified, for the clauses failure messages quote."""
    contracts = [attrs.asdict(c) for c in report.contracts]
    data: dict[str, Any] = {"backend": "key", "contracts": contracts,
                            "seconds": round(report.seconds, 3)}
    if report.load_error is not None:
        category = classify_key_error(report.load_error)
        return Outcome(Status.FAILURE, (Diagnostic(f"KeY cannot load the file: "
                                                   f"{report.load_error}", file=file_name,
                                                   code=category),), data)
    diagnostics: list[Diagnostic] = []
    exhausted = False
    vacuous = _vacuous_targets(report)
    for contract in report.contracts:
        if contract.status == "error":
            message = "; ".join(contract.reasons) or "proof setup failed"
            diagnostics.append(Diagnostic(f"{contract.target}: {message}", file=file_name,
                                          code=classify_key_error(message)))
        elif contract.status == "open":
            exhausted |= contract.nodes >= max_steps
            diagnostics += goal_diagnostics(contract, file_name, source.splitlines())
    if report.timed_out:
        return Outcome(Status.TIMEOUT, (*diagnostics, Diagnostic("KeY timed out")), data)
    if not report.contracts:
        return Outcome(Status.FAILURE, (Diagnostic(
            "no JML contract found (KeY saw no method specification)", file=file_name,
            code=Category.MISSING_SPECIFICATION),), data)
    if not diagnostics and vacuous:
        return Outcome(Status.FAILURE, tuple(
            Diagnostic(f"{target}: the specification is vacuous: {reason}", file=file_name,
                       code=Category.VACUOUS) for target, reason in vacuous.items()), data)
    if not diagnostics:
        return Outcome(Status.SUCCESS, (), data)
    if exhausted:
        return Outcome(Status.UNKNOWN, (*diagnostics, Diagnostic(
            f"KeY's step budget ({max_steps}) ran out with goals open", severity="info")), data)
    return Outcome(Status.FAILURE, tuple(diagnostics), data)


def _vacuous_targets(report: KeyReport) -> dict[str, str]:
    """The methods all of whose contracts KeY proved vacuously, with the first reason."""
    by_target: dict[str, list[str]] = {}
    for contract in report.contracts:
        by_target.setdefault(contract.target, []).append(contract.vacuous)
    return {target: reasons[0] for target, reasons in by_target.items() if all(reasons)}


class OpenJmlBackend(Backend):
    """FormalBench's OpenJML command in the sandbox (when OpenJML is provided).

    Upstream's reading: n_errors from the summary counts is 0 for success and positive for
    failure (an internal bug, -5, is a failure too); a timeout is unknown.
    """

    name = "openjml"

    async def check(self, file_name: str, source: str, ctx: VerifyContext,
                    inputs: str | None = None) -> Outcome:
        argv = openjml.command(file_name, ctx.options)
        if argv is None:
            return Outcome(Status.ERROR, (Diagnostic(
                "OpenJML is not installed (it is not on the registries this project installs "
                f"from): set option openjml or ${openjml.ENV} to its binary, or option "
                "openjml_docker to an image"),), tool="openjml")
        timeout = float(ctx.options.get("timeout_s", 300.0))
        result = await ctx.run(argv, files={file_name: source},
                               limits=attrs.evolve(ctx.limits, wall_s=timeout))
        return openjml_outcome(result.output, result.timed_out, file_name)


def openjml_outcome(output: str, timed_out: bool, file_name: str) -> Outcome:
    """The verdict for one OpenJML run's output (see :class:`OpenJmlBackend`)."""
    if timed_out:
        return Outcome(Status.TIMEOUT, (Diagnostic("OpenJML timed out"),),
                       {"backend": "openjml", "n_errors": -1}, tool="openjml")
    n_errors = openjml.count_errors(output)
    messages = openjml.parse_messages(output)
    diagnostics = tuple(
        Diagnostic(m.text + (f"\n{m.detail}" if m.detail else ""), file=m.file, line=m.line,
                   code=m.category) for m in messages)
    data = {"backend": "openjml", "n_errors": n_errors, "output": output[-20000:]}
    if n_errors == 0:
        return Outcome(Status.SUCCESS, (), data, tool="openjml")
    if not diagnostics:
        diagnostics = (Diagnostic(
            openjml.INTERNAL_BUG if n_errors == -5 else "OpenJML reported errors",
            file=file_name, code=Category.OTHER),)
    return Outcome(Status.FAILURE, diagnostics, data, tool="openjml")


BACKENDS: dict[str, Backend] = {backend.name: backend for backend in (KeyBackend(),
                                                                      OpenJmlBackend())}


def backend_named(name: str) -> Backend:
    """The backend option's value as a backend; unknown names are a ``KeyError`` with help."""
    try:
        return BACKENDS[name]
    except KeyError:
        raise KeyError(f"unknown backend '{name}'; known: {', '.join(BACKENDS)}") from None


def backend_tools(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The toolchains the ``backend`` option's prover needs (none for an unknown name: the
    benchmark refuses that option before any verifier runs)."""
    backend = BACKENDS.get(str(options.get("backend", "key")))
    return backend.tools if backend is not None else ()


def program_file(task: Task) -> str:
    """The name of the Java file a candidate must contain (``<Class>.java``)."""
    return str(task.metadata.get("file") or f"{task.metadata['class_name']}.java")


def cheating_reason(original: str, candidate: str) -> tuple[Category, str] | None:
    """Why ``candidate`` is not ``original`` plus JML, or None when it is.

    The code must be unchanged token for token, read as javac reads it; a candidate with no
    JML annotation comment specifies nothing (prose, Javadoc or ordinary comments are not JML);
    JML that assumes what it should prove is vacuous."""
    if not candidate.strip():
        return Category.MISSING_SPECIFICATION, "the answer is empty"
    if has_unicode_escape(translate_unicode(candidate).text):
        return Category.CODE_CHANGED, ("a Unicode escape produces another escape (\\u005c "
                                       "followed by u and hex digits); javac and KeY may read "
                                       "it differently")
    difference = first_difference(original, candidate)
    if difference is not None:
        exits = sum(t.text == "exit" for t in code_tokens(candidate)) > sum(
            t.text == "exit" for t in code_tokens(original))
        extra = " (it adds a System.exit call)" if exits else ""
        return Category.CODE_CHANGED, ("the Java code differs from the task's program"
                                       f"{extra}: {difference.describe()}")
    if not jml_comments(candidate):
        javadoc = any(t.text.startswith("/**") for t in tokenize(candidate))
        hint = "; Javadoc is not JML" if javadoc else ""
        return Category.MISSING_SPECIFICATION, f"no JML annotation (//@ or /*@ ... @*/){hint}"
    vacuous = vacuity_reason(candidate)
    if vacuous is not None:
        return Category.VACUOUS, f"the specification assumes what it should prove: {vacuous}"
    return None


async def check_file(task: Task, files: Mapping[str, str], ctx: VerifyContext) -> Outcome:
    """The cheating check and then the configured backend, on a candidate's files."""
    name = program_file(task)
    source = files.get(name)
    if source is None:
        found = ", ".join(sorted(files)) or "no files"
        return Outcome(Status.FAILURE, (Diagnostic(
            f"expected {name} in the answer; found {found}",
            code=Category.MISSING_SPECIFICATION),))
    cheat = cheating_reason(task.files[name], source)
    if cheat is not None:
        category, reason = cheat
        return Outcome(Status.FAILURE, (Diagnostic(reason, file=name, code=category),),
                       {"reason": reason})
    backend = backend_named(str(ctx.options.get("backend", "key")))
    return await backend.check(name, source, ctx, task_inputs(task))


def task_inputs(task: Task) -> str:
    """The task's test inputs as the KeY driver reads them (empty when it has none)."""
    return input_lines(task.files[program_file(task)], task_calls(task.metadata))


def to_verdict(verifier: str, outcome: Outcome, started: float) -> Verdict:
    data = {**outcome.data, "categories": outcome.categories}
    return Verdict(verifier, outcome.status, outcome.diagnostics, tool=outcome.tool,
                   tool_version=outcome.tool_version, duration_s=time.monotonic() - started,
                   data=data)


class JmlVerifier(Verifier):
    """Consistency: the cheating check, then KeY (default) or OpenJML (option ``backend``)."""

    name = VERIFY
    version = "3"
    description = "JML-annotated Java: unchanged code, then KeY or OpenJML"
    tools = (KeyToolchain.name, JavaParserToolchain.name)
    limits = Limits(wall_s=600.0, memory_mb=4096)

    def tools_for(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        return backend_tools(options)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        return to_verdict(self.name, await check_file(task, candidate.files, ctx), started)
