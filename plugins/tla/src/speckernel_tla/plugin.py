"""The plugin's hook implementations (entry point ``tla`` in group ``speckernel``)."""

from __future__ import annotations

from collections.abc import Callable

from speckernel import hookimpl
from speckernel.components import Agent, Benchmark, Scorer, Toolchain, Verifier


@hookimpl
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    from speckernel_tla.toolchain import Tla2ToolsToolchain

    register(Tla2ToolsToolchain())


@hookimpl
def register_benchmarks(register: Callable[[Benchmark], None]) -> None:
    from speckernel_tla.benchmark import TlaBenchmark

    register(TlaBenchmark())


@hookimpl
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    from speckernel_tla.conformance import ConformanceVerifier
    from speckernel_tla.invariants import InvariantVerifier
    from speckernel_tla.runtime import RuntimeVerifier
    from speckernel_tla.verifiers import SanyVerifier

    register(SanyVerifier())
    register(RuntimeVerifier())
    register(ConformanceVerifier())
    register(InvariantVerifier())


@hookimpl
def register_scorers(register: Callable[[Scorer], None]) -> None:
    from speckernel_tla.scoring import SCORERS

    for scorer in SCORERS:
        register(scorer())


@hookimpl
def register_agents(register: Callable[[Agent], None]) -> None:
    from speckernel_tla.agents import BasicAgent, TraceAgent, TranslateAgent

    register(BasicAgent())
    register(TranslateAgent())
    register(TraceAgent())
