"""The plugin's hook implementations (entry point ``verus`` in group ``speckernel``)."""

from __future__ import annotations

from collections.abc import Callable

from speckernel import hookimpl
from speckernel.components import Agent, Benchmark, Scorer, Toolchain, Verifier


@hookimpl
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    from speckernel_verus.toolchain import (
        CheatCheckToolchain,
        VerusfmtToolchain,
        VerusToolchain,
    )

    register(VerusToolchain())
    register(CheatCheckToolchain())
    register(VerusfmtToolchain())


@hookimpl
def register_benchmarks(register: Callable[[Benchmark], None]) -> None:
    from speckernel_verus.benchmark import VerusBenchmark

    register(VerusBenchmark())


@hookimpl
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    from speckernel_verus.cheats import CheatVerifier
    from speckernel_verus.verifier import VerusVerifier

    register(VerusVerifier())
    register(CheatVerifier())


@hookimpl
def register_scorers(register: Callable[[Scorer], None]) -> None:
    from speckernel_verus.scoring import SCORERS

    for scorer in SCORERS:
        register(scorer())


@hookimpl
def register_agents(register: Callable[[Agent], None]) -> None:
    from speckernel_verus.handsoff import HandsOffAgent
    from speckernel_verus.handson import HandsOnAgent

    register(HandsOffAgent())
    register(HandsOnAgent())
