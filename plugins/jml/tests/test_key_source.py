"""The program as KeY can read it (issue 15, finding 4): generics erased and boxing written out
by javac's own attribution (``javatools/java/KeySource.java``), every edit on its line, the JML
untouched; what KeY cannot read at all is named, not rewritten."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import FORMALBENCH

from speckernel_jml.bundled import load_bundled
from speckernel_jml.javasource import jml_comments
from speckernel_jml.javatools import JavaParserToolchain, JavaTools
from speckernel_jml.verifiers import key_input


@pytest.fixture(scope="module")
def tools() -> Iterator[JavaTools]:
    status = JavaParserToolchain().detect()
    if not status.found:
        pytest.skip(f"JavaParser helper unavailable ({status.detail}); "
                    "run `kernel tools install jml`")
    with JavaTools() as own:
        yield own


def prepared(tools: JavaTools, source: str, name: str = "P") -> tuple[str, str]:
    answer = tools.request("keysource", name, source)
    return str(answer["source"]), str(answer["unsupported"])


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("body", "expected"), [
    ("List<Integer> l = new ArrayList<>(); return l.size();",
     "List l = new ArrayList(); return l.size();"),
    ("Map<Integer, List<String>> m = new HashMap<Integer, List<String>>(); return m.size();",
     "Map m = new HashMap(); return m.size();"),
    ("List<Integer> l = new ArrayList<>(); l.add(n); return l.get(0);",
     "l.add(java.lang.Integer.valueOf(n)); return (((java.lang.Integer) l.get(0))).intValue();"),
    ("Integer boxed = n; Boolean big = n > 9; if (big) { return boxed; } return 0;",
     "Integer boxed = java.lang.Integer.valueOf(n); Boolean big = java.lang.Boolean.valueOf(n "
     "> 9); if ((big).booleanValue()) { return (boxed).intValue(); }"),
    ("List<Integer> l = new ArrayList<>(); int s = 0; for (int x : l) s += x; "
     "for (Map.Entry<Integer, Integer> e : new HashMap<Integer, Integer>().entrySet()) "
     "{ s += e.getKey(); } return s;",
     "for (java.util.Iterator iterator0 = (l).iterator(); iterator0.hasNext(); ) { int x = "
     "((java.lang.Integer) iterator0.next()).intValue(); s += x; } for (java.util.Iterator "
     "iterator1 = (new HashMap().entrySet()).iterator(); iterator1.hasNext(); ) { "
     "java.util.Map.Entry e = ((java.util.Map.Entry) iterator1.next()); { s += "
     "(((java.lang.Integer) e.getKey())).intValue(); } }"),
    ("Map<Integer, Integer> m = new HashMap<>(); m.put(n, m.getOrDefault(n, 0) + 1); "
     "return m.get(n);",
     "m.put(java.lang.Integer.valueOf(n), java.lang.Integer.valueOf((((java.lang.Integer) "
     "m.getOrDefault(java.lang.Integer.valueOf(n), java.lang.Integer.valueOf(0)))).intValue() "
     "+ 1));"),
])
def test_what_javac_does_implicitly_is_written_out(tools: JavaTools, body: str,
                                                  expected: str) -> None:
    source = (f"import java.util.*;\nclass P {{\n    //@ ensures true;\n    static int f(int n) "
              f"{{\n        {body}\n    }}\n}}\n")
    text, unsupported = prepared(tools, source)
    assert unsupported == ""
    assert flat(expected) in flat(text)
    assert len(text.splitlines()) == len(source.splitlines())
    assert [t.text for t in jml_comments(text)] == [t.text for t in jml_comments(source)]


@pytest.mark.parametrize(("body", "what"), [
    ("java.util.function.IntUnaryOperator op = x -> x + 1; return op.applyAsInt(n);",
     "a lambda expression (line 4)"),
    ("java.util.function.IntUnaryOperator op = Math::abs; return op.applyAsInt(n);",
     "a method reference"),
    ("return String.format(\"%d%d%d\", n, n, n).length();", "a call with variable arguments"),
])
def test_what_keys_front_end_cannot_read_is_named(tools: JavaTools, body: str,
                                                 what: str) -> None:
    source = f"class P {{\n    static int f(int n) {{\n\n        {body}\n    }}\n}}\n"
    text, unsupported = prepared(tools, source)
    assert what in unsupported
    assert text == source


def test_programs_without_generics_or_boxing_are_unchanged(tools: JavaTools) -> None:
    for task in load_bundled():
        file = str(task.metadata["file"])
        assert task.reference is not None
        assert prepared(tools, task.reference[file], str(task.metadata["class_name"])) == (
            task.reference[file], "")


def test_every_formalbench_program_is_rewritten_to_compiling_java_or_named(
        tools: JavaTools) -> None:
    """On FormalBench's own programs: the helper checks that each rewrite compiles (it
    raises otherwise), and every rewrite keeps the file's lines."""
    meta = FORMALBENCH / "base" / "meta_data.jsonl"
    if not meta.is_file():
        pytest.skip(f"FormalBench data not found at {meta}")
    rewritten = unsupported = 0
    for line in meta.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        text, why = prepared(tools, record["code"], record["class_name"])
        assert len(text.splitlines()) == len(record["code"].splitlines())
        rewritten += text != record["code"]
        unsupported += bool(why)
    assert rewritten >= 10 and unsupported >= 1


def test_key_input_adds_nullable_by_default_after_the_rewrite(tools: JavaTools) -> None:
    source = "import java.util.*;\npublic class P {\n    static Boolean f(int n) {\n" \
             "        return n > 0;\n    }\n}\n"
    text, why = key_input(source, "P", tools)
    assert why == ""
    assert "public /*@ nullable_by_default @*/ class P {" in text
    assert "return java.lang.Boolean.valueOf(n > 0);" in text
    assert key_input(source, "P", tools, library=False) == (
        source.replace("public class", "public /*@ nullable_by_default @*/ class"), "")


LIBRARY_GAP = """class Finds {
    //@ ensures true;
    public static boolean finds(String s) {
        return s.contains("z");
    }
}
"""


@pytest.mark.slow
@pytest.mark.anyio
async def test_what_keys_library_lacks_is_keys_limit_and_broken_jml_is_the_models(
        key_installed: None, make_ctx: Any) -> None:
    """Issue 15, finding 7: a load error the program shows without any JML is KeY's limit
    (unknown, UnsupportedByKeY), not a SyntaxError the model is told to fix; JML KeY cannot
    read stays the model's SyntaxError."""
    from speckernel.model import Status

    from speckernel_jml.verifiers import KeyBackend

    ctx = make_ctx(timeout_s=300.0)
    gap = await KeyBackend().check("Finds.java", LIBRARY_GAP, ctx)
    assert gap.status is Status.UNKNOWN, gap.diagnostics
    assert gap.categories == ["UnsupportedByKeY"]
    assert "contains" in gap.diagnostics[0].message
    broken = await KeyBackend().check("Finds.java", LIBRARY_GAP.replace(
        "return s.contains(\"z\");", "return s.length() > 0;").replace(
        "ensures true;", "ensures \\result == ;"), ctx)
    assert broken.status is Status.FAILURE
    assert broken.categories == ["SyntaxError"]
    unsupported = await KeyBackend().check("Finds.java", LIBRARY_GAP.replace(
        "return s.contains(\"z\");", "java.util.function.IntUnaryOperator op = x -> x;\n"
        "        return op.applyAsInt(1) > 0;"), ctx)
    assert unsupported.status is Status.UNKNOWN
    assert unsupported.categories == ["UnsupportedByKeY"]
    assert "lambda expression (line 4)" in unsupported.diagnostics[0].message
