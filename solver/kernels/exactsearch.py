"""The exact search's kernel: the rest of a round as a tree, models ``random`` and ``worst``.

One numba kernel, ``search_state``, walks the round as a tree: at a turn boundary it
enumerates player 1's cards and every set of opponent cards (known hands: one
card each; hidden hands: any set of cards from the pool — for player 1's cows
only the set matters, not who holds which card); inside a turn it places the
cards lowest first, branching where an owner has a choice (player 1 minimises;
the ``worst`` adversary maximises; a ``random`` opponent follows the
rule-following choice). Its stack's frames are rows of named columns and its steps
named ``@jit_inline`` transitions (see "search frames" below); with the win objective
and two or more hidden hands, ATTRIBUTE frames give a turn's hidden cards to the hidden
players (see "hidden seats"). Turn-boundary values
are memoised in a ``solver/kernels/table.py`` table under ``solver/kernels/statekey.py`` keys (rows
not merged, see ``memo_layout``): each row as (rank, length, cows), or (first card,
last card, length, cows) under professional placement, and every card in play with
its owner.

Card owners inside the kernel: 0 placed or gone, 1 player 1, 2.. known opponents,
OWNER_POOL the unknown pool (``solver/kernels/statekey.py``). The search from a
``Position`` (budgets, time limit, Ctrl-C, results) is ``solver/search/exact.py``.
"""
from __future__ import annotations

import math

import numpy as np
from numba.typed import List

from ..base.rules import HAND_SIZE, MAX_PLAYERS, ROW_COUNT, STANDARD_DECK
from .engine import copy_row, jit, jit_inline
from .objective import G_HIDDEN_SEATS, G_SEATS, G_TAKEN, G_WIN, cost_of_cows, end_cost
from .statekey import (
    L_WIDTH,
    OWNER_BITS_ANY,
    OWNER_GONE,
    OWNER_P1,
    OWNER_POOL,
    key_layout,
    pack_key,
    pack_taken,
    taken_words,
    with_taken,
)
from .table import MAX_LOAD, Table, probe, rehash, store
from .turns import RULE_OPTION, card_options, play_found_option, play_option

__all__ = ["ABORTED", "CARDS_DONE", "ENTRIES", "FIRST_SLOTS", "HITS", "INTERRUPTED", "MAX_SLOTS",
           "MODELS", "MODEL_RANDOM", "MODEL_WORST", "PRUNED", "RESOLVED", "SLOTS", "STATES",
           "STAT_SLOTS", "STOP", "STOPPED_FLAG", "STOPPED_MEMORY", "STOPPED_NODES", "TIME_LIMIT",
           "attribution",
           "cards_of", "memo_find", "memo_layout", "memo_max_slots", "memo_slot_bytes",
           "memo_store", "new_memo", "pack_memo_key", "search_state", "seat_of", "solve_cards",
           "sort_hidden_seats"]

MODEL_RANDOM, MODEL_WORST = 0, 1
MODELS = {"random": MODEL_RANDOM, "worst": MODEL_WORST}
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
BOUNDARY, CHOICE, ATTRIBUTE = 0, 1, 2
MAX_FRAMES = 144  # at most 11 boundaries, 10 choices and 1 attribution per turn deep
CARD_NUMBERS = np.arange(STANDARD_DECK + 1, dtype=np.int64)  # pack_key's card list


def memo_layout(owner: np.ndarray, professional: bool, taken_seats: int = 0) -> np.ndarray:
    """The memo's key layout (solver/kernels/statekey.py) for a search from a state whose owners
    are ``owner``: room for the cards in play there (they only become fewer) and owner
    fields wide enough for the largest owner. Rows are not merged (``merge_rows`` off):
    the key tells apart the states the search has always told apart, so node counts
    stay those of its earlier memo. ``taken_seats`` > 0 (the win objective): the seats'
    cows taken so far are part of the key."""
    in_play = int(np.count_nonzero(owner))
    top = int(owner.max()) if in_play else OWNER_P1
    return with_taken(key_layout(max(1, in_play), max(1, (top - 1).bit_length()), professional,
                                 merge_rows=False), taken_seats)


@jit
def new_memo(width, slots):
    """An empty memo: a typed list holding one table (solver/kernels/table.py) of ``slots`` slots
    for keys of ``width`` words; the search swaps in a doubled table as it fills."""
    memo = List()
    memo.append(np.zeros((slots, width + VALUE_WORDS + 1), np.int64))
    return memo


@jit_inline
def pack_memo_key(table, owner, deck_size, layout, words, order, held):
    """The memo key of the turn-boundary state (table, owner) into ``words``: the state
    key of its rows and the cards in play with their owners (``order``: 4 ints scratch),
    and the seats' cows taken so far (``held``) when the layout keeps them (win)."""
    pack_key(table, CARD_NUMBERS, owner, deck_size + 1, -1, -1, layout, words, order)
    pack_taken(words, layout, held)


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


# ---------------------------------------------------------------- search frames
# The search's stack: frame f is row f of two arrays, ``frames`` (integers) and ``sums``
# (value triples). A frame's integers are named columns and blocks of columns:
#
#   KIND .. TURN_FRAME      one column each (below)
#   TABLE   + 4 * r + c     the row table at the frame (a choice's: before its card), 16
#   HANDS   + s * HAND_SIZE + i   boundary: seat s's hand (seat 0 player 1, seat 1 + j
#                           known opponent j, owner code OWNER_P1 + s), HAND_SIZE a seat
#   SIZES   + s             boundary: how many cards seat s holds
#   DIGITS  + j             boundary: which card of known opponent j's hand is played
#   POOL    + i             boundary: the unknown pool, ascending (POOL_COUNT cards)
#   PICK    + t             boundary: the hidden cards' indices in the pool
#   TURN_CARDS + a, TURN_OWNERS + a   boundary: the joint action being resolved,
#                           ascending, with each card's owner
#   KEY     + w             boundary: its memo key (the layout's width)
#
# Blocks are sized for the largest game (MAX_PLAYERS, a whole deck in the pool), so the
# columns are constants; a search writes a column before it reads it.
#
# sums[f, triple, part]: value triples (ADDED, BEST, ACC) of (VALUE, NOW, TOOK). A triple
# is what a subtree is worth to player 1: VALUE (cows to the end of the round, in the
# model), NOW (cows in the root's turn) and TOOK (probability it takes a row in that
# turn). ADDED: what forced placements gave player 1 on the way into the frame (added when
# it returns); BEST: the best so far over player 1's cards or the chooser's options; ACC:
# the opponent sets of the current card, summed (random) or their maximum (worst).
# Between frames the search keeps a triple as three local numbers (registers, not
# memory): carried while a turn's cards are placed, returned when a frame settles.

(KIND, FRESH, HAND_AT, SET_AT, SET_COUNT, POOL_COUNT, CHOICE_AT, OPTION_COUNT, OPTION,
 MINE, TURN_FRAME) = range(11)
TABLE = 11
HANDS = TABLE + ROW_COUNT * 4
SIZES = HANDS + MAX_PLAYERS * HAND_SIZE
DIGITS = SIZES + MAX_PLAYERS
POOL = DIGITS + MAX_PLAYERS - 1
PICK = POOL + STANDARD_DECK
TURN_CARDS = PICK + MAX_PLAYERS - 1
TURN_OWNERS = TURN_CARDS + MAX_PLAYERS
KEY = TURN_OWNERS + MAX_PLAYERS
KEY_COLUMNS = (int(key_layout(STANDARD_DECK, OWNER_BITS_ANY, True)[L_WIDTH])  # the widest
               + taken_words(MAX_PLAYERS))
HELD = KEY + KEY_COLUMNS  # + seat: cows taken so far this round (objectives, below)
# ``held`` beyond the seats (only with hidden seats told apart, "hidden seats" below):
H_PENDING = MAX_PLAYERS           # + turn card i: cows of a hidden card not yet attributed
H_SLOT = H_PENDING + MAX_PLAYERS  # + turn card i: the ``held`` index its cows go to
H_DONE = H_SLOT + MAX_PLAYERS     # 1 once this turn's hidden cards are attributed to seats
HELD_WIDTH = H_DONE + 1
FRAME_COLUMNS = HELD + HELD_WIDTH
ADDED, BEST, ACC = range(3)
VALUE, NOW, TOOK = range(3)

# ---------------------------------------------------------------- objectives
# What player 1 minimises (VALUE) is the cost that solver/kernels/objective.py encodes in
# the ``goal`` array (cost_of_cows per cow, end_cost at the end of the round;
# positions/objective.py's goal_array builds it). Seats' cows taken so far are carried
# beside the row table (``held``, int64 by seat: 0 player 1, 1 + j known opponent j,
# 1 + known count + t hidden hand t; the hidden hands are one seat unless win tells two or
# more apart, "hidden seats" below) and saved in each frame's HELD block; goal[G_TAKEN +
# seat] holds them at the root. Only win puts them into the memo key (memo_layout's
# taken_seats).


@jit_inline
def seat_of(who, known_count):
    """The seat (index into ``held``) of owner code ``who``."""
    return known_count + 1 if who == OWNER_POOL else who - OWNER_P1


@jit_inline
def held_seats(goal):
    """How many seats' cows the frames keep: every seat for win (the end cost reads them),
    none otherwise (nothing reads them; saving them would only cost time); with hidden
    seats told apart, the turn's attribution columns too (HELD_WIDTH)."""
    if goal[G_HIDDEN_SEATS] != 0.0:
        return HELD_WIDTH
    return int(goal[G_SEATS]) if goal[G_WIN] != 0.0 else 0


@jit_inline
def save_held(frames, f, held, seats):
    for s in range(seats):
        frames[f, HELD + s] = held[s]


@jit_inline
def load_held(frames, f, held, seats):
    for s in range(seats):
        held[s] = frames[f, HELD + s]


@jit_inline
def set_triple(sums, f, triple, value, now, took):
    sums[f, triple, VALUE], sums[f, triple, NOW], sums[f, triple, TOOK] = value, now, took


@jit_inline
def save_table(frames, f, work):
    """Frame f's TABLE block = the row table ``work``."""
    for r in range(ROW_COUNT):
        for c in range(4):
            frames[f, TABLE + 4 * r + c] = work[r, c]


@jit_inline
def load_table(frames, f, work):
    """``work`` = frame f's row table."""
    for r in range(ROW_COUNT):
        for c in range(4):
            work[r, c] = frames[f, TABLE + 4 * r + c]


@jit_inline
def list_cards(owner, deck_size, who, frames, f, at):
    """Frame f's columns at.. = the cards of owner ``who``, ascending; returns how many."""
    count = 0
    for c in range(1, deck_size + 1):
        if owner[c] == who:
            frames[f, at + count] = c
            count += 1
    return count


@jit_inline
def begin_state(frames, sums, f, owner, deck_size, known_count, hidden_count, stats):
    """A fresh boundary frame: list every hand and the pool, count the opponent sets."""
    frames[f, FRESH] = 0
    stats[STATES] += 1
    set_count = 1
    for seat in range(1 + known_count):
        size = list_cards(owner, deck_size, OWNER_P1 + seat, frames, f, HANDS + seat * HAND_SIZE)
        frames[f, SIZES + seat] = size
        if seat > 0:
            set_count *= size
    frames[f, POOL_COUNT] = list_cards(owner, deck_size, OWNER_POOL, frames, f, POOL)
    frames[f, SET_COUNT] = set_count * _binomial(frames[f, POOL_COUNT], hidden_count)
    frames[f, HAND_AT] = -1
    set_triple(sums, f, BEST, math.inf, 0.0, 0.0)


@jit_inline
def next_card(frames, sums, f, known_count, hidden_count, model, root_card):
    """Move to player 1's next card (at the root, only ``root_card`` if >= 0) and its
    first opponent set. False when every card is done."""
    h = frames[f, HAND_AT] + 1
    while (h < frames[f, SIZES] and f == 0 and root_card >= 0
           and frames[f, HANDS + h] != root_card):
        h += 1
    frames[f, HAND_AT] = h
    if h >= frames[f, SIZES]:
        return False
    frames[f, SET_AT] = 0
    for j in range(known_count):
        frames[f, DIGITS + j] = 0
    for t in range(hidden_count):
        frames[f, PICK + t] = t
    set_triple(sums, f, ACC, 0.0 if model == MODEL_RANDOM else -math.inf, 0.0, 0.0)
    return True


@jit_inline
def next_opponent_set(frames, f, known_count, hidden_count):
    """The next opponent set: the hidden cards' next combination of the pool (in
    lexicographic order), and when those wrap, known opponents' next cards (an odometer)."""
    i = hidden_count - 1
    while i >= 0 and frames[f, PICK + i] == frames[f, POOL_COUNT] - hidden_count + i:
        i -= 1
    if i >= 0:
        frames[f, PICK + i] += 1
        for t in range(i + 1, hidden_count):
            frames[f, PICK + t] = frames[f, PICK + t - 1] + 1
        return
    for t in range(hidden_count):
        frames[f, PICK + t] = t
    for j in range(known_count):
        frames[f, DIGITS + j] += 1
        if frames[f, DIGITS + j] < frames[f, SIZES + 1 + j]:
            break
        frames[f, DIGITS + j] = 0


@jit_inline
def sort_turn_columns(frames, f, width):
    """Sort frame f's turn (TURN_CARDS, TURN_OWNERS) by card, ascending: the placing
    order (insertion sort, as turns.sort_turn)."""
    for a in range(1, width):
        card, who = frames[f, TURN_CARDS + a], frames[f, TURN_OWNERS + a]
        j = a - 1
        while j >= 0 and frames[f, TURN_CARDS + j] > card:
            frames[f, TURN_CARDS + j + 1] = frames[f, TURN_CARDS + j]
            frames[f, TURN_OWNERS + j + 1] = frames[f, TURN_OWNERS + j]
            j -= 1
        frames[f, TURN_CARDS + j + 1], frames[f, TURN_OWNERS + j + 1] = card, who


@jit_inline
def deal_joint_action(frames, f, owner, known_count, hidden_count, width):
    """Player 1's current card and the current opponent set become frame f's turn, in
    placing order; its cards leave their owners."""
    frames[f, TURN_CARDS] = frames[f, HANDS + frames[f, HAND_AT]]
    frames[f, TURN_OWNERS] = OWNER_P1
    for j in range(known_count):
        seat = 1 + j
        frames[f, TURN_CARDS + seat] = frames[f, HANDS + seat * HAND_SIZE + frames[f, DIGITS + j]]
        frames[f, TURN_OWNERS + seat] = OWNER_P1 + seat
    for t in range(hidden_count):
        frames[f, TURN_CARDS + 1 + known_count + t] = frames[f, POOL + frames[f, PICK + t]]
        frames[f, TURN_OWNERS + 1 + known_count + t] = OWNER_POOL
    sort_turn_columns(frames, f, width)
    for a in range(width):
        owner[frames[f, TURN_CARDS + a]] = OWNER_GONE


@jit_inline
def take_back_joint_action(frames, f, owner, width):
    """Frame f's turn cards go back to their owners."""
    for a in range(width):
        owner[frames[f, TURN_CARDS + a]] = frames[f, TURN_OWNERS + a]


@jit_inline
def count_joint_action(stats, max_resolved):
    """Count a joint action resolved; why the search must stop (STOPPED_*), or 0. The stop
    flag and the memo's size are looked at every CHECK_MASK + 1 nodes."""
    stats[RESOLVED] += 1
    if stats[RESOLVED] > max_resolved or stats[RESOLVED] & CHECK_MASK == 0:
        return _stop_reason(stats, max_resolved)
    return 0


@jit_inline
def add_outcome(frames, sums, f, value, now, took, model, stats):
    """One opponent set's outcome (value, now, took) for the current card: summed (random)
    or kept if the worst so far. True when the card is settled (every set seen, or the
    worst case already no better than the state's best card: pruned), its value then
    folded into the state's best."""
    if model == MODEL_RANDOM:
        sums[f, ACC, VALUE] += value
        sums[f, ACC, NOW] += now
        sums[f, ACC, TOOK] += took
    elif value > sums[f, ACC, VALUE]:
        set_triple(sums, f, ACC, value, now, took)
    frames[f, SET_AT] += 1
    pruned = model == MODEL_WORST and sums[f, ACC, VALUE] >= sums[f, BEST, VALUE]
    if pruned and frames[f, SET_AT] < frames[f, SET_COUNT]:
        stats[PRUNED] += 1
    if not (pruned or frames[f, SET_AT] == frames[f, SET_COUNT]):
        return False
    value, now, took = sums[f, ACC, VALUE], sums[f, ACC, NOW], sums[f, ACC, TOOK]
    if model == MODEL_RANDOM:
        n = frames[f, SET_COUNT]
        value, now, took = value / n, now / n, took / n
    if value < sums[f, BEST, VALUE]:
        set_triple(sums, f, BEST, value, now, took)
    return True


@jit_inline
def place_forced_cards(frames, work, turn_frame, card_at, value, now, took, width,
                       professional, model, goal, held, known_count):
    """Place frame ``turn_frame``'s turn cards on ``work`` from ``card_at`` on while their
    owners have no choice to make (one option, or a ``random`` opponent's rule-following
    choice); the cows' cost goes into the carried triple (value; now and took: player 1's
    own cows), every seat's cows into ``held``. Returns (option count of the card that
    needs a choice, or 0 when the turn is placed; that card's index; the carried triple)."""
    for i in range(card_at, width):
        card = frames[turn_frame, TURN_CARDS + i]
        who = frames[turn_frame, TURN_OWNERS + i]
        mine = who == OWNER_P1
        count, kind, row_a, row_b = card_options(work, card, professional)
        if count > 1 and (mine or model != MODEL_RANDOM):
            return count, i, value, now, took
        cows = play_found_option(work, card, kind, row_a, row_b, RULE_OPTION)
        held[cow_slot(goal, held, who, i, known_count)] += cows
        value += cost_of_cows(goal, mine, cows)
        if mine:
            now += cows
            took = 1.0 if cows > 0 else 0.0
    return 0, width, value, now, took


@jit_inline
def push_choice(frames, sums, f, option_count, turn_frame, card_at, value, now, took, work,
                held, goal):
    """Frame f becomes a row choice for card ``card_at`` of frame ``turn_frame``'s turn,
    with ``option_count`` options, taken on the table ``work`` (seats' cows ``held``);
    (value, now, took) came on the way in."""
    frames[f, KIND] = CHOICE
    save_table(frames, f, work)
    save_held(frames, f, held, held_seats(goal))
    set_triple(sums, f, ADDED, value, now, took)
    frames[f, CHOICE_AT], frames[f, TURN_FRAME] = card_at, turn_frame
    frames[f, OPTION_COUNT], frames[f, OPTION] = option_count, 0
    frames[f, MINE] = frames[turn_frame, TURN_OWNERS + card_at] == OWNER_P1


@jit_inline
def play_next_option(frames, f, work, professional, goal, held, known_count):
    """Play choice frame f's current option on a copy of its table (and seats' cows), to
    carry on placing the turn after it: returns (turn frame, next card index, carried
    value, now, took)."""
    load_table(frames, f, work)
    load_held(frames, f, held, held_seats(goal))
    turn_frame, i = frames[f, TURN_FRAME], frames[f, CHOICE_AT]
    cows = play_option(work, frames[turn_frame, TURN_CARDS + i], professional,
                       frames[f, OPTION])
    held[cow_slot(goal, held, frames[turn_frame, TURN_OWNERS + i], i, known_count)] += cows
    if frames[f, MINE] == 0:
        return turn_frame, i + 1, cost_of_cows(goal, False, cows), 0.0, 0.0
    return (turn_frame, i + 1, cost_of_cows(goal, True, cows), float(cows),
            1.0 if cows > 0 else 0.0)


@jit_inline
def return_to_choice(frames, sums, f, value, now, took):
    """An option's outcome (value, now, took): kept if it is the chooser's best so far
    (player 1 minimises, the adversary maximises); then the next option."""
    o = frames[f, OPTION]
    mine = frames[f, MINE] != 0
    if (o == 0 or (mine and value < sums[f, BEST, VALUE])
            or (not mine and value > sums[f, BEST, VALUE])):
        set_triple(sums, f, BEST, value, now, took)
    frames[f, OPTION] = o + 1


@jit_inline
def return_from_choice(sums, f):
    """A settled choice frame's triple: its best option plus what came on the way in."""
    return (sums[f, BEST, VALUE] + sums[f, ADDED, VALUE],
            sums[f, BEST, NOW] + sums[f, ADDED, NOW],
            sums[f, BEST, TOOK] + sums[f, ADDED, TOOK])


@jit_inline
def end_turn(frames, sums, f, turn_frame, value, now, took, work, owner, deck_size, layout,
             entries, values, stats, words, order, goal, held, known_count):
    """Frame ``turn_frame``'s turn is placed on ``work`` (seats' cows ``held``), carrying
    (value, now, took); the hidden seats are sorted first (``sort_hidden_seats``, when told
    apart). Returns (known, value, now, took): known when it was player 1's last card (the
    end cost added) or the state after it is in the memo, the triple then its value.
    Otherwise frame f becomes that state's fresh boundary frame."""
    sort_hidden_seats(goal, held, known_count)
    if frames[turn_frame, SIZES] == 1:  # player 1's last card
        return True, value + end_cost(goal, held), now, took
    key_width = layout[L_WIDTH]
    pack_memo_key(work, owner, deck_size, layout, words, order, held)
    found, stored = memo_find(entries, values, words, key_width)
    if found:
        stats[HITS] += 1
        return True, stored + value, now, took
    frames[f, KIND], frames[f, FRESH] = BOUNDARY, 1
    save_table(frames, f, work)
    save_held(frames, f, held, held_seats(goal))
    set_triple(sums, f, ADDED, value, now, took)
    for w in range(key_width):
        frames[f, KEY + w] = words[w]
    return False, value, now, took


@jit_inline
def finish_state(frames, sums, f, memo, entries, values, layout, stats, words):
    """Every card of boundary frame f is done: its value goes into the memo. Returns the
    memo's table (memo_store may double it) and the frame's triple plus what came on the
    way in (NOW and TOOK describe the root's turn: only what came on the way in)."""
    key_width = layout[L_WIDTH]
    for w in range(key_width):
        words[w] = frames[f, KEY + w]
    entries = memo_store(memo, entries, values, words, key_width, sums[f, BEST, VALUE], stats)
    return (entries, sums[f, BEST, VALUE] + sums[f, ADDED, VALUE], sums[f, ADDED, NOW],
            sums[f, ADDED, TOOK])


# ---------------------------------------------------------------- hidden seats
# With two or more hidden hands the win objective must tell the hidden seats apart
# (goal[G_HIDDEN_SEATS] = their count; goal_array). Every consistent split of the pool
# being equally likely, the hidden players' cards of a turn are an ordered tuple uniform
# over the distinct tuples of the pool: the turn's set of hidden cards (what a boundary
# enumerates) goes to the hidden seats by a uniformly random permutation, which everyone
# sees when the cards are revealed (the worst adversary chooses it). An ATTRIBUTE frame
# draws it when it first matters: before player 1's row choice (every hidden card of the
# turn: player 1 chooses knowing who played what), or else at the end of the turn (only
# the hidden cards that took cows; until then their cows wait in held[H_PENDING + i]).
# Hidden seats with the same cows are interchangeable (alike hands, and the end cost
# counts only cows), so the frame tries one map of cards to seats per class of equivalent
# maps (each card to the first free seat of its class), weighted by the class's size; and
# a turn's end sorts the hidden seats' cows, so the memo key is canonical.
#
# An ATTRIBUTE frame's columns: TURN_FRAME; CHOICE_AT the card to go on placing from (the
# turn's width: the turn is placed); OPTION_COUNT the cards it attributes, their turn
# indices at PICK + t and their seats (0.. among the hidden seats) at DIGITS + t; OPTION 1
# once every map is tried; SET_AT the current map's weight, SET_COUNT all maps' weight.


@jit_inline
def cow_slot(goal, held, who, i, known_count):
    """The ``held`` index that turn card i's cows go to (owner code ``who``): its seat, or
    with hidden seats told apart a hidden card's slot (pending until attributed)."""
    if who == OWNER_POOL and goal[G_HIDDEN_SEATS] != 0.0:
        return held[H_SLOT + i]
    return seat_of(who, known_count)


@jit_inline
def start_attribution(goal, held, width):
    """A turn dealt: its hidden cards not attributed yet (cows pending), when told apart."""
    if goal[G_HIDDEN_SEATS] == 0.0:
        return
    for i in range(width):
        held[H_PENDING + i] = 0
        held[H_SLOT + i] = H_PENDING + i
    held[H_DONE] = 0


@jit_inline
def needs_attribution(goal, held, width, at_end):
    """Whether the turn's hidden cards must be attributed now: told apart, not yet
    attributed, and (at the turn's end) some of them took cows."""
    if goal[G_HIDDEN_SEATS] == 0.0 or held[H_DONE] != 0:
        return False
    if not at_end:
        return True
    for i in range(width):
        if held[H_PENDING + i] != 0:
            return True
    return False


@jit_inline
def sort_hidden_seats(goal, held, known_count):
    """The hidden seats' cows sorted ascending (the seats are interchangeable between
    turns), when told apart."""
    base, hidden = known_count + 1, int(goal[G_HIDDEN_SEATS])
    for a in range(base + 1, base + hidden):
        cows = held[a]
        j = a - 1
        while j >= base and held[j] > cows:
            held[j + 1] = held[j]
            j -= 1
        held[j + 1] = cows


@jit_inline
def interchangeable(frames, f, a, b):
    """Whether hidden seats a and b (``held`` indices) are alike in frame f: same cows."""
    return frames[f, HELD + a] == frames[f, HELD + b]


@jit_inline
def seat_free(frames, f, t, d):
    """Whether hidden seat d is free of frame f's cards 0..t-1."""
    for u in range(t):
        if frames[f, DIGITS + u] == d:
            return False
    return True


@jit_inline
def map_allows(frames, f, t, d, base):
    """Whether card t may go to hidden seat d after cards 0..t-1: d is free and the first
    free seat of its class."""
    if not seat_free(frames, f, t, d):
        return False
    for e in range(d):
        if seat_free(frames, f, t, e) and interchangeable(frames, f, base + e, base + d):
            return False
    return True


@jit_inline
def fill_map(frames, f, first, base):
    """Cards first.. of frame f's map go to their first allowed seats."""
    for t in range(first, frames[f, OPTION_COUNT]):
        d = 0
        while not map_allows(frames, f, t, d, base):
            d += 1
        frames[f, DIGITS + t] = d


@jit_inline
def next_map(frames, f, base, hidden):
    """Frame f's next map (lexicographic order of the seats); False when none is left."""
    t = frames[f, OPTION_COUNT] - 1
    while t >= 0:
        d = frames[f, DIGITS + t] + 1
        while d < hidden and not map_allows(frames, f, t, d, base):
            d += 1
        if d < hidden:
            frames[f, DIGITS + t] = d
            fill_map(frames, f, t + 1, base)
            return True
        t -= 1
    return False


@jit_inline
def map_weight(frames, f, base, hidden):
    """How many maps the current map stands for: per card, the free seats alike its own."""
    weight = 1
    for t in range(frames[f, OPTION_COUNT]):
        d = frames[f, DIGITS + t]
        alike = 0
        for e in range(hidden):
            if seat_free(frames, f, t, e) and interchangeable(frames, f, base + e, base + d):
                alike += 1
        weight *= alike
    return weight


@jit_inline
def push_attribution(frames, sums, f, turn_frame, resume, width, value, now, took, work,
                     held, goal, model, known_count):
    """Frame f attributes frame ``turn_frame``'s hidden cards to the hidden seats: all of
    them when the turn goes on at card ``resume`` (< width), at the turn's end those that
    took cows; on the table ``work`` (seats' cows ``held``), (value, now, took) came on the
    way in. Its first map is ready."""
    frames[f, KIND] = ATTRIBUTE
    save_table(frames, f, work)
    save_held(frames, f, held, HELD_WIDTH)
    set_triple(sums, f, ADDED, value, now, took)
    set_triple(sums, f, ACC, 0.0 if model == MODEL_RANDOM else -math.inf, 0.0, 0.0)
    frames[f, TURN_FRAME], frames[f, CHOICE_AT] = turn_frame, resume
    hidden = int(goal[G_HIDDEN_SEATS])
    count, maps = 0, 1
    for i in range(width):
        if frames[turn_frame, TURN_OWNERS + i] == OWNER_POOL and (
                resume < width or held[H_PENDING + i] != 0):
            frames[f, PICK + count] = i
            maps *= hidden - count
            count += 1
    frames[f, OPTION_COUNT], frames[f, OPTION], frames[f, SET_COUNT] = count, 0, maps
    fill_map(frames, f, 0, known_count + 1)


@jit_inline
def play_attribution(frames, f, work, held, goal, known_count):
    """Frame f's current map on copies of its table and seats' cows: the cards' pending
    cows go to their seats, and their later cows too. Returns (turn frame, the card to go
    on placing from)."""
    load_table(frames, f, work)
    load_held(frames, f, held, HELD_WIDTH)
    base = known_count + 1
    for t in range(frames[f, OPTION_COUNT]):
        i = frames[f, PICK + t]
        seat = base + frames[f, DIGITS + t]
        held[seat] += held[H_PENDING + i]
        held[H_PENDING + i] = 0
        held[H_SLOT + i] = seat
    held[H_DONE] = 1
    frames[f, SET_AT] = map_weight(frames, f, base, int(goal[G_HIDDEN_SEATS]))
    return frames[f, TURN_FRAME], frames[f, CHOICE_AT]


@jit_inline
def return_to_attribution(frames, sums, f, value, now, took, model, goal, known_count):
    """A map's outcome (value, now, took): weighted into the sum (random) or kept if the
    worst so far; then the next map (OPTION 1 when none is left)."""
    if model == MODEL_RANDOM:
        weight = float(frames[f, SET_AT])
        sums[f, ACC, VALUE] += weight * value
        sums[f, ACC, NOW] += weight * now
        sums[f, ACC, TOOK] += weight * took
    elif value > sums[f, ACC, VALUE]:
        set_triple(sums, f, ACC, value, now, took)
    if not next_map(frames, f, known_count + 1, int(goal[G_HIDDEN_SEATS])):
        frames[f, OPTION] = 1


@jit_inline
def return_from_attribution(frames, sums, f, model):
    """A settled attribution frame's triple: the maps' mean (random) or worst, plus what
    came on the way in."""
    n = float(frames[f, SET_COUNT]) if model == MODEL_RANDOM else 1.0
    return (sums[f, ACC, VALUE] / n + sums[f, ADDED, VALUE],
            sums[f, ACC, NOW] / n + sums[f, ADDED, NOW],
            sums[f, ACC, TOOK] / n + sums[f, ADDED, TOOK])


@jit
def search_state(table0, owner, deck_size, known_count, hidden_count, professional, model,
                 root_card, memo, layout, stats, max_resolved, result, goal, attribute):
    """Value of the state (table0, owner) for player 1; result = (value, cows now, took).
    ``goal``: the objective (G_* slots, see "objectives"; the seats' cows so far at
    goal[G_TAKEN..]). ``attribute``: ``attribution(goal)``, True when hidden seats are told
    apart, else None: numba prunes the ``attribute is not None`` branches by the argument's
    type, so the kernel compiled for None has no ATTRIBUTE frames (a compile about 40%
    shorter) and the one for True has them.

    An explicit stack of frames (numba cannot cache recursive functions; the layout is
    drawn above the transitions). BOUNDARY frames enumerate player 1's cards (only
    ``root_card`` if >= 0) and every opponent set; CHOICE frames branch on a row choice
    inside a turn; ATTRIBUTE frames give a turn's hidden cards to the hidden seats (see
    "hidden seats"). Between them the turn's forced cards are placed (``placing``); a frame
    that settles returns its triple (``returning``) to the frame below.
    With root_card >= 0, 'cows now' and 'took' describe that card's first turn.
    The memo (new_memo) maps the keys (``layout``) of the boundaries below the root to
    their values. It stops early (stats[ABORTED], see _stop_reason) past ``max_resolved``
    nodes, when stats[STOP] is set or when the memo is full at stats[MAX_SLOTS] slots;
    the last two are looked at every 1024 nodes.
    """
    width = known_count + hidden_count + 1
    entries = memo[0]
    values = entries.view(np.float64)
    stats[SLOTS] = entries.shape[0]
    frames = np.empty((MAX_FRAMES, FRAME_COLUMNS), np.int64)
    sums = np.empty((MAX_FRAMES, 3, 3))
    work = np.empty((ROW_COUNT, 4), np.int64)
    words = np.empty(layout[L_WIDTH], np.int64)
    order = np.empty(ROW_COUNT, np.int64)
    held = np.zeros(HELD_WIDTH, np.int64)

    top = 0
    frames[0, KIND], frames[0, FRESH] = BOUNDARY, 1
    save_table(frames, 0, table0)
    for s in range(MAX_PLAYERS):
        frames[0, HELD + s] = np.int64(goal[G_TAKEN + s])
    set_triple(sums, 0, ADDED, 0.0, 0.0, 0.0)
    returning, placing = False, False
    turn_frame, card_at = 0, 0              # placing: whose turn, the next card
    value, now, took = 0.0, 0.0, 0.0        # the carried or returned triple
    while True:
        if placing:
            placing = False
            option_count, card_at, value, now, took = place_forced_cards(
                frames, work, turn_frame, card_at, value, now, took, width, professional,
                model, goal, held, known_count)
            if option_count:
                top += 1
                mine = frames[turn_frame, TURN_OWNERS + card_at] == OWNER_P1
                if attribute is not None and mine and needs_attribution(goal, held, width,
                                                                        False):
                    push_attribution(frames, sums, top, turn_frame, card_at, width, value, now,
                                     took, work, held, goal, model, known_count)
                else:
                    push_choice(frames, sums, top, option_count, turn_frame, card_at, value,
                                now, took, work, held, goal)
                continue
            if attribute is not None and needs_attribution(goal, held, width, True):
                top += 1
                push_attribution(frames, sums, top, turn_frame, width, width, value, now, took,
                                 work, held, goal, model, known_count)
                continue
            returning, value, now, took = end_turn(
                frames, sums, top + 1, turn_frame, value, now, took, work, owner, deck_size,
                layout, entries, values, stats, words, order, goal, held, known_count)
            if not returning:
                top += 1
            continue

        f = top
        if attribute is not None and frames[f, KIND] == ATTRIBUTE:
            if returning:
                returning = False
                return_to_attribution(frames, sums, f, value, now, took, model, goal,
                                      known_count)
            if frames[f, OPTION]:
                value, now, took = return_from_attribution(frames, sums, f, model)
                returning = True
                top -= 1
                continue
            turn_frame, card_at = play_attribution(frames, f, work, held, goal, known_count)
            value, now, took = 0.0, 0.0, 0.0
            if card_at < width:
                placing = True
                continue
            returning, value, now, took = end_turn(
                frames, sums, top + 1, turn_frame, value, now, took, work, owner, deck_size,
                layout, entries, values, stats, words, order, goal, held, known_count)
            if not returning:
                top += 1
            continue
        if frames[f, KIND] == CHOICE:
            if returning:
                returning = False
                return_to_choice(frames, sums, f, value, now, took)
            if frames[f, OPTION] == frames[f, OPTION_COUNT]:
                value, now, took = return_from_choice(sums, f)
                returning = True
                top -= 1
            else:
                turn_frame, card_at, value, now, took = play_next_option(
                    frames, f, work, professional, goal, held, known_count)
                placing = True
            continue

        # a BOUNDARY frame
        if frames[f, FRESH]:
            begin_state(frames, sums, f, owner, deck_size, known_count, hidden_count, stats)
            card_done = True
        else:  # returning from the turn it dealt
            returning = False
            take_back_joint_action(frames, f, owner, width)
            card_done = add_outcome(frames, sums, f, value, now, took, model, stats)
        card_left = True
        if card_done:  # the next card (one call site: next_card is inlined)
            card_left = next_card(frames, sums, f, known_count, hidden_count, model, root_card)
        else:
            next_opponent_set(frames, f, known_count, hidden_count)
        if not card_left:
            if f == 0:
                result[0], result[1], result[2] = (sums[0, BEST, VALUE], sums[0, BEST, NOW],
                                                   sums[0, BEST, TOOK])
                return
            entries, value, now, took = finish_state(frames, sums, f, memo, entries, values,
                                                     layout, stats, words)
            values = entries.view(np.float64)
            returning = True
            top -= 1
            continue
        deal_joint_action(frames, f, owner, known_count, hidden_count, width)
        why = count_joint_action(stats, max_resolved)
        if why:
            stats[ABORTED] = why
            take_back_joint_action(frames, f, owner, width)
            return
        load_table(frames, f, work)  # place the turn on a copy of the frame's table
        load_held(frames, f, held, held_seats(goal))
        if attribute is not None:
            start_attribution(goal, held, width)
        turn_frame, card_at, value, now, took = f, 0, 0.0, 0.0, 0.0
        placing = True


@jit
def solve_cards(table, owner, deck_size, known_count, hidden_count, professional, model,
                cards, layout, goal, attribute, stats, max_resolved, results):
    """results[i] = (value, cows now, took) of root card cards[i]; one memo, made here.
    ``attribute``: ``attribution(goal)`` (search_state)."""
    first = FIRST_SLOTS
    if stats[MAX_SLOTS] > 0:
        first = min(first, stats[MAX_SLOTS])
    memo = new_memo(layout[L_WIDTH], first)
    result = np.zeros(3)
    for i in range(cards.shape[0]):
        search_state(table, owner, deck_size, known_count, hidden_count, professional, model,
                     cards[i], memo, layout, stats, max_resolved, result, goal, attribute)
        if stats[ABORTED]:
            return
        copy_row(results[i], result)
        stats[CARDS_DONE] = i + 1


def attribution(goal: np.ndarray) -> bool | None:
    """search_state's and solve_cards' ``attribute`` for the objective ``goal``: True when
    it tells two or more hidden seats apart (ATTRIBUTE frames), else None."""
    return True if goal[G_HIDDEN_SEATS] != 0.0 else None


# The memory guard counts the memo's real bytes: a table of ``slots`` slots of
# memo_slot_bytes each, and while it doubles the old one beside it (1.5 x the new).
DOUBLING_PEAK = 1.5
TIME_LIMIT, INTERRUPTED = 1, 2  # what a caller writes into stats[STOP]


def memo_slot_bytes(layout: np.ndarray) -> int:
    """Bytes of one memo slot for keys of ``layout``."""
    return Table.slot_bytes(int(layout[L_WIDTH]), VALUE_WORDS)


def memo_max_slots(memory: int, slot_bytes: int) -> int:
    """The most slots (a power of two, at least 16) the memo may double to within
    ``memory`` bytes, the table it doubles from counted beside it."""
    return 1 << max(4, int(math.log2(max(16.0, memory / (DOUBLING_PEAK * slot_bytes)))))

