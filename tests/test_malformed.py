"""Two hundred malformed inputs: each ends as one clear error line or a recorded verdict.

Never a traceback, never a hang, never a lost sample.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("pyfunc")

RNG = random.Random(20261122)


def _garbage(n: int) -> str:
    alphabet = ("```\n\x00\x1b[0m{}[]\"'\\ éλ∀→ solution.py python "
                + "".join(map(chr, range(32, 127))))
    return "".join(RNG.choice(alphabet) for _ in range(n))


BAD_YAML = [
    "benchmark: [pyfunc\n", "benchmark: pyfunc\n  samples: 2\n", ":\n",
    "benchmark: pyfunc\n\t- x\n",
    "benchmark: pyfunc\nsamples: -3\n", "benchmark: pyfunc\nsamples: 1.5\n",
    "benchmark: pyfunc\nsamples: [1]\n", "benchmark: pyfunc\nseed: {}\n",
    "benchmark: pyfunc\ncache: 1\n", "benchmark: pyfunc\nparams: 3\n",
    "benchmark: pyfunc\nparams: {temperature: hot}\n", "benchmark: pyfunc\noptions: [a]\n",
    "benchmark: pyfunc\nshard: 3/2\n", "benchmark: pyfunc\nshard: x\n",
    "benchmark: pyfunc\nmodel_concurrency: 0\n", "benchmark: pyfunc\nmax_cost: free\n",
    "benchmark: pyfunc\nagnets: [reference]\n", "benchmark: pyfunc\nmodel: openai:x\n",
    "benchmark: pyfunc\n? [a, b]\n: c\n", "[1, 2, 3]\n", "just a string\n", "42\n",
    "benchmark: pyfunc\noptions: {nope: 1}\n", "benchmark: nosuchbench\n",
    "benchmark: pyfunc\nagents: [nosuchagent]\n", "benchmark: pyfunc\nmodels: [gpt4]\n",
    "benchmark: pyfunc\nmodels: [nosuch:model]\n", "benchmark: pyfunc\ntasks: [zzz*]\n",
    "benchmark: pyfunc\nsandbox: vm\n", "benchmark: pyfunc\nsandbox: docker\n",
    "benchmark: pyfunc\nagents: [prompt]\n", "&a [*a]\n",
    "benchmark: !!python/object:os.system x\n",
    "benchmark: pyfunc\nsamples: 99999999999999999999999999\nlimit: x\n",
    "\xff\xfe\x00b\x00", "benchmark: pyfunc\nverifier_concurrency: -1\n",
    "benchmark: pyfunc\nsample_timeout_s: soon\n", "benchmark: pyfunc\ntasks: {a: 1}\n",
    "benchmark: pyfunc\nbenchmark: pyfunc\n", "benchmark: pyfunc\n" + "x" * 5000 + ": 1\n",
]
BAD_YAML += [_garbage(RNG.randint(5, 300)) for _ in range(30)]

BAD_COMMANDS = [
    ["run"], ["run", "nosuch"], ["run", "pyfnuc"], ["run", "pyfunc", "--agent", "refrence"],
    ["run", "pyfunc", "--model", "openai"], ["run", "pyfunc", "--model", "opnai:gpt"],
    ["run", "pyfunc", "--agent", "prompt"], ["run", "pyfunc", "-n", "0"],
    ["run", "pyfunc", "-n", "two"], ["run", "pyfunc", "--shard", "2/2"],
    ["run", "pyfunc", "--shard", "a/b"], ["run", "pyfunc", "-o", "novalue"],
    ["run", "pyfunc", "-o", "nope=1"], ["run", "pyfunc", "--task", "nothing*"],
    ["run", "pyfunc", "--display", "fancy"], ["run", "pyfunc", "--sandbox", "vm"],
    ["run", "--resume", "/nonexistent/run"], ["run", "pyfunc", "--resume", "x"],
    ["report", "/nonexistent/run"], ["show", "/nonexistent/run", "x"], ["rescore", "/nope"],
    ["list", "widgets"], ["list", "tasks"], ["list", "tasks", "nosuch"],
    ["tools", "install", "nosuchplugin"], ["cache", "clear", "--bogus"], ["frobnicate"],
    ["run", "pyfunc", "--model-concurrency", "0"], ["run", "pyfunc", "--max-cost", "lots"],
    ["run", "missing.yaml"],
]

GARBAGE_OUTPUTS = [_garbage(RNG.randint(0, 2000)) for _ in range(80)] + [
    "", "```", "```solution.py", "```solution.py\n```", "```solution.py\ndef gcd(:\n```",
    "```solution.py\nimport sys; sys.exit(3)\n```", "```solution.py\nraise SystemExit\n```",
    "```solution.py\nimport os; os._exit(0)\n```", "```../../etc/passwd\nroot\n```",
    "```solution.py\n" + "x = 1\n" * 200_000 + "```",
]

HOSTILE = {
    "hangs": "while True:\n    pass\n",
    "sleeps": "import time\ntime.sleep(3600)\n",
    "prints_100MB": "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * 1_000_000)\n",
    "forks": "import os, time\nfor _ in range(10_000):\n    try:\n        os.fork()\n"
             "    except OSError:\n        pass\ntime.sleep(60)\n",
    "eats_memory": "x = bytearray(4 * 1024**3)\n",
    "writes_huge_file": "open('big', 'wb').write(b'0' * 2 * 1024**3)\n",
    "closes_stdout": "import os\nos.close(1)\nos.close(2)\nwhile True: pass\n",
    "reads_stdin": "import sys\nsys.stdin.read()\n",
    "kills_own_group": "import os, signal\nos.killpg(0, signal.SIGKILL)\n",
    "spawns_daemon": "import subprocess\n"
                     "subprocess.Popen(['sleep', '600'], start_new_session=True)\n",
}


def one_error_line(result) -> None:
    assert result.exit_code != 0
    assert "Traceback" not in result.stderr + result.stdout
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "internal error" not in lines[0], lines[0]


@pytest.mark.parametrize("text", BAD_YAML, ids=[f"yaml{i}" for i in range(len(BAD_YAML))])
def test_bad_run_file(kernel_cli, kernel_env: Path, text: str) -> None:
    path = kernel_env / "run.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    result = kernel_cli("run", path, "--display", "none")
    if result.exit_code == 0:  # a few garbage strings happen to be valid: then they ran
        assert "samples finished" in result.stdout
    else:
        one_error_line(result)


@pytest.mark.parametrize("args", BAD_COMMANDS, ids=[" ".join(a) for a in BAD_COMMANDS])
def test_bad_command(kernel_cli, args: list[str]) -> None:
    quiet = args[0] == "run" and "--display" not in args
    one_error_line(kernel_cli(*args, *(["--display", "none"] if quiet else [])))


@pytest.mark.parametrize("text", GARBAGE_OUTPUTS,
                         ids=[f"out{i}" for i in range(len(GARBAGE_OUTPUTS))])
def test_garbage_model_output_is_a_recorded_verdict(kernel_cli, scripted_model, run_dir,
                                                    text: str) -> None:
    model = scripted_model(lambda messages: text)
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
                        "--output", run_dir, "--display", "none", "--timeout", "5")
    assert result.exit_code == 0, result.stderr
    [record] = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert record["status"] in ("failure", "timeout")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_candidate_is_contained(kernel_cli, scripted_model, run_dir, name: str) -> None:
    model = scripted_model(lambda messages: f"```solution.py\n{HOSTILE[name]}```")
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "-n", "2", "--agent", "prompt",
                        "--model", model, "--output", run_dir, "--display", "none",
                        "--timeout", "3")
    assert result.exit_code == 0, result.stderr
    records = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 2
    assert {r["status"] for r in records} <= {"failure", "timeout"}


def test_there_are_two_hundred_cases() -> None:
    assert len(BAD_YAML) + len(BAD_COMMANDS) + len(GARBAGE_OUTPUTS) + len(HOSTILE) >= 200
