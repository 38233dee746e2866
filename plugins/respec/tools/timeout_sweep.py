"""Check the candidates of a finished ``respec`` run again under growing per-check timeouts and
print how ``unknown`` shrinks (RESpecBench's timeout sweep).

    python plugins/respec/tools/timeout_sweep.py RUN_DIR [--timeouts 4,16,64,256]
        [--output DIR] [--agent NAME] [--model ID]

For each timeout T this is one kernel run, ``kernel run <DIR>/timeout-T.yaml``: agent
``respec-replay`` re-submits the source run's candidates (``--agent``/``--model`` pick one of
its agents and models) under the source run's tasks and options with ``timeout_s: T``, and the
kernel's own per-verifier budget raised to match. A rerun of the tool resumes unfinished sweeps.
The table goes to stdout and ``<DIR>/sweep.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from speckernel.store import RunStore
from speckernel.yamlio import dump_yaml

from speckernel_respec.report import markdown, sweep_table


def run_file(source: Path, timeout: float, agent: str | None, model: str | None) -> dict[str, Any]:
    """The run file that re-checks ``source``'s candidates with per-check timeout ``timeout``."""
    config = RunStore(source).read_run_info()["config"]
    replay: dict[str, Any] = {"run": str(source.resolve())}
    replay.update({k: v for k, v in (("agent", agent), ("model", model)) if v is not None})
    return {"benchmark": "respec", "agents": ["respec-replay"], "agent_options": replay,
            "samples": config.get("samples", 1), "tasks": config.get("tasks") or [],
            "limit": config.get("limit"),
            "options": {**(config.get("options") or {}), "timeout_s": timeout},
            "verify_timeout_s": 2 * timeout + 30}


def sweep(source: Path, timeouts: list[float], out: Path, agent: str | None,
          model: str | None) -> str:
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    for timeout in timeouts:
        target = out / f"timeout-{timeout:g}"
        spec = out / f"timeout-{timeout:g}.yaml"
        spec.write_text(dump_yaml(run_file(source, timeout, agent, model)), encoding="utf-8")
        where = ["--resume", str(target)] if RunStore(target).exists() else \
            [str(spec), "--output", str(target)]
        subprocess.run([sys.executable, "-m", "speckernel", "run", *where, "--display", "none"],
                       check=True)
        runs.append((timeout, RunStore(target).load_samples()))
    text = markdown(sweep_table(runs))
    (out / "sweep.md").write_text(text + "\n", encoding="utf-8")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a finished respec run directory")
    parser.add_argument("--timeouts", default="4,16,64,256", help="seconds, comma-separated")
    parser.add_argument("--output", type=Path, help="default: <run>-sweep")
    parser.add_argument("--agent", help="the source run's agent to replay (if it has several)")
    parser.add_argument("--model", help="the source run's model to replay (if it has several)")
    args = parser.parse_args()
    timeouts = [float(t) for t in args.timeouts.split(",")]
    out = args.output or args.run.with_name(args.run.name + "-sweep")
    print(sweep(args.run, timeouts, out, args.agent, args.model))


if __name__ == "__main__":
    main()
