"""RESpecBench tasks: the team's task files and loaders for the upstream formats.

A task is a natural-language statement, an oracle specification and the facts the domain's
verifier needs. The team's tasks ship as package data, ``tasks/<domain>.yaml``::

    tasks:
      - name: even-count
        nl: "..."
        oracle: "..."
        facts: {...}          # the domain's facts (see ``Task.metadata["facts"]``)
        notes: "..."          # optional: why the task is tricky

Upstream loaders read a user-given path (nothing upstream is copied into the package):

* ``folio``: FOLIO jsonl of any split (``premises``/``premises-FOL`` as lists or as one text
  with a line each, ``conclusion``/``conclusion-FOL`` where present: the train split has no
  conclusion formulas). Every distinct (sentence, formula) pair is a ``fol`` task whose oracle
  is the formula. A story
  (the lines sharing one premise list) gives the vocabulary: the union of the signatures of its
  formulas, read by the ``fol`` verifier's own parser (``domains.fol_syntax``), so a task's
  facts are exactly what the verifier derives from its oracle. Formulas that parser rejects are
  skipped (4 of the 571 distinct formulas of FOLIO's validation set, which have unbalanced
  parentheses or a comma between two atoms), and so are stories that apply a predicate with two
  arities.
* ``deepregex``: NL-RX-Turk/KB13 parallel ``src.txt``/``targ.txt``, a dataset directory or a
  directory of them; ``regex`` tasks in DeepRegex syntax.
* ``gsm_symbolic``: GSM-Symbolic ``generated_data/*.jsonl`` (a file or a directory). An instance
  has a concrete question and a GSM8K answer ending in ``#### <number>``; the template's
  variables, sampling ranges and conditions are *not* in these files, so an instance becomes a
  variable-free ``gsm`` task whose oracle is that number (the model writes the computation as an
  expression). The symbolic, variable-carrying tasks of GSM-Symbolic+ are the team's.
* ``sql_pairs``: a JSON list or jsonl of ``{"name", "nl", "schema", "oracle", "constraints"?,
  "dialect"?}`` where ``schema`` is SQL text or Polygon's JSON schema (a table list or
  ``{"Tables": [...]}``, turned into ``CREATE TABLE`` statements by :mod:`.polygon`; the
  dialect is then ``mysql`` unless the record says ``sqlite``), and ``constraints`` a list of
  queries that each return a row when a database violates it (``domains.sql_facts``) or, with
  a Polygon schema, Polygon's constraint text.
* ``polygon_leetcode``: Polygon's ``benchmarks/leetcode`` directory (``schemas/``,
  ``constraints/``, ``groundtruths/``): one MySQL ``sql`` task per problem (:mod:`.polygon`).
* ``clever_rocq``: a JSON list or jsonl of ``{"name", "nl", "preamble", "definition", "type",
  "oracle"}``: a Clever problem restated in Gallina, ``definition`` the name the candidate must
  define with type ``type``, ``preamble`` the ``Require``/``Definition`` text both share.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
from speckernel.errors import KernelError
from speckernel.model import JSON, Task
from speckernel.yamlio import load_yaml, plain

from speckernel_respec import polygon
from speckernel_respec.domains import DOMAINS, gsm_lang, spec_file, sql_facts
from speckernel_respec.domains.fol_syntax import (
    Connective,
    ParseError,
    Quantifier,
    Signature,
    parse,
    signature,
)
from speckernel_respec.domains.gallina import ALLOWED
from speckernel_respec.domains.regex_syntax import (
    DEEPREGEX_SPECIAL,
    MACROS,
    PYTHON_UNSUPPORTED,
    SIGMA_FIRST,
    SIGMA_LAST,
)

BENCHMARK = "respec"

ANSWER_FORMAT = ("Answer with the specification alone in one fenced code block (```), "
                 "without explanation inside the block.")


@attrs.frozen
class Entry:
    """A task before it is rendered: one record of a team file or of an upstream source."""

    domain: str
    name: str
    nl: str
    oracle: str
    facts: Mapping[str, JSON]
    notes: str = ""
    source: str = "team"

    def task(self) -> Task:
        artifact = spec_file(self.domain)
        return Task(f"{self.domain}/{self.name}", BENCHMARK,
                    prompt(self.domain, self.nl, self.facts),
                    metadata={"domain": self.domain, "oracle": self.oracle, "facts": self.facts,
                              "artifact_files": [artifact], "nl": self.nl,
                              "source": self.source, "notes": self.notes},
                    reference={artifact: self.oracle})


# --------------------------------------------------------------------------- prompts


def _lines(items: Iterable[str]) -> str:
    return "\n".join(f"  {item}" for item in items) or "  (none)"


def _gsm_format(facts: Mapping[str, Any]) -> str:
    variables = facts.get("variables") or {}
    constraints = facts.get("constraints") or []
    return ("Write the answer in the GSM answer language. "
            f"{gsm_lang.synopsis()}\n"
            f"Variables (name: type):\n{_lines(f'{n}: {t}' for n, t in variables.items())}\n"
            f"Public constraints (they hold for every assignment):\n{_lines(constraints)}")


def _fol_format(facts: Mapping[str, Any]) -> str:
    predicates = facts.get("predicates") or {}
    constants = facts.get("constants") or []
    quantifiers = " and ".join(f"{q.value}x" for q in Quantifier)
    return (f"Write one first-order formula in FOLIO notation: quantifiers {quantifiers}, "
            f"negation ¬, the connectives {' '.join(c.value for c in Connective)} (from "
            "tightest to loosest binding; → groups to the right), = and ≠ between terms, "
            "parentheses, and atoms such as P(x, c) whose arguments are variables or constants "
            "(no function symbols). ¬ and a quantifier apply to the atom or parenthesised "
            "formula right after them: write ∀x (P(x) → Q(x)). A name no quantifier binds must "
            "be one of the constants below.\n"
            f"Predicates (name/arity): {', '.join(f'{p}/{a}' for p, a in predicates.items())}\n"
            f"Constants: {', '.join(constants) or '(none)'}")


_ALPHABET = f"printable ASCII ({chr(SIGMA_FIRST)!r} to {chr(SIGMA_LAST)!r})"


def _regex_format(facts: Mapping[str, Any]) -> str:
    if facts.get("syntax", "deepregex") == "python":
        return ("Write one regular expression in Python `re` syntax without flags; only its "
                f"regular fragment is allowed (not: {', '.join(PYTHON_UNSUPPORTED)}). Strings "
                f"are made of {_ALPHABET} and the regex must match the whole string (it is "
                "used with re.fullmatch).")
    return ("Write one regular expression in DeepRegex (dk.brics) syntax: concatenation, | for "
            "union, & for intersection, ~ for complement (it binds tighter than repetition: "
            "~a* is (~a)*), * + ? {n} {n,} {n,m}, classes such as [A-Za-z] and [^0-9], . for "
            "any character, @ for any string, # for no string, () for the empty string, "
            '"..." for a literal string, \\b for a word boundary, ^ and $, and the macros '
            f"{' '.join(f'<{m}>' for m in MACROS)}. Escape the characters "
            f"{''.join(sorted(DEEPREGEX_SPECIAL))} with \\ to match them literally; a space "
            f"matches a space. Strings are made of {_ALPHABET} and the regex must match the "
            "whole line (it is implicitly anchored at both ends).")


def _sql_format(facts: Mapping[str, Any]) -> str:
    engine = "MySQL" if facts.get("dialect") == "mysql" else "SQLite"
    text = (f"Write one read-only {engine} query (SELECT, possibly with WITH) over this schema; "
            "rows are compared as a multiset unless the expected answer is ordered (ORDER BY). "
            "Window functions, recursive WITH, RANDOM() or 'now', rowid, and LIMIT/OFFSET "
            "without ORDER BY cannot be checked.\n" + sql_facts.schema(facts))
    constraints = sql_facts.constraints(facts)
    if constraints:
        text += ("\nOnly databases satisfying these conditions count:\n"
                 + _lines(sql_facts.assumption(c) for c in constraints))
    return text


def _rocq_format(facts: Mapping[str, Any]) -> str:
    return (f"Write the Gallina definition of `{facts.get('name', '')}` with type "
            f"`{facts.get('type', '')}`: sentences that start with {', '.join(ALLOWED)} only "
            "(Require and Import of standard-library modules; no proofs, no Axiom or Admitted, "
            "no Program, no ltac: or attributes). It may use this context:\n"
            f"{facts.get('preamble', '')}")


FORMATS: Mapping[str, Callable[[Mapping[str, Any]], str]] = {
    "gsm": _gsm_format, "fol": _fol_format, "regex": _regex_format, "sql": _sql_format,
    "rocq": _rocq_format}
"""Each domain's output-format instructions, given the task's facts."""


def prompt(domain: str, nl: str, facts: Mapping[str, Any]) -> str:
    """The statement, the domain's output format and the answer format."""
    return f"{nl.strip()}\n\n{FORMATS[domain](facts)}\n\n{ANSWER_FORMAT}"


# --------------------------------------------------------------------------- team files


def _text(record: Mapping[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise KernelError(f"{where}: '{key}' must be a non-empty string")
    return value


def _facts(record: Mapping[str, Any], where: str) -> Mapping[str, JSON]:
    facts = record.get("facts", {})
    if not isinstance(facts, Mapping):
        raise KernelError(f"{where}: 'facts' must be a mapping")
    return dict(facts)


def parse_team_file(domain: str, text: str, origin: str) -> list[Entry]:
    """The entries of one team file; a malformed entry is an error naming it."""
    data = plain(load_yaml(text, origin))
    records = data.get("tasks") if isinstance(data, Mapping) else None
    if not isinstance(records, list):
        raise KernelError(f"{origin}: expected a mapping with a 'tasks' list")
    entries = []
    for number, record in enumerate(records, 1):
        where = f"{origin}: task {number}"
        if not isinstance(record, Mapping):
            raise KernelError(f"{where}: expected a mapping")
        entries.append(Entry(domain, _text(record, "name", where), _text(record, "nl", where),
                             _text(record, "oracle", where), _facts(record, where),
                             str(record.get("notes") or "")))
    return entries


def team_entries(domain: str) -> list[Entry]:
    """The team's tasks of ``domain`` (none while its file is not written)."""
    resource = resources.files("speckernel_respec").joinpath("tasks", f"{domain}.yaml")
    if not resource.is_file():
        return []
    return parse_team_file(domain, resource.read_text(encoding="utf-8"), f"tasks/{domain}.yaml")


# --------------------------------------------------------------------------- upstream: helpers


def _records(path: Path) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(where, record) for a JSON list, a jsonl file or a directory of them, in name order."""
    files = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl")) \
        if path.is_dir() else [path]
    for file in files:
        text = file.read_text(encoding="utf-8")
        if file.suffix == ".json":
            data = json.loads(text)
            rows = data if isinstance(data, list) else [data]
            yield from ((f"{file}: record {i}", r) for i, r in enumerate(rows, 1))
        else:
            yield from ((f"{file}:{i}", json.loads(line))
                        for i, line in enumerate(text.splitlines(), 1) if line.strip())


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# --------------------------------------------------------------------------- upstream: FOLIO

def _vocabulary(formula: str) -> Signature | None:
    """The signature of a FOLIO formula as the ``fol`` verifier parses it (``fol_syntax``), or
    None when the formula is outside that grammar (so the verifier would reject it too)."""
    try:
        return signature(parse(formula))
    except ParseError:
        return None


def _lines_of(value: Any) -> list[str]:
    """A FOLIO premise field: a list (the v1 jsonl files) or one text with a line per premise
    (the v2 release), as a list of non-empty lines."""
    items = value if isinstance(value, list) else str(value or "").splitlines()
    return [str(item).strip() for item in items if str(item).strip()]


def load_folio(path: Path) -> list[Entry]:
    """One ``fol`` task per distinct (sentence, formula) pair of a FOLIO jsonl file, of any
    split: the train split's records have no ``conclusion-FOL``, so only their premises count;
    the others' conclusions do too."""
    stories: dict[tuple[str, ...], dict[tuple[str, str], None]] = {}
    for _, record in _records(path):
        premises = tuple(_lines_of(record.get("premises-FOL")))
        sentences = _lines_of(record.get("premises"))
        # Ten validation records split a sentence over two formulas (or merge two): pairing by
        # position would give tasks whose oracle formalises another sentence, so those
        # records contribute only their conclusion, which always pairs one to one.
        pairs = list(zip(sentences, premises, strict=True)) \
            if len(sentences) == len(premises) else []
        if record.get("conclusion") and record.get("conclusion-FOL"):
            pairs.append((record["conclusion"], record["conclusion-FOL"]))
        story = stories.setdefault(premises, {})
        story.update(((str(n).strip(), str(f).strip()), None) for n, f in pairs)
    entries: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    for number, story in enumerate(stories.values(), 1):
        parsed = [(nl, f, sig) for nl, f in story if nl and (sig := _vocabulary(f)) is not None]
        try:
            vocabulary = functools.reduce(Signature.union, (sig for *_, sig in parsed),
                                          Signature({}, frozenset()))
        except ParseError:  # the story applies one predicate with two arities
            continue
        facts: dict[str, JSON] = {"predicates": dict(vocabulary.predicates),
                                  "constants": sorted(vocabulary.constants)}
        for index, (nl, formula, _) in enumerate(parsed, 1):
            if (nl, formula) not in seen:
                seen.add((nl, formula))
                entries.append(Entry("fol", f"folio-{number:03d}-{index:02d}", nl, formula,
                                     facts, source="folio"))
    return entries


# --------------------------------------------------------------------------- upstream: others


def load_deepregex(path: Path) -> list[Entry]:
    """``regex`` tasks from parallel ``src.txt``/``targ.txt`` files (NL-RX-Turk, KB13)."""
    datasets = [path] if (path / "src.txt").is_file() else sorted(
        d for d in path.iterdir() if (d / "src.txt").is_file() and (d / "targ.txt").is_file())
    entries: list[Entry] = []
    for dataset in datasets:
        sources = (dataset / "src.txt").read_text(encoding="utf-8").splitlines()
        targets = (dataset / "targ.txt").read_text(encoding="utf-8").splitlines()
        if len(sources) != len(targets):
            raise KernelError(f"{dataset}: src.txt has {len(sources)} lines, "
                              f"targ.txt {len(targets)}")
        name = _slug(dataset.name)
        entries.extend(Entry("regex", f"{name}-{i:05d}", nl, regex, {"syntax": "deepregex"},
                             source=name)
                       for i, (nl, regex) in enumerate(zip(sources, targets, strict=True), 1)
                       if nl.strip() and regex.strip())
    return entries


GSM_FINAL = re.compile(r"####\s*(-?[\d,]*\.?\d+)\s*$")


def load_gsm_symbolic(path: Path) -> list[Entry]:
    """Variable-free ``gsm`` tasks from GSM-Symbolic ``generated_data`` (see the module doc)."""
    entries: list[Entry] = []
    for where, record in _records(path):
        final = GSM_FINAL.search(str(record.get("answer", "")).strip())
        if final is None:
            raise KernelError(f"{where}: the answer does not end with '#### <number>'")
        source = _slug(where.split(":")[0].rsplit("/", 1)[-1].removesuffix(".jsonl"))
        entries.append(Entry("gsm", f"{source}-{record['id']}-{record['instance']}",
                             str(record["question"]), final[1].replace(",", ""),
                             {"variables": {}, "constraints": []}, source="gsm-symbolic"))
    return entries


def _sql_entry(record: Mapping[str, Any], where: str, source: str) -> Entry:
    """An ``sql`` entry from a record whose ``schema`` is SQL text or a Polygon schema (then
    ``constraints`` may also be Polygon's constraint text, see :mod:`.polygon`)."""
    schema = record.get("schema")
    constraints = record.get("constraints") or []
    polygon_schema = isinstance(schema, list | dict)
    dialect = str(record.get("dialect") or ("mysql" if polygon_schema else "sqlite"))
    if dialect not in polygon.DIALECTS:
        raise KernelError(f"{where}: 'dialect' must be one of {', '.join(polygon.DIALECTS)}")
    if polygon_schema:
        try:
            translated = polygon.to_sql(schema, constraints if isinstance(constraints, str)
                                        else "", dialect)
        except KernelError as exc:
            raise KernelError(f"{where}: {exc}") from exc
        schema = translated.ddl
        constraints = [*translated.constraints,
                       *(constraints if isinstance(constraints, list) else [])]
    if not isinstance(constraints, list) or not all(isinstance(c, str) for c in constraints):
        raise KernelError(f"{where}: 'constraints' must be a list of SQL queries that "
                          "return a row when a database violates them (or, with a Polygon "
                          "schema, Polygon's constraint text)")
    facts: dict[str, JSON] = {"schema": _text({"schema": schema}, "schema", where)}
    if constraints:
        facts["constraints"] = list(constraints)
    if dialect != "sqlite":
        facts["dialect"] = dialect
    alternatives = record.get("alternatives")
    if alternatives:
        facts["alternatives"] = [str(a) for a in alternatives]
    return Entry("sql", _slug(_text(record, "name", where)), _text(record, "nl", where),
                 _text(record, "oracle", where), facts, source=source)


def load_sql_pairs(path: Path) -> list[Entry]:
    """``sql`` tasks: natural language, a schema (SQL or Polygon's JSON) and the oracle."""
    return [_sql_entry(record, where, "sql-pairs") for where, record in _records(path)]


def load_polygon_leetcode(path: Path) -> list[Entry]:
    """``sql`` tasks (MySQL) from Polygon's LeetCode benchmark layout (:mod:`.polygon`): one
    per problem with a schema and a ground truth; the other ground truths of a problem are
    kept as ``facts["alternatives"]`` (equivalent rewrites by their authors, not checked)."""
    return [_sql_entry(record, f"{path}: {record['name']}", "polygon-leetcode")
            for record in polygon.leetcode_records(path)]


def load_clever_rocq(path: Path) -> list[Entry]:
    """``rocq`` tasks in the Clever-derived JSON format (see the module doc)."""
    entries: list[Entry] = []
    for where, record in _records(path):
        facts = {"preamble": str(record.get("preamble", "")),
                 "name": _text(record, "definition", where), "type": _text(record, "type", where)}
        entries.append(Entry("rocq", _slug(_text(record, "name", where)),
                             _text(record, "nl", where), _text(record, "oracle", where), facts,
                             source="clever"))
    return entries


UPSTREAM: Mapping[str, tuple[str, Callable[[Path], list[Entry]]]] = {
    "folio": ("fol", load_folio),
    "deepregex": ("regex", load_deepregex),
    "gsm_symbolic": ("gsm", load_gsm_symbolic),
    "sql_pairs": ("sql", load_sql_pairs),
    "polygon_leetcode": ("sql", load_polygon_leetcode),
    "clever_rocq": ("rocq", load_clever_rocq),
}
"""Option name -> (domain, loader) of each upstream source."""


def load_upstream(option: str, value: str) -> list[Entry]:
    """The tasks of upstream source ``option`` at path ``value``; errors name the option."""
    path = Path(value).expanduser()
    if not path.exists():
        raise KernelError(f"option {option}: no such file or directory {path}")
    try:
        return UPSTREAM[option][1](path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KernelError(f"option {option}: cannot read {path}: "
                          f"{type(exc).__name__}: {exc}") from exc


def load_tasks(options: Mapping[str, Any], domains: Sequence[str]) -> list[Task]:
    """The tasks of ``domains``: the team's (option ``team``) then each upstream source given,
    at most ``per_domain`` per domain, in a stable order."""
    by_domain: dict[str, list[Entry]] = {d: [] for d in DOMAINS if d in domains}
    if options.get("team", True):
        for domain in by_domain:
            by_domain[domain].extend(team_entries(domain))
    for option, (domain, _) in UPSTREAM.items():
        if options.get(option) and domain in by_domain:
            by_domain[domain].extend(load_upstream(option, str(options[option])))
    limit = options.get("per_domain")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 0):
        raise KernelError(f"option per_domain: expected a whole number >= 0, got {limit!r}")
    return [entry.task() for entries in by_domain.values()
            for entry in (entries if limit is None else entries[:limit])]
