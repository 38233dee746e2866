"""Plugin discovery and isolation: a broken plugin never takes the others down."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from speckernel import hookimpl
from speckernel.components import Agent, Benchmark
from speckernel.errors import KernelError
from speckernel.plugins import load_registry
from speckernel.testing import undescribed


class Echo(Agent):
    name = "echo"

    async def solve(self, task, ctx):
        return {}


class Good:
    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        register(Echo())


class Misspelled:
    @hookimpl
    def register_agent(self, register: Callable[[Agent], None]) -> None:  # missing 's'
        register(Echo())


class Raises:
    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        raise RuntimeError("boom")


class WrongType:
    @hookimpl
    def register_agents(self, register: Callable[[object], None]) -> None:
        register("not an agent")


def test_builtins_register_core_agents_and_providers() -> None:
    reg = load_registry()
    assert {"reference", "prompt"} <= set(reg.names("agent"))
    assert {"openai", "anthropic", "replay"} <= set(reg.names("model"))
    assert reg.plugin_of("agent", "reference") == "builtin"


@pytest.mark.parametrize("bad, reason", [
    (Misspelled(), "unknown hook 'register_agent' (did you mean 'register_agents'?)"),
    (Raises(), "RuntimeError: boom"),
])
def test_broken_plugin_is_recorded_and_others_load(bad: object, reason: str) -> None:
    reg = load_registry({"bad": bad, "good": Good()})
    assert "echo" in reg.names("agent") and reg.plugin_of("agent", "echo") == "good"
    [failure] = reg.failures
    assert failure.name == "bad" and reason in failure.error and failure.component == ""
    assert "bad" not in {p.name for p in reg.plugins}


class Other(Agent):
    name = "other"

    async def solve(self, task, ctx):
        return {}


class Basic(Agent):
    name = "basic"

    async def solve(self, task, ctx):
        return {}


class Bench(Benchmark):
    name = "mybench"

    def tasks(self, options):
        return []


class BenchPlugin:
    """A benchmark's plugin: its benchmark and an agent named without a prefix."""

    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(Bench())

    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        register(Basic())


class Stranger:
    """A third-party plugin whose agent 'basic' clashes; its other agent does not."""

    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        register(Basic())
        register(Other())


def test_a_clash_refuses_only_the_clashing_component_of_both_plugins() -> None:
    """Issue 17 C: a third-party agent 'basic' used to disable the whole benchmark plugin.
    Now the benchmark and the stranger's other agent stay; 'basic' is used from neither (which
    one a run got would depend on load order), and asking for it says why."""
    reg = load_registry({"bench": BenchPlugin(), "stranger": Stranger()})
    assert reg.plugin_of("benchmark", "mybench") == "bench"
    assert reg.plugin_of("agent", "other") == "stranger"
    assert "basic" not in reg.names("agent")
    assert {p.name for p in reg.plugins} >= {"bench", "stranger"}
    assert {(f.name, f.component) for f in reg.failures} == {
        ("bench", "agent 'basic'"), ("stranger", "agent 'basic'")}
    assert all("both register it" in f.error for f in reg.failures)
    registered = {p.name: p.registered for p in reg.plugins}
    assert registered["bench"] == {"benchmark": ("mybench",)}
    with pytest.raises(KernelError, match="registered by plugins 'bench' and 'stranger', so "
                                          "neither is used"):
        reg.get("agent", "basic")


def test_the_kernels_own_names_stay_and_the_clashing_component_is_refused() -> None:
    class Reference(Basic):
        name = "reference"

    class Impostor:
        @hookimpl
        def register_agents(self, register: Callable[[Agent], None]) -> None:
            register(Reference())
            register(Other())

    reg = load_registry({"impostor": Impostor()})
    assert reg.plugin_of("agent", "reference") == "builtin"
    assert reg.plugin_of("agent", "other") == "impostor"
    [failure] = reg.failures
    assert failure.component == "agent 'reference'" and "the kernel's own" in failure.error


def test_a_component_of_the_wrong_type_is_refused_alone() -> None:
    class Mixed:
        @hookimpl
        def register_agents(self, register: Callable[[object], None]) -> None:
            register("not an agent")
            register(Other())

    reg = load_registry({"mixed": Mixed()})
    assert reg.plugin_of("agent", "other") == "mixed"
    [failure] = reg.failures
    assert "is not a Agent" in failure.error and failure.component.startswith("agent")


def test_an_unknown_name_names_the_plugins_that_failed_to_load() -> None:
    """Issue 17 L: 'unknown benchmark' alone hid why it was unknown."""
    reg = load_registry({"mybench": Raises(), "good": Good()})
    with pytest.raises(KernelError) as caught:
        reg.get("benchmark", "mybench")
    assert str(caught.value) == (
        "unknown benchmark 'mybench' (no benchmark is installed); plugin that failed to load: "
        "mybench: RuntimeError: boom (see kernel plugins)")


def test_strict_mode_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNEL_STRICT_PLUGINS", "1")
    with pytest.raises(KernelError, match="plugin 'bad' failed to load"):
        load_registry({"bad": Raises()})


def test_unknown_name_suggests_closest() -> None:
    reg = load_registry()
    with pytest.raises(KernelError, match="did you mean 'reference'"):
        reg.get("agent", "refrence")


def test_plugins_command_lists_versions_and_failures(kernel_cli, kernel_plugins, pyfunc) -> None:
    kernel_plugins(Raises())
    result = kernel_cli("plugins")
    assert result.exit_code == 0
    assert "builtin" in result.stdout and "speckernel_pyfunc.plugin" in result.stdout
    assert "benchmark: pyfunc" in result.stdout
    assert "failed to load" in result.stdout and "RuntimeError: boom" in result.stdout


def test_every_hook_registers_its_kind() -> None:
    """One plugin implementing all seven hooks: each object lands under its kind."""
    from speckernel.components import (
        Benchmark,
        Harness,
        ModelProvider,
        Scorer,
        Toolchain,
        ToolStatus,
        Verifier,
    )

    class B(Benchmark):
        name = "b"

        def tasks(self, options):
            return []

    class P(ModelProvider):
        name = "p"

        def model(self, model, options):
            raise NotImplementedError

    class V(Verifier):
        name = "v"

        async def verify(self, candidate, task, ctx):
            raise NotImplementedError

    class S(Scorer):
        name = "s"

        def score(self, task, candidate, verdicts):
            raise NotImplementedError

    class H(Harness):
        name = "h"

        async def measure(self, candidate, task, ctx):
            return {}

    class T(Toolchain):
        name = "t"

        def detect(self) -> ToolStatus:
            return ToolStatus("t", False)

    class All:
        @hookimpl
        def register_benchmarks(self, register):
            register(B())

        @hookimpl
        def register_agents(self, register):
            register(Echo())

        @hookimpl
        def register_models(self, register):
            register(P())

        @hookimpl
        def register_verifiers(self, register):
            register(V())

        @hookimpl
        def register_scorers(self, register):
            register(S())

        @hookimpl
        def register_harnesses(self, register):
            register(H())

        @hookimpl
        def register_toolchains(self, register):
            register(T())

    reg = load_registry({"all": All()})
    assert not reg.failures
    [info] = [p for p in reg.plugins if p.name == "all"]
    assert info.registered == {"benchmark": ("b",), "agent": ("echo",), "model": ("p",),
                               "verifier": ("v",), "scorer": ("s",), "harness": ("h",),
                               "toolchain": ("t",)}


def test_load_and_disable_plugins_select_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """KERNEL_LOAD_PLUGINS / KERNEL_DISABLE_PLUGINS filter installed entry points by name."""
    import importlib.metadata as md

    installed = {ep.name for ep in md.entry_points(group="speckernel")}
    monkeypatch.setenv("KERNEL_LOAD_PLUGINS", "no-such-plugin")
    assert {p.name for p in load_registry().plugins} == {"builtin"}
    monkeypatch.delenv("KERNEL_LOAD_PLUGINS")
    monkeypatch.setenv("KERNEL_DISABLE_PLUGINS", ",".join(installed))
    assert {p.name for p in load_registry().plugins} == {"builtin"}


class Terse(Benchmark):
    name = "terse"
    description = "a benchmark that says too little"
    options = {"depth": 3, "mode": "fast"}
    option_descriptions = {"depth": "how deep; with mode=slow also width=2", "colour": "red"}

    def tasks(self, options):
        return []


class TersePlugin:
    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(Terse())

    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        register(Echo())


def test_undescribed_names_every_silent_part_of_a_plugin() -> None:
    """What ``kernel list`` would show blank is what a plugin's own test asserts away."""
    assert undescribed(TersePlugin(), "terse") == [
        "agent echo: no one-line description",
        "benchmark terse: option mode has no one-line description",
        "benchmark terse: the description of depth names width, which is no option",
        "benchmark terse: colour is described but no option",
    ]
    assert undescribed(Raises(), "raises") == ["raises: RuntimeError: boom"]


def test_the_fixture_plugin_is_fully_described() -> None:
    from speckernel_pyfunc import plugin

    assert undescribed(plugin, "pyfunc") == []
