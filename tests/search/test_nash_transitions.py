"""The equilibrium search's transitions (solver.search.nash), each on one- and two-card states:
cells and leaves encoded, a cell expanded into its leaves and combined back, the last
turn, the best-reply schedule, the table answers and stores, frames pushed and popped."""
from __future__ import annotations

import math

import numpy as np
import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.rules import HAND_SIZE, ROW_COUNT
from nimmt.solver.kernels.engine import row_table
from nimmt.solver.kernels.statekey import two_hands_layout
from nimmt.solver.kernels.table import Table
from nimmt.solver.search import matrixgame, nash

from naive import NashBrute as Brute

LAYOUT = two_hands_layout(False)

ROWS = [[10, 11], [13, 15], [17, 18, 20], [23]]
FULL = [[3, 4, 5, 6, 7], [9, 10, 11, 12, 13], [15, 16], [19, 20, 21, 22, 23]]
LEVELS = 3


def frames(rows=ROWS):
    """Empty frame arrays of a search with LEVELS levels, state 0 on ``rows``."""
    state_rows = np.zeros((LEVELS, ROW_COUNT, 4), np.int64)
    state_rows[0] = row_table(rows)
    return dict(
        frame=np.zeros((LEVELS, nash.FRAME_COLUMNS), np.int64),
        bounds=np.zeros((LEVELS, nash.BOUND_COLUMNS)),
        rows=state_rows,
        lower=np.zeros((LEVELS, HAND_SIZE, HAND_SIZE)),
        upper=np.zeros((LEVELS, HAND_SIZE, HAND_SIZE)),
        cows=np.zeros((LEVELS, HAND_SIZE, HAND_SIZE)),
        high_options=np.zeros((LEVELS, ROW_COUNT), np.int64),
        leaf_rows=np.zeros((LEVELS, nash.LEAVES, ROW_COUNT, 4), np.int64),
        leaf_diff=np.zeros((LEVELS, nash.LEAVES)),
        leaf_cows=np.zeros((LEVELS, nash.LEAVES)),
        scratch=np.zeros((ROW_COUNT, 4), np.int64))


def expand(fr, p1_card, p2_card, professional=False):
    return nash._expand_cell(fr["rows"], 0, p1_card, p2_card, professional, fr["leaf_rows"],
                             fr["leaf_diff"], fr["leaf_cows"], fr["high_options"],
                             fr["scratch"])


def table_rows(rows):
    return row_table(rows)


def test_cell_and_leaf_codes_round_trip():
    for row in range(HAND_SIZE):
        for column in range(HAND_SIZE):
            cell = nash.cell_code(row, column)
            assert cell >= 0 and (nash.cell_row(cell), nash.cell_column(cell)) == (row, column)
    leaves = set()
    for low in range(ROW_COUNT):
        for high in range(ROW_COUNT):
            leaf = nash.leaf_code(low, high)
            assert (nash.leaf_low_option(leaf), nash.leaf_high_option(leaf)) == (low, high)
            leaves.add(leaf)
    assert leaves == set(range(nash.LEAVES))


@pytest.mark.parametrize("rows,p1_card,p2_card", [
    (ROWS, 1, 2),      # both take a row: 4 x 4 leaves, player 2's card higher
    (ROWS, 12, 3),     # player 2 low, takes; player 1 lays on
    (FULL, 8, 24),     # sixth cards, no choice
    (FULL, 14, 1),
])
def test_expand_cell_matches_the_reference(rows, p1_card, p2_card):
    fr = frames(rows)
    low_options, low_owner, high_owner = expand(fr, p1_card, p2_card)
    low_card, high_card = sorted((p1_card, p2_card))
    assert (low_owner, high_owner) == ((nash.P1_OWNER, nash.P2_OWNER) if p1_card < p2_card
                                       else (nash.P2_OWNER, nash.P1_OWNER))
    low_opts = reference.options(rows, low_card, False)
    assert low_options == len(low_opts)
    for o1, opt1 in enumerate(low_opts):
        after1, cows1 = reference.apply_option(rows, low_card, opt1)
        high_opts = reference.options(after1, high_card, False)
        assert fr["high_options"][0, o1] == len(high_opts)
        for o2, opt2 in enumerate(high_opts):
            after2, cows2 = reference.apply_option(after1, high_card, opt2)
            leaf = nash.leaf_code(o1, o2)
            p1 = cows1 if low_owner == nash.P1_OWNER else cows2
            assert fr["leaf_cows"][0, leaf] == p1
            assert fr["leaf_diff"][0, leaf] == 2 * p1 - cows1 - cows2
            np.testing.assert_array_equal(fr["leaf_rows"][0, leaf], row_table(after2))
            fr["frame"][0, nash.F_LOW_OPTIONS] = low_options
            assert nash._next_leaf(fr["frame"], fr["high_options"], 0, leaf) == leaf
        after = nash.leaf_code(o1 + 1, 0) if o1 + 1 < low_options else nash.LEAVES
        for o2 in range(len(high_opts), ROW_COUNT):  # not leaves: the next one is
            assert nash._next_leaf(fr["frame"], fr["high_options"], 0,
                                   nash.leaf_code(o1, o2)) == after


def brute(rows, h1, h2, professional=False):
    from types import SimpleNamespace
    return Brute(SimpleNamespace(players=2, all_known=True, professional=professional,
                                 rows=rows, hands=(tuple(h1), tuple(h2))))


@pytest.mark.parametrize("rows,p1_card,p2_card", [(ROWS, 1, 2), (ROWS, 2, 1), (ROWS, 12, 3),
                                                   (FULL, 8, 24), (FULL, 14, 1)])
def test_combine_cell_and_last_turn_are_the_one_card_game(rows, p1_card, p2_card):
    """One card each: the cell is the whole game; its leaves' next states are worth 0."""
    fr = frames(rows)
    low_options, low_owner, high_owner = expand(fr, p1_card, p2_card)
    d = fr["leaf_diff"]
    lower, upper, cows = nash._combine_cell(low_options, fr["high_options"], 0, low_owner,
                                            high_owner, d, d, fr["leaf_cows"])
    expected = brute(rows, [p1_card], [p2_card]).root_value()
    assert lower == upper == pytest.approx(expected)
    fr["leaf_rows"][0, 0] = row_table(rows)
    last = nash._last_turn(fr["leaf_rows"], 0, 0, p1_card, p2_card, False, fr["scratch"],
                           np.zeros((ROW_COUNT, 4), np.int64))
    assert last == (lower, upper, cows)


def test_combine_cell_picks_each_owners_choice_and_fewest_cows():
    """Player 1 owns the low card (4 options: take a row), player 2 the high one (1):
    player 1 takes the least; among equal values the fewer cows."""
    high_options = np.zeros((1, ROW_COUNT), np.int64)
    high_options[0, :] = 1
    lower = np.zeros((1, nash.LEAVES))
    cows = np.zeros((1, nash.LEAVES))
    for o1, (v, c) in enumerate([(3.0, 3.0), (1.0, 2.0), (1.0, 1.0), (5.0, 5.0)]):
        lower[0, nash.leaf_code(o1, 0)] = v
        cows[0, nash.leaf_code(o1, 0)] = c
    got = nash._combine_cell(4, high_options, 0, nash.P1_OWNER, nash.P2_OWNER, lower, lower,
                             cows)
    assert got == (1.0, 1.0, 1.0)
    got = nash._combine_cell(4, high_options, 0, nash.P2_OWNER, nash.P1_OWNER, lower, lower,
                             cows)
    assert got == (5.0, 5.0, 5.0)


def schedule(matrix, phase=nash.PHASE_ROW, window=False, alpha=-math.inf, beta=math.inf):
    """Run _next_cell on a two-card state whose cells are all exact: its decision."""
    fr = frames()
    k = len(matrix)
    fr["lower"][0, :k, :k] = fr["upper"][0, :k, :k] = matrix
    fr["frame"][0, nash.F_PHASE] = phase
    fr["bounds"][0, nash.B_LOWER], fr["bounds"][0, nash.B_UPPER] = -math.inf, math.inf
    decision = nash._next_cell(fr["lower"], fr["upper"], fr["frame"], fr["bounds"], 0, k,
                               alpha, beta, window, nash.NO_ORACLE, nash.oracle_work())
    return decision, fr


def test_next_cell_finds_a_best_reply_saddle():
    (decision, _, _), fr = schedule([[1.0, 2.0], [3.0, 4.0]])
    assert decision == nash.NASH_SADDLE
    assert (fr["frame"][0, nash.F_ROW], fr["frame"][0, nash.F_COLUMN]) == (0, 1)
    assert fr["bounds"][0, nash.B_LOWER] == fr["bounds"][0, nash.B_UPPER] == 2.0


def test_next_cell_mixed_game_goes_full():
    (decision, _, _), fr = schedule([[0.0, 1.0], [1.0, 0.0]])
    assert decision == nash.NASH_FULL
    assert fr["frame"][0, nash.F_ALTERNATIONS] == nash.MAX_ALTERNATIONS


def test_next_cell_bound_outside_the_window():
    (decision, _, _), _ = schedule([[5.0, 9.0], [9.0, 5.0]], window=True, alpha=0.0, beta=2.0)
    assert decision == nash.NASH_BOUND


def test_next_cell_asks_for_unknown_cells_and_windows():
    fr = frames()
    fr["lower"][0, :2, :2], fr["upper"][0, :2, :2] = -math.inf, math.inf
    fr["frame"][0, nash.F_PHASE] = nash.PHASE_FULL
    cell, a, b = nash._next_cell(fr["lower"], fr["upper"], fr["frame"], fr["bounds"], 0, 2,
                                 -math.inf, math.inf, False, nash.NO_ORACLE, nash.oracle_work())
    assert cell == nash.cell_code(0, 0) and (a, b) == (-math.inf, math.inf)
    fr["lower"][0, 0, 0] = fr["upper"][0, 0, 0] = 3.0
    fr["frame"][0, nash.F_PHASE] = nash.PHASE_ROW
    cell, a, b = nash._next_cell(fr["lower"], fr["upper"], fr["frame"], fr["bounds"], 0, 2,
                                 0.0, 10.0, True, nash.NO_ORACLE, nash.oracle_work())
    assert cell == nash.cell_code(0, 1) and (a, b) == (3.0, 10.0)  # only above row 0's best


def test_decided():
    fr = frames()
    b = fr["bounds"]
    b[0, nash.B_LOWER], b[0, nash.B_UPPER] = 1.0, 1.0
    fr["frame"][0, nash.F_UPPER_ROW], fr["frame"][0, nash.F_LOWER_COLUMN] = 1, 0
    assert nash._decided(fr["frame"], b, 0, -math.inf, math.inf) == nash.NASH_EXACT
    assert fr["frame"][0, nash.F_PHASE] == nash.PHASE_SADDLE
    assert (fr["frame"][0, nash.F_ROW], fr["frame"][0, nash.F_COLUMN]) == (1, 0)
    b[0, nash.B_LOWER], b[0, nash.B_UPPER] = 0.0, 1.0
    assert nash._decided(fr["frame"], b, 0, 2.0, 5.0) == nash.NASH_BOUND
    assert nash._decided(fr["frame"], b, 0, -1.0, 5.0) == 0


def test_start_and_enter_state():
    fr = frames()
    root_cells = np.zeros((2, 2), np.bool_)
    root_cells[1, 0] = True
    def start(f, k):
        """_solve's start of state f: its schedule, then the first cell _next_cell names."""
        nash._start_state(fr["frame"], fr["bounds"], fr["lower"], fr["upper"], fr["cows"],
                          root_cells, f, k)
        cell, alpha, beta = nash._next_cell(
            fr["lower"], fr["upper"], fr["frame"], fr["bounds"], f, k,
            fr["bounds"][f, nash.B_ALPHA], fr["bounds"][f, nash.B_BETA], False,
            nash.ORACLE_FROM, nash.oracle_work())
        nash._enter_cell(fr["frame"], fr["bounds"], f, cell, alpha, beta)

    start(0, 2)
    assert fr["frame"][0, nash.F_PHASE] == nash.PHASE_FULL
    assert fr["frame"][0, nash.F_CELL] == nash.cell_code(1, 0)  # the only cell to build
    assert fr["frame"][0, nash.F_LEAF] == -1
    assert fr["lower"][0, 0, 0] == fr["upper"][0, 0, 0] == 0.0
    fr["bounds"][1, nash.B_ALPHA], fr["bounds"][1, nash.B_BETA] = -math.inf, math.inf
    start(1, 1)
    assert fr["frame"][1, nash.F_PHASE] == nash.PHASE_ROW
    assert fr["frame"][1, nash.F_CELL] == nash.cell_code(0, 0)


def test_push_state_removes_the_turns_cards():
    fr = frames()
    expand(fr, 12, 3)
    cards = np.zeros((LEVELS, 2 * HAND_SIZE), np.int64)
    owners = np.zeros((LEVELS, 2 * HAND_SIZE), np.int64)
    cards[0, :4], owners[0, :4] = [1, 3, 12, 14], [1, 2, 1, 2]
    p1_hand = np.zeros((LEVELS, HAND_SIZE), np.int64)
    p2_hand = np.zeros((LEVELS, HAND_SIZE), np.int64)
    p1_hand[0, :2], p2_hand[0, :2] = [1, 12], [3, 14]
    keys = np.zeros((LEVELS, 3), np.int64)
    key = np.array([7, 8, 9], np.int64)
    leaf = nash.leaf_code(2, 0)
    nash._push_state(fr["bounds"], fr["rows"], cards, owners, p1_hand, p2_hand, keys,
                     fr["leaf_rows"], key, 3, 0, leaf, 2, 12, 3, -1.0, 4.0)
    assert list(cards[1, :2]) == [1, 14] and list(owners[1, :2]) == [1, 2]
    assert p1_hand[1, 0] == 1 and p2_hand[1, 0] == 14
    np.testing.assert_array_equal(fr["rows"][1], fr["leaf_rows"][0, leaf])
    assert list(keys[1]) == [7, 8, 9]
    assert (fr["bounds"][1, nash.B_ALPHA], fr["bounds"][1, nash.B_BETA]) == (-1.0, 4.0)
    assert nash._other_card(p1_hand, 0, 12) == 1 and nash._other_card(p2_hand, 0, 3) == 14


def test_leaf_solved_adds_the_leafs_cows():
    lower, upper, total = (np.zeros((1, nash.LEAVES)) for _ in range(3))
    diff, cows = np.full((1, nash.LEAVES), 2.0), np.full((1, nash.LEAVES), 3.0)
    nash._leaf_solved(lower, upper, total, diff, cows, 0, 5, -1.0, 1.0, 4.0)
    assert (lower[0, 5], upper[0, 5], total[0, 5]) == (1.0, 3.0, 7.0)


def test_state_value_each_decision():
    fr = frames()
    fr["lower"][0, :2, :2] = [[0.0, 1.0], [1.0, 0.0]]
    fr["cows"][0, :2, :2] = [[2.0, 0.0], [0.0, 2.0]]
    stats = np.zeros(nash.N_SLOTS, np.int64)
    x, y = np.zeros(HAND_SIZE), np.zeros(HAND_SIZE)
    tableau = np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1))
    args = (fr["frame"], fr["bounds"], fr["lower"], fr["cows"], 0, 2, x, y, tableau, stats,
            nash.oracle_work())
    assert nash._state_value(nash.NASH_FULL, *args) == pytest.approx((0.5, 0.5, 1.0))
    assert stats[nash.N_LP] == 1
    fr["frame"][0, nash.F_ROW], fr["frame"][0, nash.F_COLUMN] = 0, 1
    assert nash._state_value(nash.NASH_SADDLE, *args) == (1.0, 1.0, 0.0)
    fr["bounds"][0, nash.B_LOWER], fr["bounds"][0, nash.B_UPPER] = -1.0, 0.25
    lower, upper, cows = nash._state_value(nash.NASH_BOUND, *args)
    assert (lower, upper) == (-1.0, 0.25) and math.isnan(cows)
    assert stats[nash.N_REPLY] == 1 and stats[nash.N_CUT] == 1


def test_store_state_and_stored_answer():
    table = Table(16, 3, nash.VALUE_WORDS)
    e, v = table.entries, table.values
    control = np.zeros(nash.CONTROL_SLOTS, np.int64)
    control[nash.C_EVERY], control[nash.C_LIMIT] = 1, 100
    stats = np.zeros(nash.STATS_STRIDE, np.int64)
    key = np.array([1, 2, 3], np.int64)
    assert nash._stored_answer(e, v, key, 3, -math.inf, math.inf, False, 0) == \
        (False, 0.0, 0.0, 0.0)
    # a bound (upper 1.0) answers a window above it, not one around it
    assert nash._store_state(e, v, key, 3, -math.inf, 1.0, math.nan, control, stats, 0, 3,
                             False, LAYOUT) == (False, 0)
    assert stats[nash.N_STORED] == 1 and control[nash.C_USED] == 1
    found, lower, upper, cows = nash._stored_answer(e, v, key, 3, 2.0, 5.0, False, 0)
    assert found and (lower, upper) == (-math.inf, 1.0) and math.isnan(cows)
    assert not nash._stored_answer(e, v, key, 3, 0.0, 5.0, False, 0)[0]
    # a second bound: the tighter of both; then an exact value replaces it
    nash._store_state(e, v, key, 3, 0.0, 2.0, math.nan, control, stats, 0, 3, False, LAYOUT)
    assert table.get(key)[:2] == (0.0, 1.0)
    nash._store_state(e, v, key, 3, 0.5, 0.5, 3.0, control, stats, 0, 3, False, LAYOUT)
    assert nash._stored_answer(e, v, key, 3, 9.0, 10.0, False, 0) == (True, 0.5, 0.5, 3.0)
    assert stats[nash.N_STORED] == 1
    # the entry limit stops the search
    control[nash.C_LIMIT] = 2
    aborted, unreported = nash._store_state(e, v, np.array([4, 5, 6], np.int64), 3, 1.0, 1.0,
                                            1.0, control, stats, 0, 3, False, LAYOUT)
    assert aborted and unreported == 0 and control[nash.C_STOP] == nash.ABORT_FULL


def oracle_search(game, oracle_from=nash.ORACLE_FROM, f=1):
    """The schedule of state f (1: not the root) of len(game) cards each, every cell built
    (made exact) only when _next_cell asks for it: (its value, cells built, the
    decision)."""
    k = len(game)
    fr = frames()
    work = nash.oracle_work()
    fr["lower"][f, :k, :k], fr["upper"][f, :k, :k] = -math.inf, math.inf
    fr["bounds"][f, nash.B_LOWER], fr["bounds"][f, nash.B_UPPER] = -math.inf, math.inf
    fr["frame"][f, nash.F_PHASE] = nash.PHASE_ROW
    built = 0
    while True:
        decision, _, _ = nash._next_cell(fr["lower"], fr["upper"], fr["frame"], fr["bounds"],
                                         f, k, -math.inf, math.inf, False, oracle_from, work)
        if decision < 0:
            break
        a, b = nash.cell_row(decision), nash.cell_column(decision)
        assert fr["lower"][f, a, b] != fr["upper"][f, a, b]  # never built twice
        fr["lower"][f, a, b] = fr["upper"][f, a, b] = game[a][b]
        fr["cows"][f, a, b] = 1.0
        built += 1
    stats = np.zeros(nash.N_SLOTS, np.int64)
    value, upper, cows = nash._state_value(decision, fr["frame"], fr["bounds"], fr["lower"],
                                           fr["cows"], f, k, np.zeros(HAND_SIZE),
                                           np.zeros(HAND_SIZE),
                                           np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1)), stats,
                                           work)
    assert value == upper and cows == pytest.approx(1.0)  # the strategies' weights sum to 1
    if decision == nash.NASH_ORACLE:  # its strategies are optimal on the whole matrix
        xs, ys = work[1][:k], work[2][:k]
        whole = np.array(game, dtype=float)
        assert (whole @ ys).min() >= value - 1e-9 and (xs @ whole).max() <= value + 1e-9
    return value, built, decision


@pytest.mark.parametrize("seed", range(4))
def test_oracle_inside_the_search_gives_the_games_value(seed):
    """Random mixed games of ORACLE_FROM-10 cards: the oracle's value is the whole matrix's
    (the simplex on every cell), its strategies are optimal on every cell, and where the
    search before it built the whole matrix it builds fewer cells in most games."""
    rng = np.random.default_rng(seed)
    oracles, fewer = 0, 0
    for _ in range(40):
        k = int(rng.integers(nash.ORACLE_FROM, HAND_SIZE + 1))
        game = (rng.integers(-3, 4, size=(k, k)).astype(float) if rng.random() < 0.5
                else rng.normal(size=(k, k)))
        whole = np.ascontiguousarray(game)
        value, _ = matrixgame.matrix_game(whole, k, k, np.zeros(HAND_SIZE), np.zeros(HAND_SIZE),
                                     np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1)))
        got, built, decision = oracle_search(game)
        assert got == pytest.approx(value, abs=1e-9)
        oracles += decision == nash.NASH_ORACLE
        fewer += built < k * k
        old, old_built, old_decision = oracle_search(game, oracle_from=nash.NO_ORACLE)
        assert old == pytest.approx(value, abs=1e-9)
        assert old_decision in (nash.NASH_FULL, nash.NASH_SADDLE)
        if old_decision == nash.NASH_FULL:
            assert decision in (nash.NASH_ORACLE, nash.NASH_SADDLE) and old_built == k * k
    assert oracles > 10 and fewer > 10  # mixed games are common, and cells are saved


def test_oracle_not_used_below_its_size_nor_at_the_root():
    game = [[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]]  # mixed
    value, built, decision = oracle_search(game)
    assert decision == nash.NASH_FULL and built == 9 and value == pytest.approx(0.0)
    cyclic = [[float((b - a) % 5 in (1, 2)) - float((b - a) % 5 in (3, 4)) for b in range(5)]
              for a in range(5)]  # a mixed 5-card game: the oracle below the root only
    assert oracle_search(cyclic)[2] == nash.NASH_ORACLE
    value, built, decision = oracle_search(cyclic, f=0)
    assert decision == nash.NASH_FULL and built == 25 and value == pytest.approx(0.0)
