"""How long ``kernel view`` takes to open a run of 10,000 samples (goal: the list page under 1 s).

Writes a run directory in the store's format (``store.open_writer``) whose samples look like a
repair loop's: a two-round transcript with the task and both drafts (~7 kB a line), two verdicts
with located diagnostics, scores; then starts the viewer on a free port and times, each with a
freshly started viewer (nothing indexed yet) and again warm:

* the run list (``/``), which indexes the run to count its samples, solved ones and cost;
* the run's page (``/run?r=...``): aggregate with intervals and the first page of samples;
* a sample page;
* with ``--browser`` and Chromium installed, the run list's load in headless Chromium
  (navigation start to the load event).

Usage: ``python benchmarks/view_load.py [--samples 10000] [--keep DIR] [--browser]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import anyio
import httpx
import uvicorn

from speckernel.model import (
    Candidate,
    Diagnostic,
    Message,
    Provenance,
    Sample,
    SampleKey,
    Score,
    Status,
    Usage,
    Verdict,
)
from speckernel.store import RunStore, open_writer
from speckernel.viewer.server import bind, make_server, run_key

SPEC = "\n".join(
    ["---- MODULE Task{n} ----", "EXTENDS Naturals, Sequences", "VARIABLES x, y, pc"]
    + [f"Step{i} == /\\ pc = \"s{i}\" /\\ x' = x + {i} /\\ y' = y /\\ pc' = \"s{i + 1}\""
       for i in range(30)]
    + ["===="])


def make_sample(i: int) -> Sample:
    task, model = f"task{i // 4:04d}", ("openai:gpt-4o", "anthropic:claude-sonnet-4-5")[i % 2]
    spec = SPEC.replace("{n}", str(i))
    messages = (
        Message("system", "You write formal artifacts that a verifier will check."),
        Message("user", f"Model the system of task {task} in TLA+.\n\n" + "context " * 200),
        Message("assistant", f"```Spec.tla\n{spec}\n```"),
        Message("user", "The verifier rejected your artifact:\ntla.sany: failure\n"
                        "  error: Spec.tla:12:3: Encountered \"==\""),
        Message("assistant", f"Fixed.\n\n```Spec.tla\n{spec}\n\\* fixed\n```"),
    )
    solved = i % 3 != 0
    verdicts = (
        Verdict("tla.sany", Status.SUCCESS, (), "SANY", "2.19", 0.8),
        Verdict("tla.tlc", Status.SUCCESS if solved else Status.FAILURE,
                () if solved else (Diagnostic("Invariant TypeOK is violated", "error",
                                              "Spec.tla", 20, 1),
                                   Diagnostic("deadlock reached", "warning", "Spec.tla", 3)),
                "TLC", "2.19", 2.5, {"states": 1000 + i, "distinct": 500}),
    )
    candidate = Candidate({"Spec.tla": spec + "\n\\* fixed\n"},
                          Provenance("prompt", model, messages, Usage(3000, 900, 0.02, 2), 8.0, 1))
    return Sample(SampleKey(task, "prompt", model, i // 2 % 2), Status.SUCCESS if solved
                  else Status.FAILURE, candidate, verdicts,
                  (Score("tla.phases", {"syntax": 1.0, "runtime": 1.0,
                                        "invariants": float(solved), "passed": float(solved)}),),
                  {}, None, 1_763_800_000.0 + i, 11.0, f"digest-{task}",
                  ("model: 3000 in, 900 out", "verify #1: tla.sany=failure"))


def write_run(root: Path, count: int) -> None:
    RunStore(root).write_run_info({"created": "2026-11-22T10:15:00+0000", "kernel": "0.1.0",
                                   "benchmark": {"name": "tla", "version": "1.0"},
                                   "tools": {"tla2tools": "1.8.0"}, "config": {}})

    async def write() -> None:
        async with open_writer(RunStore(root)) as writer:
            for i in range(count):
                await writer.submit(make_sample(i))

    anyio.run(write)


def timed_get(client: httpx.Client, path: str) -> float:
    start = time.perf_counter()
    answer = client.get(path)
    elapsed = time.perf_counter() - start
    answer.raise_for_status()
    return elapsed


def serve(root: Path) -> tuple[str, uvicorn.Server, threading.Thread, socket.socket]:
    sock = bind(0)
    server = make_server([root.parent], sock)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server, thread, sock


def stop(server: uvicorn.Server, thread: threading.Thread, sock: socket.socket) -> None:
    server.should_exit = True
    thread.join(10)
    sock.close()


def browser_load(url: str) -> float:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from speckernel.viewer.toolchain import chromium_flags, find_browser

    browser = find_browser()
    if browser is None:
        raise SystemExit("--browser needs Chromium: kernel tools install browser")
    profile = tempfile.mkdtemp()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in chromium_flags(profile, 1400, 1000):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    try:
        driver.get(url)
        ms = driver.execute_script(
            "const t = performance.getEntriesByType('navigation')[0];"
            "return t.loadEventEnd - t.startTime;")
        return float(ms) / 1000
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="write the run here and keep it")
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="view-load-"))
    root = (args.keep or work) / "run"
    try:
        if not (root / "run.yaml").exists():
            start = time.perf_counter()
            write_run(root, args.samples)
            print(f"wrote {args.samples} samples in {time.perf_counter() - start:.1f} s")
        size = sum(p.stat().st_size for p in root.glob("samples*.jsonl"))
        print(f"run directory: {size / 1e6:.1f} MB of samples")
        key = run_key(root)
        run_page = f"/run?{urlencode({'r': key})}"
        sample_page = f"/sample?{urlencode({'r': key, 's': make_sample(0).id})}"
        for name, path in (("run list", "/"), ("run page", run_page),
                           ("sample page", sample_page)):
            base, server, thread, sock = serve(root)
            with httpx.Client(base_url=base, timeout=60) as client:
                cold = timed_get(client, path)
                warm = min(timed_get(client, path) for _ in range(3))
            stop(server, thread, sock)
            print(f"{name}: {cold:.3f} s cold (fresh viewer), {warm:.3f} s warm")
        if args.browser:
            base, server, thread, sock = serve(root)
            print(f"run list in Chromium, fresh viewer: {browser_load(base + '/'):.3f} s")
            stop(server, thread, sock)
        print(f"uptime: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
              f"{os.getloadavg()[2]:.2f} (load averages; 2 cores)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
