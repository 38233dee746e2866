"""The base classes a plugin subclasses: benchmarks, agents, models, verifiers, scorers,
harnesses and toolchains.

A plugin's hook implementations construct these objects and hand them to ``register``; the kernel
calls their methods. Methods that wait on the outside world (a model, a verifier process) are
``async`` and awaited by the runner; everything else is synchronous and cheap.
"""

from __future__ import annotations

import abc
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal, TypeVar

import attrs

from speckernel.model import (
    Candidate,
    Completion,
    Files,
    GenerateParams,
    Message,
    Sample,
    SampleKey,
    Score,
    Task,
    Verdict,
)
from speckernel.sandbox.base import Limits, ProcessResult, Sandbox

R = TypeVar("R")

# --------------------------------------------------------------------------- contexts


class Workers(abc.ABC):
    """Runs plugin functions in worker processes the kernel can kill (``run_sync``)."""

    @abc.abstractmethod
    async def call(self, fn: Callable[..., R], args: Sequence[Any], limits: Limits) -> R:
        """``fn(*args)`` in a worker within ``limits``; see ``VerifyContext.run_sync``."""


class ToolResolver(abc.ABC):
    """Looks up the installed toolchains a verifier declared (see ``Verifier.tools``)."""

    @abc.abstractmethod
    def status(self, name: str) -> ToolStatus:
        """The detected state of toolchain ``name``; ``KernelError`` if none is registered."""


class VerifyContext(abc.ABC):
    """What a verifier or harness may use while checking one candidate."""

    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]
    workers: Workers

    async def run(self, argv: Sequence[str], **kwargs: Any) -> ProcessResult:
        """Shorthand for ``self.sandbox.run(argv, limits=self.limits, ...)``."""
        kwargs.setdefault("limits", self.limits)
        return await self.sandbox.run(argv, **kwargs)

    async def run_sync(self, fn: Callable[..., R], *args: Any, limits: Limits | None = None) -> R:
        """``fn(*args)`` in a kernel worker process, for CPU-bound checking done in Python (a
        regex engine, a solver binding, an SQL engine, a parser): the event loop never waits
        on it, and a call past ``limits.wall_s`` (default ``self.limits``) kills the worker.

        ``fn`` must be a module-level function of an installed package; ``args`` and the result
        are pickled, and the result may hold only plain data (None, bool, int, float, str,
        bytes, and lists, tuples, dicts, sets of them) — the worker read untrusted input, so
        the kernel unpickles nothing that could run code. Raises ``TimeoutError`` past the
        wall budget, ``CandidateError`` when the candidate broke the worker (stack, memory, or
        ``CandidateError`` raised by ``fn``), and ``WorkerError`` for any other exception.
        """
        return await self.workers.call(fn, args, limits or self.limits)

    def log(self, message: str) -> None:  # noqa: B027 - a context without a log drops lines
        """A line for the sample's log, for what a harness saw that is not a number (which
        network a cluster ran on, say). Verifiers record their findings in the verdict instead:
        a verdict may be cached and shared between samples, a log line may not."""


class AgentContext(abc.ABC):
    """What an agent may use while solving one task: the model, the verifiers, a log.

    Agents never talk HTTP themselves: ``generate`` goes through the kernel's cache, rate limiter
    and cost accounting, and every call is recorded in the sample's provenance.
    """

    key: SampleKey
    benchmark: Benchmark
    benchmark_options: Mapping[str, Any]
    """The run's benchmark options, defaults merged in (read-only)."""
    model_name: str
    options: Mapping[str, Any]
    """The run's agent options."""
    seed: int
    sandbox: Sandbox
    """The run's sandbox: an agent that runs a tool on a draft (a compiler for feedback) goes
    through it like a verifier does, never through ``subprocess``."""
    workers: Workers

    async def run(self, argv: Sequence[str], **kwargs: Any) -> ProcessResult:
        """``self.sandbox.run(argv, ...)`` with default ``Limits``."""
        return await self.sandbox.run(argv, **kwargs)

    async def run_sync(self, fn: Callable[..., R], *args: Any, limits: Limits | None = None) -> R:
        """As ``VerifyContext.run_sync`` (default ``Limits()``)."""
        return await self.workers.call(fn, args, limits or Limits())

    @abc.abstractmethod
    async def generate(
        self, messages: Sequence[Message], params: GenerateParams | None = None
    ) -> Completion:
        """Ask the sample's model; ``params`` refine the run's parameters field by field.
        Raises ``KernelError`` when the sample has no model."""

    @abc.abstractmethod
    async def verify(self, files: Files) -> list[Verdict]:
        """Run the benchmark's phase-gated verifier pipeline on a draft artifact."""

    @abc.abstractmethod
    def log(self, message: str) -> None:
        """Append a line to the sample's log (``kernel show`` prints it)."""


class EvaluatorContext(abc.ABC):
    """What a benchmark may use while preparing a candidate for its verifiers
    (:meth:`Benchmark.prepare`): the run's evaluator model, never the model under test.

    Some checks need a model on the evaluator's side: SysMoBench's evaluator concretises each
    invariant template in the vocabulary of the model being judged. Written by the agent under
    test, that text would be criteria the candidate sets for itself. The evaluator model is the
    run's ``evaluator_model`` (``--evaluator-model``); its calls go through the kernel's cache,
    budget and response log like an agent's, and are counted in the sample's provenance notes
    (``evaluator``), apart from the agent's.
    """

    model_name: str | None
    """``PROVIDER:NAME`` of the evaluator model; None when the run names none."""
    options: Mapping[str, Any]
    """The run's benchmark options, defaults merged in (read-only)."""

    @abc.abstractmethod
    async def generate(
        self, messages: Sequence[Message], params: GenerateParams | None = None
    ) -> Completion:
        """Ask the evaluator model. Raises ``KernelError`` when the run names none."""

    @abc.abstractmethod
    def log(self, message: str) -> None:
        """Append a line to the sample's log."""


# --------------------------------------------------------------------------- components


@attrs.frozen
class Phase:
    """One step of a benchmark's verifier pipeline.

    When ``gate`` is true the later phases run only if every verifier of this phase succeeded
    (SysMoBench §3.2: syntax, then runtime, then conformance and invariants).
    """

    name: str
    verifiers: tuple[str, ...]
    gate: bool = True


@attrs.frozen
class Metric:
    """Describes one value a scorer produces, so reports can format and aggregate it."""

    name: str
    description: str = ""
    unit: Literal["ratio", "count", "seconds", "usd", "bool"] = "ratio"
    higher_is_better: bool = True
    aggregate: Literal["mean", "sum", "max", "min"] = "mean"


@attrs.frozen
class Table:
    """A report table a benchmark adds to ``kernel report`` (the shape of its paper's tables)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    note: str = ""


class Benchmark(abc.ABC):
    """A set of tasks plus how to check and score answers to them.

    ``phases`` names registered verifiers, ``scorers`` and ``harnesses`` name registered scorers
    and harnesses, so a user can swap one implementation for another (OpenJML for KeY, say).
    ``options`` holds the defaults of every option the benchmark accepts; a run file may override
    them, and an unknown option is an error. ``option_descriptions`` says what each does, in a
    line (``kernel list options NAME`` and ``kernel run NAME --help`` show them).
    """

    name: ClassVar[str]
    version: ClassVar[str] = "0"
    description: ClassVar[str] = ""
    phases: ClassVar[tuple[Phase, ...]] = ()
    scorers: ClassVar[tuple[str, ...]] = ()
    harnesses: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[Mapping[str, Any]] = {}
    option_descriptions: ClassVar[Mapping[str, str]] = {}
    default_agent: ClassVar[str] = "reference"
    primary_metric: ClassVar[str | None] = None

    @abc.abstractmethod
    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        """Every task of the benchmark under ``options`` (defaults merged in), in a stable order."""

    def pipeline(self, options: Mapping[str, Any]) -> tuple[Phase, ...]:
        """The phases that run under ``options``: all of ``phases`` by default. Override it to
        drop a phase an option turns off (checking only for cheats, say)."""
        return self.phases

    def preflight(self, options: Mapping[str, Any], agents: tuple[str, ...]) -> None:
        """Refuse a run before it starts by raising ``KernelError`` with one line, for what the
        kernel cannot see (a dataset the options point at is missing, say). The kernel itself
        refuses a run whose verifiers' or harnesses' tools are missing, before any model
        call. Nothing more is refused by default."""
        return None

    def solved(self, sample: Sample) -> bool:
        """Whether a sample counts as a pass for pass@k: by default, every verdict succeeded
        and the primary metric (if any) is 1."""
        if not sample.verdicts or any(not v.passed for v in sample.verdicts):
            return False
        if self.primary_metric is None:
            return True
        return sample.metrics().get(self.primary_metric) == 1.0

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        """Benchmark-specific tables for ``kernel report`` (none by default)."""
        return []

    async def prepare(self, candidate: Candidate, task: Task, ctx: EvaluatorContext) -> Files:
        """Files the benchmark's own evaluator adds to an agent's answer before it is judged,
        each named under ``evaluator/`` (:data:`speckernel.evaluation.EVALUATOR_DIR`): the
        kernel drops any file an agent names there, so the verifiers know these are the
        evaluator's and not the candidate's. Called once per sample, after the agent and
        before the pipeline (not for an agent's drafts, nor when ``kernel rescore`` judges the
        saved candidate again, which keeps them). None by default."""
        return {}


class Agent(abc.ABC):
    """Produces an artifact for a task. ``benchmarks`` restricts it to some benchmarks
    (empty: any); ``needs_model`` false lets it run with ``--model none``."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    benchmarks: ClassVar[tuple[str, ...]] = ()
    needs_model: ClassVar[bool] = True

    @abc.abstractmethod
    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        """Return the artifact's files. Raising marks the sample ``error`` (retried on resume);
        return whatever the model produced, however broken, to have it judged instead."""

    def unsolvable(self, task: Task) -> str | None:
        """Why this agent cannot attempt ``task`` at all, or None (the default: it can).

        The run leaves such task/agent pairs out before the first sample and says so once,
        instead of recording an ``error`` per sample that no resume could ever fix (the
        ``reference`` agent on a task that has no reference artifact)."""
        return None


class Model(abc.ABC):
    """One model of a provider, e.g. ``openai:gpt-5``."""

    id: str

    @abc.abstractmethod
    async def complete(self, messages: Sequence[Message], params: GenerateParams) -> Completion:
        """Send one request. Retries and rate limiting are the provider's job; raise
        ``ProviderError`` once it gives up."""

    def max_cost_usd(self, messages: Sequence[Message], params: GenerateParams) -> float | None:
        """The most one request can cost, in USD, which ``--max-cost`` reserves while it is in
        flight (``speckernel.budget``); ``None`` when it cannot be bounded."""
        return None


class ModelProvider(abc.ABC):
    """Makes ``Model`` objects for names ``<prefix>:<model>`` (``prefix`` is the provider name)."""

    name: ClassVar[str]
    description: ClassVar[str] = ""

    @abc.abstractmethod
    def model(self, model: str, options: Mapping[str, Any]) -> Model:
        """The model called ``model`` (the part after ``<prefix>:``)."""

    def cache_identity(self, model: str, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """What, besides the request, decides a response (part of the cache key)."""
        return {"provider": self.name, "model": model}


class Verifier(abc.ABC):
    """Checks a candidate with a real tool. ``tools`` names the toolchains it needs: a run whose
    tools are not all found is refused before its first model call, naming them and the command
    that installs them (on a cluster, a worker without one gives an ``error`` verdict naming it),
    and their detected versions are part of the verdict cache key, with ``version`` (bump it
    when the verifier's own logic changes)."""

    name: ClassVar[str]
    version: ClassVar[str] = "0"
    description: ClassVar[str] = ""
    tools: ClassVar[tuple[str, ...]] = ()
    limits: ClassVar[Limits] = Limits()
    resources: ClassVar[Mapping[str, float]] = {}
    """On a Dask cluster, what one call claims of a worker (Dask worker resources): a verifier
    that needs a whole machine (a KeY server, a cluster harness) declares ``{"machine": 1}``
    and runs only on workers started with ``--resources machine=1``, one call at a time."""

    def tools_for(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """The toolchains a run with benchmark ``options`` needs: ``tools`` unless an option
        picks the tool (e.g. a ``backend`` option choosing between two provers), so a user of
        one backend is never asked to install the other."""
        return self.tools

    @abc.abstractmethod
    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        """Judge ``candidate``. Broken artifacts are verdicts (failure, timeout), not exceptions;
        an exception is recorded as an ``error`` verdict."""


class Scorer(abc.ABC):
    """Turns verdicts into metric values, as the benchmark's paper defines them."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    metrics: ClassVar[tuple[Metric, ...]] = ()

    @abc.abstractmethod
    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        """Score one sample; pure and deterministic, so ``kernel rescore`` reproduces it."""


class Harness(abc.ABC):
    """Measures a produced artifact's performance (throughput, latency, memory)."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    metrics: ClassVar[tuple[Metric, ...]] = ()
    tools: ClassVar[tuple[str, ...]] = ()
    resources: ClassVar[Mapping[str, float]] = {}
    """As ``Verifier.resources``."""

    @abc.abstractmethod
    async def measure(
        self, candidate: Candidate, task: Task, ctx: VerifyContext
    ) -> Mapping[str, float]:
        """Run the artifact under load and return metric name -> value."""


# --------------------------------------------------------------------------- toolchains


@attrs.frozen
class ToolStatus:
    """A toolchain as detected on this machine."""

    name: str
    found: bool
    version: str = ""
    path: str = ""
    detail: str = ""


@attrs.frozen
class InstallStep:
    """One way to install a toolchain from a registry the project can reach.

    ``kind`` is ``debian`` (``spec`` = package names), ``pypi`` (a requirement), ``maven``
    (``group:artifact:version``, copied into ``dest``), or ``command`` (a shell command line).
    """

    kind: Literal["debian", "pypi", "maven", "command"]
    spec: str
    dest: str = ""
    note: str = ""


class Toolchain(abc.ABC):
    """An external tool a plugin needs (a JVM and a jar, a solver, a compiler)."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    install: ClassVar[tuple[InstallStep, ...]] = ()

    @abc.abstractmethod
    def detect(self) -> ToolStatus:
        """Find the tool and its version without side effects; cheap enough to call per run."""

    @staticmethod
    def version_of(argv: Sequence[str], timeout: float = 30.0) -> str | None:
        """First non-empty output line of ``argv`` (e.g. ``java -version``), or None if absent."""
        if shutil.which(argv[0]) is None:
            return None
        try:
            out = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired):
            return None
        for line in (out.stdout + out.stderr).splitlines():
            if line.strip():
                return line.strip()
        return ""


COMPONENT_KINDS: dict[str, type[Any]] = {
    "benchmark": Benchmark,
    "agent": Agent,
    "model": ModelProvider,
    "verifier": Verifier,
    "scorer": Scorer,
    "harness": Harness,
    "toolchain": Toolchain,
}
"""Registry kinds, keyed by the singular name the CLI uses (``kernel list agents``)."""
