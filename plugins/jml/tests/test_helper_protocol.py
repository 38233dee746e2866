"""The JavaParser helper's protocol cannot hand one request's answer to another (issue 15, 3):
answers carry their request's id, test output never reaches the protocol stream, a test thread
that survives ``Thread.stop`` gets the helper replaced, and a stray or undecodable line makes the
client restart the helper and ask again instead of taking it for an answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from speckernel_jml.javatools import JavaParserToolchain, JavaTools
from speckernel_jml.mutants import analyse
from speckernel_jml.transforms import ProgramTest, apply_rules

PROGRAM = "class P {\n    static int f(int n) {\n        return n + 1;\n    }\n}\n"
OTHER = "class Q {\n    static int g(int a, int b) {\n        return a * b - 3;\n    }\n}\n"

UNSTOPPABLE_MAIN = """class PTest {
    static volatile boolean running;

    static final class Spinner implements Runnable {
        public void run() {
            try {
                while (true) {
                    try {
                        running = true;
                        System.out.println("{\\"id\\":\\"3\\",\\"mutants\\":[]}");
                        System.err.println("{\\"id\\":\\"4\\",\\"mutants\\":[]}");
                        Thread.sleep(1);
                    } catch (Throwable e) {
                        // ThreadDeath is a Throwable
                    }
                }
            } finally {
                new Thread(new Spinner()).start();  // stopped between two tries: start again
            }
        }
    }

    public static void main(String[] a) throws InterruptedException {
        new Thread(new Spinner()).start();
        while (!running) {
            Thread.sleep(1);
        }
        if (P.f(1) != 2) System.exit(1);
    }
}
"""

SPINNING_MAIN = """class PTest {
    public static void main(String[] a) {
        while (true) {
            try {
                System.out.println("{\\"id\\":\\"2\\",\\"results\\":[]}");
            } catch (Throwable e) {
                // never stops
            }
        }
    }
}
"""


@pytest.fixture
def tools() -> Iterator[JavaTools]:
    status = JavaParserToolchain().detect()
    if not status.found:
        pytest.skip(f"JavaParser helper unavailable ({status.detail}); "
                    "run `kernel tools install jml`")
    with JavaTools() as own:
        yield own


def mutant_sources(tools: JavaTools, source: str, name: str) -> set[str]:
    return {m.source for m in analyse(source, name, tools=tools).mutants}


def test_a_thread_that_outlives_its_test_cannot_answer_later_requests(tools: JavaTools) -> None:
    expected = mutant_sources(tools, OTHER, "Q")
    starts = tools.starts
    [outcome] = apply_rules(PROGRAM, "P", ["equality-operand-swap"],
                            ProgramTest("PTest", UNSTOPPABLE_MAIN), tools)
    assert outcome.status == "not-applicable"
    for _ in range(3):
        got = mutant_sources(tools, OTHER, "Q")
        assert got == expected
        assert all("class Q" in source for source in got)
    assert tools.starts == starts + 1, "the helper with the unstoppable thread was replaced"


def test_a_test_that_never_ends_is_a_timeout_and_the_next_answer_is_right(
        tools: JavaTools) -> None:
    from speckernel_jml.javatools import JavaToolsError

    with pytest.raises(JavaToolsError, match="test fails on the original: timeout"):
        apply_rules(PROGRAM, "P", ["equality-operand-swap"], ProgramTest("PTest", SPINNING_MAIN),
                    tools)
    assert all("class Q" in s for s in mutant_sources(tools, OTHER, "Q"))


def test_a_stray_line_is_never_taken_for_an_answer(tools: JavaTools) -> None:
    """A line in the stream before the real answer (here put there by hand, as a thread
    writing into the protocol would) restarts the helper and the request is asked again."""
    expected = mutant_sources(tools, OTHER, "Q")
    starts = tools.starts
    for stray in (b'{"id":"999","mutants":[]}\n', b"not json at all\n", b"[1, 2]\n"):
        tools._lines.put(stray)
        assert mutant_sources(tools, OTHER, "Q") == expected
    assert tools.starts == starts + 3


def test_answers_echo_their_request_id(tools: JavaTools) -> None:
    first = tools.request("ping")
    second = tools.request("ping")
    assert int(second["id"]) == int(first["id"]) + 1
