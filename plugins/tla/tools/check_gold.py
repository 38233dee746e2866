#!/usr/bin/env python3
"""Dev script: check a bundled artifact's gold model and its invariant templates with SANY and TLC.

Not product code. Usage::

    python3 plugins/tla/tools/check_gold.py ARTIFACT_DIR [ARTIFACT_DIR ...] [--jar tla2tools.jar]

For each artifact (``gold/<Module>.tla``, ``gold/<Module>.cfg``, ``invariants.yaml``):

1. SANY parses ``gold/<Module>.tla`` (judged from the output: old SANY exits 0 on semantic errors);
2. TLC checks ``gold/<Module>.cfg`` as shipped (its INVARIANTS/PROPERTIES);
3. every template's ``tla_example`` is put, renamed ``Tpl_<Name>``, into a module
   ``<Module>Templates`` that EXTENDS the gold model, and TLC checks all of them at once (safety
   templates as INVARIANTS, liveness templates as PROPERTIES) with the gold cfg's constants, the
   way SysMoBench's invariant check runs them (``-deadlock``).

Prints one line per step with TLC's state counts; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml


def run(cmd: list[str], cwd: Path) -> tuple[int, str]:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
    return p.returncode, p.stdout + p.stderr


def tlc(jar: str, cwd: Path, mod: str, cfg: str) -> tuple[bool, str]:
    meta = tempfile.mkdtemp(prefix="tlcmeta")
    try:
        rc, out = run(
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
                cfg,
                f"{mod}.tla",
            ],
            cwd,
        )
    finally:
        shutil.rmtree(meta, ignore_errors=True)
    ms = re.findall(
        r"(\d+) states generated, (\d+) distinct states found", re.sub(r"(\d),(\d)", r"\1\2", out)
    )
    m = ms[-1] if ms else None
    stats = f"{m[0]} states generated, {m[1]} distinct" if m else "no stats"
    ok = rc == 0 and "No error has been found" in out
    return ok, stats if ok else f"{stats}\n{out[-3000:]}"


def check(jar: str, art: Path) -> bool:
    gold = art / "gold"
    tlas = list(gold.glob("*.tla"))
    mod = tlas[0].stem
    work = Path(tempfile.mkdtemp(prefix=f"gold_{mod}_"))
    good = True
    try:
        shutil.copy(gold / f"{mod}.tla", work)
        shutil.copy(gold / f"{mod}.cfg", work)
        rc, out = run(["java", "-cp", jar, "tla2sany.SANY", f"{mod}.tla"], work)
        sany_ok = rc == 0 and not re.search(r"\*\*\* Errors|Semantic errors|Parse Error|Fatal", out)
        print(f"[{art.name}] SANY {mod}.tla: {'ok' if sany_ok else 'FAILED'}")
        if not sany_ok:
            print(out)
            return False
        ok, info = tlc(jar, work, mod, f"{mod}.cfg")
        print(f"[{art.name}] TLC {mod}.cfg: {'ok' if ok else 'FAILED'} ({info})")
        good &= ok

        tpl = yaml.safe_load((art / "invariants.yaml").read_text())["invariants"]
        defs, safety, live = [], [], []
        for t in tpl:
            name = t["name"]
            body = t["tla_example"].strip()
            # rename the defined operator (the first `Name ==` or `Name(...) ==`)
            body, n = re.subn(rf"^\s*{re.escape(name)}\b", f"Tpl_{name}", body, count=1)
            if n != 1:
                body = re.sub(r"^\s*\w+\b", f"Tpl_{name}", body, count=1)
            defs.append(body)
            (safety if t["type"] == "safety" else live).append(f"Tpl_{name}")
        (work / f"{mod}Templates.tla").write_text(
            f"---- MODULE {mod}Templates ----\n"
            f"EXTENDS {mod}, Naturals, Sequences, FiniteSets, TLC\n"
            + "\n\n".join(defs)
            + "\n====\n"
        )
        cfg_src = (gold / f"{mod}.cfg").read_text()
        keep = []
        section = None
        for line in cfg_src.splitlines():
            head = line.strip().split(" ")[0] if line.strip() else ""
            if head in {"INVARIANT", "INVARIANTS", "PROPERTY", "PROPERTIES"}:
                section = "drop"
                continue
            if head in {
                "SPECIFICATION",
                "CONSTANT",
                "CONSTANTS",
                "INIT",
                "NEXT",
                "SYMMETRY",
                "VIEW",
            }:
                section = "keep"
            if section == "keep" and line.strip():
                keep.append(line)
        cfg = (
            keep
            + ["INVARIANTS"]
            + [f"    {s}" for s in safety]
            + ["PROPERTIES"]
            + [f"    {p}" for p in live]
        )
        (work / f"{mod}Templates.cfg").write_text("\n".join(cfg) + "\n")
        ok, info = tlc(jar, work, f"{mod}Templates", f"{mod}Templates.cfg")
        print(
            f"[{art.name}] TLC templates ({len(safety)} safety, {len(live)} liveness): "
            f"{'ok' if ok else 'FAILED'} ({info})"
        )
        good &= ok
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return good


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("artifacts", nargs="+")
    ap.add_argument("--jar", default=os.environ.get("TLA2TOOLS_JAR"))
    a = ap.parse_args()
    if not a.jar:
        ap.error("give --jar or set TLA2TOOLS_JAR")
    results = [check(a.jar, Path(p)) for p in a.artifacts]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
