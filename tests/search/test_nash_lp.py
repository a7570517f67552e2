"""The matrix games of the equilibrium search (solver.search.matrixgame.matrix_game) against
scipy's HiGHS on games whose rows or columns are equal but for rounding: the simplex's ratio
test then finds no pivot (seen at k = 10: a ZeroDivisionError), and the game is solved again
with those lines merged.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from nimmt.solver.base.rules import HAND_SIZE
from nimmt.solver.search import matrixgame

# rows 4 and 8, 6 and 9, 0 and 7 equal but for 1e-13 (found by a random search)
NEAR_EQUAL = np.array([
    [-0.22448979591836737, -3.63265306122449, -2.5510204081632653, -2.4489795918367347,
     5.795918367346939, 3.938775510204082, 4.816326530612245, -2.836734693877551,
     5.510204081632653, 4.204081632653061],
    [-4.653061224489796, -2.0408163265306123, -0.9183673469387755, 4.408163265306122,
     -4.26530612244898, 1.5510204081632653, 3.857142857142857, -3.0, -0.18367346938775508,
     2.306122448979592],
    [-5.326530612244898, 3.183673469387755, -3.489795918367347, -4.26530612244898,
     3.877551020408163, 6.346938775510204, 4.918367346938775, 2.857142857142857,
     3.2244897959183674, -4.551020408163265],
    [-4.8979591836734695, -5.183673469387755, 5.938775510204081, -0.16326530612244894,
     2.2448979591836733, 5.163265306122449, 4.63265306122449, -0.5102040816326531,
     -4.081632653061225, 5.571428571428571],
    [4.734693877551121, 6.7755102040817325, -1.0408163265305124, 2.0000000000001,
     -1.7346938775509204, 3.8367346938776508, 6.204081632653161, 4.9591836734694885,
     0.06122448979601837, -4.877551020408063],
    [0.061224489795918366, -4.163265306122449, -5.408163265306122, -4.3061224489795915,
     6.163265306122449, 4.8979591836734695, 3.4285714285714284, -3.061224489795918,
     1.306122448979592, -5.224489795918368],
    [-5.673469387755001, -5.73469387755092, -3.489795918367247, -4.306122448979491,
     4.26530612244908, -4.36734693877541, -1.8571428571427573, -5.510204081632553,
     4.7755102040817325, 5.7755102040817325],
    [-0.22448979591826737, -3.63265306122439, -2.5510204081631653, -2.448979591836635,
     5.795918367347039, 3.9387755102041817, 4.816326530612345, -2.836734693877451,
     5.510204081632754, 4.204081632653161],
    [4.73469387755102, 6.775510204081632, -1.0408163265306123, 2.0, -1.7346938775510203,
     3.836734693877551, 6.204081632653061, 4.959183673469388, 0.061224489795918366,
     -4.877551020408164],
    [-5.673469387755102, -5.73469387755102, -3.489795918367347, -4.3061224489795915,
     4.26530612244898, -4.36734693877551, -1.8571428571428572, -5.510204081632653,
     4.775510204081632, 5.775510204081632],
])


def solve(p):
    m, n = p.shape
    payoff = np.zeros((HAND_SIZE, HAND_SIZE))
    payoff[:m, :n] = p
    x, y = np.zeros(HAND_SIZE), np.zeros(HAND_SIZE)
    value, _ = matrixgame.matrix_game(payoff, m, n, x, y,
                                 np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1)))
    return value, x[:m], y[:n]


def highs_value(p):
    """The row player's (minimiser's) value by scipy's LP."""
    m, n = p.shape
    r = linprog(np.r_[np.zeros(m), 1.0], A_ub=np.c_[p.T, -np.ones(n)], b_ub=np.zeros(n),
                A_eq=[np.r_[np.ones(m), 0.0]], b_eq=[1.0],
                bounds=[(0, None)] * m + [(None, None)], method="highs")
    return r.fun


def check(p, solver=solve):
    value, x, y = solver(p)
    assert value == pytest.approx(highs_value(p), abs=1e-8)
    assert x.min() >= -1e-12 and y.min() >= -1e-12
    assert x.sum() == pytest.approx(1, abs=1e-9) and y.sum() == pytest.approx(1, abs=1e-9)
    assert (x @ p).max() <= value + 1e-8 and (p @ y).min() >= value - 1e-8


def test_near_equal_rows_found_by_search():
    check(NEAR_EQUAL)


# 300 games a seed: the default run takes seed 0, `pytest -m slow` the others too
@pytest.mark.parametrize("seed", [0, *(pytest.param(s, marks=pytest.mark.slow) for s in (1, 2, 3))])
def test_games_with_near_equal_lines(seed):
    rng = np.random.default_rng(seed)
    for _ in range(300):
        m, n = (int(v) for v in rng.integers(2, HAND_SIZE + 1, 2))
        p = rng.integers(-6, 7, (m, n)) + rng.integers(0, 50, (m, n)) / 49.0
        for _ in range(int(rng.integers(1, 4))):
            a, b = rng.integers(0, m, 2)
            p[a] = p[b] + rng.choice([0.0, 1e-13])
        for _ in range(int(rng.integers(0, 3))):
            a, b = rng.integers(0, n, 2)
            p[:, a] = p[:, b] + rng.choice([0.0, 1e-13])
        check(p)


def solve_other_side(p):
    """The fallback that solves the column player's LP (the game -payoff transposed)."""
    m, n = p.shape
    payoff = np.zeros((HAND_SIZE, HAND_SIZE))
    payoff[:m, :n] = p
    x, y = np.zeros(HAND_SIZE), np.zeros(HAND_SIZE)
    value, ok = matrixgame.other_side(payoff, m, n, x, y,
                                 np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1)))
    assert ok
    return value, x[:m], y[:n]


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])  # as above
def test_the_other_sides_lp(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        m, n = (int(v) for v in rng.integers(2, HAND_SIZE + 1, 2))
        check(rng.integers(-6, 7, (m, n)) + rng.integers(0, 50, (m, n)) / 49.0,
              solve_other_side)
