"""Completeness by mutation (FormalBench ``metrics/completeness.py``, notes §A4).

For a verified spec, the Java code of the annotated file is mutated with the JML kept
(:mod:`speckernel_jml.mutants`, Major's operators on JavaParser, uncompilable and trivially
equivalent mutants dropped) and every mutant is verified with the same backend. A mutant is
detected when it does not verify — a failure, an unknown or a timeout all count, as upstream's
``n_errors != 0`` does — and CR = detected / mutants, 1.0 when there are no mutants. Option
``max_mutants`` caps the work per spec with an evenly spaced, deterministic subset.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import anyio.to_thread
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_jml.javatools.toolchain import JavaParserToolchain
from speckernel_jml.toolchain import KeyToolchain
from speckernel_jml.verifiers import backend_named, backend_tools, program_file

COMPLETENESS = "jml.completeness"
T = TypeVar("T")


def evenly_spaced(items: Sequence[T], limit: int) -> list[T]:
    """At most ``limit`` of ``items``, spread over the whole sequence, in order."""
    if limit <= 0 or len(items) <= limit:
        return list(items)
    return [items[(index * len(items)) // limit] for index in range(limit)]


def coverage(detected: int, total: int) -> float:
    """CR = detected / total, and 1.0 with no mutants (FormalBench's convention)."""
    return detected / total if total else 1.0


class CompletenessVerifier(Verifier):
    """Verifies the mutants of a verified spec; ``data["completeness"]`` is its CR."""

    name = COMPLETENESS
    version = "2"
    description = "mutants of the annotated program (JML kept), each verified; CR = detected/all"
    tools = (KeyToolchain.name, JavaParserToolchain.name)
    limits = Limits(wall_s=3600.0, memory_mb=4096)

    def tools_for(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """JavaParser makes the mutants; the backend's prover checks them."""
        return (JavaParserToolchain.name, *backend_tools(options))

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        from speckernel_jml.javatools import JavaToolsError, shared_tools
        from speckernel_jml.mutants import OPERATORS, analyse

        started = time.monotonic()
        name = program_file(task)
        source = candidate.files.get(name, "")
        class_name = str(task.metadata["class_name"])
        try:
            analysis = await anyio.to_thread.run_sync(analyse, source, class_name, OPERATORS,
                                                      shared_tools(ctx.sandbox))
        except JavaToolsError as exc:
            return Verdict(self.name, Status.ERROR, (Diagnostic(f"mutation failed: {exc}"),),
                           duration_s=time.monotonic() - started)
        chosen = evenly_spaced(analysis.mutants, int(ctx.options.get("max_mutants", 0)))
        backend = backend_named(str(ctx.options.get("backend", "key")))
        results: list[dict[str, object]] = []
        for mutant in chosen:
            outcome = await backend.check(name, mutant.source, ctx)
            if outcome.status is Status.ERROR:
                return Verdict(self.name, Status.ERROR, outcome.diagnostics,
                               duration_s=time.monotonic() - started)
            results.append({"id": mutant.id, "operator": mutant.operator, "line": mutant.line,
                            "description": mutant.description, "status": outcome.status.value,
                            "detected": outcome.status is not Status.SUCCESS})
        detected = sum(bool(r["detected"]) for r in results)
        survivors = [Diagnostic(f"mutant {r['id']} ({r['operator']}, line {r['line']}: "
                                f"{r['description']}) still verifies", severity="info")
                     for r in results if not r["detected"]]
        return Verdict(
            self.name, Status.SUCCESS, tuple(survivors), tool=backend.name,
            duration_s=time.monotonic() - started,
            data={"completeness": coverage(detected, len(results)), "mutants": len(results),
                  "detected": detected, "generated": analysis.generated,
                  "uncompilable": analysis.uncompilable, "equivalent": analysis.equivalent,
                  "duplicate": analysis.duplicate, "results": results})
