"""Malformed inputs, generated as families of data: each ends as one clear error line or a
recorded verdict. Never a traceback, never a hang, never a lost sample.

The friends of this module hold more families (plugins raising every kind of exception in
``test_containment``, damaged run-store lines in ``test_store``, hostile text in
``test_escaping``); ``test_there_are_more_than_three_hundred_inputs`` counts them all.
"""

from __future__ import annotations

import json
import random
import time
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




# --------------------------------------------------------------------------- numbers (issue 20)

BAD_VALUES: dict[str, list[str]] = {
    "samples": ["0", "-1", "1.5", "1e23", "100000000000000000000000", ".nan", ".inf", "hot",
                "true", "[1]", "{a: 1}", "100001"],
    "limit": ["0", "-1", "1.5", ".nan", "x", "true", "[1]", "1e9"],
    "seed": ["1.5", ".nan", "99999999999999999999999", "x", "{}", "[]"],
    "max_cost": ["-5", "-0.01", ".nan", ".inf", "-.inf", "free", "true", "[1]", "1e400",
                 "{a: 1}"],
    "sample_timeout_s": ["0", "-1", ".nan", ".inf", "1e12", "soon", "true", "[]"],
    "model_timeout_s": ["0", "-1", ".nan", ".inf", "1e12", "soon"],
    "verify_timeout_s": ["0", "-3", ".nan", ".inf", "1e12", "soon"],
    "model_concurrency": ["0", "-1", "1.5", "99999999", ".nan", "many", "false"],
    "verifier_concurrency": ["0", "-1", "1.5", "99999999", ".inf", "many"],
    "shard": ["[1]", "[1, 2, 3]", "[]", "[0, 0]", "[2, 2]", "[-1, 2]", "[a, b]", "3/2", "x",
              "1/0", "{a: 1}", "[1.5, 2]", "[true, 2]", "0/1000000", "'1/2/3'"],
    "params": ["{temperature: hot}", "{temperature: -1}", "{temperature: 3}",
               "{temperature: .nan}", "{temperature: .inf}", "{top_p: 1.5}", "{top_p: -0.1}",
               "{top_p: .nan}", "{max_tokens: 0}", "{max_tokens: -5}", "{max_tokens: 1.5}",
               "{max_tokens: 100000000000}", "{max_tokens: hot}", "{seed: x}", "{seed: 1.5}",
               "{seed: 99999999999999999999999}", "{stop: 5}", "{stop: [1, 2]}",
               "{stop: ['']}", "{stop: {a: 1}}", "{temprature: 1}", "[1]", "3",
               "{temperature: true}"],
    "options": ["{only: .nan}", "{only: .inf}", "{only: [1, -.inf]}", "[1]", "x",
                "{only: !!binary aGk=}", "{only: !!set {a, b}}"],
    "agent_options": ["{rounds: .nan}", "{a: {b: .inf}}", "[1]", "{x: !!binary aGk=}"],
    "model_options": ["{timeout_s: .nan}", "{a: [.inf]}", "7"],
    "agents": ["{a: 1}", "[[a]]", "[{a: 1}]", "[null]"],
    "tasks": ["{a: 1}", "[[gcd]]", "[{a: 1}]"],
    "cache": ["1", "'yes'", "[]"],
}
NUMBER_CASES = [(field, value) for field, values in BAD_VALUES.items() for value in values]


@pytest.mark.parametrize("field, value", NUMBER_CASES,
                         ids=[f"{f}={v}" for f, v in NUMBER_CASES])
def test_every_number_and_structure_of_a_run_file_is_checked(kernel_cli, kernel_env: Path,
                                                             field: str, value: str) -> None:
    path = kernel_env / "run.yaml"
    path.write_text(f"benchmark: pyfunc\n{field}: {value}\n")
    result = kernel_cli("run", path, "--display", "none")
    one_error_line(result)
    assert f"'{field}'" in result.stderr, result.stderr


BAD_FLAGS = [
    *(["--max-cost", v] for v in ("nan", "-5", "inf", "-inf", "1e400", "-0.001")),
    *(["-n", v] for v in ("0", "-1", "100001", "1e23", "99999999999999999999")),
    *(["--timeout", v] for v in ("0", "-1", "nan", "inf", "1e12")),
    *(["--shard", v] for v in ("1", "1/0", "2/2", "-1/2", "a/b", "1/2/3", " / ")),
    *(["--model-concurrency", v] for v in ("0", "-1", "5000")),
    *(["--verifier-concurrency", v] for v in ("0", "-7", "100000")),
    *(["--limit", v] for v in ("0", "-1")),
    ["--seed", "99999999999999999999999"],
    *(["-o", v] for v in ("only=.nan", "only=.inf", "only=" + "[" * 100, "only=[1, -.inf]",
                          "only=!!binary aGk=", "only=" + "[" * 2000 + "]" * 2000)),
    *(["--agent-option", v] for v in ("rounds=.nan", "rounds=" + "{a: " * 80 + "1" + "}" * 80)),
]


@pytest.mark.parametrize("flags", BAD_FLAGS, ids=[" ".join(f)[:40] for f in BAD_FLAGS])
def test_every_number_flag_is_checked(kernel_cli, flags: list[str]) -> None:
    one_error_line(kernel_cli("run", "pyfunc", *flags, "--display", "none"))


RESUME_FLAGS = [["--max-cost", "nan"], ["--max-cost", "-5"], ["--timeout", "-1"],
                ["--shard", "5/2"], ["--model-concurrency", "0"], ["--verifier-concurrency", "0"]]


def test_a_resume_checks_its_flags_too(kernel_cli, run_dir: Path) -> None:
    assert kernel_cli("run", "pyfunc", "-t", "gcd", "--output", run_dir,
                      "--display", "none").exit_code == 0
    for flags in RESUME_FLAGS:
        one_error_line(kernel_cli("run", "--resume", run_dir, *flags, "--display", "none"))


def test_planned_samples_are_capped_before_any_key_is_made(kernel_cli, scripted_model) -> None:
    models = [arg for _ in range(4) for arg in ("--model", scripted_model(["x"]))]
    started = time.monotonic()
    result = kernel_cli("run", "pyfunc", "--agent", "prompt", *models, "-n", "100000",
                        "--display", "none")
    one_error_line(result)
    assert "plans 1,200,000 samples" in result.stderr
    assert time.monotonic() - started < 10


# --------------------------------------------------------------------------- YAML attacks


def _bomb(fan_out: int, depth: int, where: str) -> str:
    """The billion laughs: each level an alias list of the one before."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * fan_out)}]"]
    for i in range(1, depth):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fan_out)}]")
    body = "\n".join("  " + line for line in lines)
    return f"benchmark: pyfunc\n{where}:\n{body}\n"


YAML_ATTACKS = {
    **{f"bomb-{f}x{d}-{w}": _bomb(f, d, w) for f, d in ((9, 9), (2, 40), (100, 4), (3, 15))
       for w in ("options", "agent_options", "model_options")},
    "bomb-params": "benchmark: pyfunc\nx: &x [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\nparams: *x\n",
    "bomb-tasks": "benchmark: pyfunc\n" + _bomb(10, 8, "options").split("\n", 1)[1]
                  .replace("options", "tasks"),
    **{f"flow-depth-{d}": "benchmark: pyfunc\noptions: {only: " + "[" * d + "]" * d + "}\n"
       for d in (40, 100, 300, 1000, 10_000)},
    **{f"map-depth-{d}": "benchmark: pyfunc\noptions: " + "{a: " * d + "1" + "}" * d + "\n"
       for d in (40, 100, 500)},
    **{f"block-depth-{d}": "benchmark: pyfunc\noptions:\n" + "".join(
        "  " * (i + 1) + "a:\n" for i in range(d)) + "  " * (d + 1) + "b: 1\n"
       for d in (40, 200)},
    "huge-file": "benchmark: pyfunc\n# " + "x" * 1_100_000 + "\n",
    "many-keys": "benchmark: pyfunc\noptions: {" + ", ".join(f"k{i}: 1" for i in range(10_000))
                 + "}\n",
    "long-list": "benchmark: pyfunc\ntasks: [" + ", ".join(["gcd"] * 20_000) + "]\n",
}


@pytest.mark.parametrize("name", sorted(YAML_ATTACKS))
def test_yaml_attacks_are_one_line_and_quick(kernel_cli, kernel_env: Path, name: str) -> None:
    path = kernel_env / "run.yaml"
    path.write_text(YAML_ATTACKS[name])
    started = time.monotonic()
    result = kernel_cli("run", path, "--display", "none")
    one_error_line(result)
    assert time.monotonic() - started < 30, "bounded, not hung"


# --------------------------------------------------------------------------- encodings

ENCODINGS = {
    "latin-1": "benchmark: pyfünc\n".encode("latin-1"),
    "utf-16-le-bom": "benchmark: pyfunc\n".encode("utf-16"),
    "utf-16-be": "benchmark: pyfunc\n".encode("utf-16-be"),
    "utf-32": "benchmark: pyfunc\n".encode("utf-32"),
    "overlong-slash": b"benchmark: py\xc0\xaffunc\n",
    "encoded-surrogate": b"benchmark: py\xed\xa0\x80func\n",
    "truncated-euro": b"benchmark: pyfunc\ntasks: [\xe2\x82]\n",
    "lone-continuation": b"benchmark: pyfunc\noptions: {only: \x80}\n",
    "ff-fe": b"\xff\xfe",
    "nul": b"benchmark: py\x00func\n",
    "escape-codes": b"benchmark: \x1b[2J\x1b]0;owned\x07\n",
    "cp1252-quote": b"benchmark: \x93pyfunc\x94\n",
    "shift-jis": "benchmark: pyfunc\ntasks: [\u30c6\u30b9\u30c8]\n".encode("shift_jis"),
}


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_run_files_that_are_not_utf8_text_are_one_line(kernel_cli, kernel_env: Path,
                                                       name: str) -> None:
    path = kernel_env / "run.yaml"
    path.write_bytes(ENCODINGS[name])
    one_error_line(kernel_cli("run", path, "--display", "none"))


def test_a_run_directory_whose_run_yaml_is_not_utf8_is_one_line(kernel_cli,
                                                                run_dir: Path) -> None:
    assert kernel_cli("run", "pyfunc", "-t", "gcd", "--output", run_dir,
                      "--display", "none").exit_code == 0
    (run_dir / "run.yaml").write_bytes(b"config: {benchmark: py\xfffunc}\n")
    for args in (("run", "--resume", run_dir, "--display", "none"), ("report", run_dir),
                 ("rescore", run_dir, "--display", "none")):
        one_error_line(kernel_cli(*args))


UNDECODABLE_ARGS = [  # what Python makes of non-UTF-8 bytes on the command line
    ["run", "py\udcfffunc"], ["run", "pyfunc", "-t", "\udcff"], ["run", "pyfunc", "-o",
                                                                  "only=\udcff"],
    ["run", "pyfunc", "-o", "\udcff=1"], ["show", "/nonexistent/\udcff", "x"],
    ["list", "tasks", "\udcff"], ["run", "\udcff.yaml"],
]


@pytest.mark.parametrize("args", UNDECODABLE_ARGS, ids=[f"arg{i}" for i in
                                                        range(len(UNDECODABLE_ARGS))])
def test_undecodable_arguments_are_one_line(kernel_cli, args: list[str]) -> None:
    quiet = ["--display", "none"] if args[0] == "run" else []
    one_error_line(kernel_cli(*args, *quiet))


# --------------------------------------------------------------------------- paths

BAD_OUTPUTS = ["/etc/hostname", "/etc/hostname/run", "/proc/version/run", "/proc/self/status",
               "/dev/null", "/dev/null/run", "/proc/1/run", "/sys/kernel/run"]


@pytest.mark.parametrize("output", BAD_OUTPUTS)
def test_unusable_output_paths_are_one_line(kernel_cli, run_dir: Path, output: str) -> None:
    one_error_line(kernel_cli("run", "pyfunc", "-t", "gcd", "--output", output,
                              "--display", "none"))
    if not run_dir.exists():
        assert kernel_cli("run", "pyfunc", "-t", "gcd", "--output", run_dir,
                          "--display", "none").exit_code == 0
    one_error_line(kernel_cli("report", run_dir, "--output", output))


# --------------------------------------------------------------------------- model options

MODEL_OPTIONS = {
    "unknown": "{nope: 1}", "negative timeout": "{timeout_s: -1}",
    "zero timeout": "{timeout_s: 0}", "huge timeout": "{timeout_s: 1e30}",
    "unset key": "{api_key_env: SPECKERNEL_TEST_NO_SUCH_KEY}",
    "no attempts": "{max_attempts: 0}", "fractional attempts": "{max_attempts: 1.5}",
    "huge concurrency": "{max_concurrency: 1000000000}", "url not text": "{base_url: 5}",
    "backoff text": "{backoff_s: soon}",
}
MODEL_CASES = [(provider, name) for provider in ("openai", "anthropic")
               for name in MODEL_OPTIONS]


@pytest.mark.parametrize("provider, name", MODEL_CASES,
                         ids=[f"{p}-{n}" for p, n in MODEL_CASES])
def test_model_options_are_checked_when_the_run_is_planned(kernel_cli, kernel_env: Path,
                                                           run_dir: Path, provider: str,
                                                           name: str) -> None:
    path = kernel_env / "run.yaml"
    path.write_text(f"benchmark: pyfunc\nagents: [prompt]\nmodels: [{provider}:m]\n"
                    f"model_options: {MODEL_OPTIONS[name]}\n")
    result = kernel_cli("run", path, "--output", run_dir, "--display", "none")
    one_error_line(result)
    assert f"model '{provider}:m'" in result.stderr
    assert not (run_dir / "samples.jsonl").exists(), "refused before any sample"


def test_a_missing_replay_file_is_refused_when_the_run_is_planned(kernel_cli,
                                                                  run_dir: Path) -> None:
    result = kernel_cli("run", "pyfunc", "--agent", "prompt", "--model", "replay:/nonexistent",
                        "--output", run_dir, "--display", "none")
    one_error_line(result)
    assert not (run_dir / "samples.jsonl").exists()


def test_there_are_more_than_three_hundred_inputs() -> None:
    from test_containment import IMPORT_BODIES, KINDS, PLANNING_CASES, SAMPLE_CASES
    from test_escaping import HOSTILE_TEXTS
    from test_store import DAMAGED_LINES

    families = [BAD_YAML, BAD_COMMANDS, GARBAGE_OUTPUTS, HOSTILE, NUMBER_CASES, BAD_FLAGS,
                RESUME_FLAGS, YAML_ATTACKS, ENCODINGS, UNDECODABLE_ARGS, BAD_OUTPUTS,
                MODEL_CASES, SAMPLE_CASES, PLANNING_CASES, KINDS, IMPORT_BODIES,
                DAMAGED_LINES, HOSTILE_TEXTS]
    assert sum(map(len, families)) > 300


@pytest.mark.parametrize("opening", ["[", "{a: ", "[{b: "])
def test_deep_flow_nesting_is_refused_where_it_passes_the_bound(kernel_cli, kernel_env: Path,
                                                                opening: str) -> None:
    """The 65th open flow collection is refused on the spot, naming the line (the scanner used
    to look over every open level per token: 10,000 levels took it tens of seconds)."""
    path = kernel_env / "run.yaml"
    path.write_text("benchmark: pyfunc\n\noptions: {only: " + opening * 5_000 + "\n")
    result = kernel_cli("run", path, "--display", "none")
    one_error_line(result)
    assert f"{path}:3: invalid YAML: nested more than 64 levels deep" in result.stderr
