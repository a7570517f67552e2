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
import time
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.typed import Dict

from .engine import (COWS_COLUMN, END_TAKE, END_TIE, FIRST, LAST, LENGTH, _find_end, _place_card,
                     jit, row_table)
from .position import Position
from .rules import NimmtError, ROW_COUNT

MODEL_RANDOM, MODEL_WORST = 0, 1
MODELS = {"random": MODEL_RANDOM, "worst": MODEL_WORST}
OWNER_GONE, OWNER_P1, OWNER_POOL = 0, 1, 15
KEY_WORDS = 9  # 2 words of row table + 7 words of 4-bit owners for cards 1..104
KEY_TYPE = types.UniTuple(types.int64, KEY_WORDS)
# stats[] slots
RESOLVED, STATES, HITS, PRUNED, ABORTED = 0, 1, 2, 3, 4


@jit
def _pack_key(table, owner, deck_size, professional):
    w = np.zeros(KEY_WORDS, np.int64)
    for r in range(ROW_COUNT):
        first = table[r, FIRST] if professional else 0  # normal placement never looks left
        bits = (first | (table[r, LAST] << 7) | (table[r, LENGTH] << 14)
                | (table[r, COWS_COLUMN] << 17))
        w[r // 2] |= bits << (23 * (r % 2))
    for c in range(1, deck_size + 1):
        w[2 + (c - 1) // 16] |= owner[c] << (4 * ((c - 1) % 16))
    return (w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8])


@jit
def _cards_of(owner, deck_size, who, out):
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
def _opponent_sets(owner, deck_size, known_count, hidden_count):
    """Every set of opponent cards for one turn, one per row: known opponent j's
    card in column j, then hidden_count cards from the pool (ascending)."""
    hands = np.zeros((max(known_count, 1), 10), np.int64)
    sizes = np.zeros(max(known_count, 1), np.int64)
    product = 1
    for j in range(known_count):
        sizes[j] = _cards_of(owner, deck_size, 2 + j, hands[j])
        product *= sizes[j]
    pool = np.zeros(deck_size, np.int64)
    pool_count = _cards_of(owner, deck_size, OWNER_POOL, pool)
    combos = _binomial(pool_count, hidden_count)
    width = known_count + hidden_count
    sets = np.zeros((product * combos, width), np.int64)
    digits = np.zeros(max(known_count, 1), np.int64)
    pick = np.zeros(max(hidden_count, 1), np.int64)
    row = 0
    for _ in range(product):
        for i in range(hidden_count):
            pick[i] = i
        for _ in range(combos):
            for j in range(known_count):
                sets[row, j] = hands[j, digits[j]]
            for i in range(hidden_count):
                sets[row, known_count + i] = pool[pick[i]]
            row += 1
            # next combination of hidden_count out of pool_count
            i = hidden_count - 1
            while i >= 0 and pick[i] == pool_count - hidden_count + i:
                i -= 1
            if i >= 0:
                pick[i] += 1
                for t in range(i + 1, hidden_count):
                    pick[t] = pick[t - 1] + 1
        for j in range(known_count):  # mixed-radix odometer over known hands
            digits[j] += 1
            if digits[j] < sizes[j]:
                break
            digits[j] = 0
    return sets


@jit
def _solve(table, owner, turn, turn_owner, m, i, deck_size, known_count, hidden_count,
           professional, model, root_card, memo, stats, max_resolved):
    """(value, cows now, took) for player 1.

    Turn boundary (m == 0): value = the state's value over the rest of the round; with
    root_card >= 0 only that card is considered and 'cows now' / 'took' are player 1's
    cows and row-take probability (random) or the adversary's line (worst) this turn.
    Inside a turn (i < m): turn[i..m-1] (ascending) are still to be placed.
    """
    if stats[ABORTED]:
        return 0.0, 0.0, 0.0
    if m > 0 and i == m:  # the turn is over: the next state's value
        value, _, _ = _solve(table, owner, turn, turn_owner, 0, 0, deck_size, known_count,
                             hidden_count, professional, model, -1, memo, stats, max_resolved)
        return value, 0.0, 0.0
    if m > 0:
        card = turn[i]
        mine = turn_owner[i] == OWNER_P1
        kind, _, _ = _find_end(table, card, professional)
        options = ROW_COUNT if kind == END_TAKE else (2 if kind == END_TIE else 1)
        if options == 1 or (not mine and model == MODEL_RANDOM):
            options = 1  # forced, or a random opponent's rule-following choice
        best, best_now, best_took = 0.0, 0.0, 0.0
        for option in range(options):
            child = table.copy()
            take_row = option if (options > 1 and kind == END_TAKE) else -1
            tie_side = option if (options > 1 and kind == END_TIE) else -1
            _, _, cows = _place_card(child, card, professional, take_row, tie_side)
            value, now, took = _solve(child, owner, turn, turn_owner, m, i + 1, deck_size,
                                      known_count, hidden_count, professional, model, -1,
                                      memo, stats, max_resolved)
            if mine:
                value += cows
                now += cows
                took = 1.0 if cows > 0 else 0.0
            if option == 0 or (mine and value < best) or (not mine and value > best):
                best, best_now, best_took = value, now, took
        return best, best_now, best_took

    # ---- turn boundary
    hand = np.zeros(10, np.int64)
    k = _cards_of(owner, deck_size, OWNER_P1, hand)
    if k == 0:
        return 0.0, 0.0, 0.0
    key = _pack_key(table, owner, deck_size, professional)
    if root_card < 0:
        if key in memo:
            stats[HITS] += 1
            return memo[key], 0.0, 0.0
    stats[STATES] += 1
    sets = _opponent_sets(owner, deck_size, known_count, hidden_count)
    set_count = sets.shape[0]
    width = sets.shape[1] + 1
    cards = np.zeros(width, np.int64)
    tags = np.zeros(width, np.int64)
    order = np.zeros(width, np.int64)
    sorted_cards = np.zeros(width, np.int64)
    sorted_tags = np.zeros(width, np.int64)
    best, best_now, best_took = math.inf, 0.0, 0.0
    for h in range(k):
        c = hand[h]
        if root_card >= 0 and c != root_card:
            continue
        acc, acc_now, acc_took = 0.0, 0.0, 0.0
        if model == MODEL_WORST:
            acc = -math.inf
        for s in range(set_count):
            cards[0], tags[0] = c, OWNER_P1
            for j in range(width - 1):
                cards[j + 1] = sets[s, j]
                tags[j + 1] = 2 + j if j < known_count else OWNER_POOL
            for a in range(width):  # insertion sort by card
                order[a] = a
                b = a - 1
                while b >= 0 and cards[order[b]] > cards[a]:
                    order[b + 1] = order[b]
                    b -= 1
                order[b + 1] = a
            for a in range(width):
                sorted_cards[a] = cards[order[a]]
                sorted_tags[a] = tags[order[a]]
                owner[cards[a]] = OWNER_GONE
            stats[RESOLVED] += 1
            if stats[RESOLVED] > max_resolved:
                stats[ABORTED] = 1
            value, now, took = _solve(table, owner, sorted_cards.copy(), sorted_tags.copy(),
                                      width, 0, deck_size, known_count, hidden_count,
                                      professional, model, -1, memo, stats, max_resolved)
            for a in range(width):
                owner[cards[a]] = tags[a]
            if model == MODEL_RANDOM:
                acc += value
                acc_now += now
                acc_took += took
            elif value > acc:
                acc, acc_now, acc_took = value, now, took
                if acc >= best:  # this card cannot beat one already seen
                    stats[PRUNED] += 1
                    break
        if model == MODEL_RANDOM:
            acc, acc_now, acc_took = acc / set_count, acc_now / set_count, acc_took / set_count
        if acc < best:
            best, best_now, best_took = acc, acc_now, acc_took
    if root_card < 0 and not stats[ABORTED]:
        memo[key] = best
    return best, best_now, best_took


# ---------------------------------------------------------------- Python API

class BudgetExceeded(NimmtError):
    """The exact search would take more nodes than allowed."""


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


def estimate_nodes(position: Position) -> int:
    """An upper estimate of the joint actions the exact search resolves.

    Turn by turn: the states reachable (the smaller of the plain tree's width and the
    number of distinct card sets times a row factor) times the joint actions of each.
    """
    k = position.cards_left
    known = sum(1 for h in position.hands[1:] if h is not None)
    hidden = len(position.hidden_players)
    pool = len(position.pool)
    tree, total = 1, 0
    for d in range(k):  # d turns played
        kd = k - d
        joint = kd * opponent_set_count(position, kd)
        card_sets = (math.comb(k, d) ** (1 + known)
                     * math.comb(pool, hidden * d) * math.comb(hidden * d, d) ** 0)
        states = min(tree, card_sets * 8)  # 8: distinct row tables per card set, generous
        total += states * joint
        tree *= joint
    return total


def new_memo():
    return Dict.empty(key_type=KEY_TYPE, value_type=types.float64)


def solve_exact(position: Position, model: str = "random",
                max_nodes: int = 50_000_000, memo=None) -> ExactResult:
    """Exact value of every card in hand for ``model`` ('random' or 'worst').

    >>> from solver.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> r = solve_exact(p, "worst")
    >>> sorted((c.value, c.card) for c in r.cards)[0]
    (0.0, 13)
    """
    if model not in MODELS:
        raise NimmtError(f"unknown model {model!r} for exact search; use random or worst")
    owner, known, hidden = owner_array(position)
    table = row_table(position.rows)
    stats = np.zeros(5, np.int64)
    memo = new_memo() if memo is None else memo
    empty = np.zeros(0, np.int64)
    start = time.perf_counter()
    lines = []
    for card in position.hand:
        value, now, took = _solve(table, owner, empty, empty, 0, 0, position.deck_size, known,
                                  hidden, position.professional, MODELS[model], card, memo,
                                  stats, max_nodes)
        if stats[ABORTED]:
            raise BudgetExceeded(
                f"exact search passed its budget of {max_nodes:,} nodes; raise --max-nodes "
                "or use --method montecarlo")
        lines.append(CardLine(card, value, now, took))
    return ExactResult(model, tuple(lines), int(stats[RESOLVED]), int(stats[STATES]),
                       int(stats[HITS]), int(stats[PRUNED]), time.perf_counter() - start)
