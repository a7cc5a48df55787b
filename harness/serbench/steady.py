"""Was a cell measured at steady state? Judged from its measured samples, for every language.

Three signs that it was not, as JMH and criterion look for them:

- the JIT was still compiling: a driver with a JIT reports per sample the milliseconds its
  compiler threads spent during that repetition (`jit_ms`, PROTOCOL.md section 5); more than
  JIT_SHARE of the measured time spent compiling means the code being timed was still changing;
- the JIT's compiler threads were on a CPU: `jit_ms` (the JVM's CompilationMXBean) counts a
  compile only when it ends, so a long C2 compile running through the measured repetitions and
  ending after them is not in it; a driver that can also reports its compiler threads' CPU time
  per sample (`jit_cpu_ns`), which counts it while it runs. Judged by the same share;
- a drift: the times of the repetitions move one way (still warming up, or slowing down as a
  heap or a cache fills), by at least DRIFT_SHARE of the median from the first third of the
  repetitions to the last. With MIN_TEST or more repetitions of one process the drift must be
  significant by Spearman's rank correlation with the repetition number (two-sided, 1 %);
  with MIN_TREND to MIN_TEST - 1 it must be strictly monotonic, which noise alone does with
  probability 2/n! (1.7 % for five). Fewer than MIN_TREND say nothing about a trend: three
  noisy repetitions are monotonic one time in three.

Samples pooled from several processes (forks) are judged per process: each has its own JIT
and warm-up. A network cell's samples (each carrying every node's figures under `nodes`) come
from fresh nodes every round, so each round is judged apart, and every node with a JIT (a
Java node reports `jit_ms` and `jit_cpu_ns` per repetition, PROTOCOL.md 10.4) is judged by
the same share of the cell's measured time: a server still compiling slows the client's
timed fetch as surely as the client compiling would. A cell with fewer than MIN_TREND
measured repetitions per process and no JIT figure cannot be judged; it says so instead of
passing for steady.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median

JIT_SHARE = 0.02
JIT_MIN_MS = 2
# Compiler-thread CPU is read in ns. Java micro of trade (loaded 2-core VM): cells warmed 6 s
# read exactly 0 in every measured repetition, cells still compiling 0.7-12 ms each (avro,
# java_builtin, 8-20x their warmed times). JIT_CPU_MIN_MS over a whole region leaves room for
# an odd small compile of a cold branch; the share is JIT_SHARE, as in the driver's warm-up.
JIT_CPU_MIN_MS = 2
DRIFT_SHARE = 0.10
# a warm-up ends after this long of repetitions compiling at most JIT_SHARE (the Java
# driver's QUIET_WINDOW_NS): one short repetition can fall between two compiles (a fresh
# 7-JVM test tree: a 17 ms repetition quiet, a later one compiling 11 ms on a leaf)
QUIET_WINDOW_NS = 100_000_000
MIN_TREND = 5
MIN_TEST = 8
Z_1_PERCENT = 2.576  # two-sided


@dataclass(frozen=True)
class Steadiness:
    steady: bool | None  # None: could not be judged
    note: str            # why, in a phrase a report can show


def judge(samples: list[dict]) -> Steadiness:
    """The verdict over a cell's samples (warm-ups are ignored)."""
    measured = [s for s in samples if not s["warmup"]]
    if not measured:
        return Steadiness(None, "no measured repetitions")
    jitted = [("", measured), *_jit_nodes(measured)]
    problems = [p for p in (*(_jit_problems(name, own) for name, own in jitted),
                            *map(_drift_problem, _per_process(measured))) if p]
    if problems:
        return Steadiness(False, "; ".join(problems))
    judged = any(_jit_ms(own) is not None or _jit_cpu_ms(own) is not None
                 for _, own in jitted) or any(
        len(times) >= MIN_TREND for times in _per_process(measured))
    if not judged:
        return Steadiness(None, f"{len(measured)} repetition(s) per process, no JIT figure: "
                                f"too few to judge a trend (at least {MIN_TREND})")
    return Steadiness(True, _steady_note(measured))


def still_compiling(recent: list[dict]) -> bool:
    """Should warm-ups go on? `recent`: the warm-ups so far, newest last. Yes while a JIT (the
    process's own, or any network node's) compiled past what judge() calls steady in their last
    QUIET_WINDOW_NS, or they do not span it yet; never without a JIT figure. A network cell's
    fresh nodes are warmed so, as a driver warms its own process (`warmup_max_ms`)."""
    window, spanned = [], 0
    for sample in reversed(recent):
        window.append(sample)
        spanned += sample["total_ns"]
        if spanned >= QUIET_WINDOW_NS:
            break
    jitted = [("", window), *_jit_nodes(window)]
    if all(_jit_ms(own) is None and _jit_cpu_ms(own) is None for _, own in jitted):
        return False
    return spanned < QUIET_WINDOW_NS or any(_jit_problems(name, own) for name, own in jitted)


def compiling(samples: list[dict]) -> str | None:
    """What a JIT compiled over `samples` past what judge() calls steady (the process's own or
    a network node's), or None: quiet, or no JIT figure. Asked of a whole warm-up pass over
    a process's cells (run/prewarm.py), with judge()'s thresholds."""
    jitted = [("", samples), *_jit_nodes(samples)]
    return "; ".join(p for p in (_jit_problems(name, own) for name, own in jitted) if p) or None


def _summed(measured: list[dict], key: str, scale: float = 1) -> float | None:
    """A per-sample figure summed over the measured repetitions (divided by `scale`); None
    when a sample lacks it (a driver without a JIT, or a figure the OS does not give)."""
    values = [s.get(key) for s in measured]
    if any(v is None for v in values):
        return None
    return sum(values) / scale


def _jit_ms(measured: list[dict]) -> float | None:
    return _summed(measured, "jit_ms")


def _jit_cpu_ms(measured: list[dict]) -> float | None:
    return _summed(measured, "jit_cpu_ns", 1e6)


def _jit_nodes(measured: list[dict]) -> list[tuple[str, list[dict]]]:
    """Each node that reports a JIT figure, with its figures set in the cell's samples (the
    cell's measured time, the node's JIT time), by node name."""
    names = sorted({name for s in measured for name, figures in (s.get("nodes") or {}).items()
                    if any(figures.get(k) is not None for k in ("jit_ms", "jit_cpu_ns"))})
    return [(name, [{"total_ns": s["total_ns"],
                     **{k: (s.get("nodes") or {}).get(name, {}).get(k)
                        for k in ("jit_ms", "jit_cpu_ns")}} for s in measured])
            for name in names]


def _jit_problems(node: str, measured: list[dict]) -> str | None:
    """Both JIT judgements of one process: the cell's own (node "") or a network node's."""
    found = [p for p in (_jit_problem(measured), _jit_cpu_problem(measured)) if p]
    return "; ".join(f"node {node}: {p}" if node else p for p in found) or None


def _jit_problem(measured: list[dict]) -> str | None:
    return _jit_share_problem(_jit_ms(measured), JIT_MIN_MS, measured,
                              "the JIT compiled for {:,.0f} ms during the measured repetitions")


def _jit_cpu_problem(measured: list[dict]) -> str | None:
    return _jit_share_problem(_jit_cpu_ms(measured), JIT_CPU_MIN_MS, measured,
                              "JIT compiling during measurement: {:,.0f} ms of compiler CPU")


def _jit_share_problem(spent_ms: float | None, minimum_ms: float, measured: list[dict],
                       said: str) -> str | None:
    """Why JIT time spent during the measured region is too much to call it steady, or None."""
    total_ms = sum(s["total_ns"] for s in measured) / 1e6
    if spent_ms is None or spent_ms < minimum_ms or spent_ms <= JIT_SHARE * total_ms:
        return None
    return f"{said.format(spent_ms)} ({spent_ms / total_ms:.0%} of their {total_ms:,.0f} ms)"


def _per_process(measured: list[dict]) -> list[list[int]]:
    """Total times in repetition order, one list per process (`fork`, when pooled; a network
    cell's round, whose nodes are fresh)."""
    by_fork: dict[int, list[dict]] = {}
    for s in measured:
        key = s.get("round", 0) if "nodes" in s else s.get("fork", 0)
        by_fork.setdefault(key, []).append(s)
    return [[s["total_ns"] for s in sorted(group, key=lambda s: s["rep"])]
            for _, group in sorted(by_fork.items())]


def drift(times: list[int]) -> float:
    """(median of the last third - median of the first third) / median of all."""
    third = max(1, len(times) // 3)
    middle = median(times)
    return (median(times[-third:]) - median(times[:third])) / middle if middle else 0.0


def _drift_problem(times: list[int]) -> str | None:
    if len(times) < MIN_TREND:
        return None
    change = drift(times)
    if len(times) >= MIN_TEST:
        rho = spearman(list(range(len(times))), times)
        significant = abs(rho) >= Z_1_PERCENT / math.sqrt(len(times) - 1)
    else:
        steps = [b - a for a, b in zip(times, times[1:])]
        significant = all(d < 0 for d in steps) or all(d > 0 for d in steps)
    if not (significant and abs(change) >= DRIFT_SHARE):
        return None
    way = "down (still warming up)" if change < 0 else "up"
    return f"times drift {way} by {abs(change):.0%} across {len(times)} repetitions"


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties); 0 when either side is constant."""
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy) if vx and vy else 0.0


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _steady_note(measured: list[dict]) -> str:
    parts = _jit_note(measured)
    parts += [f"node {node}: {', '.join(said)}" for node, own in _jit_nodes(measured)
              if (said := _jit_note(own))]
    longest = max(len(t) for t in _per_process(measured))
    parts.append(f"no drift across {longest} repetitions" if longest >= MIN_TREND
                 else "trend not judged")
    return "; ".join(parts)


def _jit_note(measured: list[dict]) -> list[str]:
    """What one process's JIT did while measured, as far as its figures say."""
    said = []
    jit_ms = _jit_ms(measured)
    if jit_ms is not None:
        said.append(f"JIT compiled {jit_ms:,.0f} ms while measured")
    cpu_ms = _jit_cpu_ms(measured)
    if cpu_ms is not None:
        said.append(f"{cpu_ms:,.1f} ms of compiler CPU")
    return said
