"""Turn a file of team-written model answers into a replay file for ``--model replay:FILE``.

    python plugins/respec/tools/answers_replay.py ANSWERS.yaml --output responses.jsonl

``ANSWERS.yaml`` holds ``answers:``, a list of records ``{task, answer, truth, why}``: the
``respec`` task id, the full text a model would answer to ``respec-prompt`` (the spec in a fenced
block, as the prompt asks), whether the candidate really is ``equivalent`` or ``inequivalent``
to the oracle, and the argument for that truth. Each record becomes one line of the kernel's
replay format (``speckernel.providers.replay``) keyed by the exact request ``respec-prompt``
sends for that task (its system message, the task prompt, the run's default parameters), so

    kernel run respec --agent respec-prompt --model replay:responses.jsonl -t TASK ...

checks these answers as if a model had given them. One answer per task: the request of a task
is the same for every attempt, so a second answer would only be served to a second attempt.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs
from speckernel.errors import KernelError
from speckernel.model import Completion, GenerateParams, Message, Task
from speckernel.providers.replay import ReplayRecord
from speckernel.yamlio import load_yaml, plain

from speckernel_respec.agents import RespecPromptAgent
from speckernel_respec.domains import DOMAINS
from speckernel_respec.tasks import load_tasks

TRUTHS = ("equivalent", "inequivalent")
MODEL = "team:hard-candidates"
"""The model id the records carry (a team-written answer, not a real model's)."""


@attrs.frozen
class Answer:
    """One team-written answer to a ``respec`` task and the truth about it."""

    task: str
    answer: str
    truth: str
    why: str

    @property
    def domain(self) -> str:
        return self.task.split("/", 1)[0]


def load_answers(path: Path) -> list[Answer]:
    """The records of an answers file; a malformed record is a ``KernelError`` naming it."""
    data = plain(load_yaml(path.read_text(encoding="utf-8"), str(path)))
    records = data.get("answers") if isinstance(data, Mapping) else None
    if not isinstance(records, list):
        raise KernelError(f"{path}: expected a mapping with an 'answers' list")
    out = []
    for number, record in enumerate(records, 1):
        given = record if isinstance(record, Mapping) else {}
        fields = {k: v for k in ("task", "answer", "truth", "why")
                  if isinstance(v := given.get(k), str) and v.strip()}
        if len(fields) < 4:
            raise KernelError(f"{path}: answer {number} needs non-empty task, answer, truth, why")
        if fields["truth"] not in TRUTHS:
            raise KernelError(f"{path}: answer {number}: truth must be one of {TRUTHS}")
        out.append(Answer(**fields))
    twice = sorted(t for t, n in Counter(a.task for a in out).items() if n > 1)
    if twice:
        raise KernelError(f"{path}: one answer per task; several for {', '.join(twice)}")
    return out


def the_tasks(answers: Sequence[Answer]) -> dict[str, Task]:
    """The bundled tasks the answers are for (every one must exist)."""
    domains = [d for d in DOMAINS if any(a.domain == d for a in answers)]
    tasks = {t.id: t for t in load_tasks({}, domains)}
    unknown = sorted({a.task for a in answers} - tasks.keys())
    if unknown:
        raise KernelError(f"no bundled respec task {', '.join(unknown)}")
    return tasks


def record(answer: Answer, task: Task) -> ReplayRecord:
    """The replay record ``respec-prompt`` will be served for ``task``."""
    messages = (Message("system", RespecPromptAgent.SYSTEM), Message("user", task.prompt))
    return ReplayRecord(MODEL, messages, GenerateParams(), Completion(answer.answer, MODEL))


def write_replay(answers: Sequence[Answer], output: Path) -> None:
    tasks = the_tasks(answers)
    lines = [record(a, tasks[a.task]).to_line() for a in answers]
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("answers", type=Path)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    answers = load_answers(args.answers)
    write_replay(answers, args.output)
    print(f"{args.output}: {len(answers)} answers")


if __name__ == "__main__":
    main()
