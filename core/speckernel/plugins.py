"""Finding plugins through entry points and collecting what they register.

Each plugin is loaded and called in isolation: an import error, an exception inside a hook or a
misspelled hook name (with the closest hook name suggested) makes *that* plugin a recorded
failure and drops everything it registered, while the others load normally. "Exception"
includes ``SystemExit``, ``KeyboardInterrupt`` and every other ``BaseException`` a plugin
raises, except a real Ctrl-C (``speckernel.containment``). A bad component is refused alone, the
rest of its plugin kept: an object of the wrong type, or a name another plugin also registered.
On such a clash neither plugin's component is used (which one a run got would depend on load
order, and a run must never silently get another plugin's agent), unless the name is the
kernel's own (``builtin``), which stays; ``Registry.get`` then says why the name is missing.
Plugins prefix their components' names with their own (``tla.sany``, ``jml-prompt``) to stay
clear of each other. The environment selects plugins:

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
    """A plugin that did not load, and why (one line; ``detail`` keeps the traceback); or, when
    ``component`` names one (``agent 'basic'``), only that component of it was refused."""

    name: str
    distribution: str
    error: str
    detail: str = ""
    component: str = ""


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
        self.clashes: dict[tuple[str, str], list[str]] = {}
        """(kind, name) registered by several plugins -> those plugins (none of them kept)."""
        self.extra_modules: list[str] = []
        """Plugin modules registered in-process (not entry points): a cluster's workers import
        them too."""
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)

    # -- lookups ---------------------------------------------------------------------------

    def get(self, kind: str, name: str) -> Any:
        """The component ``name`` of ``kind``; an unknown name suggests the closest one and
        says why it may be missing (a name clash, plugins that failed to load)."""
        table = self.components[kind]
        if name in table:
            return table[name]
        if (kind, name) in self.clashes:
            owners = " and ".join(f"'{p}'" for p in self.clashes[(kind, name)])
            raise KernelError(
                f"{kind} '{name}' is registered by plugins {owners}, so neither is used; "
                f"disable one (KERNEL_DISABLE_PLUGINS=NAME) or ask its author to prefix its "
                "names with the plugin's")
        error = unknown_name(kind, name, table)
        broken = [f for f in self.failures if not f.component]
        if broken:
            named = [f for f in broken if f.name == name] or broken
            why = "; ".join(f"{f.name}: {f.error}" for f in named[:3])
            more = f" and {len(named) - 3} more" if len(named) > 3 else ""
            raise KernelError(f"{error}; plugin{'s' if len(named) > 1 else ''} that failed to "
                              f"load: {why}{more} (see kernel plugins)")
        raise error

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
            return self._fail(name, distribution, self._unknown_hooks(plugin, name, exc), exc)
        staged: list[tuple[str, str, Any]] = []
        refused: list[tuple[str, str]] = []
        try:
            for hook_name, kind in HOOK_KINDS.items():
                for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                    if impl.plugin_name == name:
                        impl.function(register=self._stager(kind, staged, refused))
        except BaseException as exc:
            if not plugin_fault(exc):
                raise
            self.pm.unregister(name=name)
            return self._fail(name, distribution, one_line(exc), exc)
        registered: dict[str, list[str]] = {}
        for kind, cname, obj in staged:
            if self._clashes(kind, cname, name, distribution):
                continue
            self.components[kind][cname] = obj
            self.owner[(kind, cname)] = name
            registered.setdefault(kind, []).append(cname)
        for component, reason in refused:
            self._refuse(name, distribution, component, reason)
        info = PluginInfo(name, distribution, version,
                          {k: tuple(sorted(v)) for k, v in registered.items()})
        self.plugins.append(info)
        return info

    def _stager(self, kind: str, staged: list[tuple[str, str, Any]],
                refused: list[tuple[str, str]]) -> Any:
        """The ``register`` a hook of ``kind`` receives: it stages good components and notes
        the refusal of bad ones (which the plugin's other components survive)."""
        base = COMPONENT_KINDS[kind]

        def register(obj: Any) -> None:
            cname = getattr(obj, "name", None)
            label = f"{kind} '{cname}'" if isinstance(cname, str) and cname else f"{kind} {obj!r}"
            if not isinstance(obj, base):
                refused.append((label, f"{obj!r} is not a {base.__name__}"))
            elif not isinstance(cname, str) or not cname:
                refused.append((label, "it has no name"))
            elif any((k, n) == (kind, cname) for k, n, _ in staged):
                refused.append((label, "the plugin registers the name twice"))
            else:
                staged.append((kind, cname, obj))

        return register

    def _clashes(self, kind: str, cname: str, plugin: str, distribution: str) -> bool:
        """Whether ``plugin``'s component ``cname`` clashes with another plugin's: the kernel's
        own names stay and the newcomer is refused; between two plugins both are refused."""
        label = f"{kind} '{cname}'"
        if (kind, cname) in self.clashes:
            self.clashes[(kind, cname)].append(plugin)
            self._refuse(plugin, distribution, label, "the name is registered by plugins "
                         + ", ".join(f"'{p}'" for p in self.clashes[(kind, cname)]))
            return True
        owner = self.owner.get((kind, cname))
        if owner is None:
            return False
        if owner == BUILTIN:
            self._refuse(plugin, distribution, label, "the name is the kernel's own")
            return True
        del self.components[kind][cname], self.owner[(kind, cname)]
        self.clashes[(kind, cname)] = [owner, plugin]
        self.plugins = [attrs.evolve(p, registered={
            k: kept for k, names in p.registered.items()
            if (kept := tuple(n for n in names if (k, n) != (kind, cname)))})
            if p.name == owner else p for p in self.plugins]
        reason = f"plugins '{owner}' and '{plugin}' both register it, so neither is used"
        owner_dist = next((p.distribution for p in self.plugins if p.name == owner), "")
        self._refuse(owner, owner_dist, label, reason)
        self._refuse(plugin, distribution, label, reason)
        return True

    def _refuse(self, plugin: str, distribution: str, component: str, reason: str) -> None:
        """Record that ``component`` of ``plugin`` is not used (the rest of it is)."""
        message = f"{component} refused: {reason}"
        if os.environ.get("KERNEL_STRICT_PLUGINS", "") not in ("", "0"):
            raise KernelError(f"plugin '{plugin}': {message}")
        self.failures.append(PluginFailure(plugin, distribution, message, component=component))

    def _unknown_hooks(self, plugin: object, name: str, exc: Exception) -> str:
        """``unknown hook 'register_agent' (did you mean 'register_agents'?)`` for each hook
        the plugin implements that the kernel does not define."""
        unknown = [attr for attr in dir(plugin)
                   if self.pm.parse_hookimpl_opts(plugin, attr) is not None
                   and attr not in HOOK_KINDS]
        if not unknown:
            return f"unknown hook: {exc}"
        return "; ".join(str(unknown_name("hook", attr, HOOK_KINDS)) for attr in unknown)

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
