"""The plugin's hook implementations (entry point ``rocq_ids`` in group ``speckernel``)."""

from __future__ import annotations

from collections.abc import Callable

from speckernel import hookimpl
from speckernel.components import Agent, Benchmark, Harness, Scorer, Toolchain, Verifier


@hookimpl
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    from speckernel_rocq_ids.storebuild import OcamlToolchain
    from speckernel_rocq_ids.toolchain import CoqIdsToolchain

    register(CoqIdsToolchain())
    register(OcamlToolchain())


@hookimpl
def register_benchmarks(register: Callable[[Benchmark], None]) -> None:
    from speckernel_rocq_ids.benchmark import IdsBenchmark

    register(IdsBenchmark())


@hookimpl
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    from speckernel_rocq_ids.audit import AuditVerifier
    from speckernel_rocq_ids.extraction import ExtractionVerifier
    from speckernel_rocq_ids.verifiers import CoqcVerifier

    register(CoqcVerifier())
    register(AuditVerifier())
    register(ExtractionVerifier())


@hookimpl
def register_scorers(register: Callable[[Scorer], None]) -> None:
    from speckernel_rocq_ids.scoring import PassScorer

    register(PassScorer())


@hookimpl
def register_harnesses(register: Callable[[Harness], None]) -> None:
    from speckernel_rocq_ids.cluster import ClusterHarness

    register(ClusterHarness())


@hookimpl
def register_agents(register: Callable[[Agent], None]) -> None:
    from speckernel_rocq_ids.coordinator import DeductiveAgent, IdsAgent

    register(IdsAgent())
    register(DeductiveAgent())
