"""Mutation analysis as FormalBench's completeness metric defines it (notes §A4): Major's
operators applied to the Java code of the spec-annotated file, JML kept byte for byte; mutants
that do not compile dropped; mutants trivially equivalent by the compiler (identical class files)
suppressed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from speckernel_jml.javatools import JavaParserToolchain, JavaTools, JavaToolsError, shared_tools
from speckernel_jml.mutants import OPERATORS, Mutant, analyse, generate_mutants

TASKS = Path(__file__).resolve().parents[1] / "src" / "speckernel_jml" / "tasks"
FORMALBENCH = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "formalbench"
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


@pytest.fixture(scope="module")
def tools() -> JavaTools:
    status = JavaParserToolchain().detect()
    if not status.found:
        pytest.skip(f"JavaParser helper unavailable ({status.detail}); "
                    "run `kernel tools install jml`")
    return shared_tools()


def program(body: str, params: str = "int a, int b", returns: str = "int") -> str:
    """A class ``P`` whose one method ``f`` has ``body``."""
    return f"class P {{\n    static {returns} f({params}) {{\n        {body}\n    }}\n}}\n"


def sources(mutants: list[Mutant]) -> list[str]:
    return [m.source for m in mutants]


@pytest.mark.parametrize(("operator", "body", "params", "returns", "mutated"), [
    ("AOR", "return a + b;", "int a, int b", "int", "return a - b;"),
    ("AOR", "a += b;\n        return a;", "int a, int b", "int", "a *= b;\n        return a;"),
    ("AOR", "return a - b * 2;", "int a, int b", "int", "return a - (b + 2);"),
    ("ROR", "return a < b;", "int a, int b", "boolean", "return a <= b;"),
    ("ROR", "return a < b;", "int a, int b", "boolean", "return true;"),
    ("COR", "return a && b;", "boolean a, boolean b", "boolean", "return (a || b);"),
    ("COR", "return a && b;", "boolean a, boolean b", "boolean", "return a;"),
    ("LOR", "return a & b;", "int a, int b", "int", "return (a ^ b);"),
    ("SOR", "return a << b;", "int a, int b", "int", "return a >>> b;"),
    ("SOR", "return a >> b;", "int a, int b", "int", "return a << b;"),
    ("SOR", "a >>= b;\n        return a;", "int a, int b", "int", "a >>>= b;\n        return a;"),
    ("ORU", "a--;\n        return a;", "int a", "int", "a++;\n        return a;"),
    ("ORU", "return -a;", "int a", "int", "return ~a;"),
    ("ORU", "return !a;", "boolean a", "boolean", "return a;"),
    ("LVR", "return a + 1;", "int a", "int", "return a + 0;"),
    ("LVR", "return a + 1;", "int a", "int", "return a + 2;"),
    ("LVR", "return a - 5;", "int a", "int", "return a - 4;"),
    ("LVR", "return a - 0;", "int a", "int", "return a - (-1);"),
    ("LVR", "return !a || true;", "boolean a", "boolean", "return !a || false;"),
    ("STD", "a++;\n        return a;", "int a", "int", ";\n        return a;"),
])
def test_each_operator_produces_its_mutant(tools: JavaTools, operator: str, body: str,
                                           params: str, returns: str, mutated: str) -> None:
    mutants = generate_mutants(program(body, params, returns), "P", [operator], tools)
    assert program(mutated, params, returns) in sources(mutants)
    assert {m.operator for m in mutants} == {operator}


def test_a_mutant_says_what_changed_and_where(tools: JavaTools) -> None:
    (mutant, *_) = generate_mutants(program("return a + b;"), "P", ["AOR"], tools)
    assert mutant == Mutant(id="1", operator="AOR", line=3, description="a + b |==> a - b",
                            source=program("return a - b;"))


def test_mutants_that_do_not_compile_are_dropped(tools: JavaTools) -> None:
    analysis = analyse(program("return a == b;", "boolean a, boolean b", "boolean"), "P",
                       ["ROR"], tools)
    kept = sources(list(analysis.mutants))
    assert program("return a != b;", "boolean a, boolean b", "boolean") in kept
    for op in ("<", "<=", ">", ">="):  # ordering booleans is a type error
        assert program(f"return a {op} b;", "boolean a, boolean b", "boolean") not in kept
    assert analysis.uncompilable == 4


def test_deleting_the_last_return_does_not_compile_and_is_dropped(tools: JavaTools) -> None:
    analysis = analyse(program("return a;", "int a"), "P", ["STD"], tools)
    assert analysis.mutants == ()
    assert (analysis.generated, analysis.uncompilable) == (1, 1)


def test_mutants_with_the_original_bytecode_are_equivalent_and_suppressed(
        tools: JavaTools) -> None:
    # 2 * 2 and 2 + 2 fold to the same constant: javac emits identical class files
    analysis = analyse(program("int four = 2 * 2;\n        return a + four;", "int a"), "P",
                       ["AOR"], tools)
    kept = sources(list(analysis.mutants))
    assert program("int four = 2 + 2;\n        return a + four;", "int a") not in kept
    assert analysis.equivalent == 1
    # 2 - 2 and 2 % 2 both fold to 0: the second is a duplicate of the first
    assert analysis.duplicate == 1
    assert program("int four = (2 - 2);\n        return a + four;", "int a") in kept
    assert program("int four = (2 % 2);\n        return a + four;", "int a") not in kept


def test_mutants_of_dead_code_are_suppressed(tools: JavaTools) -> None:
    source = (
        "class P {\n"
        "    static final boolean DEBUG = false;\n"
        "    static int f(int a) {\n"
        "        if (DEBUG) {\n"
        "            a = a * 3 + 1;\n"
        "        }\n"
        "        return a + 1;\n"
        "    }\n"
        "}\n"
    )
    analysis = analyse(source, "P", tools=tools)
    assert analysis.equivalent >= 6  # AOR x4 and LVR x2 at least, all on line 5
    assert [m for m in analysis.mutants if m.line == 5] == []
    assert {m.line for m in analysis.mutants} == {2, 7}


JML_PROGRAM = """class Clamp {
    /*@ public normal_behavior
      @ requires lo <= hi;
      @ ensures \\result == (x < lo ? lo : (x > hi ? hi : x));
      @*/
    public static int clamp(int x, int lo, int hi) {
        //@ assert lo <= hi && 0 * 1 == 0;
        if (x < lo) {
            return lo; // below: x < lo + 0
        }
        return x > hi ? hi : x;
    }
}
"""


def test_the_jml_comments_are_untouched(tools: JavaTools) -> None:
    mutants = generate_mutants(JML_PROGRAM, "Clamp", tools=tools)
    assert len(mutants) > 10
    for mutant in mutants:
        assert COMMENT.findall(mutant.source) == COMMENT.findall(JML_PROGRAM)
        assert COMMENT.sub("", mutant.source) != COMMENT.sub("", JML_PROGRAM)
    assert {m.operator for m in mutants} == {"ROR", "STD"}  # the literals are all in JML


def test_ids_and_order_are_deterministic(tools: JavaTools) -> None:
    first = generate_mutants(JML_PROGRAM, "Clamp", tools=tools)
    second = generate_mutants(JML_PROGRAM, "Clamp", tools=tools)
    assert first == second
    ids = [int(m.id) for m in first]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert [m.line for m in first] == sorted(m.line for m in first)


def test_a_program_that_does_not_compile_is_an_error(tools: JavaTools) -> None:
    with pytest.raises(JavaToolsError, match="original does not compile"):
        analyse(program("return c;"), "P", tools=tools)
    with pytest.raises(JavaToolsError, match="does not parse"):
        analyse("class P { int f( }", "P", tools=tools)


def test_unknown_operators_are_refused() -> None:
    with pytest.raises(ValueError, match="EVR"):
        analyse(program("return a;"), "P", ["EVR"])


def test_the_operator_set_is_majors() -> None:
    assert OPERATORS == ("AOR", "ROR", "COR", "LOR", "SOR", "ORU", "LVR", "STD")


def reference_files() -> list[Path]:
    return sorted(TASKS.glob("*/*/reference/*.java"))


@pytest.mark.slow
def test_every_bundled_reference_spec_has_mutants_and_keeps_its_jml(tools: JavaTools) -> None:
    files = reference_files()
    if not files:
        pytest.skip("no bundled tasks yet")
    for path in files:
        source = path.read_text()
        mutants = generate_mutants(source, path.stem, tools=tools)
        assert mutants, path
        for mutant in mutants:
            assert COMMENT.findall(mutant.source) == COMMENT.findall(source), (path, mutant.id)


def formalbench_programs(limit: int) -> list[dict[str, str]]:
    meta = FORMALBENCH / "base" / "meta_data.jsonl"
    if not meta.is_file():
        pytest.skip(f"FormalBench data not found at {meta}")
    return [json.loads(line) for line in meta.read_text().splitlines()[:limit]]


def test_formalbench_programs_give_compiling_distinct_mutants(tools: JavaTools) -> None:
    for record in formalbench_programs(8):
        analysis = analyse(record["code"], record["class_name"], tools=tools)
        assert analysis.mutants, record["class_name"]
        assert len({m.source for m in analysis.mutants}) == len(analysis.mutants)
        assert record["code"] not in {m.source for m in analysis.mutants}
        assert analysis.generated == (len(analysis.mutants) + analysis.uncompilable
                                      + analysis.equivalent + analysis.duplicate)


def test_a_request_past_its_deadline_costs_that_request_only(tools: JavaTools) -> None:
    with JavaTools() as own:
        assert own.request("ping")["version"]
        with pytest.raises(JavaToolsError, match="timed out on `mutate`"):
            own.request("mutate", "Clamp", JML_PROGRAM, "", timeout=0.001)
        assert len(analyse(JML_PROGRAM, "Clamp", tools=own).mutants) > 10
