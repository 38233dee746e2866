"""The data model: what flows between the runner, the plugins and the run store.

Every class is a frozen ``attrs`` class so a value handed to a plugin cannot be changed behind the
runner's back, and every class round-trips through plain JSON (``to_json`` / ``from_json``) so the
run store can replay a run without importing the plugin that produced it.

One *sample* is one task x one agent x one model x one attempt (``SampleKey``).
"""

from __future__ import annotations

import enum
import hashlib
import json
import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import attrs

T = TypeVar("T")

JSON = Any
"""A value made of dict, list, str, int, float, bool and None only."""

Files = Mapping[str, str]
"""An artifact: relative POSIX path -> text content."""


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


class Status(enum.StrEnum):
    """Outcome of one verifier call, ordered from best to worst for display.

    ``error`` means the infrastructure failed (a missing tool, a crash of the harness), not the
    artifact: ``kernel run --resume`` re-runs samples that ended in ``error``. ``timeout`` means the
    verifier ran out of its budget on this artifact, which *is* a verdict about the artifact.
    """

    SUCCESS = "success"
    FAILURE = "failure"
    UNKNOWN = "unknown"
    TIMEOUT = "timeout"
    ERROR = "error"


@attrs.frozen
class Message:
    """One chat message, in the role vocabulary every provider maps to its own wire format."""

    role: str  # "system" | "user" | "assistant"
    content: str


@attrs.frozen
class Usage:
    """Tokens and money spent; ``+`` adds two usages.

    ``unpriced_calls`` counts the calls whose price is unknown (a model the price table does
    not list): their cost is not in ``cost_usd``, which is then a lower bound, and displays say
    so instead of showing $0."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    unpriced_calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cost_usd + other.cost_usd,
            self.calls + other.calls,
            self.unpriced_calls + other.unpriced_calls,
        )


@attrs.frozen
class GenerateParams:
    """Sampling parameters an agent passes to a model; ``None`` means the provider's default."""

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def over(self, base: GenerateParams) -> GenerateParams:
        """These parameters where set, ``base``'s elsewhere: an agent's per-call parameters
        refine the run's (``params:`` in a run file) instead of replacing them."""
        return GenerateParams(
            *(mine if mine not in (None, ()) else theirs
              for mine, theirs in zip(attrs.astuple(self, recurse=False),
                                      attrs.astuple(base, recurse=False), strict=True)))


@attrs.frozen
class Completion:
    """A model's answer to one request."""

    text: str
    model: str
    usage: Usage = Usage()
    latency_s: float = 0.0
    finish_reason: str | None = None
    cached: bool = False


@attrs.frozen
class Task:
    """One benchmark problem.

    ``files`` are the inputs the agent may read (source code, traces, requirement text);
    ``reference`` is the benchmark's own solution artifact when it has one (the ``reference``
    agent returns it); ``metadata`` holds benchmark-specific fields (module name, invariant
    templates, budgets) that the benchmark's verifiers and scorers interpret.
    """

    id: str
    benchmark: str
    prompt: str = ""
    files: Files = attrs.field(factory=dict, converter=_frozen_mapping)
    metadata: Mapping[str, JSON] = attrs.field(factory=dict, converter=_frozen_mapping)
    reference: Files | None = None

    def digest(self) -> str:
        """A content hash: two tasks with the same digest are the same problem."""
        return digest_json(to_json(self))


@attrs.frozen
class Provenance:
    """Where a candidate came from: enough to audit its cost and replay its generation."""

    agent: str
    model: str
    messages: tuple[Message, ...] = ()
    usage: Usage = Usage()
    wall_time_s: float = 0.0
    verifier_calls: int = 0
    notes: Mapping[str, JSON] = attrs.field(factory=dict, converter=_frozen_mapping)


@attrs.frozen
class Candidate:
    """An artifact an agent produced for a task, with its provenance."""

    files: Files = attrs.field(converter=_frozen_mapping)
    provenance: Provenance

    def digest(self) -> str:
        return digest_json(dict(sorted(self.files.items())))


@attrs.frozen
class Diagnostic:
    """One message from a verifier, located in the artifact when the tool says where."""

    message: str
    severity: str = "error"  # "error" | "warning" | "info"
    file: str | None = None
    line: int | None = None
    column: int | None = None
    code: str | None = None


@attrs.frozen
class Verdict:
    """What one verifier said about one candidate.

    ``data`` carries structured, verifier-specific results (per-action outcomes, counterexamples,
    coverage) that scorers read; ``diagnostics`` is what a human or a repair prompt reads.
    """

    verifier: str
    status: Status = attrs.field(converter=Status)
    diagnostics: tuple[Diagnostic, ...] = ()
    tool: str = ""
    tool_version: str = ""
    duration_s: float = 0.0
    data: Mapping[str, JSON] = attrs.field(factory=dict, converter=_frozen_mapping)
    cached: bool = False

    @property
    def passed(self) -> bool:
        return self.status is Status.SUCCESS

    def summary(self, limit: int = 20) -> str:
        """The diagnostics as text, the form a repair prompt feeds back to a model."""
        lines = [f"{self.verifier}: {self.status.value}"]
        for d in self.diagnostics[:limit]:
            where = ":".join(str(p) for p in (d.file, d.line, d.column) if p is not None)
            lines.append(f"  {d.severity}: {where + ': ' if where else ''}{d.message}")
        if len(self.diagnostics) > limit:
            lines.append(f"  ... {len(self.diagnostics) - limit} more")
        return "\n".join(lines)


@attrs.frozen
class Score:
    """The metric values a scorer assigned to one sample; ``None`` means not applicable."""

    scorer: str
    values: Mapping[str, float | None] = attrs.field(converter=_frozen_mapping)
    explanation: str = ""

    def finite(self) -> Score:
        """This score as the run store keeps it: a NaN or infinite value (a ratio of 0/0, say)
        becomes ``None``, not applicable, with a note in the explanation, since strict JSON has
        no such numbers; a value that is not a number at all raises ``TypeError``."""
        notes = []
        values: dict[str, float | None] = {}
        for name, value in self.values.items():
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, int | float)):
                raise TypeError(f"scorer {self.scorer}: '{name}' is {type(value).__name__}, "
                                "not a number")
            if value is not None and not math.isfinite(value):
                notes.append(f"{name} was {value!r}, recorded as null")
                value = None
            values[name] = value
        if not notes:
            return self
        explanation = "; ".join(filter(None, [self.explanation, *notes]))
        return Score(self.scorer, values, explanation)


_UNSAFE_ID_CHARS = re.compile(r"[^\w.+-]")
"""Anything but a letter, digit (``str.isalnum``: the same set as ``\\w`` less ``_``), or one of
``-_.+``; one regex pass instead of a Python-level loop per character, as the viewer computes
the ids of 10,000 samples when it opens a run."""


@attrs.frozen(order=True)
class SampleKey:
    """Identifies a sample within a run; ``index`` is the attempt number (0-based)."""

    task_id: str
    agent: str
    model: str
    index: int

    @property
    def id(self) -> str:
        """A readable, filesystem-safe id that is unique within a run."""
        raw = f"{self.task_id}__{self.agent}__{self.model}__{self.index}"
        safe = _UNSAFE_ID_CHARS.sub("-", raw)
        if safe != raw:
            safe += "-" + hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        return safe


@attrs.frozen
class Sample:
    """Everything recorded about one finished sample: one line of ``samples.jsonl``.

    ``error`` is set when the sample could not be completed (agent crash, provider outage); such a
    sample has ``status`` ``error`` and is re-run by ``--resume``. ``log`` is what the agent and
    the runner logged while producing it (``kernel show`` prints it). ``solved`` is the
    benchmark's verdict (``Benchmark.solved``) taken when the sample was recorded, so reports and
    the viewer need no plugin; ``None`` in samples recorded before kernels kept it.
    """

    key: SampleKey
    status: Status = attrs.field(converter=Status)
    candidate: Candidate | None = None
    verdicts: tuple[Verdict, ...] = ()
    scores: tuple[Score, ...] = ()
    measurements: Mapping[str, float] = attrs.field(factory=dict, converter=_frozen_mapping)
    error: str | None = None
    started_at: float = 0.0
    duration_s: float = 0.0
    task_digest: str = ""
    log: tuple[str, ...] = ()
    solved: bool | None = None

    @property
    def id(self) -> str:
        return self.key.id

    def metrics(self) -> dict[str, float | None]:
        """All scorer values flattened into one mapping (later scorers win on a clash)."""
        out: dict[str, float | None] = {}
        for s in self.scores:
            out.update(s.values)
        return out


# --------------------------------------------------------------------------- JSON round-trip

_PLAIN = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_FIELD_TYPES: dict[type, tuple[tuple[str, Any], ...]] = {}


def _enc(value: Any) -> Any:
    # On the run store's hot path (one call per finished sample): plain values first, and each
    # attrs class's field names looked up once.
    kind = type(value)
    if kind in _PLAIN:
        return value
    names = _FIELD_NAMES.get(kind)
    if names is None and attrs.has(kind):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in attrs.fields(kind))
    if names is not None:
        return {name: _enc(getattr(value, name)) for name in names}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _enc(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_enc(v) for v in value]
    return value


def to_json(value: Any) -> JSON:
    """Turn a model value into plain JSON data (the run store's format)."""
    return _enc(value)


def _decode(tp: Any, raw: Any) -> Any:
    """Rebuild a value of type ``tp`` from JSON data, following the resolved type hints."""
    if raw is None:
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _decode(inner[0], raw) if len(inner) == 1 else raw
    if origin is tuple:
        return tuple(_decode(args[0], r) for r in raw)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(raw)
    if isinstance(tp, type) and attrs.has(tp):
        return tp(**{name: _decode(hint, raw[name])
                     for name, hint in _field_types(tp) if name in raw})
    return raw


def _field_types(cls: type) -> tuple[tuple[str, Any], ...]:
    # Resolving string annotations costs far more than decoding a sample: a run reads every
    # sample back at its end (report tables), so each class's hints are resolved once.
    found = _FIELD_TYPES.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = _FIELD_TYPES[cls] = tuple((f.name, hints[f.name]) for f in attrs.fields(cls))
    return found


def from_json(cls: type[T], data: JSON) -> T:
    """Inverse of ``to_json`` for the model classes."""
    value: T = _decode(cls, data)
    return value


def strict_json(value: Any) -> JSON:
    """``value`` as data that strict JSON (RFC 8259) can hold: a non-finite float becomes
    ``None`` (JSON has no NaN or Infinity; Python's ``json`` would write them as bare words no
    other parser reads) and an object JSON has no form for becomes its ``str``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str | int):
        return value
    if isinstance(value, Mapping):
        return {str(k): strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    return str(value)


def canonical_json(value: JSON) -> str:
    """Deterministic JSON text: the basis of every content hash in the kernel."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_json(value: JSON) -> str:
    """The SHA-256 of ``value``'s canonical JSON. A lone surrogate (which a model's JSON answer
    can carry) is hashed as its code unit rather than refused, so every text has a digest."""
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()
