"""The TLA+ modules this plugin ships, placed beside every model SANY or TLC reads.

The SysMoBench prompts require ``EXTENDS ... SequencesExt`` and its bug models use
``FiniteSetsExt`` (notes §2); those come from the CommunityModules jar, which no registry here
serves. ``modules/`` holds this project's own definitions of their common operators, written from
their meaning (notes §7 shows such modules make those models parse and run on the old jars).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources

from speckernel.model import Files

BUNDLED = ("SequencesExt", "FiniteSetsExt")


def bundled_modules() -> dict[str, str]:
    """File name -> text of each shipped module."""
    root = resources.files("speckernel_tla").joinpath("modules")
    return {f"{name}.tla": root.joinpath(f"{name}.tla").read_text(encoding="utf-8")
            for name in BUNDLED}


def with_bundled_modules(files: Mapping[str, str]) -> Files:
    """``files`` plus the shipped modules it does not define itself (a model's own wins)."""
    return {**bundled_modules(), **files}
