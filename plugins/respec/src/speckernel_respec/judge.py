"""LLM-as-a-judge, measured against the sound verifiers (RESpecBench §3.1).

Judging is a kernel run of its own, so it gets the kernel's caching, cost accounting and resume:
benchmark ``respec-judge`` (option ``run``: a finished ``respec`` run directory) has one task per
candidate of that run, carrying the statement, the oracle, the candidate and the verdict the sound
verifier gave it. A judge agent asks the model and returns its raw answers as files; verifier
``respec.judge`` reads the decision out of them; scorer ``respec.judge-score`` compares it with
the sound verdict (FAR, FRR, inflation: see ``speckernel_respec.scoring``).

* Formalization Judge (``respec-judge-formalization``): statement + candidate -> a score 0-3;
  accept at >= 2.
* Equivalence Judge (``respec-judge-equivalence``): oracle + candidate, asked twice, oracle first
  and candidate first; each answer gives a verdict (equivalent or not) and a score 0-3 (how
  equivalent). If the two verdicts agree they decide; otherwise accept when the two scores sum
  to >= 4. The verdict is asked for apart from the score because with a verdict derived from
  the score (>= 2) the rule would collapse to "sum >= 4".

An answer without a well-formed ``Score:`` (and, for equivalence, ``Verdict:``) line is
``unknown`` and excluded from the metrics, as is every decision that depends on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from speckernel.components import (
    Agent,
    AgentContext,
    Benchmark,
    Phase,
    Table,
    Verifier,
    VerifyContext,
)
from speckernel.errors import KernelError
from speckernel.model import Candidate, Files, Message, Sample, Status, Task, Verdict
from speckernel.store import RunStore

from speckernel_respec.domains import DOMAINS
from speckernel_respec.report import judge_table
from speckernel_respec.scoring import JUDGE_SCORE, verdict_of
from speckernel_respec.tasks import BENCHMARK, load_tasks

JUDGE_BENCHMARK = "respec-judge"
JUDGE = "respec.judge"

FORMALIZATION_FILE = "formalization.txt"
ORACLE_FIRST, CANDIDATE_FIRST = "oracle-first.txt", "candidate-first.txt"

LANGUAGES = {"gsm": "GSM answer-language expressions", "fol": "first-order logic formulas "
             "(FOLIO syntax)", "regex": "regular expressions", "sql": "SQL queries",
             "rocq": "Gallina (Rocq) definitions"}

SYSTEM = ("You are an expert in formal specification and logic. You judge specifications "
          "carefully and answer in the format asked for.")

SCORE = re.compile(r"^\W*score\W*\s*([0-3])(?![\d.])", re.IGNORECASE | re.MULTILINE)
VERDICT = re.compile(r"^\W*verdict\W*\s*(not\s+equivalent|equivalent)\b",
                     re.IGNORECASE | re.MULTILINE)


# --------------------------------------------------------------------------- prompts


def formalization_prompt(domain: str, nl: str, candidate: str) -> str:
    return (f"Statement:\n{nl}\n\nA specification written as one of the {LANGUAGES[domain]}:\n"
            f"```\n{candidate}\n```\n\nDoes the specification formalize the statement exactly? "
            "Rate it from 0 to 3: 0 = wrong or unrelated, 1 = partly right with an important "
            "error, 2 = right up to a minor issue, 3 = exactly right.\n"
            "End your answer with the line `Score: N`.")


def equivalence_prompt(domain: str, first: str, second: str) -> str:
    return (f"Two {LANGUAGES[domain]}:\n\nSpecification A:\n```\n{first}\n```\n\n"
            f"Specification B:\n```\n{second}\n```\n\nAre A and B semantically equivalent, "
            "i.e. do they mean the same on every input?\nEnd your answer with two lines:\n"
            "`Verdict: EQUIVALENT` or `Verdict: NOT EQUIVALENT`\n"
            "`Score: N` where N from 0 to 3 says how equivalent they are: 0 = clearly "
            "different, 3 = certainly equivalent.")


# --------------------------------------------------------------------------- decisions


@attrs.frozen
class EquivalenceAnswer:
    equivalent: bool
    score: int


def parse_score(text: str) -> int | None:
    """The last ``Score: N`` line's N (0-3), None when there is none."""
    found = SCORE.findall(text)
    return int(found[-1]) if found else None


def parse_equivalence(text: str) -> EquivalenceAnswer | None:
    """The last ``Verdict:`` and ``Score:`` lines, None unless both are well-formed."""
    verdicts, score = VERDICT.findall(text), parse_score(text)
    if not verdicts or score is None:
        return None
    return EquivalenceAnswer(not verdicts[-1].lower().startswith("not"), score)


def formalization_accepts(score: int | None) -> bool | None:
    """Formalization Judge: accept at a score >= 2; None (unknown) without a score."""
    return None if score is None else score >= 2


def equivalence_accepts(first: EquivalenceAnswer | None,
                        second: EquivalenceAnswer | None) -> bool | None:
    """Equivalence Judge: agreeing verdicts decide, else accept when the scores sum to >= 4;
    None (unknown) if either answer is malformed."""
    if first is None or second is None:
        return None
    if first.equivalent == second.equivalent:
        return first.equivalent
    return first.score + second.score >= 4


# --------------------------------------------------------------------------- agents


def _ask(prompt: str) -> list[Message]:
    return [Message("system", SYSTEM), Message("user", prompt)]


class FormalizationJudge(Agent):
    """Asks the model to rate the candidate against the statement; returns its answer."""

    name = "respec-judge-formalization"
    description = "Formalization Judge: statement + candidate -> score 0-3 (RESpecBench)"
    benchmarks = (JUDGE_BENCHMARK,)

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        meta = task.metadata
        answer = await ctx.generate(_ask(formalization_prompt(
            str(meta["domain"]), str(meta["nl"]), str(meta["candidate"]))))
        return {FORMALIZATION_FILE: answer.text}


class EquivalenceJudge(Agent):
    """Asks the model whether oracle and candidate are equivalent, in both orders."""

    name = "respec-judge-equivalence"
    description = "Equivalence Judge: oracle + candidate, both orders (RESpecBench)"
    benchmarks = (JUDGE_BENCHMARK,)

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        meta = task.metadata
        domain, oracle, candidate = str(meta["domain"]), str(meta["oracle"]), \
            str(meta["candidate"])
        first = await ctx.generate(_ask(equivalence_prompt(domain, oracle, candidate)))
        second = await ctx.generate(_ask(equivalence_prompt(domain, candidate, oracle)))
        return {ORACLE_FIRST: first.text, CANDIDATE_FIRST: second.text}


# --------------------------------------------------------------------------- verifier


class JudgeVerifier(Verifier):
    """Reads the judge's decision out of its answers: success = accepts, failure = rejects,
    unknown = malformed answer. ``data``: ``judge``, ``accept`` (bool or None), ``scores``."""

    name = JUDGE
    version = "1"
    description = "the decision of an LLM judge, read from its answers (RESpecBench §3.1)"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        files = candidate.files
        if FORMALIZATION_FILE in files:
            score = parse_score(files[FORMALIZATION_FILE])
            return self._verdict("formalization", formalization_accepts(score), [score])
        if ORACLE_FIRST in files and CANDIDATE_FIRST in files:
            answers = [parse_equivalence(files[ORACLE_FIRST]),
                       parse_equivalence(files[CANDIDATE_FIRST])]
            return self._verdict("equivalence", equivalence_accepts(*answers),
                                 [a.score if a else None for a in answers],
                                 [a.equivalent if a else None for a in answers])
        return self._verdict("none", None, [])

    def _verdict(self, judge: str, accept: bool | None, scores: list[int | None],
                 equivalent: list[bool | None] | None = None) -> Verdict:
        status = Status.UNKNOWN if accept is None else Status.SUCCESS if accept \
            else Status.FAILURE
        data: dict[str, Any] = {"judge": judge, "accept": accept, "scores": scores}
        if equivalent is not None:
            data["equivalent"] = equivalent
        return Verdict(self.name, status, data=data)


# --------------------------------------------------------------------------- benchmark


def judge_tasks(root: Path, agent: str | None = None, model: str | None = None) -> list[Task]:
    """One judge task per candidate of the ``respec`` run in ``root`` that has a specification
    and a verifier verdict (optionally only those of ``agent`` and ``model``)."""
    store = RunStore(root)
    info = store.read_run_info()
    if info.get("benchmark", {}).get("name") != BENCHMARK:
        raise KernelError(f"option run: {root} is not a '{BENCHMARK}' run")
    options = {**info["config"].get("options", {})}
    originals = {t.id: t for t in load_tasks(options, DOMAINS)}
    out = []
    for sample in store.load_samples():
        key = sample.key
        task, verdict = originals.get(key.task_id), verdict_of(sample.verdicts)
        if (sample.candidate is None or task is None or verdict is None
                or agent not in (None, key.agent) or model not in (None, key.model)):
            continue
        if sample.task_digest and sample.task_digest != task.digest():
            raise KernelError(f"option run: task {task.id} changed since {root} was run")
        spec = sample.candidate.files.get(str(task.metadata["artifact_files"][0]), "")
        if spec.strip():
            meta = task.metadata
            out.append(Task(f"{key.task_id}/{key.agent}/{key.model}/{key.index}",
                            JUDGE_BENCHMARK, metadata={
                                "domain": meta["domain"], "nl": meta["nl"],
                                "oracle": meta["oracle"], "candidate": spec,
                                "verifier": verdict, "sample": sample.id}))
    return out


class JudgeBenchmark(Benchmark):
    """The candidates of a finished ``respec`` run, judged by an LLM (options ``run``, and
    ``agent``/``model`` to judge only some of its candidates)."""

    name = JUDGE_BENCHMARK
    version = "1"
    description = "LLM-as-a-judge on a respec run's candidates, against the sound verifier"
    phases = (Phase("judge", (JUDGE,)),)
    scorers = (JUDGE_SCORE,)
    options = {"run": None, "agent": None, "model": None}
    option_descriptions = {
        "run": "directory of a finished respec run whose candidates are judged (required)",
        "agent": "judge only the candidates of this agent of that run (default: every agent)",
        "model": "judge only the candidates of this model of that run, e.g. openai:gpt-5 "
                 "(default: every model)",
    }
    default_agent = FormalizationJudge.name

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        if not options.get("run"):
            raise KernelError(f"benchmark {self.name} needs option run=DIR (a respec run)")
        root = Path(str(options["run"])).expanduser()
        agent, model = options.get("agent"), options.get("model")
        return judge_tasks(root, None if agent is None else str(agent),
                           None if model is None else str(model))

    def solved(self, sample: Sample) -> bool:
        """The judge agrees with the sound verifier."""
        metrics = sample.metrics()
        accept = metrics.get("judge_accept")
        return accept is not None and accept == metrics.get("verifier_success")

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        return [judge_table(samples)]
