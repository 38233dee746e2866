"""Run files: YAML settings merged with flags; bad input is one line naming file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from speckernel.config import RunConfig, load_run_file, resolve
from speckernel.errors import KernelError
from speckernel.model import GenerateParams
from speckernel.validation import parse_shard


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(text)
    return path


def test_file_values_are_typed_and_flags_override(tmp_path: Path) -> None:
    path = write(tmp_path, "benchmark: pyfunc\nagents: prompt\nsamples: 3\n"
                           "params: {temperature: 0.2}\noptions: {only: gcd}\nshard: 1/2\n")
    config = resolve(load_run_file(path), {"samples": 5, "models": ("openai:x",)})
    assert config == RunConfig(benchmark="pyfunc", agents=("prompt",), samples=5,
                               models=("openai:x",), params=GenerateParams(temperature=0.2),
                               options={"only": "gcd"}, shard=(1, 2))


@pytest.mark.parametrize("text, message", [
    ("benchmark: x\nsampels: 3\n", "run.yaml:2: unknown key 'sampels' (did you mean 'samples'?)"),
    ("benchmark: x\nsamples: many\n", "run.yaml:2: invalid value for 'samples'"),
    ("benchmark: [x\n", "run.yaml:2: invalid YAML"),
    ("- a\n- b\n", "a run file is a mapping"),
    ("benchmark: x\nparams: {temprature: 1}\n", "unknown parameter 'temprature'"),
    ("benchmark: x\ncache: maybe\n", "expected true or false"),
    ("samples: 0\nbenchmark: x\n", "invalid value for 'samples': must be between 1 and"),
    ("agents: [a]\n", "no benchmark given"),
])
def test_bad_run_files_fail_with_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(KernelError) as info:
        resolve(load_run_file(write(tmp_path, text)), {})
    assert message in str(info.value) and "\n" not in str(info.value)


def test_missing_run_file(tmp_path: Path) -> None:
    with pytest.raises(KernelError, match="cannot read run file"):
        load_run_file(tmp_path / "nope.yaml")


@pytest.mark.parametrize("text, expected", [("0/1", (0, 1)), (" 3 / 4 ", (3, 4))])
def test_parse_shard(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["4/4", "x", "1/0"])
def test_bad_shards(text: str) -> None:
    with pytest.raises(KernelError):
        resolve({"benchmark": "b"}, {"shard": text})
