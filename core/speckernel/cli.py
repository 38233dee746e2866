"""The ``kernel`` command line.

Every error a user can cause is printed as one line, ``error: ...``. Every option also reads a
``KERNEL_*`` environment variable, named after the option. Text that comes from a run (model
output, files, diagnostics, logs) or from a plugin is shown through ``speckernel.escaping``:
never as terminal control sequences, never as rich markup. Exit statuses (``ExitCode``, also in
``kernel --help`` and the README): 0 done; 1 an internal failure (``--debug`` shows its
traceback); 2 a usage error (bad input, an unknown name, a missing tool); 3 a run finished but
some samples ended in ``error`` (unless ``--allow-errors``); 4 ``--max-cost`` stopped the run;
5 the run stopped early for another reason (its cluster went away); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import enum
import json
import os
import shlex
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table as RichTable
from typer.exceptions import TyperException

from speckernel import __version__
from speckernel.cache import Cache
from speckernel.config import load_run_file, resolve
from speckernel.containment import counting_sigint, plugin_call, plugin_fault, sigint_received
from speckernel.containment import run as run_async
from speckernel.display import choose_display, make_progress
from speckernel.errors import KernelError, one_line, unknown_name
from speckernel.escaping import printable, rich_text
from speckernel.plugins import Registry, load_registry
from speckernel.runner import Progress, RunSummary
from speckernel.secrets import process_seal, seal_process

EXTRA_PLUGINS: dict[str, object] = {}
"""Plugins registered in-process besides the installed ones (the test kit fills it)."""

class ExitCode(enum.IntEnum):
    """What ``kernel`` exits with (see the module docstring)."""

    OK = 0
    INTERNAL = 1
    USAGE = 2
    SAMPLE_ERRORS = 3
    BUDGET = 4
    STOPPED = 5
    INTERRUPTED = 130


HELP = """Measure how well AI systems write formal artifacts, with real verifiers.

Exit status: 0 done; 1 internal failure (rerun with --debug); 2 usage error (bad input, unknown
name, missing tool); 3 a run finished but some samples ended in error (unless --allow-errors); 4
--max-cost stopped the run; 5 the run stopped early for another reason (its cluster went away);
130 interrupted (Ctrl-C)."""

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None, help=HELP)
tools_app = typer.Typer(no_args_is_help=True, help="Install external tools.")
cache_app = typer.Typer(no_args_is_help=True, help="Inspect or clear the cache.")
app.add_typer(tools_app, name="tools")
app.add_typer(cache_app, name="cache")

out = Console(highlight=False, soft_wrap=True,
              width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 200)
"""Tables go to pipes and logs 200 columns wide, so names are never cut to fit 80."""
DEBUG = {"on": False}


def registry() -> Registry:
    return load_registry(EXTRA_PLUGINS)


def say(text: str) -> None:
    """Print untrusted text (a candidate, a diagnostic, a path, a plugin's name) as it is."""
    out.print(printable(text), markup=False, highlight=False, emoji=False)


def rule(title: str, style: str = "rule.line") -> None:
    out.rule(rich_text(title, lines=False), style=style)


def _print_version(value: bool) -> None:
    if value:
        out.print(f"speckernel {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", envvar="KERNEL_DEBUG",
                                        help="Show tracebacks.")] = False,
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print the version.")] = False,
) -> None:
    DEBUG["on"] = debug


# --------------------------------------------------------------------------- run


def _flag_overrides(**flags: Any) -> dict[str, Any]:
    return {k: v for k, v in flags.items() if v not in (None, [], ())}


def _parse_options(items: list[str], flag: str) -> dict[str, Any]:
    """``key=value`` pairs; values are read as YAML scalars (numbers, booleans, lists)."""
    from speckernel.yamlio import load_yaml, plain

    parsed: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise KernelError(f"{flag} '{item}': expected KEY=VALUE")
        parsed[key.strip()] = plain(load_yaml(raw, f"{flag} {key}"), f"{flag} {key}")
    return parsed


def _option_flags(extra: list[str]) -> dict[str, Any]:
    """Benchmark options given as flags: ``--check-only-cheats`` is ``-o check_only_cheats=true``,
    ``--no-X`` sets false, and ``--X VALUE`` or ``--X=VALUE`` any value; unknown names fail when
    the run is planned, against the benchmark's own option list."""
    options: dict[str, Any] = {}
    args = list(extra)
    while args:
        arg = args.pop(0)
        if not arg.startswith("--") or len(arg) == 2:
            raise KernelError(f"unexpected argument '{arg}'")
        name, sep, raw = arg[2:].partition("=")
        if not sep and args and not args[0].startswith("-"):
            sep, raw = "=", args.pop(0)
        if sep:
            options.update(_parse_options([f"{name.replace('-', '_')}={raw}"], arg))
        elif name.startswith("no-"):
            options[name[3:].replace("-", "_")] = False
        else:
            options[name.replace("-", "_")] = True
    return options


class Interrupted(Exception):
    """Ctrl-C during a run whose directory is known: the message names it."""

    def __init__(self, root: Path | None) -> None:
        super().__init__(str(root))
        self.root = root


def _exit_code(summary: RunSummary, allow_errors: bool) -> ExitCode:
    if summary.stopped_by_budget:
        return ExitCode.BUDGET
    if summary.stopped:
        return ExitCode.STOPPED
    if summary.counts.get("error") and not allow_errors:
        return ExitCode.SAMPLE_ERRORS
    return ExitCode.OK


def _finish_run(registry: Registry, root: Path, summary: RunSummary, progress: Progress,
                allow_errors: bool, as_json: bool) -> int:
    """Write the run's report, print the summary (text or ``--json``), and give the exit
    status (``ExitCode``)."""
    from speckernel.report import format_cost
    from speckernel.runs import report_run

    state = progress.state
    try:
        report: Path | None = report_run(registry, root)[-1]
        report_problem = None
    except KernelError as exc:
        report, report_problem = None, str(exc)
    code = _exit_code(summary, allow_errors)
    errors = summary.counts.get("error", 0)
    usage = state.usage if state is not None else None
    if as_json:
        print(json.dumps({
            "run": str(root), "exit_code": int(code), "total": summary.total,
            "skipped": summary.skipped, "finished": summary.finished,
            "counts": dict(sorted(summary.counts.items())),
            "solved": state.solved if state is not None else None,
            "cost_usd": summary.spent_usd,
            "unpriced_calls": usage.unpriced_calls if usage else 0,
            "model_calls": usage.calls if usage else 0,
            "cached_calls": state.cached_calls if state is not None else 0,
            "input_tokens": usage.input_tokens if usage else 0,
            "output_tokens": usage.output_tokens if usage else 0,
            "retries": state.retries if state is not None else 0,
            "rate_limited": state.rate_limited if state is not None else 0,
            "stopped": summary.stopped, "report": str(report) if report else None,
            "report_problem": report_problem,
        }, sort_keys=True))
        return int(code)
    counts = ", ".join(f"{n} {s}" for s, n in sorted(summary.counts.items())) or "nothing to do"
    solved = f", {state.solved} solved" if state is not None and summary.finished else ""
    cost = format_cost(summary.spent_usd, usage.unpriced_calls if usage else 0)
    say(f"run {root}: {summary.finished} samples finished ({counts}){solved}; "
        f"{summary.skipped} already done; cost {cost}")
    if summary.stopped:
        say(f"stopped early: {summary.stopped}; raise the limit and resume with "
            f"kernel run --resume {root}")
    elif code is ExitCode.SAMPLE_ERRORS:
        say(f"{errors} sample(s) ended in error (an infrastructure failure, listed in the "
            f"report's Errors table); run them again with kernel run --resume {root}, or "
            "accept them with --allow-errors")
    say(f"report {report}" if report is not None else f"no report: {report_problem}")
    return int(code)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             add_help_option=False)
def run(
    ctx: typer.Context,
    target: Annotated[str | None, typer.Argument(
        help="A benchmark name or a run file (.yaml).", show_default=False)] = None,
    agent: Annotated[list[str], typer.Option("--agent", "-a", envvar="KERNEL_AGENT",
                                             help="Agent name (repeatable).")] = [],  # noqa: B006
    model: Annotated[list[str], typer.Option("--model", "-m", envvar="KERNEL_MODEL",
                                             help="PROVIDER:NAME (repeatable).")] = [],  # noqa: B006
    evaluator_model: Annotated[str | None, typer.Option(
        envvar="KERNEL_EVALUATOR_MODEL",
        help="PROVIDER:NAME of the model the benchmark asks while judging (not the model "
             "under test).")] = None,
    samples: Annotated[int | None, typer.Option("-n", "--samples", envvar="KERNEL_SAMPLES",
                                                help="Samples per task, agent and model.")] = None,
    task: Annotated[list[str], typer.Option("--task", "-t", envvar="KERNEL_TASK",
                                            help="Task id or glob (repeatable).")] = [],  # noqa: B006
    limit: Annotated[int | None, typer.Option(envvar="KERNEL_LIMIT",
                                              help="Run at most this many tasks.")] = None,
    seed: Annotated[int | None, typer.Option(envvar="KERNEL_SEED")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o", envvar="KERNEL_OPTION",
                                              help="Benchmark option KEY=VALUE.")] = [],  # noqa: B006
    agent_option: Annotated[list[str], typer.Option(
        "--agent-option", envvar="KERNEL_AGENT_OPTION", help="Agent option KEY=VALUE.")] = [],  # noqa: B006
    model_concurrency: Annotated[int | None, typer.Option(
        envvar="KERNEL_MODEL_CONCURRENCY", help="Concurrent model calls (default 8).")] = None,
    verifier_concurrency: Annotated[int | None, typer.Option(
        envvar="KERNEL_VERIFIER_CONCURRENCY", help="CPU-bound verifier slots (default: cores).")
    ] = None,
    timeout: Annotated[float | None, typer.Option(
        envvar="KERNEL_TIMEOUT", help="Wall-time budget per verifier call, seconds.")] = None,
    max_cost: Annotated[float | None, typer.Option(
        envvar="KERNEL_MAX_COST", help="Stop cleanly once this many USD are spent.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", envvar="KERNEL_NO_CACHE")] = False,
    shard: Annotated[str | None, typer.Option(envvar="KERNEL_SHARD",
                                              help="Run part i of n: i/n.")] = None,
    sandbox: Annotated[str | None, typer.Option(envvar="KERNEL_SANDBOX",
                                                help="local or docker.")] = None,
    docker_image: Annotated[str | None, typer.Option(envvar="KERNEL_DOCKER_IMAGE")] = None,
    cluster: Annotated[str | None, typer.Option(
        envvar="KERNEL_CLUSTER", help="Verify on a Dask cluster: tcp://HOST:PORT or local:N.")
    ] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", envvar="KERNEL_OUTPUT", help="Run directory (default runs/<time>-<bench>).")
    ] = None,
    resume_dir: Annotated[Path | None, typer.Option(
        "--resume", envvar="KERNEL_RESUME", help="Resume the run in this directory.")] = None,
    display: Annotated[str | None, typer.Option(envvar="KERNEL_DISPLAY",
                                                help="rich, plain or none.")] = None,
    allow_errors: Annotated[bool, typer.Option(
        "--allow-errors", envvar="KERNEL_ALLOW_ERRORS",
        help="Exit 0 even when samples ended in error (default: exit 3).")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the summary as one JSON object (the display goes to stderr).")
    ] = False,
    show_help: Annotated[bool, typer.Option(
        "--help", "-h", help="Show this message (with a benchmark: its options) and exit.")
    ] = False,
) -> int:
    """Run a benchmark (by name or run file), or resume a run.

    Any benchmark option is also a flag: --check-only-cheats sets check_only_cheats
    (kernel run BENCHMARK --help lists them)."""
    from speckernel import runs

    if show_help:
        out.print(ctx.get_help(), markup=False, highlight=False)
        if target is not None and not target.endswith((".yaml", ".yml")):
            _print_options(registry(), target)
        return int(ExitCode.OK)
    options = {**_option_flags(ctx.args), **_parse_options(option, "--option")}
    flags = _flag_overrides(
        agents=tuple(agent), models=tuple(model), samples=samples, tasks=tuple(task),
        limit=limit, seed=seed, options=options or None,
        agent_options=_parse_options(agent_option, "--agent-option") or None,
        model_concurrency=model_concurrency, verifier_concurrency=verifier_concurrency,
        verify_timeout_s=timeout, max_cost=max_cost, cache=False if no_cache else None,
        shard=shard, sandbox=sandbox, docker_image=docker_image, cluster=cluster,
        evaluator_model=evaluator_model)
    if as_json:
        progress = make_progress(display or "none", sys.stderr)
    else:
        progress = make_progress(choose_display(display))
    reg = registry()
    try:
        if resume_dir is not None:
            if target is not None:
                raise KernelError("give either a benchmark/run file or --resume DIR, not both")
            allowed = {"verifier_concurrency", "model_concurrency", "max_cost", "cache", "shard",
                       "verify_timeout_s", "sandbox", "docker_image", "cluster"}
            bad = sorted(set(flags) - allowed)
            if bad:
                raise KernelError(
                    f"--resume keeps the run's configuration; cannot change '{bad[0]}'")
            root, summary = run_async(runs.resume, reg, resume_dir, progress, flags)
        else:
            if target is None:
                raise KernelError(
                    "nothing to run: give a benchmark name, a run file or --resume DIR")
            if target.endswith((".yaml", ".yml")) or Path(target).is_file():
                file_values = load_run_file(Path(target))
            else:
                file_values = {"benchmark": target}
            config = resolve(file_values, flags)
            root, summary = run_async(runs.start, reg, config, output, progress)
    except KeyboardInterrupt:
        if not sigint_received():  # plugin code raised it: guarded says so
            raise
        raise Interrupted(progress.state.root if progress.state else None) from None
    return _finish_run(reg, root.root, summary, progress, allow_errors, as_json)


@app.command()
def rescore(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    option: Annotated[list[str], typer.Option(
        "--option", "-o", envvar="KERNEL_OPTION",
        help="Override a benchmark option KEY=VALUE.")] = [],  # noqa: B006
    output: Annotated[Path | None, typer.Option(
        "--output", envvar="KERNEL_RESCORE_OUTPUT",
        help="Write the re-scored run here, leaving RUN_DIR untouched.")] = None,
    display: Annotated[str | None, typer.Option(envvar="KERNEL_DISPLAY")] = None,
    allow_errors: Annotated[bool, typer.Option(
        "--allow-errors", envvar="KERNEL_ALLOW_ERRORS",
        help="Exit 0 even when samples ended in error (default: exit 3).")] = False,
) -> int:
    """Judge and score a run's saved outputs again, calling no model."""
    from speckernel import runs

    reg = registry()
    progress = make_progress(choose_display(display))
    try:
        store, summary = run_async(runs.rescore, reg, run_dir, progress,
                                   _parse_options(option, "--option"), output)
    except KeyboardInterrupt:
        if not sigint_received():
            raise
        raise Interrupted(progress.state.root if progress.state else None) from None
    return _finish_run(reg, store.root, summary, progress, allow_errors, False)


# --------------------------------------------------------------------------- reading runs


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    output: Annotated[Path | None, typer.Option(
        "--output", envvar="KERNEL_REPORT_OUTPUT",
        help="Where to write (default: the run directory).")] = None,
) -> None:
    """Write report.md, report.csv, report.json and report.html for a run.

    The report needs no plugin: what it needs from the benchmark is in the run directory."""
    from speckernel.runs import report_run

    target = output or run_dir
    try:
        written = report_run(registry(), run_dir, output)
    except OSError as exc:
        raise KernelError(f"cannot write the report into {target}: {exc.strerror or exc}; "
                          "choose another directory with --output DIR") from None
    for path in written:
        say(str(path))


def _run_store(run_dir: Path) -> Any:
    """The run in ``run_dir``, refusing a directory that holds none with one line."""
    from speckernel.store import RunStore

    store = RunStore(run_dir)
    if not run_dir.is_dir():
        raise KernelError(f"{run_dir}: no such run directory")
    if not store.exists():
        raise KernelError(f"{run_dir} is not a run directory (no run.yaml)")
    return store


def _raw_id(sample: Any) -> str:
    """A sample's key written out as its id is before it is made safe for file names (task ids
    with ``/``, say): ``task__agent__model__index``."""
    k = sample.key
    return f"{k.task_id}__{k.agent}__{k.model}__{k.index}"


def _find_sample(samples: list[Any], wanted: str) -> Any:
    """The sample ``wanted`` names: its id, its task id (one sample of it), or a prefix of its
    id or of its key written out (``_raw_id``)."""
    raw = _raw_id
    for candidates in (
        [s for s in samples if s.id == wanted or raw(s) == wanted],
        [s for s in samples if s.key.task_id == wanted],
        [s for s in samples if s.id.startswith(wanted) or raw(s).startswith(wanted)],
    ):
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            shown = ", ".join(sorted(s.id for s in candidates)[:5])
            raise KernelError(f"'{wanted}' matches {len(candidates)} samples: {shown}"
                              + (", ..." if len(candidates) > 5 else ""))
    if not samples:
        raise KernelError("the run has no finished sample yet")
    raise unknown_name("sample", wanted, [s.id for s in samples] + sorted(
        {s.key.task_id for s in samples}))


@app.command()
def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    sample: Annotated[str, typer.Argument(
        help="A sample id, a task id (when the task has one sample), or a unique prefix.")],
) -> None:
    """Print one sample: prompts, output, verdicts with diagnostics, log."""
    from speckernel.report import format_cost

    s = _find_sample(_run_store(run_dir).load_samples(), sample)
    rule(f"sample {s.id}")
    say(f"task {s.key.task_id} · agent {s.key.agent} · model {s.key.model} · "
        f"#{s.key.index} · {s.status.value} · {s.duration_s:.2f} s")
    if s.error:
        say(f"error: {s.error}")
    if s.candidate is not None:
        usage = s.candidate.provenance.usage
        if s.candidate.provenance.model != s.key.model:
            say(f"answered by {s.candidate.provenance.model}")
        say(f"tokens {usage.input_tokens} in / {usage.output_tokens} out · "
            f"cost {format_cost(usage.cost_usd, usage.unpriced_calls)} · verifier calls "
            f"{s.candidate.provenance.verifier_calls}")
        for m in s.candidate.provenance.messages:
            rule(f"{m.role}", style="dim")
            say(m.content)
        for name, text in sorted(s.candidate.files.items()):
            rule(f"file {name}", style="dim")
            say(text)
    for v in s.verdicts:
        rule(f"verdict {v.verifier}", style="dim")
        tool = " ".join(p for p in (v.tool, v.tool_version) if p)
        about = ", ".join(p for p in (tool, f"{v.duration_s:.2f} s",
                                      "cached" if v.cached else "") if p)
        say(f"{v.summary(limit=100)}\n({about})")
    if s.scores:
        rule("scores", style="dim")
        for sc in s.scores:
            values = ", ".join(f"{k}={'-' if v is None else f'{v:.4g}'}"
                               for k, v in sc.values.items())
            say(f"{sc.scorer}: {values}")
    if s.log:
        rule("log", style="dim")
        say("\n".join(s.log))


@app.command()
def artifacts(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    sample: Annotated[list[str], typer.Argument(
        help="Sample ids or prefixes (default: every sample).", show_default=False)] = [],  # noqa: B006
) -> None:
    """Write candidates' files into RUN/artifacts/<sample>/ to run tools on them by hand."""
    store = _run_store(run_dir)
    samples = store.load_samples()
    chosen = [s for s in samples if not sample or any(
        s.id.startswith(p) or _raw_id(s).startswith(p) for p in sample)]
    if sample and not chosen:
        raise unknown_name("sample", sample[0], [s.id for s in samples])
    for s in chosen:
        for path in store.write_artifacts(s):
            say(str(path))


@app.command()
def view(
    dirs: Annotated[list[Path], typer.Argument(
        help="Directories holding runs (default: runs/, else the current directory).",
        show_default=False)] = [],  # noqa: B006
    port: Annotated[int, typer.Option(envvar="KERNEL_VIEW_PORT",
                                      help="Port on 127.0.0.1 (0: any free port).")] = 7575,
    no_browser: Annotated[bool, typer.Option("--no-browser", envvar="KERNEL_NO_BROWSER",
                                             help="Do not open a browser.")] = False,
) -> None:
    """Read runs sample by sample in a local, read-only web app."""
    from speckernel.viewer.server import default_dirs, serve

    serve(dirs or default_dirs(), port, not no_browser, out.print)


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (two or more, or one "
                                               "with several agents or models).")],
    form: Annotated[str, typer.Option("--format", envvar="KERNEL_COMPARE_FORMAT",
                                      help="md, json or html.")] = "md",
    output: Annotated[Path | None, typer.Option(
        "--output", envvar="KERNEL_COMPARE_OUTPUT", help="Write here instead of stdout.")] = None,
    resamples: Annotated[int, typer.Option(envvar="KERNEL_RESAMPLES",
                                           help="Bootstrap resamples.")] = 10_000,
    seed: Annotated[int, typer.Option(envvar="KERNEL_COMPARE_SEED",
                                      help="Bootstrap seed.")] = 0,
) -> None:
    """Compare agent/model pairs task by task: paired differences with bootstrap intervals and
    McNemar's exact test."""
    from speckernel.compare import compare_runs, render

    text = render(compare_runs(runs, resamples=resamples, seed=seed), form)
    if output is None:
        # On a terminal a plugin's task ids and names are shown inert; JSON escapes its own.
        print(text if form == "json" else printable(text), end="")
    else:
        output.write_text(text, encoding="utf-8")
        out.print(str(output))


# --------------------------------------------------------------------------- components


KINDS = {"benchmarks": "benchmark", "agents": "agent", "models": "model",
         "verifiers": "verifier", "scorers": "scorer", "harnesses": "harness",
         "toolchains": "toolchain"}


def _emit_json(value: Any) -> None:
    """``--json``: one JSON document on stdout, for scripts."""
    print(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str))


def _describe(obj: Any) -> str:
    return str(getattr(obj, "description", "") or "")


@app.command("list")
def list_components(
    ctx: typer.Context,
    kind: Annotated[str | None, typer.Argument(
        help="benchmarks, agents, models, verifiers, scorers, harnesses, toolchains, "
             "'tasks BENCHMARK' or 'options BENCHMARK'.")] = None,
    benchmark: Annotated[str | None, typer.Argument(help="With 'tasks' or 'options'.")] = None,
    option: Annotated[list[str], typer.Option(
        "--option", "-o", envvar="KERNEL_OPTION",
        help="With 'tasks': benchmark option KEY=VALUE, as for kernel run.")] = [],  # noqa: B006
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List registered components (all kinds by default), a benchmark's tasks or its
    options."""
    reg = registry()
    if kind == "tasks":
        if benchmark is None:
            raise KernelError("usage: kernel list tasks BENCHMARK [-o KEY=VALUE ...]")
        ids = _list_tasks(reg, benchmark, _parse_options(option, "--option"))
        if as_json:
            _emit_json(ids)
        for task_id in ids if not as_json else ():
            say(task_id)
        return
    source = ctx.get_parameter_source("option")
    if option and source is not None and source.name == "COMMANDLINE":  # not KERNEL_OPTION
        raise KernelError("--option is for 'kernel list tasks BENCHMARK'")
    if kind == "options":
        if benchmark is None:
            raise KernelError("usage: kernel list options BENCHMARK")
        if as_json:
            _emit_json([{"name": n, "default": v, "description": d}
                        for n, v, d in _options_of(reg.get("benchmark", benchmark))])
        else:
            _print_options(reg, benchmark)
        return
    if kind is not None and kind not in KINDS:
        raise unknown_name("kind", kind, [*KINDS, "tasks", "options"])
    chosen = [(plural, singular) for plural, singular in KINDS.items() if kind in (None, plural)]
    if as_json:
        _emit_json({plural: [{"name": obj.name, "plugin": reg.plugin_of(singular, obj.name),
                              "description": _describe(obj)} for obj in reg.all(singular)]
                    for plural, singular in chosen})
        return
    for plural, singular in chosen:
        table = RichTable(title=plural, title_justify="left", box=None)
        for col in ("name", "plugin", "description"):
            table.add_column(col)
        for obj in reg.all(singular):
            table.add_row(rich_text(obj.name), rich_text(reg.plugin_of(singular, obj.name)),
                          rich_text(_describe(obj)))
        out.print(table)


def _list_tasks(reg: Registry, name: str, options: dict[str, Any]) -> list[str]:
    """A benchmark's task ids under ``options``, checked and merged over its defaults as for a
    run (``kernel list tasks tla -o tasks_from=upstream -o upstream=DIR``)."""
    from speckernel.validation import options as checked_options

    bench = reg.get("benchmark", name)
    unknown = sorted(set(options) - set(bench.options))
    if unknown:
        raise KernelError(f"benchmark '{bench.name}': "
                          f"{unknown_name('option', unknown[0], bench.options)}")
    try:
        merged = {**bench.options, **checked_options(options)}
    except (TypeError, ValueError) as exc:
        raise KernelError(f"--option: {exc}") from None
    tasks: list[str] = plugin_call(f"benchmark '{bench.name}' could not load its tasks",
                                   lambda: [str(t.id) for t in bench.tasks(merged)])
    return tasks


def _options_of(bench: Any) -> list[tuple[str, Any, str]]:
    """A benchmark's options: name, default, description (``Benchmark.option_descriptions``)."""
    described = dict(getattr(bench, "option_descriptions", {}) or {})
    return [(name, default, str(described.get(name, "")))
            for name, default in sorted(bench.options.items())]


def _print_options(reg: Registry, name: str) -> None:
    """The options of benchmark ``name`` as flags (``kernel run NAME --help``)."""
    bench = reg.get("benchmark", name)
    table = RichTable(title=f"options of benchmark {bench.name} (also -o KEY=VALUE)",
                      title_justify="left", box=None)
    for col in ("flag", "default", "description"):
        table.add_column(col, overflow="fold")
    for option, default, description in _options_of(bench):
        flag = f"--{option.replace('_', '-')}"
        if isinstance(default, bool):
            flag += f" / --no-{option.replace('_', '-')}"
        table.add_row(rich_text(flag), rich_text(json.dumps(default, default=str)),
                      rich_text(description))
    if not bench.options:
        say(f"benchmark {bench.name} has no options")
        return
    out.print(table)


@app.command()
def plugins(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List installed plugins with their versions and what they registered, and failures."""
    reg = registry()
    if as_json:
        _emit_json({
            "plugins": [{"name": p.name, "distribution": p.distribution, "version": p.version,
                         "registered": {k: list(v) for k, v in sorted(p.registered.items())}}
                        for p in reg.plugins],
            "failures": [{"name": f.name, "distribution": f.distribution, "error": f.error,
                          "component": f.component} for f in reg.failures],
        })
        return
    table = RichTable(title="plugins", title_justify="left", box=None)
    for col in ("plugin", "distribution", "version", "registered"):
        table.add_column(col)
    for p in reg.plugins:
        regs = "; ".join(f"{k}: {', '.join(v)}" for k, v in sorted(p.registered.items()))
        table.add_row(*map(rich_text, (p.name, p.distribution, p.version, regs or "-")))
    out.print(table)
    if reg.failures:
        say("failed to load:")
        for f in reg.failures:
            say(f"  {f.name} ({f.distribution or 'in-process'}): {f.error}")
            if DEBUG["on"] and f.detail:
                say(f.detail)


@app.command()
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show which external tools are found, their versions, and how to install missing ones."""
    from speckernel.config import RunConfig
    from speckernel.runs import make_sandbox
    from speckernel.toolchains import detect_all, install_commands

    reg = registry()
    chains = list(reg.all("toolchain"))
    statuses = detect_all(chains)
    commands = {chain.name: [shlex.join(c) for step in chain.install
                             for c in install_commands(step)] for chain in chains}
    sandbox = make_sandbox(RunConfig(benchmark="-"))
    if as_json:
        _emit_json({
            "toolchains": [{"name": c.name, "plugin": reg.plugin_of("toolchain", c.name),
                            "found": st.found, "version": st.version, "path": st.path,
                            "detail": st.detail,
                            "install": commands[c.name] if not st.found else []}
                           for c, st in zip(chains, statuses, strict=True)],
            "sandbox": {"name": sandbox.name, "layers": dict(sandbox.describe()),
                        "kernel process": process_seal()},
            "plugin_failures": len(reg.failures),
        })
        return
    table = RichTable(title="toolchains", title_justify="left", box=None)
    for col in ("tool", "plugin", "status", "version", "path or reason"):
        table.add_column(col, overflow="fold")
    missing: list[str] = []
    for chain, status in zip(chains, statuses, strict=True):
        table.add_row(*map(rich_text, (chain.name, reg.plugin_of("toolchain", chain.name),
                                       "found" if status.found else "missing", status.version,
                                       status.path if status.found else status.detail)))
        if not status.found:
            missing.append(f"install {chain.name}: "
                           + (" && ".join(commands[chain.name])
                              or "no automatic install is declared")
                           + f"  (or: kernel tools install {chain.name})")
    out.print(table)
    for line in missing:  # unwrapped, so the commands can be copied as they are
        print(printable(line))
    say(f"sandbox {sandbox.name}:")
    for feature, state in sandbox.describe().items():
        say(f"  {feature}: {state}")
    say(f"  kernel process: {process_seal()}")
    if reg.failures:
        out.print(f"{len(reg.failures)} plugin(s) failed to load: see kernel plugins")


@tools_app.command("install")
def tools_install(
    names: Annotated[list[str], typer.Argument(
        help="Plugins or tools: only their tools (default: every declared tool).",
        show_default=False)] = [],  # noqa: B006
) -> None:
    """Install the external tools plugins declare (Debian, PyPI, Maven), where possible:
    kernel tools install respec jml."""
    from speckernel.toolchains import InstallSession

    reg = registry()
    chains = list(reg.all("toolchain"))
    plugins = {p.name for p in reg.plugins}
    tools = {c.name for c in chains}
    for name in names:
        if name not in plugins and name not in tools:
            raise unknown_name("plugin or tool", name, plugins | tools)
    if names:
        chains = [c for c in chains
                  if c.name in names or reg.plugin_of("toolchain", c.name) in names]
    session = InstallSession(echo=say)
    missing = [c.name for c in chains if not session.install(c)]
    if missing:
        raise KernelError(f"not installed: {', '.join(missing)} (see kernel doctor)")
    out.print(f"{len(chains)} tool(s) ready")


@cache_app.command("stats")
def cache_stats() -> None:
    """Entries and size per namespace."""
    cache = Cache()
    for ns in cache.stats():
        out.print(f"{ns.namespace}: {ns.entries} entries, {ns.bytes / 1e6:.1f} MB")
    out.print(f"cache directory: {cache.root}")


@cache_app.command("clear")
def cache_clear(
    namespace: Annotated[str | None, typer.Argument(help="model or verdict (default: all).")
                         ] = None,
) -> None:
    """Remove cached model responses and verdicts."""
    out.print(f"removed {Cache().clear(namespace)} entries")


# --------------------------------------------------------------------------- entry point


def guarded(fn: Callable[[], object]) -> int:
    """Run ``fn`` turning every failure into one line and an exit status.

    Real Ctrl-Cs are counted meanwhile (``containment``), so that a plugin raising
    ``KeyboardInterrupt`` is reported as that plugin's failure while the user's still stops the
    command. Plugin calls are contained where they are made; the last clauses catch what a
    plugin raises where no closer guard is (a benchmark's report tables, say)."""
    try:
        with counting_sigint():
            result = fn()
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        return _interrupted()
    except Interrupted as exc:
        return _interrupted(exc.root)
    except TyperException as exc:  # usage errors: bad flags, values, commands
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        return _error(message, int(getattr(exc, "exit_code", 2)))
    except KernelError as exc:
        return _error(str(exc), int(ExitCode.USAGE))
    except OSError as exc:  # a path the user gave: missing, unwritable, not a directory
        where = f" {exc.filename}" if exc.filename else ""
        return _error(f"cannot use{where}: {exc.strerror or exc}")
    except UnicodeError as exc:  # text that is not UTF-8 where the kernel reads text
        return _error(f"not UTF-8 text: {exc}")
    except KeyboardInterrupt as exc:
        if plugin_fault(exc):  # no Ctrl-C was pressed: plugin code raised it
            return _error(f"plugin code stopped the command: {one_line(exc)}")
        return _interrupted()
    except Exception as exc:
        if DEBUG["on"] or os.environ.get("KERNEL_DEBUG"):
            traceback.print_exc()
        return _error(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug)", 1)
    except BaseException as exc:  # SystemExit, GeneratorExit...: the kernel raises none of them
        return _error(f"plugin code stopped the command: {one_line(exc)}")
    if result == 130:  # typer turns a KeyboardInterrupt inside a command into status 130
        if not sigint_received():  # no Ctrl-C was pressed: plugin code raised it
            return _error("plugin code stopped the command: KeyboardInterrupt")
        return _interrupted()
    return result if isinstance(result, int) else 0


def _error(message: str, status: int = 2) -> int:
    print(f"error: {printable(message, lines=False)}", file=sys.stderr)
    return status


def _interrupted(root: Path | None = None) -> int:
    """Ctrl-C: say how to go on, naming the run directory when the run had one."""
    where = shlex.quote(str(root)) if root is not None else "DIR"
    print(f"interrupted: finished samples are saved; continue with kernel run --resume {where}",
          file=sys.stderr)
    return int(ExitCode.INTERRUPTED)


def main() -> None:
    seal_process()
    sys.exit(guarded(lambda: app(standalone_mode=False)))
