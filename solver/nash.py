"""The two-player equilibrium (model ``nash``): both hands known, the rest of the round
as a zero-sum simultaneous-move game on (player 1's cows - player 2's cows).

Backward induction in ``exact._search`` (model nash): each state's value is the value
of the k-by-k matrix game of its cells, a cell being both cards resolved (row choices
inside it as sequential min/max) plus the next state's value. Matrix games are solved
by ``exact._matrix_game`` (pure saddle points directly, otherwise a dense simplex with
Bland's rule). This module solves the root, reports strategies, and verifies them.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from . import exact
from .engine import row_table
from .position import Position
from .rules import NimmtError

BYTES_PER_STATE = 300   # measured peak: typed-dict memo, 14-word keys (benchmarks/nash.py)
DEFAULT_MEMORY = 8 * 2**30
# Distinct states grow about tenfold per card in hand (measured k = 4..8, benchmarks/nash.py);
# the estimate is set at or above every count measured.
STATES_AT_4, GROWTH_PER_CARD = 2700, 10.0


@dataclass(frozen=True)
class NashResult:
    """Equilibrium of the rest of the round. Values are player 1's cows minus player 2's."""

    value: float
    p1_cards: tuple[int, ...]
    p2_cards: tuple[int, ...]
    p1_frequency: tuple[float, ...]
    p2_frequency: tuple[float, ...]
    p1_ev: tuple[float, ...]     # each p1 card against p2's equilibrium strategy
    p2_ev: tuple[float, ...]     # each p2 card against p1's equilibrium strategy
    p1_cows: float               # expected cows under the equilibrium pair
    p2_cows: float
    states: int
    matrix_games: int            # solved by the simplex
    saddle_points: int           # decided by a pure saddle point (all cells built)
    best_reply_saddles: int      # decided by best replies, most cells never built
    cells_skipped: int
    nodes: int
    seconds: float
    matrix: np.ndarray           # the root's cell values [p1 card, p2 card]

    @property
    def exploitability(self) -> float:
        """Best responses against each side's strategy at the root, minus the value:
        0 (to float precision) when both strategies are optimal."""
        return max(self.value - min(self.p1_ev) if self.p1_ev else 0.0,
                   max(self.p2_ev) - self.value if self.p2_ev else 0.0,
                   max(self.p1_ev[i] - self.value for i, f in enumerate(self.p1_frequency)
                       if f > 1e-12),
                   max(self.value - self.p2_ev[j] for j, f in enumerate(self.p2_frequency)
                       if f > 1e-12))


def check_nash_position(position: Position) -> None:
    if position.players != 2:
        raise NimmtError(f"nash is the two-player equilibrium; this position has "
                         f"{position.players} players (use --opponents random or worst)")
    if not position.all_known:
        raise NimmtError("nash needs both hands known; give p2=... (tactical and logic "
                         "2-player positions derive it)")


def estimate_states(position: Position, cards_left: int | None = None) -> int:
    """Estimated distinct states of a solve from ``cards_left`` cards each (measured growth)."""
    k = position.cards_left if cards_left is None else cards_left
    return max(1, math.ceil(STATES_AT_4 * GROWTH_PER_CARD ** (k - 4)))


def largest_fitting_k(position: Position, memory: int) -> int:
    best = 0
    for k in range(1, position.cards_left + 1):
        if estimate_states(position, k) * BYTES_PER_STATE <= memory:
            best = k
    return best


def solve_nash(position: Position, memory: int = DEFAULT_MEMORY,
               max_nodes: int = 10**12) -> NashResult:
    """Solve the equilibrium of the rest of the round.

    >>> from solver.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> r = solve_nash(p)
    >>> round(r.value, 6), r.exploitability < 1e-9
    (0.0, True)
    """
    check_nash_position(position)
    states = estimate_states(position)
    if states * BYTES_PER_STATE > memory:
        k_fit = largest_fitting_k(position, memory)
        raise exact.BudgetExceeded(
            f"nash at {position.cards_left} cards each needs about {states:,} states "
            f"(~{states * BYTES_PER_STATE / 2**30:.1f} GiB), over --memory "
            f"{memory / 2**30:.1f} GiB; the largest k that fits is {k_fit}: raise --memory or "
            "analyse a later position")
    owner, _, _ = exact.owner_array(position)
    table = row_table(position.rows)
    stats = np.zeros(exact.STAT_SLOTS, np.int64)
    result = np.zeros(3)
    k = position.cards_left
    values = np.zeros((k, k))
    aux = np.zeros((k, k))
    if not exact._solve_nash.signatures:  # compile or load first: times are the search's
        exact._solve_nash(table, owner, position.deck_size, position.professional,
                          np.zeros(exact.STAT_SLOTS, np.int64), 0, result.copy(), values.copy(),
                          aux.copy())
    start = time.perf_counter()
    exact._solve_nash(table, owner, position.deck_size, position.professional, stats, max_nodes,
                      result, values, aux)
    if stats[exact.ABORTED]:
        raise exact.BudgetExceeded(f"nash search passed {max_nodes:,} nodes")
    seconds = time.perf_counter() - start
    x, y = np.zeros(10), np.zeros(10)
    value, _ = exact._matrix_game(values, k, k, x, y, np.zeros((11, 21)))
    x, y = x[:k], y[:k]
    p1_cows = float(result[1])
    return NashResult(float(value), position.hand, position.hands[1], tuple(map(float, x)),
                      tuple(map(float, y)), tuple(map(float, values @ y)),
                      tuple(map(float, x @ values)), p1_cows, p1_cows - float(value),
                      int(stats[exact.STATES]), int(stats[exact.MATRIX_GAMES]),
                      int(stats[exact.SADDLES]), int(stats[exact.BEST_REPLY_SADDLES]),
                      int(stats[exact.CELLS_SKIPPED]), int(stats[exact.RESOLVED]), seconds,
                      values)


def analyse_nash(position: Position, memory: int = DEFAULT_MEMORY, max_nodes: int = 10**12):
    """``analysis.analyse`` for opponents='nash'."""
    from .analysis import Analysis, CardAnalysis

    r = solve_nash(position, memory=memory)
    order = sorted(range(len(r.p1_cards)), key=lambda i: (r.p1_ev[i], r.p1_cards[i]))
    cards = tuple(CardAnalysis(card=r.p1_cards[i], value=r.p1_ev[i],
                               regret=max(0.0, r.p1_ev[i] - r.value),  # >= 0 up to rounding
                               cows_now=math.nan, take_probability=math.nan,
                               frequency=r.p1_frequency[i])
                  for i in order)
    extra = {"game_value": r.value, "p1_expected_cows": r.p1_cows,
             "p2_expected_cows": r.p2_cows, "states": r.states,
             "matrix_games": r.matrix_games, "saddle_points": r.saddle_points,
             "best_reply_saddles": r.best_reply_saddles, "cells_skipped": r.cells_skipped,
             "exploitability": r.exploitability,
             "p2_strategy": [{"card": c, "value": v, "frequency": f}
                             for c, v, f in zip(r.p2_cards, r.p2_ev, r.p2_frequency)]}
    return Analysis(position, "nash", "exact",
                    f"backward induction over {r.states:,} states", cards,
                    estimate_states(position), r.nodes, r.seconds, extra=extra,
                    game_value=r.value)
