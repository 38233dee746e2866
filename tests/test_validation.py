"""The configuration rules as properties: every number is typed, ranged and finite, whichever
way it arrives (run file, flag, resumed run.yaml, a RunConfig built in code)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speckernel import validation
from speckernel.config import RunConfig, override, resolve
from speckernel.errors import KernelError
from speckernel.yamlio import MAX_DEPTH, MAX_VALUES, load_yaml, plain

NUMBERS = st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=8), st.booleans(), st.none(), st.lists(st.integers(),
                                                                             max_size=2))


def refused(flags: dict[str, Any]) -> str:
    with pytest.raises(KernelError) as info:
        resolve({"benchmark": "b"}, flags)
    message = str(info.value)
    assert "\n" not in message
    return message


@given(value=NUMBERS)
def test_samples_is_an_integer_between_1_and_the_cap(value: Any) -> None:
    ok = (isinstance(value, int) and not isinstance(value, bool)
          and 1 <= value <= validation.MAX_SAMPLES_PER_TASK)
    if value is None:
        return  # unset
    if ok:
        assert resolve({"benchmark": "b"}, {"samples": value}).samples == value
    elif not (isinstance(value, str) and value.strip().isdigit()
              and 1 <= int(value) <= validation.MAX_SAMPLES_PER_TASK):
        assert "invalid value for 'samples'" in refused({"samples": value})


@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-100, 10)))
def test_max_cost_is_finite_and_not_negative(value: float) -> None:
    if math.isfinite(value) and 0 <= value <= validation.MAX_COST_USD:
        assert resolve({"benchmark": "b"}, {"max_cost": value}).max_cost == value
    else:
        assert "invalid value for 'max_cost'" in refused({"max_cost": value})


@given(field=st.sampled_from(["sample_timeout_s", "model_timeout_s", "verify_timeout_s"]),
       value=st.floats(allow_nan=True, allow_infinity=True))
def test_timeouts_are_positive_finite_and_at_most_a_week(field: str, value: float) -> None:
    if math.isfinite(value) and 0 < value <= validation.MAX_TIMEOUT_S:
        assert getattr(resolve({"benchmark": "b"}, {field: value}), field) == value
    else:
        assert f"invalid value for '{field}'" in refused({field: value})


@given(temperature=st.floats(allow_nan=True, allow_infinity=True),
       top_p=st.floats(allow_nan=True, allow_infinity=True),
       max_tokens=st.integers(-5, 10**12))
def test_generation_parameters_are_ranged(temperature: float, top_p: float,
                                          max_tokens: int) -> None:
    params = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens}
    ok = (math.isfinite(temperature) and 0 <= temperature <= 2 and math.isfinite(top_p)
          and 0 <= top_p <= 1 and 1 <= max_tokens <= validation.MAX_TOKENS)
    if ok:
        config = resolve({"benchmark": "b"}, {"params": params})
        assert (config.params.temperature, config.params.max_tokens) == (temperature, max_tokens)
    else:
        assert "invalid value for 'params'" in refused({"params": params})


JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
                              st.floats(allow_nan=False, allow_infinity=False)),
                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                            st.dictionaries(st.text(max_size=3), inner,
                                                            max_size=3)),
                    max_leaves=20)


@given(data=st.dictionaries(st.text(max_size=5), JSON, max_size=4),
       bad=st.sampled_from([math.nan, math.inf, -math.inf]))
def test_options_hold_plain_finite_data(data: dict[str, Any], bad: float) -> None:
    assert resolve({"benchmark": "b"}, {"options": data}).options == data
    poisoned = {**data, "deep": [{"x": [bad]}]}
    assert "must be a finite number" in refused({"options": poisoned})


def test_options_nesting_is_limited() -> None:
    nested: Any = 1
    for _ in range(validation.MAX_DEPTH + 2):
        nested = {"a": nested}
    assert "nested more than" in refused({"agent_options": nested})


@pytest.mark.parametrize("field, value", [
    ("samples", 0), ("samples", 10**23), ("limit", -1), ("limit", 0), ("max_cost", -5.0),
    ("max_cost", math.nan), ("shard", (1,)), ("shard", (3, 2)), ("model_concurrency", 0),
    ("verify_timeout_s", -1.0), ("seed", 2**64), ("params", {"temperature": "hot"}),
])
def test_a_run_config_built_in_code_meets_the_same_rules(field: str, value: Any) -> None:
    with pytest.raises(KernelError, match=f"invalid value for '{field}'"):
        RunConfig(benchmark="b", **{field: value})


def test_resume_flags_meet_the_same_rules() -> None:
    base = RunConfig(benchmark="b")
    assert override(base, {"max_cost": "12.5"}).max_cost == 12.5
    for flags in ({"max_cost": "nan"}, {"shard": "2/2"}, {"verifier_concurrency": 0}):
        with pytest.raises(KernelError):
            override(base, flags)


def test_yaml_aliases_are_counted_each_time_they_are_used() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    with pytest.raises(KernelError, match=f"more than {MAX_VALUES:,} values"):
        plain(load_yaml("\n".join(lines), "bomb.yaml"), "bomb.yaml")
    small = plain(load_yaml("a: &a [1, 2]\nb: [*a, *a]\n", "ok.yaml"))
    assert small == {"a": [1, 2], "b": [[1, 2], [1, 2]]}


@pytest.mark.parametrize("depth", [MAX_DEPTH + 2, 500, 5000])
def test_yaml_nesting_is_limited(depth: int) -> None:
    with pytest.raises(KernelError, match="nested"):
        plain(load_yaml("[" * depth + "]" * depth, "deep.yaml"), "deep.yaml")
