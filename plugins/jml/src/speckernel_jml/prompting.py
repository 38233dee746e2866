"""FormalBench's prompts (notes §A7), answer extraction, and the repair prompt.

Five prompt styles: ``zero_shot``; ``zs_cot`` (zero-shot plus "Let's think step by step !");
``fs_cot`` (three worked examples with reasoning); ``two_shot`` (two examples, and JML comment
syntax rules in the system message); ``fs_ltm`` (least-to-most: weakest preconditions, then
strongest postconditions, then the invariants, assertions and ranking functions the proof needs).
The examples are the team's own small programs, verified with KeY like the bundled tasks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from speckernel.model import Message

from speckernel_jml.failures import Category, guidance_for

STYLES = ("zero_shot", "zs_cot", "fs_cot", "two_shot", "fs_ltm")

SYSTEM = (
    "You are an expert in Java Modeling Language (JML). You will be provided with Java code "
    "and must write JML specifications for it. The specifications must be verifiable by a "
    "deductive verifier (OpenJML or KeY) with Java int arithmetic checked for overflow. Write "
    "detailed preconditions, postconditions, necessary loop invariants, ranking functions "
    "(decreases), assignable clauses, assertions, and any relevant assumptions. Do not change "
    "the Java code in any way: only add JML comments. Answer with the complete annotated class "
    "in one ```java code block.")

SYNTAX_RULES = (
    "JML syntax rules:\n"
    "1. Every annotation is a comment starting with //@ or /*@ (ending with @*/).\n"
    "2. Method contracts stand directly before the method: requires, ensures, assignable; "
    "use \\result for the return value and \\old(e) for pre-state values.\n"
    "3. Loop annotations stand directly before the loop: loop_invariant, decreases, "
    "assignable.\n"
    "4. Quantifiers: (\\forall int k; 0 <= k && k < n; P(k)) and (\\exists int k; ...; P(k)).\n"
    "5. End every clause with a semicolon; use only parameters, fields and, in loop "
    "annotations, locals in scope.")

COT = "Let's think step by step !"

LEAST_TO_MOST = (
    "Answer these questions in order, then write the specification:\n"
    "1. What are the weakest preconditions the method needs (nullness of references, bounds "
    "on integers so no arithmetic overflows, array lengths, non-zero divisors)?\n"
    "2. What are the strongest postconditions that describe the result (and every changed "
    "location) in terms of the inputs?\n"
    "3. What loop invariants, assertions and ranking functions (decreases clauses) are needed "
    "to prove the postconditions from the preconditions?")

_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    (
        "class Max2 {\n    public static int max(int a, int b) {\n        if (a >= b) {\n"
        "            return a;\n        }\n        return b;\n    }\n}\n",
        "The method has no loop and cannot overflow, so it needs no precondition. The result is "
        "one of the two arguments and not smaller than either.",
        "class Max2 {\n    /*@ public normal_behavior\n      @ ensures \\result >= a && "
        "\\result >= b;\n      @ ensures \\result == a || \\result == b;\n      @ assignable "
        "\\nothing;\n      @*/\n    public static int max(int a, int b) {\n"
        "        if (a >= b) {\n            return a;\n        }\n        return b;\n    }\n}\n",
    ),
    (
        "class Find {\n    public static int find(int[] a, int x) {\n"
        "        for (int i = 0; i < a.length; i++) {\n            if (a[i] == x) {\n"
        "                return i;\n            }\n        }\n        return -1;\n    }\n}\n",
        "a is dereferenced, so it must not be null. The result is -1 or an index of x; when it "
        "is -1, no element equals x. The loop has looked at a[0..i) without finding x, which "
        "is the invariant, and a.length - i is its ranking function.",
        "class Find {\n    /*@ public normal_behavior\n      @ requires a != null;\n"
        "      @ ensures -1 <= \\result && \\result < a.length;\n"
        "      @ ensures \\result >= 0 ==> a[\\result] == x;\n"
        "      @ ensures \\result == -1 ==> (\\forall int k; 0 <= k && k < a.length; "
        "a[k] != x);\n      @ assignable \\nothing;\n      @*/\n"
        "    public static int find(int[] a, int x) {\n"
        "        /*@ loop_invariant 0 <= i && i <= a.length;\n"
        "          @ loop_invariant (\\forall int k; 0 <= k && k < i; a[k] != x);\n"
        "          @ assignable \\nothing;\n          @ decreases a.length - i;\n"
        "          @*/\n        for (int i = 0; i < a.length; i++) {\n"
        "            if (a[i] == x) {\n                return i;\n            }\n        }\n"
        "        return -1;\n    }\n}\n",
    ),
    (
        "class Fill {\n    public static void fill(int[] a, int v) {\n        int i = 0;\n"
        "        while (i < a.length) {\n            a[i] = v;\n            i++;\n        }\n"
        "    }\n}\n",
        "a must not be null. The method writes every element of a, so its frame is a[*]. After "
        "the loop every element equals v; the invariant says so for the prefix a[0..i).",
        "class Fill {\n    /*@ public normal_behavior\n      @ requires a != null;\n"
        "      @ ensures (\\forall int k; 0 <= k && k < a.length; a[k] == v);\n"
        "      @ assignable a[*];\n      @*/\n    public static void fill(int[] a, int v) {\n"
        "        int i = 0;\n        /*@ loop_invariant 0 <= i && i <= a.length;\n"
        "          @ loop_invariant (\\forall int k; 0 <= k && k < i; a[k] == v);\n"
        "          @ assignable a[*];\n          @ decreases a.length - i;\n          @*/\n"
        "        while (i < a.length) {\n            a[i] = v;\n            i++;\n        }\n"
        "    }\n}\n",
    ),
)


def task_prompt(description: str) -> str:
    """The kernel task's prompt: FormalBench's request, with the program's description."""
    text = "Please generate JML specifications for the provided Java code."
    return f"{text}\n\n### DESCRIPTION\n{description}" if description else text


def _user(task_text: str, code: str) -> str:
    return f"{task_text}\n\n### CODE\n```java\n{code.strip()}\n```"


def _example_turns(count: int, reasoning: bool) -> list[Message]:
    turns: list[Message] = []
    for code, why, spec in _EXAMPLES[:count]:
        answer = (f"{why}\n\n" if reasoning else "") + f"### SPECIFICATION\n```java\n{spec}```"
        turns += [Message("user", _user(task_prompt(""), code)), Message("assistant", answer)]
    return turns


def messages_for(style: str, task_text: str, code: str) -> list[Message]:
    """The chat for one task in one prompt style."""
    if style not in STYLES:
        raise ValueError(f"unknown prompt style '{style}'; known: {', '.join(STYLES)}")
    user = _user(task_text, code)
    if style == "zero_shot":
        return [Message("system", SYSTEM), Message("user", user)]
    if style == "zs_cot":
        return [Message("system", SYSTEM), Message("user", f"{user}\n\n{COT}")]
    if style == "fs_cot":
        return [Message("system", SYSTEM), *_example_turns(3, reasoning=True),
                Message("user", f"{user}\n\n{COT}")]
    if style == "two_shot":
        return [Message("system", f"{SYSTEM}\n\n{SYNTAX_RULES}"),
                *_example_turns(2, reasoning=False), Message("user", user)]
    return [Message("system", SYSTEM), *_example_turns(3, reasoning=True),
            Message("user", f"{user}\n\n{LEAST_TO_MOST}")]


_MARKERS = re.compile(r"###\s*(?:FIXED SPECIFICATION|SPECIFICATION|RESPONSE)|\[/INST\]|"
                      r"### Response:")
_BLOCK = re.compile(r"```[ \t]*(\w*)[^\n]*\n(.*?)```", re.DOTALL)


def extract_specification(text: str) -> str:
    """The annotated program in a model's answer.

    After the last answer marker FormalBench recognises (``### SPECIFICATION`` and the like),
    the fenced blocks (```java or plain); of several, the last that declares a class, else all
    joined as upstream does. With no fence the text itself is returned, to be judged (prose
    fails the cheating check with its reason)."""
    markers = list(_MARKERS.finditer(text))
    tail = text[markers[-1].end():] if markers else text
    blocks: list[str] = [body for _, body in _BLOCK.findall(tail)] or [
        body for _, body in _BLOCK.findall(text)]
    if not blocks:
        return tail.strip()
    with_class = [b for b in blocks if re.search(r"\bclass\s+\w+", b)]
    if with_class:
        return with_class[-1]
    return "\n// block\n".join(blocks)


FIX_SYSTEM = (
    "You are an expert on the Java Modeling Language (JML). Your task is to fix the JML "
    "specifications of a Java program using the error messages from the verifier. Do not change "
    "the Java code: only the JML comments. Answer with the complete fixed class in one ```java "
    "block after the line ### FIXED SPECIFICATION.")


def repair_messages(spec: str, errors: str, categories: Sequence[str]) -> list[Message]:
    """FormalBench's fix prompt: the spec, the verifier's messages, and one description plus
    guidance block per failure category found."""
    blocks = []
    for name in dict.fromkeys(categories):
        category = Category(name) if name in Category.__members__.values() else Category.OTHER
        advice = guidance_for(category)
        blocks.append(f"- Error Type: {category.value}\n  Description: {advice.description}\n"
                      f"  Guidance: {advice.guidance}")
    types = "\n".join(blocks) or f"- Error Type: {Category.OTHER.value}"
    human = (f"### SPECIFICATION\n```java\n{spec.strip()}\n```\n\n### ERROR MESSAGE:\n"
             f"{errors.strip()}\n\n### ERROR TYPES:\n{types}\n\nPlease answer with the fixed "
             "specification after ### FIXED SPECIFICATION.")
    return [Message("system", FIX_SYSTEM), Message("user", human)]
