"""No surprise in the grade, and no vacuous ok: the public tests catch the corpus's wrong answers, and each of them fails on one.

Each wrong answer (grader/tests/corpus/wrong/) is put in a package beside
the reference's other four files and run through the public tests of its
exercise (``pytest tests -m <exercise> --impl <package>``), as a student
would run them. The public tests must fail on it, unless its ``# HIDDEN:
<why>`` line says the public tests leave it to the grader on purpose (the
reason is shown by ``python -m grader scoreboard``). Such an entry is an
expected failure, and a strict one: once a public test catches it, the
HIDDEN line must go.

The other way round, every public test and every ``[ok]`` line the lab
prints has a witness (:data:`WITNESSES`): a wrong answer it fails on. A
witness's run is its public-catch run: instead of stopping at the first
failure, it runs the tests it witnesses, and each must fail; for a lab
claim, its experiment must print ``[NO]`` for it (the lab's public test
records the claims it did not show in the JUnit report).

Slow: one pytest run per wrong answer (``-x`` stops at the first failure;
the tests that start no DataLoader worker run first, and those that do only
if the others all pass), each a fork of a process that has imported torch once
(preloaded_pytest.py).
That the same runner passes right answers, worker tests and lab experiments
included, is shown by test_public_tests.py's walk through the exercises.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.tests.preloaded_pytest import PreloadedPytest
from grader.tools.authoring import corpus
from grader.tools.authoring.contract_table import functions
from solutions.lab import EXPECTATIONS, PADDING_CLAIM

PACKAGE = "submitted"
LAB_TEST = "tests/test_lab.py::test_experiment_shows_what_the_handout_says"

#: {wrong answer: the public tests (file::function) and lab claims ("lab <letter>: <claim>") it must fail}.
WITNESSES = {
    "wrong/collate/bool_mask": ["test_collate.py::test_returns_the_three_keys_as_int64_b_by_t"],
    "wrong/collate/left_padding": ["test_collate.py::test_right_pads_masks_and_labels_a_small_batch"],
    "wrong/collate/float32_padding_buffer": ["test_collate.py::test_ids_beyond_float_precision_come_back_exact"],
    "wrong/collate/labels_masked_by_pad_value": ["test_collate.py::test_a_real_token_equal_to_pad_id_keeps_its_label"],
    "wrong/collate/drops_empty_sequences": ["test_collate.py::test_empty_sequences"],
    "wrong/collate/keeps_input_dtype": ["test_collate.py::test_any_integer_dtype_comes_out_int64"],
    "wrong/collate/stacks_when_no_padding": ["test_collate.py::test_same_length_batches_come_out_int64_too"],
    "wrong/collate/pads_in_input_dtype": ["test_collate.py::test_pad_id_need_not_fit_the_input_dtype"],
    "wrong/collate/one_sequence_shares_its_memory": ["test_collate.py::test_inputs_are_not_modified_and_not_shared"],
    "wrong/collate/returns_tuple": ["test_collate.py::test_works_as_collate_fn_in_process"],
    "wrong/collate/labels_not_masked": ["test_collate.py::test_pin_memory_loader_gives_the_documented_batches",
                                        "test_fences.py::test_fence1_default_collate_rules_and_pad_collate"],
    "wrong/collate/lambda_not_picklable": ["test_collate.py::test_same_batches_in_worker_processes"],
    "wrong/sharding/range_iterator_on_self": ["test_sharding.py::test_range_without_workers_yields_0_to_n_minus_1"],
    "wrong/sharding/range_yields_numpy_ints": ["test_sharding.py::test_range_yields_python_ints"],
    "wrong/sharding/range_not_sharded": ["test_sharding.py::test_two_workers_yield_each_integer_exactly_once",
                                         "lab a: sharded: each integer exactly once, the count not a multiple of the workers"],
    "wrong/sharding/range_chunks_drop_remainder": ["test_sharding.py::test_fewer_items_than_workers",
                                                   "lab a: sharded: each integer exactly once, fewer integers than workers"],
    "wrong/sharding/range_special_cases_fewer_than_workers": [
        "lab a: sharded: each integer exactly once, the count not a multiple of the workers"],
    "wrong/sharding/blocks_drop_the_remainder": ["test_sharding.py::test_remainders_each_integer_exactly_once"],
    "wrong/sharding/files_keep_newline": ["test_sharding.py::test_files_without_workers_yield_every_line_in_order",
                                          "test_sharding.py::test_files_bom_and_other_line_boundaries_either_way"],
    "wrong/sharding/files_strip_whitespace": ["test_sharding.py::test_files_remove_only_the_line_ending"],
    "wrong/sharding/files_sorted_paths": ["test_sharding.py::test_files_in_the_order_given"],
    "wrong/sharding/files_read_whole": ["test_sharding.py::test_files_read_line_by_line"],
    "wrong/sharding/files_ignore_rank": ["test_sharding.py::test_files_two_ranks_split_the_files"],
    "wrong/sharding/files_sharded_in_init": ["test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once"],
    "wrong/sharding/files_reader_index_swapped": ["test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once"],
    "wrong/sharding/files_ignore_workers": ["test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once"],
    "wrong/seeding/worker_info_without_none_check": ["test_seeding.py::test_outside_a_worker_seeds_numpy_and_random"],
    "wrong/seeding/modulo_2_31": ["test_seeding.py::test_outside_a_worker_the_seed_is_torch_seed_modulo_2_32"],
    "wrong/seeding/returns_the_seed": ["test_seeding.py::test_returns_none"],
    "wrong/seeding/forgets_dataset_rng": ["test_seeding.py::test_in_workers_every_rng_is_seeded_from_the_torch_seed",
                                          "lab b: workers draw different masks", "lab b: epochs draw new masks"],
    "wrong/seeding/seed_from_worker_id": ["test_seeding.py::test_reruns_repeat_workers_differ_epochs_differ"],
    "wrong/seeding/rng_unseeded": ["lab b: reruns identical"],
    "wrong/seeding/adds_rng_to_every_dataset": ["test_seeding.py::test_a_dataset_without_rng_gets_none"],
    "wrong/seeding/rng_none_not_replaced": ["test_seeding.py::test_a_dataset_whose_rng_is_none_gets_one"],
    "wrong/seeding/rng_only_in_instance_dict": ["test_seeding.py::test_a_dataset_whose_class_defines_rng_gets_one_of_its_own"],
    "wrong/bucketing/no_value_error": ["test_bucketing.py::test_rejects_sizes_below_one"],
    "wrong/bucketing/len_ignores_drop_last": ["test_bucketing.py::test_len_counts_the_batches_of_an_epoch"],
    "wrong/bucketing/yields_tensors": ["test_bucketing.py::test_one_epoch_covers_every_index_once_in_lists_of_ints"],
    "wrong/bucketing/iter_ignores_drop_last": ["test_bucketing.py::test_drop_last_drops_only_the_short_batch"],
    "wrong/bucketing/sorts_indices_not_lengths": ["test_bucketing.py::test_a_pool_larger_than_the_data_gives_sorted_slices",
                                                  "test_bucketing.py::test_bucketing_cuts_padding",
                                                  f"lab c: {PADDING_CLAIM}"],
    "wrong/bucketing/no_batch_shuffle": ["test_bucketing.py::test_batch_order_is_shuffled",
                                         "lab c: batches come in a shuffled order, not pool by pool"],
    "wrong/bucketing/random_shuffle_batches": ["lab c: the generator decides: its seed replays the epochs, and each epoch differs"],
    "wrong/bucketing/global_rng_with_generator": ["test_bucketing.py::test_global_rngs_untouched_with_a_generator",
                                                  "lab c: the generator decides: its seed replays the epochs, and each epoch differs"],
    "wrong/bucketing/short_batch_always_last": ["test_bucketing.py::test_the_short_batch_is_shuffled_too"],
    "wrong/bucketing/len_counts_an_epoch": ["test_bucketing.py::test_len_draws_nothing_from_the_generator"],
    "wrong/bucketing/randomness_drawn_in_init": ["test_bucketing.py::test_same_seed_replays_and_epochs_differ"],
    "wrong/bucketing/pools_from_unshuffled_indices": ["test_bucketing.py::test_epochs_regroup_the_indices"],
    "wrong/bucketing/numpy_when_no_generator": ["test_bucketing.py::test_without_a_generator_epochs_follow_torchs_global_seed"],
    "wrong/bucketing/global_sort_no_shuffle": ["test_bucketing.py::test_one_batch_pools_pad_like_random_batches",
                                               "lab c: pools of one batch pad like random batches"],
    "wrong/tokens/len_one_too_long": ["test_tokens.py::test_len_counts_the_windows_that_fit"],
    "wrong/tokens/y_not_shifted": ["test_tokens.py::test_a_window_is_x_and_y_shifted_by_one",
                                   "test_tokens.py::test_pin_memory_loader_gives_the_documented_batches"],
    "wrong/tokens/negative_index_rejected": ["test_tokens.py::test_negative_and_out_of_range_indices"],
    "wrong/tokens/accepts_zero_stride": ["test_tokens.py::test_rejects_sizes_below_one"],
    "wrong/tokens/no_size_check": ["test_tokens.py::test_rejects_a_file_that_is_not_whole_tokens"],
    "wrong/tokens/dtype_ignored": ["test_tokens.py::test_other_dtypes"],
    "wrong/tokens/no_getstate": ["test_tokens.py::test_pickles_small_after_use", "lab d: pickles small after use"],
    "wrong/tokens/getitems_returns_stacked_batch": ["test_tokens.py::test_getitems_returns_the_per_item_windows"],
    "wrong/tokens/getitems_wraps_out_of_range": ["test_tokens.py::test_getitems_rejects_an_index_out_of_range"],
    "wrong/tokens/getitems_item_by_item": ["test_tokens.py::test_getitems_reads_no_more_than_read_batch",
                                           "lab d: __getitems__ reads the memmap once per batch"],
    "wrong/tokens/read_batch_item_by_item": ["test_tokens.py::test_read_batch_gathers_the_batch_in_one_read",
                                             "lab d: read_batch reads the memmap once per batch"],
    "wrong/tokens/read_batch_y_is_x": ["test_tokens.py::test_read_batch_stacks_the_per_item_windows"],
    "wrong/tokens/read_batch_wraps_out_of_range": ["test_tokens.py::test_read_batch_rejects_an_index_out_of_range"],
    "wrong/tokens/read_batch_keeps_a_lock": ["test_tokens.py::test_whole_batches_in_worker_processes"],
    "wrong/tokens/fromfile_in_init": ["test_tokens.py::test_never_reads_the_file_whole"],
    "wrong/tokens/getstate_drops_the_attribute": ["test_tokens.py::test_same_batches_in_worker_processes"],
    "wrong/tokens/getitems_stack_fails_on_empty": ["test_tokens.py::test_getitems_of_no_index_is_empty_even_for_an_empty_file"],
    "wrong/tokens/memmap_opened_in_init": ["lab d: pickles small right after __init__",
                                           "test_tokens.py::test_read_batch_of_no_index_has_no_rows_even_for_an_empty_file"],
    "wrong/bucketing/drop_last_empty_dataset_crashes": ["test_bucketing.py::test_empty_lengths_yield_no_batch"],
    "wrong/bucketing/drop_last_truncates_permutation": ["test_bucketing.py::test_drop_last_drops_an_end_of_the_sorted_pool"],
    "wrong/bucketing/merges_small_final_pool": ["test_bucketing.py::test_a_final_pool_smaller_than_a_batch_stays_a_pool"],
    "wrong/bucketing/none_batch_order_from_fresh_generator": ["test_bucketing.py::test_without_a_generator_one_pool_gets_a_new_batch_order"],
    "wrong/collate/lengths_in_input_dtype": ["test_collate.py::test_narrow_sequences_longer_than_their_dtype_holds"],
    "wrong/collate/labels_are_input_ids_without_padding": ["test_collate.py::test_the_three_tables_share_no_memory"],
    "wrong/collate/real_zeros_become_pad": ["test_collate.py::test_a_real_zero_stays_a_zero_with_another_pad_id"],
    "wrong/sharding/files_bom_stripped_every_line": ["test_sharding.py::test_files_a_mark_inside_a_file_is_kept"],
    "wrong/sharding/range_caches_shard_on_first_iter": ["test_sharding.py::test_workers_shard_after_a_pass_in_the_main_process"],
    "wrong/sharding/range_numpy_ints_in_workers": ["test_sharding.py::test_range_yields_python_ints_in_workers"],
    "wrong/seeding/rng_replaced_only_if_generator_or_none": ["test_seeding.py::test_an_rng_of_another_type_is_replaced_too"],
    "wrong/tokens/pickles_last_window_cache": ["test_tokens.py::test_pickles_small_after_reading_a_long_window"],
    "wrong/tokens/len_opens_memmap_fails_on_empty": ["test_tokens.py::test_len_of_an_empty_file_is_0"],
    "wrong/tokens/int64_windows_view_the_memmap": ["test_tokens.py::test_windows_of_an_int64_file_are_their_own_tensors"],
    "wrong/tokens/size_check_assumes_two_bytes": ["test_tokens.py::test_rejects_a_file_that_is_not_whole_tokens_of_its_dtype"],
    "wrong/tokens/widens_through_int32": ["test_tokens.py::test_uint32_ids_beyond_int32_come_back_exact"],
    "wrong/tokens/getitems_pairs_as_lists": ["test_tokens.py::test_getitems_gives_tuples_equal_to_the_per_item_reads"],
    # Caught only by worker tests: named, so that the run is that test, not every worker test that passes before it.
    "wrong/sharding/files_rank_dropped_with_workers": ["test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once"],
    "wrong/sharding/files_reader_rank_plus_worker": ["test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once"],
    "wrong/sharding/files_step_ignores_workers": ["test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once"],
    "wrong/sharding/range_blocks_ceil_overshoot": ["test_sharding.py::test_remainders_each_integer_exactly_once"],
    "wrong/sharding/range_blocks_rounded_size": ["test_sharding.py::test_remainders_each_integer_exactly_once"],
    "wrong/seeding/rng_set_on_class_when_class_attr": ["test_seeding.py::test_a_dataset_whose_class_defines_rng_gets_one_of_its_own"],
}


def public_test_functions() -> list[str]:
    """Every public test but the lab's (file::function, file relative to tests/): what WITNESSES must cover."""
    return [f"{path.name}::{name}" for path in sorted((REPO / "tests").glob("test_*.py")) if path.name != "test_lab.py"
            for name in functions(path, "test_")]


def lab_claims() -> list[str]:
    """Every [ok] line of the lab, as "lab <letter>: <claim>"."""
    return [f"lab {letter}: {claim}" for letter, claims in EXPECTATIONS.items() for claim, _ in claims]


def test_every_public_test_and_lab_claim_has_a_witness():
    witnessed = {item for items in WITNESSES.values() for item in items}
    missing = [t for t in public_test_functions() + lab_claims() if t not in witnessed]
    assert not missing, f"these pass on every wrong answer named in WITNESSES: give each a wrong answer it fails on: {missing}"
    unknown = sorted(witnessed - set(public_test_functions()) - set(lab_claims()))
    assert not unknown, f"WITNESSES names public tests or lab claims that do not exist: {unknown}"
    wrong = {e.id: e for e in corpus.entries("wrong")}
    assert set(WITNESSES) <= set(wrong), f"WITNESSES names answers the corpus lacks: {sorted(set(WITNESSES) - set(wrong))}"
    hidden = [answer for answer in WITNESSES if wrong[answer].hidden]
    assert not hidden, f"a witness cannot be hidden from the public tests: {hidden}"


@pytest.fixture(scope="module")
def preloaded_pytest():
    """A preloaded pytest server for this module's runs (see preloaded_pytest.py)."""
    with PreloadedPytest(REPO) as runner:
        yield runner


def _param(entry):
    marks = [pytest.mark.slow, pytest.mark.timeout(300)]
    if entry.hidden:
        marks.append(pytest.mark.xfail(strict=True, reason=f"hidden on purpose: {entry.hidden}"))
    return pytest.param(entry, id=entry.id, marks=marks)


def run_public_tests(runner: PreloadedPytest, entry, tmp_path: Path, args: list[str]) -> tuple[int, Path, str]:
    """(exit status, JUnit report, pytest's last lines) of ``pytest ARGS --impl <package>`` on the entry."""
    corpus.assemble_package(entry, tmp_path / PACKAGE)
    report = tmp_path / "junit.xml"
    args = [*args, "--impl", PACKAGE, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"--junitxml={report}"]
    code, output = runner.run(args, pythonpath=tmp_path, output=tmp_path / "pytest.log", timeout=280)
    if code not in (0, 1):
        pytest.fail(f"the public tests could not run on {entry.id} (exit {code}):\n{output[-2000:]}")
    return code, report, "\n".join(output.strip().splitlines()[-3:])


def witnessed_outcomes(report: Path) -> tuple[set[str], set[str]]:
    """(the public tests that failed, as file::function; the lab claims not shown, as "lab <letter>: <claim>")."""
    failed, not_shown = set(), set()
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("name", "")
        test = f"{case.get('classname', '').rpartition('.')[2]}.py::{name.partition('[')[0]}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed.add(test)
        for prop in case.iter("property"):
            if prop.get("name") == "claims_not_shown" and prop.get("value"):
                letter = name.partition("[")[2][:1]
                not_shown |= {f"lab {letter}: {claim}" for claim in prop.get("value").split("; ")}
    return failed, not_shown


def witness_args(entry, items: list[str]) -> list[str]:
    """The pytest arguments that run ``items`` on the entry: its public tests, and its exercise's experiment once
    (the lab's test, selected by the exercise's marker)."""
    tests = [f"tests/{item}" for item in items if not item.startswith("lab ")]
    lab = [LAB_TEST] if any(item.startswith("lab ") for item in items) else []
    return [*tests, *lab, "-m", entry.exercise]


@pytest.mark.parametrize("entry", [_param(e) for e in corpus.entries("wrong")])
def test_public_tests_catch_wrong_answer(entry, tmp_path, preloaded_pytest):
    items = WITNESSES.get(entry.id)
    if not items:
        # The tests that start no worker first (seconds), then, only where they all pass, those that do.
        for number, marker in enumerate((f"{entry.exercise} and not workers", f"{entry.exercise} and workers")):
            code, _, tail = run_public_tests(preloaded_pytest, entry, tmp_path / f"run-{number}", ["tests", "-m", marker, "-x"])
            if code == 1:
                break
        assert code == 1, f"the public tests of {entry.exercise} pass on {entry.id} ({entry.claim}); the grader would charge it:\n{tail}"
        return
    code, report, tail = run_public_tests(preloaded_pytest, entry, tmp_path, witness_args(entry, items))
    failed, not_shown = witnessed_outcomes(report)
    missed = [item for item in items if item not in (not_shown if item.startswith("lab ") else failed)]
    assert not missed, (f"{entry.id} ({entry.claim}) is the witness of {missed}, but they pass on it (a lab claim: its "
                        f"experiment printed [ok]); each public test and lab claim must fail on some wrong answer:\n{tail}")
