"""Per-action syntax credit: splitting, recovery, and the batched rounds against real SANY."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import tla_testdata as m
from hypothesis import example, given
from hypothesis import strategies as st
from speckernel.sandbox.base import Sandbox
from tla_testdata import LIMITS

from speckernel_tla.actions import (
    _DEFINITION,
    MAX_RECOVERY_ROUNDS,
    Unit,
    body_usage,
    call_arity,
    check_actions,
    declare,
    first_round,
    guesses,
    model_names,
    recover,
    split_definitions,
    without_comments,
)
from speckernel_tla.artifact import Deadline
from speckernel_tla.sany import parse_modules, parse_sany_output


def test_split_keeps_column_zero_definitions_with_their_lines() -> None:
    units = split_definitions(m.SPIN)
    assert list(units) == ["vars", "TryAcquire", "Release", "Holders", "Broken", "Init", "Next",
                           "Spec", "MutualExclusion"]
    assert units["TryAcquire"].startswith("TryAcquire(t) ==")
    assert units["TryAcquire"].endswith("ELSE UNCHANGED vars")
    assert "\\* A thread" not in units["TryAcquire"]  # the comment precedes it, in vars


def test_call_arity_counts_top_level_commas() -> None:
    body = "F == G(a, [x |-> 1, y |-> 2], {1, 2}) /\\ H() /\\ K"
    assert call_arity(body, "G") == 3
    assert call_arity(body, "H") == 0
    assert call_arity(body, "K") is None


def test_recover_declares_values_and_stubs_calls() -> None:
    unit = Unit("A", "A == x' = F(x, 1) /\\ y")
    output = ("Semantic errors:\n\n*** Errors: 3\n\n"
              "line 1, col 6 to line 1, col 6 of module m_A\n\nUnknown operator: `x'.\n\n\n"
              "line 1, col 13 to line 1, col 13 of module m_A\n\nUnknown operator: `F'.\n\n\n"
              "line 1, col 26 to line 1, col 26 of module m_A\n\nUnknown operator: `y'.\n\n")
    repaired = recover(unit, parse_sany_output("m_A", output, 0))
    assert repaired.variables == ("x", "y")
    assert repaired.stubs == (("F", 2),)
    assert "VARIABLES x, y\nF(x1, x2) == TRUE\n" in repaired.module_text("m_A")
    arity = ("Semantic errors:\n\n*** Errors: 1\n\n"
             "line 1, col 6 to line 1, col 6 of module m_A\n\n"
             "The operator y requires 1 arguments.\n\n")
    fixed = recover(repaired, parse_sany_output("m_A", arity, 0))
    assert fixed.variables == ("x",) and dict(fixed.stubs) == {"F": 2, "y": 1}


def deadline() -> Deadline:
    return Deadline.after(LIMITS.wall_s)


@pytest.mark.anyio
async def test_actions_of_a_model_checked_alone(jar: Path, make_ctx: Any) -> None:
    actions, whole = await check_actions(make_ctx(), jar, "spin", m.SPIN, limits=LIMITS,
                                         deadline=deadline(), extra={"spin": m.SPIN})
    assert not whole["spin"].ok  # Broken has a parse error
    failed = {name for name, a in actions.items() if not a.ok}
    assert failed == {"Broken"}
    assert actions["Release"].variables == ("pc", "locked")
    assert actions["Next"].stubs == ("TryAcquire", "Release")
    assert actions["MutualExclusion"].variables == ("Holders",)  # a value: declared
    assert actions["Init"].rounds == 2 and actions["vars"].rounds == 2
    assert actions["Broken"].errors


def test_model_names_are_its_declarations_and_definitions() -> None:
    assert model_names([m.SPIN]) == {"Threads", "locked", "pc", "vars", "TryAcquire", "Release",
                                     "Holders", "Broken", "Init", "Next", "Spec",
                                     "MutualExclusion"}


@pytest.mark.anyio
async def test_guesses_are_what_recovery_declares_round_after_round(
        jar: Path, sandbox: Sandbox) -> None:
    body = "Seen == ToSet(q) \\subseteq {2} /\\ F(G(x), y)"
    units = {name: Unit(name, body) for name, body in split_definitions(m.SPIN).items()}
    units["Seen"] = Unit("Seen", body)
    units["Range"] = Unit("Range", "Range == \\A i \\in 1 .. N : r.f # i /\\ N..r # {}")
    units["Fair"] = Unit("Fair", "Fair == WF_vars(F(q, x)) /\\ SF_x(G(y))")
    known = model_names([m.SPIN]) | {"ToSet", "q", "F", "G", "x", "y", "N", "r", "f"}
    predicted = {name: guesses(unit, known) for name, unit in units.items()}
    # SANY does not look into an unknown operator's arguments: they come a round later.
    assert [(g.variables, g.stubs) for g in predicted["Seen"]] == [
        ((), (("ToSet", 1), ("F", 2))), (("q", "y"), (("ToSet", 1), ("F", 2), ("G", 1))),
        (("q", "y", "x"), (("ToSet", 1), ("F", 2), ("G", 1)))]
    # a range's bound is a name, a record's field is not (dqueue's 1 .. NUM_CONSUMERS)
    assert [g.variables for g in predicted["Range"]] == [("N", "r")]
    # a fairness subscript is not a call: its action's names are reported with it
    assert [(g.variables, g.stubs) for g in predicted["Fair"]] == [
        (("vars", "x"), (("F", 2), ("G", 1))), (("vars", "x", "q", "y"), (("F", 2), ("G", 1)))]
    for name, unit in units.items():
        if name == "Broken":  # a parse error: recovery has nothing to go on
            continue
        for expected in predicted[name]:
            module = f"spin_{name}"
            result = (await parse_modules(sandbox, jar, {module: unit.module_text(module)},
                                          limits=LIMITS))[module]
            unit = recover(unit, result)
            assert unit == expected, name


@pytest.mark.anyio
async def test_a_wrong_guess_costs_a_jvm_not_a_verdict(jar: Path, make_ctx: Any) -> None:
    # ToSet comes from SequencesExt, which the guesses do not know: the unit's next round runs
    # in a JVM of its own, and (SANY reporting q only once ToSet is declared) takes three rounds,
    # as it always did.
    actions, _ = await check_actions(make_ctx(), jar, "Community", m.COMMUNITY, limits=LIMITS,
                                     deadline=deadline())
    seen = actions["Seen"]
    assert (seen.ok, seen.rounds, seen.variables, seen.stubs) == (True, 3, ("q",), ("ToSet",))
    assert all(a.ok for a in actions.values())


def test_call_arity_takes_each_names_first_call() -> None:
    body = "A == F(F(a, b)) /\\ G(x, H(y, z), w) /\\ F /\\ K(1, (2, 3)"
    usage = body_usage(body)
    assert usage.arities == {"F": 1, "G": 3, "H": 2, "K": 2}
    assert {"F", "a", "b", "x", "y", "z", "w"} <= usage.values and "G" not in usage.values


@pytest.mark.parametrize(("text", "plain"), [
    ('a (* b (* c *) d *) e', "a   e"),
    ("a \\* b (* c\nd", "a  \nd"),
    ("a \\* b\rc \\* d\r\ne", "a  \rc  \r\ne"),  # SANY ends lines at \r too
    ('a "x (* y" b', "a   b"),
    ('a "x \\" (* y" b', "a   b"),
    ("a (* never closed", "a  "),
    ('a "never closed', "a  "),
    ("a *) b", "a *) b"),
])
def test_comments_nest_and_strings_name_nothing(text: str, plain: str) -> None:
    assert without_comments(text) == plain


def big_model(definitions: int) -> str:
    """A model of ``definitions`` definitions, each naming the previous one, and a Next that
    names them all (the shape that made the guesses quadratic)."""
    lines = ["---- MODULE Big ----", "EXTENDS Naturals", "VARIABLE x"]
    lines += [f"D{i} == x + D{i - 1}" if i else "D0 == x" for i in range(definitions)]
    lines.append("Next == " + " \\/ ".join(f"x' = D{i}" for i in range(definitions)))
    return "\n".join([*lines, "===="]) + "\n"


@pytest.mark.anyio
async def test_planning_16k_definitions_leaves_the_event_loop_free(make_ctx: Any) -> None:
    # Issue 20: the guesses for a model of 16,000 definitions were quadratic and ran on the
    # event loop, freezing the whole run. The planning runs in a kernel worker now; the loop
    # keeps ticking meanwhile.
    text = big_model(16_000)
    gaps: list[float] = []

    async def tick() -> None:
        last = time.monotonic()
        while True:
            await anyio.sleep(0.05)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        state = await make_ctx().run_sync(first_round, "Big", text, [], {})
        group.cancel_scope.cancel()
    assert len(state["units"]) == 16_001 and len(state["pending"]) == 16_001
    assert state["batch"]["Big_Next"].startswith("---- MODULE Big_Next ----")
    assert max(gaps) < 1.0


def test_guesses_stay_linear_on_16k_definitions() -> None:
    # The declarations guessed for the definition naming all the others, in one pass.
    text = big_model(16_000)
    units = split_definitions(text)
    chain = guesses(Unit("Next", units["Next"]), model_names([text]))
    assert len(chain) == 1 and len(chain[0].variables) == 16_001


# --------------------------------------------------------------------------- linear time
#
# Each fix of the audit that found these functions quadratic: its adversarial input at a size
# the old code took minutes on (the suite's timeout catches a hang), and the result against a
# straightforward reference on small random inputs.


OLD_DEFINITION = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*==(?!=)")
"""The definition pattern as it was, two adjacent ``\\s*`` (quadratic in a line of blanks)."""


def test_split_is_linear_in_a_line_of_spaces() -> None:
    spaces = " " * 400_000
    text = f"A{spaces}x\nB{spaces}== 1\nC({spaces}p{spaces}){spaces}== p\n"
    assert split_definitions(text) == {"B": f"B{spaces}== 1",
                                       "C": f"C({spaces}p{spaces}){spaces}== p"}


LINE = st.one_of(st.from_regex(r"[AB_]?[ \t]{0,3}(\([p, ]{0,3}\)?)?[ \t]{0,3}(==?)?=?[x ]?",
                                fullmatch=True),
                 st.sampled_from(["VARIABLE x", "----", "====", " x", ""]))


@given(LINE)
@example("A(p, p) == x")
@example("B (p)\t==x")
def test_a_line_starts_the_definition_the_old_pattern_saw(line: str) -> None:
    """split_definitions reads a line through its definition pattern alone: the new pattern
    names the definition the old one did, on every line."""
    old, new = OLD_DEFINITION.match(line), _DEFINITION.match(line)
    assert (old and old.group("name")) == (new and new.group("name"))
    if old is not None:
        assert list(split_definitions(line)) == [old.group("name")]


def test_body_usage_is_linear_in_nested_calls() -> None:
    calls = 100_000
    usage = body_usage("".join(f"f{i}(" for i in range(calls)))
    assert usage.arities == {f"f{i}": 1 for i in range(calls - 1)} | {f"f{calls - 1}": 0}
    assert usage.values == frozenset()


def usage_reference(tokens: list[str]) -> tuple[dict[str, int], set[str]]:
    """Each name's first call, read by matching its bracket afresh (any closer closes any
    opener): top-level commas plus one, 0 if nothing is inside; and the names not called."""
    arities: dict[str, int] = {}
    values: set[str] = set()
    for index, token in enumerate(tokens):
        if not token.isalpha():
            continue
        if tokens[index + 1:index + 2] != ["("]:
            values.add(token)
            continue
        if token in arities:
            continue
        depth, commas, inside = 1, 0, tokens[index + 2:]
        for length, inner in enumerate(inside):
            depth += (inner in "([{") - (inner in ")]}")
            commas += inner == "," and depth == 1
            if depth == 0:
                inside = inside[:length]
                break
        arities[token] = commas + 1 if inside else 0
    return arities, values


BRACKETS = [["("], [")"], ["["], ["]"], ["{"], ["}"], [","]]


def tokens_of(names: list[str], calls: list[str]) -> st.SearchStrategy[list[str]]:
    """Token lists of ``names``, brackets, and calls of ``calls`` (a name, then ``(``)."""
    pieces = [[name] for name in names] + [[call, "("] for call in calls] + BRACKETS
    return st.lists(st.sampled_from(pieces), max_size=30).map(
        lambda drawn: [token for piece in drawn for token in piece])


@given(tokens_of(["f", "g", "x"], ["f", "g"]).flatmap(
    lambda tokens: st.lists(st.booleans(), min_size=len(tokens), max_size=len(tokens)).map(
        lambda spaces: list(zip(tokens, spaces, strict=True)))))
def test_body_usage_matches_a_bracket_matching_reference(spaced: list[tuple[str, bool]]) -> None:
    # A space after a token where drawn, and always between two names: the body's tokens are
    # the list's.
    tokens = [token for token, _ in spaced]
    body = "".join(token + (" " if space or (token.isalpha() and following.isalpha()) else "")
                   for (token, space), following in zip(spaced, [*tokens, ""][1:], strict=True))
    usage = body_usage(body)
    assert (usage.arities, set(usage.values)) == usage_reference(tokens)


def test_guess_depths_are_linear_in_open_brackets() -> None:
    brackets = 200_000
    body = "U == F(" + "(" * brackets + " v" * brackets
    chain = guesses(Unit("U", body), frozenset({"F", "v"}))
    assert [(g.variables, g.stubs) for g in chain] == [((), (("F", 1),)),
                                                       (("v",), (("F", 1),))]


def nested_model(levels: int) -> str:
    """``U == f0(v0, f1(v1, ...))``: each level one more guess, each guess declaring all the
    names of the levels before it."""
    lines = ["---- MODULE Nest ----", "EXTENDS Naturals",
             "VARIABLES " + ", ".join(f"v{i}" for i in range(levels))]
    lines += [f"f{i}(a, b) == a" for i in range(levels)]
    lines.append("U == " + "".join(f"f{i}(v{i}, " for i in range(levels)) + "0" + ")" * levels)
    return "\n".join([*lines, "===="]) + "\n"


def test_guesses_of_a_deep_nest_stop_at_the_last_recovery_round() -> None:
    levels = 20_000
    state = first_round("Nest", nested_model(levels), [], {})
    assert len(state["batch"]) == levels + 1 + MAX_RECOVERY_ROUNDS
    guessed = [plain for plain, _ in state["speculated"]["U"]]
    assert guessed == [[state["units"]["U"][0], [f"v{i}" for i in range(depth)],
                        [[f"f{i}", 2] for i in range(depth + 1)]]
                       for depth in range(MAX_RECOVERY_ROUNDS)]


def guesses_reference(unit: Unit, names: frozenset[str], tokens: list[str]) -> list[Unit]:
    """Every level of guesses (no cap), each name's depth counted afresh from the brackets
    before it: those opened right after a model name other than the unit's own."""
    found: dict[str, int] = {}  # name -> depth of its shallowest use, its first there
    order: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token not in names or token == unit.name:
            continue
        enclosing: list[bool] = []
        for before, inner in enumerate(tokens[:index]):
            if inner in "([{":
                enclosing.append(inner == "(" and before > 0 and tokens[before - 1] in names
                                 and tokens[before - 1] != unit.name)
            elif inner in ")]}" and enclosing:
                enclosing.pop()
        if sum(enclosing) < found.get(token, sum(enclosing) + 1):
            found[token], order[token] = sum(enclosing), index
    chain: list[Unit] = []
    for depth in sorted(set(found.values())):
        level = sorted((order[name], name) for name in found if found[name] == depth)
        chain.append(declare(chain[-1] if chain else unit, [name for _, name in level], {}))
    return chain


@given(tokens_of(["F", "G", "v", "w", "U", "y"], ["F", "G", "H", "U", "y"]))
def test_guesses_are_the_first_levels_of_a_reference(tokens: list[str]) -> None:
    body = "U == " + " ".join(tokens)
    names = frozenset({"F", "G", "H", "v", "w", "U"})
    assert guesses(Unit("U", body), names) == \
        guesses_reference(Unit("U", body), names, tokens)[:MAX_RECOVERY_ROUNDS]


@pytest.mark.anyio
async def test_a_nest_deeper_than_the_rounds_gets_the_plain_rounds_verdict(
        jar: Path, sandbox: Sandbox, make_ctx: Any) -> None:
    # Seven levels need eight recoveries; the guesses stop at five, as the rounds do, and the
    # verdict is that of the rounds run one by one.
    text = nested_model(7)
    actions, _ = await check_actions(make_ctx(), jar, "Nest", text, limits=LIMITS,
                                     deadline=deadline())
    unit = Unit("U", split_definitions(text)["U"])
    rounds = 0
    while True:
        rounds += 1
        result = (await parse_modules(sandbox, jar, {"Nest_U": unit.module_text("Nest_U")},
                                      limits=LIMITS))["Nest_U"]
        if result.ok or rounds > MAX_RECOVERY_ROUNDS or recover(unit, result) == unit:
            break
        unit = recover(unit, result)
    u = actions["U"]
    assert (u.ok, u.rounds, u.variables, u.stubs) == (
        result.ok, rounds, unit.variables, tuple(stub for stub, _ in unit.stubs))
    assert (u.ok, u.rounds, u.variables) == (False, 6, ("v0", "v1", "v2", "v3"))
