"""How sure a run is of its numbers: a cell's median and its interval, when to stop measuring
it, which differences between cells hold, and what moved between two runs.

A cell is measured in rounds (runner.py): every round takes each cell of a comparison set
once, in a shuffled order, so that a machine that drifts over minutes moves every compared cell
alike. A round's observation of a cell is the mean of its measured repetitions in that round
(several when one is shorter than the plan's min_sample_ms, as criterion and JMH batch
iterations). Everything here works on those observations, on a log scale where it compares:

- a cell's figure is the median of its rounds' observations; its 95 % interval is the
  distribution-free one of order statistics (the sign test's), which needs MIN_CI_ROUNDS;
- a cell gets `rounds_min` rounds, then stops when that interval's half-width is within the
  plan's `ci_target` of the median (`precision`), or at `rounds_max`, or when its comparison
  set has measured `time_cap_s` since its first round (warm-ups are the first round's);
- two cells of one run differ when the mean of their per-round log ratios (paired: the drift
  cancels) is away from 0 by more than chance allows: Student's t times the root of the
  paired mean's variance plus both cells' process-to-process variance (the machine's, from
  `serbench selfcheck`, or the defaults measured here), which no number of rounds in one
  process averages away;
- two runs differ in a cell when its log ratio, less the run-wide shift of its task, is away
  from 0 by more than CELL_Z times the root of its within-run variance plus the between-run
  variance of its task's cells (estimated robustly from the comparison itself).

Pure functions; the thresholds are named with the measurement behind them.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The two-sided 95 % normal quantile, and Student's t at 95 % (df 1-30; beyond, the first
# term of its expansion in 1/df): a mean from three rounds is far less sure than from thirty.
Z95 = 1.96
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
# The standard error of a median is ~1.2533 times that of a mean, and 1.4826 x the median
# absolute deviation estimates a normal spread: together a robust standard error of the median.
MEDIAN_SE = 1.2533
MAD_SIGMA = 1.4826
# The distribution-free 95 % interval of a median exists from 6 observations (min-max covers
# 1 - 2 * 0.5^6 = 96.9 %).
MIN_CI_ROUNDS = 6
# serbench compare flags a cell at the 99 % level: on two identical runs of this VM the cells'
# residuals have heavier tails than a normal (bursts of a neighbour VM), and at 95 % more than
# 5 % of them were flagged.
CELL_Z = 2.576
# The between-run spread is read at this quantile of the cells' deviations: run-to-run
# residuals have heavier tails than a normal's, so the median deviation (0.5) understates
# them. Two identical runs of a Rust-only plan (s0-1..s0-5, 391 cells each): 15-25 cells
# flagged at 0.5 (up to 6.4 %), 10-14 at 0.8 (at most 3.6 %); the default plan (r3/r4,
# r6/r7): 42-44 of 1,203 at 0.5, 17-39 at 0.8.
SPREAD_QUANTILE = 0.8
# A method is flagged when its cells' mean residual stands this many robust deviations away
# from the other methods' means (a method-wide change: one process per model serves all of a
# method's cells, so its cells are not independent; the methods' spread says how far a
# method's mean wanders by chance).
METHOD_Z = 3.0
# Fewer cells than this in a task: its shift and spread come from the whole run's cells.
MIN_TASK_CELLS = 8
# A whole-run shift smaller than this is not called out as the machine's.
SHIFT_NOTE = 0.02


def t_quantile(df: int) -> float:
    if df < 1:
        return math.inf
    return T95[df - 1] if df <= len(T95) else Z95 + (Z95 ** 3 + Z95) / (4 * df)


# -- one cell --------------------------------------------------------------------------------

def observations(samples: Sequence[dict]) -> dict[int, float]:
    """Round -> the mean total_ns of the round's measured repetitions. Samples without a round
    (a run from before rounds, or a cell measured in one request) count as one round each."""
    rounds: dict[int, list[int]] = {}
    for i, s in enumerate(s for s in samples if not s["warmup"]):
        rounds.setdefault(s.get("round", -1 - i), []).append(s["total_ns"])
    return {r: sum(times) / len(times) for r, times in rounds.items()}


def median_interval(values: Sequence[float]) -> tuple[float, float] | None:
    """The distribution-free interval of the median at >= 95 % (order statistics k and n-k+1,
    k the largest with P(Binomial(n, 1/2) < k) <= 2.5 %); None below MIN_CI_ROUNDS values."""
    n = len(values)
    if n < MIN_CI_ROUNDS:
        return None
    ordered = sorted(values)
    k, below = 0, 0.0
    while True:  # below = P(X <= k - 1) for X ~ Binomial(n, 1/2); grow k while it stays small
        next_below = below + math.comb(n, k) / 2 ** n
        if next_below > 0.025:
            break
        below, k = next_below, k + 1
    return ordered[k - 1], ordered[n - k]


def relative_half_width(values: Sequence[float]) -> float | None:
    """The median interval's larger half over the median; None when there is no interval."""
    interval = median_interval(values)
    if interval is None:
        return None
    middle = statistics.median(values)
    if middle <= 0:
        return math.inf
    return max(middle - interval[0], interval[1] - middle) / middle


@dataclass(frozen=True)
class StopRule:
    ci_target: float     # relative half-width of the median's 95 % interval that suffices
    rounds_min: int
    rounds_max: int
    time_cap_s: float    # per comparison set


PRECISION, ROUNDS_MAX, TIME_CAP = "precision", "rounds_max", "time_cap"


def stop_reason(values: Sequence[float], rule: StopRule, elapsed_s: float) -> str | None:
    """Why a cell measured so far needs no more rounds, or None to go on. Every cell gets
    rounds_min rounds; then precision, rounds_max or the time cap (`elapsed_s`: the set's
    time since its first round, whose warm-ups it does not count) end it. Precision first: a
    cell that reached it says so even when the cap came at the same round."""
    rounds = len(values)
    if rounds < rule.rounds_min:
        return None
    width = relative_half_width(values)
    if width is not None and width <= rule.ci_target:
        return PRECISION
    if rounds >= rule.rounds_max:
        return ROUNDS_MAX
    if elapsed_s >= rule.time_cap_s:
        return TIME_CAP
    return None


def repetitions_per_round(repetition_ns: float, min_sample_ns: float, asked: int,
                          most: int = 64) -> int:
    """Enough repetitions that a round's observation lasts min_sample_ns (at least `asked`):
    a sample of a few microseconds is mostly timer and scheduler."""
    if repetition_ns <= 0:
        return asked
    return max(asked, min(most, math.ceil(min_sample_ns / repetition_ns)))


# -- two cells of one run --------------------------------------------------------------------

def paired_log_ratios(a: dict[int, float], b: dict[int, float]) -> list[float]:
    """log(a / b) per round both measured (rounds >= 0: real rounds, not single samples)."""
    return [math.log(a[r] / b[r]) for r in sorted(a.keys() & b.keys())
            if r >= 0 and a[r] > 0 and b[r] > 0]


def robust_se(values: Sequence[float]) -> float:
    """The standard error of the median of `values` (robust; 0 for fewer than two)."""
    if len(values) < 2:
        return 0.0
    middle = statistics.median(values)
    mad = statistics.median(abs(v - middle) for v in values)
    if mad == 0:  # a few identical values: the sample's own spread, not zero
        mad = statistics.pstdev(values) / MAD_SIGMA
    return MEDIAN_SE * MAD_SIGMA * mad / math.sqrt(len(values))


@dataclass(frozen=True)
class Difference:
    log_ratio: float   # log(a / b): > 0 means a is slower
    bound: float       # how far from 0 it must be to count
    paired: bool       # from shared rounds (else from each cell's own rounds)

    @property
    def distinct(self) -> bool:
        return abs(self.log_ratio) > self.bound


def difference(a: dict[int, float], b: dict[int, float], noise_a: float,
               noise_b: float | None = None) -> Difference:
    """Do cells a and b (round -> observation) of one run differ? A t-test on the log scale:
    paired on the rounds both measured (the drift cancels), else Welch's on each cell's own
    rounds; each cell's process noise (the standard deviation, on the log scale, of its figure
    from one process and run to another; `noise_b` defaults to `noise_a`) adds its variance."""
    pairs = paired_log_ratios(a, b)
    between = noise_a ** 2 + (noise_a if noise_b is None else noise_b) ** 2
    if len(pairs) >= 2:
        se2 = statistics.variance(pairs) / len(pairs)
        return Difference(statistics.fmean(pairs),
                          t_quantile(len(pairs) - 1) * math.sqrt(se2 + between), True)
    logs_a = [math.log(v) for v in a.values() if v > 0]
    logs_b = [math.log(v) for v in b.values() if v > 0]
    if len(logs_a) < 2 or len(logs_b) < 2:
        return Difference(0.0, math.inf, False)
    se2 = (statistics.variance(logs_a) / len(logs_a)
           + statistics.variance(logs_b) / len(logs_b))
    df = min(len(logs_a), len(logs_b)) - 1  # Welch's degrees of freedom, bounded below
    return Difference(statistics.fmean(logs_a) - statistics.fmean(logs_b),
                      t_quantile(df) * math.sqrt(se2 + between), False)


def tied_sets(items: Sequence, figure: Callable, differ: Callable) -> list[list]:
    """`items` in order of `figure`, cut into sets: a new set begins at the first item that
    `differ(first, item)` sets apart from the current set's first (fastest) member. Chaining
    neighbours instead (a ≈ b and b ≈ c, so one set) let a crowd of close rows tie the
    fastest with one 20 % slower: a method slowed on purpose by 14-19 % was ranked below the
    unchanged one in 5 of 39 cells that way, in 26 of 39 this way, while two identical runs
    reversed 0.5 % of the pairs it ranks apart (development VM, runs r6 and r7)."""
    ordered = sorted(items, key=figure)
    sets: list[list] = []
    for item in ordered:
        if sets and not differ(sets[-1][0], item):
            sets[-1].append(item)
        else:
            sets.append([item])
    return sets


# -- two runs --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Shift:
    ratio: float       # B / A, the median over the cells
    low: float         # its 95 % interval (distribution-free, over cells)
    high: float
    cells: int

    @property
    def established(self) -> bool:
        return (self.low > 1 or self.high < 1) and abs(math.log(self.ratio)) >= \
            math.log1p(SHIFT_NOTE)


def shift(log_ratios: Sequence[float]) -> Shift | None:
    """The run-wide shift: the median ratio over cells, with its interval (or min-max)."""
    if not log_ratios:
        return None
    interval = median_interval(log_ratios) or (min(log_ratios), max(log_ratios))
    middle = statistics.median(log_ratios)
    return Shift(math.exp(middle), math.exp(interval[0]), math.exp(interval[1]),
                 len(log_ratios))


def between_run_sigma(residuals: Sequence[float], within_var: Sequence[float]) -> float:
    """The spread of cells' shift-corrected log ratios beyond what their own rounds explain,
    read off the SPREAD_QUANTILE of their absolute deviations as a normal's would be: robust
    to the cells that really changed as long as they are fewer than 1 - SPREAD_QUANTILE."""
    if len(residuals) < 2:
        return 0.0
    middle = statistics.median(residuals)
    deviations = sorted(abs(r - middle) for r in residuals)
    at = deviations[min(len(deviations) - 1, int(SPREAD_QUANTILE * len(deviations)))]
    spread = at / statistics.NormalDist().inv_cdf(0.5 + SPREAD_QUANTILE / 2)
    return math.sqrt(max(0.0, spread ** 2 - statistics.median(within_var)))


def cell_verdict(residual: float, within_var: float, sigma: float, z: float = CELL_Z) -> str:
    bound = z * math.sqrt(within_var + sigma ** 2)
    return "slower" if residual > bound else "faster" if residual < -bound else "no difference"


def cell_within_var(a: dict[int, float], b: dict[int, float]) -> float:
    """The variance of log(median B / median A) from each run's own rounds."""
    return sum(robust_se([math.log(v) for v in side.values() if v > 0]) ** 2
               for side in (a, b))


def outlying(means: dict, z: float = METHOD_Z) -> dict:
    """The keys whose mean lies more than z robust deviations from the median of the means,
    with their robust z (needs three or more means)."""
    if len(means) < 3:
        return {}
    values = list(means.values())
    middle = statistics.median(values)
    spread = MAD_SIGMA * statistics.median(abs(v - middle) for v in values)
    if spread == 0:
        spread = statistics.pstdev(values) or math.inf
    scores = {key: (value - middle) / spread for key, value in means.items()}
    return {key: score for key, score in scores.items() if abs(score) > z}
