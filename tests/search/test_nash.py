"""The two-player equilibrium, model ``nash`` (DESIGN.md section 3), held against an
independent brute force.

The brute force (``naive.NashBrute``) is written from RULES.md and DESIGN.md only, on
``solver.base.reference``: it imports nothing from nimmt.solver.search.exact,
solver.kernels.engine or solver.search.nash (those are imported only to be tested). It is a
plain recursion:

* D = player 1's cows - player 2's cows over the rest of the round; player 1
  minimises D, player 2 maximises it;
* value(state) = value of the k-by-k matrix game whose cell (a, b) places both cards
  lowest first; a card's owner makes its row choice (low card: any of the 4 rows;
  professional tie: 2 ends) when the card is placed, having seen both cards —
  player 1 minimising, player 2 maximising — and the cell includes the value of the
  next state; with no cards left the value is 0;
* the matrix games are solved with scipy's HiGHS (``linprog``), after a pure
  saddle-point check (a pure saddle point is the value exactly).

Serialized bounds: if player 1 must show its card first, player 2 answers it
(min over a of max over b) — an upper bound on the value for player 1; if player 2
shows first, max over b of min over a — a lower bound. Both recursively at every
state.
"""
from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

from nimmt.cli import cli_message
from nimmt.solver.base import reference
from nimmt.solver.base.rules import NimmtError, Rules, card_cows
from nimmt.solver.positions.position import EXAMPLES, Position, format_position, parse_position
from nimmt.solver.search import nashplan
from nimmt.solver.search.analysis import analyse_nash  # noqa: E402
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.matrixgame import matrix_game

# imported to be tested (never used by the brute force)
from nimmt.solver.search.nash import (  # noqa: E402
    NO_ORACLE,
    NashResult,
    estimate_states,
    largest_fitting_k,
    solve_nash,
)

from cli_checks import assert_ok, assert_one_line_error, invoke
from naive import NashBrute as Brute
from naive import highs_batch

TOL = 1e-9
# the table keeps cows to 2**-24 a state (solver.kernels.table COWS_SCALE), rounded once a level
COWS_TOL = 1e-6
P1, P2 = 1, 2


# ---------------------------------------------------------------- the brute force
# naive.NashBrute (imported as Brute), on matrix games solved by naive.game_value


# ---------------------------------------------------------------- positions

def make(rows, hand, p2, variant="tactical", placement="normal") -> Position:
    """A 2-player position on the deck 1..24 with both hands given; every other card is gone."""
    used = {c for r in rows for c in r} | set(hand) | set(p2)
    gone = [c for c in range(1, 25) if c not in used]
    return Position.make(players=2, rows=rows, hand=hand, others={2: p2}, gone=gone,
                         variant=variant, placement=placement)


HAND_MADE = {
    # low cards on both sides, every row worth taking differently
    "low": make([[10, 11], [13, 15], [17, 18, 20], [23]], [1, 3, 12], [2, 4, 14]),
    "low-4": make([[9], [13, 15], [17, 18, 20], [22, 23]], [1, 3, 12, 19], [2, 4, 14, 24]),
    # full rows: sixth cards
    "sixth": make([[3, 4, 5, 6, 7], [9, 10, 11, 12, 13], [15, 16], [19, 20, 21, 22, 23]],
                  [8, 14, 24], [1, 17, 18]),
    "sixth-4": make([[2, 4, 5, 6, 7], [9, 10, 11, 12, 13], [15, 16], [19, 20, 21, 22]],
                    [8, 14, 23, 3], [1, 17, 18, 24]),
    # professional: 10 is 2 from row 1's end (8) and 2 from row 2's front (12): a tie
    "pro-tie": make([[4, 8], [12, 13], [16, 18], [22]], [10, 20, 1], [14, 3, 24],
                    placement="professional"),
    "pro-tie-4": make([[5, 8], [12, 13, 14, 15, 17], [19], [22, 23]], [10, 20, 2, 16],
                      [1, 3, 21, 24], placement="professional"),
    "pro-mixed": make([[4, 6, 7, 8, 9], [13], [16, 18], [21]], [11, 15, 1, 19],
                      [2, 17, 20, 24], placement="professional"),
    "logic-low": make([[10, 11], [13, 15], [17, 18, 20], [23]], [1, 3, 12], [2, 4, 14],
                      variant="logic"),
    "logic-pro": make([[6, 7], [12, 14], [17, 18, 20, 21, 22], [24]], [9, 16, 1],
                      [10, 3, 23], variant="logic", placement="professional"),
}

DEALT = [(variant, placement, k, seed)
         for variant in ("tactical", "logic")
         for placement in ("normal", "professional")
         for k, seed in ((1, 5), (2, 1), (2, 8), (3, 2), (3, 9), (4, 3))]


def dealt(variant, placement, k, seed) -> Position:
    return deal_position(Rules(variant, 2, placement), k, seed)


def dealt_id(case):
    return "{}-{}-k{}-s{}".format(*case)


@pytest.fixture(scope="module")
def solved():
    """Every brute-force position, solved by both (brute force once per position)."""
    cache = {}

    def get(position: Position):
        key = format_position(position)
        if key not in cache:
            brute = Brute(position)
            value = brute.root_value()
            cache[key] = (brute, value, brute.root_matrix(), solve_nash(position))
        return cache[key]

    return get


def check_against_brute(position, solved):
    brute, value, matrix, r = solved(position)
    k = position.cards_left
    assert isinstance(r, NashResult)
    assert r.p1_cards == position.hand and r.p2_cards == position.hands[1]
    assert r.value == pytest.approx(value, abs=TOL), format_position(position)
    assert r.matrix.shape == (k, k)
    for i, a in enumerate(position.hand):
        for j, b in enumerate(position.hands[1]):
            assert r.matrix[i, j] == pytest.approx(matrix[i, j], abs=TOL), (
                f"cell (p1 {a}, p2 {b}) of {format_position(position)}")
    x, y = np.array(r.p1_frequency), np.array(r.p2_frequency)
    assert len(x) == len(y) == k
    assert (x >= -1e-12).all() and (y >= -1e-12).all()
    assert x.sum() == pytest.approx(1, abs=TOL) and y.sum() == pytest.approx(1, abs=TOL)
    # the evs against the brute force's matrix
    np.testing.assert_allclose(r.p1_ev, matrix @ y, rtol=0, atol=TOL)
    np.testing.assert_allclose(r.p2_ev, x @ matrix, rtol=0, atol=TOL)
    # both strategies optimal in the brute force's root game
    assert (x @ matrix).max() <= value + TOL
    assert (matrix @ y).min() >= value - TOL
    return brute


# ---------------------------------------------------------------- 1. value against the brute force

@pytest.mark.parametrize("case", DEALT, ids=dealt_id)
def test_value_matches_brute_force_on_dealt_positions(case, solved):
    check_against_brute(dealt(*case), solved)


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_value_matches_brute_force_on_hand_made_positions(name, solved):
    check_against_brute(HAND_MADE[name], solved)


def test_hand_made_positions_cover_every_situation(solved):
    """The hand-made positions exercise low cards, sixth cards and professional ties
    for both owners, and at least one genuinely mixed root."""
    events = set()
    mixed = 0
    for position in HAND_MADE.values():
        brute, value, matrix, r = solved(position)
        events |= brute.events
        mixed += not (matrix.max(axis=1).min() == matrix.min(axis=0).max())
    for situation in ("take", "tie", "sixth"):
        for who in (P1, P2):
            assert (situation, who) in events, (situation, who)
    assert mixed >= 1


def test_dealt_positions_include_mixed_games(solved):
    """The comparison is not only between saddle points: some states need the LP."""
    mixed_roots = lp_states = brute_lp = 0
    for case in DEALT:
        brute, value, matrix, r = solved(dealt(*case))
        mixed_roots += max(r.p1_frequency) < 1 - 1e-9
        lp_states += r.matrix_games
        brute_lp += brute.lp_calls
    assert lp_states > 0 and brute_lp > 0
    assert mixed_roots + sum(
        max(solved(p)[3].p1_frequency) < 1 - 1e-9 for p in HAND_MADE.values()) >= 1


def test_one_card_left_is_the_forced_resolution():
    """k = 1: the matrix is 1x1, the value is the cell, both frequencies are 1."""
    position = dealt("tactical", "normal", 1, 5)
    r = solve_nash(position)
    (a,), (b,) = position.hand, position.hands[1]
    assert r.value == pytest.approx(Brute(position).cell(
        tuple(tuple(row) for row in position.rows), a, b, (a,), (b,)), abs=TOL)
    assert r.p1_frequency == (1.0,) and r.p2_frequency == (1.0,)


def test_nash_refuses_three_players_and_hidden_hands():
    with pytest.raises(NimmtError, match="two-player"):
        solve_nash(parse_position(EXAMPLES["example-3p"]))
    standard = Position.make(players=2, variant="standard", rows=[[10], [20], [30], [40]],
                             hand=[1, 2, 3, 4, 5, 6, 7, 8, 9, 11])  # turn 1: nothing played
    with pytest.raises(NimmtError, match="both hands"):
        solve_nash(standard)


# ---------------------------------------------------------------- 2. the matrix solver

SIZES = range(1, 11)


def beale_like():
    """Degenerate games: Beale's cycling coefficients, zero rows, repeated structure."""
    beale = np.array([[0.25, -60, -0.04, 9], [0.5, -90, -0.02, 3], [0, 0, 1, 0]])
    kuhn = np.array([[-2, -9, 1, 9], [1 / 3, 1, -1 / 3, -2], [2, 3, -1, -12]])
    rps = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], float)
    out = [beale, -beale, beale.T, kuhn, -kuhn, kuhn.T, rps, np.tile(rps, (3, 3)),
           np.kron(rps, np.ones((2, 3))), np.eye(10), -np.eye(10), np.ones((10, 10)) - np.eye(10),
           np.kron(np.eye(5), np.ones((2, 2))), np.zeros((10, 10)),
           np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1]], float),
           np.triu(np.ones((10, 10))), np.tril(np.ones((7, 9))),
           np.r_[np.eye(4), np.eye(4), np.eye(4)][:10]]
    hilbert = 1.0 / (np.arange(1, 9)[:, None] + np.arange(1, 9)[None, :] - 1)
    out += [hilbert, -hilbert]
    return [np.asarray(P, float) for P in out]


def random_games(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Matrices of sizes 1..10 x 1..10 of many kinds, as in the search: integers,
    halves, thirds, ties, constants, rank 1, dominated and duplicated lines."""
    games = beale_like()
    kinds = ["int", "small", "half", "third", "const", "rank1", "dominated", "duplicated",
             "binary", "float", "big", "cows"]
    while len(games) < count:
        kind = kinds[len(games) % len(kinds)]
        m, n = (int(s) for s in rng.integers(1, 11, 2))
        if kind == "int":
            P = rng.integers(-10, 11, (m, n)).astype(float)
        elif kind == "small":   # many ties
            P = rng.integers(-1, 2, (m, n)).astype(float)
        elif kind == "half":
            P = rng.integers(-12, 13, (m, n)) / 2.0
        elif kind == "third":
            P = rng.integers(-9, 10, (m, n)) / 3.0
        elif kind == "const":
            P = np.full((m, n), float(rng.integers(-5, 6)))
        elif kind == "rank1":
            P = np.outer(rng.integers(-3, 4, m), rng.integers(-3, 4, n)).astype(float)
        elif kind == "dominated":
            base = rng.integers(-4, 5, (m, n)).astype(float)
            # rows that are worse for the minimiser and columns worse for the maximiser
            rows = base[rng.integers(0, m, rng.integers(1, 11 - m + 1))] if m < 10 else base[:0]
            P = np.r_[base, rows + rng.integers(0, 3, rows.shape)][:10]
            cols = P[:, rng.integers(0, n, rng.integers(1, 11 - n + 1))] if n < 10 else P[:, :0]
            P = np.c_[P, cols - rng.integers(0, 3, cols.shape)][:, :10]
            P = P[rng.permutation(len(P))][:, rng.permutation(P.shape[1])]
        elif kind == "duplicated":
            base = rng.integers(-3, 4, (rng.integers(1, m + 1), rng.integers(1, n + 1)))
            P = base[rng.integers(0, len(base), m)][:, rng.integers(0, base.shape[1], n)]
            P = P.astype(float)
        elif kind == "binary":
            P = rng.integers(0, 2, (m, n)).astype(float)
        elif kind == "float":
            P = rng.normal(0, 3, (m, n))
        elif kind == "big":
            P = rng.integers(-60, 61, (m, n)).astype(float)
        else:  # differences of cows, as the search's cells are
            P = rng.choice([-15, -7, -5, -3, -2, -1, 0, 1, 2, 3, 5, 7, 15], (m, n)).astype(float)
            P += rng.integers(0, 2, (m, n)) * rng.choice([0.5, 1 / 3, 0.25])
        games.append(P)
    return games


def kernel(P: np.ndarray, state: dict) -> tuple[float, bool, np.ndarray, np.ndarray]:
    """Call matrix_game as the search does: a 10x10 payoff buffer whose unused part holds
    garbage (NaN), reused x, y and tableau."""
    m, n = P.shape
    buf = state["payoff"]
    buf[:] = np.nan
    buf[:m, :n] = P
    x, y = state["x"], state["y"]
    x[:] = np.nan
    y[:] = np.nan
    value, pure = matrix_game(buf, m, n, x, y, state["tableau"])
    return float(value), bool(pure), x[:m].copy(), y[:n].copy()


def check_matrix_solver(games: list[np.ndarray]) -> None:
    values = np.concatenate([highs_batch(games[i:i + 1000]) for i in range(0, len(games), 1000)])
    state = {"payoff": np.zeros((10, 10)), "x": np.zeros(10), "y": np.zeros(10),
             "tableau": np.full((11, 21), np.nan)}
    failures = []
    for P, expected in zip(games, values):
        value, pure, x, y = kernel(P, state)
        problems = []
        if not abs(value - expected) <= TOL:
            problems.append(f"value {value!r}, HiGHS {expected!r}")
        if not ((x >= -1e-12).all() and (y >= -1e-12).all()
                and abs(x.sum() - 1) <= TOL and abs(y.sum() - 1) <= TOL):
            problems.append(f"not probability vectors: x={x}, y={y}")
        else:
            if not (x @ P).max() <= value + TOL:
                problems.append(f"x not optimal: max_j (x^T P)_j = {(x @ P).max()!r}")
            if not (P @ y).min() >= value - TOL:
                problems.append(f"y not optimal: min_i (P y)_i = {(P @ y).min()!r}")
        saddle = P.max(axis=1).min() - P.min(axis=0).max() <= 1e-12
        if pure != saddle:
            problems.append(f"pure={pure} but saddle point={saddle}")
        if pure and not (sorted(x)[-1] == 1.0 and sorted(y)[-1] == 1.0):
            problems.append("pure but strategies are not unit vectors")
        if problems:
            failures.append(f"{P.tolist()}: " + "; ".join(problems))
    assert not failures, f"{len(failures)} failures, first: {failures[:3]}"


def test_matrix_solver_against_highs():
    """3,000 games of sizes 1..10 x 1..10 (200,000 more with `pytest -m slow`), value to
    1e-9 against HiGHS and the strategies optimal (each side's best response gives back
    the value)."""
    rng = np.random.default_rng(20240601)
    games = random_games(rng, 3_000)
    shapes = {P.shape for P in games}
    assert shapes >= {(m, n) for m in SIZES for n in SIZES}
    check_matrix_solver(games)


def test_matrix_solver_degenerate_games_transformed():
    """Beale-like and duplicated structures under row/column permutations, scaling and
    shifts: the value moves as it must (v(aP + c) = a v(P) + c for a > 0, v(-P^T) = -v(P))."""
    rng = np.random.default_rng(7)
    state = {"payoff": np.zeros((10, 10)), "x": np.zeros(10), "y": np.zeros(10),
             "tableau": np.zeros((11, 21))}
    for P in beale_like():
        base = kernel(P, state)[0]
        for _ in range(20):
            Q = P[rng.permutation(P.shape[0])][:, rng.permutation(P.shape[1])]
            a, c = float(rng.choice([0.5, 1, 2, 3])), float(rng.integers(-7, 8))
            assert kernel(a * Q + c, state)[0] == pytest.approx(a * base + c, abs=TOL)
        assert kernel(-P.T, state)[0] == pytest.approx(-base, abs=TOL)


@pytest.mark.slow
def test_matrix_solver_against_highs_large():
    rng = np.random.default_rng(99)
    check_matrix_solver(random_games(rng, 200_000))


# ---------------------------------------------------------------- 3. exploitability and bounds

EXPLOIT = [(variant, placement, k, seed)
           for variant in ("tactical", "logic")
           for placement in ("normal", "professional")
           for k in (2, 3, 4, 5)
           for seed in (11, 12)]


@pytest.mark.parametrize("case", EXPLOIT, ids=dealt_id)
def test_exploitability_zero(case):
    r = solve_nash(dealt(*case))
    assert r.exploitability < TOL
    # and by hand from the root matrix
    x, y, M = np.array(r.p1_frequency), np.array(r.p2_frequency), r.matrix
    assert (x @ M).max() - r.value < TOL      # player 2's best response against x
    assert r.value - (M @ y).min() < TOL      # player 1's best response against y
    assert r.exploitability >= -TOL


BOUNDS = [(variant, placement, k, seed)
          for variant in ("tactical", "logic")
          for placement in ("normal", "professional")
          for k, seed in ((2, 21), (3, 22), (3, 23), (4, 24))]


def check_bounds(position: Position) -> tuple[float, float, float]:
    value = solve_nash(position).value
    upper = Brute(position, "p1_first").root_value()
    lower = Brute(position, "p2_first").root_value()
    assert lower - TOL <= value <= upper + TOL, (lower, value, upper, format_position(position))
    return lower, value, upper


@pytest.mark.parametrize("case", BOUNDS, ids=dealt_id)
def test_serialized_bounds_bracket_the_value(case):
    check_bounds(dealt(*case))


def test_serialized_bounds_bracket_hand_made_and_some_are_strict():
    """(The dealt positions of BOUNDS are bracketed by the test above; two hand-made ones,
    low-4 and sixth-4, and some of BOUNDS have strict bounds.)"""
    strict = 0
    for position in HAND_MADE.values():
        lower, value, upper = check_bounds(position)
        strict += lower < value - 1e-6 and value < upper - 1e-6
    assert strict >= 1  # mixing matters somewhere: the bounds are not trivially equal


# ---------------------------------------------------------------- 4. cows and pure games

def total_cows(position: Position) -> int:
    return sum(card_cows(c) for c in (*[c for r in position.rows for c in r],
                                      *position.hands[0], *position.hands[1]))


@pytest.mark.parametrize("case", EXPLOIT[::3] + DEALT[::2], ids=dealt_id)
def test_expected_cows_difference_is_the_value(case):
    position = dealt(*case)
    r = solve_nash(position)
    assert r.p1_cows - r.p2_cows == pytest.approx(r.value, abs=TOL)
    assert r.p1_cows >= -TOL and r.p2_cows >= -TOL
    assert r.p1_cows + r.p2_cows <= total_cows(position) + TOL


def test_expected_cows_of_a_forced_round():
    """No choices anywhere: every card of both hands goes on a row in any order; nobody
    takes cows (rows short, no low cards)."""
    position = make([[1], [2], [3], [4]], [20, 22], [21, 23])
    r = solve_nash(position)
    assert r.value == 0 and r.p1_cows == 0 and r.p2_cows == 0
    # player 2's 9 is the sixth card of row 4 and takes it; player 1's 20 goes after the 9
    position = make([[1], [2], [3], [4, 5, 6, 7, 8]], [20], [9])
    r = solve_nash(position)
    expected = sum(card_cows(c) for c in (4, 5, 6, 7, 8))
    assert (r.p1_cows, r.p2_cows, r.value) == pytest.approx((0, expected, -expected), abs=TOL)


def test_k1_expected_cows_on_an_optimal_line():
    """k = 1: the outcome is forced up to row choices; player 1's expected cows must be
    those of some line where both owners choose optimally for D."""
    for variant, placement, seed in itertools.product(("tactical", "logic"),
                                                      ("normal", "professional"), range(8)):
        position = dealt(variant, placement, 1, seed)
        r = solve_nash(position)
        (a,), (b,) = position.hand, position.hands[1]
        cards = sorted([(a, P1), (b, P2)])
        prof = position.professional

        def lines(rows, i):
            """(D, p1 cows) of every optimal line from card i on."""
            if i == 2:
                return {(0, 0)}
            card, who = cards[i]  # noqa: B023 (called within the iteration)
            found = []
            for o in reference.options(rows, card, prof):  # noqa: B023
                new, cows = reference.apply_option(rows, card, o)
                d = cows if who == P1 else -cows
                mine = cows if who == P1 else 0
                found += [(d + dd, mine + cc) for dd, cc in lines(new, i + 1)]
            best = (min if who == P1 else max)(d for d, _ in found)
            return {(d, c) for d, c in found if d == best}

        ends = lines([list(row) for row in position.rows], 0)
        assert any(r.value == pytest.approx(d, abs=TOL)
                   and r.p1_cows == pytest.approx(c, abs=COWS_TOL)
                   for d, c in ends), (format_position(position), ends, r.p1_cows)


def pure_positions():
    found = []
    for case in DEALT + EXPLOIT:
        r = solve_nash(dealt(*case))
        if r.matrix_games == 0 and r.saddle_points > 0 and r.p1_cards and len(r.p1_cards) > 1:
            found.append((case, r))
    return found


def test_pure_saddle_positions_have_pure_frequencies():
    found = pure_positions()
    assert len(found) >= 3
    for case, r in found:
        assert set(r.p1_frequency) <= {0.0, 1.0} and set(r.p2_frequency) <= {0.0, 1.0}, case
        assert sum(r.p1_frequency) == 1 and sum(r.p2_frequency) == 1
        i, j = r.p1_frequency.index(1.0), r.p2_frequency.index(1.0)
        assert r.matrix[i, j] == pytest.approx(r.value, abs=TOL)   # the saddle cell
        assert r.matrix[i].max() == pytest.approx(r.value, abs=TOL)
        assert r.matrix[:, j].min() == pytest.approx(r.value, abs=TOL)


def test_analyse_nash_cards():
    """analyse_nash: every card with its EV, regret and frequency; best first."""
    position = parse_position(EXAMPLES["example"])
    r = solve_nash(position)
    a = analyse_nash(position)
    assert a.opponents == "nash" and a.method == "exact"
    assert a.value == pytest.approx(r.value, abs=TOL)
    assert sorted(c.card for c in a.cards) == sorted(position.hand)
    assert [c.value for c in a.cards] == sorted(c.value for c in a.cards)
    by_card = dict(zip(r.p1_cards, zip(r.p1_ev, r.p1_frequency)))
    for c in a.cards:
        assert c.value == pytest.approx(by_card[c.card][0], abs=TOL)
        assert c.frequency == pytest.approx(by_card[c.card][1], abs=TOL)
        assert c.regret == pytest.approx(c.value - r.value, abs=TOL)
        if c.frequency > 1e-9:  # played cards are best responses: EV = the value
            assert c.value == pytest.approx(r.value, abs=TOL)
    assert sum(c.frequency for c in a.cards) == pytest.approx(1, abs=TOL)


# ---------------------------------------------------------------- 5. the command line



def test_cli_table_has_frequency_column(runner):
    result = invoke(runner, "analyse", "example", "--opponents", "nash")
    assert_ok(result)
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("card"))
    assert header.split()[-1] == "frequency", header
    assert "game value" in result.stdout
    r = solve_nash(parse_position(EXAMPLES["example"]))
    assert f"{r.value:.4f}" in result.stdout
    # the frequencies in the table sum to 1 (to the printed precision)
    start = lines.index(header) + 2
    freqs = []
    for line in lines[start:]:
        if not line.strip():
            break
        cards = re.match(r"^(\d+(?:, \d+)*)\s", line).group(1).split(", ")
        freqs += [float(line.split()[-1])] * len(cards)
    assert len(freqs) == len(r.p1_cards)
    assert sum(freqs) == pytest.approx(1, abs=0.01)


def test_cli_json(runner):
    result = invoke(runner, "analyse", "example", "--opponents", "nash", "--format", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    r = solve_nash(parse_position(EXAMPLES["example"]))
    assert data["opponents"] == "nash"
    assert data["value"] == pytest.approx(r.value, abs=TOL)
    assert sorted(c["card"] for c in data["cards"]) == sorted(r.p1_cards)
    assert all("frequency" in c for c in data["cards"])
    assert sum(c["frequency"] for c in data["cards"]) == pytest.approx(1, abs=TOL)
    assert all(c["frequency"] >= -1e-12 for c in data["cards"])
    for c in data["cards"]:
        i = r.p1_cards.index(c["card"])
        assert c["value"] == pytest.approx(r.p1_ev[i], abs=TOL)
        assert c["frequency"] == pytest.approx(r.p1_frequency[i], abs=TOL)


@pytest.mark.parametrize("name", ["example", "example-pro"])
def test_cli_both_sides(runner, name):
    position = parse_position(EXAMPLES[name])
    result = invoke(runner, "analyse", name, "--opponents", "nash", "--both-sides")
    assert_ok(result)
    assert "player 2" in result.stdout
    text = result.stdout[result.stdout.index("p2 card"):]
    r = solve_nash(position)
    shown = {}
    for line in text.splitlines()[2:]:
        parts = line.split()
        if len(parts) != 3 or not parts[0].isdigit():
            break
        shown[int(parts[0])] = (float(parts[1]), float(parts[2]))
    assert set(shown) == set(position.hands[1])
    for card, ev, f in zip(r.p2_cards, r.p2_ev, r.p2_frequency):
        assert shown[card][0] == pytest.approx(ev, abs=5e-4)
        assert shown[card][1] == pytest.approx(f, abs=5e-4)
    # without the flag, player 2's side is not shown
    plain = invoke(runner, "analyse", name, "--opponents", "nash")
    assert_ok(plain)
    assert "p2 card" not in plain.stdout


def test_cli_verify(runner):
    result = invoke(runner, "analyse", "example", "--opponents", "nash", "--verify")
    assert_ok(result)
    assert re.search(r"^verify: .*exploitability", result.stdout, re.M), result.stdout


def test_cli_refuses_over_the_memory_budget(runner):
    dealt_text = invoke(runner, "deal", "--players", "2", "--seed", "3")
    assert_ok(dealt_text)
    text = dealt_text.stdout.strip()
    position = parse_position(text)
    assert position.cards_left == 10 and position.variant == "tactical"
    line = assert_one_line_error(invoke(runner, "analyse", text, "--opponents", "nash",
                                        "--method", "exact"))  # auto falls back
    estimate = estimate_states(position)
    assert estimate * nashplan.BYTES_PER_STATE > 8 * 2**30
    fit = largest_fitting_k(position, 8 * 2**30)
    assert 0 < fit < 10
    assert any(f in line for f in (f"{estimate:,}", f"{estimate}", f"{estimate:.1e}")), line
    assert re.search(rf"\bk\b[^0-9]*\b{fit}\b", line), line


def test_cli_small_memory_refuses_k8(runner):
    position = dealt("tactical", "normal", 8, 4)
    text = format_position(position)
    line = assert_one_line_error(invoke(runner, "analyse", text, "--opponents", "nash",
                                 "--memory", "1M", "--method", "exact"))  # auto falls back
    fit = largest_fitting_k(position, 2**20)
    assert fit < 8
    estimate = estimate_states(position)
    assert any(f in line for f in (f"{estimate:,}", f"{estimate}", f"{estimate:.1e}")), line
    assert re.search(rf"\bk\b[^0-9]*\b{fit}\b", line), line


def test_cli_memory_that_fits_solves(runner):
    result = invoke(runner, "analyse", "example", "--opponents", "nash", "--memory", "512M",
                    "--format", "json")
    assert_ok(result)
    assert json.loads(result.stdout)["value"] == pytest.approx(
        solve_nash(parse_position(EXAMPLES["example"])).value, abs=TOL)


def test_cli_nash_three_players(runner):
    line = assert_one_line_error(invoke(runner, "analyse", "example-3p", "--opponents", "nash"))
    assert "2" in line or "two" in line


@pytest.mark.parametrize("memory", ["lots", "0", "-1G", "1K", "", "G", "0.5M", "nan", "inf",
                                    "1e400"])
def test_cli_bad_memory(runner, memory):
    line = assert_one_line_error(invoke(runner, "analyse", "example", "--opponents", "nash",
                                 "--memory", memory))
    assert "memory" in line.lower() or repr(memory) in line or memory in line, line


# ---------------------------------------------------------------- alpha-beta windows

WINDOWED = [(variant, placement, k, seed)
            for variant in ("tactical", "logic")
            for placement in ("normal", "professional")
            for k, seed in ((3, 31), (4, 32), (5, 33), (5, 34))]


@pytest.mark.parametrize("case", WINDOWED, ids=dealt_id)
def test_windowed_search_gives_the_same_equilibrium(case):
    """With alpha-beta windows states may answer with a bound only; the root, its cells
    and player 1's cows come out the same as building every cell exactly (the search
    without its double oracle, which may settle on another equilibrium: the same value
    and cells, other cows)."""
    position = dealt(*case)
    plain, windowed = solve_nash(position), solve_nash(position, window=True)
    whole = solve_nash(position, oracle_from=NO_ORACLE)
    for exact in (plain, whole):
        assert windowed.value == pytest.approx(exact.value, abs=TOL)
        np.testing.assert_allclose(windowed.matrix, exact.matrix, rtol=0, atol=TOL)
    assert windowed.p1_cows == pytest.approx(whole.p1_cows, abs=COWS_TOL)
    assert windowed.exploitability < TOL
    assert plain.bound_cutoffs == 0


@pytest.mark.parametrize("name", ["low-4", "sixth-4", "pro-tie-4", "pro-mixed"])
def test_windowed_search_against_brute_force(name, solved):
    position = HAND_MADE[name]
    _, value, matrix, _ = solved(position)
    r = solve_nash(position, window=True)
    assert r.value == pytest.approx(value, abs=TOL)
    np.testing.assert_allclose(r.matrix, matrix, rtol=0, atol=TOL)


def test_windowed_search_cuts_off_states():
    r = solve_nash(dealt("tactical", "normal", 5, 33), window=True)
    assert r.bound_cutoffs > 0


# ---------------------------------------------------------------- workers and the table

from nimmt.solver.search import nash as nash_module  # noqa: E402


@pytest.mark.parametrize("case", [("tactical", "normal", 5, 41), ("logic", "professional", 5, 42),
                                  ("tactical", "normal", 6, 43)], ids=dealt_id)
def test_workers_share_the_table_and_agree(case):
    """Two threads on one shared table: the same root, strategies and cows as one
    (ties between equal choices are broken by cows, not by which thread came first)."""
    position = dealt(*case)
    one, two = solve_nash(position, workers=1), solve_nash(position, workers=2)
    assert two.workers == 2
    assert two.value == pytest.approx(one.value, abs=TOL)
    np.testing.assert_allclose(two.matrix, one.matrix, rtol=0, atol=TOL)
    assert two.p1_frequency == pytest.approx(one.p1_frequency, abs=TOL)
    assert two.p1_cows == pytest.approx(one.p1_cows, abs=COWS_TOL)


def test_table_doubles_as_it_fills_and_keeps_every_state(monkeypatch):
    position = dealt("tactical", "normal", 6, 44)
    expected = solve_nash(position)
    monkeypatch.setattr(nash_module, "estimate_states", lambda *a, **k: 1)
    grown = solve_nash(position, workers=2)
    assert grown.table_bytes > 1024 * 8 * (nashplan.KEY_NORMAL + 4)  # it doubled
    assert grown.value == pytest.approx(expected.value, abs=TOL)
    np.testing.assert_allclose(grown.matrix, expected.matrix, rtol=0, atol=TOL)
    assert grown.p1_cows == pytest.approx(expected.p1_cows, abs=COWS_TOL)
    assert grown.stored >= 0.9 * expected.stored  # nothing solved twice over


def test_table_that_outgrows_memory_refuses(monkeypatch):
    monkeypatch.setattr(nash_module, "estimate_states", lambda *a, **k: 1)
    with pytest.raises(NimmtError, match="filled memory") as info:  # the CLI: --memory
        solve_nash(dealt("tactical", "normal", 6, 44), memory=200_000)
    assert "filled --memory" in cli_message(info.value)


def test_time_limit_stops_with_a_clear_error():
    with pytest.raises(nash_module.NashStopped, match="time limit"):
        solve_nash(dealt("tactical", "normal", 7, 45), time_limit=1e-6)


def test_progress_counts_root_cells():
    seen = []
    position = dealt("tactical", "normal", 4, 46)
    solve_nash(position, progress=seen.append)
    assert seen == [1] * 16


def test_torn_entry_is_never_read():
    """The check word guards each entry: a value changed behind its back (a write in
    progress, or two at once) makes the entry invisible, so it is solved again."""
    table = nash_module.Table(16, 3, nash_module.VALUE_WORDS)
    key = np.array([5, 6, 7], np.int64)
    s, found = table.find(key)
    assert not found
    table.put(key, 1.5, 1.5, 2.0)
    assert table.find(key) == (s, True)
    table.values[s, 4] = 9.0  # hi changed, check word not
    t, found = table.find(key)
    assert not found and t != s


def test_cli_time_limit_is_one_line(runner):
    result = invoke(runner, "analyse", format_position(dealt("tactical", "normal", 7, 45)),
                    "--opponents", "nash", "--time-limit", "0.000001",
                    "--method", "exact")  # auto falls back to the random model instead
    assert_one_line_error(result)
    assert "time limit" in result.stderr
