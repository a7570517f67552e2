"""The two-player equilibrium (model ``nash``): both hands known, the rest of the round
as a zero-sum simultaneous-move game on (player 1's cows - player 2's cows).

Backward induction in the kernel ``_solve``: each state's value is the value of the
k-by-k matrix game of its cells, a cell being both cards resolved (row choices inside
it as sequential min/max) plus the next state's value; best replies first, a pure saddle
point ends a state early; matrix games by ``_matrix_game`` (a dense simplex with Bland's
rule). States live in a shared open-addressing table (``Table``); ``solve_nash`` hands
the root's cells to worker threads, solves the root's game and reports strategies.
"""
from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .engine import (COWS_COLUMN, END_TAKE, END_TIE, FIRST, LAST, LENGTH, _find_end,
                     _place_card, jit, row_table)
from .errors import BudgetExceeded, MemoryExceeded, NashStopped, NimmtError, param
from .position import Position
from .rules import COWS, HAND_SIZE, ROW_COUNT, ROW_LIMIT

__all__ = ["DEFAULT_MEMORY", "NashResult", "check_nash_position", "estimate_bytes",
           "estimate_states", "largest_fitting_k", "solve_nash"]

# Peak memory per state stored, measured 160-330 bytes at k = 6..8 (benchmarks/nash.py):
# the table is a power of two of slots, at most half full, and while it doubles the old
# and the new one are both alive. The plan (estimate_bytes) computes that table instead.
BYTES_PER_STATE = 320
DEFAULT_MEMORY = 8 * 2**30
MEMO_FROM = 2   # states with fewer cards each are solved again rather than stored (measured)
# Distinct states stored, measured on three deals each (benchmarks/nash.py): k=4 196-246,
# k=5 3,845-5,477, k=6 55-94 thousand, k=7 0.65-1.79 million, k=8 8.6-13.7 million. The
# estimate: the most at k=4, times the median growth per card (into k cards from k-1;
# past 8 the deck runs out and the growth keeps slowing, so 8's is kept), times a margin:
# at or above every count measured, without the flat guess's tenfold overshoot.
STATES_AT_4 = 250
GROWTH_INTO = {5: 21.5, 6: 19.0, 7: 17.0, 8: 7.7}
STATES_MARGIN = 1.2


# ---------------------------------------------------------------- kernels
# Hot helpers take whole frame arrays and an index (f, leaf) rather than views: a view
# passed to a kernel costs two atomic reference-count updates, measured as a sixth of
# the search's time.

MAX_ALTERNATIONS = 3          # best-reply rounds before a state builds every cell
PHASE_ROW, PHASE_COLUMN, PHASE_FULL, PHASE_SADDLE = 0, 1, 2, 3
NASH_SADDLE, NASH_FULL, NASH_BOUND, NASH_EXACT = -1, -2, -3, -4
# windows shift by each leaf's cows, so a bound comes back rounded: within SLACK it counts
# as reached (else a cell could be searched again in the same window for ever)
SLACK = 1e-12
# A state's key, normal placement (KEY_NORMAL words): rows by last card, each as (rank
# of its last card among the cards in the hands, length, cows), the number of cards in
# the hands, then each card in the hands, ascending, as (owner, cow code). Professional
# (KEY_PRO words): each row's actual first and last cards, length and cows, then each
# card in the hands as (card, owner).
KEY_NORMAL, KEY_PRO = 3, 5
EMPTY = 0                     # word 0 of a free slot (no key packs to 0)
MAX_LOAD = 0.5                # the table doubles past this load (linear probing: short chains)
_COW_CODE = np.array([{0: 0, 1: 0, 2: 1, 3: 2, 5: 3, 7: 4}[int(n)] for n in COWS], np.int64)
# stats[] slots
(N_STATES, N_HITS, N_CELLS, N_CUT, N_LP, N_SADDLE, N_REPLY, N_ABORTED, N_STORED) = range(9)
N_SLOTS = 9
ABORT_NODES, ABORT_FULL, ABORT_STOP = 1, 2, 3
# control[] slots, shared by the workers: stop flag, entries stored, the most entries
# allowed, and how many stores a worker adds to C_USED at a time (a shared count is
# contended; the slack, C_EVERY per worker, stays well below the free slots)
C_STOP, C_USED, C_LIMIT, C_EVERY = range(4)
REPORT_EVERY = 4096
STATS_STRIDE = 64    # each worker's stats array is this long: none shares a cache line
P1_OWNER, P2_OWNER = 1, 2
LEAVES = ROW_COUNT * ROW_COUNT  # a cell's outcomes: both cards' row choices


@jit
def _matrix_game(payoff, m, n, x, y, tableau):
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
    top = -math.inf
    for a in range(m):
        for b in range(n):
            top = max(top, payoff[a, b])
    shift = top + 1.0  # A' = shift - payoff >= 1
    cols = n + m + 1
    t = tableau[:m + 1, :cols]
    t[:, :] = 0.0
    basis = np.empty(m, np.int64)
    for a in range(m):
        for b in range(n):
            t[a, b] = shift - payoff[a, b]
        t[a, n + a] = 1.0
        t[a, cols - 1] = 1.0
        basis[a] = n + a
    for b in range(n):
        t[m, b] = -1.0
    eps = 1e-12
    while True:
        enter = -1
        for j in range(cols - 1):  # Bland: the lowest index that improves
            if t[m, j] < -eps:
                enter = j
                break
        if enter < 0:
            break
        leave, ratio = -1, math.inf
        for a in range(m):
            if t[a, enter] > eps:
                r = t[a, cols - 1] / t[a, enter]
                if r < ratio - eps or (abs(r - ratio) <= eps and basis[a] < basis[leave]):
                    leave, ratio = a, r
        pivot = t[leave, enter]
        for j in range(cols):
            t[leave, j] /= pivot
        for a in range(m + 1):
            if a != leave and t[a, enter] != 0.0:
                factor = t[a, enter]
                for j in range(cols):
                    t[a, j] -= factor * t[leave, j]
        basis[leave] = enter
    total = t[m, cols - 1]  # = 1 / value(A')
    for a in range(m):
        if basis[a] < n:
            y[basis[a]] = t[a, cols - 1] / total
    for a in range(m):
        x[a] = t[m, n + a] / total
    return shift - 1.0 / total, False



@jit
def _decided(bounds, sched, f, alpha, beta):
    """After a row or column: NASH_EXACT (the bounds meet; the saddle cell's own value
    still has to be exact, for player 1's cows), NASH_BOUND (a bound outside the
    window answers the caller) or 0 (go on)."""
    if bounds[f, 1] - bounds[f, 0] <= 1e-12:
        sched[f, 0], sched[f, 1], sched[f, 2] = PHASE_SADDLE, sched[f, 4], sched[f, 5]
        return NASH_EXACT
    if bounds[f, 1] <= alpha + SLACK or bounds[f, 0] >= beta - SLACK:
        return NASH_BOUND
    return 0


@jit
def _next_cell(lo, hi, sched, bounds, f, k, alpha, beta, window):
    """What state f does next: (cell a * 16 + b, window low, window high) to build a
    cell, or (NASH_SADDLE / NASH_FULL / NASH_BOUND, 0, 0) when it is decided.

    A cell's value is known as an interval lo..hi (exact when they meet). Best replies
    first: row r (player 1's card) — each cell only needs to be shown below the row's
    best so far, the window's low end; player 2's best reply c; column c — each cell
    only needs to be shown above the column's least so far. A row's maximum bounds the
    state's value from above (bounds[f, 1]), a column's minimum from below
    (bounds[f, 0]): when they meet it is a pure saddle point, when one passes the
    state's window (alpha, beta) the caller has its answer. After MAX_ALTERNATIONS
    rows every cell is made exact and the matrix game solved (NASH_FULL).
    ``sched[f]`` = (phase, r, c, alternations, row of the upper bound, column of the
    lower bound). Without ``window`` every cell is built exactly.
    """
    while True:
        phase = sched[f, 0]
        if phase == PHASE_FULL:
            for a in range(k):
                for b in range(k):
                    if lo[f, a, b] != hi[f, a, b]:
                        return a * 16 + b, -math.inf, math.inf
            return NASH_FULL, 0.0, 0.0
        r, c = sched[f, 1], sched[f, 2]
        if phase == PHASE_SADDLE:
            if lo[f, r, c] != hi[f, r, c]:
                return r * 16 + c, -math.inf, math.inf
            return NASH_SADDLE, 0.0, 0.0
        if phase == PHASE_ROW:
            for b in range(k):
                if lo[f, r, b] == hi[f, r, b]:
                    continue
                if not window:
                    return r * 16 + b, -math.inf, math.inf
                low = alpha
                for b2 in range(k):
                    if b2 != b and lo[f, r, b2] > low:
                        low = lo[f, r, b2]
                if (low >= beta - SLACK or hi[f, r, b] <= low + SLACK
                        or lo[f, r, b] >= beta - SLACK):
                    continue
                return r * 16 + b, low, beta
            best_lo, top = -math.inf, -math.inf
            for b in range(k):
                if lo[f, r, b] > best_lo:
                    best_lo, c = lo[f, r, b], b
                top = max(top, hi[f, r, b])
            if top < bounds[f, 1]:
                bounds[f, 1], sched[f, 4] = top, r
            sched[f, 0], sched[f, 2] = PHASE_COLUMN, c
            done = _decided(bounds, sched, f, alpha, beta)
            if done == NASH_BOUND:
                return NASH_BOUND, 0.0, 0.0
            continue
        for a in range(k):  # PHASE_COLUMN
            if lo[f, a, c] == hi[f, a, c]:
                continue
            if not window:
                return a * 16 + c, -math.inf, math.inf
            high = beta
            for a2 in range(k):
                if a2 != a and hi[f, a2, c] < high:
                    high = hi[f, a2, c]
            if (high <= alpha + SLACK or lo[f, a, c] >= high - SLACK
                    or hi[f, a, c] <= alpha + SLACK):
                continue
            return a * 16 + c, alpha, high
        least_hi, bottom = math.inf, math.inf
        for a in range(k):
            if hi[f, a, c] < least_hi:
                least_hi, r = hi[f, a, c], a
            bottom = min(bottom, lo[f, a, c])
        if bottom > bounds[f, 0]:
            bounds[f, 0], sched[f, 5] = bottom, c
        sched[f, 3] += 1
        if sched[f, 3] >= MAX_ALTERNATIONS:
            sched[f, 0] = PHASE_FULL
        else:
            sched[f, 0], sched[f, 1] = PHASE_ROW, r
        done = _decided(bounds, sched, f, alpha, beta)
        if done == NASH_BOUND:
            return NASH_BOUND, 0.0, 0.0


@jit
def _pack(tables, f, leaf, cards, owners, n, skip_a, skip_b, professional, key, order):
    """The key of the state with rows ``tables[f, leaf]`` and hands ``cards[f, :n]``
    (ascending, owners beside) minus the cards skip_a and skip_b, into ``key``.

    Normal placement: card values matter only through their order and cows, so a row's
    last card is kept as its rank among the cards in the hands; a row above every card
    (dead) has rank n; and a row fewer cards can reach than it has room for never
    takes a sixth card, so its length counts only down to that.
    """
    key[:] = 0
    for r in range(ROW_COUNT):  # rows by last card (insertion sort)
        j = r - 1
        while j >= 0 and tables[f, leaf, order[j], LAST] > tables[f, leaf, r, LAST]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = r
    if professional:
        for i in range(ROW_COUNT):
            r = order[i]
            key[i // 2] |= (tables[f, leaf, r, FIRST] | (tables[f, leaf, r, LAST] << 7)
                            | (tables[f, leaf, r, LENGTH] << 14)
                            | (tables[f, leaf, r, COWS_COLUMN] << 17)) << (23 * (i % 2))
        slot = 0
        for i in range(n):
            c = cards[f, i]
            if c != skip_a and c != skip_b:
                key[2 + slot // 8] |= (c | ((owners[f, i] - 1) << 7)) << (8 * (slot % 8))
                slot += 1
        return
    count = 0
    for i in range(n):
        count += cards[f, i] != skip_a and cards[f, i] != skip_b
    slot = 0
    i_row = 0
    for i in range(n):
        c = cards[f, i]
        if c == skip_a or c == skip_b:
            continue
        while i_row < ROW_COUNT and tables[f, leaf, order[i_row], LAST] < c:  # rows below c
            r = order[i_row]
            length = max(tables[f, leaf, r, LENGTH], ROW_LIMIT - (count - slot))
            key[0] |= (slot | (length << 5) | (tables[f, leaf, r, COWS_COLUMN] << 8)) \
                << (13 * i_row)
            i_row += 1
        key[1 + slot // 16] |= ((owners[f, i] - 1) | (_COW_CODE[c] << 1)) << (4 * (slot % 16))
        slot += 1
    dead = i_row
    for i in range(dead, ROW_COUNT):  # dead rows: no card reaches them, so their order
        order[i] = tables[f, leaf, order[i], COWS_COLUMN]  # is no matter: by cows
        j = i - 1
        while j >= dead and order[j] > order[i]:
            order[j], order[j + 1] = order[j + 1], order[j]
            j -= 1
    for i in range(dead, ROW_COUNT):
        key[0] |= (slot | (order[i] << 8)) << (13 * i)
    key[0] |= slot << 52


@jit
def _mix(entries, s, key, width):
    """The check word of slot s: a hash of its key and its three value words."""
    h = 0x2545F4914F6CDD1D
    for i in range(width + 3):
        w = key[i] if i < width else entries[s, i]
        h = (h ^ w) * -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
        h ^= h >> 31
    return h | 1  # never 0, the check of a slot never written


@jit
def _slot(entries, key, width):
    """(slot, found): where ``key`` is in the table (open addressing, linear probing),
    or the free slot where it would go. A slot whose check word does not match its
    contents (another worker is writing it, or two wrote it at once) counts as some
    other key's, so a lookup never reads a half-written entry."""
    h = 0
    for i in range(width):
        h = (h ^ key[i]) * -7046029254386353131
        h ^= h >> 29
    mask = entries.shape[0] - 1
    s = (h ^ (h >> 32)) & mask
    for _ in range(entries.shape[0]):
        if entries[s, 0] == EMPTY:
            return s, False
        same = True
        for i in range(width):
            if entries[s, i] != key[i]:
                same = False
                break
        if same and entries[s, width + 3] == _mix(entries, s, key, width):
            return s, True
        s = (s + 1) & mask
    return -1, False  # full (the callers keep it from happening: see C_EVERY)


@jit
def _write(entries, values, s, key, width, lo, hi, aux):
    """Store (lo, hi, player 1's cows) under ``key`` in slot s, the check word last.
    ``values`` is the float view of ``entries``: columns width.. hold the values."""
    for i in range(width):
        entries[s, i] = key[i]
    values[s, width], values[s, width + 1], values[s, width + 2] = lo, hi, aux
    entries[s, width + 3] = _mix(entries, s, key, width)


@jit
def _rehash(entries, new_entries, width):
    """Move every whole entry into a table twice the size."""
    for s in range(entries.shape[0]):
        if entries[s, 0] != EMPTY:
            key = entries[s, :width]
            if entries[s, width + 3] == _mix(entries, s, key, width):
                t, _ = _slot(new_entries, key, width)
                new_entries[t, :] = entries[s, :]


@jit
def _expand(tables, f, a, b, professional, leaves, diff, cows, n2, scratch):
    """The outcomes of one cell of state f (rows ``tables[f]``): player 1 plays a,
    player 2 plays b, lower card first, each owner's row choices branching. Leaf
    o1 * 4 + o2 (rows ``leaves[f, leaf]``): the lower card's option o1, then the higher
    card's option o2 (n2[f, o1] of them); diff = player 1's minus player 2's cows taken,
    cows = player 1's. Returns (the lower card's option count, its owner, the higher
    card's owner)."""
    lo, hi = (a, b) if a < b else (b, a)
    lo_owner, hi_owner = (P1_OWNER, P2_OWNER) if a < b else (P2_OWNER, P1_OWNER)
    kind = _find_end(tables[f], lo, professional)[0]
    n1 = ROW_COUNT if kind == END_TAKE else (2 if kind == END_TIE else 1)
    for o1 in range(n1):
        scratch[:] = tables[f]
        cows1 = _place_card(scratch, lo, professional, o1 if kind == END_TAKE else -1,
                            o1 if kind == END_TIE else -1)[2]
        kind2 = _find_end(scratch, hi, professional)[0]
        m = ROW_COUNT if kind2 == END_TAKE else (2 if kind2 == END_TIE else 1)
        n2[f, o1] = m
        for o2 in range(m):
            leaf = o1 * 4 + o2
            for r in range(ROW_COUNT):
                for col in range(4):
                    leaves[f, leaf, r, col] = scratch[r, col]
            cows2 = _place_card(leaves[f, leaf], hi, professional,
                                o2 if kind2 == END_TAKE else -1,
                                o2 if kind2 == END_TIE else -1)[2]
            p1 = (cows1 if lo_owner == P1_OWNER else 0) + (cows2 if hi_owner == P1_OWNER else 0)
            diff[f, leaf] = 2 * p1 - cows1 - cows2
            cows[f, leaf] = p1
    return n1, lo_owner, hi_owner


@jit
def _combine(n1, n2, f, lo_owner, hi_owner, lo, hi, aux):
    """A cell's (lo, hi, player 1's cows) from its leaves' intervals (``lo[f]``,
    ``hi[f]``): each row choice by its owner, player 1 the lowest, player 2 the highest;
    player 1's cows are the chosen leaf's, among equal values the fewest (the same
    difference, so fewer cows for both): the same whatever order the rows are in, so
    states that share a key share their cows too."""
    cell_lo, cell_hi, cell_aux = 0.0, 0.0, 0.0
    for o1 in range(n1):
        v_lo, v_hi, v_aux = 0.0, 0.0, 0.0
        for o2 in range(n2[f, o1]):
            leaf = o1 * 4 + o2
            if o2 == 0:
                v_lo, v_hi, v_aux = lo[f, leaf], hi[f, leaf], aux[f, leaf]
            elif hi_owner == P1_OWNER:
                if hi[f, leaf] < v_hi or (hi[f, leaf] == v_hi and aux[f, leaf] < v_aux):
                    v_aux = aux[f, leaf]
                v_lo, v_hi = min(v_lo, lo[f, leaf]), min(v_hi, hi[f, leaf])
            else:
                if lo[f, leaf] > v_lo or (lo[f, leaf] == v_lo and aux[f, leaf] < v_aux):
                    v_aux = aux[f, leaf]
                v_lo, v_hi = max(v_lo, lo[f, leaf]), max(v_hi, hi[f, leaf])
        if o1 == 0:
            cell_lo, cell_hi, cell_aux = v_lo, v_hi, v_aux
        elif lo_owner == P1_OWNER:
            if v_hi < cell_hi or (v_hi == cell_hi and v_aux < cell_aux):
                cell_aux = v_aux
            cell_lo, cell_hi = min(cell_lo, v_lo), min(cell_hi, v_hi)
        else:
            if v_lo > cell_lo or (v_lo == cell_lo and v_aux < cell_aux):
                cell_aux = v_aux
            cell_lo, cell_hi = max(cell_lo, v_lo), max(cell_hi, v_hi)
    return cell_lo, cell_hi, cell_aux


@jit
def _last_turn(tables, f, leaf, a, b, professional, s_source, s_leaves, s_diff, s_cows, s_n2,
               s_scratch):
    """(value, player 1's cows) of the round's last turn from rows ``tables[f, leaf]``:
    a against b, row choices optimal. s_* are scratch frames (a leading axis of 1)."""
    for r in range(ROW_COUNT):
        for col in range(4):
            s_source[0, r, col] = tables[f, leaf, r, col]
    n1, lo_owner, hi_owner = _expand(s_source, 0, a, b, professional, s_leaves, s_diff,
                                     s_cows, s_n2, s_scratch)
    return _combine(n1, s_n2, 0, lo_owner, hi_owner, s_diff, s_diff, s_cows)


@jit
def _solve(table0, hand1, hand2, professional, memo_from, window, root_cells, entries,
           values, control, max_nodes, stats, root_value, root_aux):
    """Backward induction from the root (both hands known, ``hand1`` player 1's): the
    root's cell values and player 1's cows into root_value / root_aux.

    An explicit stack of states, one frame per card played (numba cannot cache
    recursive functions). Each state is searched with a window (alpha, beta) and
    answers an interval lo..hi for its value: exact inside the window, otherwise a
    bound past it (alpha-beta, see _next_cell); the root's window is everything and it
    builds every cell. A cell expands into its leaves (the row choices inside the
    turn) and each leaf's next state comes from the transposition table when what is
    stored there answers the window, from _last_turn when one card each is left, or
    from a pushed frame. The table (``entries``, ``values`` its float view; shared by
    the workers) keeps (lo, hi, player 1's cows or NaN when not exact) of states with
    at least ``memo_from`` cards each, up to control[C_LIMIT] entries: then the search
    stops with ABORT_FULL (the caller doubles the table and calls again; every stored
    state is kept). control[C_STOP] != 0 stops it too (ABORT_STOP). The root builds
    the cells flagged in ``root_cells`` (other cells count as 0): the caller splits
    the root between workers and solves its matrix game.
    """
    k0 = hand1.shape[0]
    levels = k0 + 1
    width = KEY_PRO if professional else KEY_NORMAL
    f_table = np.zeros((levels, ROW_COUNT, 4), np.int64)
    f_cards = np.zeros((levels, 2 * HAND_SIZE), np.int64)   # both hands, ascending
    f_owners = np.zeros((levels, 2 * HAND_SIZE), np.int64)
    f_h1 = np.zeros((levels, HAND_SIZE), np.int64)
    f_h2 = np.zeros((levels, HAND_SIZE), np.int64)
    f_key = np.zeros((levels, width), np.int64)
    f_window = np.zeros((levels, 2))                       # the state's (alpha, beta)
    f_bounds = np.zeros((levels, 2))                       # its value's proven (lo, hi)
    f_lo = np.zeros((levels, HAND_SIZE, HAND_SIZE))        # each cell's value interval
    f_hi = np.zeros((levels, HAND_SIZE, HAND_SIZE))
    f_aux = np.zeros((levels, HAND_SIZE, HAND_SIZE))       # and player 1's cows
    f_sched = np.zeros((levels, 6), np.int64)
    f_cell = np.zeros(levels, np.int64)
    f_cell_window = np.zeros((levels, 2))
    f_leaf = np.zeros(levels, np.int64)
    f_n1 = np.zeros(levels, np.int64)
    f_n2 = np.zeros((levels, ROW_COUNT), np.int64)
    f_lo_owner = np.zeros(levels, np.int64)
    f_hi_owner = np.zeros(levels, np.int64)
    l_table = np.zeros((levels, LEAVES, ROW_COUNT, 4), np.int64)
    l_diff = np.zeros((levels, LEAVES))
    l_cows = np.zeros((levels, LEAVES))
    l_lo = np.zeros((levels, LEAVES))
    l_hi = np.zeros((levels, LEAVES))
    l_aux = np.zeros((levels, LEAVES))
    s_source = np.zeros((1, ROW_COUNT, 4), np.int64)
    s_leaves = np.zeros((1, LEAVES, ROW_COUNT, 4), np.int64)
    s_diff, s_cows = np.zeros((1, LEAVES)), np.zeros((1, LEAVES))
    s_n2 = np.zeros((1, ROW_COUNT), np.int64)
    scratch = np.zeros((ROW_COUNT, 4), np.int64)
    x, y = np.zeros(HAND_SIZE), np.zeros(HAND_SIZE)
    tableau = np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1))
    key = np.zeros(width, np.int64)
    order = np.zeros(ROW_COUNT, np.int64)

    f_table[0] = table0
    f_h1[0, :k0] = hand1
    f_h2[0, :k0] = hand2
    for i in range(2 * k0):  # both hands, ascending (insertion sort)
        card = hand1[i] if i < k0 else hand2[i - k0]
        j = i - 1
        while j >= 0 and f_cards[0, j] > card:
            f_cards[0, j + 1], f_owners[0, j + 1] = f_cards[0, j], f_owners[0, j]
            j -= 1
        f_cards[0, j + 1], f_owners[0, j + 1] = card, P1_OWNER if i < k0 else P2_OWNER
    f_window[0, 0], f_window[0, 1] = -math.inf, math.inf
    unreported = 0
    top = 0
    fresh = True
    while True:
        f = top
        k = k0 - f
        alpha, beta = f_window[f, 0], f_window[f, 1]
        if fresh:  # a new state: its first cell
            fresh = False
            stats[N_STATES] += 1
            for i in range(k):
                for j in range(k):
                    f_lo[f, i, j], f_hi[f, i, j] = -math.inf, math.inf
            f_bounds[f, 0], f_bounds[f, 1] = -math.inf, math.inf
            f_sched[f, :] = 0
            f_sched[f, 0] = PHASE_FULL if f == 0 else PHASE_ROW
            if f == 0:  # the root builds only root_cells (the others: another worker's)
                for i in range(k):
                    for j in range(k):
                        if not root_cells[i, j]:
                            f_lo[0, i, j] = f_hi[0, i, j] = f_aux[0, i, j] = 0.0
            f_cell[f], f_cell_window[f, 0], f_cell_window[f, 1] = _next_cell(
                f_lo, f_hi, f_sched, f_bounds, f, k, alpha, beta, window)
            f_leaf[f] = -1
        a, b = f_h1[f, f_cell[f] // 16], f_h2[f, f_cell[f] % 16]
        if f_leaf[f] < 0:  # expand the current cell
            f_n1[f], f_lo_owner[f], f_hi_owner[f] = _expand(
                f_table, f, a, b, professional, l_table, l_diff, l_cows, f_n2, scratch)
            f_leaf[f] = 0
            stats[N_CELLS] += 1
            if stats[N_CELLS] > max_nodes:
                stats[N_ABORTED] = ABORT_NODES
                return
            if control[C_STOP] != 0:
                stats[N_ABORTED] = ABORT_STOP
                return
        pushed = False
        while f_leaf[f] < LEAVES:  # the leaves' next states
            leaf = f_leaf[f]
            if leaf // 4 >= f_n1[f] or leaf % 4 >= f_n2[f, leaf // 4]:
                f_leaf[f] += 1
                continue
            d = l_diff[f, leaf]
            if k == 1:
                lo, hi, c = 0.0, 0.0, 0.0
            elif k == 2:
                a2 = f_h1[f, 1] if f_h1[f, 0] == a else f_h1[f, 0]
                b2 = f_h2[f, 1] if f_h2[f, 0] == b else f_h2[f, 0]
                lo, hi, c = _last_turn(l_table, f, leaf, a2, b2, professional, s_source,
                                       s_leaves, s_diff, s_cows, s_n2, scratch)
            else:
                low, high = f_cell_window[f, 0] - d, f_cell_window[f, 1] - d
                found = False
                if k - 1 >= memo_from:
                    _pack(l_table, f, leaf, f_cards, f_owners, 2 * k, a, b, professional, key,
                          order)
                    s, found = _slot(entries, key, width)
                    if found:  # exact, or a bound that answers the window
                        found = False
                        lo, hi, c = values[s, width], values[s, width + 1], values[s, width + 2]
                        if lo == hi and not math.isnan(c):
                            found = True
                        elif hi <= low + SLACK:
                            found, lo, c = True, -math.inf, math.nan
                        elif lo >= high - SLACK:
                            found, hi, c = True, math.inf, math.nan
                        stats[N_HITS] += found
                if not found:  # push the next state
                    g = f + 1
                    f_window[g, 0], f_window[g, 1] = low, high
                    for r in range(ROW_COUNT):
                        for col in range(4):
                            f_table[g, r, col] = l_table[f, leaf, r, col]
                    for i in range(width):
                        f_key[g, i] = key[i]
                    m = 0
                    for i in range(2 * k):
                        if f_cards[f, i] != a and f_cards[f, i] != b:
                            f_cards[g, m], f_owners[g, m] = f_cards[f, i], f_owners[f, i]
                            m += 1
                    m1 = m2 = 0
                    for i in range(k):
                        if f_h1[f, i] != a:
                            f_h1[g, m1] = f_h1[f, i]
                            m1 += 1
                        if f_h2[f, i] != b:
                            f_h2[g, m2] = f_h2[f, i]
                            m2 += 1
                    top = g
                    fresh = True
                    pushed = True
                    break
            l_lo[f, leaf], l_hi[f, leaf] = d + lo, d + hi
            l_aux[f, leaf] = l_cows[f, leaf] + c
            f_leaf[f] += 1
        if pushed:
            continue
        # every leaf known: the cell's value, then the next cell or the state's value
        ca, cb = f_cell[f] // 16, f_cell[f] % 16
        f_lo[f, ca, cb], f_hi[f, ca, cb], f_aux[f, ca, cb] = _combine(
            f_n1[f], f_n2, f, f_lo_owner[f], f_hi_owner[f], l_lo, l_hi, l_aux)
        cell, low, high = _next_cell(f_lo, f_hi, f_sched, f_bounds, f, k, alpha, beta, window)
        if cell >= 0:
            f_cell[f], f_cell_window[f, 0], f_cell_window[f, 1] = cell, low, high
            f_leaf[f] = -1
            continue
        if f == 0:  # the root's cells are built: its game is the caller's
            control[C_USED] += unreported
            root_value[:k, :k] = f_lo[0, :k, :k]
            root_aux[:k, :k] = f_aux[0, :k, :k]
            return
        if cell == NASH_BOUND:
            lo, hi, aux = f_bounds[f, 0], f_bounds[f, 1], math.nan
            stats[N_CUT] += 1
        elif cell == NASH_SADDLE:
            r, c = f_sched[f, 1], f_sched[f, 2]
            lo = hi = f_lo[f, r, c]
            aux = f_aux[f, r, c]
            stats[N_REPLY] += 1
        else:
            value, pure = _matrix_game(f_lo[f], k, k, x, y, tableau)
            stats[N_SADDLE if pure else N_LP] += 1
            lo = hi = value
            aux = 0.0
            for i in range(k):
                for j in range(k):
                    aux += x[i] * y[j] * f_aux[f, i, j]
        if k >= memo_from:  # store it
            s, found = _slot(entries, f_key[f], width)
            if s < 0:  # no free slot: double the table
                control[C_STOP] = ABORT_FULL
                stats[N_ABORTED] = ABORT_FULL
                return
            if not found:
                _write(entries, values, s, f_key[f], width, lo, hi, aux)
                stats[N_STORED] += 1
                unreported += 1
                if unreported >= control[C_EVERY]:  # the shared count, rarely: contended
                    control[C_USED] += unreported
                    unreported = 0
                    if control[C_USED] >= control[C_LIMIT]:
                        control[C_STOP] = ABORT_FULL
                        stats[N_ABORTED] = ABORT_FULL
                        return
            elif lo == hi:
                _write(entries, values, s, f_key[f], width, lo, hi, aux)
            elif not (values[s, width] == values[s, width + 1]
                      and not math.isnan(values[s, width + 2])):  # bounds: the tighter
                _write(entries, values, s, f_key[f], width, max(lo, values[s, width]),
                       min(hi, values[s, width + 1]), math.nan)
        top = f - 1  # back to the parent's leaf
        leaf = f_leaf[top]
        d = l_diff[top, leaf]
        l_lo[top, leaf], l_hi[top, leaf] = d + lo, d + hi
        l_aux[top, leaf] = l_cows[top, leaf] + aux
        f_leaf[top] += 1


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
    matrix_games: int            # states decided by the simplex
    saddle_points: int           # by a pure saddle point of the whole matrix
    best_reply_saddles: int      # by best replies meeting: a pure saddle, few cells built
    bound_cutoffs: int           # answered by a bound outside the state's window
    nodes: int                   # cells built (both cards of a turn resolved)
    seconds: float
    matrix: np.ndarray           # the root's cell values [p1 card, p2 card]
    stored: int = 0              # states in the transposition table
    table_bytes: int = 0         # its final size
    workers: int = 1

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


def estimate_states(position: Position, cards_left: int | None = None) -> int:
    """Estimated distinct states of a solve from ``cards_left`` cards each (measured
    growth, an upper-ish estimate: see STATES_AT_4).

    >>> from solver.position import load_position
    >>> [estimate_states(load_position("example"), k) for k in (4, 7, 8)]
    [300, 2083350, 16041795]
    """
    k = position.cards_left if cards_left is None else cards_left
    states = STATES_AT_4 * STATES_MARGIN
    for j in range(5, k + 1):
        states *= GROWTH_INTO.get(j, GROWTH_INTO[8])
    for j in range(k, 4):
        states /= GROWTH_INTO[5]
    return max(1, math.ceil(states))


def slot_bytes(position: Position) -> int:
    return 8 * ((KEY_PRO if position.professional else KEY_NORMAL) + 4)


def estimate_bytes(position: Position, cards_left: int | None = None) -> int:
    """Peak memory of the transposition table for a solve from ``cards_left`` cards each:
    the smallest power of two of slots that holds the estimated states at most half
    full, with its half-size predecessor beside it while it doubles."""
    wanted = estimate_states(position, cards_left) / MAX_LOAD
    slots = 1 << max(10, math.ceil(math.log2(max(2, wanted))))
    return int(1.5 * slot_bytes(position) * slots)


def largest_fitting_k(position: Position, memory: int) -> int:
    best = 0
    for k in range(1, position.cards_left + 1):
        if estimate_bytes(position, k) <= memory:
            best = k
    return best


class Table:
    """The transposition table the workers share: int64 rows of (key words, three value
    words, a check word), ``values`` the same memory as floats. Allocated zeroed by
    numpy: the system commits its pages as they are touched, and numpy asks for huge
    pages for big arrays (fewer TLB misses on random probes)."""

    def __init__(self, slots: int, width: int) -> None:
        self.entries = np.zeros((slots, width + 4), np.int64)
        self.values = self.entries.view(np.float64)
        self.width = width

    @property
    def slots(self) -> int:
        return self.entries.shape[0]

    @property
    def nbytes(self) -> int:
        return self.entries.nbytes

    def doubled(self) -> "Table":
        bigger = Table(2 * self.slots, self.width)
        _rehash(self.entries, bigger.entries, self.width)
        return bigger


def table_slots(position: Position, memory: int) -> tuple[int, int]:
    """(first, largest) table sizes in slots, powers of two: the first from a quarter of
    the state estimate (an upper estimate: the table doubles as it fills), the largest
    that fits ``memory`` while it doubles (the old and the new table side by side)."""
    slot = slot_bytes(position)
    largest = 1 << max(4, int(math.log2(max(16, memory / (1.5 * slot)))))
    wanted = estimate_states(position) / 4 / MAX_LOAD
    first = 1 << max(10, math.ceil(math.log2(max(16, wanted))))
    return min(first, largest), largest


def solve_nash(position: Position, memory: int = DEFAULT_MEMORY, max_nodes: int = 10**13,
               window: bool = False, workers: int | None = None,
               time_limit: float | None = None,
               progress: Callable[[int], None] | None = None) -> NashResult:
    """Solve the equilibrium of the rest of the round.

    The root's cells (player 1's card, player 2's card) are handed out one at a time
    to ``workers`` threads (default: one per core, at most two cells each) that share
    one transposition table; the root's matrix game is solved here. ``progress(1)``
    after each cell. ``window=True`` searches with alpha-beta windows (see _next_cell;
    measured slower on these games, benchmarks/nash.py). Ctrl-C stops the workers and
    re-raises; a ``time_limit`` raises NashStopped.

    >>> from solver.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> r = solve_nash(p)
    >>> round(r.value, 6), r.exploitability < 1e-9
    (0.0, True)
    """
    check_nash_position(position)
    states = estimate_states(position)
    needed = estimate_bytes(position)
    if needed > memory:
        k_fit = largest_fitting_k(position, memory)
        raise MemoryExceeded(
            f"nash at {position.cards_left} cards each needs about {states:,} states "
            f"(~{needed / 2**30:.1f} GiB), over the memory of {memory / 2**30:.1f} GiB; the "
            f"largest k that fits is {k_fit}: raise {param('memory', beside=True)} or analyse "
            "a later position")
    k = position.cards_left
    width = KEY_PRO if position.professional else KEY_NORMAL
    first, largest = table_slots(position, memory)
    args = (row_table(position.rows), np.asarray(position.hand, np.int64),
            np.asarray(position.hands[1], np.int64), position.professional, MEMO_FROM,
            window)
    if not _solve.signatures:  # compile or load first: times are the search's
        small = Table(16, width)
        _solve(*args, np.zeros((k, k), np.bool_), small.entries, small.values,
               np.zeros(4, np.int64), 0, np.zeros(N_SLOTS, np.int64), np.zeros((k, k)),
               np.zeros((k, k)))
    table = Table(first, width)
    control = np.zeros(4, np.int64)
    stats = np.zeros(N_SLOTS, np.int64)
    values, aux = np.zeros((k, k)), np.zeros((k, k))
    todo = [(i, j) for j in range(k) for i in range(k)][::-1]  # popped from the end
    lock = threading.Lock()
    workers = max(1, min(workers or os.cpu_count() or 1, (k * k + 1) // 2))

    failures: list[BaseException] = []
    solved = [0]  # root cells finished (a stopped cell goes back to todo)

    def work(done: threading.Event) -> None:
        try:
            solve_cells()
        except BaseException as error:  # handed to the main thread, re-raised there
            control[C_STOP] = ABORT_STOP
            failures.append(error)
        finally:
            done.set()

    def solve_cells() -> None:
        while True:
            with lock:
                if not todo or control[C_STOP]:
                    return
                i, j = todo.pop()
            cell = np.zeros((k, k), np.bool_)
            cell[i, j] = True
            own = np.zeros(STATS_STRIDE, np.int64)
            cell_values, cell_aux = np.zeros((k, k)), np.zeros((k, k))
            _solve(*args, cell, table.entries, table.values, control,
                   max(0, max_nodes - int(stats[N_CELLS])), own, cell_values, cell_aux)
            with lock:
                stats[:] += own[:N_SLOTS]
                if own[N_ABORTED]:
                    todo.append((i, j))
                    return
                values[i, j], aux[i, j] = cell_values[i, j], cell_aux[i, j]
                solved[0] += 1
            if progress:
                progress(1)

    start = time.perf_counter()
    while todo:
        stats[N_ABORTED] = 0
        control[C_LIMIT] = int(MAX_LOAD * table.slots)
        control[C_EVERY] = max(1, min(REPORT_EVERY, table.slots // (16 * workers)))
        # Events, not Thread.join: a join that Ctrl-C interrupts may mark its thread
        # finished while it still runs (CPython 3.11), and the next join returns at once.
        finished = [threading.Event() for _ in range(workers)]
        for done in finished:
            threading.Thread(target=work, args=(done,), daemon=True).start()
        try:
            for done in finished:
                while not done.wait(0.05):
                    if time_limit is not None and time.perf_counter() - start > time_limit:
                        control[C_STOP] = ABORT_STOP
        except KeyboardInterrupt:
            control[C_STOP] = ABORT_STOP
            for done in finished:
                done.wait()
            raise
        if failures:
            raise failures[0]
        if control[C_STOP] == ABORT_FULL:  # double the table and go on: nothing is lost
            if 2 * table.slots > largest:
                raise MemoryExceeded(
                    f"nash: the transposition table filled {param('memory')} "
                    f"({memory / 2**30:.2f} GiB) after {int(control[C_USED]):,} states; raise "
                    f"{param('memory', beside=True)} or analyse a later position")
            table = table.doubled()
            control[C_STOP] = 0
        elif control[C_STOP] == ABORT_STOP and todo:  # (all cells done: the solve is whole)
            raise NashStopped(
                f"nash stopped at the time limit ({time_limit:g} s) with {solved[0]} of "
                f"{k * k} root cells solved; an equilibrium needs them all: allow more time "
                f"({param('time_limit', beside=True)}) or analyse a later position",
                "time limit",
                cards_total=k * k, nodes=int(stats[N_CELLS]),
                seconds=time.perf_counter() - start)
        elif todo:
            raise BudgetExceeded(f"nash search passed {max_nodes:,} cells")
    seconds = time.perf_counter() - start
    x, y = np.zeros(HAND_SIZE), np.zeros(HAND_SIZE)
    value, pure = _matrix_game(values, k, k, x, y, np.zeros((HAND_SIZE + 1, 2 * HAND_SIZE + 1)))
    stats[N_SADDLE if pure else N_LP] += 1  # the root's game
    x, y = x[:k], y[:k]
    p1_cows = float(x @ aux @ y)
    return NashResult(float(value), position.hand, position.hands[1], tuple(map(float, x)),
                      tuple(map(float, y)), tuple(map(float, values @ y)),
                      tuple(map(float, x @ values)), p1_cows, p1_cows - float(value),
                      int(stats[N_STATES]), int(stats[N_LP]), int(stats[N_SADDLE]),
                      int(stats[N_REPLY]), int(stats[N_CUT]), int(stats[N_CELLS]), seconds,
                      values, int(control[C_USED]), table.nbytes, workers)
