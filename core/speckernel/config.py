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
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from speckernel.errors import KernelError, unknown_name
from speckernel.model import GenerateParams, from_json, to_json
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

    def __attrs_post_init__(self) -> None:
        if self.samples < 1:
            raise KernelError(f"samples must be at least 1, got {self.samples}")
        if self.model_concurrency < 1 or self.verifier_concurrency < 1:
            raise KernelError("concurrency limits must be at least 1")
        index, count = self.shard
        if count < 1 or not 0 <= index < count:
            raise KernelError(f"invalid shard {index}/{count}: want i/n with 0 <= i < n")

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = to_json(self)
        return data


FIELDS = {f.name for f in attrs.fields(RunConfig)}


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match:
        raise KernelError(f"invalid --shard '{text}': expected i/n, e.g. 0/4")
    return int(match[1]), int(match[2])


def _coerce(name: str, value: Any, where: str) -> Any:
    """Turn a YAML/flag value into the field's type, with a one-line error naming ``where``."""
    try:
        if name in ("agents", "models", "tasks"):
            return tuple(str(v) for v in (value if isinstance(value, list | tuple) else [value]))
        if name == "params":
            if not isinstance(value, Mapping):
                raise TypeError("expected a mapping")
            bad = set(value) - {f.name for f in attrs.fields(GenerateParams)}
            if bad:
                raise TypeError(f"unknown parameter '{sorted(bad)[0]}'")
            return from_json(GenerateParams, dict(value))
        if name in ("options", "agent_options", "model_options"):
            if not isinstance(value, Mapping):
                raise TypeError("expected a mapping")
            return dict(value)
        if name == "shard":
            return parse_shard(value) if isinstance(value, str) else (int(value[0]), int(value[1]))
        if name in ("samples", "seed", "model_concurrency", "verifier_concurrency", "limit"):
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise TypeError("expected an integer")
            return int(value)
        if name in ("sample_timeout_s", "model_timeout_s", "verify_timeout_s", "max_cost"):
            return float(value)
        if name == "cache":
            if not isinstance(value, bool):
                raise TypeError("expected true or false")
            return value
        return str(value)
    except (TypeError, ValueError) as exc:
        raise KernelError(f"{where}: invalid value for '{name}': {exc}") from exc


def load_run_file(path: Path) -> dict[str, Any]:
    """The fields a run file sets, type-checked; errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise KernelError(f"cannot read run file {path}: {exc.strerror}") from exc
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
        out[key] = _coerce(key, plain(value), where)
    return out


def resolve(file_values: Mapping[str, Any], flags: Mapping[str, Any]) -> RunConfig:
    """Merge a run file's values with flags (flags win; ``None`` flags are unset)."""
    merged = dict(file_values)
    for key, value in flags.items():
        if value is None or value == ():
            continue
        merged[key] = _coerce(key, value, f"--{key.replace('_', '-')}")
    if "benchmark" not in merged:
        raise KernelError("no benchmark given: name one (kernel run NAME) or set 'benchmark:'")
    return RunConfig(**merged)


def from_run_info(info: Mapping[str, Any]) -> RunConfig:
    """The configuration stored in a run directory's ``run.yaml``."""
    try:
        config = dict(info["config"])
        return resolve({k: _coerce(k, v, "run.yaml") for k, v in config.items() if v is not None},
                       {})
    except (KeyError, TypeError) as exc:
        raise KernelError(f"run.yaml has no usable 'config' section ({exc})") from exc
