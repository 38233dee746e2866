#!/usr/bin/env python3
"""Dev script: check that NDJSON traces of a bundled artifact are accepted by its gold TLA+ model.

Not product code. The plugin's real trace validator is written separately from the same
``mapping.yaml``; this script exists so that artifact authors can show, with TLC 2.15 (no JSON
module, no POSTCONDITION), that every committed trace is a behaviour of the gold model.

Usage::

    python3 plugins/tla/tools/trace_check.py ARTIFACT_DIR [TRACE ...] [--jar JAR] [--keep DIR]

ARTIFACT_DIR holds ``mapping.yaml`` and ``gold/<Module>.tla``. Without TRACE arguments every
``ARTIFACT_DIR/traces/trace_*.ndjson`` is checked. The jar comes from ``--jar`` or
``$TLA2TOOLS_JAR``.

How it works. For each trace it writes ``<Module>Trace.tla`` that EXTENDS the gold model, embeds the
trace as a TLA+ sequence of records ``TraceLog`` and adds a cursor variable ``tl_i``:

* ``TInit``: the model's ``Init``, with the first record (the ``Init`` event) matching the mapped
  initial-state fields; ``tl_i = 1``;
* ``TNext``: ``tl_i < Len(TraceLog)`` and, for the next record ``e``, ``e.event = "<Ev>"``, the
  mapped model action (for instance ``Acquire(e.actor)``) and every mapped post-state equality
  (``lock_state' = e.locked``); ``tl_i' = tl_i + 1``;
* invariant ``NotAccepted == tl_i < Len(TraceLog)``.

TLC explores only behaviours that follow the trace. If it reports "Invariant NotAccepted is
violated", some behaviour of the gold model reproduces the whole trace: the trace is ACCEPTED (and
TLC prints that behaviour). If TLC finishes without the violation, the trace is REJECTED; the script
then binary-searches the longest accepted prefix and prints the first line that no model step
matches. Constants of the gold model are bound in the generated cfg as ``C <- TraceConst_C`` with
``TraceConst_C`` defined from ``mapping.yaml`` (expressions may use ``TraceFirst``, the first
record, and ``SetOf(seq)``).

mapping.yaml (the subset used here)::

    module: spinlock
    constants: {Threads: "SetOf(TraceFirst.threads)"}
    init:   {event: Init, fields: {locked: "lock_state"}}
    events:
      Acquire:
        action: "Acquire(e.actor)"
        fields: {locked: "lock_state'", state: "pc'[e.actor]"}

A field maps to a model expression; in ``events`` it is an action-level expression: primed
variables are the post-state, unprimed ones the pre-state. Prime the variables themselves
(``pc'[e.actor]``), never a whole expression that mentions ``e``. ``checks`` (a list of
action-level TLA+ predicates over the record ``e`` and the model) covers fields that are not a
plain equality, e.g. ``SetOf(e.woken) = {...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def tla_value(v: object) -> str:
    """Render a JSON value as a TLA+ value (objects become records, arrays sequences)."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v) if v >= 0 else f"(0 - {-v})"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "<<" + ", ".join(tla_value(x) for x in v) + ">>"
    if isinstance(v, dict):
        if not v:
            return "[x \\in {} |-> 0]"
        for k in v:
            if not IDENT.match(k):
                raise ValueError(f"object key {k!r} is not a TLA+ identifier")
        return "[" + ", ".join(f"{k} |-> {tla_value(x)}" for k, x in v.items()) + "]"
    if v is None:
        return '"null"'
    raise ValueError(f"unsupported JSON value {v!r}")


def load_trace(path: Path) -> list[dict]:
    recs = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("{"):
            recs.append(json.loads(line))
    return recs


def gen_module(mapping: dict, recs: list[dict]) -> tuple[str, str]:
    mod = mapping["module"]
    name = f"{mod}Trace"
    out = [
        f"---- MODULE {name} ----",
        f"EXTENDS {mod}, Naturals, Sequences, TLC",
        "VARIABLE tl_i",
        "",
    ]
    out.append("TraceLog == <<")
    out.append(",\n".join("  " + tla_value(r) for r in recs))
    out.append(">>")
    out.append("TraceFirst == TraceLog[1]")
    out.append("SetOf(s) == {s[k] : k \\in DOMAIN s}")
    consts = mapping.get("constants", {}) or {}
    for c, expr in consts.items():
        out.append(f"TraceConst_{c} == {expr}")
    init = mapping["init"]
    init_conj = [f'e.event = "{init.get("event", "Init")}"']
    for field, expr in (init.get("fields") or {}).items():
        init_conj.append(f"({expr}) = e.{field}")
    out.append("InitMatches(e) == " + " /\\ ".join(init_conj))
    out.append("TInit == Init /\\ tl_i = 1 /\\ InitMatches(TraceLog[1])")
    disj = []
    for ev, spec in mapping["events"].items():
        conj = [f'e.event = "{ev}"', f"({spec['action']})"]
        for field, expr in (spec.get("fields") or {}).items():
            conj.append(f"({expr}) = e.{field}")
        for pred in spec.get("checks") or []:
            conj.append(f"({pred})")
        disj.append("  \\/ (" + " /\\ ".join(conj) + ")")
    out.append("Step(e) ==\n" + "\n".join(disj))
    out.append("TNext == tl_i < Len(TraceLog) /\\ Step(TraceLog[tl_i + 1]) /\\ tl_i' = tl_i + 1")
    out.append("TSpec == TInit /\\ [][TNext]_<<vars, tl_i>>")
    out.append("NotAccepted == tl_i < Len(TraceLog)")
    out.append("====")
    cfg = ["SPECIFICATION TSpec", "INVARIANT NotAccepted"]
    if consts:
        cfg.append("CONSTANTS")
        for c in consts:
            cfg.append(f"  {c} <- TraceConst_{c}")
    for line in mapping.get("extra_cfg", []) or []:
        cfg.append(line)
    return "\n".join(out) + "\n", "\n".join(cfg) + "\n"


def run_tlc(jar: str, workdir: Path, mod: str) -> tuple[bool, str]:
    meta = tempfile.mkdtemp(prefix="tlcmeta")
    try:
        p = subprocess.run(
            [
                "java",
                "-XX:+UseSerialGC",
                "-cp",
                jar,
                "tlc2.TLC",
                "-workers",
                "1",
                "-deadlock",
                "-metadir",
                meta,
                "-config",
                f"{mod}.cfg",
                f"{mod}.tla",
            ],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        shutil.rmtree(meta, ignore_errors=True)
    outp = p.stdout + p.stderr
    if "Invariant NotAccepted is violated" in outp:
        return True, outp
    if p.returncode != 0:
        raise RuntimeError(f"TLC failed (exit {p.returncode}):\n{outp}")
    return False, outp


def check(
    jar: str, art: Path, mapping: dict, recs: list[dict], keep: Path | None
) -> tuple[bool, str]:
    mod = mapping["module"]
    work = Path(tempfile.mkdtemp(prefix=f"tc_{mod}_"))
    try:
        shutil.copy(art / "gold" / f"{mod}.tla", work / f"{mod}.tla")
        tla, cfg = gen_module(mapping, recs)
        (work / f"{mod}Trace.tla").write_text(tla)
        (work / f"{mod}Trace.cfg").write_text(cfg)
        ok, outp = run_tlc(jar, work, f"{mod}Trace")
        if keep:
            keep.mkdir(parents=True, exist_ok=True)
            for f in work.iterdir():
                if f.is_file():
                    shutil.copy(f, keep / f.name)
        return ok, outp
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("artifact")
    ap.add_argument("traces", nargs="*")
    ap.add_argument("--jar", default=os.environ.get("TLA2TOOLS_JAR"))
    ap.add_argument("--keep", type=Path, help="copy the generated trace module and cfg here")
    a = ap.parse_args()
    if not a.jar:
        ap.error("give --jar or set TLA2TOOLS_JAR")
    art = Path(a.artifact)
    mapping = yaml.safe_load((art / "mapping.yaml").read_text())
    traces = [Path(t) for t in a.traces] or sorted((art / "traces").glob("trace_*.ndjson"))
    bad = 0
    for t in traces:
        recs = load_trace(t)
        ok, outp = check(a.jar, art, mapping, recs, a.keep)
        ms = re.findall(
            r"(\d+) states generated, (\d+) distinct states found",
            re.sub(r"(\d),(\d)", r"\1\2", outp),
        )
        m = ms[-1] if ms else None
        stats = f"{m[0]} states generated, {m[1]} distinct" if m else "?"
        if ok:
            print(f"ACCEPTED {t} ({len(recs)} records; TLC: {stats})")
            continue
        bad += 1
        lo, hi = 1, len(recs) - 1  # longest accepted prefix length is in [1, len-1]
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if check(a.jar, art, mapping, recs[:mid], None)[0]:
                lo = mid
            else:
                hi = mid - 1
        print(
            f"REJECTED {t}: longest accepted prefix {lo} records; no model step matches record "
            f"{lo + 1}: {json.dumps(recs[lo]) if lo < len(recs) else '?'}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
