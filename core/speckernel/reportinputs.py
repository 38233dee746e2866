"""What a run's report needs from its benchmark, recorded in the run directory, so that a report
comes out the same wherever it is made, with or without the benchmark's plugin installed.

Three things come from the benchmark, and each is recorded when it is known:

* its metric definitions (each scorer's and harness's ``Metric``: unit, direction, aggregation)
  and its ``primary_metric``: in ``benchmark.json`` when the run starts;
* each sample's solved verdict (``Benchmark.solved``): in the sample's own line
  (``Sample.solved``) when the sample is recorded, so the viewer reads it too;
* its report tables (``Benchmark.report_tables``), a function of all the samples: in
  ``benchmark.json`` when a run ends or stops, with the digest of the samples they were made
  from (``samples_digest``).

``load`` gives a report its inputs from that record. For a run recorded before runs kept them,
or whose tables were made from other samples than it now holds (a run interrupted by Ctrl-C, a
shard that finished first), it asks the installed plugin instead (reading only: a report never
writes into the run it reads); without the plugin it refuses with one line rather than make a
different report.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from speckernel.components import Benchmark, Metric, Table
from speckernel.containment import plugin_call
from speckernel.errors import KernelError
from speckernel.model import JSON, Sample, from_json, strict_json, to_json

RECORD = "benchmark.json"
"""The file in a run directory that holds what its reports need from the benchmark."""

FORMAT = 1


@attrs.frozen
class ReportInputs:
    """What ``report.build_report`` needs from the run's benchmark: its name, the metric
    definitions, the primary metric (which ranks best-of-n), and its report tables."""

    benchmark: str
    metrics: tuple[Metric, ...] = ()
    primary_metric: str | None = None
    tables: tuple[Table, ...] = ()


def samples_digest(samples: Sequence[Sample]) -> str:
    """Which samples, in which version: a hash of each sample's id, status, solved verdict and
    start time (a re-run or a re-scored sample starts at another time), in key order."""
    lines = sorted(f"{s.id}\t{s.status.value}\t{s.solved}\t{s.started_at!r}" for s in samples)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def metrics_of(benchmark: Benchmark, components: Mapping[str, Mapping[str, Any]]) -> list[Metric]:
    """The metrics the benchmark's scorers and harnesses declare, in the benchmark's order
    (``components``: the registry's components by kind and name)."""
    out: list[Metric] = []
    for kind, names in (("scorer", benchmark.scorers), ("harness", benchmark.harnesses)):
        for name in names:
            if name in components[kind]:
                out.extend(components[kind][name].metrics)
    return out


def _read(root: Path) -> dict[str, Any] | None:
    path = root / RECORD
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise KernelError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise KernelError(f"{path}: not a record of this kernel (format {FORMAT})")
    return data


def _write(root: Path, data: Mapping[str, JSON]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    text = json.dumps(strict_json(data), indent=1, sort_keys=True, ensure_ascii=False,
                      allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=root, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
        fh.write(text)
    os.replace(tmp, root / RECORD)


def record_definitions(root: Path, benchmark: Benchmark, metrics: Sequence[Metric]) -> None:
    """Record the benchmark's metric definitions when a run starts (tables recorded earlier
    are kept: a resumed run's are made again when it ends)."""
    previous = _read(root) or {}
    _write(root, {**previous, "format": FORMAT, "benchmark": benchmark.name,
                  "version": benchmark.version, "metrics": to_json(list(metrics)),
                  "primary_metric": benchmark.primary_metric,
                  "has_tables": type(benchmark).report_tables is not Benchmark.report_tables})


def tables_from(benchmark: Benchmark, samples: Sequence[Sample]) -> list[Table]:
    """``benchmark.report_tables(samples)``, refused with one line when the plugin fails."""
    tables = plugin_call(f"benchmark '{benchmark.name}' could not build its report tables",
                         lambda: list(benchmark.report_tables(samples)))
    if not all(isinstance(t, Table) for t in tables):
        raise KernelError(f"benchmark '{benchmark.name}': report_tables returned something "
                          "that is not a list of Table")
    return tables


def record_tables(root: Path, benchmark: Benchmark, samples: Sequence[Sample]) -> None:
    """Record the benchmark's tables of ``samples`` (all of the run's), when a run ends."""
    previous = _read(root) or {}
    tables = tables_from(benchmark, samples)
    _write(root, {**previous, "format": FORMAT,
                  "tables": strict_json(to_json(tables)),
                  "tables_cover": samples_digest(samples)})


def _recorded(data: Mapping[str, Any]) -> ReportInputs:
    return ReportInputs(
        str(data.get("benchmark", "")),
        tuple(from_json(Metric, m) for m in data.get("metrics") or ()),
        data.get("primary_metric"),
        tuple(from_json(Table, t) for t in data.get("tables") or ()),
    )


def load(root: Path, benchmark_name: str, samples: Sequence[Sample],
         installed: Callable[[], tuple[Benchmark, list[Metric]] | None]
         ) -> tuple[ReportInputs, list[Sample]]:
    """The inputs of the report of the run in ``root`` and its samples, each with its solved
    verdict (see the module docstring). ``installed`` gives the run's benchmark and its metrics
    when its plugin is installed here (else None); it is asked only when the record lacks
    something."""
    data = _read(root)
    unjudged = [s for s in samples if s.solved is None]
    stale = data is None or (data.get("has_tables", True)
                             and data.get("tables_cover") != samples_digest(samples))
    if data is not None and not unjudged and not stale:
        return _recorded(data), list(samples)
    plugin = installed()
    if plugin is None:
        if data is None or unjudged:
            what = "was recorded by an older kernel"
        else:
            what = "has samples its recorded report tables were not made from"
        raise KernelError(
            f"{root} {what}, and its benchmark '{benchmark_name}' is not installed here: "
            "install its plugin to report this run (kernel plugins lists what is installed)")
    benchmark, metrics = plugin
    judged = [s if s.solved is not None else attrs.evolve(s, solved=_solved(benchmark, s))
              for s in samples]
    if data is None:
        definitions = ReportInputs(benchmark.name, tuple(metrics), benchmark.primary_metric)
    else:
        definitions = _recorded(data)
    return attrs.evolve(definitions, tables=tuple(tables_from(benchmark, judged))), judged


def _solved(benchmark: Benchmark, sample: Sample) -> bool:
    return bool(plugin_call(f"benchmark '{benchmark.name}' could not judge sample {sample.id}",
                            benchmark.solved, sample))
