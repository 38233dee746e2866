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
              "        return \"x\".equals(t) || s.substring(1).equals(\"y\");\n    }\n}\n")
    test = ProgramTest("PTest", "class PTest {\n    public static void main(String[] a) {\n"
                       "        if (!P.f(\"a\", \"x\") || P.f(\"ab\", null) || !P.f(\"ay\", \"z\"))"
                       " System.exit(1);\n    }\n}\n")
    variant = transform(source, "P", "equals-receiver-swap", test, tools)
    assert variant is not None
    assert flat('return (t != null && t.equals("x")) || "y".equals(s.substring(1));') in \
        flat(variant)


def rewrites(tools: JavaTools, rule: str, source: str) -> str | None:
    """What ``rule`` itself makes of ``source`` (no test, only compilation checked)."""
    (outcome,) = apply_rules(source, "P", [rule], tools=tools)
    return outcome.source if outcome.kept else None


# Issue 15, finding 6: rewrites that changed behaviour, each on an input the rule used to get
# wrong. The test filter does not hide them here: the rule must not produce them.
UNSAFE = [
    # s[0] = n >= 1 ? a[0] : s[0] reads s[0] when n == 0 (an index error on an empty s)
    ("if-to-conditional", "class P {\n    static void f(int[] s, int[] a, int n) {\n"
     "        if (n >= 1) {\n            s[0] = a[0];\n        }\n    }\n}\n"),
    # Integer and int arms unbox: a null x throws where the if returned it
    ("if-to-conditional", "class P {\n    static Integer f(Integer x, boolean c) {\n"
     "        if (c) {\n            return 0;\n        } else {\n            return x;\n"
     "        }\n    }\n}\n"),
    # a.equals(b) throws on a null a; (b != null && b.equals(a)) is false
    ("equals-receiver-swap", "class P {\n    static boolean f(String a, String b) {\n"
     "        return a.equals(b);\n    }\n}\n"),
    # two casts that can throw: swapping them changes which exception leaves
    ("statement-swapping", "class P {\n    static int f(Object o, Object p) {\n"
     "        String s = (String) o;\n        Integer i = (Integer) p;\n"
     "        return s.length() + i;\n    }\n}\n"),
    # an integer division by a variable may throw
    ("statement-swapping", "class P {\n    static int f(int a, int b, int c) {\n"
     "        int x = a / b;\n        int y = a % c;\n        return x + y;\n    }\n}\n"),
]


@pytest.mark.parametrize(("rule", "source"), UNSAFE, ids=[f"{r}-{i}" for i, (r, _) in
                                                           enumerate(UNSAFE)])
def test_rules_stay_away_from_sites_where_the_rewrite_changes_behaviour(
        tools: JavaTools, rule: str, source: str) -> None:
    assert rewrites(tools, rule, source) is None


def test_compound_assignment_expansion_keeps_the_implicit_narrowing(tools: JavaTools) -> None:
    """JLS 15.26.2: x op= e is x = (T) (x op e); int += double truncates."""
    source = program("int n", "int x = n; x += 1.5; byte b = 1; b += n; return x + b;")
    test = checking_main(("1", 4), ("2", 6), ("-3", -3))
    variant = transform(source, "P", "compound-assignment-expansion", test, tools)
    assert variant is not None
    assert flat("x = (int) (x + 1.5);") in flat(variant)
    assert flat("b = (byte) (b + n);") in flat(variant)


def test_switch_to_if_applies_to_computed_and_string_selectors(tools: JavaTools) -> None:
    """The selector is evaluated once (a fresh local when it is not a variable), and a String
    switch compares with selector.equals(label), which throws on null as the switch does."""
    source = ("class P {\n    static int f(String s) {\n        int r = 0;\n"
              "        switch (s.charAt(0)) {\n            case 'a':\n                r = 1;\n"
              "                break;\n            default:\n                r = 2;\n        }\n"
              "        switch (s) {\n            case \"ab\":\n                return r + 10;\n"
              "            default:\n                return r;\n        }\n    }\n}\n")
    test = ProgramTest("PTest", "class PTest {\n    public static void main(String[] a) {\n"
                       "        if (P.f(\"ab\") != 11 || P.f(\"b\") != 2) System.exit(1);\n"
                       "        try { P.f(null); System.exit(2); }"
                       " catch (NullPointerException e) { }\n    }\n}\n")
    variant = transform(source, "P", "switch-to-if", test, tools)
    assert variant is not None
    assert flat("char selector0 = s.charAt(0); if (selector0 == 'a') {") in flat(variant)
    assert flat('if (s.equals("ab")) {') in flat(variant)


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
    # the test prints a fresh object's identity hash: no two runs print the same, so every
    # variant's run differs from the original's and is discarded
    source = program("int n", "int a = n + 1; int b = n * 2; return a + b;")
    test = ProgramTest("PTest", "class PTest {\n    public static void main(String[] a) {\n"
                       "        System.out.println(System.identityHashCode(new Object()) + "
                       "System.nanoTime());\n    }\n}\n")
    (outcome,) = apply_rules(source, "P", ["statement-swapping"], test, tools)
    assert outcome.status == "behaviour-changed"
    assert outcome.source is not None and "int b = n * 2;" in outcome.source
    assert transform(source, "P", "statement-swapping", test, tools) is None
    # without a test only compilation is checked, and the variant is kept
    assert transform(source, "P", "statement-swapping", tools=tools) is not None


def test_a_variant_that_does_not_compile_is_discarded(tools: JavaTools) -> None:
    # an enum switch's labels are unqualified constants, out of scope in an if
    source = ("class P {\n    enum E { A, B }\n    static int f(E e) {\n        switch (e) {\n"
              "            case A:\n                return 1;\n            default:\n"
              "                return 0;\n        }\n    }\n}\n")
    (outcome,) = apply_rules(source, "P", ["switch-to-if"], tools=tools)
    assert outcome.status == "uncompilable"
    assert "cannot find symbol" in outcome.reason
    assert transform(source, "P", "switch-to-if", tools=tools) is None


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


def test_equals_receiver_swap_declines_formalbench_rule_22s_unsafe_site(
        tools: JavaTools) -> None:
    """FormalBench's rule_22 turns ``s.substring(i, j).equals(c)`` into ``(c != null &&
    c.equals(s.substring(i, j)))``: with a null ``c`` the substring (which may throw) is no
    longer evaluated. This rule keeps such sites as they are."""
    published = FORMALBENCH / "diverse" / "rule_22" / "Count.java"
    if not published.is_file():
        pytest.skip(f"FormalBench variant not found at {published}")
    (base,) = [r for r in formalbench_programs(1000) if r["class_name"] == "Count"]
    assert "c != null && c.equals(" in published.read_text()
    assert transform(base["code"], "Count", "equals-receiver-swap", tools=tools) is None
