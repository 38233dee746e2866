"""Semantic-preserving transformations as FormalBench's robustness metric uses them (notes §A5):
each rule's rewrite on a small program, and the check that keeps a variant only when it compiles
and the program's test main behaves on it exactly as on the original."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from speckernel_jml.javatools import JavaParserToolchain, JavaTools, JavaToolsError, shared_tools
from speckernel_jml.transforms import (
    RULES,
    ProgramTest,
    RuleOutcome,
    Variant,
    apply_rules,
    transform,
    variants,
)

TASKS = Path(__file__).resolve().parents[1] / "src" / "speckernel_jml" / "tasks"
FORMALBENCH = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "formalbench"


@pytest.fixture(scope="module")
def tools() -> JavaTools:
    status = JavaParserToolchain().detect()
    if not status.found:
        pytest.skip(f"JavaParser helper unavailable ({status.detail}); "
                    "run `kernel tools install jml`")
    return shared_tools()


def flat(text: str) -> str:
    """Whitespace-insensitive form: the rules print with tabs, the cases are written with
    spaces."""
    return " ".join(text.split())


def program(params: str, body: str) -> str:
    return f"class P {{\n    static int f({params}) {{\n        {body}\n    }}\n}}\n"


def checking_main(*calls: tuple[str, int]) -> ProgramTest:
    """A test main checking ``P.f(args) == expected`` for each call, exiting 1 on a mismatch."""
    checks = "\n".join(f"        if (P.f({args}) != {want}) System.exit(1);"
                       for args, want in calls)
    return ProgramTest("PTest", f"class PTest {{\n    public static void main(String[] a) {{\n"
                                f"{checks}\n    }}\n}}\n")


SUM = "int total = 0; for (int i = 0; i < n; i++) { total += i; } return total;"
SUM_TEST = checking_main(("0", 0), ("4", 6), ("10", 45))

CASES = [
    ("local-variable-renaming", "int n", SUM, SUM_TEST,
     "int v0 = 0; for (int v1 = 0; v1 < n; v1++) { v0 += v1; } return v0;"),
    ("for-to-while", "int n", SUM, SUM_TEST,
     "int total = 0; int i = 0; while (i < n) { total += i; i++; } return total;"),
    ("while-to-for", "int n",
     "int i = 0; int s = 0; while (i < n) { s += i; i++; } return s;", SUM_TEST,
     "for (; i < n; i++) { s += i; }"),
    ("else-if-nesting", "int n",
     "if (n < 0) { return -1; } else if (n == 0) { return 0; } else { return 1; }",
     checking_main(("-3", -1), ("0", 0), ("7", 1)),
     "if (n < 0) { return -1; } else { if (n == 0) { return 0; } else { return 1; } }"),
    ("switch-to-if", "int n",
     "int r; switch (n) { case 1: r = 10; break; case 2: case 3: r = 20; break; "
     "default: r = 0; } return r;",
     checking_main(("1", 10), ("2", 20), ("3", 20), ("9", 0)),
     "if (n == 1) { r = 10; } else if (n == 2 || n == 3) { r = 20; } else { r = 0; }"),
    ("compound-assignment-expansion", "int n", "int s = 2; s *= n + 1; return s;",
     checking_main(("0", 2), ("3", 8)), "s = s * (n + 1);"),
    ("increment-to-compound-assignment", "int n", "int c = 0; for (int i = 0; i < n; i++) "
     "{ c++; } return c;", checking_main(("0", 0), ("5", 5)),
     "for (int i = 0; i < n; i += 1) { c += 1; }"),
    ("declaration-merging", "int n", "int a = 1; int b = 2; return a * n + b;",
     checking_main(("3", 5)), "int a = 1, b = 2;"),
    ("declaration-splitting", "int n", "int a = n + 1; return a;", checking_main(("3", 4)),
     "int a; a = n + 1; return a;"),
    ("statement-swapping", "int n", "int a = n + 1; int b = n * 2; return a + b;",
     checking_main(("3", 10)), "int b = n * 2; int a = n + 1; return a + b;"),
    ("if-else-reversal", "int n", "int r; if (n < 0) { r = -n; } else { r = n; } return r;",
     checking_main(("-4", 4), ("0", 0), ("5", 5)), "if (n >= 0) { r = n; } else { r = -n; }"),
    ("if-to-conditional", "int n", "if (n > 0) { return n; } else { return 0; }",
     checking_main(("-2", 0), ("3", 3)), "return n > 0 ? n : 0;"),
    ("conditional-to-if", "int n", "int r = n > 0 ? n : -n; return r;",
     checking_main(("-2", 2), ("3", 3)), "int r; if (n > 0) { r = n; } else { r = -n; } return r;"),
    ("infix-splitting", "int lo, int hi", "int mid = (lo + hi) / 2; return mid;",
     checking_main(("2, 6", 4), ("1, 2", 1)), "int t0 = lo + hi; int mid = (t0) / 2;"),
    ("equality-operand-swap", "int n", "if (n % 2 == 0) { return 1; } return 0;",
     checking_main(("4", 1), ("3", 0)), "if (0 == (n % 2)) {"),
    ("relation-swapping", "int a, int b", "if (a < b) { return a; } return b;",
     checking_main(("1, 2", 1), ("5, 2", 2)), "if (b > a) {"),
    ("condition-splitting", "int n", "int c = 0; if (n > 0 && n < 10) { c = 1; } return c;",
     checking_main(("0", 0), ("5", 1), ("10", 0)), "if (n > 0) { if (n < 10) { c = 1; } }"),
    ("loop-continue-to-else", "int n", "int s = 0; for (int i = 0; i < n; i++) { "
     "if (i % 2 == 0) { continue; } s += i; } return s;", checking_main(("6", 9), ("0", 0)),
     "if (i % 2 == 0) { } else { s += i; }"),
    ("increment-extraction", "int n", "int[] r = new int[3]; int k = 0; r[k++] = n; "
     "r[k++] = 2 * n; return r[0] + r[1] + k;", checking_main(("3", 11)),
     "r[k] = n; k++; r[k] = 2 * n; k++;"),
]


@pytest.mark.parametrize(("rule", "params", "body", "test", "expected"), CASES,
                         ids=[case[0] for case in CASES])
def test_each_rule_rewrites_and_keeps_behaviour(tools: JavaTools, rule: str, params: str,
                                                body: str, test: ProgramTest,
                                                expected: str) -> None:
    source = program(params, body)
    variant = transform(source, "P", rule, test, tools)
    assert variant is not None
    assert flat(expected) in flat(variant)
    assert flat(variant) != flat(source)


def test_equals_receiver_swap_guards_against_null(tools: JavaTools) -> None:
    source = ("class P {\n    static boolean f(String s, String t) {\n"
              "        return s.equals(t) || s.equals(\"x\");\n    }\n}\n")
    test = ProgramTest("PTest", "class PTest {\n    public static void main(String[] a) {\n"
                       "        if (!P.f(\"a\", \"a\") || P.f(\"a\", null) || !P.f(\"x\", \"y\"))"
                       " System.exit(1);\n    }\n}\n")
    variant = transform(source, "P", "equals-receiver-swap", test, tools)
    assert variant is not None
    assert flat('return (t != null && t.equals(s)) || "x".equals(s);') in flat(variant)


def test_statement_swapping_keeps_possibly_aliased_stores_and_loads_in_order(
        tools: JavaTools) -> None:
    # a and b may be the same array: the load must stay after the store
    source = program("int[] a, int[] b", "a[0] = 1; int x = b[0]; return x;")
    assert transform(source, "P", "statement-swapping", tools=tools) is None


def test_while_to_for_keeps_an_update_that_needs_a_body_local_in_the_body(
        tools: JavaTools) -> None:
    source = program("int n", "int i = 0; while (i < n) { int d = 2; i += d; } return i;")
    variant = transform(source, "P", "while-to-for", checking_main(("5", 6)), tools)
    assert variant is not None
    assert flat("for (; i < n; ) { int d = 2; i += d; }") in flat(variant)


def test_every_rule_has_a_case() -> None:
    assert sorted({case[0] for case in CASES} | {"equals-receiver-swap"}) == sorted(RULES)
    assert len(RULES) == 20


def test_a_rule_that_matches_nothing_gives_none(tools: JavaTools) -> None:
    assert transform(program("int n", "return n;"), "P", "for-to-while", tools=tools) is None
    (outcome,) = apply_rules(program("int n", "return n;"), "P", ["switch-to-if"], tools=tools)
    assert outcome == RuleOutcome("switch-to-if", "not-applicable", None,
                                  "the rule matches nothing")


def test_a_variant_whose_test_behaves_differently_is_discarded(tools: JavaTools) -> None:
    # s.equals("x") throws on null; "x".equals(s) does not: the test sees the difference
    source = ("class P {\n    static int f(String s) {\n"
              "        return s.equals(\"x\") ? 1 : 0;\n    }\n}\n")
    test = ProgramTest("PTest", "class PTest {\n    public static void main(String[] a) {\n"
                       "        try { P.f(null); System.out.println(\"no exception\"); }\n"
                       "        catch (NullPointerException e) { System.out.println(\"npe\"); }"
                       "\n    }\n}\n")
    (outcome,) = apply_rules(source, "P", ["equals-receiver-swap"], test, tools)
    assert outcome.status == "behaviour-changed"
    assert outcome.source is not None and flat('"x".equals(s)') in flat(outcome.source)
    assert transform(source, "P", "equals-receiver-swap", test, tools) is None
    # without a test only compilation is checked, and the variant is kept
    assert transform(source, "P", "equals-receiver-swap", tools=tools) is not None


def test_a_variant_that_does_not_compile_is_discarded(tools: JavaTools) -> None:
    # b += 2 narrows implicitly; b = b + 2 is an int assigned to a byte
    source = program("int n", "byte b = 1; b += 2; return b + n;")
    (outcome,) = apply_rules(source, "P", ["compound-assignment-expansion"], tools=tools)
    assert outcome.status == "uncompilable"
    assert "lossy conversion" in outcome.reason
    assert transform(source, "P", "compound-assignment-expansion", tools=tools) is None


def test_a_test_that_fails_on_the_original_is_an_error(tools: JavaTools) -> None:
    with pytest.raises(JavaToolsError, match="test fails on the original: exit 1"):
        apply_rules(program("int n", SUM), "P", test=checking_main(("4", 7)), tools=tools)


def test_variants_lists_the_kept_rewrites_in_rule_order(tools: JavaTools) -> None:
    found = variants(program("int n", SUM), "P", test=SUM_TEST, tools=tools)
    assert [v.rule for v in found] == [
        "local-variable-renaming", "for-to-while", "compound-assignment-expansion",
        "increment-to-compound-assignment", "declaration-splitting", "relation-swapping"]
    assert all(isinstance(v, Variant) and v.source for v in found)


def test_unknown_rules_are_refused() -> None:
    with pytest.raises(ValueError, match="rule_99"):
        apply_rules(program("int n", "return n;"), "P", ["rule_99"])


def bundled_tasks() -> list[tuple[str, str, ProgramTest]]:
    """(class name, unannotated source, test) of every bundled task."""
    found = []
    for meta in sorted(TASKS.glob("*/*/task.yaml")):
        name = yaml.safe_load(meta.read_text())["name"]
        test = meta.parent / f"{name}Test.java"
        found.append((name, (meta.parent / f"{name}.java").read_text(),
                      ProgramTest(f"{name}Test", test.read_text())))
    return found


def test_bundled_tasks_keep_their_behaviour_under_every_rule(tools: JavaTools) -> None:
    tasks = bundled_tasks()
    if not tasks:
        pytest.skip("no bundled tasks yet")
    kept = 0
    for name, source, test in tasks:
        for outcome in apply_rules(source, name, test=test, tools=tools):
            assert outcome.status in ("ok", "not-applicable"), (name, outcome)
            kept += outcome.kept
    assert kept >= 2 * len(tasks)


def formalbench_programs(limit: int) -> list[dict[str, str]]:
    meta = FORMALBENCH / "base" / "meta_data.jsonl"
    if not meta.is_file():
        pytest.skip(f"FormalBench data not found at {meta}")
    return [json.loads(line) for line in meta.read_text().splitlines()[:limit]]


def test_formalbench_programs_transform_without_breaking_compilation(tools: JavaTools) -> None:
    applied: set[str] = set()
    for record in formalbench_programs(30):
        for outcome in apply_rules(record["code"], record["class_name"], tools=tools):
            assert outcome.status != "uncompilable", (record["class_name"], outcome)
            if outcome.kept:
                applied.add(outcome.rule)
    assert len(applied) >= 14


def test_equals_receiver_swap_matches_formalbench_rule_22(tools: JavaTools) -> None:
    published = FORMALBENCH / "diverse" / "rule_22" / "Count.java"
    if not published.is_file():
        pytest.skip(f"FormalBench variant not found at {published}")
    (base,) = [r for r in formalbench_programs(1000) if r["class_name"] == "Count"]
    variant = transform(base["code"], "Count", "equals-receiver-swap", tools=tools)
    assert variant is not None and flat(variant) == flat(published.read_text())
