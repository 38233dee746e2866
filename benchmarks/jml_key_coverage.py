"""What KeY can load of FormalBench (issue 15, finding 4): the shared FormalBench programs, each
with a simple correct specification, checked by the KeY backend as a candidate would be.

For every program of ``base/meta_data.jsonl`` the script adds one contract above each method,

    /*@ public behavior
      @ requires true;
      @ ensures true;
      @ signals (Exception e) true;
      @ diverges true;
      @*/

which every Java method satisfies whatever it computes, and asks KeY to prove it (step budget
``--steps``, no vacuity probes). It prints

- the share KeY *loads*: parses and type-checks the program against its Java library model and
  builds the proof obligations (a program it cannot load gets SR 0 whatever a model writes);
- the share where the simple spec is *proved*: everything else KeY demands besides the spec
  (no runtime exception, no int overflow: the plugin's FormalBench semantics; a loop invariant
  for every loop) holds too;

overall and per FormalBench category, and the most frequent reasons for load failures. With
``--library`` (the default) KeY gets the plugin's JML library stubs on its boot class path and
the rewrite that writes out what javac does implicitly (erasure, boxing) for KeY's
pre-generics front end, as the verifier does; a program using what KeY cannot read at all
(lambdas, ...) counts as not loaded, with that reason. ``--no-library`` measures KeY as it
comes.

Usage: python benchmarks/jml_key_coverage.py [--formalbench ../shared/data/formalbench]
       [--limit N] [--steps 3000] [--timeout 60] [--no-library]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import time
from pathlib import Path

from speckernel_jml.javasource import tokenize
from speckernel_jml.javatools import JavaTools
from speckernel_jml.key import KeyServer
from speckernel_jml.toolchain import KeyToolchain
from speckernel_jml.verifiers import key_input

from speckernel.sandbox.local import LocalSandbox

SIMPLE_SPEC = ("/*@ public behavior\n  @ requires true;\n  @ ensures true;\n"
               "  @ signals (Exception e) true;\n  @ diverges true;\n  @*/\n")


def with_simple_spec(source: str) -> str:
    """``source`` with :data:`SIMPLE_SPEC` above every method of its top-level classes."""
    tokens = [t for t in tokenize(source) if not t.is_comment]
    depth = 0
    starts: list[int] = []
    member_start: int | None = None
    for index, token in enumerate(tokens):
        if token.text == "{":
            depth += 1
            if depth == 2:
                member_start = None
            continue
        if token.text == "}":
            depth -= 1
            continue
        if depth != 1:
            continue
        if token.text == ";":
            member_start = None
            continue
        if member_start is None:
            member_start = token.start
        if token.text == "(" and index > 0 and tokens[index - 1].kind == "word":
            starts.append(member_start)
            member_start = None
    parts, last = [], 0
    for offset in starts:
        parts.append(source[last:offset] + SIMPLE_SPEC)
        last = offset
    parts.append(source[last:])
    return "".join(parts)


def reason_of(error: str) -> str:
    """A load error without the file and position details, to count alike ones together."""
    text = re.sub(r"\S*\.java\S*|\d+[:/]\d+|line \d+|column \d+", "", error)
    return re.sub(r"\s+", " ", text).strip()[:110]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--formalbench", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "data"
                        / "formalbench")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--library", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    status = KeyToolchain().detect()
    if not status.found:
        print(f"KeY not available: {status.detail}", file=sys.stderr)
        return 2
    meta = args.formalbench / "base" / "meta_data.jsonl"
    records = [json.loads(line) for line in meta.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    if args.limit:
        records = records[:args.limit]
    print(f"KeY {status.version}; {len(records)} FormalBench programs from {meta}; library "
          f"{'on' if args.library else 'off'}; {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    sandbox = LocalSandbox()
    server = KeyServer(library=args.library)
    tools = JavaTools(sandbox) if args.library else None
    loads: collections.Counter[str] = collections.Counter()
    proved: collections.Counter[str] = collections.Counter()
    totals: collections.Counter[str] = collections.Counter()
    reasons: collections.Counter[str] = collections.Counter()
    started = time.monotonic()
    try:
        for record in records:
            category = str(record.get("category") or "?")
            name = str(record["class_name"])
            text, unsupported = key_input(with_simple_spec(str(record["code"])), name, tools,
                                          library=args.library)
            totals[category] += 1
            if unsupported:
                reasons[f"unsupported by KeY: {re.sub(r' [(]line .*', '', unsupported)}"] += 1
                continue
            report = server.check(sandbox, {f"{name}.java": text}, args.steps, args.timeout)
            loaded = report.load_error is None and bool(report.contracts) and not any(
                c.status == "error" for c in report.contracts)
            if loaded:
                loads[category] += 1
                proved[category] += report.proved
            else:
                why = report.load_error or next(
                    ("; ".join(c.reasons) for c in report.contracts if c.status == "error"),
                    "timed out" if report.timed_out else "no contract")
                reasons[reason_of(why)] += 1
    finally:
        server.close()
        if tools is not None:
            tools.close()
    n = sum(totals.values())
    print(f"{'category':18} {'programs':>8} {'loads':>12} {'simple spec proved':>20}")
    for category in sorted(totals):
        t = totals[category]
        print(f"{category:18} {t:8} {loads[category]:5} ({100 * loads[category] / t:4.0f}%) "
              f"{proved[category]:9} ({100 * proved[category] / t:4.0f}%)")
    print(f"{'all':18} {n:8} {sum(loads.values()):5} ({100 * sum(loads.values()) / n:4.0f}%) "
          f"{sum(proved.values()):9} ({100 * sum(proved.values()) / n:4.0f}%)")
    print(f"{time.monotonic() - started:.0f} s; load failures by reason:")
    for reason, count in reasons.most_common(12):
        print(f"  {count:4}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
