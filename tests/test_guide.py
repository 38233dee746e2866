"""The plugin guide works: its example plugin, taken from the guide's own code blocks, builds,
installs into a fresh virtual environment beside speckernel, runs with the real grep, and passes
its own tests there — what a stranger following ``docs/writing-a-plugin.md`` would do.

A code block belongs to the example when its info string names a file (```` ```python
file:src/speckernel_regexbench/plugin.py ````); nothing else of the guide is executed.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

GUIDE = Path(__file__).parent.parent / "docs" / "writing-a-plugin.md"
BLOCK = re.compile(r"^```[\w+-]* file:(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def example_files() -> dict[str, str]:
    """The example plugin's files, path -> text, as the guide's code blocks hold them."""
    files: dict[str, str] = {}
    for path, text in BLOCK.findall(GUIDE.read_text(encoding="utf-8")):
        assert path not in files, f"{path} appears twice in the guide"
        assert not path.startswith("/") and ".." not in Path(path).parts
        files[path] = text
    return files


def test_the_guide_holds_a_whole_plugin() -> None:
    files = example_files()
    assert {"pyproject.toml", "src/speckernel_regexbench/plugin.py",
            "src/speckernel_regexbench/toolchain.py", "tests/test_regexbench.py"} <= set(files)
    for path, text in files.items():
        if path.endswith(".py"):
            compile(text, path, "exec")  # each block is a whole module, not an excerpt


@pytest.mark.slow
def test_the_guides_example_plugin_installs_runs_and_passes_its_tests(
        fresh_venv: Path, tmp_path: Path) -> None:
    source = tmp_path / "speckernel-regexbench"
    for path, text in example_files().items():
        target = source / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    python = str(fresh_venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    f"{source}[test]"], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNEL_")}
    env["KERNEL_CACHE_DIR"] = str(tmp_path / "cache")
    kernel = str(fresh_venv / "bin" / "kernel")
    try:
        listed = subprocess.run([kernel, "plugins"], env=env, cwd=tmp_path, text=True,
                                capture_output=True, timeout=120)
        assert listed.returncode == 0, listed.stderr
        assert "speckernel-regexbench" in listed.stdout
        assert "regexbench.grep" in listed.stdout and "failed" not in listed.stdout
        ran = subprocess.run([kernel, "run", "regexbench", "--output", str(tmp_path / "run")],
                             env=env, cwd=tmp_path, text=True, capture_output=True, timeout=300)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "3 samples finished (3 success), 3 solved" in ran.stdout
        assert (tmp_path / "run" / "report.html").is_file()
        tested = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 str(source / "tests")], env=env, cwd=source, text=True,
                                capture_output=True, timeout=600)
        assert tested.returncode == 0, tested.stdout + tested.stderr
        assert re.search(r"\b[1-9]\d* passed", tested.stdout), tested.stdout
    finally:
        subprocess.run([python, "-m", "pip", "uninstall", "-y", "-q", "speckernel-regexbench"],
                       check=True, timeout=120)
