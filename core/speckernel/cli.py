"""The ``kernel`` command line.

Every error a user can cause is printed as one line, ``error: ...``, with exit status 2 (1 for
an internal failure, which ``--debug`` shows with its traceback; 130 after Ctrl-C). Every option
also reads a ``KERNEL_*`` environment variable, named after the option. Text that comes from a
run (model output, files, diagnostics, logs) or from a plugin is shown through
``speckernel.escaping``: never as terminal control sequences, never as rich markup.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections import Counter
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
from speckernel.runner import RunSummary
from speckernel.secrets import process_seal, seal_process

EXTRA_PLUGINS: dict[str, object] = {}
"""Plugins registered in-process besides the installed ones (the test kit fills it)."""

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Measure how well AI systems write formal artifacts, with real verifiers.")
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


def _report_summary(root: Path, summary: RunSummary) -> None:
    counts = ", ".join(f"{n} {s}" for s, n in sorted(summary.counts.items())) or "nothing to do"
    say(f"run {root}: {summary.finished} samples finished ({counts}); "
        f"{summary.skipped} already done; cost ${summary.spent_usd:.4f}")
    if summary.stopped:
        say(f"stopped early: {summary.stopped}; raise the limit and resume with "
            f"kernel run --resume {root}")


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(
    ctx: typer.Context,
    target: Annotated[str | None, typer.Argument(
        help="A benchmark name or a run file (.yaml).", show_default=False)] = None,
    agent: Annotated[list[str], typer.Option("--agent", "-a", envvar="KERNEL_AGENT",
                                             help="Agent name (repeatable).")] = [],  # noqa: B006
    model: Annotated[list[str], typer.Option("--model", "-m", envvar="KERNEL_MODEL",
                                             help="PROVIDER:NAME (repeatable).")] = [],  # noqa: B006
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
) -> None:
    """Run a benchmark (by name or run file), or resume a run.

    Any benchmark option is also a flag: ``--check-only-cheats`` sets ``check_only_cheats``."""
    from speckernel import runs

    options = {**_option_flags(ctx.args), **_parse_options(option, "--option")}
    flags = _flag_overrides(
        agents=tuple(agent), models=tuple(model), samples=samples, tasks=tuple(task),
        limit=limit, seed=seed, options=options or None,
        agent_options=_parse_options(agent_option, "--agent-option") or None,
        model_concurrency=model_concurrency, verifier_concurrency=verifier_concurrency,
        verify_timeout_s=timeout, max_cost=max_cost, cache=False if no_cache else None,
        shard=shard, sandbox=sandbox, docker_image=docker_image, cluster=cluster)
    progress = make_progress(choose_display(display))
    reg = registry()
    if resume_dir is not None:
        if target is not None:
            raise KernelError("give either a benchmark/run file or --resume DIR, not both")
        allowed = {"verifier_concurrency", "model_concurrency", "max_cost", "cache", "shard",
                   "verify_timeout_s", "sandbox", "docker_image", "cluster"}
        bad = sorted(set(flags) - allowed)
        if bad:
            raise KernelError(f"--resume keeps the run's configuration; cannot change '{bad[0]}'")
        root, summary = run_async(runs.resume, reg, resume_dir, progress, flags)
    else:
        if target is None:
            raise KernelError("nothing to run: give a benchmark name, a run file or --resume DIR")
        if target.endswith((".yaml", ".yml")) or Path(target).is_file():
            file_values = load_run_file(Path(target))
        else:
            file_values = {"benchmark": target}
        config = resolve(file_values, flags)
        root, summary = run_async(runs.start, reg, config, output, progress)
    _report_summary(root.root, summary)


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
) -> None:
    """Judge and score a run's saved outputs again, calling no model."""
    from speckernel import runs

    store, summary = run_async(runs.rescore, registry(), run_dir,
                               make_progress(choose_display(display)),
                               _parse_options(option, "--option"), output)
    _report_summary(store.root, summary)


# --------------------------------------------------------------------------- reading runs


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    output: Annotated[Path | None, typer.Option(
        "--output", envvar="KERNEL_REPORT_OUTPUT",
        help="Where to write (default: the run directory).")] = None,
) -> None:
    """Write report.md, report.csv, report.json and report.html for a run."""
    from speckernel.report import build_report, write_report
    from speckernel.runs import metrics_of
    from speckernel.store import RunStore

    store = RunStore(run_dir)
    info = store.read_run_info()
    reg = registry()
    bench_name = str(info.get("benchmark", {}).get("name", ""))
    bench = reg.components["benchmark"].get(bench_name)
    samples = store.load_samples()
    per_task = Counter((s.key.task_id, s.key.agent, s.key.model) for s in samples)
    n = max(per_task.values(), default=1)
    ks = sorted({1, n} | {k for k in (5, 10) if k <= n})
    built = build_report(samples, metrics_of(reg, bench_name), bench, info, ks)
    target = output or run_dir
    try:
        written = write_report(built, target)
    except OSError as exc:
        raise KernelError(f"cannot write the report into {target}: {exc.strerror or exc}; "
                          "choose another directory with --output DIR") from None
    for path in written:
        say(str(path))


@app.command()
def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    sample: Annotated[str, typer.Argument(help="A sample id (or a unique prefix).")],
) -> None:
    """Print one sample: prompts, output, verdicts with diagnostics, log."""
    from speckernel.store import RunStore

    store = RunStore(run_dir)
    samples = {s.id: s for s in store.load_samples()}
    matches = [i for i in samples if i == sample] or [i for i in samples if i.startswith(sample)]
    if len(matches) != 1:
        if matches:
            raise KernelError(f"'{sample}' matches {len(matches)} samples: "
                              + ", ".join(sorted(matches)[:5]))
        raise unknown_name("sample", sample, samples)
    s = samples[matches[0]]
    rule(f"sample {s.id}")
    say(f"task {s.key.task_id} · agent {s.key.agent} · model {s.key.model} · "
        f"#{s.key.index} · {s.status.value} · {s.duration_s:.2f} s")
    if s.error:
        say(f"error: {s.error}")
    if s.candidate is not None:
        usage = s.candidate.provenance.usage
        say(f"tokens {usage.input_tokens} in / {usage.output_tokens} out · "
            f"cost ${usage.cost_usd:.4f} · verifier calls "
            f"{s.candidate.provenance.verifier_calls}")
        for m in s.candidate.provenance.messages:
            rule(f"{m.role}", style="dim")
            say(m.content)
        for name, text in sorted(s.candidate.files.items()):
            rule(f"file {name}", style="dim")
            say(text)
    for v in s.verdicts:
        rule(f"verdict {v.verifier}", style="dim")
        say(f"{v.summary(limit=100)}\n({v.tool} {v.tool_version}, {v.duration_s:.2f} s"
            f"{', cached' if v.cached else ''})")
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
    from speckernel.store import RunStore

    store = RunStore(run_dir)
    samples = store.load_samples()
    chosen = [s for s in samples if not sample or any(s.id.startswith(p) for p in sample)]
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


@app.command("list")
def list_components(
    ctx: typer.Context,
    kind: Annotated[str | None, typer.Argument(
        help="benchmarks, agents, models, verifiers, scorers, harnesses, toolchains, "
             "or 'tasks BENCHMARK'.")] = None,
    benchmark: Annotated[str | None, typer.Argument(help="With 'tasks'.")] = None,
    option: Annotated[list[str], typer.Option(
        "--option", "-o", envvar="KERNEL_OPTION",
        help="With 'tasks': benchmark option KEY=VALUE, as for kernel run.")] = [],  # noqa: B006
) -> None:
    """List registered components (all kinds by default), or a benchmark's tasks."""
    reg = registry()
    if kind == "tasks":
        if benchmark is None:
            raise KernelError("usage: kernel list tasks BENCHMARK [-o KEY=VALUE ...]")
        _list_tasks(reg, benchmark, _parse_options(option, "--option"))
        return
    source = ctx.get_parameter_source("option")
    if option and source is not None and source.name == "COMMANDLINE":  # not KERNEL_OPTION
        raise KernelError("--option is for 'kernel list tasks BENCHMARK'")
    if kind is not None and kind not in KINDS:
        raise unknown_name("kind", kind, [*KINDS, "tasks"])
    for plural, singular in KINDS.items():
        if kind not in (None, plural):
            continue
        table = RichTable(title=plural, title_justify="left", box=None)
        for col in ("name", "plugin", "description"):
            table.add_column(col)
        for obj in reg.all(singular):
            table.add_row(rich_text(obj.name), rich_text(reg.plugin_of(singular, obj.name)),
                          rich_text(str(getattr(obj, "description", ""))))
        out.print(table)


def _list_tasks(reg: Registry, name: str, options: dict[str, Any]) -> None:
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
    tasks = plugin_call(f"benchmark '{bench.name}' could not load its tasks",
                        lambda: [str(t.id) for t in bench.tasks(merged)])
    for task_id in tasks:
        say(task_id)


@app.command()
def plugins() -> None:
    """List installed plugins with their versions and what they registered, and failures."""
    reg = registry()
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
            if DEBUG["on"]:
                say(f.detail)


@app.command()
def doctor() -> None:
    """Show which external tools are found, their versions, and how to install missing ones."""
    from speckernel.config import RunConfig
    from speckernel.runs import make_sandbox
    from speckernel.toolchains import detect_all, install_commands

    reg = registry()
    chains = list(reg.all("toolchain"))
    table = RichTable(title="toolchains", title_justify="left", box=None)
    for col in ("tool", "plugin", "status", "version", "path or reason"):
        table.add_column(col, overflow="fold")
    missing: list[str] = []
    for chain, status in zip(chains, detect_all(chains), strict=True):
        table.add_row(*map(rich_text, (
            chain.name, reg.plugin_of("toolchain", chain.name),
            "found" if status.found else "missing", status.version,
            status.path if status.found else status.detail)))
        if not status.found:
            cmds = [" ".join(c) for step in chain.install for c in install_commands(step)]
            missing.append(f"install {chain.name}: "
                           + (" && ".join(cmds) or "no automatic install is declared"))
    out.print(table)
    for line in missing:  # unwrapped, so the commands can be copied as they are
        print(printable(line))
    sandbox = make_sandbox(RunConfig(benchmark="-"))
    say(f"sandbox {sandbox.name}:")
    for feature, state in sandbox.describe().items():
        say(f"  {feature}: {state}")
    say(f"  kernel process: {process_seal()}")
    if reg.failures:
        out.print(f"{len(reg.failures)} plugin(s) failed to load: see kernel plugins")


@tools_app.command("install")
def tools_install(
    plugin: Annotated[str | None, typer.Argument(
        help="Only this plugin's tools, or only this one tool.")] = None,
) -> None:
    """Install the external tools plugins declare (Debian, PyPI, Maven), where possible."""
    from speckernel.toolchains import install

    reg = registry()
    chains = list(reg.all("toolchain"))
    if plugin is not None:
        plugins = {p.name for p in reg.plugins}
        if plugin in plugins:
            chains = [c for c in chains if reg.plugin_of("toolchain", c.name) == plugin]
        elif plugin in {c.name for c in chains}:
            chains = [c for c in chains if c.name == plugin]
        else:
            raise unknown_name("plugin or tool", plugin, plugins | {c.name for c in chains})
    missing = [c.name for c in chains if not install(c, echo=out.print)]
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
    except TyperException as exc:  # usage errors: bad flags, values, commands
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        return _error(message, int(getattr(exc, "exit_code", 2)))
    except KernelError as exc:
        return _error(str(exc))
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


def _interrupted() -> int:
    print("interrupted: finished samples are saved; continue with kernel run --resume DIR",
          file=sys.stderr)
    return 130


def main() -> None:
    seal_process()
    sys.exit(guarded(lambda: app(standalone_mode=False)))
