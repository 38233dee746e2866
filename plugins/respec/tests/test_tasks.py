"""The task loaders: the team's files and each upstream format."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import FOLIO_LINES, REGEXES, require
from speckernel.errors import KernelError

from speckernel_respec import polygon, tasks
from speckernel_respec.domains import DOMAINS, gsm_lang
from speckernel_respec.domains.fol_syntax import ParseError, parse
from speckernel_respec.domains.regex_syntax import Unsupported, parse_python
from speckernel_respec.domains.sql_syntax import parse_schema

FACT_KEYS = {"gsm": {"variables", "constraints"}, "fol": {"predicates", "constants"},
             "regex": {"syntax"}, "sql": {"schema"}, "rocq": {"preamble", "name", "type"}}
"""The facts each domain's verifier reads (the shared contract)."""


@pytest.mark.parametrize("domain", DOMAINS)
def test_team_file_has_twenty_well_formed_tasks(domain: str) -> None:
    entries = tasks.team_entries(domain)
    if not entries:
        pytest.skip(f"tasks/{domain}.yaml is not written yet")
    assert len(entries) >= 20
    assert len({e.name for e in entries}) == len(entries)
    for entry in entries:
        assert FACT_KEYS[domain] <= set(entry.facts), entry.name


def test_a_task_carries_statement_format_oracle_and_reference() -> None:
    entry = tasks.Entry("regex", "dog", "Lines containing dog.", ".*dog.*", {"syntax": "python"})
    task = entry.task()
    assert task.id == "regex/dog"
    assert task.benchmark == "respec"
    assert task.prompt.startswith("Lines containing dog.")
    assert "re.fullmatch" in task.prompt and tasks.ANSWER_FORMAT in task.prompt
    assert task.reference == {"spec.re": ".*dog.*"}
    assert task.metadata["domain"] == "regex"
    assert task.metadata["oracle"] == ".*dog.*"
    assert task.metadata["artifact_files"] == ["spec.re"]


GSM_LANGUAGE = ["a // 2 % 3 + b ** 2 - 1.5 * b / 4",
                "if a < b and not (a == 0 or a != 1) then min(a, b, 3) else max(a, b)",
                "abs(a - b) + floor(b) + ceil(b) >= 0  # a comment"]
"""Expressions that use every construct of the GSM answer language."""


def test_the_gsm_format_lists_the_whole_language() -> None:
    text = tasks.prompt("gsm", "?", {"variables": {"a": "int", "b": "real"}, "constraints": []})
    for expression in GSM_LANGUAGE:
        gsm_lang.parse(expression)
    for construct in ["+", "-", "*", "/", "//", "%", "**", "==", "!=", "<=", ">=", "and", "or",
                      "not", "if C then A else B", "min(", "max(", "abs(", "floor(", "ceil(",
                      "int", "real", "bool", "#", "a: int", "b: real"]:
        assert construct in text, construct


@pytest.mark.parametrize(("pattern", "said"), [
    ("(a)\\1", "backreferences"), ("(?=a)a", "lookahead"), ("(?<=a)b", "lookbehind"),
    ("(?i)a", "inline flags")])
def test_the_python_regex_format_names_what_is_rejected(pattern: str, said: str) -> None:
    text = tasks.prompt("regex", "?", {"syntax": "python"})
    assert said in text and "printable ASCII" in text and "re.fullmatch" in text
    with pytest.raises(Unsupported):
        parse_python(pattern)


def test_the_fol_format_shows_the_notation_the_parser_reads() -> None:
    text = tasks.prompt("fol", "?", {"predicates": {"P": 1, "R": 2}, "constants": ["c"]})
    for symbol in ["∀x", "∃x", "¬", "∧", "\u2228", "⊕", "→", "↔", "≠", "P/1, R/2", "Constants: c"]:
        assert symbol in text, symbol
    example = "∀x (P(x) → Q(x))"
    assert example in text
    parse(example)


def test_a_malformed_team_entry_is_an_error_naming_it() -> None:
    text = "tasks:\n  - name: a\n    nl: x\n    oracle: y\n  - name: b\n    nl: x\n"
    with pytest.raises(KernelError, match=r"regex\.yaml: task 2: 'oracle'"):
        tasks.parse_team_file("regex", text, "regex.yaml")


def test_folio_vocabulary_is_what_the_fol_parser_reads(tmp_path: Path) -> None:
    """Typographic apostrophes, ⟷, non-ASCII names and a space before "(" are FOLIO as the
    verifier reads it; the loader gives their exact arities and constants."""
    story = {"premises": ["If a stock is volatile, Ölfirma holds it.", "BP stock is volatile."],
             "premises-FOL": ["∀x (Volatile (x) ⟷ Holds(ölfirma, x))", "Volatile(bp\u2019Stock)"],
             "conclusion": "Ölfirma holds it.", "conclusion-FOL": "Holds(ölfirma, bp\u2019Stock)"}
    path = tmp_path / "folio.jsonl"
    path.write_text(json.dumps(story, ensure_ascii=False) + "\n", encoding="utf-8")
    entries = tasks.load_folio(path)
    assert len(entries) == 3
    assert all(e.facts == {"predicates": {"Volatile": 1, "Holds": 2},
                           "constants": ["bp\u2019Stock", "ölfirma"]} for e in entries)


@pytest.mark.parametrize("broken", ["∀x (P(x)", "P(x))", "∀x (P(x) → Q(x), R(x))", "P(f(x))"])
def test_formulas_the_fol_parser_rejects_are_skipped(folio_data: Path, broken: str) -> None:
    line = {**FOLIO_LINES[0], "conclusion": "Broken.", "conclusion-FOL": broken}
    with folio_data.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    assert broken not in {e.oracle for e in tasks.load_folio(folio_data)}


def test_premises_are_not_paired_by_position_when_their_counts_differ(tmp_path: Path) -> None:
    """A record with two sentences but three formulas cannot say which formula formalises
    which sentence: only its conclusion becomes a task."""
    story = {"premises": ["Tom is a cat and a mammal.", "Ann loves Tom."],
             "premises-FOL": ["Cat(tom)", "Mammal(tom)", "Loves(ann, tom)"],
             "conclusion": "Ann loves a cat.", "conclusion-FOL": "∃x (Cat(x) ∧ Loves(ann, x))"}
    path = tmp_path / "folio.jsonl"
    path.write_text(json.dumps(story, ensure_ascii=False) + "\n", encoding="utf-8")
    assert [(e.nl, e.oracle) for e in tasks.load_folio(path)] == [
        ("Ann loves a cat.", "∃x (Cat(x) ∧ Loves(ann, x))")]


def test_a_story_with_a_predicate_of_two_arities_is_skipped(tmp_path: Path) -> None:
    story = {"premises": ["Tom is a cat."], "premises-FOL": ["Cat(tom)"],
             "conclusion": "Tom cats Ann.", "conclusion-FOL": "Cat(tom, ann)"}
    path = tmp_path / "folio.jsonl"
    path.write_text(json.dumps(story) + "\n", encoding="utf-8")
    assert tasks.load_folio(path) == []


def test_folio_pairs_become_tasks_with_the_story_vocabulary(folio_data: Path) -> None:
    entries = tasks.load_folio(folio_data)
    pairs = {(e.nl, e.oracle) for e in entries}
    expected = {(nl, fol) for r in FOLIO_LINES
                for nl, fol in [*zip(r["premises"], r["premises-FOL"], strict=True),
                                (r["conclusion"], r["conclusion-FOL"])]}
    assert pairs == expected and len(entries) == len(expected)
    for entry in entries:
        assert entry.facts == {"predicates": {"Cat": 1, "Mammal": 1, "Loves": 2},
                               "constants": ["ann", "tom"]}


def test_upstream_folio_loads_exactly_what_the_verifier_accepts(shared_data: Path) -> None:
    """567 of the 571 distinct validation formulas parse (4 are broken in the data); every
    loaded oracle fits its facts and the verifier proves it equivalent to itself."""
    require("fol")
    from speckernel_respec.domains import fol

    path = shared_data / "folio" / "folio-validation.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    formulas = {str(f).strip() for r in records for f in [*r["premises-FOL"], r["conclusion-FOL"]]}
    parsed = set()
    for formula in formulas:
        with contextlib.suppress(ParseError):
            parse(formula)
            parsed.add(formula)
    assert (len(formulas), len(parsed)) == (571, 567)
    entries = tasks.load_folio(path)
    assert {e.oracle for e in entries} <= parsed
    for entry in entries:
        assert fol.check(entry.oracle, entry.oracle, entry.facts, 4.0).verdict == "equivalent"


def test_deepregex_lines_pair_up(regex_data: Path) -> None:
    entries = tasks.load_deepregex(regex_data.parent)
    assert [(e.nl, e.oracle) for e in entries] == REGEXES
    assert [e.name for e in entries] == ["tiny-00001", "tiny-00002", "tiny-00003"]
    assert all(e.facts == {"syntax": "deepregex"} for e in entries)


def test_upstream_deepregex_has_every_line(shared_data: Path) -> None:
    root = shared_data / "deepregex"
    lines = sum(len((d / "targ.txt").read_text(encoding="utf-8").splitlines())
                for d in (root / "KB13", root / "NL-RX-Turk"))
    assert len(tasks.load_deepregex(root)) == lines


def test_gsm_symbolic_instances_are_variable_free_tasks(tmp_path: Path) -> None:
    path = tmp_path / "GSM_p1.jsonl"
    path.write_text(json.dumps({"id": 7, "instance": 3, "question": "How many?",
                                "answer": "2 + 3 = <<2+3=5>>5\n#### 1,234"}) + "\n")
    [entry] = tasks.load_gsm_symbolic(path)
    assert (entry.name, entry.nl, entry.oracle) == ("gsm-p1-7-3", "How many?", "1234")
    assert entry.facts == {"variables": {}, "constraints": []}
    path.write_text(json.dumps({"id": 7, "instance": 3, "question": "?", "answer": "5"}) + "\n")
    with pytest.raises(KernelError, match="####"):
        tasks.load_gsm_symbolic(path)


POLYGON = Path(__file__).parent / "data" / "polygon_leetcode"


def test_polygon_schemas_in_the_upstream_layout_become_valid_sql() -> None:
    """Table-index references, an undeclared foreign-key column, an enum, a composite key, a
    type given as a table index, hints and type notes: every schema and constraints file of
    the fixture becomes SQL that SQLite accepts (and the SQL domain reads the same columns)."""
    entries = tasks.load_polygon_leetcode(POLYGON)
    assert [e.name for e in entries] == ["leetcode-9001", "leetcode-9002", "leetcode-9003"]
    staff, orders, lonely = entries
    assert staff.facts["dialect"] == "mysql"
    assert "primary_flag" not in staff.facts["schema"]
    assert "lead_flag ENUM('Y', 'N')" in staff.facts["schema"]
    assert "PRIMARY KEY (staff_id, team_id)" in staff.facts["schema"]
    assert len(staff.facts["alternatives"]) == 1
    ddl = orders.facts["schema"]
    assert "shop_id INT,\n" in ddl and "FOREIGN KEY (shop_id) REFERENCES Shops(shop_id)" in ddl
    assert "city VARCHAR(255) NOT NULL" in ddl and "CHECK (placed <= '2021-12-31')" in ddl
    assert orders.facts["constraints"] == [
        "SELECT 1 FROM Visits WHERE shop_id IS NOT NULL AND shop_id NOT IN (SELECT shop_id "
        "FROM Orders WHERE shop_id IS NOT NULL)"]
    assert "constraints" not in lonely.facts
    for entry in entries:
        raw = json.loads((POLYGON / "schemas" / f"{entry.name.split('-')[1]}.json").read_text())
        constraints = POLYGON / "constraints" / f"{entry.name.split('-')[1]}.yml"
        sqlite = polygon.to_sql(raw, constraints.read_text() if constraints.is_file() else "",
                                "sqlite")
        db = sqlite3.connect(":memory:")
        db.executescript(sqlite.ddl)
        for query in sqlite.constraints:
            db.execute(query)
        columns = {t.name: [c.name for c in t.columns]
                   for t in parse_schema(entry.facts["schema"], "mysql").tables}
        assert columns == {t.name: [c.name for c in t.columns]
                           for t in parse_schema(sqlite.ddl).tables}


@pytest.mark.parametrize(("schema", "constraints", "message"), [
    ([{"TableName": "a", "PKeys": [], "FKeys": [{"FName": "b", "PName": "b", "PTable": "3"}],
       "Others": []}], "", "table index 3"),
    ([{"TableName": "a", "PKeys": [], "FKeys": [], "Others": [{"Name": "x", "Type": "blob?"}]}],
     "", "unknown Polygon type"),
    ([{"TableName": "a", "PKeys": [], "FKeys": [], "Others": [{"Name": "x", "Type": "int"}]}],
     "col_val: a.y > 0", "unknown column"),
    ([{"TableName": "a", "PKeys": [], "FKeys": [], "Others": [{"Name": "x", "Type": "int"}]}],
     "col_val: a.x ~ 0", "cannot read constraint"),
])
def test_unreadable_polygon_input_is_one_line(schema: Any, constraints: str,
                                              message: str) -> None:
    with pytest.raises(KernelError, match=message):
        polygon.to_sql(schema, constraints)


def test_sql_pairs_take_polygon_schemas_and_constraint_text(tmp_path: Path) -> None:
    raw = json.loads((POLYGON / "schemas" / "9002.json").read_text())
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps({"name": "city totals", "nl": "Totals.", "schema": raw,
                                "constraints": (POLYGON / "constraints" / "9002.yml")
                                .read_text(), "oracle": "SELECT city FROM Shops"}) + "\n")
    [entry] = tasks.load_sql_pairs(path)
    assert entry.facts["dialect"] == "mysql" and len(entry.facts["constraints"]) == 1


def test_sql_pairs_and_clever_rocq_records(tmp_path: Path) -> None:
    sql = tmp_path / "pairs.json"
    record = {"name": "Old Staff", "nl": "Staff over 30.", "schema": "CREATE TABLE e (age int);",
              "oracle": "SELECT * FROM e WHERE age > 30",
              "constraints": ["SELECT 1 FROM e WHERE age <= 0"]}
    sql.write_text(json.dumps([record]))
    [entry] = tasks.load_sql_pairs(sql)
    assert entry.name == "old-staff"
    assert entry.facts == {"schema": "CREATE TABLE e (age int);",
                           "constraints": ["SELECT 1 FROM e WHERE age <= 0"]}
    sql.write_text(json.dumps([{**record, "constraints": [{"gt": ["e.age", 0]}]}]))
    with pytest.raises(KernelError, match="'constraints' must be a list of SQL queries"):
        tasks.load_sql_pairs(sql)
    rocq = tmp_path / "clever.jsonl"
    rocq.write_text(json.dumps({"name": "double", "nl": "Twice n.", "preamble": "",
                                "definition": "double", "type": "nat -> nat",
                                "oracle": "Definition double (n : nat) : nat := n + n."}) + "\n")
    [entry] = tasks.load_clever_rocq(rocq)
    assert entry.facts == {"preamble": "", "name": "double", "type": "nat -> nat"}


def test_load_tasks_selects_sources_and_limits_each_domain(regex_data: Path,
                                                           folio_data: Path) -> None:
    options = {"team": False, "deepregex": str(regex_data), "folio": str(folio_data),
               "per_domain": 2}
    ids = [t.id for t in tasks.load_tasks(options, ["regex", "fol"])]
    assert ids == ["fol/folio-001-01", "fol/folio-001-02", "regex/tiny-00001",
                   "regex/tiny-00002"]
    assert tasks.load_tasks(options, ["regex"])[0].id == "regex/tiny-00001"


@pytest.mark.parametrize("limit", [-1, "abc", 1.5, True])
def test_a_per_domain_limit_that_is_no_count_is_refused(regex_data: Path, limit: Any) -> None:
    """``-o per_domain=-1`` dropped each domain's last task without a word (a slice)."""
    with pytest.raises(KernelError, match=r"option per_domain: expected a whole number >= 0"):
        tasks.load_tasks({"team": False, "deepregex": str(regex_data), "per_domain": limit},
                         ["regex"])
    assert tasks.load_tasks({"team": False, "deepregex": str(regex_data), "per_domain": 0},
                            ["regex"]) == []


def test_a_missing_upstream_path_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(KernelError, match="option folio: no such file"):
        tasks.load_tasks({"folio": str(tmp_path / "absent")}, ["fol"])


def test_folio_train_split_without_conclusion_formulas_and_hyphenated_names() -> None:
    """The train split has no ``conclusion-FOL`` and the v2 release writes premises as one
    text; names such as ``Science-fiction`` and ``gpt-3`` are names, not subtractions."""
    entries = tasks.load_folio(Path(__file__).parent / "data" / "folio" / "train.jsonl")
    oracles = {e.oracle for e in entries}
    assert oracles == {"∀x (Science-fiction(x) → Book(x))", "Science-fiction(dune)",
                       "LanguageModel(gpt-3)", "∀x (LanguageModel(x) → Software(x))",
                       "Software(gpt-3)"}
    first = next(e for e in entries if e.oracle == "Science-fiction(dune)")
    assert first.facts == {"predicates": {"Book": 1, "Science-fiction": 1},
                           "constants": ["dune"]}
