"""The two-player equilibrium (model ``nash``): both hands known, the rest of the round
as a zero-sum simultaneous-move game on (player 1's cows - player 2's cows).

Backward induction in the kernel ``_solve``: each state's value is the value of the
k-by-k matrix game of its cells, a cell being both cards resolved (row choices inside
it as sequential min/max) plus the next state's value; best replies first, a pure saddle
point ends a state early; matrix games by ``matrix_game`` (solver.search.matrixgame: a
dense simplex with Bland's rule). States live in a shared transposition table
(solver.kernels.table) under keys of solver.kernels.statekey (two known hands: 3 words,
5 professional); ``solve_nash`` hands the root's cells to worker threads, solves the
root's game and reports strategies; how large its table is and how it grows is
solver.search.nashplan's.
"""
from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.defaults import DEFAULT_MEMORY
from ..base.errors import BudgetExceeded, MemoryExceeded, NashStopped, NimmtError, param
from ..base.notice import work_clock
from ..base.rules import HAND_SIZE, ROW_COUNT
from ..kernels.engine import find_end, jit, jit_inline, row_table
from ..kernels.statekey import (
    L_COUNT_SHIFT,
    L_COUNT_WORD,
    L_RANK_BITS,
    L_WIDTH,
    key_width,
    pack_key,
    two_hands_layout,
)
from ..kernels.table import (
    REACH,
    Table,
    probe,
    probe_within,
    read_compact,
    recall,
    recent_cache,
    remember,
    replaceable,
    rounded_cows,
    store,
    store_compact,
)
from ..kernels.turns import kind_option_count, play_found_option, sort_turn
from ..positions.position import Position
from .matrixgame import matrix_game
from .nashplan import (
    FULL_LOAD,
    MEMO_FROM,
    VALUE_WORDS,
    Spill,
    estimate_bytes,
    estimate_states,
    fill_limit,
    largest_fitting_k,
    recent_slots,
    replacing_slots,
    slot_bytes,
    slots_for,
    table_slots,
)

__all__ = ["NashResult", "ROOT_ALL", "ROOT_CELLS", "ROOT_NEEDED", "RootStep",
           "SEARCH_VERSION", "check_nash_position", "estimate_bytes", "estimate_states",
           "bound_root_cells", "largest_fitting_k", "nash_from_cells", "replies",
           "root_oracle", "solve_nash", "solve_root_cells"]

# The search's version, as far as a root cell's bits go: raised whenever a change can move
# a cell's value or cows in its last bits (another equilibrium of an inner state, another
# rounding), so that a checkpoint tells its cells from this search's. Files before 3 carry
# none (1 and 2, the search before and after the double oracles, were never
# written); 3: every stored state's cows rounded as the compact table keeps them.
SEARCH_VERSION = 3
# Root cells: every one (the whole matrix, the default) or the ones a double oracle needs
ROOT_ALL, ROOT_NEEDED = "all", "needed"
ROOT_CELLS = (ROOT_ALL, ROOT_NEEDED)
# A best reply joins the oracle's restricted game when it beats the game's value by more
# than this (below it, float rounding of an equal reply; the exploitability stays there)
ORACLE_TOLERANCE = 1e-12


# ---------------------------------------------------------------- encodings and frames

MAX_ALTERNATIONS = 3          # best-reply rounds before a state builds every cell
PHASE_ROW, PHASE_COLUMN, PHASE_FULL, PHASE_SADDLE, PHASE_ORACLE = 0, 1, 2, 3, 4
# what _next_cell answers when a state is decided (cells are >= 0)
NASH_SADDLE, NASH_FULL, NASH_BOUND, NASH_EXACT, NASH_ORACLE = -1, -2, -3, -4, -5
# States of at least this many cards each go on from their best replies by a double
# oracle (PHASE_ORACLE: only the cells its proof needs) instead of building every cell;
# NO_ORACLE turns it off (the search before it)
ORACLE_FROM = 4
EVERYTHING = np.array([-math.inf, math.inf])  # a root window that builds cells exactly
NO_ORACLE = HAND_SIZE + 1
# windows shift by each leaf's cows, so a bound comes back rounded: within SLACK it counts
# as reached (else a cell could be searched again in the same window for ever)
SLACK = 1e-12
# stats[] slots
(N_STATES, N_HITS, N_CELLS, N_CUT, N_LP, N_SADDLE, N_REPLY, N_ABORTED, N_STORED,
 N_REPLACED, N_DROPPED, N_ORACLE, N_RECALLED) = range(13)
N_SLOTS = 13
LEVEL_BASE = 16      # stats[LEVEL_BASE + k]: states of k cards each stored (k <= HAND_SIZE)
ABORT_NODES, ABORT_FULL, ABORT_STOP = 1, 2, 3
# control[] slots, shared by the workers: stop flag, entries stored, the most entries
# allowed, how many stores a worker adds to C_USED at a time (a shared count is
# contended; the slack, C_EVERY per worker, stays well below the free slots), and the
# reach of a replacing table (0: the table does not replace; solver.kernels.table)
C_STOP, C_USED, C_LIMIT, C_EVERY, C_REACH = range(5)
CONTROL_SLOTS = 5
REPORT_EVERY = 4096
STATS_STRIDE = 64    # each worker's stats array is this long: none shares a cache line
P1_OWNER, P2_OWNER = 1, 2

# A cell: player 1's card (row of the state's matrix) and player 2's (column), by index.
CELL_BASE = 16       # > HAND_SIZE
# A leaf of a cell: the lower card's option, then the higher card's (each < ROW_COUNT).
LEAF_BASE = ROW_COUNT
LEAVES = LEAF_BASE * LEAF_BASE

# A frame (one per card played: the stack is as deep as the hands) is a row of named
# integer columns (frame[f, F_*]) and one of float columns (bounds[f, B_*]), beside
# per-frame arrays (rows, cards, cell values, leaves).
(F_PHASE, F_ROW, F_COLUMN, F_ALTERNATIONS, F_UPPER_ROW, F_LOWER_COLUMN,  # the schedule
 F_CELL, F_LEAF, F_LOW_OPTIONS, F_LOW_OWNER, F_HIGH_OWNER,
 F_ORACLE_ROWS, F_ORACLE_COLUMNS) = range(13)
FRAME_COLUMNS = 13
# F_PHASE..F_LOWER_COLUMN: the phase, the row r and column c of the best replies, rounds
# done, the row that gave the upper bound and the column that gave the lower one.
# F_ORACLE_ROWS / F_ORACLE_COLUMNS: the double oracle's restricted game, as bit masks.
(B_ALPHA, B_BETA,            # the state's window
 B_LOWER, B_UPPER,           # its value's proven bounds
 B_CELL_ALPHA, B_CELL_BETA,  # the window of the cell being built
 ) = range(6)
BOUND_COLUMNS = 6


@jit_inline
def cell_code(row, column):
    """The cell of player 1's card ``row`` and player 2's ``column`` (indices)."""
    return row * CELL_BASE + column


@jit_inline
def cell_row(cell):
    return cell // CELL_BASE


@jit_inline
def cell_column(cell):
    return cell % CELL_BASE


@jit_inline
def leaf_code(low_option, high_option):
    """The leaf of the lower card's option ``low_option`` and the higher card's."""
    return low_option * LEAF_BASE + high_option


@jit_inline
def leaf_low_option(leaf):
    return leaf // LEAF_BASE


@jit_inline
def leaf_high_option(leaf):
    return leaf % LEAF_BASE


# ---------------------------------------------------------------- transitions

@jit_inline
def _decided(frame, bounds, f, alpha, beta):
    """After a row or column: NASH_EXACT (the bounds meet; the saddle cell's own value
    still has to be exact, for player 1's cows), NASH_BOUND (a bound outside the
    window answers the caller) or 0 (go on)."""
    if bounds[f, B_UPPER] - bounds[f, B_LOWER] <= 1e-12:
        frame[f, F_PHASE] = PHASE_SADDLE
        frame[f, F_ROW], frame[f, F_COLUMN] = frame[f, F_UPPER_ROW], frame[f, F_LOWER_COLUMN]
        return NASH_EXACT
    if bounds[f, B_UPPER] <= alpha + SLACK or bounds[f, B_LOWER] >= beta - SLACK:
        return NASH_BOUND
    return 0


@jit
def oracle_work():
    """Scratch arrays of oracle_step (``work``): the restricted game, its strategies over
    every card (xs, ys), the simplex's strategies and tableau, and the cells missing."""
    return (np.zeros((HAND_SIZE, HAND_SIZE)), np.zeros(HAND_SIZE), np.zeros(HAND_SIZE),
            np.zeros(HAND_SIZE), np.zeros(HAND_SIZE),
            np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1)),
            np.zeros(HAND_SIZE * HAND_SIZE, np.int64))


@jit_inline
def _restricted_game(lower, rows, columns, k, work):
    """The value of the game ``lower`` restricted to the rows and columns of the bit masks
    ``rows`` and ``columns`` (its cells exact); its strategies over all k cards into
    work's xs, ys."""
    game, xs, ys, x, y, tableau = work[0], work[1], work[2], work[3], work[4], work[5]
    m, n = 0, 0
    for a in range(k):
        if rows >> a & 1:
            n = 0
            for b in range(k):
                if columns >> b & 1:
                    game[m, n] = lower[a, b]
                    n += 1
            m += 1
    # int64, never a literal 0 (a copy of matrix_game compiled for each literal)
    value, _ = matrix_game(game, np.int64(m), np.int64(n), x, y, tableau)
    m = 0
    for a in range(k):
        xs[a] = 0.0
        if rows >> a & 1:
            xs[a] = max(x[m], 0.0)  # the simplex's duals may come out -1e-17
            m += 1
    n = 0
    for b in range(k):
        ys[b] = 0.0
        if columns >> b & 1:
            ys[b] = max(y[n], 0.0)
            n += 1
    return value


@jit_inline
def _missing_in_game(lower, upper, rows, columns, k, missing):
    """The cells of the restricted game (bit masks ``rows``, ``columns``) not known yet,
    into ``missing`` (cell codes); how many."""
    count = 0
    for a in range(k):
        if rows >> a & 1:
            for b in range(k):
                if columns >> b & 1 and lower[a, b] != upper[a, b]:
                    missing[count] = cell_code(a, b)
                    count += 1
    return count


@jit_inline
def _missing_against_support(lower, upper, xs, ys, k, missing):
    """The cells not known yet of each card against the other side's support (xs, ys):
    the columns ys plays, then the rows xs plays (their cells outside those columns),
    into ``missing``; how many."""
    count = 0
    for b in range(k):
        if ys[b] > 0.0:
            for a in range(k):
                if lower[a, b] != upper[a, b]:
                    missing[count] = cell_code(a, b)
                    count += 1
    for a in range(k):
        if xs[a] > 0.0:
            for b in range(k):
                if lower[a, b] != upper[a, b] and not ys[b] > 0.0:
                    missing[count] = cell_code(a, b)
                    count += 1
    return count


@jit_inline
def _best_row_reply(lower, rows, ys, k):
    """(row, value): the row player's best reply to ``ys`` among the rows not in the
    bit mask ``rows`` (the lowest; (0, inf) when there is none)."""
    best_row, row_value = 0, math.inf
    for a in range(k):
        if rows >> a & 1:
            continue
        total = 0.0
        for b in range(k):
            if ys[b] > 0.0:
                total += ys[b] * lower[a, b]
        if total < row_value:
            best_row, row_value = a, total
    return best_row, row_value


@jit_inline
def _best_column_reply(lower, columns, xs, k):
    """(column, value): the column player's best reply to ``xs`` among the columns not
    in the bit mask ``columns`` (the highest; (0, -inf) when there is none)."""
    best_column, column_value = 0, -math.inf
    for b in range(k):
        if columns >> b & 1:
            continue
        total = 0.0
        for a in range(k):
            if xs[a] > 0.0:
                total += xs[a] * lower[a, b]
        if total > column_value:
            best_column, column_value = b, total
    return best_column, column_value


@jit_inline
def _grow_game(lower, masks, value, k, xs, ys):
    """Each side's best reply joins the restricted game (``masks``) when it beats the
    game's ``value`` by more than ORACLE_TOLERANCE; whether one did."""
    rows, columns = masks[0], masks[1]
    best_row, row_value = _best_row_reply(lower, rows, ys, k)
    best_column, column_value = _best_column_reply(lower, columns, xs, k)
    grew = False
    if row_value < value - ORACLE_TOLERANCE:
        masks[0] = rows | 1 << best_row
        grew = True
    if column_value > value + ORACLE_TOLERANCE:
        masks[1] = columns | 1 << best_column
        grew = True
    return grew


@jit
def oracle_step(lower, upper, k, masks, work, missing):
    """One double oracle's step on a k-by-k matrix game (row player minimising) of which
    a cell is known when lower == upper there (its value); ``masks`` = [rows, columns] of
    its restricted game as bit masks (grown here). The cells it needs next go into
    ``missing`` (cell codes) and their count is returned: the restricted game's cells
    first; then, the restricted game solved, each card against the other side's support
    (those lines must be whole). Once they are known, each side's best reply among the
    cards not yet in the game joins it when it beats the game's value by more than
    ORACLE_TOLERANCE; when neither does, it returns 0 and the restricted equilibrium is
    the whole game's: its value, with the strategies in work's xs and ys. Both oracles
    step through it: the search's states (_next_cell) and the root's cells
    (root_oracle)."""
    xs, ys = work[1], work[2]
    while True:
        count = _missing_in_game(lower, upper, masks[0], masks[1], k, missing)
        if count:
            return count, 0.0
        value = _restricted_game(lower, masks[0], masks[1], k, work)
        count = _missing_against_support(lower, upper, xs, ys, k, missing)
        if count:
            return count, 0.0
        if not _grow_game(lower, masks, value, k, xs, ys):
            return 0, value


@jit_inline
def _start_oracle(lower, upper, frame, f, k):
    """State f leaves its best replies for the double oracle: its restricted game is
    every row and every column it has built whole (at least the last best replies)."""
    rows = columns = (1 << k) - 1
    for a in range(k):
        for b in range(k):
            if lower[f, a, b] != upper[f, a, b]:  # a cell not built: neither line is whole
                rows &= ~(1 << a)
                columns &= ~(1 << b)
    frame[f, F_ORACLE_ROWS], frame[f, F_ORACLE_COLUMNS] = rows, columns
    frame[f, F_PHASE] = PHASE_ORACLE


@jit_inline
def _oracle_cell(lower, upper, frame, f, k, work):
    """PHASE_ORACLE: the first cell state f's double oracle needs, or NASH_ORACLE."""
    count, _ = oracle_step(lower[f], upper[f], k,
                           frame[f, F_ORACLE_ROWS:F_ORACLE_COLUMNS + 1], work, work[6])
    if count:
        return work[6][0], -math.inf, math.inf
    return NASH_ORACLE, 0.0, 0.0


@jit_inline
def _full_cell(lower, upper, f, k):
    """PHASE_FULL: the first cell of state f not exact yet, or NASH_FULL."""
    for a in range(k):
        for b in range(k):
            if lower[f, a, b] != upper[f, a, b]:
                return cell_code(a, b), -math.inf, math.inf
    return NASH_FULL, 0.0, 0.0


@jit_inline
def _saddle_cell(lower, upper, frame, f):
    """PHASE_SADDLE: the saddle cell while it is not exact, then NASH_SADDLE."""
    r, c = frame[f, F_ROW], frame[f, F_COLUMN]
    if lower[f, r, c] != upper[f, r, c]:
        return cell_code(r, c), -math.inf, math.inf
    return NASH_SADDLE, 0.0, 0.0


@jit_inline
def _row_cell(lower, upper, f, k, r, alpha, beta, window):
    """PHASE_ROW: the next cell of row r to build, with its window (each cell only
    needs to be shown below the row's best so far), or (-1, 0, 0) when the row is done."""
    for b in range(k):
        if lower[f, r, b] == upper[f, r, b]:
            continue
        if not window:
            return cell_code(r, b), -math.inf, math.inf
        low = alpha
        for b2 in range(k):
            if b2 != b and lower[f, r, b2] > low:
                low = lower[f, r, b2]
        if (low >= beta - SLACK or upper[f, r, b] <= low + SLACK
                or lower[f, r, b] >= beta - SLACK):
            continue
        return cell_code(r, b), low, beta
    return -1, 0.0, 0.0


@jit_inline
def _end_row(lower, upper, frame, bounds, f, k, r):
    """Row r done: its maximum bounds the state from above; player 2's best reply to
    it (the column of the row's greatest lower bound) is the column searched next."""
    c = frame[f, F_COLUMN]
    best_lower, top = -math.inf, -math.inf
    for b in range(k):
        if lower[f, r, b] > best_lower:
            best_lower, c = lower[f, r, b], b
        top = max(top, upper[f, r, b])
    if top < bounds[f, B_UPPER]:
        bounds[f, B_UPPER], frame[f, F_UPPER_ROW] = top, r
    frame[f, F_PHASE], frame[f, F_COLUMN] = PHASE_COLUMN, c


@jit_inline
def _column_cell(lower, upper, f, k, c, alpha, beta, window):
    """PHASE_COLUMN: the next cell of column c to build, with its window (each cell only
    needs to be shown above the column's least so far), or (-1, 0, 0) when it is done."""
    for a in range(k):
        if lower[f, a, c] == upper[f, a, c]:
            continue
        if not window:
            return cell_code(a, c), -math.inf, math.inf
        high = beta
        for a2 in range(k):
            if a2 != a and upper[f, a2, c] < high:
                high = upper[f, a2, c]
        if (high <= alpha + SLACK or lower[f, a, c] >= high - SLACK
                or upper[f, a, c] <= alpha + SLACK):
            continue
        return cell_code(a, c), alpha, high
    return -1, 0.0, 0.0


@jit_inline
def _end_column(lower, upper, frame, bounds, f, k, c, window, oracle_from):
    """Column c done: its minimum bounds the state from below; a round of best replies
    is over. The next phase: player 1's best reply to the column (the row of its least
    upper bound), or after MAX_ALTERNATIONS rounds the double oracle (without
    ``window``, at least ``oracle_from`` cards each, not the root) or every cell."""
    r = frame[f, F_ROW]
    least_upper, bottom = math.inf, math.inf
    for a in range(k):
        if upper[f, a, c] < least_upper:
            least_upper, r = upper[f, a, c], a
        bottom = min(bottom, lower[f, a, c])
    if bottom > bounds[f, B_LOWER]:
        bounds[f, B_LOWER], frame[f, F_LOWER_COLUMN] = bottom, c
    frame[f, F_ALTERNATIONS] += 1
    if frame[f, F_ALTERNATIONS] >= MAX_ALTERNATIONS and not window and k >= oracle_from \
            and f > 0:
        _start_oracle(lower, upper, frame, f, k)
    elif frame[f, F_ALTERNATIONS] >= MAX_ALTERNATIONS:
        frame[f, F_PHASE] = PHASE_FULL
    else:
        frame[f, F_PHASE], frame[f, F_ROW] = PHASE_ROW, r


@jit_inline
def _next_cell(lower, upper, frame, bounds, f, k, alpha, beta, window, oracle_from, work):
    """What state f does next: (cell, cell alpha, cell beta) to build a cell, or
    (NASH_SADDLE / NASH_FULL / NASH_BOUND, 0, 0) when it is decided.

    A cell's value is known as an interval lower..upper (exact when they meet). Best
    replies first: row r (player 1's card) — each cell only needs to be shown below the
    row's best so far, the window's low end; player 2's best reply c; column c — each
    cell only needs to be shown above the column's least so far. A row's maximum bounds
    the state's value from above (bounds[f, B_UPPER]), a column's minimum from below
    (B_LOWER): when they meet it is a pure saddle point, when one passes the state's
    window (alpha, beta) the caller has its answer. After MAX_ALTERNATIONS rows every
    cell is made exact and the matrix game solved (NASH_FULL), or, without ``window`` in
    a state of at least ``oracle_from`` cards each (not the root), a double oracle
    builds the cells its proof needs (oracle_step; NASH_ORACLE; ``work``: its scratch
    arrays). The schedule lives in frame[f, F_PHASE..F_LOWER_COLUMN] (and the oracle's
    masks). Without ``window`` every cell is built exactly.
    """
    while True:
        phase = frame[f, F_PHASE]
        if phase == PHASE_ORACLE:
            return _oracle_cell(lower, upper, frame, f, k, work)
        if phase == PHASE_FULL:
            return _full_cell(lower, upper, f, k)
        if phase == PHASE_SADDLE:
            return _saddle_cell(lower, upper, frame, f)
        if phase == PHASE_ROW:
            cell, low, high = _row_cell(lower, upper, f, k, frame[f, F_ROW], alpha, beta,
                                        window)
            if cell >= 0:
                return cell, low, high
            _end_row(lower, upper, frame, bounds, f, k, frame[f, F_ROW])
        else:
            cell, low, high = _column_cell(lower, upper, f, k, frame[f, F_COLUMN], alpha, beta,
                                           window)
            if cell >= 0:
                return cell, low, high
            _end_column(lower, upper, frame, bounds, f, k, frame[f, F_COLUMN], window,
                        oracle_from)
        if _decided(frame, bounds, f, alpha, beta) == NASH_BOUND:
            return NASH_BOUND, 0.0, 0.0


@jit_inline
def _enter_cell(frame, bounds, f, cell, cell_alpha, cell_beta):
    """State f builds ``cell`` next, in the window (cell_alpha, cell_beta); its leaves
    are not expanded yet."""
    frame[f, F_CELL] = cell
    bounds[f, B_CELL_ALPHA], bounds[f, B_CELL_BETA] = cell_alpha, cell_beta
    frame[f, F_LEAF] = -1


@jit_inline
def _start_state(frame, bounds, lower, upper, cows, root_cells, f, k):
    """A new state f (its window already in bounds[f]): every cell unknown (the root:
    cells another worker builds count as 0), the schedule at its start (_next_cell then
    names its first cell)."""
    for i in range(k):
        for j in range(k):
            lower[f, i, j], upper[f, i, j] = -math.inf, math.inf
    bounds[f, B_LOWER], bounds[f, B_UPPER] = -math.inf, math.inf
    frame[f, :] = 0
    frame[f, F_PHASE] = PHASE_FULL if f == 0 else PHASE_ROW
    if f == 0:
        for i in range(k):
            for j in range(k):
                if not root_cells[i, j]:
                    lower[0, i, j] = upper[0, i, j] = cows[0, i, j] = 0.0


@jit_inline
def _expand_cell(rows, f, p1_card, p2_card, professional, leaf_rows, leaf_diff, leaf_cows,
                 high_options, scratch):
    """The leaves of one cell of state f (row table ``rows[f]``): player 1 plays p1_card,
    player 2 p2_card, the low card first, each owner's row choices branching. Leaf
    leaf_code(low_option, high_option) gets its rows (leaf_rows[f, leaf]), player 1's
    minus player 2's cows taken (leaf_diff) and player 1's (leaf_cows); the high card
    has high_options[f, low_option] options. Returns (the low card's option count, its
    owner, the high card's owner)."""
    if p1_card < p2_card:
        low_card, high_card, low_owner, high_owner = p1_card, p2_card, P1_OWNER, P2_OWNER
    else:
        low_card, high_card, low_owner, high_owner = p2_card, p1_card, P2_OWNER, P1_OWNER
    low_kind, low_a, low_b = find_end(rows[f], low_card, professional)  # once a card
    low_options = kind_option_count(low_kind)
    for low_option in range(low_options):
        scratch[:] = rows[f]
        low_cows = play_found_option(scratch, low_card, low_kind, low_a, low_b, low_option)
        high_kind, high_a, high_b = find_end(scratch, high_card, professional)
        count = kind_option_count(high_kind)
        high_options[f, low_option] = count
        for high_option in range(count):
            leaf = leaf_code(low_option, high_option)
            for r in range(ROW_COUNT):
                for col in range(4):
                    leaf_rows[f, leaf, r, col] = scratch[r, col]
            high_cows = play_found_option(leaf_rows[f, leaf], high_card, high_kind, high_a,
                                          high_b, high_option)
            p1 = ((low_cows if low_owner == P1_OWNER else 0)
                  + (high_cows if high_owner == P1_OWNER else 0))
            leaf_diff[f, leaf] = 2 * p1 - low_cows - high_cows
            leaf_cows[f, leaf] = p1
    return low_options, low_owner, high_owner


@jit_inline
def _next_leaf(frame, high_options, f, leaf):
    """The first leaf of state f's current cell at or after ``leaf`` (both options
    exist), or LEAVES when there is none."""
    low_option, high_option = leaf_low_option(leaf), leaf_high_option(leaf)
    while low_option < frame[f, F_LOW_OPTIONS]:
        if high_option < high_options[f, low_option]:
            return leaf_code(low_option, high_option)
        low_option, high_option = low_option + 1, 0
    return LEAVES


@jit_inline
def _combine_cell(low_options, high_options, f, low_owner, high_owner, lower, upper, cows):
    """A cell's (lower, upper, player 1's cows) from its leaves' intervals (``lower[f]``,
    ``upper[f]``): each row choice by its owner, player 1 the lowest, player 2 the
    highest; player 1's cows are the chosen leaf's, among equal values the fewest (the
    same difference, so fewer cows for both): the same whatever order the rows are in,
    so states that share a key share their cows too."""
    cell_lower, cell_upper, cell_cows = 0.0, 0.0, 0.0
    for low_option in range(low_options):
        v_lower, v_upper, v_cows = 0.0, 0.0, 0.0
        for high_option in range(high_options[f, low_option]):
            leaf = leaf_code(low_option, high_option)
            if high_option == 0:
                v_lower, v_upper, v_cows = lower[f, leaf], upper[f, leaf], cows[f, leaf]
            elif high_owner == P1_OWNER:
                if upper[f, leaf] < v_upper or (upper[f, leaf] == v_upper
                                                and cows[f, leaf] < v_cows):
                    v_cows = cows[f, leaf]
                v_lower, v_upper = min(v_lower, lower[f, leaf]), min(v_upper, upper[f, leaf])
            else:
                if lower[f, leaf] > v_lower or (lower[f, leaf] == v_lower
                                                and cows[f, leaf] < v_cows):
                    v_cows = cows[f, leaf]
                v_lower, v_upper = max(v_lower, lower[f, leaf]), max(v_upper, upper[f, leaf])
        if low_option == 0:
            cell_lower, cell_upper, cell_cows = v_lower, v_upper, v_cows
        elif low_owner == P1_OWNER:
            if v_upper < cell_upper or (v_upper == cell_upper and v_cows < cell_cows):
                cell_cows = v_cows
            cell_lower, cell_upper = min(cell_lower, v_lower), min(cell_upper, v_upper)
        else:
            if v_lower > cell_lower or (v_lower == cell_lower and v_cows < cell_cows):
                cell_cows = v_cows
            cell_lower, cell_upper = max(cell_lower, v_lower), max(cell_upper, v_upper)
    return cell_lower, cell_upper, cell_cows


@jit_inline
def _last_turn(rows, f, leaf, p1_card, p2_card, professional, scratch, high_scratch):
    """(value, value, player 1's cows) of the round's last turn from rows
    ``rows[f, leaf]``: p1_card against p2_card, row choices optimal (each owner's, as
    _combine_cell chooses among exact leaves: the value, then the fewest cows; cows are
    whole numbers, so this is exact). Plays on ``scratch`` and ``high_scratch`` (row
    tables) without building leaf frames."""
    if p1_card < p2_card:
        low_card, high_card, low_owner, high_owner = p1_card, p2_card, P1_OWNER, P2_OWNER
    else:
        low_card, high_card, low_owner, high_owner = p2_card, p1_card, P2_OWNER, P1_OWNER
    cell_value, cell_cows = 0, 0
    low_kind, low_a, low_b = find_end(rows[f, leaf], low_card, professional)
    for low_option in range(kind_option_count(low_kind)):
        for r in range(ROW_COUNT):
            for col in range(4):
                scratch[r, col] = rows[f, leaf, r, col]
        low_cows = play_found_option(scratch, low_card, low_kind, low_a, low_b, low_option)
        high_kind, high_a, high_b = find_end(scratch, high_card, professional)
        v_value, v_cows = 0, 0
        for high_option in range(kind_option_count(high_kind)):
            for r in range(ROW_COUNT):
                for col in range(4):
                    high_scratch[r, col] = scratch[r, col]
            high_cows = play_found_option(high_scratch, high_card, high_kind, high_a, high_b,
                                          high_option)
            p1 = ((low_cows if low_owner == P1_OWNER else 0)
                  + (high_cows if high_owner == P1_OWNER else 0))
            d = 2 * p1 - low_cows - high_cows
            if high_option == 0 or (d < v_value if high_owner == P1_OWNER else d > v_value) \
                    or (d == v_value and p1 < v_cows):
                v_value, v_cows = d, p1
        if low_option == 0 or (v_value < cell_value if low_owner == P1_OWNER
                               else v_value > cell_value) \
                or (v_value == cell_value and v_cows < cell_cows):
            cell_value, cell_cows = v_value, v_cows
    return float(cell_value), float(cell_value), float(cell_cows)


@jit_inline
def _other_card(hand, f, played):
    """The card of a two-card hand ``hand[f]`` that is not ``played``."""
    return hand[f, 1] if hand[f, 0] == played else hand[f, 0]


@jit_inline
def _stored_answer(entries, values, key, width, low, high, compact, reach):
    """(found, lower, upper, cows) of a state from the table: its exact value, or a
    bound that answers the window (low, high) (the other side unbounded, cows NaN).
    A ``compact`` table (solver.kernels.table) holds exact values only; a replacing one keeps
    a key within ``reach`` slots of its home (0: anywhere)."""
    if compact:
        s, found = probe_within(entries, key, width, reach if reach > 0 else entries.shape[0])
        if not found:
            return False, 0.0, 0.0, 0.0
        whole, value, cows = read_compact(entries, values, s, key, width)
        if not whole:  # replaced since the probe: solved again
            return False, 0.0, 0.0, 0.0
        return True, value, value, cows
    s, found = probe(entries, key, width)
    if not found:
        return False, 0.0, 0.0, 0.0
    lower, upper, cows = values[s, width], values[s, width + 1], values[s, width + 2]
    if lower == upper and not math.isnan(cows):
        return True, lower, upper, cows
    if upper <= low + SLACK:
        return True, -math.inf, upper, math.nan
    if lower >= high - SLACK:
        return True, lower, math.inf, math.nan
    return False, 0.0, 0.0, 0.0


@jit_inline
def _leaf_solved(leaf_lower, leaf_upper, leaf_total, leaf_diff, leaf_cows, f, leaf, lower,
                 upper, cows):
    """Leaf ``leaf`` of state f is worth its cows plus its next state's (lower, upper,
    player 1's cows)."""
    d = leaf_diff[f, leaf]
    leaf_lower[f, leaf], leaf_upper[f, leaf] = d + lower, d + upper
    leaf_total[f, leaf] = leaf_cows[f, leaf] + cows


@jit_inline
def _push_state(bounds, rows, cards, owners, p1_hand, p2_hand, keys, leaf_rows, key, width,
                f, leaf, k, p1_card, p2_card, low, high):
    """Frame f + 1 becomes the state after ``leaf`` of state f (p1_card and p2_card
    played), searched in the window (low, high), its key ``key``."""
    g = f + 1
    bounds[g, B_ALPHA], bounds[g, B_BETA] = low, high
    for r in range(ROW_COUNT):
        for col in range(4):
            rows[g, r, col] = leaf_rows[f, leaf, r, col]
    for i in range(width):
        keys[g, i] = key[i]
    m = 0
    for i in range(2 * k):
        if cards[f, i] != p1_card and cards[f, i] != p2_card:
            cards[g, m], owners[g, m] = cards[f, i], owners[f, i]
            m += 1
    m1 = m2 = 0
    for i in range(k):
        if p1_hand[f, i] != p1_card:
            p1_hand[g, m1] = p1_hand[f, i]
            m1 += 1
        if p2_hand[f, i] != p2_card:
            p2_hand[g, m2] = p2_hand[f, i]
            m2 += 1


@jit_inline
def _state_value(decision, frame, bounds, lower, cows, f, k, x, y, tableau, stats, work):
    """(lower, upper, player 1's cows or NaN) of decided state f: a bound past its
    window (NASH_BOUND), its saddle cell (NASH_SADDLE), its matrix game (NASH_FULL) or
    its double oracle's restricted game (NASH_ORACLE)."""
    if decision == NASH_ORACLE:
        value = _restricted_game(lower[f], frame[f, F_ORACLE_ROWS], frame[f, F_ORACLE_COLUMNS],
                                 k, work)
        stats[N_ORACLE] += 1
        xs, ys = work[1], work[2]
        total = 0.0
        for i in range(k):
            if xs[i] > 0.0:
                for j in range(k):
                    if ys[j] > 0.0:
                        total += xs[i] * ys[j] * cows[f, i, j]
        return value, value, total
    if decision == NASH_BOUND:
        stats[N_CUT] += 1
        return bounds[f, B_LOWER], bounds[f, B_UPPER], math.nan
    if decision == NASH_SADDLE:
        r, c = frame[f, F_ROW], frame[f, F_COLUMN]
        stats[N_REPLY] += 1
        return lower[f, r, c], lower[f, r, c], cows[f, r, c]
    value, pure = matrix_game(lower[f], k, k, x, y, tableau)
    stats[N_SADDLE if pure else N_LP] += 1
    total = 0.0
    for i in range(k):
        for j in range(k):
            total += x[i] * y[j] * cows[f, i, j]
    return value, value, total


@jit_inline
def _store_state(entries, values, key, width, lower, upper, cows, control, stats,
                 unreported, k, compact, layout):
    """Store a state's (lower, upper, cows) under ``key``, one of ``k`` cards each: a
    new entry, an exact value over a bound, or the tighter of two bounds (a ``compact``
    table: exact values only, a state once). Returns (aborted, unreported stores):
    aborted (ABORT_FULL) when the table has no free slot or reached control[C_LIMIT].
    A replacing table (control[C_REACH] > 0) never fills: see _replace."""
    if compact and control[C_REACH] > 0:
        s, found = probe_within(entries, key, width, control[C_REACH])
        if s < 0:
            _replace(entries, values, key, width, lower, cows, control, stats, k, layout)
            return False, unreported
    elif compact:
        s, found = probe_within(entries, key, width, entries.shape[0])
    else:
        s, found = probe(entries, key, width)
    if s < 0:  # no free slot: double the table
        control[C_STOP] = ABORT_FULL
        stats[N_ABORTED] = ABORT_FULL
        return True, unreported
    if not found:
        if compact:
            store_compact(entries, values, s, key, width, lower, cows)
        else:
            store(entries, values, s, key, width, lower, upper, cows)
        stats[N_STORED] += 1
        stats[LEVEL_BASE + k] += 1
        unreported += 1
        if unreported >= control[C_EVERY]:  # the shared count, rarely: contended
            control[C_USED] += unreported
            unreported = 0
            if control[C_USED] >= control[C_LIMIT]:
                control[C_STOP] = ABORT_FULL
                stats[N_ABORTED] = ABORT_FULL
                return True, unreported
    elif compact:
        pass
    elif lower == upper:
        store(entries, values, s, key, width, lower, upper, cows)
    elif not (values[s, width] == values[s, width + 1]
              and not math.isnan(values[s, width + 2])):  # bounds: the tighter
        store(entries, values, s, key, width, max(lower, values[s, width]),
              min(upper, values[s, width + 1]), math.nan)
    return False, unreported


@jit_inline
def _replace(entries, values, key, width, value, cows, control, stats, k, layout):
    """Store a state of ``k`` cards each in a replacing table whose slots within reach
    are all taken: over the entry of fewest cards (the cheapest to solve again: the
    priority is the key's count of cards in play; professional keys have none, so any
    entry goes), or nowhere when each of them has more cards."""
    mask = (1 << layout[L_RANK_BITS]) - 1
    word, shift = layout[L_COUNT_WORD], layout[L_COUNT_SHIFT]
    s = replaceable(entries, key, width, control[C_REACH], (key[word] >> shift) & mask,
                    word, shift, mask)
    if s < 0:
        stats[N_DROPPED] += 1
        return
    store_compact(entries, values, s, key, width, value, cows)
    stats[N_REPLACED] += 1
    stats[LEVEL_BASE + k] += 1


@jit
def _solve(table0, hand1, hand2, professional, layout, memo_from, window, compact, oracle_from,
           root_cells, entries, values, control, max_nodes, stats, root_value, root_aux,
           root_upper, root_window, recent_keys, recent_values):
    """Backward induction from the root (both hands known, ``hand1`` player 1's): the
    root's cell values and player 1's cows into root_value / root_aux (and each cell's
    upper bound into root_upper: the value too, unless the cell had a window).

    ``root_window`` (alpha, beta) is the window of the root's cells: (-inf, inf) builds
    them exactly; a narrower one (one cell at a time) only shows where the cell's value
    lies against it: root_value..root_upper is then exact inside the window and a bound
    past it (with ``window``, the search below prunes by it too).

    An explicit stack of states, one frame per card played (numba cannot cache
    recursive functions). Each state is searched with a window (alpha, beta) and
    answers an interval lower..upper for its value: exact inside the window, otherwise
    a bound past it (alpha-beta, see _next_cell); the root's window is everything and
    it builds every cell. A cell expands into its leaves (the row choices inside the
    turn) and each leaf's next state comes from the transposition table when what is
    stored there answers the window, from _last_turn when one card each is left, or
    from a pushed frame. The table (``entries``, ``values`` its float view; shared by
    the workers) keeps (lower, upper, player 1's cows or NaN when not exact) of states
    with at least ``memo_from`` cards each, up to control[C_LIMIT] entries: then the
    search stops with ABORT_FULL (the caller doubles the table and calls again; every
    stored state is kept). control[C_STOP] != 0 stops it too (ABORT_STOP). The root
    builds the cells flagged in ``root_cells`` (other cells count as 0): the caller
    splits the root between workers and solves its matrix game. States of at least
    ``oracle_from`` cards each finish by a double oracle (_next_cell). The states of
    ``memo_from`` - 1 cards each, not stored in the table, are kept in this worker's
    cache of recent values (``recent_keys``, ``recent_values``: solver.kernels.table's
    recent_cache, exact values only; one slot: none) and answered from it when found
    there: the same values and cows as searching them again.
    """
    k0 = hand1.shape[0]
    levels = k0 + 1
    reach = control[C_REACH]
    width = layout[L_WIDTH]
    recent = memo_from - 1 if recent_keys.shape[0] > 1 and memo_from > 2 else -1
    frame = np.zeros((levels, FRAME_COLUMNS), np.int64)
    bounds = np.zeros((levels, BOUND_COLUMNS))
    rows = np.zeros((levels, ROW_COUNT, 4), np.int64)
    cards = np.zeros((levels, 2 * HAND_SIZE), np.int64)    # both hands, ascending
    owners = np.zeros((levels, 2 * HAND_SIZE), np.int64)
    p1_hand = np.zeros((levels, HAND_SIZE), np.int64)
    p2_hand = np.zeros((levels, HAND_SIZE), np.int64)
    keys = np.zeros((levels, width), np.int64)
    cell_lower = np.zeros((levels, HAND_SIZE, HAND_SIZE))  # each cell's value interval
    cell_upper = np.zeros((levels, HAND_SIZE, HAND_SIZE))
    cell_cows = np.zeros((levels, HAND_SIZE, HAND_SIZE))   # and player 1's cows
    high_options = np.zeros((levels, ROW_COUNT), np.int64)
    leaf_rows = np.zeros((levels, LEAVES, ROW_COUNT, 4), np.int64)
    leaf_diff = np.zeros((levels, LEAVES))
    leaf_cows = np.zeros((levels, LEAVES))
    leaf_lower = np.zeros((levels, LEAVES))
    leaf_upper = np.zeros((levels, LEAVES))
    leaf_total = np.zeros((levels, LEAVES))                 # player 1's cows to the end
    scratch = np.zeros((ROW_COUNT, 4), np.int64)
    high_scratch = np.zeros((ROW_COUNT, 4), np.int64)
    x, y = np.zeros(HAND_SIZE), np.zeros(HAND_SIZE)
    tableau = np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1))
    work = oracle_work()
    key = np.zeros(width, np.int64)
    order = np.zeros(ROW_COUNT, np.int64)

    rows[0] = table0
    p1_hand[0, :k0] = hand1
    p2_hand[0, :k0] = hand2
    cards[0, :k0], cards[0, k0:2 * k0] = hand1, hand2
    owners[0, :k0], owners[0, k0:2 * k0] = P1_OWNER, P2_OWNER
    sort_turn(cards[0], owners[0], 2 * k0)
    bounds[0, B_ALPHA], bounds[0, B_BETA] = -math.inf, math.inf
    unreported = 0
    top = 0
    fresh = True
    while True:
        f = top
        k = k0 - f
        if fresh:  # a new state: its schedule's start, then its first cell below
            fresh = False
            stats[N_STATES] += 1
            _start_state(frame, bounds, cell_lower, cell_upper, cell_cows, root_cells, f, k)
        else:  # the current cell: its leaves, then its value
            cell = frame[f, F_CELL]
            p1_card, p2_card = p1_hand[f, cell_row(cell)], p2_hand[f, cell_column(cell)]
            if frame[f, F_LEAF] < 0:  # expand the current cell
                frame[f, F_LOW_OPTIONS], frame[f, F_LOW_OWNER], frame[f, F_HIGH_OWNER] = \
                    _expand_cell(rows, f, p1_card, p2_card, professional, leaf_rows, leaf_diff,
                                 leaf_cows, high_options, scratch)
                frame[f, F_LEAF] = 0
                stats[N_CELLS] += 1
                if stats[N_CELLS] > max_nodes:
                    stats[N_ABORTED] = ABORT_NODES
                    return
                if control[C_STOP] != 0:
                    stats[N_ABORTED] = ABORT_STOP
                    return
            pushed = False
            while True:  # the leaves' next states
                leaf = _next_leaf(frame, high_options, f, frame[f, F_LEAF])
                frame[f, F_LEAF] = leaf
                if leaf >= LEAVES:
                    break
                if k == 1:
                    lower, upper, cows = 0.0, 0.0, 0.0
                elif k == 2:
                    lower, upper, cows = _last_turn(
                        leaf_rows, f, leaf, _other_card(p1_hand, f, p1_card),
                        _other_card(p2_hand, f, p2_card), professional, scratch, high_scratch)
                else:
                    d = leaf_diff[f, leaf]
                    low, high = bounds[f, B_CELL_ALPHA] - d, bounds[f, B_CELL_BETA] - d
                    found = False
                    lower, upper, cows = 0.0, 0.0, 0.0
                    if k - 1 >= memo_from:
                        pack_key(leaf_rows[f, leaf], cards[f], owners[f], 2 * k, p1_card, p2_card,
                                 layout, key, order)
                        found, lower, upper, cows = _stored_answer(entries, values, key, width,
                                                                   low, high, compact, reach)
                        stats[N_HITS] += found
                    elif k - 1 == recent:
                        pack_key(leaf_rows[f, leaf], cards[f], owners[f], 2 * k, p1_card, p2_card,
                                 layout, key, order)
                        found, lower, cows = recall(recent_keys, recent_values, key, width)
                        upper = lower
                        stats[N_RECALLED] += found
                    if not found:
                        _push_state(bounds, rows, cards, owners, p1_hand, p2_hand, keys,
                                    leaf_rows, key, width, f, leaf, k, p1_card, p2_card, low, high)
                        top = f + 1
                        fresh = True
                        pushed = True
                        break
                _leaf_solved(leaf_lower, leaf_upper, leaf_total, leaf_diff, leaf_cows, f, leaf,
                             lower, upper, cows)
                frame[f, F_LEAF] += 1
            if pushed:
                continue
            # every leaf known: the cell's value, then the next cell or the state's value
            r, c = cell_row(cell), cell_column(cell)
            cell_lower[f, r, c], cell_upper[f, r, c], cell_cows[f, r, c] = _combine_cell(
                frame[f, F_LOW_OPTIONS], high_options, f, frame[f, F_LOW_OWNER],
                frame[f, F_HIGH_OWNER], leaf_lower, leaf_upper, leaf_total)
        decision, cell_alpha, cell_beta = _next_cell(
            cell_lower, cell_upper, frame, bounds, f, k, bounds[f, B_ALPHA], bounds[f, B_BETA],
            window, oracle_from, work)
        bounded = root_window[0] > -math.inf or root_window[1] < math.inf
        if f == 0 and decision >= 0 and bounded:
            if stats[N_CELLS] > 0:  # the root's one cell came back: bounded, done
                decision = NASH_FULL
            else:
                cell_alpha, cell_beta = root_window[0], root_window[1]
        if decision >= 0:
            _enter_cell(frame, bounds, f, decision, cell_alpha, cell_beta)
            continue
        if f == 0:  # the root's cells are built: its game is the caller's
            control[C_USED] += unreported
            root_value[:k, :k] = cell_lower[0, :k, :k]
            root_aux[:k, :k] = cell_cows[0, :k, :k]
            root_upper[:k, :k] = cell_upper[0, :k, :k]
            return
        lower, upper, cows = _state_value(decision, frame, bounds, cell_lower, cell_cows, f, k,
                                          x, y, tableau, stats, work)
        if k == recent and lower == upper and not math.isnan(cows):
            remember(recent_keys, recent_values, keys[f], width, lower, cows)
        if k >= memo_from:
            if lower == upper and not math.isnan(cows):  # as the table gives it back
                cows = rounded_cows(cows)
            aborted, unreported = _store_state(entries, values, keys[f], width, lower, upper,
                                               cows, control, stats, unreported, k,
                                               compact, layout)
            if aborted:
                return
        top = f - 1  # back to the parent's leaf
        _leaf_solved(leaf_lower, leaf_upper, leaf_total, leaf_diff, leaf_cows, top,
                     frame[top, F_LEAF], lower, upper, cows)
        frame[top, F_LEAF] += 1


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
    states: int                  # state searches (a state may be searched again, in
    #                              another window)
    matrix_games: int            # states decided by the simplex (whole or restricted game)
    saddle_points: int           # by a pure saddle point of the whole matrix
    best_reply_saddles: int      # by best replies meeting: a pure saddle, few cells built
    bound_cutoffs: int           # answered by a bound outside the state's window
    nodes: int                   # cells built (both cards of a turn resolved)
    seconds: float
    matrix: np.ndarray           # the root's cell values [p1 card, p2 card]
    stored: int = 0              # states in the transposition table
    table_bytes: int = 0         # its final size
    workers: int = 1
    levels: tuple[int, ...] = ()  # states stored by cards left each: levels[k] (a
    #                               replacing table: stores, some over others)
    on_disk: bool = False        # the table ended in a file (solve_nash's spill)
    replaced: int = 0            # stores over another entry (a replacing table)
    dropped: int = 0             # states not stored: their slots held costlier states
    resumed: int = 0             # root cells taken as given (solve_nash's ``known``)
    oracle_games: int = 0        # of matrix_games, states decided by their double oracle
    recalled: int = 0            # states answered by a worker's cache of recent values

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
        use = param("opponents", ("random", "worst"))
        raise NimmtError(f"nash is the two-player equilibrium; this position has "
                         f"{position.players} players (use {use})")
    if not position.all_known:
        raise NimmtError("nash needs both hands known; give p2=... (tactical and logic "
                         "2-player positions derive it)")


def _ran(thread: threading.Thread, within: float = 1.0) -> bool:
    """Whether ``thread`` runs or ran: a Ctrl-C inside its start() may come before or after
    the thread was created, and one created names itself (``ident``) within moments."""
    deadline = time.monotonic() + within
    while thread.ident is None and time.monotonic() < deadline:
        time.sleep(0.001)
    return thread.ident is not None


def solve_nash(position: Position, memory: int = DEFAULT_MEMORY, max_nodes: int = 10**13,
               window: bool = False, workers: int | None = None,
               time_limit: float | None = None,
               progress: Callable[[int], None] | None = None,
               memo_from: int = MEMO_FROM, spill: str | None = None,
               compact: bool | None = None, replace: bool = False,
               known: Mapping[tuple[int, int], tuple[float, float]] | None = None,
               on_cell: Callable[[int, int, float, float], None] | None = None,
               root: str = ROOT_ALL, oracle_from: int = ORACLE_FROM) -> NashResult:
    """Solve the equilibrium of the rest of the round.

    The root's cells (player 1's card, player 2's card) are handed out one at a time
    to ``workers`` threads (default: one per core, at most two cells each) that share
    one transposition table; the root's matrix game is solved here. ``progress(1)``
    after each cell. ``window=True`` searches with alpha-beta windows (see _next_cell;
    measured slower on these games, benchmarks/nash.py). Ctrl-C stops the workers and
    re-raises; a ``time_limit`` raises NashStopped. States with at least ``memo_from``
    cards each are kept in the table (fewer: solved again). The table keeps exact values
    in compact slots (solver.kernels.table; alpha-beta windows keep bounds in full slots); it
    is sized once from the state estimate (table_slots), doubles as it fills while the
    doubled table fits ``memory`` and else fills up to FULL_LOAD; with a
    directory ``spill`` a table past ``memory`` goes on in a memory-mapped file there
    (the system keeps in memory what it can) instead of stopping. ``replace=True``
    never stops for memory either: a solve whose estimate does not fit ``memory`` starts
    in a replacing table of ``memory`` (solver.kernels.table: when a key's slots within reach
    are all taken, it goes over the entry of fewest cards, solved again when needed),
    and a table that fills without room to double goes on replacing. ``compact=False``
    keeps exact values in full slots too (the table before compact slots: tests).
    ``known`` maps root cells (i, j) (player 1's i-th card, player 2's j-th) already
    solved to their (value, player 1's cows): they are not solved again (a checkpoint,
    solver.search.deals); ``on_cell(i, j, value, cows)`` is called after each cell solved here
    (from a worker thread, one call at a time). ``root=ROOT_NEEDED`` solves only the root
    cells a double oracle needs (root_oracle: at 7 cards each 49-84% of them, measured in
    benchmarks/nash.py --root-cells); the result's ``matrix`` then holds NaN for the
    others, and its strategies are the oracle's equilibrium, the same value as the whole
    matrix's (another equilibrium where the game has several). States below the root of
    at least ``oracle_from`` cards each finish by a double oracle too (ORACLE_FROM;
    NO_ORACLE: every cell of a mixed state built, the search before it).

    >>> from nimmt.solver.positions.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> r = solve_nash(p)
    >>> round(r.value, 6), r.exploitability < 1e-9
    (0.0, True)
    """
    if root not in ROOT_CELLS:
        raise ValueError(f"root cells: {root!r} is not one of {', '.join(ROOT_CELLS)}")
    run = _solve_cells(position, None, memory, max_nodes, window, workers, time_limit,
                       progress, memo_from, spill, compact, replace, known, on_cell,
                       root == ROOT_NEEDED, oracle_from)
    return _root_result(position, run)


def solve_root_cells(position: Position, cells: Sequence[tuple[int, int]],
                     memory: int = DEFAULT_MEMORY, workers: int | None = None,
                     time_limit: float | None = None,
                     progress: Callable[[int], None] | None = None,
                     spill: str | None = None, replace: bool = False,
                     on_cell: Callable[[int, int, float, float], None] | None = None,
                     ) -> dict[tuple[int, int], tuple[float, float]]:
    """Only the root cells ``cells`` ((i, j): player 1's i-th card, player 2's j-th) of
    solve_nash's search, in a table of their own: {cell: (value, player 1's cows)}, each
    value the one solve_nash puts in its matrix, to the bit. A whole deal's root cells are
    independent, so they can be solved apart, by other processes or machines
    (solver.search.deals.solve_cells_unit), and the root's game solved from them
    (nash_from_cells). The table is sized for these cells (about one solve of a card fewer
    each); the other options are solve_nash's."""
    run = _solve_cells(position, list(cells), memory, 10**13, False, workers, time_limit,
                       progress, MEMO_FROM, spill, None, replace, None, on_cell)
    return {(i, j): (float(run.values[i, j]), float(run.aux[i, j])) for i, j in cells}


def bound_root_cells(position: Position, cells: Sequence[tuple[int, int]], alpha: float,
                     beta: float, memory: int = DEFAULT_MEMORY, workers: int | None = None,
                     window: bool = True) -> tuple[dict[tuple[int, int], tuple[float, float]],
                                                   _CellRun]:
    """Where the root cells ``cells`` lie against the window (alpha, beta), each searched
    in it (and, with ``window``, the states below pruned by it): {cell: (lower, upper)},
    the cell's value when lower == upper, else an interval past the window (lower >= beta
    or upper <= alpha); and the run (its counts and seconds). What a proof needs of the
    cells outside an equilibrium's support is such a bound, not the value (a cell below
    the value for player 2, above it for player 1). The table keeps full slots (a bound
    below the root is stored as one even when ``window`` is off)."""
    run = _solve_cells(position, list(cells), memory, 10**13, window, workers, None, None,
                       MEMO_FROM, None, False, False, None, None, root_window=(alpha, beta))
    assert run.upper is not None
    return ({(i, j): (float(run.values[i, j]), float(run.upper[i, j])) for i, j in cells},
            run)


# ---------------------------------------------------------------- the root's cells

@dataclass
class RootStep:
    """Where the double oracle stands on the root cells known so far: the cells it needs
    next (in order; none when it has the equilibrium), the rows and columns of its
    restricted game, and the equilibrium (value, x, y over every card) once found."""

    cells: list[tuple[int, int]]
    rows: list[int]
    columns: list[int]
    answer: tuple[float, np.ndarray, np.ndarray] | None = None


def root_oracle(values: np.ndarray, known: np.ndarray) -> RootStep:
    """The double oracle on the root's matrix game ``values`` (player 1's cards as rows,
    minimising), of which only the cells marked in ``known`` have been solved.

    From player 1's best card against player 2's first (every card against that one
    solved first), oracle_step solves the restricted game of the rows and columns added
    so far, then each side's best reply to the other's strategy among the cards not in
    it; a reply better than the restricted value (by ORACLE_TOLERANCE) joins it, and when
    neither side has one the restricted equilibrium is the whole game's. It reads only
    the cells it needs (the restricted game's, and each card's against the other side's
    support) and returns those it needs next that are not known. Its path depends on the cells'
    values alone, never on which other cells happen to be known, so its answer does not
    depend on how (or by how many workers) the cells were solved.

    >>> game = np.array([[1.0, 3.0, 0.0], [2.0, 0.0, 1.0], [5.0, 5.0, 4.0]])
    >>> known = np.zeros((3, 3), np.bool_)
    >>> root_oracle(game, known).cells
    [(0, 0), (1, 0), (2, 0)]
    >>> while (step := root_oracle(game, known)).answer is None:
    ...     known[step.cells[0]] = True  # "solve" the first cell it asks for
    >>> value, x, y = step.answer
    >>> round(value, 6), x.round(6).tolist(), y.round(6).tolist()
    (1.5, [0.5, 0.5, 0.0], [0.75, 0.25, 0.0])
    >>> int(known.sum()), bool(known[2, 2])  # 8 cells solved, never the last
    (8, False)
    """
    k = len(values)
    missing = [(i, 0) for i in range(k) if not known[i, 0]]
    if missing:
        return RootStep(missing, [], [0])
    lower = np.where(known, values, -math.inf)  # a cell is known where lower == upper
    upper = np.where(known, values, math.inf)
    masks = np.array([1 << int(np.argmin(values[:, 0])), 1], np.int64)
    work = oracle_work()
    count, value = oracle_step(lower, upper, k, masks, work, work[6])
    rows = [i for i in range(k) if masks[0] >> i & 1]
    columns = [j for j in range(k) if masks[1] >> j & 1]
    if count:
        return RootStep([(int(cell_row(c)), int(cell_column(c))) for c in work[6][:count]],
                        rows, columns)
    return RootStep([], rows, columns, (float(value), work[1][:k].copy(), work[2][:k].copy()))


def oracle_cells(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The cells root_oracle asks for on its way to its answer (a mask; ``known`` must
    hold them all): the same whichever other cells were solved, e.g. by a worker that
    took a cell rather than wait."""
    asked = np.zeros_like(known)
    while (step := root_oracle(values, asked)).answer is None:
        for cell in step.cells:
            if not known[cell]:
                raise ValueError(f"root cell {cell} is needed and not solved")
            asked[cell] = True
    return asked


def replies(values: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's value against ``y`` and each column's against ``x`` in the matrix game
    ``values``, reading only the columns (rows) the strategies play: cells outside them
    may be unsolved (NaN)."""
    played_columns, played_rows = y > 0, x > 0
    return (values[:, played_columns] @ y[played_columns],
            x[played_rows] @ values[played_rows, :])


class _RootSchedule:
    """Which root cell a worker solves next (called under the workers' lock). ``needed``
    False: the cells given, in order. True: the cells root_oracle asks for; when those
    are all being solved, a worker takes another cell (the restricted game's lines first)
    rather than wait, which only adds cells known, never changes the oracle's answer."""

    def __init__(self, k: int, cells: list[tuple[int, int]], values: np.ndarray,
                 known: np.ndarray, needed: bool) -> None:
        self.k, self.cells, self.values, self.known, self.needed = k, cells, values, known, needed
        self.running: set[tuple[int, int]] = set()

    def step(self) -> RootStep | None:
        """The oracle's step on the cells known (needed cells only)."""
        return root_oracle(self.values, self.known) if self.needed else None

    def finished(self) -> bool:
        """No cell left to solve: all of them known, or the oracle has its answer."""
        if self.needed:
            step = self.step()
            return step is not None and step.answer is not None
        return all(self.known[cell] for cell in self.cells)

    def left(self) -> int:
        """Cells still wanted now (the oracle's next ones; every cell not known)."""
        step = self.step()
        return (len(step.cells) if step is not None
                else sum(not self.known[cell] for cell in self.cells))

    def take(self) -> tuple[int, int] | None:
        """The next cell for a worker, marked running; None: none left for it."""
        free = [cell for cell in self._order() if not self.known[cell]
                and cell not in self.running]
        if not free:
            return None
        self.running.add(free[0])
        return free[0]

    def release(self, cell: tuple[int, int]) -> None:
        """A worker is done with ``cell`` (solved, or stopped: then it is taken again)."""
        self.running.discard(cell)

    def _order(self) -> list[tuple[int, int]]:
        step = self.step()
        if step is None:
            return self.cells
        if step.answer is not None:
            return []
        lines = [(i, j) for i in step.rows for j in range(self.k)]
        lines += [(i, j) for j in step.columns for i in range(self.k)]
        rest = [(i, j) for j in range(self.k) for i in range(self.k)]
        return step.cells + lines + rest


@dataclass
class _CellRun:
    """What _solve_cells hands back: the root's cells solved (values and player 1's cows)
    and the search's counts."""

    values: np.ndarray
    aux: np.ndarray
    stats: np.ndarray
    stored: int
    table_bytes: int
    on_disk: bool
    workers: int
    seconds: float
    resumed: int
    answer: tuple[float, np.ndarray, np.ndarray] | None = None  # the root oracle's
    upper: np.ndarray | None = None  # each root cell's upper bound (bound_root_cells)


@dataclass(frozen=True)
class _TablePlan:
    """The transposition table a solve starts in and how far it may grow: ``compact``
    slots or full ones, a ``replacing`` table from the start (the estimate does not fit
    the memory), the key words, the ``first`` table's slots, the ``largest`` that may
    double in memory, where a larger one goes (``spilled``) and the in-memory limit of
    the first table (``alone``: it is allocated alone)."""

    compact: bool
    replacing: bool
    width: int
    first: int
    largest: int
    spilled: Spill
    alone: int


def _compact_slots(window: bool, compact: bool | None, replace: bool) -> bool:
    """Whether the table keeps compact slots (default: unless alpha-beta windows, which
    store bounds); the options that cannot go together raise ValueError."""
    if compact is None:
        compact = not window  # alpha-beta windows store bounds: the full slot
    if compact and window:
        raise ValueError("a compact table keeps exact values only; windows need compact=False")
    if replace and not compact:
        raise ValueError("only a compact table replaces; windows need compact=False")
    return compact


def _plan_table(position: Position, only: list[tuple[int, int]] | None, memory: int,
                window: bool, compact: bool | None, replace: bool,
                spill: str | None) -> _TablePlan:
    """The table of a solve of the root cells ``only`` (None: all of them) within
    ``memory``; MemoryExceeded when its estimate does not fit and neither ``spill`` nor
    ``replace`` lets it go on."""
    k = position.cards_left
    states = estimate_states(position)
    if only is not None:  # each root cell: about a solve of a card fewer each
        states = min(states, len(only) * estimate_states(position, k - 1))
    compact = _compact_slots(window, compact, replace)
    needed = slot_bytes(position, compact) * slots_for(states, FULL_LOAD)
    replacing = replace and needed > memory and spill is None
    if needed > memory and spill is None and not replace:
        k_fit = largest_fitting_k(position, memory)
        raise MemoryExceeded(
            f"nash at {position.cards_left} cards each needs about {states:,} states "
            f"(~{needed / 2**30:.1f} GiB), over the memory of {memory / 2**30:.1f} GiB; the "
            f"largest k that fits is {k_fit}: raise {param('memory', beside=True)} or analyse "
            "a later position")
    width = key_width(two_hands_layout(position.professional))
    first, largest = table_slots(position, memory, compact, states)
    return _TablePlan(compact, replacing, width, first, largest, Spill(spill, largest),
                      max(first, largest))


# _solve's first arguments, shared by every root cell: the rows, both hands, the placement,
# the key layout, memo_from, window, compact, oracle_from
_SearchArgs = tuple[np.ndarray, np.ndarray, np.ndarray, bool, np.ndarray, int, bool, bool, int]


def _search_args(position: Position, memo_from: int, window: bool, compact: bool,
                 oracle_from: int) -> _SearchArgs:
    """The arguments of _solve that every root cell shares (the position and options)."""
    p2_hand = position.hands[1]
    assert p2_hand is not None  # check_nash_position: two players, both hands known
    return (row_table(position.rows), np.asarray(position.hand, np.int64),
            np.asarray(p2_hand, np.int64), position.professional,
            two_hands_layout(position.professional), memo_from, window, compact, oracle_from)


def _load_search(args: _SearchArgs, k: int, plan: _TablePlan) -> None:
    """Compile or load the search kernel before the clock starts: times are the search's."""
    if _solve.signatures:
        return
    small = Table(16, plan.width, VALUE_WORDS, plan.compact)
    _solve(*args, np.zeros((k, k), np.bool_), small.entries, small.values,
           np.zeros(CONTROL_SLOTS, np.int64), 0, np.zeros(STATS_STRIDE, np.int64),
           np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k)), EVERYTHING.copy(),
           *recent_cache(1, plan.width))


def _given_cells(known: Mapping[tuple[int, int], tuple[float, float]] | None, k: int,
                 ) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """The root cells ``known`` already: (them, values, player 1's cows, the mask of
    cells solved)."""
    values, aux = np.zeros((k, k)), np.zeros((k, k))
    given = dict(known or {})
    solved_mask = np.zeros((k, k), np.bool_)
    for (i, j), (value, cows) in given.items():
        values[i, j], aux[i, j] = value, cows
        solved_mask[i, j] = True
    return given, values, aux, solved_mask


def _first_table(position: Position, memory: int, plan: _TablePlan, schedule: _RootSchedule,
                 control: np.ndarray) -> Table:
    """The table the solve starts in: a token one when nothing is left to search, a
    replacing one (control[C_REACH] set), or the plan's first."""
    if schedule.finished():  # every cell needed is given: nothing to search
        return Table(16, plan.width, VALUE_WORDS, plan.compact)
    if plan.replacing:
        control[C_REACH] = REACH
        return Table(replacing_slots(position, memory), plan.width, VALUE_WORDS, plan.compact)
    return Table(plan.first, plan.width, VALUE_WORDS, plan.compact,
                 plan.spilled.path(plan.first, plan.alone))


class _CellWorkers:
    """The worker threads of _solve_cells and what they share: each takes a root cell
    from the schedule (under ``lock``), solves it in the shared ``table`` and records it.
    A round runs the threads until the schedule is done or the search stops (control);
    between rounds the table may be replaced by a larger one."""

    def __init__(self, args: _SearchArgs, k: int, schedule: _RootSchedule, table: Table,
                 control: np.ndarray, values: np.ndarray, aux: np.ndarray,
                 solved_mask: np.ndarray, max_nodes: int, workers: int,
                 progress: Callable[[int], None] | None,
                 on_cell: Callable[[int, int, float, float], None] | None) -> None:
        self.args, self.k, self.schedule, self.table, self.control = (args, k, schedule,
                                                                      table, control)
        self.values, self.aux, self.solved_mask = values, aux, solved_mask
        self.max_nodes, self.workers, self.progress, self.on_cell = (max_nodes, workers,
                                                                     progress, on_cell)
        self.stats = np.zeros(STATS_STRIDE, np.int64)
        self.root_window = EVERYTHING.copy()  # the root cells' window (bound_root_cells)
        self.upper = np.full((k, k), np.nan)  # each root cell's upper bound
        self.lock = threading.Lock()
        self.failures: list[BaseException] = []
        self.solved = 0  # root cells finished here (a stopped cell is taken again)
        self.recent_slots = 1  # each worker's cache of recent values (_solve_cells)

    def prepare_round(self, largest: int) -> None:
        """Clear the last round's abort; the entries the table takes and how often a
        worker reports its stores."""
        control, slots = self.control, self.table.slots
        self.stats[N_ABORTED] = 0
        control[C_LIMIT] = (slots + 1 if control[C_REACH]  # never full
                            else fill_limit(slots, largest))
        control[C_EVERY] = max(1, min(REPORT_EVERY, slots // (16 * self.workers)))

    def run_round(self, start: float, time_limit: float | None) -> None:
        """Start the workers and wait for them all, stopping them past ``time_limit``
        (seconds of work since ``start``); a worker's error is re-raised here."""
        # Events, not Thread.join: a join that Ctrl-C interrupts may mark its thread
        # finished while it still runs (CPython 3.11), and the next join returns at once.
        finished = [threading.Event() for _ in range(self.workers)]
        threads: list[threading.Thread] = []
        try:  # Ctrl-C while they start stops those started too
            for done in finished:
                threads.append(threading.Thread(target=self._work, args=(done,), daemon=True))
                threads[-1].start()
            for done in finished:
                while not done.wait(0.05):
                    if time_limit is not None and work_clock() - start > time_limit:
                        self.control[C_STOP] = ABORT_STOP
        except KeyboardInterrupt:
            self.control[C_STOP] = ABORT_STOP
            for thread, done in zip(threads, finished):
                if _ran(thread):
                    done.wait()
            raise
        if self.failures:
            raise self.failures[0]

    def _work(self, done: threading.Event) -> None:
        """A worker thread: solve cells until none is left; an error stops the others."""
        try:
            self._solve_cells(recent_cache(self.recent_slots, self.args[4][L_WIDTH]))
        except BaseException as error:  # handed to the main thread, re-raised there
            self.control[C_STOP] = ABORT_STOP
            self.failures.append(error)
        finally:
            done.set()

    def _solve_cells(self, recent: tuple[np.ndarray, np.ndarray]) -> None:
        """Take cells from the schedule and solve them until none is left or one stops;
        ``recent``: this worker's cache of recent values, kept from cell to cell."""
        while True:
            with self.lock:
                taken = None if self.control[C_STOP] else self.schedule.take()
                if taken is None:
                    return
            if not self._solve_cell(*taken, recent):
                return
            if self.progress:
                self.progress(1)

    def _solve_cell(self, i: int, j: int, recent: tuple[np.ndarray, np.ndarray]) -> bool:
        """Solve root cell (i, j) and record it; False when the search stopped in it."""
        k = self.k
        cell = np.zeros((k, k), np.bool_)
        cell[i, j] = True
        own = np.zeros(STATS_STRIDE, np.int64)
        cell_values, cell_aux, cell_upper = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k))
        _solve(*self.args, cell, self.table.entries, self.table.values, self.control,
               max(0, self.max_nodes - int(self.stats[N_CELLS])), own, cell_values, cell_aux,
               cell_upper, self.root_window, *recent)
        with self.lock:
            self.stats[:] += own
            self.schedule.release((i, j))
            if own[N_ABORTED]:
                return False
            self.values[i, j], self.aux[i, j] = cell_values[i, j], cell_aux[i, j]
            self.upper[i, j] = cell_upper[i, j]
            self.solved_mask[i, j] = True
            self.solved += 1
            if self.on_cell:  # under the lock: one call at a time
                self.on_cell(i, j, float(self.values[i, j]), float(self.aux[i, j]))
            if self.schedule.needed and self.schedule.finished():
                self.control[C_STOP] = ABORT_STOP  # the others' cells are not needed
        return True


def _table_full(pool: _CellWorkers, plan: _TablePlan, replace: bool, memory: int,
                spill: str | None) -> None:
    """The table filled: double it and go on (nothing is lost); when the doubled table
    fits neither memory nor the spill directory, go on replacing (``replace``) or raise
    MemoryExceeded."""
    control, table = pool.control, pool.table
    no_room = 2 * table.slots > plan.largest and not plan.spilled.fits(2 * table.slots, table)
    if no_room and replace:
        control[C_REACH] = REACH  # full: go on replacing (nothing is lost)
    elif no_room:
        where = (f"{param('memory')} ({memory / 2**30:.2f} GiB)" if spill is None
                 else f"the free disk space in {spill}")
        raise MemoryExceeded(
            f"nash: the transposition table filled {where} after "
            f"{int(control[C_USED]):,} states; raise {param('memory', beside=True)}"
            + (" or give a spill directory" if spill is None else "")
            + " or analyse a later position")
    else:
        pool.table = table.doubled(plan.spilled.path(2 * table.slots))
    control[C_STOP] = 0


def _stopped(pool: _CellWorkers, given: int, cells: int, time_limit: float | None,
             start: float) -> NashStopped:
    """The error of a solve stopped at its time limit with cells still needed."""
    schedule = pool.schedule
    have = pool.solved + given
    return NashStopped(
        f"nash stopped at the time limit ({time_limit:g} s) with "
        + (f"{have} root cells solved, at least {schedule.left()} more needed"
           if schedule.needed else
           f"{have} of {cells} root cells solved; an equilibrium needs them "
           "all")
        + ": allow more time "
        f"({param('time_limit', beside=True)}) or analyse a later position",
        "time limit",
        cards_total=cells, nodes=int(pool.stats[N_CELLS]),
        seconds=work_clock() - start)


def _run_rounds(pool: _CellWorkers, plan: _TablePlan, replace: bool, memory: int,
                spill: str | None, max_nodes: int, time_limit: float | None, given: int,
                cells: int, start: float) -> None:
    """Run the workers until every cell needed is solved, the table growing (or
    replacing) between rounds; a stop raises NashStopped, the node budget
    BudgetExceeded."""
    schedule, control = pool.schedule, pool.control
    while not schedule.finished():
        pool.prepare_round(plan.largest)
        pool.run_round(start, time_limit)
        if schedule.finished():  # (another worker's table may have filled meanwhile)
            break
        if control[C_STOP] == ABORT_FULL:
            _table_full(pool, plan, replace, memory, spill)
        elif control[C_STOP] == ABORT_STOP:
            raise _stopped(pool, given, cells, time_limit, start)
        else:
            raise BudgetExceeded(f"nash search passed {max_nodes:,} cells")


def _solve_cells(position: Position, only: list[tuple[int, int]] | None, memory: int,
                 max_nodes: int, window: bool, workers: int | None, time_limit: float | None,
                 progress: Callable[[int], None] | None, memo_from: int, spill: str | None,
                 compact: bool | None, replace: bool,
                 known: Mapping[tuple[int, int], tuple[float, float]] | None,
                 on_cell: Callable[[int, int, float, float], None] | None,
                 oracle: bool = False, oracle_from: int = ORACLE_FROM,
                 root_window: tuple[float, float] | None = None) -> _CellRun:
    """The root cells of solve_nash (``only``: these cells alone; None: all of them, or
    with ``oracle`` those root_oracle asks for), with its options: the table planned, the
    workers run, the stops raised."""
    check_nash_position(position)
    k = position.cards_left
    cells = [(i, j) for j in range(k) for i in range(k)] if only is None else only
    workers = max(1, min(workers or os.cpu_count() or 1, (len(cells) + 1) // 2))
    # beside the table, as the rest of the process: at most a sixteenth of the memory
    recent = recent_slots(position, memory, workers) if memo_from > 2 else 1
    plan = _plan_table(position, only, memory, window, compact, replace, spill)
    args = _search_args(position, memo_from, window, plan.compact, oracle_from)
    _load_search(args, k, plan)
    given, values, aux, solved_mask = _given_cells(known, k)
    schedule = _RootSchedule(k, cells, values, solved_mask, oracle and only is None)
    control = np.zeros(CONTROL_SLOTS, np.int64)
    table = _first_table(position, memory, plan, schedule, control)
    pool = _CellWorkers(args, k, schedule, table, control, values, aux, solved_mask,
                        max_nodes, workers, progress, on_cell)
    pool.recent_slots = recent
    if root_window is not None:
        pool.root_window[:] = root_window
    start = work_clock()
    try:
        _run_rounds(pool, plan, replace, memory, spill, max_nodes, time_limit, len(given),
                    len(cells), start)
    finally:
        table_bytes, on_disk = pool.table.nbytes, pool.table.path is not None
        pool.table.close()
    step = schedule.step()
    if step is not None:  # the oracle's equilibrium; the cells it never asked for: NaN
        asked = oracle_cells(values, solved_mask)
        values[~asked] = np.nan
        aux[~asked] = np.nan
    return _CellRun(values, aux, pool.stats, int(control[C_USED]), table_bytes, on_disk,
                    workers, work_clock() - start, len(given),
                    None if step is None else step.answer, pool.upper)


def _root_result(position: Position, run: _CellRun) -> NashResult:
    """The equilibrium from every root cell solved: the root's matrix game."""
    k, values, aux, stats = position.cards_left, run.values, run.aux, run.stats
    p2_hand = position.hands[1]
    assert p2_hand is not None  # check_nash_position: two players, both hands known
    if run.answer is not None:  # the root oracle's equilibrium: read its cells only
        value, x, y = run.answer
        stats[N_SADDLE if (x == 1).any() and (y == 1).any() else N_LP] += 1
        p1_ev, p2_ev = replies(values, x, y)
        played = np.outer(x > 0, y > 0)
        p1_cows = float((np.outer(x, y)[played] * aux[played]).sum())
    else:
        x, y = np.zeros(HAND_SIZE), np.zeros(HAND_SIZE)
        value, pure = matrix_game(values, k, k, x, y,
                                   np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1)))
        stats[N_SADDLE if pure else N_LP] += 1  # the root's game
        x, y = x[:k], y[:k]
        p1_ev, p2_ev = values @ y, x @ values
        p1_cows = float(x @ aux @ y)
    return NashResult(float(value), position.hand, p2_hand, tuple(map(float, x)),
                      tuple(map(float, y)), tuple(map(float, p1_ev)),
                      tuple(map(float, p2_ev)), p1_cows, p1_cows - float(value),
                      int(stats[N_STATES]), int(stats[N_LP] + stats[N_ORACLE]),
                      int(stats[N_SADDLE]), int(stats[N_REPLY]), int(stats[N_CUT]),
                      int(stats[N_CELLS]), run.seconds, values, run.stored, run.table_bytes,
                      run.workers, tuple(int(n) for n in stats[LEVEL_BASE:LEVEL_BASE + k + 1]),
                      run.on_disk, int(stats[N_REPLACED]), int(stats[N_DROPPED]), run.resumed,
                      int(stats[N_ORACLE]), int(stats[N_RECALLED]))


def nash_from_cells(position: Position,
                    cells: Mapping[tuple[int, int], tuple[float, float]],
                    seconds: float = 0.0, resumed: int = 0, root: str = ROOT_ALL) -> NashResult:
    """The equilibrium of ``position`` from its root cells solved elsewhere
    ({(i, j): (value, player 1's cows)}, solve_root_cells'): all of them, or with
    ``root=ROOT_NEEDED`` the root oracle's equilibrium from those it needs; the search's
    counts are zero (they stayed with the cells' solves); ``resumed``: the cells a
    checkpoint gave."""
    check_nash_position(position)
    k = position.cards_left
    values, aux = np.full((k, k), np.nan), np.full((k, k), np.nan)
    solved = np.zeros((k, k), np.bool_)
    for (i, j), (value, cows) in cells.items():
        values[i, j], aux[i, j], solved[i, j] = value, cows, True
    answer = None
    if root == ROOT_NEEDED:
        step = root_oracle(values, solved)
        if step.answer is None:
            raise ValueError(f"{len(step.cells)} more root cells are needed, e.g. "
                             f"{step.cells[0]}")
        answer = step.answer
        asked = oracle_cells(values, solved)
        values[~asked], aux[~asked] = np.nan, np.nan
    else:
        missing = [(i, j) for i in range(k) for j in range(k) if not solved[i, j]]
        if missing:
            raise ValueError(f"{len(missing)} of {k * k} root cells are missing, e.g. "
                             f"{missing[0]}")
    return _root_result(position, _CellRun(values, aux, np.zeros(STATS_STRIDE, np.int64), 0,
                                           0, False, 0, seconds, resumed, answer))
