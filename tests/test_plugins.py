"""Plugin discovery and isolation: a broken plugin never takes the others down."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from speckernel import hookimpl
from speckernel.components import Agent
from speckernel.errors import KernelError
from speckernel.plugins import load_registry


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
    (Misspelled(), "unknown hook"),
    (Raises(), "RuntimeError: boom"),
    (WrongType(), "not a Agent"),
])
def test_broken_plugin_is_recorded_and_others_load(bad: object, reason: str) -> None:
    reg = load_registry({"bad": bad, "good": Good()})
    assert "echo" in reg.names("agent") and reg.plugin_of("agent", "echo") == "good"
    [failure] = reg.failures
    assert failure.name == "bad" and reason in failure.error
    assert "bad" not in {p.name for p in reg.plugins}


def test_name_clash_fails_the_second_plugin() -> None:
    reg = load_registry({"first": Good(), "second": Good()})
    assert reg.plugin_of("agent", "echo") == "first"
    assert "already registered by plugin 'first'" in reg.failures[0].error


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
