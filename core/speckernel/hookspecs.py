"""The kernel's public contract: the hooks a plugin may implement.

A plugin is a module (or object) exposed through the ``speckernel`` entry-point group::

    # pyproject.toml of speckernel-alloy
    [project.entry-points.speckernel]
    alloy = "speckernel_alloy.plugin"

    # speckernel_alloy/plugin.py
    from speckernel import hookimpl

    @hookimpl
    def register_benchmarks(register):
        register(AlloyBench())

Every hook is *synchronous* and receives one argument, ``register``: a callable that takes one
component object (an instance of the matching base class in :mod:`speckernel.components`). Hooks
only construct and register objects; the kernel awaits the objects' ``async`` methods later
(pluggy has no async hooks). A hook must be cheap: ``kernel list`` calls all of them.

A plugin that raises while importing or registering, or that implements a hook name not listed
here (a misspelling), is reported by ``kernel plugins`` and skipped; the other plugins keep
working. ``KERNEL_STRICT_PLUGINS=1`` turns such a failure into an error.

Names are global, so a plugin prefixes its components' names with its own (``tla.sany``,
``jml-prompt``). A component whose name another plugin also registers is refused in both (the
rest of each plugin keeps working; ``kernel plugins`` names the clash), and one that takes a
name of the kernel's own is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from speckernel.components import (
        Agent,
        Benchmark,
        Harness,
        ModelProvider,
        Scorer,
        Toolchain,
        Verifier,
    )

PROJECT = "speckernel"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_benchmarks(register: Callable[[Benchmark], None]) -> None:
    """Register benchmarks (task loading).

    A :class:`~speckernel.components.Benchmark` names its tasks, its phase-gated verifier
    pipeline, its scorers and harnesses, and its option defaults. ``kernel run NAME`` selects it
    by ``Benchmark.name``; ``kernel list tasks NAME`` prints its tasks.

    :param register: call once per benchmark object.
    """


@hookspec
def register_agents(register: Callable[[Agent], None]) -> None:
    """Register agents (generation).

    An :class:`~speckernel.components.Agent` turns a task into an artifact with
    ``async solve(task, ctx)``, using ``ctx.generate`` for model calls and ``ctx.verify`` for
    feedback. Selected with ``--agent NAME``.

    :param register: call once per agent object.
    """


@hookspec
def register_models(register: Callable[[ModelProvider], None]) -> None:
    """Register model providers (generation).

    A :class:`~speckernel.components.ModelProvider` named ``P`` serves every ``--model P:NAME``.
    Providers own the wire protocol, retries and rate limiting; the kernel owns caching and cost
    accounting around them.

    :param register: call once per provider object.
    """


@hookspec
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    """Register verifiers (verification).

    A :class:`~speckernel.components.Verifier` checks a candidate with a real tool, usually
    through ``ctx.sandbox``, and returns a :class:`~speckernel.model.Verdict`. Benchmarks refer to
    verifiers by name in their ``phases``.

    :param register: call once per verifier object.
    """


@hookspec
def register_scorers(register: Callable[[Scorer], None]) -> None:
    """Register scorers (scoring).

    A :class:`~speckernel.components.Scorer` maps one sample's verdicts to metric values and
    declares those metrics, so ``kernel report`` can aggregate and format them.

    :param register: call once per scorer object.
    """


@hookspec
def register_harnesses(register: Callable[[Harness], None]) -> None:
    """Register performance harnesses (benchmarking).

    A :class:`~speckernel.components.Harness` runs a verified artifact under load and returns
    measurements (throughput, latency percentiles, peak memory). It runs only for samples whose
    verifier pipeline fully succeeded.

    :param register: call once per harness object.
    """


@hookspec
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    """Register external tools (toolchains).

    A :class:`~speckernel.components.Toolchain` says how to detect a tool and its version and how
    to install it from a registry. ``kernel doctor`` lists them; ``kernel tools install`` runs
    their install steps; verifiers name them in ``Verifier.tools``.

    :param register: call once per toolchain object.
    """
