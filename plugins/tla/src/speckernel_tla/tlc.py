"""Running TLC in the sandbox within a budget, and reading what it found.

SysMoBench runs TLC with ``-deadlock`` and a 30-60 s timeout, counts a timeout without a
violation as a pass, and reads partial output (notes §2). Runs here are the same, plus: a fresh
``-metadir`` per call (two TLC runs in one directory collide, notes §7), ``-tool`` output parsed by
:mod:`speckernel_tla.tlc_output`, and optional depth and state budgets for breadth-first search,
which TLC has no flags for: a wrapper module adds ``TLCGet("level")``/``TLCGet("distinct")`` as a
state constraint (both work on TLC 2.15 and 2.18). TLC starts through ``TlcMain``
(``java/TlcMain.java``), which runs ``tlc2.TLC`` as it is but spares breadth-first runs 0.3 s of
idle waiting at exit.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Literal

import attrs
from speckernel.model import Files
from speckernel.sandbox.base import Limits, ProcessResult, Sandbox

from speckernel_tla.jvm import JVM_ENV, driver_classpath, java_argv
from speckernel_tla.stdlib import with_bundled_modules
from speckernel_tla.tlc_output import Outcome, TlcResult, parse_tlc_output
from speckernel_tla.toolchain import TLC_MAIN

BUDGET_PREFIX = "SpeckernelBudget"


@attrs.frozen
class TlcOptions:
    """How to run TLC.

    ``simulate`` switches to random simulation of that many behaviours (``-simulate num=N``),
    where ``depth`` is TLC's own ``-depth``; in breadth-first search ``depth`` and ``max_states``
    bound the search through a state constraint, which spares the states satisfying ``exempt``
    (a state predicate the module defines, for a part of the search that is bounded otherwise).
    ``check_deadlock`` false passes ``-deadlock``
    (which *disables* the check), as SysMoBench always does. ``search``: an exhaustive search
    that may run long, for which the JVM gets its optimising compiler
    (:func:`speckernel_tla.jvm.java_argv`).
    """

    check_deadlock: bool = False
    workers: int | Literal["auto"] = 1
    simulate: int | None = None
    depth: int | None = None
    max_states: int | None = None
    seed: int | None = None
    coverage_minutes: int | None = 1
    exempt: str | None = None
    search: bool = False


@attrs.frozen
class TlcRun:
    """A TLC run: the parsed result, whether a depth/state budget cut the search short, and the
    process record (argv, raw output, duration) for diagnostics."""

    result: TlcResult
    truncated: bool
    process: ProcessResult


def budget_module(module: str, depth: int | None, max_states: int | None,
                  exempt: str | None = None) -> tuple[str, str]:
    """A module extending ``module`` with a constraint that stops expanding states past the
    budget, states satisfying ``exempt`` aside: (module name, text)."""
    name = f"{BUDGET_PREFIX}_{module}"
    bounds = [f'TLCGet("level") < {depth}'] if depth else []
    bounds += [f'TLCGet("distinct") < {max_states}'] if max_states else []
    constraint = " /\\ ".join(bounds)
    if exempt:
        constraint = f"{exempt} \\/ ({constraint})"
    text = (f"---- MODULE {name} ----\nEXTENDS {module}, TLC\n"
            f"{BUDGET_PREFIX}Constraint == {constraint}\n====\n")
    return name, text


def tlc_arguments(module: str, config: str, options: TlcOptions, metadir: str) -> list[str]:
    """TLC's command-line arguments (after the main class) for one run."""
    args = ["-tool", "-metadir", metadir, "-workers", str(options.workers), "-config", config]
    if not options.check_deadlock:
        args.append("-deadlock")
    if options.coverage_minutes:
        args += ["-coverage", str(options.coverage_minutes)]
    if options.simulate is not None:
        args += ["-simulate", f"num={options.simulate}"]
        if options.depth:
            args += ["-depth", str(options.depth)]
    if options.seed is not None:
        args += ["-seed", str(options.seed)]
    return [*args, f"{module}.tla"]


async def run_tlc(
    sandbox: Sandbox,
    jar: Path,
    files: Files,
    module: str,
    config: str,
    options: TlcOptions,
    limits: Limits,
) -> TlcRun:
    """Model-check ``module`` (``<module>.tla`` in ``files``) against the cfg file ``config``.

    The bundled community modules are added to ``files``; a timeout is a result (outcome
    ``timeout`` with TLC's last counts), never an exception.
    """
    files = dict(with_bundled_modules(files))
    target = module
    bounded = options.simulate is None and bool(options.depth or options.max_states)
    if bounded:
        target, files[f"{target}.tla"] = budget_module(module, options.depth, options.max_states,
                                                             options.exempt)
        cfg_name = f"{target}.cfg"
        files[cfg_name] = f"{files.get(config, '')}\nCONSTRAINT {BUDGET_PREFIX}Constraint\n"
        config = cfg_name
    metadir = f"states/{uuid.uuid4().hex}"
    argv = java_argv([jar, driver_classpath(jar)], TLC_MAIN,
                     tlc_arguments(target, config, options, metadir),
                     limits.memory_mb, search=options.search)
    process = await sandbox.run(argv, files=files, limits=limits, env=JVM_ENV, read_only=[jar])
    result = parse_tlc_output(process.output, timed_out=process.timed_out)
    if process.truncated and result.outcome is Outcome.CRASH:
        # cut off at the sandbox's output cap, TLC's end is not in the output: what it printed
        # so far (a trace module's facts) is incomplete, not TLC's last word
        result = attrs.evolve(result, outcome=Outcome.RESOURCE_LIMIT, message=(
            f"TLC printed more than the {limits.output_bytes:,} bytes of output kept"))
    truncated = bounded and result.complete and (
        bool(options.max_states and (result.distinct or 0) >= options.max_states)
        or bool(options.depth and (result.depth or 0) >= options.depth))
    return TlcRun(result, truncated, process)
