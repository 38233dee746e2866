"""The plugin's hook implementations (entry point ``jml`` in group ``speckernel``)."""

from __future__ import annotations

from collections.abc import Callable

from speckernel import hookimpl
from speckernel.components import Agent, Benchmark, Scorer, Toolchain, Verifier


@hookimpl
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    from speckernel_jml.javatools import JavaParserToolchain
    from speckernel_jml.toolchain import KeyToolchain

    register(KeyToolchain())
    register(JavaParserToolchain())


@hookimpl
def register_benchmarks(register: Callable[[Benchmark], None]) -> None:
    from speckernel_jml.benchmark import JmlBenchmark

    register(JmlBenchmark())


@hookimpl
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    from speckernel_jml.completeness import CompletenessVerifier
    from speckernel_jml.verifiers import JmlVerifier

    register(JmlVerifier())
    register(CompletenessVerifier())


@hookimpl
def register_scorers(register: Callable[[Scorer], None]) -> None:
    from speckernel_jml.scoring import SCORERS

    for scorer in SCORERS:
        register(scorer())


@hookimpl
def register_agents(register: Callable[[Agent], None]) -> None:
    from speckernel_jml.agents import JmlPromptAgent, JmlRepairAgent

    register(JmlPromptAgent())
    register(JmlRepairAgent())
