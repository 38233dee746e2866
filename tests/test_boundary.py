"""No process outside the boundary: plugin code starts external processes only through the
kernel's sandbox (``ctx.run``, ``ctx.sandbox.open``, ``ctx.run_sync``).

The scan reads every module of every plugin's source tree (and the fixture plugin's) as a syntax
tree and refuses any way Python has to start a process. Two kinds of module are exempt:

- ``toolchain.py`` modules: installing and detecting tools (``apt-get``, ``mvn``, ``cargo``,
  ``--version``) runs trusted commands on no model output, often as root and with the network;
- modules whose first lines carry ``# speckernel-boundary: inside``: code that only ever runs
  inside a sandbox call (a launcher started with ``ctx.run``), where every process it starts is
  already behind the boundary.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("plugins/*/src/**/*.py"), *ROOT.glob("tests/fixtures/*/src/**/*.py")])
INSIDE = "# speckernel-boundary: inside"

FORBIDDEN_MODULES = {"subprocess", "pty", "multiprocessing", "pexpect", "sh", "plumbum"}
FORBIDDEN_CALLS = {
    "os": {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "execv",
           "execve", "execl", "execle", "execlp", "execlpe", "execvp", "execvpe", "spawnl",
           "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"},
    "anyio": {"run_process", "open_process"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "concurrent.futures": {"ProcessPoolExecutor"},
}


def exempt(path: Path) -> bool:
    head = path.read_text(encoding="utf-8").splitlines()[:5]
    return path.name == "toolchain.py" or any(line.strip() == INSIDE for line in head)


def violations(source: str) -> list[str]:
    """Each way ``source`` could start a process, as ``line: what``."""
    found = []
    aliases: dict[str, str] = {}  # local name -> module it stands for
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in FORBIDDEN_MODULES:
                    found.append(f"{node.lineno}: import {alias.name}")
                aliases[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top in FORBIDDEN_MODULES:
                found.append(f"{node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if alias.name in FORBIDDEN_CALLS.get(node.module, ()):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
        elif isinstance(node, ast.Attribute):
            owner = dotted(node.value)
            module = aliases.get(owner.split(".")[0], owner.split(".")[0]) if owner else ""
            full = module + owner[len(owner.split(".")[0]):] if owner else ""
            if node.attr in FORBIDDEN_CALLS.get(full, ()):
                found.append(f"{node.lineno}: {full}.{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "__import__":
            found.append(f"{node.lineno}: __import__(...)")
    return found


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_plugin_module_starts_no_process_itself(path: Path) -> None:
    if exempt(path):
        pytest.skip("toolchain module or inside-the-sandbox launcher")
    assert violations(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("source, expected", [
    ("import subprocess", ["1: import subprocess"]),
    ("import subprocess as sp", ["1: import subprocess"]),
    ("from subprocess import run", ["1: from subprocess import ..."]),
    ("import os\nos.system('x')", ["2: os.system"]),
    ("import os as o\no.execvp('x', [])", ["2: os.execvp"]),
    ("from os import posix_spawn", ["1: from os import posix_spawn"]),
    ("import anyio\nanyio.run_process(['x'])", ["2: anyio.run_process"]),
    ("import asyncio\nasyncio.create_subprocess_exec('x')", ["2: asyncio.create_subprocess_exec"]),
    ("import multiprocessing", ["1: import multiprocessing"]),
    ("import concurrent.futures\nconcurrent.futures.ProcessPoolExecutor()",
     ["2: concurrent.futures.ProcessPoolExecutor"]),
    ("__import__('subprocess')", ["1: __import__(...)"]),
    ("import os\nos.path.join('a')\nos.getpid()", []),
])
def test_the_scan_sees_every_way(source: str, expected: list[str]) -> None:
    assert violations(source) == expected


def test_the_scan_covers_every_plugin() -> None:
    plugins = {p.relative_to(ROOT).parts[1] for p in SOURCES if p.parts[-4:-3] != ("fixtures",)}
    assert {"tla", "jml", "respec", "verus", "rocq_ids"} <= plugins
