"""Root cells searched in a window (nash.bound_root_cells) against their exact values: the
interval always holds the value, is the value inside the window, and a bound past it
outside; with the search below windowed or exact."""
from __future__ import annotations

import math

import pytest

from nimmt.solver.base.rules import Rules
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import bound_root_cells, solve_nash

TOL = 1e-9


@pytest.mark.parametrize("placement,k,seed", [("normal", 3, 1), ("normal", 4, 2),
                                              ("professional", 4, 3), ("normal", 5, 4),
                                              ("normal", 6, 12)])
def test_bounded_cells_hold_their_values(placement, k, seed):
    position = deal_position(Rules("tactical", 2, placement), k, seed)
    matrix = solve_nash(position, workers=1).matrix
    cells = [(i, j) for i in range(k) for j in range(k)][::max(1, k * k // 6)]
    for i, j in cells:
        v = float(matrix[i, j])
        for alpha, beta in ((v - 0.5, v + 0.5), (v + 0.25, math.inf), (-math.inf, v - 0.25),
                            (v + 0.5, v + 0.75), (v - 2.0, v - 1.0)):
            for window in (True, False):
                (lower, upper), = bound_root_cells(position, [(i, j)], alpha, beta,
                                                   workers=1, window=window)[0].values()
                assert lower - TOL <= v <= upper + TOL, (i, j, v, alpha, beta, lower, upper)
                if alpha < v < beta:
                    assert lower == pytest.approx(v, abs=TOL) == upper
                elif v >= beta:
                    assert lower >= beta - TOL
                else:
                    assert upper <= alpha + TOL


def test_a_pure_saddle_point_is_proved_by_bounds_of_its_row_and_column():
    position = deal_position(Rules("tactical", 2, "normal"), 6, 12)
    r = solve_nash(position, workers=1)
    i0, j0 = r.p1_frequency.index(1.0), r.p2_frequency.index(1.0)
    k, v = position.cards_left, r.value
    row, _ = bound_root_cells(position, [(i0, j) for j in range(k) if j != j0], v, math.inf,
                              workers=1)
    column, _ = bound_root_cells(position, [(i, j0) for i in range(k) if i != i0], -math.inf,
                                 v, workers=1)
    assert all(upper <= v + TOL for _, upper in row.values())      # player 2 gains nothing
    assert all(lower >= v - TOL for lower, _ in column.values())   # nor does player 1
