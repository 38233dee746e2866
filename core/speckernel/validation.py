"""The rules a run's configuration must satisfy: the type, range and finiteness of every number,
the shape of every structure, and a cap on the samples a run may plan.

A run file, a flag, an environment variable or a resumed ``run.yaml`` all end as ``RunConfig``
fields, and each field is checked by one function here, whichever way it came: ``config`` calls
``field`` to turn a raw value into the field's type (naming the file and line on failure), and
``RunConfig`` calls it again on construction, so a value set any other way (a flag overriding a
resumed run, a plugin's test) meets the same rules. Before these checks a YAML ``samples: 1e30``
materialised sample keys until memory ran out, ``limit: -1`` dropped one task silently,
``max_cost: .nan`` disabled the budget and ``params: {temperature: hot}`` reached the provider
(issue 20).

Errors are ``ValueError`` or ``TypeError`` with a message that reads after ``invalid value for
'<field>': ``; the caller adds where the value came from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import attrs

from speckernel.errors import KernelError
from speckernel.model import GenerateParams

MAX_SAMPLES_PER_TASK = 100_000
"""``samples``: attempts per task, agent and model. pass@k needs tens, best-of-n hundreds."""

MAX_PLANNED_SAMPLES = 1_000_000
"""Samples one run may plan (tasks x agents x models x samples): the runner holds every key in
memory (about 100 MB at this cap), and a million model calls is beyond any budget this harness
was written for. Split a larger study into several runs."""

MAX_CONCURRENCY = 4096
MAX_TIMEOUT_S = 7 * 24 * 3600.0
"""A week: long enough for any check, short enough that every timer the kernel arms fits."""

MAX_SHARDS = 100_000
MAX_COST_USD = 1e9
MAX_TOKENS = 10_000_000
MAX_LIST = 10_000
"""Entries of ``agents``, ``models``, ``tasks`` or ``params.stop``."""

MAX_DEPTH = 32
"""Nesting of mappings and lists inside an options mapping."""

INT64 = 2**63


def _integer(value: Any) -> int:
    """An int (a numeric string from a flag or an environment variable too), never a bool or a
    float: ``samples: 1.5`` or ``1e23`` is a mistake, not a request for rounding."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"expected an integer, got {_shown(value)}")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"expected an integer, got {_shown(value)}") from None


def integer(value: Any, lo: int, hi: int) -> int:
    number = _integer(value)
    if not lo <= number <= hi:
        raise ValueError(f"must be between {lo:,} and {hi:,}, got {_shown(number)}")
    return number


def real(value: Any, lo: float, hi: float, *, above: bool = False) -> float:
    """A finite float in ``[lo, hi]`` (``(lo, hi]`` when ``above``)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(f"expected a number, got {_shown(value)}")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise ValueError(f"expected a number, got {_shown(value)}") from None
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, got {_shown(value)}")
    if number < lo or number > hi or (above and number == lo):
        low = f"more than {lo:g}" if above else f"at least {lo:g}"
        raise ValueError(f"must be {low} and at most {hi:g}, got {_shown(value)}")
    return number


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def names(value: Any) -> tuple[str, ...]:
    """``agents``, ``models``, ``tasks``: one name or a list of names (scalars only)."""
    items = list(value) if isinstance(value, list | tuple) else [value]
    if len(items) > MAX_LIST:
        raise ValueError(f"more than {MAX_LIST:,} entries")
    for item in items:
        if isinstance(item, Mapping | list | tuple) or item is None:
            raise TypeError(f"expected names, got {_shown(item)}")
    return tuple(str(item) for item in items)


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)`` (the range is checked by ``shard``)."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match:
        raise ValueError(f"expected i/n, e.g. 0/4, got {_shown(text)}")
    return int(match[1]), int(match[2])


def shard(value: Any) -> tuple[int, int]:
    """``i/n`` as a string or a pair, with ``0 <= i < n``."""
    if isinstance(value, str):
        value = parse_shard(value)
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise TypeError(f"expected i/n or [i, n], got {_shown(value)}")
    index, count = (integer(v, 0, MAX_SHARDS) for v in value)
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"invalid shard {index}/{count}: want i/n with 0 <= i < n")
    return index, count


def params(value: Any) -> GenerateParams:
    """Sampling parameters with the ranges both vendors' APIs accept: ``temperature`` in
    [0, 2] (OpenAI's range; Anthropic's is [0, 1] and its server says so), ``top_p`` in [0, 1],
    ``max_tokens`` at least 1, ``stop`` strings, ``seed`` a 64-bit integer."""
    if isinstance(value, GenerateParams):
        value = attrs.asdict(value, recurse=False)
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a mapping, got {_shown(value)}")
    known = {f.name for f in attrs.fields(GenerateParams)}
    unknown = sorted(set(map(str, value)) - known)
    if unknown:
        raise TypeError(f"unknown parameter '{unknown[0]}'")
    checked: dict[str, Any] = {}
    for key, raw in value.items():
        if raw is None or (key == "stop" and raw in ((), [])):
            continue
        try:
            checked[key] = _PARAMS[key](raw)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{key}: {exc}") from None
    return GenerateParams(**checked)


def _stop(raw: Any) -> tuple[str, ...]:
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or not all(isinstance(s, str) and s for s in items):
        raise TypeError(f"expected stop strings, got {_shown(raw)}")
    if len(items) > MAX_LIST:
        raise ValueError(f"more than {MAX_LIST:,} stop strings")
    return tuple(items)


_PARAMS: Mapping[str, Any] = {
    "temperature": lambda v: real(v, 0.0, 2.0),
    "top_p": lambda v: real(v, 0.0, 1.0),
    "max_tokens": lambda v: integer(v, 1, MAX_TOKENS),
    "seed": lambda v: integer(v, -INT64, INT64 - 1),
    "stop": _stop,
}


def options(value: Any) -> dict[str, Any]:
    """A benchmark's, an agent's or a provider's options: a mapping of names to plain data
    (strings, booleans, null, finite numbers, lists and mappings of them) nested at most
    ``MAX_DEPTH`` deep. What each option means is its owner's to check; that it is data, and
    that its numbers are numbers, is checked here for all of them."""
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a mapping, got {_shown(value)}")
    _check_data(value, 0, "")
    return {str(k): v for k, v in value.items()}


def _check_data(value: Any, depth: int, path: str) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"{path or 'value'} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{path or 'value'} must be a finite number, got {value!r}")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"option names must be strings, got {_shown(k)}")
            _check_data(v, depth + 1, f"{path}.{k}" if path else k)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_data(v, depth + 1, f"{path}[{i}]")
    elif not (value is None or isinstance(value, str | int | float)):
        raise TypeError(f"{path or 'value'}: expected plain data, got {type(value).__name__}")


def _timeout(value: Any) -> float:
    return real(value, 0.0, MAX_TIMEOUT_S, above=True)


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("expected true or false")
    return value


def _text(value: Any) -> str:
    if isinstance(value, Mapping | list | tuple) or value is None:
        raise TypeError(f"expected text, got {_shown(value)}")
    return str(value)


FIELDS: Mapping[str, Any] = {
    "benchmark": _text,
    "agents": names,
    "models": names,
    "samples": lambda v: integer(v, 1, MAX_SAMPLES_PER_TASK),
    "tasks": names,
    "limit": lambda v: integer(v, 1, MAX_PLANNED_SAMPLES),
    "seed": lambda v: integer(v, -INT64, INT64 - 1),
    "options": options,
    "agent_options": options,
    "model_options": options,
    "params": params,
    "model_concurrency": lambda v: integer(v, 1, MAX_CONCURRENCY),
    "verifier_concurrency": lambda v: integer(v, 1, MAX_CONCURRENCY),
    "sample_timeout_s": _timeout,
    "model_timeout_s": _timeout,
    "verify_timeout_s": _timeout,
    "max_cost": lambda v: real(v, 0.0, MAX_COST_USD),
    "cache": _boolean,
    "shard": shard,
    "sandbox": _text,
    "docker_image": _text,
    "cluster": _text,
    "evaluator_model": _text,
}
"""Field name -> the function that checks a raw value and returns it as the field's type.
``None`` (unset) is handled by the caller: only ``config.OPTIONAL`` fields may be ``None``."""


def field(name: str, value: Any) -> Any:
    """``value`` checked and converted for the ``RunConfig`` field ``name``."""
    return FIELDS[name](value)


def planned(count: int) -> None:
    """Refuse a run planning more than ``MAX_PLANNED_SAMPLES`` samples, before any key is made."""
    if count > MAX_PLANNED_SAMPLES:
        raise KernelError(f"the run plans {count:,} samples (tasks x agents x models x "
                          f"samples), more than the {MAX_PLANNED_SAMPLES:,} one run may hold; "
                          "use fewer samples, --task or --limit, or split it into several runs")
