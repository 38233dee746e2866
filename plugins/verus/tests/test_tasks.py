"""Task loading: VeruSAGE-Bench through its mapping files, Verus-Bench through tasks.jsonl."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from speckernel.errors import KernelError

from speckernel_verus.cheats import CheatPair, Function, transplant_pairs
from speckernel_verus.tasks import PROJECTS, choose_target, load_tasks, name_variants

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "verus"

needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not at {DATA}")


pytestmark = pytest.mark.usefixtures("helper")


@pytest.fixture(scope="module")
def tasks(helper):
    return list(load_tasks(DATA))


@needs_data
def test_every_task_of_the_shared_data_loads_once_in_a_stable_order(tasks):
    ids = [t.id for t in tasks]
    assert len(ids) == len(set(ids)) == 244 + 150
    assert ids == [t.id for t in load_tasks(DATA)]
    verusage = [t for t in tasks if t.metadata["suite"] == "VeruSAGE-Bench"]
    assert [t.id for t in verusage] == sorted(t.id for t in verusage)


@needs_data
def test_projects_are_the_task_groups(tasks):
    counts = collections.Counter(t.metadata["project"] for t in tasks)
    assert counts == {"AL": 104, "MA": 89, "NO": 29, "VE": 22,
                      "CloverBench": 11, "MBPP": 78, "Diffy": 38, "Misc": 23}
    assert {t.metadata["project"] for t in tasks if t.metadata["suite"] == "VeruSAGE-Bench"} <= set(
        PROJECTS)


@needs_data
def test_a_verusage_task_carries_its_file_ground_truth_and_target(tasks):
    task = next(t for t in tasks if t.id == "verusage/VE__utils__compare_slice")
    name = "VE__utils__compare_slice.rs"
    assert task.files == {name: (DATA / "VeruSAGE-Bench/tasks" / name).read_text()}
    truth = DATA / "VeruSAGE-Bench/source-projects/vest/verified/utils/utils__compare_slice.rs"
    assert task.metadata["ground_truth_text"] == truth.read_text()
    assert task.metadata["reference"] == "transplanted"
    assert task.reference == {name: transplant_pairs([CheatPair(
        task.files[name], truth.read_text(), "compare_slice")])[0].text}
    assert task.metadata["file"] == name
    assert task.metadata["target"] == "compare_slice"
    assert task.metadata["ground_truth"] == truth.relative_to(DATA / "VeruSAGE-Bench").as_posix()


@needs_data
def test_every_verusage_task_has_its_ground_truth(tasks):
    assert all(t.reference for t in tasks if t.metadata["suite"] == "VeruSAGE-Bench")


@needs_data
def test_a_verus_bench_task_comes_from_tasks_jsonl(tasks):
    rows = {json.loads(line)["task_id"]: json.loads(line)
            for line in (DATA / "Verus-Bench/tasks.jsonl").read_text().splitlines()}
    task = next(t for t in tasks if t.id == "verus-bench/cloverbench_binary_search")
    row = rows["cloverbench_binary_search"]
    assert task.files == {"binary_search.rs": row["task"]}
    assert task.metadata["ground_truth_text"] == row["ground_truth"]
    assert task.reference == {"binary_search.rs": transplant_pairs([CheatPair(
        row["task"], row["ground_truth"], None)])[0].text}
    assert task.metadata["project"] == "CloverBench" and task.metadata["target"] is None


@needs_data
def test_a_verus_bench_task_without_ground_truth_has_no_reference(tasks):
    bubble = next(t for t in tasks if t.id == "verus-bench/misc_bubble")
    assert bubble.reference is None and bubble.files


@needs_data
def test_either_suite_loads_from_its_own_directory():
    verusage = list(load_tasks(DATA / "VeruSAGE-Bench"))
    bench = list(load_tasks(DATA / "Verus-Bench"))
    assert len(verusage) == 244 and len(bench) == 150


def fn(name: str, mode: str = "proof", stub: bool = False, body: bool = True) -> Function:
    return Function(name, mode, body, stub, 1, "")


CONTEXT = [fn("helper", "exec", stub=True), fn("spec_thing", "spec"),
           fn("axiom", "exec", body=False)]


def test_target_is_the_function_the_file_name_ends_with():
    assert choose_target("AL__mod__lemma_x", [*CONTEXT, fn("lemma_x")]) == "lemma_x"
    assert choose_target("OS__va_range__impl2_new", [*CONTEXT, fn("new", "exec")]) == "new"
    assert choose_target("IR__marshal_v__impl2___is_marshalable",
                         [*CONTEXT, fn("_is_marshalable", "exec")]) == "_is_marshalable"


def test_upstream_naming_schemes_are_read():
    assert name_variants("MA__layout__mod_mul-poly") == ["mod_mul"]
    assert name_variants("OS__t__new_container_preserve_tree_inv_2") == [
        "new_container_preserve_tree_inv_2", "new_container_preserve_tree_inv"]
    assert name_variants("IR__d__impl1_len") == ["impl1_len", "len"]
    assert name_variants("IR__marshal_v__impl2___is_marshalable") == ["_is_marshalable"]
    assert "inv_lemma_x_y" in name_variants("ST__inv_L_x_y")
    fns = [*CONTEXT, fn("new_container_preserve_tree_inv")]
    assert choose_target("OS__t__new_container_preserve_tree_inv_2", fns) == (
        "new_container_preserve_tree_inv")


def test_a_module_prefixed_name_finds_the_function_it_ends_with():
    fns = [*CONTEXT, fn("get_head_tail_and_capacity", "exec"), fn("capacity", "exec")]
    assert choose_target("ST__logimpl_get_head_tail_and_capacity", fns) == (
        "get_head_tail_and_capacity")
    fns = [*CONTEXT, fn("lemma_addresses_in_log_area"), fn("lemma_other")]
    assert choose_target("ST__inv_L_addresses_in_log_area", fns) == "lemma_addresses_in_log_area"
    fns = [*CONTEXT, fn("read_relative_aligned", "exec"), fn("read_absolute", "exec")]
    assert choose_target("ST__subregion_read_relative_aligned2", fns) == "read_relative_aligned"
    fns = [*CONTEXT, fn("lemma_true_leads_to_x"), fn("lemma_true_leads_to_y")]
    assert choose_target("AC__v__liveness__proof_lemma_true_leads_to_x", fns) == (
        "lemma_true_leads_to_x")


def test_a_misspelt_name_finds_the_function_within_a_typo():
    fns = [*CONTEXT, fn("map_values_weakens_no_duplicates"), fn("lemma_other")]
    assert choose_target("AL__map_values_weaknes_no_duplicates", fns) == (
        "map_values_weakens_no_duplicates")


def test_a_module_named_task_with_one_function_to_prove_targets_it():
    assert choose_target("AL__vec_lib", [*CONTEXT, fn("vec_filter", "exec")]) == "vec_filter"


def test_a_spec_function_or_a_stub_is_never_the_target():
    fns = [fn("lemma_x", "spec"), fn("lemma_x_proof"), fn("lemma_y", stub=True)]
    assert choose_target("AL__lemma_x", fns) == "lemma_x_proof"
    with pytest.raises(ValueError, match="no exec or proof function"):
        choose_target("AL__lemma_x", [fn("lemma_x", "spec"), fn("a"), fn("b")])


def test_a_task_without_its_target_is_a_load_error_naming_it(tmp_path):
    suite = tmp_path / "VeruSAGE-Bench"
    (suite / "tasks").mkdir(parents=True)
    (suite / "source-projects").mkdir()
    (suite / "tasks" / "AL__lemma_gone.rs").write_text(
        "verus! { proof fn a() {} proof fn b() {} }")
    with pytest.raises(KernelError, match=r"verusage/AL__lemma_gone: no exec or proof function"):
        list(load_tasks(suite))


@needs_data
def test_every_shared_verusage_task_finds_an_exec_or_proof_target(tasks):
    verusage = [t for t in tasks if t.metadata["suite"] == "VeruSAGE-Bench"]
    assert all(t.metadata["target"] for t in verusage)
    named = {t.id: t.metadata["target"] for t in verusage}
    assert named["verusage/AL__vec_lib"] == "vec_filter"
    assert named["verusage/MA__config"] == "const_facts"
    assert named["verusage/MA__layout__mod_mul-poly"] == "mod_mul"
    assert named["verusage/AL__push_to_set_seq_to_set_insert"] == "push_to_set_eq_to_set_insert"


def test_a_missing_path_is_one_line(tmp_path):
    with pytest.raises(KernelError, match=r"^verus data: .* is not a directory$"):
        list(load_tasks(tmp_path / "nowhere"))


def test_a_directory_without_either_suite_is_one_line(tmp_path):
    with pytest.raises(KernelError, match=r"holds neither VeruSAGE-Bench .* nor Verus-Bench"):
        list(load_tasks(tmp_path))


def test_a_broken_tasks_jsonl_names_its_line(tmp_path):
    (tmp_path / "tasks.jsonl").write_text('{"task_id": "a", "task": "x"}\nnot json\n')
    with pytest.raises(KernelError, match=r"tasks.jsonl:2: not JSON"):
        list(load_tasks(tmp_path))
