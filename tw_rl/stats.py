"""The statistics of matches and A/Bs, in one place (standard library only).

- ``wilson_interval``: the 95% Wilson score interval of a win rate (a draw counts half);
- ``Z95`` and ``z_score``: the two-sided 95% normal quantile, and how many standard errors a
  score lies from an even match;
- ``t_quantile`` and ``runs_interval``: Student's t quantile for any degrees of freedom, and the
  interval of a mean over runs (pairs of training runs, repeated matches);
- ``shares``: a count shared out among workers, match halves or pairs of runs.

The referee's match, the rating run's Elo intervals, the in-process matches (``tw_rl.training.match``),
``scripts/ab.py`` and the native self-play processes all take their figures from here.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a success rate (``successes`` may be fractional: a draw
    counts half). (0, 1) without trials."""
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in [0, {trials}], got {successes}")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def z_score(successes: float, trials: int) -> float:
    """Standard errors between the score ``successes / trials`` and an even match (0.5), with
    the standard error of an even match without draws, sqrt(0.25 / trials); 0.0 without trials.
    |z| > Z95: the score differs from 50% at the 5% level."""
    if trials <= 0:
        return 0.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in [0, {trials}], got {successes}")
    return (successes / trials - 0.5) / math.sqrt(0.25 / trials)


def _t_coverage(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` degrees of freedom (t >= 0), by the closed forms
    for whole degrees of freedom: with theta = atan(t / sqrt(df)) and c = cos(theta)^2, a finite
    series in c, times sin(theta) (even df) or added to theta (odd df)."""
    theta = math.atan(t / math.sqrt(df))
    c = math.cos(theta) ** 2
    if df % 2 == 0:  # sin(theta) * (1 + 1/2 c + 1*3/(2*4) c^2 + ... up to c^((df-2)/2))
        term, total = 1.0, 1.0
        for k in range(1, df // 2):
            term *= c * (2 * k - 1) / (2 * k)
            total += term
        return math.sin(theta) * total
    # 2/pi * (theta + sin(theta) cos(theta) * (1 + 2/3 c + 2*4/(3*5) c^2 + ... up to c^((df-3)/2)))
    series = 0.0
    if df > 1:
        term, series = 1.0, 1.0
        for k in range(1, (df - 1) // 2):
            term *= c * (2 * k) / (2 * k + 1)
            series += term
    return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * series)


def t_quantile(df: int, confidence: float = 0.95) -> float:
    """The two-sided ``confidence`` quantile of Student's t with ``df`` >= 1 degrees of freedom
    (12.706 for one, 2.228 for ten at 95%), to 1e-9."""
    if df < 1:
        raise ValueError(f"Student's t needs at least one degree of freedom, got {df}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    low, high = 0.0, 1.0
    while _t_coverage(high, df) < confidence:
        high *= 2
    while high - low > 1e-10 * max(1.0, high):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_coverage(middle, df) < confidence else (low, middle)
    return (low + high) / 2


@dataclass(frozen=True)
class RunsInterval:
    """The mean of per-run figures (scores of pairs of runs, of repeated matches) with its 95%
    interval."""

    count: int
    mean: float
    low: float
    high: float


def runs_interval(
    values: list[float], floor: tuple[float, float] | None = None, bounds: tuple[float, float] = (0.0, 1.0)
) -> RunsInterval:
    """The mean of ``values`` (two or more) and its 95% Student t interval over them, clipped to
    ``bounds``: the luck of the runs and of their games together. With ``floor`` (e.g. the
    pooled games' Wilson interval) the interval is never narrower than it, so runs that happen
    to score alike do not look surer than their games."""
    if len(values) < 2:
        raise ValueError(f"an interval over runs needs two or more runs, got {len(values)}")
    mean = statistics.fmean(values)
    half = t_quantile(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    low, high = mean - half, mean + half
    if floor is not None:
        low, high = min(low, floor[0]), max(high, floor[1])
    return RunsInterval(len(values), mean, max(bounds[0], low), min(bounds[1], high))


def shares(total: int, parts: int) -> list[int]:
    """``total`` shared out among at most ``parts`` workers: counts that differ by at most one,
    the larger first, none empty (one 0 when there is nothing to share)."""
    if parts < 1 or total < 0:
        raise ValueError(f"cannot share {total} among {parts} parts")
    parts = max(1, min(parts, total))
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]
