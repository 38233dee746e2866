"""The kernel's own plugin: the core agents, model providers, the sandbox's toolchain and the
browser the viewer's tests drive, registered like any other."""

from __future__ import annotations

from collections.abc import Callable

from speckernel.components import Agent, ModelProvider, Toolchain
from speckernel.hookspecs import hookimpl


@hookimpl
def register_agents(register: Callable[[Agent], None]) -> None:
    from speckernel.agents import PromptAgent, ReferenceAgent

    register(ReferenceAgent())
    register(PromptAgent())


@hookimpl
def register_models(register: Callable[[ModelProvider], None]) -> None:
    from speckernel.providers.anthropic import AnthropicProvider
    from speckernel.providers.openai import OpenAIProvider
    from speckernel.providers.replay import ReplayProvider

    register(OpenAIProvider())
    register(AnthropicProvider())
    register(ReplayProvider())


@hookimpl
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    from speckernel.sandbox.toolchain import SandboxToolchain
    from speckernel.viewer.toolchain import BrowserToolchain

    register(SandboxToolchain())
    register(BrowserToolchain())
