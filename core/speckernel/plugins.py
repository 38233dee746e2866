"""Finding plugins through entry points and collecting what they register.

Each plugin is loaded and called in isolation: an import error, an exception inside a hook, a
misspelled hook name or a name clash makes *that* plugin a recorded failure and drops everything
it registered, while the others load normally. "Exception" includes ``SystemExit``,
``KeyboardInterrupt`` and every other ``BaseException`` a plugin raises, except a real Ctrl-C
(``speckernel.containment``). The environment selects plugins:

- ``KERNEL_LOAD_PLUGINS=a,b``: load only these entry points (the kernel's builtins always load);
- ``KERNEL_DISABLE_PLUGINS=a,b``: skip these;
- ``KERNEL_STRICT_PLUGINS=1``: raise ``KernelError`` on the first failure instead.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import traceback
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import attrs
import pluggy

from speckernel import hookspecs
from speckernel.components import COMPONENT_KINDS
from speckernel.containment import plugin_fault
from speckernel.errors import KernelError, one_line, unknown_name

ENTRY_POINT_GROUP = "speckernel"
BUILTIN = "builtin"

HOOK_KINDS = {
    "register_benchmarks": "benchmark",
    "register_agents": "agent",
    "register_models": "model",
    "register_verifiers": "verifier",
    "register_scorers": "scorer",
    "register_harnesses": "harness",
    "register_toolchains": "toolchain",
}


@attrs.frozen
class PluginInfo:
    """A loaded plugin: its entry-point name, distribution, version and registrations."""

    name: str
    distribution: str
    version: str
    registered: dict[str, tuple[str, ...]]


@attrs.frozen
class PluginFailure:
    """A plugin that did not load, and why (one line; ``detail`` keeps the traceback)."""

    name: str
    distribution: str
    error: str
    detail: str = ""


def _env_list(name: str) -> set[str] | None:
    raw = os.environ.get(name)
    if raw is None:
        return None
    return {p.strip() for p in raw.split(",") if p.strip()}


class Registry:
    """Every component the loaded plugins registered, by kind and name."""

    def __init__(self) -> None:
        self.components: dict[str, dict[str, Any]] = {k: {} for k in COMPONENT_KINDS}
        self.owner: dict[tuple[str, str], str] = {}
        self.plugins: list[PluginInfo] = []
        self.failures: list[PluginFailure] = []
        self.extra_modules: list[str] = []
        """Plugin modules registered in-process (not entry points): a cluster's workers import
        them too."""
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)

    # -- lookups ---------------------------------------------------------------------------

    def get(self, kind: str, name: str) -> Any:
        """The component ``name`` of ``kind``; an unknown name suggests the closest one."""
        table = self.components[kind]
        if name not in table:
            raise unknown_name(kind, name, table)
        return table[name]

    def names(self, kind: str) -> list[str]:
        return sorted(self.components[kind])

    def all(self, kind: str) -> Iterator[Any]:
        for name in self.names(kind):
            yield self.components[kind][name]

    def plugin_of(self, kind: str, name: str) -> str:
        return self.owner[(kind, name)]

    # -- loading ---------------------------------------------------------------------------

    def add_plugin(
        self, plugin: ModuleType | object, name: str, distribution: str = "", version: str = ""
    ) -> PluginInfo | PluginFailure:
        """Register one plugin object and collect its components, all or nothing."""
        try:
            self.pm.register(plugin, name=name)
        except BaseException as exc:  # pluggy validation: wrong hook arguments
            if not plugin_fault(exc):
                raise
            return self._fail(name, distribution, f"invalid hook implementation: {exc}", exc)
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self.pm.unregister(name=name)
            return self._fail(name, distribution, f"unknown hook: {exc}", exc)
        staged: list[tuple[str, str, Any]] = []
        try:
            for hook_name, kind in HOOK_KINDS.items():
                for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                    if impl.plugin_name == name:
                        impl.function(register=self._stager(kind, name, staged))
        except BaseException as exc:
            if not plugin_fault(exc):
                raise
            self.pm.unregister(name=name)
            return self._fail(name, distribution, one_line(exc), exc)
        registered: dict[str, list[str]] = {}
        for kind, cname, obj in staged:
            self.components[kind][cname] = obj
            self.owner[(kind, cname)] = name
            registered.setdefault(kind, []).append(cname)
        info = PluginInfo(name, distribution, version,
                          {k: tuple(sorted(v)) for k, v in registered.items()})
        self.plugins.append(info)
        return info

    def _stager(self, kind: str, plugin: str, staged: list[tuple[str, str, Any]]) -> Any:
        base = COMPONENT_KINDS[kind]

        def register(obj: Any) -> None:
            if not isinstance(obj, base):
                raise KernelError(
                    f"{kind} hook registered {obj!r}, which is not a {base.__name__}")
            cname = getattr(obj, "name", None)
            if not isinstance(cname, str) or not cname:
                raise KernelError(f"{kind} {obj!r} has no name")
            clash = self.owner.get((kind, cname)) or next(
                (plugin for k, n, _ in staged if (k, n) == (kind, cname)), None)
            if clash is not None:
                raise KernelError(f"{kind} '{cname}' is already registered by plugin '{clash}'")
            staged.append((kind, cname, obj))

        return register

    def _fail(self, name: str, dist: str, message: str, exc: BaseException) -> PluginFailure:
        failure = PluginFailure(name, dist, message.splitlines()[0] if message else repr(exc),
                                "".join(traceback.format_exception(exc)))
        if os.environ.get("KERNEL_STRICT_PLUGINS", "") not in ("", "0"):
            raise KernelError(f"plugin '{name}' failed to load: {failure.error}") from exc
        self.failures.append(failure)
        return failure

    def load_entry_points(self) -> None:
        """Load every plugin of the ``speckernel`` entry-point group the environment allows."""
        only = _env_list("KERNEL_LOAD_PLUGINS")
        skip = _env_list("KERNEL_DISABLE_PLUGINS") or set()
        for ep in sorted(md.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if (only is not None and ep.name not in only) or ep.name in skip:
                continue
            dist = ep.dist.name if ep.dist else ""
            version = ep.dist.version if ep.dist else ""
            try:
                plugin = ep.load()
            except BaseException as exc:
                if not plugin_fault(exc):
                    raise
                self._fail(ep.name, dist, f"import failed: {one_line(exc)}", exc)
                continue
            self.add_plugin(plugin, ep.name, dist, version)


def load_registry(extra: dict[str, object] | None = None) -> Registry:
    """The registry of the kernel's builtins, installed plugins and ``extra`` (name -> plugin
    object; the test kit uses it for temporary registrations)."""
    from speckernel import __version__, builtin

    registry = Registry()
    registry.add_plugin(builtin, BUILTIN, "speckernel", __version__)
    registry.load_entry_points()
    for name, plugin in (extra or {}).items():
        registry.add_plugin(plugin, name)
        if isinstance(plugin, ModuleType):
            registry.extra_modules.append(plugin.__name__)
    return registry
