"""95% intervals that stay inside the range of what they estimate: the one home of them.

* A share of hits among n (a proportion): the Wilson score interval, never outside [0, 1]
  and never empty at 0 or n hits, where the normal one collapses to a point.
* A mean of values in a bounded range (win shares with ties counted as fractions, a deal's
  mean over its rotations, a win probability sampled by Monte Carlo): the Wilson interval
  with the effective sample size p (1 - p) / stderr^2 (Kish's design effect), so that it
  agrees with the normal interval where that one fits and bends to the range near its ends.
* A mean of values that are never negative (cows, regrets, spreads): the normal interval
  intersected with [0, inf). The true mean is known to be >= 0, so the cut loses no
  coverage (whenever the normal interval holds the mean, the cut one does too); it is
  deterministic and needs only the mean and its standard error, where a bootstrap would
  need every sample kept (millions in Monte Carlo) and a seed.
* A quantity of either sign (a margin, a game value, a difference): the normal interval.
* A mean whose standard error comes from the sample itself (``mean_interval``): where the
  normal interval applies (either sign, or cut at a floor), Student's t quantile with n - 1
  degrees of freedom instead of the normal one, so that a mean of a few values (ten solved
  deals) is not given an interval a third too narrow; it is the normal one within 0.1% from
  about a thousand values on.

Plain Python and scipy's quantiles (imported when first needed); no numba.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence

__all__ = ["Z95", "bounded_interval", "mean_interval", "share_interval", "t95", "wilson"]

Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975): the two-sided 95% normal quantile


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed over ``n`` trials (``n``
    may be an effective, fractional size); (0, 1) when n is 0.

    >>> [round(x, 4) for x in wilson(7 / 8, 8)]
    [0.5291, 0.9776]
    >>> wilson(0.0, 10)[0], wilson(1.0, 10)[1]
    (0.0, 1.0)
    """
    if not n > 0 or math.isnan(p):
        return (0.0, 1.0) if n == 0 else (math.nan, math.nan)
    p = min(1.0, max(0.0, p))
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # exact ends at 0 and n hits (the formula gives them up to rounding)
    return (0.0 if p == 0 else max(0.0, centre - half),
            1.0 if p == 1 else min(1.0, centre + half))


def share_interval(hits: int, n: int) -> tuple[float, float]:
    """The Wilson 95% interval of hits/n: scipy's ``binomtest(hits, n)
    .proportion_ci(method="wilson")``, in closed form; (0, 1) when n is 0."""
    return wilson(hits / n if n else math.nan, n)


def bounded_interval(mean: float, stderr: float, n: int, low: float | None = None,
                     high: float | None = None, z: float = Z95) -> tuple[float, float]:
    """The 95% interval of a mean of ``n`` values known to lie in [low, high] (None: no
    bound on that side), from the mean and its standard error. Both bounds: Wilson with
    the effective size p (1 - p) / stderr^2 on the range rescaled to [0, 1] (n itself when
    the values do not vary: all at one end is n hits of n). One bound: the normal interval
    cut at it. None: the normal interval. NaN in, NaN out."""
    if math.isnan(mean) or math.isnan(stderr):
        return (math.nan, math.nan)
    if low is not None and high is not None:
        width = high - low
        p = min(1.0, max(0.0, (mean - low) / width))
        se = stderr / width
        size = p * (1 - p) / (se * se) if se > 0 and 0 < p < 1 else n
        a, b = wilson(p, size, z)
        return (low + width * a, low + width * b)
    a, b = mean - z * stderr, mean + z * stderr
    return (a if low is None else max(low, a), b if high is None else min(high, b))


def mean_interval(values: Sequence[float], low: float | None = None,
                  high: float | None = None) -> tuple[float, tuple[float, float]]:
    """The mean of ``values`` and its 95% interval (``bounded_interval``, the standard
    error from the sample's standard deviation, n - 1, and Student's t quantile where the
    interval is the normal one, Wilson's z where both bounds are given); one value: the
    point itself, none: NaN."""
    n = len(values)
    if n == 0:
        return math.nan, (math.nan, math.nan)
    mean = math.fsum(values) / n
    if n == 1:
        return mean, (mean, mean)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1))
    z = Z95 if low is not None and high is not None else t95(n - 1)
    return mean, bounded_interval(mean, sd / math.sqrt(n), n, low, high, z)


@functools.cache
def t95(df: int) -> float:
    """Student's t two-sided 95% quantile for ``df`` degrees of freedom (scipy's
    ``t.ppf(0.975, df)``), for a mean whose standard error is estimated from its sample.

    >>> round(t95(1), 3), round(t95(9), 3), round(t95(10 ** 6), 4)
    (12.706, 2.262, 1.96)
    """
    from scipy.stats import t  # imported here: scipy.stats takes a third of a second

    return float(t.ppf(0.975, df))
