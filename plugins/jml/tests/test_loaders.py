"""Task loading: the bundled set, FormalBench's published layout, and the benchmark's options."""

from __future__ import annotations

import pytest
from conftest import FORMALBENCH
from speckernel.errors import KernelError

from speckernel_jml.benchmark import JmlBenchmark
from speckernel_jml.bundled import CATEGORIES, load_bundled
from speckernel_jml.formalbench import load_base, load_diverse
from speckernel_jml.report import split_variant

needs_formalbench = pytest.mark.skipif(not (FORMALBENCH / "base").is_dir(),
                                       reason="shared FormalBench data not present")


def options(**extra: object) -> dict[str, object]:
    return {**JmlBenchmark.options, **extra}


def test_bundled_tasks_have_program_reference_and_category() -> None:
    tasks = list(load_bundled())
    assert len(tasks) >= 40
    assert {t.metadata["category"] for t in tasks} == set(CATEGORIES)
    for task in tasks:
        file = task.metadata["file"]
        assert list(task.files) == [file] and task.reference is not None
        assert file in task.reference
        assert task.metadata["class_name"] in task.files[file]
        assert task.prompt.startswith("Please generate JML specifications")
    assert len({t.id for t in tasks}) == len(tasks)


@needs_formalbench
def test_formalbench_base_and_natural_variants() -> None:
    base = {t.id: t for t in load_base(FORMALBENCH)}
    assert len(base) == len((FORMALBENCH / "base" / "meta_data.jsonl").read_text().splitlines())
    first = next(iter(base.values()))
    assert first.reference is None
    assert first.metadata["description"].startswith("Write a function")
    assert "class " + first.metadata["class_name"] in first.files[first.metadata["file"]]
    variants = list(load_diverse(FORMALBENCH, base))
    assert variants, "the shared copy holds some natural variants"
    for variant in variants:
        origin, rule = split_variant(variant.id)
        assert origin in base and rule is not None and rule.startswith("rule_")
        assert variant.metadata["base_task"] == origin


@needs_formalbench
def test_benchmark_options_select_sources() -> None:
    bench = JmlBenchmark()
    both = list(bench.tasks(options(tasks_from="all", formalbench_path=str(FORMALBENCH),
                                    categories=["sequential"])))
    assert {t.metadata["source"] for t in both} == {"bundled", "formalbench"}
    assert {t.metadata["category"] for t in both} == {"sequential"}
    diverse = list(bench.tasks(options(tasks_from="formalbench",
                                       formalbench_path=str(FORMALBENCH), variants="diverse")))
    assert any(t.metadata["base_task"] for t in diverse)


@needs_formalbench
@pytest.mark.parametrize(("names", "expected"), [
    (["branch"], {"branch"}), (["nested"], {"nested"}),
    (["branching", "nested_loop"], {"branch", "nested"}),
])
def test_categories_are_formalbenchs_names_with_aliases(names: list[str],
                                                        expected: set[str]) -> None:
    """Issue 15, finding 5: FormalBench's data says ``branch`` and ``nested``; both select
    its programs and the bundled tasks alike, and the older names still work."""
    tasks = list(JmlBenchmark().tasks(options(tasks_from="all",
                                              formalbench_path=str(FORMALBENCH),
                                              categories=names)))
    assert {t.metadata["category"] for t in tasks} == expected
    assert {t.metadata["source"] for t in tasks} == {"bundled", "formalbench"}


def test_bundled_task_ids_use_formalbenchs_category_names() -> None:
    assert {t.id.split("/")[0] for t in load_bundled()} == set(CATEGORIES)


@pytest.mark.parametrize(("extra", "words"), [
    ({"tasks_from": "nowhere"}, "tasks_from"),
    ({"tasks_from": "formalbench"}, "formalbench_path"),
    ({"tasks_from": "formalbench", "formalbench_path": "/no/such/dir"}, "no directory"),
    ({"categories": ["loops"]}, "categories"),
    ({"backend": "z3"}, "backend"),
])
def test_bad_options_are_one_line_errors(extra: dict[str, object], words: str) -> None:
    with pytest.raises(KernelError, match=words):
        list(JmlBenchmark().tasks(options(**extra)))


def test_completeness_option_drops_the_mutation_phase() -> None:
    bench = JmlBenchmark()
    assert [p.name for p in bench.pipeline(options())] == ["consistency", "completeness"]
    assert [p.name for p in bench.pipeline(options(completeness=False))] == ["consistency"]


@pytest.mark.slow
def test_transform_variants_follow_their_base_task() -> None:
    tasks = list(JmlBenchmark().tasks(options(
        categories=["branch"], variants="transforms",
        rules=["relation-swapping", "if-else-reversal"])))
    base = [t for t in tasks if not t.metadata["base_task"]]
    variants = [t for t in tasks if t.metadata["base_task"]]
    assert variants
    ids = {t.id for t in base}
    for variant in variants:
        origin, rule = split_variant(variant.id)
        assert origin in ids and rule in ("relation-swapping", "if-else-reversal")
        assert variant.reference is None
        assert variant.files[variant.metadata["file"]] != next(
            t for t in base if t.id == origin).files[variant.metadata["file"]]
