"""The five RESpecBench domains and how to load their verifiers.

Each domain lives in its own module ``speckernel_respec.domains.<domain>`` exposing one verifier
class ``<Domain>Verifier`` registered as ``respec.<domain>`` and, when it runs external tools,
``TOOLCHAINS``: their classes (defined in ``speckernel_respec.toolchain``, the one module that
may start a process outside the sandbox, for detection only). Modules are imported one at a time
and on demand, so a domain whose optional dependency is missing is reported as unavailable
(with the import error) while the others keep working.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType

import attrs
from speckernel.components import Toolchain, Verifier

DOMAINS = ("gsm", "fol", "regex", "sql", "rocq")
"""Every domain, in the order reports list them."""

EXTENSIONS = {"gsm": ".gsm", "fol": ".fol", "regex": ".re", "sql": ".sql", "rocq": ".v"}
"""The extension of a domain's artifact file ``spec.<ext>``."""


def spec_file(domain: str) -> str:
    """The single file a candidate of ``domain`` consists of, e.g. ``spec.re``."""
    return "spec" + EXTENSIONS[domain]


def verifier_name(domain: str) -> str:
    """The registered name of a domain's verifier, e.g. ``respec.regex``."""
    return f"respec.{domain}"


def module_name(domain: str) -> str:
    return f"{__name__}.{domain}"


@attrs.frozen
class Loaded:
    """The domains whose module imported (one verifier instance each, the toolchains the module
    defines) and, for the others, why not."""

    verifiers: Mapping[str, Verifier]
    toolchains: tuple[Toolchain, ...]
    missing: Mapping[str, str]


def _toolchains(module: ModuleType) -> list[Toolchain]:
    """The toolchains a domain module declares in ``TOOLCHAINS``, instantiated."""
    return [cls() for cls in getattr(module, "TOOLCHAINS", ())]


def load() -> Loaded:
    """Import every domain module; a domain that fails to import is recorded as missing."""
    verifiers: dict[str, Verifier] = {}
    toolchains: list[Toolchain] = []
    missing: dict[str, str] = {}
    for domain in DOMAINS:
        try:
            module = importlib.import_module(module_name(domain))
            cls = getattr(module, f"{domain.capitalize()}Verifier")
        except (ImportError, AttributeError) as exc:
            missing[domain] = f"{type(exc).__name__}: {exc}"
            continue
        verifiers[domain] = cls()
        toolchains.extend(t for t in _toolchains(module)
                          if t.name not in {known.name for known in toolchains})
    return Loaded(verifiers, tuple(toolchains), missing)
