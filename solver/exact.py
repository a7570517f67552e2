"""Exact search over the rest of a round: models ``random`` and ``worst``.

One numba kernel, ``_solve``, walks the round as a tree: at a turn boundary it
enumerates player 1's cards and every set of opponent cards (known hands: one
card each; hidden hands: any set of cards from the pool — for player 1's cows
only the set matters, not who holds which card); inside a turn it places the
cards lowest first, branching where an owner has a choice (player 1 minimises;
the ``worst`` adversary maximises; a ``random`` opponent follows the
rule-following choice). Turn-boundary values are memoised on what matters for
the rest of the round: each row as (first card, last card, length, cows) —
first card only under professional placement — and who holds every card.

Card owners inside the kernel: 0 placed or gone, 1 player 1, 2.. known opponents,
OWNER_POOL the unknown pool.
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba.typed import List

from .engine import jit, jit_inline, row_table
from .errors import (
    BudgetExceeded,
    MemoryExceeded,
    NimmtError,
    SearchInterrupted,
    SearchStopped,
    param,
)
from .position import Position
from .rules import HAND_SIZE, ROW_COUNT, STANDARD_DECK
from .statekey import L_WIDTH, key_layout, pack_key
from .table import MAX_LOAD, Table, probe, rehash, store
from .turns import RULE_OPTION, card_options, play_found_option, play_option, sort_turn_row

__all__ = ["DEFAULT_MEMORY", "CardLine", "ExactResult", "estimate_nodes", "opponent_set_count",
           "owner_array", "solve_exact"]

MODEL_RANDOM, MODEL_WORST = 0, 1
MODELS = {"random": MODEL_RANDOM, "worst": MODEL_WORST}
OWNER_GONE, OWNER_P1, OWNER_POOL = 0, 1, 15
VALUE_WORDS = 1  # the memo keeps one value a state: its value for player 1
FIRST_SLOTS = 1 << 10  # the memo's first size; it doubles past MAX_LOAD
# stats[] slots: counters the kernel writes, and two the caller writes: STOP (non-zero
# asks the search to stop; the caller may set it from another thread while the kernel
# runs) and MAX_SLOTS (the most slots the memo may double to, 0 for no limit). ABORTED
# says why a search stopped early; CARDS_DONE counts root cards solved (progress);
# ENTRIES and SLOTS: the memo's entries and slots now.
(RESOLVED, STATES, HITS, PRUNED, ABORTED, STOP, MAX_SLOTS, CARDS_DONE, ENTRIES,
 SLOTS) = range(10)
STAT_SLOTS = 10
STOPPED_NODES, STOPPED_FLAG, STOPPED_MEMORY = 1, 2, 3  # stats[ABORTED]
CHECK_MASK = 1023  # the stop flag and the memo's size are looked at every 1024 nodes
BOUNDARY, CHOICE = 0, 1
MAX_FRAMES = 128  # at most 11 boundaries and 10 choices per turn deep
ROW_FACTOR = 64  # estimate: distinct row tables per set of cards in play
CHOICE_FACTOR = 3  # estimate: row choices inside turns widen the tree (benchmarks/analysis.py)
CARD_NUMBERS = np.arange(STANDARD_DECK + 1, dtype=np.int64)  # pack_key's card list


def memo_layout(owner: np.ndarray, professional: bool) -> np.ndarray:
    """The memo's key layout (solver/statekey.py) for a search from a state whose owners
    are ``owner``: room for the cards in play there (they only become fewer) and owner
    fields wide enough for the largest owner. Rows are not merged (``merge_rows`` off):
    the key tells apart the states the search has always told apart, so node counts
    stay those of its earlier memo."""
    in_play = int(np.count_nonzero(owner))
    top = int(owner.max()) if in_play else OWNER_P1
    return key_layout(max(1, in_play), max(1, (top - 1).bit_length()), professional,
                      merge_rows=False)


@jit
def new_memo(width, slots):
    """An empty memo: a typed list holding one table (solver/table.py) of ``slots`` slots
    for keys of ``width`` words; the search swaps in a doubled table as it fills."""
    memo = List()
    memo.append(np.zeros((slots, width + VALUE_WORDS + 1), np.int64))
    return memo


@jit_inline
def pack_memo_key(table, owner, deck_size, layout, words, order):
    """The memo key of the turn-boundary state (table, owner) into ``words``: the state
    key of its rows and the cards in play with their owners (``order``: 4 ints scratch)."""
    pack_key(table, CARD_NUMBERS, owner, deck_size + 1, -1, -1, layout, words, order)


@jit_inline
def memo_find(entries, values, words, width):
    """(found, value) of the key ``words`` in the memo's table."""
    s, found = probe(entries, words, width)
    if found:
        return True, values[s, width]
    return False, 0.0


@jit_inline
def memo_store(memo, entries, values, words, width, value, stats):
    """Store ``value`` under ``words``; returns the table (doubled, and swapped into the
    memo, when it passed MAX_LOAD and stats[MAX_SLOTS] allows). A full table (at its
    largest, between stop checks) keeps what it has."""
    s, found = probe(entries, words, width)
    if s < 0:
        return entries
    store(entries, values, s, words, width, value, 0.0, 0.0)
    if found:
        return entries
    stats[ENTRIES] += 1
    slots = entries.shape[0]
    if stats[ENTRIES] > MAX_LOAD * slots and (stats[MAX_SLOTS] == 0
                                              or 2 * slots <= stats[MAX_SLOTS]):
        bigger = np.zeros((2 * slots, entries.shape[1]), np.int64)
        rehash(entries, bigger, width)
        memo[0] = bigger
        stats[SLOTS] = 2 * slots
        return bigger
    return entries


@jit
def cards_of(owner, deck_size, who, out):
    count = 0
    for c in range(1, deck_size + 1):
        if owner[c] == who:
            out[count] = c
            count += 1
    return count


@jit
def _binomial(n, k):
    if k < 0 or k > n:
        return 0
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


@jit
def _stop_reason(stats, max_resolved):
    """Why the search must stop now (a STOPPED_* code), or 0 to go on: the memory stop
    when the memo, at the most slots allowed, is loaded past MAX_LOAD."""
    if stats[RESOLVED] > max_resolved:
        return STOPPED_NODES
    if stats[STOP] != 0:
        return STOPPED_FLAG
    if (stats[MAX_SLOTS] > 0 and 2 * stats[SLOTS] > stats[MAX_SLOTS]
            and stats[ENTRIES] > MAX_LOAD * stats[SLOTS]):
        return STOPPED_MEMORY
    return 0


@jit
def search_state(table0, owner, deck_size, known_count, hidden_count, professional, model,
                 root_card, memo, layout, stats, max_resolved, result):
    """Value of the state (table0, owner) for player 1; result = (value, cows now, took).

    An explicit stack (numba cannot cache recursive functions). BOUNDARY frames
    enumerate player 1's cards (only ``root_card`` if >= 0) and every opponent set;
    CHOICE frames branch on a row choice inside a turn. Between them, "descending"
    places the turn's forced cards. A frame's ``add`` fields are player 1's cows
    taken by forced placements on the way to it, added when it returns.
    With root_card >= 0, 'cows now' and 'took' describe that card's first turn.
    The memo (new_memo) maps the keys (``layout``) of the boundaries below the root to
    their values. It stops early (stats[ABORTED], see _stop_reason) past ``max_resolved``
    nodes, when stats[STOP] is set or when the memo is full at stats[MAX_SLOTS] slots;
    the last two are looked at every 1024 nodes.
    """
    width = known_count + hidden_count + 1
    key_width = layout[L_WIDTH]
    entries = memo[0]
    values = entries.view(np.float64)
    stats[SLOTS] = entries.shape[0]
    order = np.zeros(ROW_COUNT, np.int64)
    f_type = np.zeros(MAX_FRAMES, np.int64)
    f_fresh = np.zeros(MAX_FRAMES, np.int64)
    f_table = np.zeros((MAX_FRAMES, ROW_COUNT, 4), np.int64)
    f_add = np.zeros(MAX_FRAMES)        # value taken on the way in
    f_add_now = np.zeros(MAX_FRAMES)    # player 1's cows taken on the way in
    f_add_took = np.zeros(MAX_FRAMES)
    f_best = np.zeros(MAX_FRAMES)
    f_best_now = np.zeros(MAX_FRAMES)
    f_best_took = np.zeros(MAX_FRAMES)
    b_hand = np.zeros((MAX_FRAMES, HAND_SIZE), np.int64)
    b_k = np.zeros(MAX_FRAMES, np.int64)
    b_h = np.zeros(MAX_FRAMES, np.int64)
    b_known = np.zeros((MAX_FRAMES, max(known_count, 1), HAND_SIZE), np.int64)
    b_sizes = np.zeros((MAX_FRAMES, max(known_count, 1)), np.int64)
    b_digits = np.zeros((MAX_FRAMES, max(known_count, 1)), np.int64)
    b_pool = np.zeros((MAX_FRAMES, deck_size), np.int64)
    b_pool_count = np.zeros(MAX_FRAMES, np.int64)
    b_pick = np.zeros((MAX_FRAMES, max(hidden_count, 1)), np.int64)
    b_set = np.zeros(MAX_FRAMES, np.int64)
    b_set_count = np.zeros(MAX_FRAMES, np.int64)
    b_acc = np.zeros(MAX_FRAMES)
    b_acc_now = np.zeros(MAX_FRAMES)
    b_acc_took = np.zeros(MAX_FRAMES)
    b_turn = np.zeros((MAX_FRAMES, width), np.int64)
    b_tags = np.zeros((MAX_FRAMES, width), np.int64)
    b_key = np.zeros((MAX_FRAMES, key_width), np.int64)
    c_i = np.zeros(MAX_FRAMES, np.int64)
    c_options = np.zeros(MAX_FRAMES, np.int64)
    c_option = np.zeros(MAX_FRAMES, np.int64)
    c_mine = np.zeros(MAX_FRAMES, np.bool_)
    c_turn_frame = np.zeros(MAX_FRAMES, np.int64)
    work = np.zeros((ROW_COUNT, 4), np.int64)
    words = np.zeros(key_width, np.int64)

    top = 0
    f_type[0] = BOUNDARY
    f_fresh[0] = 1
    f_table[0] = table0
    have_ret, descending = False, False
    rv, rn, rt = 0.0, 0.0, 0.0
    d_i, d_tf, d_pend, d_now, d_took = 0, 0, 0.0, 0.0, 0.0
    while True:
        if descending:  # place forced cards of turn d_tf from card d_i on ``work``
            descending = False
            m = width
            i = d_i
            pushed = False
            while i < m:
                card = b_turn[d_tf, i]
                mine = b_tags[d_tf, i] == OWNER_P1
                options, kind, row_a, row_b = card_options(work, card, professional)
                if options > 1 and (mine or model != MODEL_RANDOM):
                    top += 1
                    f_type[top] = CHOICE
                    f_table[top] = work
                    f_add[top], f_add_now[top], f_add_took[top] = d_pend, d_now, d_took
                    c_i[top], c_options[top], c_option[top] = i, options, 0
                    c_mine[top], c_turn_frame[top] = mine, d_tf
                    pushed = True
                    break
                cows = play_found_option(work, card, kind, row_a, row_b, RULE_OPTION)
                if mine:
                    d_pend += cows
                    d_now += cows
                    d_took = 1.0 if cows > 0 else 0.0
                i += 1
            if pushed:
                continue
            if b_k[d_tf] == 1:  # that was player 1's last card
                rv, rn, rt, have_ret = d_pend, d_now, d_took, True
                continue
            pack_memo_key(work, owner, deck_size, layout, words, order)
            found, stored = memo_find(entries, values, words, key_width)
            if found:
                stats[HITS] += 1
                rv, rn, rt, have_ret = stored + d_pend, d_now, d_took, True
                continue
            top += 1
            f_type[top] = BOUNDARY
            f_fresh[top] = 1
            f_table[top] = work
            f_add[top], f_add_now[top], f_add_took[top] = d_pend, d_now, d_took
            b_key[top] = words
            continue

        f = top
        if f_type[f] == CHOICE:
            if have_ret:
                have_ret = False
                o = c_option[f]
                if (o == 0 or (c_mine[f] and rv < f_best[f])
                        or (not c_mine[f] and rv > f_best[f])):
                    f_best[f], f_best_now[f], f_best_took[f] = rv, rn, rt
                c_option[f] = o + 1
            if c_option[f] == c_options[f]:
                rv = f_best[f] + f_add[f]
                rn = f_best_now[f] + f_add_now[f]
                rt = f_best_took[f] + f_add_took[f]
                have_ret = True
                top -= 1
                continue
            work[:] = f_table[f]
            o = c_option[f]
            card = b_turn[c_turn_frame[f], c_i[f]]
            cows = play_option(work, card, professional, o)
            d_i, d_tf = c_i[f] + 1, c_turn_frame[f]
            d_now = float(cows) if c_mine[f] else 0.0
            d_pend = d_now
            d_took = (1.0 if cows > 0 else 0.0) if c_mine[f] else 0.0
            descending = True
            continue

        # ---- BOUNDARY frame
        next_card, finished = False, False
        if f_fresh[f]:
            f_fresh[f] = 0
            stats[STATES] += 1
            b_k[f] = cards_of(owner, deck_size, OWNER_P1, b_hand[f])
            product = 1
            for j in range(known_count):
                b_sizes[f, j] = cards_of(owner, deck_size, 2 + j, b_known[f, j])
                product *= b_sizes[f, j]
            b_pool_count[f] = cards_of(owner, deck_size, OWNER_POOL, b_pool[f])
            b_set_count[f] = product * _binomial(b_pool_count[f], hidden_count)
            b_h[f] = -1
            f_best[f], f_best_now[f], f_best_took[f] = math.inf, 0.0, 0.0
            next_card = True
        elif have_ret:
            have_ret = False
            for a in range(width):
                owner[b_turn[f, a]] = b_tags[f, a]
            if model == MODEL_RANDOM:
                b_acc[f] += rv
                b_acc_now[f] += rn
                b_acc_took[f] += rt
            elif rv > b_acc[f]:
                b_acc[f], b_acc_now[f], b_acc_took[f] = rv, rn, rt
            b_set[f] += 1
            pruned = model == MODEL_WORST and b_acc[f] >= f_best[f]
            if pruned and b_set[f] < b_set_count[f]:
                stats[PRUNED] += 1
            if pruned or b_set[f] == b_set_count[f]:
                value, now, took = b_acc[f], b_acc_now[f], b_acc_took[f]
                if model == MODEL_RANDOM:
                    n = b_set_count[f]
                    value, now, took = value / n, now / n, took / n
                if value < f_best[f]:
                    f_best[f], f_best_now[f], f_best_took[f] = value, now, took
                next_card = True
            else:  # next opponent set: hidden combination first, then known hands
                i = hidden_count - 1
                while i >= 0 and b_pick[f, i] == b_pool_count[f] - hidden_count + i:
                    i -= 1
                if i >= 0:
                    b_pick[f, i] += 1
                    for t in range(i + 1, hidden_count):
                        b_pick[f, t] = b_pick[f, t - 1] + 1
                else:
                    for t in range(hidden_count):
                        b_pick[f, t] = t
                    for j in range(known_count):
                        b_digits[f, j] += 1
                        if b_digits[f, j] < b_sizes[f, j]:
                            break
                        b_digits[f, j] = 0
        if next_card:
            h = b_h[f] + 1
            while h < b_k[f] and f == 0 and root_card >= 0 and b_hand[f, h] != root_card:
                h += 1
            b_h[f] = h
            if h >= b_k[f]:  # every card done
                finished = True
            else:
                b_set[f] = 0
                for j in range(known_count):
                    b_digits[f, j] = 0
                for t in range(hidden_count):
                    b_pick[f, t] = t
                b_acc[f] = 0.0 if model == MODEL_RANDOM else -math.inf
                b_acc_now[f], b_acc_took[f] = 0.0, 0.0
        if finished:  # return the state's value
            if f == 0:
                result[0], result[1], result[2] = f_best[0], f_best_now[0], f_best_took[0]
                return
            entries = memo_store(memo, entries, values, b_key[f], key_width, f_best[f], stats)
            values = entries.view(np.float64)
            rv = f_best[f] + f_add[f]
            rn, rt = f_add_now[f], f_add_took[f]
            have_ret = True
            top -= 1
            continue
        # the next joint action: player 1's card and one opponent set, sorted
        b_turn[f, 0], b_tags[f, 0] = b_hand[f, b_h[f]], OWNER_P1
        for j in range(known_count):
            b_turn[f, 1 + j], b_tags[f, 1 + j] = b_known[f, j, b_digits[f, j]], 2 + j
        for t in range(hidden_count):
            b_turn[f, 1 + known_count + t] = b_pool[f, b_pick[f, t]]
            b_tags[f, 1 + known_count + t] = OWNER_POOL
        sort_turn_row(b_turn, b_tags, f, width)
        for a in range(width):
            owner[b_turn[f, a]] = OWNER_GONE
        stats[RESOLVED] += 1
        if stats[RESOLVED] > max_resolved or stats[RESOLVED] & CHECK_MASK == 0:
            why = _stop_reason(stats, max_resolved)
            if why:
                stats[ABORTED] = why
                for a in range(width):
                    owner[b_turn[f, a]] = b_tags[f, a]
                return
        work[:] = f_table[f]
        d_i, d_tf, d_pend, d_now, d_took = 0, f, 0.0, 0.0, 0.0
        descending = True


@jit
def _solve_cards(table, owner, deck_size, known_count, hidden_count, professional, model,
                 cards, layout, stats, max_resolved, results):
    """results[i] = (value, cows now, took) of root card cards[i]; one memo, made here."""
    first = FIRST_SLOTS
    if stats[MAX_SLOTS] > 0:
        first = min(first, stats[MAX_SLOTS])
    memo = new_memo(layout[L_WIDTH], first)
    result = np.zeros(3)
    for i in range(cards.shape[0]):
        search_state(table, owner, deck_size, known_count, hidden_count, professional, model,
                     cards[i], memo, layout, stats, max_resolved, result)
        if stats[ABORTED]:
            return
        results[i, :] = result
        stats[CARDS_DONE] = i + 1


# ---------------------------------------------------------------- Python API

DEFAULT_MEMORY = 8 * 2**30
# The memory guard counts the memo's real bytes: a table of ``slots`` slots of
# memo_slot_bytes each, and while it doubles the old one beside it (1.5 x the new).
DOUBLING_PEAK = 1.5
# Searches estimated below this run in the caller's thread: they take milliseconds, and a
# worker thread would cost more than they do.
INLINE_NODES = 20_000
POLL_SECONDS = 0.05
TIME_LIMIT, INTERRUPTED = 1, 2  # what the caller wrote into stats[STOP]


@dataclass(frozen=True)
class CardLine:
    """One card's exact result: its value (expected or guaranteed cows to the end of
    the round), its cows this turn, and the probability it takes a row this turn
    (random: under the model; worst: 1 or 0 on the adversary's line)."""

    card: int
    value: float
    cows_now: float
    take_probability: float


@dataclass(frozen=True)
class ExactResult:
    model: str
    cards: tuple[CardLine, ...]
    resolved: int   # nodes: joint actions resolved (a turn's cards placed)
    states: int     # distinct turn-boundary states expanded
    memo_hits: int
    pruned: int     # cards cut off by the worst-case bound
    seconds: float


def memo_slot_bytes(layout: np.ndarray) -> int:
    """Bytes of one memo slot for keys of ``layout``."""
    return Table.slot_bytes(int(layout[L_WIDTH]), VALUE_WORDS)


def memo_max_slots(memory: int, slot_bytes: int) -> int:
    """The most slots (a power of two, at least 16) the memo may double to within
    ``memory`` bytes, the table it doubles from counted beside it."""
    return 1 << max(4, int(math.log2(max(16.0, memory / (DOUBLING_PEAK * slot_bytes)))))


def owner_array(position: Position) -> tuple[np.ndarray, int, int]:
    """(owner[card], known opponent count, hidden opponent count) for the kernel."""
    owner = np.zeros(position.deck_size + 1, np.int64)
    for c in position.hand:
        owner[c] = OWNER_P1
    known = [h for h in position.hands[1:] if h is not None]
    for j, h in enumerate(known):
        for c in h:
            owner[c] = 2 + j
    hidden = len(position.hidden_players)
    if hidden:
        for c in position.pool:
            owner[c] = OWNER_POOL
    return owner, len(known), hidden


def opponent_set_count(position: Position, cards_left: int | None = None) -> int:
    """How many opponent card sets a turn has with ``cards_left`` cards in each hand."""
    k = position.cards_left if cards_left is None else cards_left
    known = sum(1 for h in position.hands[1:] if h is not None)
    hidden = len(position.hidden_players)
    pool = len(position.pool) - hidden * (position.cards_left - k)
    return k ** known * math.comb(max(pool, 0), hidden)


def estimate_nodes(position: Position, cards_left: int | None = None) -> int:
    """An upper estimate of the joint actions the exact search resolves (from this
    position, or from one like it with ``cards_left`` cards in each hand).

    Turn by turn: the states reachable (the smaller of the plain tree's width and the
    number of distinct card sets times a row factor) times the joint actions of each.
    """
    k = position.cards_left if cards_left is None else cards_left
    known = sum(1 for h in position.hands[1:] if h is not None)
    hidden = len(position.hidden_players)
    pool = len(position.pool) - hidden * (position.cards_left - k)
    tree, total = 1, 0
    for d in range(k):  # d turns played
        kd = k - d
        joint = kd * kd ** known * math.comb(max(pool - hidden * d, 0), hidden)
        card_sets = math.comb(k, d) ** (1 + known) * math.comb(max(pool, 0), hidden * d)
        states = min(tree, card_sets * ROW_FACTOR)
        total += states * joint
        tree *= joint
    return CHOICE_FACTOR * total


def solve_exact(position: Position, model: str = "random", max_nodes: int = 50_000_000,
                time_limit: float | None = None, memory: int = DEFAULT_MEMORY,
                progress: Callable[[int], None] | None = None) -> ExactResult:
    """Exact value of every card in hand for ``model`` ('random' or 'worst').

    The cards are solved one after another, sharing one memo. The search stops early,
    keeping the cards it finished, past ``max_nodes`` nodes (BudgetExceeded), when its
    memo would pass ``memory`` bytes (MemoryExceeded), after ``time_limit`` seconds
    (SearchStopped) or on Ctrl-C (SearchInterrupted); it runs in a worker thread (the
    kernel releases the GIL) while this one watches the clock. ``progress(n)`` reports
    n more root cards solved.

    >>> from nimmt.solver.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> r = solve_exact(p, "worst")
    >>> sorted((c.value, c.card) for c in r.cards)[0]
    (0.0, 13)
    """
    if model not in MODELS:
        raise NimmtError(f"unknown model {model!r} for exact search; use random or worst")
    if time_limit is not None and not time_limit > 0:
        raise NimmtError(f"time_limit={time_limit!r} must be a positive number of seconds")
    owner, known, hidden = owner_array(position)
    table = row_table(position.rows)
    stats = np.zeros(STAT_SLOTS, np.int64)
    layout = memo_layout(owner, position.professional)
    stats[MAX_SLOTS] = memo_max_slots(memory, memo_slot_bytes(layout))
    results = np.zeros((position.cards_left, 3))
    cards = np.asarray(position.hand, np.int64)
    args = (table, owner, position.deck_size, known, hidden, position.professional,
            MODELS[model], cards, layout)
    if not _solve_cards.signatures:  # compile or load first: reported times are the search's
        _solve_cards(*args, np.zeros(STAT_SLOTS, np.int64), 0, results.copy())
    start = time.perf_counter()
    interrupted = False
    if time_limit is None and progress is None and estimate_nodes(position) <= INLINE_NODES:
        _solve_cards(*args, stats, max_nodes, results)
    else:
        interrupted = _run_watched(args, stats, max_nodes, results, start, time_limit, progress)
    seconds = time.perf_counter() - start
    lines = [CardLine(card, float(v), float(now), float(took))
             for card, (v, now, took) in zip(position.hand, results)]
    if stats[ABORTED]:
        _raise_stopped(stats, lines, position, model, max_nodes, time_limit, memory, seconds,
                       interrupted, memo_slot_bytes(layout))
    return ExactResult(model, tuple(lines), int(stats[RESOLVED]), int(stats[STATES]),
                       int(stats[HITS]), int(stats[PRUNED]), seconds)


def _run_watched(args, stats, max_nodes, results, start, time_limit, progress) -> bool:
    """Run the search in a worker thread; stop it at the time limit or on Ctrl-C (then
    True). An error inside the worker is raised here."""
    failures: list[BaseException] = []
    # An Event, not Thread.join: a join that Ctrl-C interrupts may mark the thread
    # finished while it still runs (CPython 3.11), and a second join then returns at once.
    done = threading.Event()

    def work() -> None:
        try:
            # numba's Dispatcher.__call__ is typed without the kernel's parameters
            _solve_cards(*args, stats, max_nodes, results)  # type: ignore[call-arg]
        except BaseException as error:  # handed to the caller's thread
            failures.append(error)
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    reported = 0
    interrupted = False
    try:
        while not done.wait(POLL_SECONDS):
            if time_limit is not None and time.perf_counter() - start > time_limit:
                stats[STOP] = TIME_LIMIT
            if progress is not None and stats[CARDS_DONE] > reported:
                step, reported = int(stats[CARDS_DONE]) - reported, int(stats[CARDS_DONE])
                progress(step)
    except KeyboardInterrupt:
        stats[STOP] = INTERRUPTED
        interrupted = True
        done.wait()  # within 1024 nodes
    if failures:
        raise failures[0]
    if progress is not None and not interrupted and stats[CARDS_DONE] > reported:
        progress(int(stats[CARDS_DONE]) - reported)
    return interrupted


def _raise_stopped(stats, lines, position, model, max_nodes, time_limit, memory, seconds,
                   interrupted, slot_bytes) -> None:
    done = int(stats[CARDS_DONE])
    total = position.cards_left
    nodes = int(stats[RESOLVED])
    kept = dict(finished=tuple(lines[:done]), cards_total=total, nodes=nodes, seconds=seconds)
    so_far = f"after {nodes:,} nodes, {done} of {total} cards solved"
    if interrupted:
        raise SearchInterrupted(f"exact search interrupted {so_far}", **kept)
    why = int(stats[ABORTED])
    if why == STOPPED_MEMORY:
        slots, entries = int(stats[SLOTS]), int(stats[ENTRIES])
        raise MemoryExceeded(
            f"exact search ({model}) stopped at its memory budget of {_size(memory)}: the "
            f"memo filled its largest table ({slots:,} slots of {slot_bytes} bytes, "
            f"{entries:,} entries; {_size(slots * slot_bytes)}) ({so_far}); "
            f"raise {param('memory', beside=True)} or analyse a position with fewer cards left",
            **kept)
    if why == STOPPED_FLAG:
        raise SearchStopped(
            f"exact search ({model}) stopped at the time limit of {time_limit:g} s ({so_far}); "
            f"allow more time ({param('time_limit', beside=True)}) or analyse a position with "
            "fewer cards left", "time limit", **kept)
    raise BudgetExceeded(
        f"exact search ({model}) passed its budget of {max_nodes:,} nodes ({so_far}); raise "
        f"{param('max_nodes', beside=True)} or use Monte Carlo ({param('method', 'montecarlo')})",
        **kept)


def _size(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB" if size < 2**30 else f"{size / 2**30:.1f} GiB"
