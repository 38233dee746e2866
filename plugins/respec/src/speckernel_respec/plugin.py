"""The plugin's hook implementations (entry point ``respec`` in group ``speckernel``).

The domain modules are imported once, on the first hook that needs them, one by one: a domain
whose module fails to import (a missing optional dependency) is left out with its reason, which
``respec`` reports when that domain is asked for, and the other domains work. Toolchain classes
that a domain module defines are registered with it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from speckernel import hookimpl
from speckernel.components import Agent, Benchmark, Scorer, Toolchain, Verifier

from speckernel_respec import domains


@functools.cache
def loaded() -> domains.Loaded:
    """The domain verifiers of this process (one instance each, shared by ``respec.check``)."""
    return domains.load()


@hookimpl
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    for toolchain in loaded().toolchains:
        register(toolchain)


@hookimpl
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    from speckernel_respec.benchmark import dispatcher
    from speckernel_respec.judge import JudgeVerifier

    for verifier in loaded().verifiers.values():
        register(verifier)
    register(dispatcher(loaded().verifiers))
    register(JudgeVerifier())


@hookimpl
def register_benchmarks(register: Callable[[Benchmark], None]) -> None:
    from speckernel_respec.benchmark import RespecBenchmark
    from speckernel_respec.judge import JudgeBenchmark

    register(RespecBenchmark(loaded()))
    register(JudgeBenchmark())


@hookimpl
def register_agents(register: Callable[[Agent], None]) -> None:
    from speckernel_respec.agents import ReplayAgent, RespecPromptAgent
    from speckernel_respec.judge import EquivalenceJudge, FormalizationJudge

    for agent in (RespecPromptAgent(), ReplayAgent(), FormalizationJudge(), EquivalenceJudge()):
        register(agent)


@hookimpl
def register_scorers(register: Callable[[Scorer], None]) -> None:
    from speckernel_respec.scoring import JudgeScorer, RespecScorer

    register(RespecScorer())
    register(JudgeScorer())
