"""What the sample page is built from: highlighting that keeps the file's line numbers, lexers
for the benchmarks' languages, located diagnostics, rounds and their diffs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speckernel.model import Diagnostic, Message
from speckernel.viewer.lexers import lexer_for
from speckernel.viewer.render import (
    HIGHLIGHT_LIMIT,
    diff_files,
    feedback_diagnostics,
    highlight_lines,
    line_count,
    locate,
    markdown,
    rounds,
    show_files,
)


@pytest.mark.parametrize(("name", "lexer"), [
    ("Spin.tla", "TLA+"), ("MC.cfg", "TLA+"), ("tla", "TLA+"), ("tla file:Spin.tla", "TLA+"),
    ("Account.java", "Java with JML"), ("jml", "Java with JML"), ("Impl.v", "Rocq Prover"),
    ("coq", "Rocq Prover"), ("lib.rs", "Rust"), ("rust", "Rust"), ("query.sql", "SQL"),
    ("solution.py", "Python"), ("", "Text only"), ("no-such-language", "Text only"),
    ("<script>", "Text only"),
])
def test_lexer_choice(name: str, lexer: str) -> None:
    assert lexer_for(name).name == lexer


def _classes(text: str, name: str) -> dict[str, set[str]]:
    """Which CSS classes each piece of text got."""
    out: dict[str, set[str]] = {}
    for line in highlight_lines(text, name):
        for piece in line:
            out.setdefault(piece.text.strip(), set()).add(piece.css)
    return out


def test_tla_highlighting() -> None:
    spec = ('---- MODULE Spin ----\nEXTENDS Naturals\nVARIABLE x \\* counter\n'
            '(* block (* nested *) comment *)\nInit == x = 0 /\\ x \\in Nat\n'
            'Next == x\' = x + 1 /\\ UNCHANGED <<x>>\nSpec == Init /\\ [][Next]_x /\\ WF_x(Next)\n'
            '====\n')
    classes = _classes(spec, "Spin.tla")
    assert classes["MODULE"] == {"kn"} and classes["Spin"] == {"nn"}
    assert classes["EXTENDS"] == classes["UNCHANGED"] == {"k"}
    assert classes["\\* counter"] == {"c1"}
    assert classes["*)"] == {"cm"}  # the nested comment closes inside the outer one
    assert classes["\\in"] == {"ow"} and classes["/\\"] == {"o"}
    assert classes["<<"] == {"p"} and classes["WF_"] == {"k"}
    assert classes["Nat"] == {"kt"} and classes["0"] == {"m"}


def test_jml_highlighting() -> None:
    source = ('public class A {\n  //@ requires x >= 0; ensures \\result == x;\n'
              '  /*@ public normal_behavior\n    @   assignable \\nothing;\n    @*/\n'
              '  public int f(int x) { return x; } // plain comment\n}\n')
    classes = _classes(source, "A.java")
    assert classes["requires"] == classes["ensures"] == classes["assignable"] == {"kp"}
    assert classes["\\result"] == classes["\\nothing"] == {"nb"}
    assert classes[">="] == {"o"} and classes["normal_behavior"] == {"kp"}
    assert classes["// plain comment"] == {"c1"}  # Java's own comments stay comments


@given(st.text(alphabet=st.sampled_from("ab \n\r\t(*)\\/<>=\"'"), max_size=80),
       st.sampled_from(["x.tla", "x.java", "x.v", "x.rs", "x.sql", "x.txt"]))
def test_highlighting_keeps_every_line_and_character(text: str, name: str) -> None:
    lines = highlight_lines(text, name)
    assert len(lines) == line_count(text)
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    shown = "\n".join("".join(p.text for p in line) for line in lines)
    assert shown == normalised.removesuffix("\n")


def test_leading_blank_lines_keep_their_numbers() -> None:
    lines = highlight_lines("\n\nx == 1\n", "a.tla")
    assert len(lines) == 3 and lines[0] == () and "".join(p.text for p in lines[2]) == "x == 1"


def test_huge_files_are_shown_plain() -> None:
    text = "x\n" * (HIGHLIGHT_LIMIT // 2 + 10)
    lines = highlight_lines(text, "a.tla")
    assert len(lines) == line_count(text) and lines[0][0].css == ""


def test_locate_matches_names_paths_and_the_only_file() -> None:
    names = ["Spec.tla", "sub/Spec.tla"]
    assert locate(Diagnostic("m", file="Spec.tla", line=3), names).file_index == 0
    assert locate(Diagnostic("m", file="/tmp/work/sub/Spec.tla", line=3), names).file_index == 1
    assert locate(Diagnostic("m", file="Other.tla", line=3), names).line is None
    assert locate(Diagnostic("m", line=3), ["only.tla"]).file_index == 0
    assert locate(Diagnostic("m", line=3), names).file_index is None
    assert locate(Diagnostic("m", file="Spec.tla"), names).line is None


def test_diagnostics_past_the_end_are_not_linked() -> None:
    (shown,) = show_files({"a.tla": "x\ny\n"}, [Diagnostic("m", file="a.tla", line=2),
                                               Diagnostic("far", file="a.tla", line=9)])
    assert set(shown.flagged) == {2}


def test_feedback_is_read_only_from_summary_blocks_and_draft_files() -> None:
    text = ("The verifier rejected your artifact:\ntla.sany: failure\n"
            "  error: Spin.tla:10:45: Encountered \"x\"\n"
            "  warning: Other.tla:3: not a draft file\n"
            "  error: no location here\n"
            "\nplain prose says Spin.tla:4: something\n"
            "  error: Spin.tla:5: indented prose after the block is not a diagnostic\n")
    found = feedback_diagnostics(text, ["Spin.tla"])
    assert [(f.diagnostic.line, f.diagnostic.column, f.diagnostic.message) for f in found] == [
        (10, 45, 'Encountered "x"')]


def test_rounds_diff_consecutive_drafts() -> None:
    messages = (
        Message("user", "write it"),
        Message("assistant", "```a.tla\none\ntwo\n```\n```b.cfg\nINIT Init\n```"),
        Message("user", "The verifier rejected your artifact:\nsany: failure\n"
                        "  error: a.tla:2: bad\n"),
        Message("assistant", "no files in this answer"),
        Message("assistant", "```a.tla\none\n2\n```"),
    )
    drafts = rounds(messages, {"a.tla": "one\n2\n"})
    assert [(r.number, r.message_index) for r in drafts] == [(1, 1), (2, 4)]
    first, second = drafts
    assert [(d.name, d.status) for d in first.diffs] == [("a.tla", "added"), ("b.cfg", "added")]
    assert [(f.line, f.file_index) for f in first.feedback] == [(2, 0)]
    assert first.files[0].flagged[2][0].message == "bad"
    assert [(d.name, d.status, d.added, d.removed) for d in second.diffs] == [
        ("a.tla", "changed", 1, 1), ("b.cfg", "removed", 0, 1)]
    kinds = [(r.kind, r.old, r.new) for r in second.diffs[0].rows]
    assert kinds == [("hunk", 1, 1), ("same", 1, 1), ("del", 2, None), ("add", None, 2)]
    assert diff_files({"a": "x\n"}, {"a": "x\n"})[0].status == "unchanged"


def test_markdown_keeps_text_and_drops_markup() -> None:
    html = markdown("**bold** <b>raw</b> [link](http://x) ![img](http://y)\n"
                    "line two\n\n```tla\nx == 1\n```")
    assert "<strong>bold</strong>" in html and "&lt;b&gt;raw&lt;/b&gt;" in html
    assert "<a " not in html and "<img" not in html and "<br" in html
    assert '<pre class="hl code">' in html and '<span class="o">==</span>' in html
