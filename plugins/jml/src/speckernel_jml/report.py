"""FormalBench's tables over a run's samples.

Table 1: SR, FR, unknown rate and completeness per agent, model and prompt style (base tasks).
Table 2: base vs diverse SR/FR, the flip rate — the share of variants whose spec does not verify
although the original's did, over variants whose original verified — and SR/FR/CR normalised
over the transformations that apply (each rule's mean, averaged over rules, so a rule that fits
many programs does not dominate). The failure-category histogram counts the categories of every
failing verification. The repair table is Figure 5: SR and FR after each repair round.

A variant's task id is ``<base id>--<rule>[--<variant>]`` (see :mod:`speckernel_jml.bundled` and
:mod:`speckernel_jml.formalbench`), which is how a variant finds its original.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from speckernel.components import Table
from speckernel.model import Sample

from speckernel_jml.agents import ROUND_LOG, STYLE_LOG
from speckernel_jml.scoring import consistency_outcome
from speckernel_jml.verifiers import VERIFY

Group = tuple[str, str, str]


def style_of(sample: Sample) -> str:
    """The prompt style an agent logged, ``-`` for agents without one (``reference``)."""
    for line in sample.log:
        if line.startswith(f"{STYLE_LOG} "):
            return line.split()[1]
    return "-"


def group_of(sample: Sample) -> Group:
    return sample.key.agent, sample.key.model, style_of(sample)


def split_variant(task_id: str) -> tuple[str, str | None]:
    """``(base id, rule)`` of a variant's task id; ``(task_id, None)`` for a base task."""
    parts = task_id.split("--")
    return (parts[0], parts[1]) if len(parts) > 1 else (task_id, None)


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _rates(samples: Sequence[Sample]) -> tuple[float | None, float | None, float | None]:
    outcomes = [o for s in samples if (o := consistency_outcome(s.verdicts)) is not None]
    if not outcomes:
        return None, None, None
    return tuple(outcomes.count(k) / len(outcomes)  # type: ignore[return-value]
                 for k in ("success", "failure", "unknown"))


def _grouped(samples: Iterable[Sample]) -> dict[Group, list[Sample]]:
    groups: dict[Group, list[Sample]] = defaultdict(list)
    for sample in samples:
        groups[group_of(sample)].append(sample)
    return dict(sorted(groups.items()))


def table1(samples: Sequence[Sample]) -> Table:
    rows = []
    base = [s for s in samples if split_variant(s.key.task_id)[1] is None]
    for (agent, model, style), group in _grouped(base).items():
        sr, fr, ur = _rates(group)
        cr = _mean(s.metrics().get("completeness") for s in group)
        vacuous = _mean(s.metrics().get("vacuous") for s in group)
        unsupported = _mean(s.metrics().get("unsupported") for s in group)
        rows.append((agent, model, style, len(group), _fmt(sr), _fmt(fr), _fmt(ur), _fmt(cr),
                     _fmt(vacuous), _fmt(unsupported)))
    return Table("FormalBench Table 1: consistency and completeness (base tasks, %)",
                 ("agent", "model", "style", "n", "SR", "FR", "unknown", "CR", "vacuous",
                  "KeY cannot read"), tuple(rows),
                 note="CR averages verified specs only; unverified specs are excluded. "
                      "vacuous: specs refused for assuming what they should prove (counted "
                      "in FR); KeY cannot read: programs outside KeY's Java (counted in "
                      "unknown).")


def flip_rate(samples: Sequence[Sample]) -> float | None:
    """Variants that do not verify among variants whose original verified (one group)."""
    verified = {s.key.task_id for s in samples
                if split_variant(s.key.task_id)[1] is None
                and consistency_outcome(s.verdicts) == "success"}
    judged = [consistency_outcome(s.verdicts) for s in samples
              if (split := split_variant(s.key.task_id))[1] is not None and split[0] in verified]
    judged = [o for o in judged if o is not None]
    return sum(o != "success" for o in judged) / len(judged) if judged else None


def _normalised(variants: Sequence[Sample]) -> tuple[float | None, float | None, float | None]:
    by_rule: dict[str, list[Sample]] = defaultdict(list)
    for sample in variants:
        by_rule[str(split_variant(sample.key.task_id)[1])].append(sample)
    per_rule = [(_rates(group), _mean(s.metrics().get("completeness") for s in group))
                for group in by_rule.values()]
    return (_mean(r[0][0] for r in per_rule), _mean(r[0][1] for r in per_rule),
            _mean(r[1] for r in per_rule))


def table2(samples: Sequence[Sample]) -> Table:
    rows = []
    for (agent, model, style), group in _grouped(samples).items():
        base = [s for s in group if split_variant(s.key.task_id)[1] is None]
        variants = [s for s in group if split_variant(s.key.task_id)[1] is not None]
        if not variants:
            continue
        base_sr, base_fr, _ = _rates(base)
        div_sr, div_fr, _ = _rates(variants)
        norm_sr, norm_fr, norm_cr = _normalised(variants)
        rows.append((agent, model, style, len(base), len(variants), _fmt(base_sr),
                     _fmt(base_fr), _fmt(div_sr), _fmt(div_fr), _fmt(flip_rate(group)),
                     _fmt(norm_sr), _fmt(norm_fr), _fmt(norm_cr)))
    return Table("FormalBench Table 2: robustness under semantic-preserving transformations (%)",
                 ("agent", "model", "style", "base n", "variants n", "base SR", "base FR",
                  "diverse SR", "diverse FR", "flip rate", "SR norm.", "FR norm.", "CR norm."),
                 tuple(rows),
                 note="flip rate: variants that fail although the original verified; norm.: "
                      "mean over transformation rules of each rule's rate.")


def category_histogram(samples: Sequence[Sample]) -> Table:
    counts: Counter[str] = Counter()
    for sample in samples:
        for verdict in sample.verdicts:
            if verdict.verifier == VERIFY and not verdict.passed:
                counts.update(set(verdict.data.get("categories", ())))
    total = sum(counts.values())
    rows = tuple((category, count, _fmt(count / total))
                 for category, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return Table("Failure categories (failing verifications, one count per category and sample)",
                 ("category", "count", "%"), rows)


def repair_rounds(samples: Sequence[Sample]) -> Table:
    """SR and FR after each repair round (FormalBench Figure 5): a sample's state after round
    r is its last logged verification at or before r."""
    rows = []
    for (agent, model, style), group in _grouped(samples).items():
        histories = [_rounds(s) for s in group]
        histories = [h for h in histories if h]
        if not histories:
            continue
        for number in range(max(max(h) for h in histories) + 1):
            states = [h[max(r for r in h if r <= number)] for h in histories]
            n = len(states)
            rows.append((agent, model, style, number, n,
                         _fmt(states.count("success") / n), _fmt(states.count("failure") / n)))
    return Table("Self-repair: SR / FR after each round (FormalBench Figure 5, %)",
                 ("agent", "model", "style", "round", "n", "SR", "FR"), tuple(rows))


def _rounds(sample: Sample) -> dict[int, str]:
    out: dict[int, str] = {}
    for line in sample.log:
        fields = line.split()
        if len(fields) >= 3 and fields[0] == ROUND_LOG and fields[1].isdigit():
            status = fields[2]
            out[int(fields[1])] = status if status in ("success", "failure") else "unknown"
    return out


def report_tables(samples: Sequence[Sample]) -> list[Table]:
    tables = [table1(samples), table2(samples), category_histogram(samples),
              repair_rounds(samples)]
    return [t for t in tables if t.rows]
