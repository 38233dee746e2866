"""A test kit for plugin authors, loaded by pytest as a plugin (entry point ``pytest11``).

Fixtures:

- ``kernel_env``: an isolated cache and working directory for one test;
- ``kernel_plugins``: register plugin objects in-process for one test,
  ``kernel_plugins(my_plugin_module)``;
- ``scripted_model``: a model whose answers are given by the test,
  ``model_id = scripted_model(["first answer", "second answer"])`` or with a function of the
  messages; use it as ``--model model_id``;
- ``run_dir``: a fresh path for a run directory;
- ``kernel_cli``: run the ``kernel`` CLI in-process, ``result = kernel_cli("run", "mybench")``,
  with ``result.exit_code``, ``result.stdout`` and ``result.stderr``.

And ``verify_context(...)``, a verifier context on the local sandbox with the kernel's worker
pool, for calling a verifier or harness directly from a test; ``undescribed(plugin, name)``, what
of a plugin ``kernel list`` would show without a description (``assert not undescribed(...)``).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from speckernel.components import Model, ModelProvider, Toolchain, VerifyContext
from speckernel.errors import ProviderError
from speckernel.hookspecs import hookimpl
from speckernel.model import Completion, GenerateParams, Message, Usage

Script = Sequence[str] | Callable[[Sequence[Message]], str]

_SCRIPTS: dict[str, Script] = {}
_COUNTER = itertools.count()


class ScriptedModel(Model):
    """Answers from a list (in order) or a function of the messages; counts tokens as words."""

    def __init__(self, name: str) -> None:
        if name not in _SCRIPTS:
            raise ProviderError(f"no scripted model '{name}' in this test")
        self.id = f"scripted:{name}"
        self.script = _SCRIPTS[name]
        self.calls: list[list[Message]] = []

    async def complete(self, messages: Sequence[Message], params: GenerateParams) -> Completion:
        self.calls.append(list(messages))
        start = time.monotonic()
        if callable(self.script):
            text = self.script(messages)
        else:
            n = len(self.calls) - 1
            if n >= len(self.script):
                raise ProviderError(f"{self.id}: script has only {len(self.script)} answers")
            text = self.script[n]
        words = sum(len(m.content.split()) for m in messages)
        return Completion(text, self.id, Usage(words, len(text.split()), 0.0, 1),
                          time.monotonic() - start, "stop")


class ScriptedProvider(ModelProvider):
    """Provider ``scripted``: serves the scripts registered by the ``scripted_model`` fixture."""

    name = "scripted"
    description = "answers scripted by a test (speckernel.testing)"

    def model(self, model: str, options: Mapping[str, Any]) -> Model:
        return ScriptedModel(model)


class _ScriptedPlugin:
    @hookimpl
    def register_models(self, register: Callable[[ModelProvider], None]) -> None:
        register(ScriptedProvider())


def verify_context(
    *,
    toolchains: Sequence[Toolchain] = (),
    limits: Any = None,
    options: Mapping[str, Any] | None = None,
    sandbox: Any = None,
    log: Callable[[str], None] | None = None,
) -> VerifyContext:
    """A ``VerifyContext`` like the runner's: ``sandbox`` (default a ``LocalSandbox``), the
    detected ``toolchains``, ``limits`` (default ``Limits()``), benchmark ``options`` and a
    worker pool of two for ``run_sync``. Lines given to ``ctx.log`` go to ``log``."""
    from speckernel.execution import KernelVerifyContext
    from speckernel.sandbox.base import Limits
    from speckernel.sandbox.local import LocalSandbox
    from speckernel.toolchains import DetectedTools
    from speckernel.workers import WorkerPool

    box = sandbox if sandbox is not None else LocalSandbox()
    return KernelVerifyContext(box, DetectedTools({t.name: t for t in toolchains}),
                               limits or Limits(), dict(options or {}), WorkerPool(box, 2), log)


_NAMED_OPTION = re.compile(r"\boption (\w+)|\b(\w+)=")
"""How a description refers to another option: ``option NAME`` or ``NAME=VALUE``."""


def undescribed(plugin: object, name: str) -> list[str]:
    """What ``kernel list`` and ``kernel list options`` would show of ``plugin`` (registered as
    ``name``) without a one-line description: a component, a metric, a benchmark option; an
    option description of a key the benchmark does not have, or naming (``option NAME``,
    ``NAME=...``) an option it does not have; a plugin that fails to register. Empty when all
    is said."""
    from speckernel.plugins import Registry

    def one_line(text: object) -> bool:
        return isinstance(text, str) and bool(text.strip()) and "\n" not in text.strip()

    registry = Registry()
    registry.add_plugin(plugin, name)
    problems = [f"{f.component or f.name}: {f.error}" for f in registry.failures]
    for kind, table in registry.components.items():
        for cname, obj in table.items():
            if not one_line(obj.description):
                problems.append(f"{kind} {cname}: no one-line description")
            problems.extend(f"{kind} {cname}: metric {m.name} has no one-line description"
                            for m in getattr(obj, "metrics", ()) if not one_line(m.description))
    for bench in registry.all("benchmark"):
        options, described = set(bench.options), dict(bench.option_descriptions)
        problems.extend(f"benchmark {bench.name}: option {key} has no one-line description"
                        for key in sorted(options)
                        if not one_line(described.get(key)))
        for key, text in described.items():
            if key not in options:
                problems.append(f"benchmark {bench.name}: {key} is described but no option")
            named = {a or b for a, b in _NAMED_OPTION.findall(str(text))} - options
            problems.extend(f"benchmark {bench.name}: the description of {key} names {n}, "
                            "which is no option" for n in sorted(named))
    return problems


@attrs.frozen
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def kernel_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache and current directory, and no KERNEL_* settings from the outside."""
    import os

    for var in [v for v in os.environ if v.startswith("KERNEL_") and v != "KERNEL_TOOLS_DIR"]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def kernel_plugins(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Register plugin objects (modules or instances with ``@hookimpl`` methods) for one test."""
    from speckernel import cli

    extra = dict(cli.EXTRA_PLUGINS)
    monkeypatch.setattr(cli, "EXTRA_PLUGINS", extra)

    def register(*plugins: object) -> None:
        for plugin in plugins:
            extra[getattr(plugin, "__name__", None) or f"test-plugin-{next(_COUNTER)}"] = plugin

    return register


@pytest.fixture
def scripted_model(kernel_plugins: Callable[..., None]) -> Iterator[Callable[[Script], str]]:
    """Make a scripted model and return its id (``scripted:<name>``)."""
    kernel_plugins(_ScriptedPlugin())
    made: list[str] = []

    def make(script: Script) -> str:
        name = f"m{next(_COUNTER)}"
        _SCRIPTS[name] = script
        made.append(name)
        return f"scripted:{name}"

    yield make
    for name in made:
        _SCRIPTS.pop(name, None)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return tmp_path / "run"


@pytest.fixture
def kernel_cli(kernel_env: Path) -> Callable[..., CliResult]:
    """Invoke the CLI in-process with its real error handling."""
    from speckernel import cli

    def invoke(*args: str | Path) -> CliResult:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = cli.guarded(lambda: cli.app([str(a) for a in args], standalone_mode=False))
        return CliResult(code, stdout.getvalue(), stderr.getvalue())

    return invoke
