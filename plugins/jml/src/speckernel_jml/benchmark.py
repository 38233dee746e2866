"""The ``jml`` benchmark: FormalBench's JML specification inference, checked by KeY.

Options: ``tasks_from`` (``bundled``, ``formalbench`` or ``all``), ``formalbench_path`` (a copy
of FormalBench's published data), ``categories`` (keep only these control-flow categories),
``variants`` (``none``; ``transforms``: every task with a test program, plus its checked
variants by the team's transformations; ``diverse``: FormalBench's published natural variants),
``rules`` (transformation rules to use, default all), ``backend`` (``key`` or ``openjml``),
``timeout_s`` and ``key_max_steps`` (the verifier's budgets), ``completeness`` and
``max_mutants`` (mutation analysis of verified specs), ``openjml`` / ``openjml_docker``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from speckernel.components import Benchmark, Phase, Table
from speckernel.errors import KernelError
from speckernel.model import Sample, Task

from speckernel_jml.bundled import (
    BENCHMARK,
    CATEGORIES,
    CATEGORY_ALIASES,
    canonical_category,
    load_bundled,
    transformed_variants,
)
from speckernel_jml.completeness import COMPLETENESS
from speckernel_jml.formalbench import load_base, load_diverse
from speckernel_jml.report import report_tables
from speckernel_jml.scoring import SCORERS
from speckernel_jml.verifiers import BACKENDS, VERIFY

TASK_SOURCES = ("bundled", "formalbench", "all")
VARIANT_SOURCES = ("none", "transforms", "diverse")


class JmlBenchmark(Benchmark):
    """FormalBench: write JML for a Java method; consistency, completeness, robustness."""

    name = BENCHMARK
    version = "2"
    description = "FormalBench: JML specs for Java methods, verified by KeY (or OpenJML)"
    phases = (Phase("consistency", (VERIFY,)), Phase("completeness", (COMPLETENESS,)))
    scorers = tuple(scorer.name for scorer in SCORERS)
    options = {
        "tasks_from": "bundled",
        "formalbench_path": None,
        "categories": [],
        "variants": "none",
        "rules": [],
        "backend": "key",
        "timeout_s": 300.0,
        "key_max_steps": 20000,
        "completeness": True,
        "max_mutants": 8,
        "openjml": None,
        "openjml_docker": None,
    }
    option_descriptions = {
        "tasks_from": "which tasks: bundled (shipped with the plugin), formalbench (from option "
                      "formalbench_path) or all",
        "formalbench_path": "directory of FormalBench's data (base/meta_data.jsonl, diverse/); "
                            "needed by tasks_from=formalbench or all and by variants=diverse",
        "categories": "keep only these control-flow categories: sequential, branch, "
                      "single_path_loop, multi_path_loop, nested (empty: all)",
        "variants": "none; transforms: add checked rewrites of each task with a test program; "
                    "diverse: add FormalBench's natural variants",
        "rules": "the transformation rules variants=transforms applies, e.g. for-to-while "
                 "(empty: all 20, listed in the README)",
        "backend": "the verifier: key (KeY 2.12.3) or openjml (set option openjml or "
                   "openjml_docker)",
        "timeout_s": "seconds one check of a file may take (KeY: half of it per contract, at "
                     "most the verifier's wall limit); past it the spec is unknown",
        "key_max_steps": "KeY's rule applications per contract's proof; a proof still open "
                         "then leaves the spec unknown",
        "completeness": "run the mutation analysis (completeness phase) on verified specs; "
                        "false: consistency only",
        "max_mutants": "mutants verified per spec at most, evenly spaced over all of them "
                       "(0: every mutant)",
        "openjml": "the OpenJML executable for backend=openjml (default: $OPENJML, else "
                   "openjml on PATH)",
        "openjml_docker": "a Docker image with OpenJML for backend=openjml, run without network "
                          "(takes precedence over option openjml)",
    }
    default_agent = "reference"
    primary_metric = "success"

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        source = _choice(options, "tasks_from", TASK_SOURCES)
        variants = _choice(options, "variants", VARIANT_SOURCES)
        _choice(options, "backend", tuple(BACKENDS))
        asked = [str(name) for name in options.get("categories") or ()]
        unknown = [name for name in asked if canonical_category(name) is None]
        if unknown:
            aliases = ", ".join(f"{a}={c}" for a, c in CATEGORY_ALIASES.items())
            raise KernelError(f"option categories: unknown {sorted(unknown)}; known: "
                              f"{', '.join(CATEGORIES)} (aliases {aliases})")
        wanted = {canonical_category(name) for name in asked}
        base: list[Task] = []
        if source in ("bundled", "all"):
            base += load_bundled()
        root = None
        if source in ("formalbench", "all") or variants == "diverse":
            root = _formalbench_root(options)
            if source in ("formalbench", "all"):
                base += load_base(root)
        if wanted:
            base = [t for t in base
                    if canonical_category(str(t.metadata.get("category"))) in wanted]
        yield from base
        if variants == "transforms":
            rules = list(options.get("rules") or ()) or None
            for task in base:
                if task.metadata.get("test_source"):
                    yield from transformed_variants(task, rules)
        elif variants == "diverse" and root is not None:
            yield from load_diverse(root, {t.id: t for t in _all_formalbench(root, base)})

    def pipeline(self, options: Mapping[str, Any]) -> tuple[Phase, ...]:
        """Mutation analysis only when option ``completeness`` is on."""
        return self.phases if options.get("completeness", True) else self.phases[:1]

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        return report_tables(samples)


def _choice(options: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    value = str(options.get(key, allowed[0]))
    if value not in allowed:
        raise KernelError(f"option {key}: '{value}' is not one of {', '.join(allowed)}")
    return value


def _formalbench_root(options: Mapping[str, Any]) -> Path:
    path = options.get("formalbench_path")
    if not path:
        raise KernelError("option formalbench_path: give the directory holding FormalBench's "
                          "base/ and diverse/ data")
    root = Path(str(path)).expanduser()
    if not root.is_dir():
        raise KernelError(f"option formalbench_path: no directory {root}")
    return root


def _all_formalbench(root: Path, base: list[Task]) -> Iterator[Task]:
    """The base tasks the diverse variants hang off (loaded even when only bundled tasks run,
    so that ``variants=diverse`` alone still finds each variant's description)."""
    if any(t.metadata.get("source") == "formalbench" for t in base):
        yield from (t for t in base if t.metadata.get("source") == "formalbench")
    else:
        yield from load_base(root)
