"""Zero-sum matrix games for the equilibrium search (solver.search.nash): the game's value
and optimal mixed strategies by a dense simplex with Bland's rule (no cycling), a pure
saddle point taken directly; when float rounding stops the simplex, the game with its
(nearly) equal rows and columns merged, solved from either player's side.

All of it is numba-compiled: the search calls ``matrix_game`` from inside its kernel.
"""
from __future__ import annotations

import math

import numpy as np

from ..kernels.engine import jit, jit_inline

__all__ = ["DUPLICATE_TOLERANCE", "matrix_game", "other_side"]


@jit
def matrix_game(payoff, m, n, x, y, tableau):
    """Value of the zero-sum game payoff[:m, :n] whose row player minimises; optimal
    mixed strategies into x[:m] (rows) and y[:n] (columns). Returns (value, pure).

    A pure saddle point is taken directly. Otherwise the column player's LP
    max 1.w s.t. A'w <= 1, w >= 0 (A' = shift - payoff > 0, the row player maximising
    A') is solved by a dense simplex with Bland's rule (no cycling); the row player's
    strategy comes from the final tableau's dual values.
    """
    best_row, upper = 0, math.inf      # the row player's pure minimax
    for a in range(m):
        worst = -math.inf
        for b in range(n):
            worst = max(worst, payoff[a, b])
        if worst < upper:
            best_row, upper = a, worst
    best_col, lower = 0, -math.inf     # the column player's pure maximin
    for b in range(n):
        least = math.inf
        for a in range(m):
            least = min(least, payoff[a, b])
        if least > lower:
            best_col, lower = b, least
    x[:m] = 0.0
    y[:n] = 0.0
    if upper - lower <= 1e-12:
        x[best_row] = 1.0
        y[best_col] = 1.0
        return upper, True
    value, ok = _simplex(payoff, m, n, x, y, tableau)
    if ok:
        return value, False
    return _deduplicated_game(payoff, m, n, x, y, tableau), False


@jit_inline
def _lp_tableau(payoff, m, n, t, basis):
    """The simplex's first tableau ``t`` of matrix_game's LP on payoff[:m, :n] (slack
    columns basic, in ``basis``); returns the shift that makes every entry >= 1."""
    top = -math.inf
    for a in range(m):
        for b in range(n):
            top = max(top, payoff[a, b])
    shift = top + 1.0  # A' = shift - payoff >= 1
    cols = n + m + 1
    t[:, :] = 0.0
    for a in range(m):
        for b in range(n):
            t[a, b] = shift - payoff[a, b]
        t[a, n + a] = 1.0
        t[a, cols - 1] = 1.0
        basis[a] = n + a
    for b in range(n):
        t[m, b] = -1.0
    return shift


@jit_inline
def _entering_column(t, m, cols, eps):
    """Bland's rule: the lowest column whose reduced cost improves, or -1 (optimal)."""
    for j in range(cols - 1):
        if t[m, j] < -eps:
            return j
    return -1


@jit_inline
def _leaving_row(t, basis, m, cols, enter, eps):
    """The ratio test's row for column ``enter`` (ties to the lowest basic index), or -1
    when no row bounds it."""
    leave, ratio = -1, math.inf
    for a in range(m):
        if t[a, enter] > eps:
            r = t[a, cols - 1] / t[a, enter]
            if r < ratio - eps or (abs(r - ratio) <= eps and basis[a] < basis[leave]):
                leave, ratio = a, r
    return leave


@jit_inline
def _pivot(t, m, cols, leave, enter):
    """Pivot the tableau ``t`` (m + 1 rows) on (leave, enter)."""
    pivot = t[leave, enter]
    for j in range(cols):
        t[leave, j] /= pivot
    for a in range(m + 1):
        if a != leave and t[a, enter] != 0.0:
            factor = t[a, enter]
            for j in range(cols):
                t[a, j] -= factor * t[leave, j]


@jit_inline
def _lp_strategies(t, basis, m, n, cols, x, y):
    """Both players' strategies from the optimal tableau: the columns' from the basic
    values, the rows' from the duals; returns the objective (1 / value(A'))."""
    total = t[m, cols - 1]  # = 1 / value(A')
    for a in range(m):
        if basis[a] < n:
            y[basis[a]] = t[a, cols - 1] / total
    for a in range(m):
        x[a] = t[m, n + a] / total
    return total


@jit_inline
def _simplex(payoff, m, n, x, y, tableau):
    """The LP of matrix_game (payoff[:m, :n], no pure saddle point): (value, True), or
    (0, False) when rounding left an improving column without a pivot (rows or columns
    equal but for about 1e-13: _deduplicated_game)."""
    cols = n + m + 1
    t = tableau[:m + 1, :cols]
    basis = np.empty(m, np.int64)
    shift = _lp_tableau(payoff, m, n, t, basis)
    eps = 1e-12
    while True:
        enter = _entering_column(t, m, cols, eps)
        if enter < 0:
            break
        leave = _leaving_row(t, basis, m, cols, enter, eps)
        if leave < 0:
            return 0.0, False
        _pivot(t, m, cols, leave, enter)
        basis[leave] = enter
    total = _lp_strategies(t, basis, m, n, cols, x, y)
    return shift - 1.0 / total, True


# Rows (columns) of a matrix game this close everywhere count as one in its fallback
DUPLICATE_TOLERANCE = 1e-9


@jit_inline
def _distinct_lines(payoff, count, other, by_row, keep):
    """Indices of the rows (``by_row``) or columns of payoff[:m, :n] that are not within
    DUPLICATE_TOLERANCE of an earlier one, into ``keep``; how many."""
    kept = 0
    for a in range(count):
        duplicate = False
        for q in range(kept):
            b = keep[q]
            same = True
            for c in range(other):
                d = payoff[a, c] - payoff[b, c] if by_row else payoff[c, a] - payoff[c, b]
                if abs(d) > DUPLICATE_TOLERANCE:
                    same = False
                    break
            if same:
                duplicate = True
                break
        if not duplicate:
            keep[kept] = a
            kept += 1
    return kept


@jit_inline
def _other_side_game(payoff, m, n, x, y, tableau):
    """(value, ok) of the game payoff[:m, :n] (row player minimising) by the simplex on
    the column player's side: the game -payoff transposed, whose minimiser is the column
    player; its value negated, x and y swapped back (a second path when rounding stops
    the first)."""
    flipped = np.empty((max(n, 1), max(m, 1)))
    for a in range(m):
        for b in range(n):
            flipped[b, a] = -payoff[a, b]
    value, ok = _simplex(flipped, n, m, y, x, tableau)
    return -value, ok


@jit
def other_side(payoff, m, n, x, y, tableau):
    """(value, ok) of payoff[:m, :n] solved from the column player's side alone (the
    path the fallback takes when the first fails; tests call it directly)."""
    return _other_side_game(payoff, m, n, x, y, tableau)


@jit
def _deduplicated_game(payoff, m, n, x, y, tableau):
    """matrix_game's value when its simplex met rounding: the game with rows (columns)
    equal within DUPLICATE_TOLERANCE kept once (each kept line stands for its copies,
    which get probability 0), so the value moves by at most that tolerance."""
    rows, columns = np.empty(m, np.int64), np.empty(n, np.int64)
    m2 = _distinct_lines(payoff, m, n, True, rows)
    n2 = _distinct_lines(payoff, n, m, False, columns)
    reduced = np.zeros((max(m2, 1), max(n2, 1)))
    for a in range(m2):
        for b in range(n2):
            reduced[a, b] = payoff[rows[a], columns[b]]
    x2, y2 = np.zeros(m), np.zeros(n)
    value, ok = _simplex(reduced, m2, n2, x2, y2, tableau)
    if not ok:  # the other player's LP
        value, ok = _other_side_game(reduced, m2, n2, x2, y2, tableau)
    if not ok:
        raise ArithmeticError("nash: the simplex failed on a matrix game even with its "
                              "equal rows and columns merged, from either side")
    x[:m] = 0.0
    y[:n] = 0.0
    for a in range(m2):
        x[rows[a]] = x2[a]
    for b in range(n2):
        y[columns[b]] = y2[b]
    return value
