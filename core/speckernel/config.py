"""Run configuration: what a run file holds, merged with command-line flags.

A run file is YAML whose top-level keys are the fields of ``RunConfig``::

    benchmark: tla
    agents: [basic]
    models: [openai:gpt-5]
    samples: 5
    options: {depth: 20}        # the benchmark's own options
    params: {temperature: 0.2}

Flags given on the command line override the file. An unknown key is an error that names the key
and its line, with the closest known key as a hint.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from speckernel import validation
from speckernel.errors import KernelError, unknown_name
from speckernel.model import GenerateParams, to_json
from speckernel.yamlio import key_line, load_yaml, plain


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@attrs.frozen
class RunConfig:
    """Everything that decides a run's samples. ``run.yaml`` stores it resolved."""

    benchmark: str
    agents: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    samples: int = 1
    tasks: tuple[str, ...] = ()
    limit: int | None = None
    seed: int = 0
    options: Mapping[str, Any] = attrs.field(factory=dict)
    agent_options: Mapping[str, Any] = attrs.field(factory=dict)
    model_options: Mapping[str, Any] = attrs.field(factory=dict)
    params: GenerateParams = attrs.field(factory=GenerateParams)
    model_concurrency: int = 8
    verifier_concurrency: int = attrs.field(factory=_cores)
    sample_timeout_s: float = 3600.0
    model_timeout_s: float = 600.0
    verify_timeout_s: float | None = None
    max_cost: float | None = None
    cache: bool = True
    shard: tuple[int, int] = (0, 1)
    sandbox: str = "local"
    docker_image: str | None = None
    cluster: str | None = None
    """A Dask scheduler (``tcp://HOST:PORT``) or ``local:N``: verification runs there."""
    evaluator_model: str | None = None
    """``PROVIDER:NAME`` of the model the benchmark itself asks while preparing a candidate for
    judging (``Benchmark.prepare``), never the model under test's: SysMoBench's evaluator
    concretises invariant templates for each model, say."""

    def __attrs_post_init__(self) -> None:
        for f in attrs.fields(RunConfig):
            value = getattr(self, f.name)
            if value is None and f.name in OPTIONAL:
                continue
            try:
                validation.field(f.name, value)
            except (TypeError, ValueError) as exc:
                raise KernelError(f"invalid value for '{f.name}': {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = to_json(self)
        return data


FIELDS = {f.name for f in attrs.fields(RunConfig)}
OPTIONAL = frozenset({"limit", "verify_timeout_s", "max_cost", "docker_image", "cluster",
                      "evaluator_model"})
"""Fields that may be unset (``None``): no limit, the verifier's own budget, no cost cap, no
image, verification on this machine, no evaluator model."""

MAX_RUN_FILE_BYTES = 1_000_000


def _coerce(name: str, value: Any, where: str) -> Any:
    """Turn a YAML/flag value into the field's type, with a one-line error naming ``where``."""
    if value is None and name in OPTIONAL:
        return None
    try:
        return validation.field(name, value)
    except (TypeError, ValueError) as exc:
        raise KernelError(f"{where}: invalid value for '{name}': {exc}") from None


def load_run_file(path: Path) -> dict[str, Any]:
    """The fields a run file sets, type-checked; errors name the file and line."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_RUN_FILE_BYTES + 1)
    except OSError as exc:
        raise KernelError(f"cannot read run file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_RUN_FILE_BYTES:
        raise KernelError(f"{path}: a run file is at most {MAX_RUN_FILE_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KernelError(f"{path}: not UTF-8 text (byte {exc.start}: "
                          f"{raw[exc.start:exc.start + 1]!r})") from None
    data = load_yaml(text, str(path))
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise KernelError(f"{path}: a run file is a mapping of settings, not {type(data).__name__}")
    out: dict[str, Any] = {}
    for key in data:
        where = key_line(data, key, str(path))
        if key not in FIELDS:
            raise KernelError(f"{where}: {unknown_name('key', str(key), FIELDS)}")
        value = data[key]
        if value is None:
            continue
        out[key] = _coerce(key, plain(value, f"{where}: invalid value for '{key}'"), where)
    return out


def _flags(flags: Mapping[str, Any]) -> dict[str, Any]:
    """The flags that are set, checked (``None`` and empty ones are unset)."""
    return {key: _coerce(key, value, f"--{key.replace('_', '-')}")
            for key, value in flags.items() if value is not None and value != ()}


def resolve(file_values: Mapping[str, Any], flags: Mapping[str, Any]) -> RunConfig:
    """Merge a run file's values with flags (flags win; ``None`` flags are unset)."""
    merged = {**file_values, **_flags(flags)}
    if "benchmark" not in merged:
        raise KernelError("no benchmark given: name one (kernel run NAME) or set 'benchmark:'")
    return RunConfig(**merged)


def override(config: RunConfig, flags: Mapping[str, Any]) -> RunConfig:
    """``config`` with the flags that are set (``kernel run --resume DIR --max-cost 50``)."""
    return attrs.evolve(config, **_flags(flags))


def from_run_info(info: Mapping[str, Any]) -> RunConfig:
    """The configuration stored in a run directory's ``run.yaml``."""
    try:
        config = dict(info["config"])
        return resolve({k: _coerce(k, v, "run.yaml") for k, v in config.items() if v is not None},
                       {})
    except (KeyError, TypeError, ValueError) as exc:
        raise KernelError(f"run.yaml has no usable 'config' section ({exc})") from exc
