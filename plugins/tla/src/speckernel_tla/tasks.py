"""Loading SysMoBench-style tasks: the bundled artifacts and an upstream SysMoBench tree.

A task's ``metadata`` is the contract between this loader, the verifiers and the agents:
``module`` (SysMoBench's ``specModule``), ``system_type``, ``language``, ``invariants`` (the
template dicts of ``invariants.yaml``), ``mapping`` (the parsed ``mapping.yaml`` or None),
``traces`` (the keys of ``files`` that are traces), ``artifact_files`` (``<M>.tla``, ``<M>.cfg``),
``budgets`` (:class:`Budgets`), ``source`` (``bundled`` or ``upstream``), ``trace_format``
(``ndjson`` or ``tracelink``) and ``trace_constants`` (for TraceLink runs, PGo's
``<M>Validate.cfg``: the constants the traced system ran with). ``files`` holds the program's
source files by relative path and each trace as ``traces/<name>.ndjson`` (each TraceLink log as
``traces/<run>/<log>``); ``reference`` is the gold model and its TLC configuration, when the task
has one.

Malformed input is a ``KernelError`` of one line naming the file and the line.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
from speckernel.errors import KernelError
from speckernel.model import Task
from speckernel.yamlio import load_yaml, plain

BENCHMARK = "tla"
LOG = logging.getLogger("speckernel_tla")
TEMPLATE_FIELDS = ("name", "type", "natural_language", "formal_description", "tla_example")
INVARIANT_TYPES = ("safety", "liveness")
NDJSON, TRACELINK = "ndjson", "tracelink"
"""Trace formats: NDJSON lines read through a ``mapping.yaml`` (the bundled systems), or PGo's
TraceLink logs, one per process of a run (``traces/<run>/<log>``)."""


UNBOUNDED_BUDGETS = frozenset({"depth", "states"})
"""Budgets that may be 0: no bound."""


@attrs.frozen
class Budgets:
    """How much TLC may explore per check (task metadata ``budgets``).

    ``depth`` and ``states`` bound breadth-first search (a state constraint, see
    :mod:`speckernel_tla.tlc`; 0: no bound, a full search); ``simulate_runs`` x 50 behaviours of
    ``simulate_depth`` steps make up the runtime check's simulation; ``wall_s`` is the
    wall-clock budget of one TLC run.
    """

    depth: int = 50
    states: int = 20_000
    simulate_runs: int = 2
    simulate_depth: int = 50
    wall_s: float = 60.0

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None, source: str) -> Budgets:
        """Budgets from an option or metadata value: missing keys keep their defaults."""
        raw = dict(raw or {})
        defaults = attrs.asdict(cls())
        unknown = sorted(set(raw) - set(defaults))
        if unknown:
            raise KernelError(f"{source}: unknown budget '{unknown[0]}' "
                              f"(known: {', '.join(defaults)})")
        values: dict[str, Any] = {}
        for name, value in raw.items():
            floor = 0 if name in UNBOUNDED_BUDGETS else 1e-9
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    floor <= value < float("inf")):
                raise KernelError(f"{source}: budget '{name}' must be a positive number"
                                  + (" or 0 (no bound)" if floor == 0 else ""))
            values[name] = type(defaults[name])(value)
        return cls(**values)

    @classmethod
    def of(cls, task: Task) -> Budgets:
        """The budgets recorded in a task's metadata."""
        return cls.parse(task.metadata.get("budgets"), f"task {task.id}")

    def bounded(self) -> Budgets:
        """These budgets, with the default depth and state bounds where neither bounds the
        search (a full search the cfg's dropped reductions had made finite)."""
        if self.depth or self.states:
            return self
        default = Budgets()
        return attrs.evolve(self, depth=default.depth, states=default.states)

    def to_json(self) -> dict[str, int | float]:
        return attrs.asdict(self)


UPSTREAM_BUDGETS = Budgets(depth=0, states=0, simulate_runs=20, simulate_depth=50, wall_s=60.0)
"""SysMoBench's own settings (notes §2, metric defaults): 20 simulations of 50 behaviours of
depth 50 for runtime coverage, a full search for each invariant, 60 s per TLC run (option
``upstream_settings``)."""


# --------------------------------------------------------------------------- YAML access


def _read_yaml(path: Path) -> Any:
    """The round-trip YAML of ``path`` (its line numbers kept for errors), once ``plain`` has
    bounded it: aliases that expand to more values than ``plain`` allows (a "billion laughs"
    in a task file; ``str`` of a field expanded it, without end) or nesting past its depth
    are a ``KernelError``."""
    node = load_yaml(_read_text(path), str(path))
    plain(node, str(path))
    return node


def _line(node: Any, key: str | int | None) -> int:
    """The 1-based line of ``key`` in a round-trip YAML mapping or list (of the node itself for
    None); 1 when ruamel kept no position."""
    try:
        if key is None:
            return int(node.lc.line) + 1
        if isinstance(key, int):
            return int(node.lc.item(key)[0]) + 1
        return int(node.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, IndexError, TypeError):
        return 1


def _mapping(node: Any, path: Path, line: int = 1) -> Any:
    """``node`` if it is a mapping; else a ``KernelError`` at ``path:line``."""
    if not isinstance(node, Mapping):
        raise KernelError(f"{path}:{line}: expected a mapping")
    return node


def _field(node: Mapping[str, Any], key: str, path: Path, kind: type = str) -> Any:
    """``node[key]``, required and of type ``kind``."""
    if key not in node:
        raise KernelError(f"{path}:{_line(node, None)}: missing field '{key}'")
    value = node[key]
    if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
        raise KernelError(f"{path}:{_line(node, key)}: field '{key}' must be a non-empty "
                          f"{kind.__name__}")
    return value


def _strings(node: Mapping[str, Any], key: str, path: Path) -> list[str]:
    value = node.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise KernelError(f"{path}:{_line(node, key)}: field '{key}' must be a list of strings")
    return [str(v) for v in value]


def load_templates(path: Path) -> list[dict[str, str]]:
    """The invariant templates of an ``invariants.yaml`` (upstream format, notes §1); its
    ``metadata`` counts are ignored, as upstream's loader does."""
    data = _mapping(_read_yaml(path), path)
    entries = data.get("invariants")
    if not isinstance(entries, list):
        raise KernelError(f"{path}:{_line(data, 'invariants' if 'invariants' in data else None)}:"
                          " 'invariants' must be a list")
    templates = []
    for index, entry in enumerate(entries):
        entry = _mapping(entry, path, _line(entries, index))
        template = {f: str(_field(entry, f, path)).strip() if f != "tla_example"
                    else str(_field(entry, f, path)) for f in TEMPLATE_FIELDS}
        if template["type"] not in INVARIANT_TYPES:
            raise KernelError(f"{path}:{_line(entry, 'type')}: invariant type must be one of "
                              f"{', '.join(INVARIANT_TYPES)}, not '{template['type']}'")
        templates.append(template)
    names = [t["name"].lower() for t in templates]
    if len(set(names)) != len(names):
        duplicate = next(n for n in names if names.count(n) > 1)
        raise KernelError(f"{path}:{_line(data, 'invariants')}: invariant '{duplicate}' is "
                          "defined twice")
    return templates


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KernelError(f"{path}: cannot read: {exc}") from exc


# --------------------------------------------------------------------------- prompts


def _section(title: str, items: Sequence[str]) -> str:
    return "\n".join([f"{title}:", *(f"- {item}" for item in items)])


def requirement_prompt(spec: Mapping[str, Any], path: Path, sources: Sequence[str],
                       traces: Sequence[str]) -> str:
    """The modelling requirement of a bundled task, rendered from ``task.yaml`` the way
    SysMoBench's ``direct_call.txt`` lays it out (notes §1): focus, mandatory core actions,
    state, exclusions, scope, output rules."""
    module = _field(spec, "specModule", path)
    req = _field(spec, "modelling_requirements", path, Mapping)
    parts = [
        f"Write a TLA+ model of this {spec.get('system_type', '')} system, implemented in "
        f"{spec.get('language', '')}: {_field(spec, 'description', path)}.",
        f"Source code: {', '.join(sources)}."
        + (f" Execution traces of the program: {', '.join(traces)}." if traces else ""),
        f"Focus on {_field(req, 'focus', path)}.",
        _section("MANDATORY CORE ACTIONS", _strings(req, "core_actions", path)),
        _section("STATE TO MODEL", _strings(req, "state_to_model", path)),
        _section("EXPLICITLY EXCLUDED", _strings(req, "excluded", path)),
        f"BEHAVIOURAL SCOPE: {_field(req, 'behavioural_scope', path)}.",
        _section("OUTPUT RULES", _strings(req, "output_rules", path)),
        f"Deliver two files: {module}.tla (the model) and {module}.cfg (its TLC configuration: "
        "SPECIFICATION Spec and small values for every constant).",
    ]
    return "\n\n".join(parts) + "\n"


def upstream_prompt(spec: Mapping[str, Any], path: Path, sources: Sequence[str]) -> str:
    """An upstream task's requirement when its ``prompts/direct_call.txt`` is not at hand: the
    task's description plus the output rules every upstream prompt states (notes §1)."""
    module = _field(spec, "specModule", path)
    return (
        f"Write a TLA+ model of this {spec.get('system_type', '')} system, implemented in "
        f"{spec.get('language', '')}: {_field(spec, 'description', path)}.\n\n"
        f"Source code: {', '.join(sources)} of {_repository(spec)}.\n\n"
        "OUTPUT RULES:\n"
        f"- the module must be named exactly {module}\n"
        "- output raw TLA+ only; do not write invariants\n"
        "- EXTENDS TLC, Sequences, SequencesExt, Naturals, FiniteSets, Bags\n"
        "- Spec must include WF/SF fairness\n\n"
        f"Deliver two files: {module}.tla (the model) and {module}.cfg (its TLC configuration).\n"
    )


PROMPT_FIELDS = ("description", "system_type", "language", "file_path", "source_code")
"""The placeholders of upstream's ``direct_call.txt`` (notes §1) that the task defines; its
``{focus}`` comes from upstream's command line and stays as written."""
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PROMPT_FIELDS) + r")\}")


def fill_placeholders(template: str, spec: Mapping[str, Any], sources: Sequence[str]) -> str:
    """Upstream's ``direct_call.txt`` with its named placeholders filled in and every other brace
    left as written, as upstream substitutes them: its prompts hold JSON examples (ZooKeeper's
    ``{"name": "Notification", ...}``) that ``str.format`` would choke on. The source code is
    not vendored upstream, so ``{source_code}`` points to the repository."""
    values = {"description": str(spec.get("description", "")),
              "system_type": str(spec.get("system_type", "")),
              "language": str(spec.get("language", "")),
              "file_path": ", ".join(sources),
              "source_code": f"(not bundled: {', '.join(sources)} of {_repository(spec)})"}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def _repository(spec: Mapping[str, Any]) -> str:
    repo = spec.get("repository")
    return str(repo.get("url", "the system's repository")) if isinstance(repo, Mapping) else (
        "the system's repository")


def _source_paths(spec: Mapping[str, Any], path: Path) -> list[str]:
    """Paths of ``source_files`` (or of a multi-file ``default_source_file``)."""
    entries = spec.get("source_files") or spec.get("default_source_file") or []
    if isinstance(entries, str):
        return [entries]
    if not isinstance(entries, list):
        raise KernelError(f"{path}:{_line(spec, 'source_files')}: 'source_files' must be a list")
    return [e if isinstance(e, str) else str(_field(_mapping(e, path, _line(entries, i)),
                                                    "path", path))
            for i, e in enumerate(entries)]


# --------------------------------------------------------------------------- bundled tasks


def bundled_root() -> Path:
    """The folder of the artifacts shipped with the plugin."""
    return Path(str(resources.files("speckernel_tla").joinpath("artifacts")))


def load_bundled(root: Path, budgets: Budgets) -> Iterator[Task]:
    """One task per artifact folder holding a ``task.yaml``, in name order; id = folder name."""
    for folder in sorted(p for p in root.iterdir() if (p / "task.yaml").is_file()):
        yield bundled_task(folder, budgets)


def bundled_task(folder: Path, budgets: Budgets) -> Task:
    path = folder / "task.yaml"
    spec = _mapping(_read_yaml(path), path)
    module = _field(spec, "specModule", path)
    templates = load_templates(folder / "invariants.yaml")
    sources = _source_paths(spec, path)
    files = {src: _read_text(folder / src) for src in sources}
    trace_dir = folder / str(spec.get("traces_folder", "traces"))
    traces = {f"traces/{p.name}": _read_text(p) for p in sorted(trace_dir.glob("*.ndjson"))}
    mapping = None
    if "mapping" in spec:
        mapping_path = folder / str(_field(spec, "mapping", path))
        mapping = plain(_mapping(_read_yaml(mapping_path), mapping_path))
    reference = None
    if "gold" in spec:
        gold = _field(spec, "gold", path, Mapping)
        reference = {f"{module}.tla": _read_text(folder / _field(gold, "spec", path)),
                     f"{module}.cfg": _read_text(folder / _field(gold, "config", path))}
    return Task(
        id=folder.name,
        benchmark=BENCHMARK,
        prompt=requirement_prompt(spec, path, sources, list(traces)),
        files={**files, **traces},
        metadata=_metadata(spec, path, templates, mapping, list(traces), budgets, "bundled"),
        reference=reference,
    )


def _metadata(spec: Mapping[str, Any], path: Path, templates: list[dict[str, str]],
              mapping: Any, traces: list[str], budgets: Budgets, source: str) -> dict[str, Any]:
    module = _field(spec, "specModule", path)
    return {
        "module": module,
        "system_type": str(spec.get("system_type", "")),
        "language": str(spec.get("language", "")),
        "invariants": templates,
        "mapping": mapping,
        "traces": traces,
        "artifact_files": [f"{module}.tla", f"{module}.cfg"],
        "budgets": budgets.to_json(),
        "source": source,
        "trace_format": NDJSON,
        "trace_constants": None,
    }


# --------------------------------------------------------------------------- upstream tasks


@attrs.frozen
class UpstreamLayout:
    """Where an upstream tree keeps tasks, invariant templates and PGo data: a SysMoBench
    checkout (``tla_eval/tasks``, ``data/invariant_templates``,
    ``tla_eval/core/trace_generation``) or the flat copy in ``../shared/data/sysmobench``."""

    tasks: Path
    templates: Path
    pgo: Path

    @classmethod
    def find(cls, root: Path) -> UpstreamLayout:
        for layout in (cls(root / "tla_eval" / "tasks", root / "data" / "invariant_templates",
                           root / "tla_eval" / "core" / "trace_generation"),
                       cls(root / "tasks", root / "invariant_templates", root / "pgo")):
            if layout.tasks.is_dir():
                return layout
        raise KernelError(f"{root}: not a SysMoBench tree (no tasks/ or tla_eval/tasks/)")


def load_upstream(root: Path, budgets: Budgets) -> Iterator[Task]:
    """One task per ``<tasks>/<task>/task.yaml`` that has invariant templates, in name order;
    id ``sysmobench/<task>``. A task whose files are malformed is skipped with a one-line
    warning naming the file (logger ``speckernel_tla``): one broken upstream file does not stop
    the other tasks."""
    layout = UpstreamLayout.find(root)
    for folder in sorted(p for p in layout.tasks.iterdir() if (p / "task.yaml").is_file()):
        if not (layout.templates / folder.name / "invariants.yaml").is_file():
            continue
        try:
            task = upstream_task(layout, folder, budgets)
        except KernelError as exc:
            LOG.warning("tla: skipping task sysmobench/%s: %s", folder.name,
                        " ".join(str(exc).split()))
            continue
        yield task


def tracelink_runs(folder: Path) -> dict[str, str]:
    """The TraceLink logs of a PGo system (``traces_found/<run>/*.log``, one log per process of
    one distributed run), as ``traces/<run>/<log>`` -> text, in name order. A run with a
    ``.log`` that is not a regular file (a folder; a FIFO, whose reading waits for a writer)
    or cannot be read is left out whole, with a one-line warning: without one of its logs it
    would be another run."""
    runs: dict[Path, list[Path]] = {}
    for log in sorted(folder.glob("traces_found/*/*.log")):
        runs.setdefault(log.parent, []).append(log)
    found: dict[str, str] = {}
    for run, logs in runs.items():
        try:
            texts = {f"traces/{run.name}/{log.name}": _read_log(log) for log in logs}
        except KernelError as exc:
            LOG.warning("tla: skipping run %s: %s", run.name, " ".join(str(exc).split()))
            continue
        found.update(texts)
    return found


def _read_log(path: Path) -> str:
    if not path.is_file():
        raise KernelError(f"{path} is not a regular file")
    return _read_text(path)


def upstream_task(layout: UpstreamLayout, folder: Path, budgets: Budgets) -> Task:
    path = folder / "task.yaml"
    spec = _mapping(_read_yaml(path), path)
    module = _field(spec, "specModule", path)
    sources = _source_paths(spec, path)
    prompt_file = folder / "prompts" / "direct_call.txt"
    prompt = (fill_placeholders(_read_text(prompt_file), spec, sources) if prompt_file.is_file()
              else upstream_prompt(spec, path, sources))
    pgo = layout.pgo / folder.name
    traces = tracelink_runs(pgo)
    model, config = pgo / f"{module}.tla", pgo / f"{module}.cfg"
    reference = ({f"{module}.tla": _read_text(model), f"{module}.cfg": _read_text(config)}
                 if model.is_file() and config.is_file() else None)
    validate = pgo / f"{module}Validate.cfg"
    templates = load_templates(layout.templates / folder.name / "invariants.yaml")
    metadata = _metadata(spec, path, templates, None, list(traces), budgets, "upstream")
    metadata["trace_format"] = TRACELINK if traces else NDJSON
    metadata["trace_constants"] = _read_text(validate) if traces and validate.is_file() else None
    return Task(
        id=f"sysmobench/{folder.name}",
        benchmark=BENCHMARK,
        prompt=prompt,
        files=traces,
        metadata=metadata,
        reference=reference,
    )
