"""The statistics behind rounds, ranks and compare, on hand-made samples: the median's
interval, the stopping rule, paired differences under drift, tied sets, the run-wide shift and
the verdicts of cells and methods."""
from __future__ import annotations

import math
import random

import pytest

from serbench import stats
from serbench.stats import StopRule


def test_the_median_interval_is_the_sign_tests_order_statistics():
    assert stats.median_interval([5, 1, 4, 2, 3]) is None, "five values: no 95 % interval"
    assert stats.median_interval([6, 1, 5, 2, 4, 3]) == (1, 6), "six: min-max covers 96.9 %"
    # n = 20: P(X <= 5) = 2.07 % for Binomial(20, 1/2), P(X <= 6) = 5.8 %: x(6) and x(15)
    assert stats.median_interval(list(range(1, 21))) == (6, 15)
    # n = 100: the textbook ranks 40 and 61
    assert stats.median_interval(list(range(1, 101))) == (40, 61)


def test_the_median_interval_covers_the_true_median_at_least_95_percent():
    rng = random.Random(7)
    for n in (6, 9, 15, 30):
        hits = 0
        for _ in range(2000):
            values = [rng.lognormvariate(0, 0.3) for _ in range(n)]
            low, high = stats.median_interval(values)
            hits += low <= 1 <= high
        assert hits / 2000 >= 0.94, n  # >= 95 % by construction, less the simulation's noise


def test_relative_half_width_is_the_larger_half_over_the_median():
    assert stats.relative_half_width([100, 90, 110, 95, 105, 100]) == pytest.approx(0.10)
    assert stats.relative_half_width([100] * 4) is None


RULE = StopRule(ci_target=0.05, rounds_min=6, rounds_max=10, time_cap_s=30)


def test_a_cell_stops_for_precision_once_its_interval_is_narrow_enough():
    tight = [100, 101, 99, 100, 102, 98]
    assert stats.stop_reason(tight[:5], RULE, 1) is None, "below rounds_min"
    assert stats.stop_reason(tight, RULE, 1) == stats.PRECISION


def test_a_noisy_cell_goes_on_until_rounds_max_or_the_time_cap():
    noisy = [100, 150, 80, 120, 60, 140]
    assert stats.stop_reason(noisy, RULE, 1) is None
    assert stats.stop_reason(noisy * 2, RULE, 1) == stats.ROUNDS_MAX
    assert stats.stop_reason(noisy, RULE, 31) == stats.TIME_CAP
    assert stats.stop_reason(noisy[:5], RULE, 31) is None, "the cap never cuts rounds_min"


def test_precision_wins_when_it_comes_with_the_cap():
    assert stats.stop_reason([100] * 6, RULE, 99) == stats.PRECISION


def test_repetitions_per_round_fill_the_minimum_sample_time():
    assert stats.repetitions_per_round(100_000, 2e6, 1) == 20
    assert stats.repetitions_per_round(5e6, 2e6, 3) == 3, "already long enough"
    assert stats.repetitions_per_round(10, 2e6, 1) == 64, "capped"
    assert stats.repetitions_per_round(0, 2e6, 2) == 2


def drifting_rounds(true_ns: float, rounds: int, drift: float, seed: int,
                    noise: float = 0.02) -> dict[int, float]:
    """A cell's round observations on a machine whose speed drifts linearly by `drift` over
    the rounds (every cell of a round sees the same machine), with small noise."""
    rng = random.Random(seed)
    return {r: true_ns * (1 + drift * r / rounds) * rng.lognormvariate(0, noise)
            for r in range(rounds)}


def test_a_paired_difference_sees_through_a_drift_that_hides_it_unpaired():
    a = drifting_rounds(110, 12, drift=0.8, seed=1)  # 10 % slower than b
    b = drifting_rounds(100, 12, drift=0.8, seed=2)
    paired = stats.difference(a, b, noise_a=0.0)
    assert paired.paired and paired.distinct and paired.log_ratio == pytest.approx(
        math.log(1.1), abs=0.03)
    # the same observations without rounds in common: the drift's spread swamps the 10 %
    unpaired = stats.difference({-1 - r: v for r, v in a.items()}, b, noise_a=0.0)
    assert not unpaired.paired and not unpaired.distinct


def test_process_to_process_noise_widens_the_bound_a_difference_must_clear():
    a = drifting_rounds(105, 12, drift=0, seed=3, noise=0.005)
    b = drifting_rounds(100, 12, drift=0, seed=4, noise=0.005)
    assert stats.difference(a, b, noise_a=0.0).distinct
    assert not stats.difference(a, b, noise_a=0.03).distinct, "5 % < 1.96 * 4.2 %"


def test_equal_cells_are_seldom_called_distinct():
    """Two equal cells on a drifting machine, every round seen by both: at most the test's
    5 % of false differences (a little more for the simulation's noise)."""
    rng = random.Random(11)
    distinct = 0
    for _ in range(400):
        drift = rng.uniform(-0.5, 0.5)
        machine = [1 + drift * r / 8 for r in range(8)]
        a = {r: 100 * m * rng.lognormvariate(0, 0.03) for r, m in enumerate(machine)}
        b = {r: 100 * m * rng.lognormvariate(0, 0.03) for r, m in enumerate(machine)}
        distinct += stats.difference(a, b, noise_a=0.0).distinct
    assert distinct / 400 <= 0.08


def test_tied_sets_cut_where_a_row_is_set_apart_from_its_sets_fastest():
    figures = {"a": 1.0, "b": 1.02, "c": 1.5, "d": 1.52, "e": 3.0}
    sets = stats.tied_sets(list(figures), figures.get,
                           lambda x, y: figures[y] / figures[x] > 1.1)
    assert sets == [["a", "b"], ["c", "d"], ["e"]]
    # each step small, but c is set apart from a: a crowd does not chain into one tie
    crowd = {"a": 1.0, "b": 1.06, "c": 1.12, "d": 1.18, "e": 1.24}
    assert stats.tied_sets(list(crowd), crowd.get,
                           lambda x, y: crowd[y] / crowd[x] > 1.1) == \
        [["a", "b"], ["c", "d"], ["e"]]


def test_the_run_wide_shift_is_the_median_ratio_with_its_interval():
    rng = random.Random(5)
    logs = [math.log(0.93) + rng.gauss(0, 0.05) for _ in range(200)]
    shift = stats.shift(logs)
    assert shift.ratio == pytest.approx(0.93, abs=0.01)
    assert shift.low < shift.ratio < shift.high < 1 and shift.established
    assert not stats.shift([rng.gauss(0, 0.05) for _ in range(200)]).established


def test_between_run_sigma_ignores_a_few_cells_that_really_changed():
    rng = random.Random(9)
    residuals = [rng.gauss(0, 0.05) for _ in range(200)] + [0.5] * 10
    sigma = stats.between_run_sigma(residuals, [0.0] * 210)
    assert 0.04 < sigma < 0.065
    assert stats.between_run_sigma(residuals, [0.05 ** 2] * 210) < 0.03, \
        "what the rounds explain is not between-run"


def test_cell_verdicts_clear_the_within_and_between_run_noise():
    assert stats.cell_verdict(0.30, 0.0001, 0.05) == "slower"
    assert stats.cell_verdict(-0.30, 0.0001, 0.05) == "faster"
    assert stats.cell_verdict(0.10, 0.0001, 0.05) == "no difference", "2.576 * 5 % = 13 %"


def test_a_method_whose_every_cell_moved_stands_out_among_the_methods():
    rng = random.Random(3)
    means = {f"m{i}": rng.gauss(0, 0.02) for i in range(20)}
    means["slowed"] = 0.18
    assert set(stats.outlying(means)) == {"slowed"}
    assert stats.outlying({"a": 0.1, "b": 0.2}) == {}, "too few to tell"


def test_observations_are_the_round_means_of_measured_repetitions():
    samples = [{"warmup": True, "total_ns": 999, "round": 0},
               {"warmup": False, "total_ns": 10, "round": 0},
               {"warmup": False, "total_ns": 20, "round": 0},
               {"warmup": False, "total_ns": 40, "round": 1}]
    assert stats.observations(samples) == {0: 15, 1: 40}
    legacy = [{"warmup": False, "total_ns": t} for t in (5, 6)]
    assert sorted(stats.observations(legacy).values()) == [5, 6]
    assert all(r < 0 for r in stats.observations(legacy)), "no round to pair on"
