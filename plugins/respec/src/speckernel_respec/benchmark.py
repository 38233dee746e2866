"""Benchmark ``respec``: RESpecBench on speckernel.

A task of any domain is checked by that domain's verifier. The kernel's ``Phase`` names its
verifiers statically while the domain is a property of each task, so the benchmark has one phase
with one verifier, ``respec.check``, which reads ``task.metadata["domain"]`` and delegates to the
registered ``respec.<domain>`` instance. This keeps the kernel's contract as it is: one verdict
per sample (the domain verifier's own, so reports name the domain's verifier), and the verdict
cache key still changes when any domain verifier's ``version`` or toolchain does, because
``respec.check`` is built with the versions and tools of the domains it holds (``dispatcher``).
The alternative, one gate-free phase per domain whose verifiers skip foreign tasks, would record
four meaningless verdicts per sample and make every domain verifier aware of the others.

Options: ``domains`` (a list; default every domain whose module is installed), ``timeout_s``
(per check, default 4 s; every domain verifier reads it), ``team`` (the team's tasks, default
true), the upstream paths ``folio``, ``deepregex``, ``gsm_symbolic``, ``sql_pairs``,
``polygon_leetcode``,
``clever_rocq`` (see ``speckernel_respec.tasks``) and ``per_domain`` (at most this many tasks
per domain).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
from speckernel.components import Benchmark, Phase, Table, Verifier, VerifyContext
from speckernel.errors import KernelError
from speckernel.model import Candidate, Diagnostic, Sample, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_respec.domains import DOMAINS, Loaded
from speckernel_respec.report import domain_table
from speckernel_respec.scoring import SCORE
from speckernel_respec.tasks import BENCHMARK, UPSTREAM, load_tasks

CHECK = "respec.check"


class CheckVerifier(Verifier):
    """Delegates to the verifier of the task's domain (``respec.<domain>``)."""

    name = CHECK
    description = "the verifier of the task's domain (RESpecBench)"

    def __init__(self, domains: Mapping[str, Verifier]) -> None:
        self.domains = dict(domains)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        domain = str(task.metadata.get("domain"))
        verifier = self.domains.get(domain)
        if verifier is None:
            return Verdict(self.name, Status.ERROR,
                           (Diagnostic(f"no verifier for domain '{domain}' is installed"),))
        return await verifier.verify(candidate, task, ctx)


def _widest(limits: Iterable[Limits]) -> Limits:
    """The per-field maximum of the domains' limits (``None``, no limit, wins)."""
    found = list(limits) or [Limits()]

    def most(values: list[Any]) -> Any:
        return None if None in values else max(values)

    return Limits(**{f.name: most([getattr(lim, f.name) for lim in found])
                     for f in attrs.fields(Limits)})


def dispatcher(domains: Mapping[str, Verifier]) -> CheckVerifier:
    """A ``respec.check`` whose version, tools and limits cover the domains it delegates to."""
    held = sorted(domains.items())
    attributes = {
        "version": "1;" + ";".join(f"{d}={v.version}" for d, v in held),
        "tools": tuple(sorted({t for _, v in held for t in v.tools})),
        "limits": _widest(v.limits for _, v in held),
    }
    cls = type("RespecCheck", (CheckVerifier,), attributes)
    check: CheckVerifier = cls(domains)
    return check


class RespecBenchmark(Benchmark):
    """RESpecBench: natural language to formal specifications in five domains."""

    name = BENCHMARK
    version = "1"
    description = "RESpecBench: NL to formal specs (gsm, fol, regex, sql, rocq), sound verifiers"
    phases = (Phase("equivalence", (CHECK,)),)
    scorers = (SCORE,)
    options = {"domains": None, "timeout_s": 4.0, "team": True,
               **dict.fromkeys(UPSTREAM), "per_domain": None, "rocq_atp_limit_s": None}
    option_descriptions = {
        "domains": "domains to run, a list of gsm, fol, regex, sql, rocq (default: every domain "
                   "whose verifier is installed)",
        "timeout_s": "seconds each domain verifier may spend on one check; undecided by then "
                     "the sample is unknown",
        "team": "include the team's tasks shipped with the plugin (false: only the upstream "
                "sources given)",
        "folio": "FOLIO jsonl file (any split) or a directory of them: adds fol tasks, one per "
                 "distinct sentence and formula",
        "deepregex": "NL-RX-Turk/KB13 directory with src.txt and targ.txt (or a directory of "
                     "them): adds regex tasks",
        "gsm_symbolic": "GSM-Symbolic generated_data jsonl file or directory: adds "
                        "variable-free gsm tasks whose oracle is the final number",
        "sql_pairs": "JSON list or jsonl of name, nl, schema, oracle (constraints, dialect "
                     "optional): adds sql tasks",
        "polygon_leetcode": "Polygon's benchmarks/leetcode directory (schemas/, constraints/, "
                            "groundtruths/): adds a MySQL sql task per problem",
        "clever_rocq": "JSON list or jsonl of Clever problems restated in Gallina (name, nl, "
                       "preamble, definition, type, oracle): adds rocq tasks",
        "per_domain": "at most this many tasks per domain, the team's first (default: all)",
        "rocq_atp_limit_s": "seconds CoqHammer's provers get per call (default: the task's "
                            "atp_limit_s, else scaled to the prover stage's share of "
                            "option timeout_s)",
    }
    default_agent = "reference"
    primary_metric = "success"

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded

    def domains(self, options: Mapping[str, Any]) -> list[str]:
        """The domains a run covers: those asked for, each of which must be installed."""
        asked = options.get("domains")
        if asked is None:
            return [d for d in DOMAINS if d in self.loaded.verifiers]
        names = [asked] if isinstance(asked, str) else list(asked)
        for domain in names:
            if domain not in DOMAINS:
                raise KernelError(f"option domains: unknown domain '{domain}' "
                                  f"(known: {', '.join(DOMAINS)})")
            if domain not in self.loaded.verifiers:
                raise KernelError(f"option domains: domain '{domain}' is not available: "
                                  f"{self.loaded.missing.get(domain, 'not installed')}")
        return names

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        timeout = options.get("timeout_s")
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            raise KernelError(f"option timeout_s: expected a positive number, got {timeout!r}")
        return load_tasks(options, self.domains(options))

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        return [domain_table(samples)]
