"""The plugin's hook implementations (entry point ``tla`` in group ``speckernel``)."""

from __future__ import annotations

from collections.abc import Callable

from speckernel import hookimpl
from speckernel.components import Toolchain, Verifier


@hookimpl
def register_toolchains(register: Callable[[Toolchain], None]) -> None:
    from speckernel_tla.toolchain import Tla2ToolsToolchain

    register(Tla2ToolsToolchain())


@hookimpl
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    from speckernel_tla.verifiers import SanyVerifier

    register(SanyVerifier())
