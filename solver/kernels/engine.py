"""Numba kernels: place a card, resolve a turn, play rounds and games.

State layout (plain int64 arrays, no Python objects inside kernels). For the
rest of a round a row matters only through four numbers, so the kernels keep
a 4x4 *row table*::

    table[r, FIRST]   first card of row r (r = 0..3, row number - 1)
    table[r, LAST]    last card
    table[r, LENGTH]  how many cards it holds (1..5)
    table[r, COWS]    the cows on it

Functions that must report whole rows (``resolve_turn``, the traced kernel the
tests use) keep the cards beside the table: ``cards[r, i]``, ``i < LENGTH``.

Row choices come per player as two integers: ``take_row`` (0..3, the row taken
when the card has no legal end) and ``tie_side`` (0 right, 1 left, for a
professional tie); -1 means the rule-following choice of RULES.md (fewest cows
now, ties to the row whose last card is lowest).

Each ``_kernel`` serves the Python function of the same name without the
underscore, which checks inputs, allocates and wraps the result.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.deck import COWS, HAND_SIZE, ROW_COUNT, ROW_LIMIT
from ..base.errors import NimmtError
from . import kernel_cache

__all__ = ["BOT_CLOSEST", "BOT_CODES", "BOT_RANDOM", "COWS_COLUMN", "CardStep", "END_LEFT",
           "END_TAKE", "END_TIE", "FIRST", "GameLog", "LAST", "LENGTH", "NO_CHOICE", "TurnOutcome",
           "arrays_to_rows", "bot_card", "bot_codes", "compiled_for", "copy_row", "copy_table",
           "deal_round", "draft_pick", "end_cost", "find_end", "game_ends", "jit", "jit_inline",
           "landing", "pick_card", "place_at_end", "play_games", "play_round", "resolve_turn",
           "rng_below", "rng_seed", "row_risk", "row_table", "rows_to_arrays", "rule_take_row",
           "start_row"]

CACHE = kernel_cache.configure()  # a writable cache folder (or none) before numba needs one
from numba import njit  # noqa: E402

# Numba flags live here and nowhere else.
jit = njit(cache=CACHE, nogil=True)
# Rule steps on the hot path are inlined at numba-IR level (measured 3x faster per card
# than plain calls); bigger functions stay calls to keep compile time down.
jit_inline = njit(cache=CACHE, nogil=True, inline="always")



def compiled_for(kernel: Any, *args: Any) -> bool:
    """Whether ``kernel`` (a numba dispatcher) is compiled, or loaded from the cache, for
    these arguments' types: callers that report a search's time call it once first when not."""
    return tuple(kernel.typeof_pyval(a) for a in args) in kernel.overloads


FIRST, LAST, LENGTH, COWS_COLUMN = 0, 1, 2, 3
# What find_end reports.
END_RIGHT, END_LEFT, END_TIE, END_TAKE = 0, 1, 2, 3
SIDE_RIGHT, SIDE_LEFT = 0, 1

# Bots, by code. README's "Bots" section says what each does.
BOT_RANDOM, BOT_CLOSEST, BOT_LOWKEEPER, BOT_DUMPER, BOT_CAREFUL = 0, 1, 2, 3, 4
BOT_CODES = {"random": BOT_RANDOM, "closest": BOT_CLOSEST,
             "lowkeeper": BOT_LOWKEEPER, "dumper": BOT_DUMPER, "careful": BOT_CAREFUL}
FAR_GAP = 5      # dumper: a row end more than this below every card is "far"
CHEAP_ROW = 2    # lowkeeper: a row of at most this many cows is worth taking
LANDED_COWS = 1.6  # careful: the cows each card landing in front of ours adds (1..104's mean)
NO_CHOICE = -1

_COWS = COWS  # frozen into the kernels as a constant


# ---------------------------------------------------------------- randomness
# xorshift64* with a multiply-shift bounded draw. numba's np.random.randint and
# Generator.integers measured 18 ns and 42 ns a draw; this is about 2 ns, which
# doubles playout speed. The bias of the bounded draw is below bound / 2**32.

@jit_inline
def copy_row(dst, src):
    """dst[:] = src for 1-D arrays of one length, written out: numpy's slice assignment
    brings its broadcast checks and their formatted errors, seconds of compile per kernel."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@jit_inline
def copy_table(dst, src):
    """``copy_row`` for 2-D arrays of one shape."""
    for r in range(src.shape[0]):
        for c in range(src.shape[1]):
            dst[r, c] = src[r, c]


@jit_inline
def rng_seed(seed, stream):
    """A generator state for (seed, stream): splitmix64 of both."""
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(stream) + np.uint64(1)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z if z != np.uint64(0) else np.uint64(1)


@jit_inline
def rng_below(rng, bound):
    """A uniform integer in [0, bound); advances rng[0]."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    y = (x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return np.int64((y * np.uint64(bound)) >> np.uint64(32))


# ---------------------------------------------------------------- rule steps

@jit_inline
def find_end(table, card, professional):
    """Where ``card`` goes: (kind, row_a, row_b).

    END_RIGHT / END_LEFT: row_a's right / left end. END_TIE (professional): row_a's
    right end and row_b's left end are equally close. END_TAKE: no legal end.
    """
    right_row, right_last = -1, 0
    for r in range(ROW_COUNT):
        last = table[r, LAST]
        if right_last < last < card:
            right_row, right_last = r, last
    if not professional:
        return (END_TAKE if right_row < 0 else END_RIGHT), right_row, -1
    left_row, left_first = -1, 1 << 30
    for r in range(ROW_COUNT):
        first = table[r, FIRST]
        if card < first < left_first:
            left_row, left_first = r, first
    if left_row < 0:
        return (END_TAKE if right_row < 0 else END_RIGHT), right_row, -1
    if right_row < 0:
        return END_LEFT, left_row, -1
    right_gap, left_gap = card - right_last, left_first - card
    if right_gap != left_gap:
        return (END_RIGHT, right_row, -1) if right_gap < left_gap else (END_LEFT, left_row, -1)
    return END_TIE, right_row, left_row


@jit_inline
def rule_take_row(table):
    """The rule-following row to take: fewest cows, ties to the lowest last card."""
    best = 0
    for r in range(1, ROW_COUNT):
        if (table[r, COWS_COLUMN] < table[best, COWS_COLUMN]
                or (table[r, COWS_COLUMN] == table[best, COWS_COLUMN]
                    and table[r, LAST] < table[best, LAST])):
            best = r
    return best


@jit_inline
def end_cost(table, r):
    """Cows taken by adding a card at an end of row r (a sixth card takes it)."""
    return table[r, COWS_COLUMN] if table[r, LENGTH] == ROW_LIMIT else 0


@jit_inline
def rule_tie_side(table, right_row, left_row):
    """The rule-following end of a professional tie: fewer cows now, ties to the row
    whose last card is lowest."""
    right_cost, left_cost = end_cost(table, right_row), end_cost(table, left_row)
    if right_cost != left_cost:
        return SIDE_RIGHT if right_cost < left_cost else SIDE_LEFT
    return SIDE_RIGHT if table[right_row, LAST] < table[left_row, LAST] else SIDE_LEFT


@jit_inline
def _start_row(table, r, card):
    """``card`` becomes row r's only card; returns the cows taken."""
    taken = table[r, COWS_COLUMN]
    table[r, FIRST] = card
    table[r, LAST] = card
    table[r, LENGTH] = 1
    table[r, COWS_COLUMN] = _COWS[card]
    return taken


@jit_inline
def place_at_end(table, card, kind, row_a, row_b, take_row, tie_side):
    """Put ``card`` where ``find_end`` said it goes (kind, row_a, row_b), in place;
    ``take_row`` / ``tie_side`` settle a take / a tie (-1: the rule-following choice).
    Returns (row_index, side, cows taken)."""
    r = row_a
    if kind == END_TAKE:
        r = take_row if take_row >= 0 else rule_take_row(table)
        return r, SIDE_RIGHT, _start_row(table, r, card)
    if kind == END_TIE:
        if tie_side < 0:
            tie_side = rule_tie_side(table, row_a, row_b)
        kind = END_RIGHT if tie_side == SIDE_RIGHT else END_LEFT
        if kind == END_LEFT:
            r = row_b
    side = SIDE_RIGHT if kind == END_RIGHT else SIDE_LEFT
    if table[r, LENGTH] == ROW_LIMIT:  # the sixth card
        return r, side, _start_row(table, r, card)
    table[r, LAST if side == SIDE_RIGHT else FIRST] = card
    table[r, LENGTH] += 1
    table[r, COWS_COLUMN] += _COWS[card]
    return r, side, 0


@jit_inline
def place_card(table, card, professional, take_row, tie_side):
    """Put one card on the table, in place. Returns (row_index, side, cows taken)."""
    kind, row_a, row_b = find_end(table, card, professional)
    return place_at_end(table, card, kind, row_a, row_b, take_row, tie_side)


@jit_inline
def turn_order(cards, n, order):
    """Players sorted by their card, ascending (insertion sort, n <= 10)."""
    for i in range(n):
        p = i
        j = i - 1
        while j >= 0 and cards[order[j]] > cards[p]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = p


@jit_inline
def _resolve_turn(table, cards, n, professional, take_rows, tie_sides,
                  cows, step_rows, step_sides, order):
    """Resolve one turn in place, lowest card first. ``cows[p]`` += what player p
    takes; step_rows/step_sides[p] say where p's card went; ``order`` is scratch
    and ends holding the players in placing order."""
    turn_order(cards, n, order)
    for i in range(n):
        p = order[i]
        r, side, taken = place_card(table, cards[p], professional, take_rows[p], tie_sides[p])
        cows[p] += taken
        step_rows[p] = r
        step_sides[p] = side


@jit_inline
def _record_card(row_cards, table, r, side, took, card):
    """Keep the cards of row r in step with the table after a card went there."""
    if took:
        row_cards[r, 0] = card
    elif side == SIDE_RIGHT:
        row_cards[r, table[r, LENGTH] - 1] = card
    else:
        for i in range(table[r, LENGTH] - 1, 0, -1):
            row_cards[r, i] = row_cards[r, i - 1]
        row_cards[r, 0] = card


@jit
def _table_from_cards(row_cards, lens, table):
    for r in range(ROW_COUNT):
        table[r, FIRST] = row_cards[r, 0]
        table[r, LAST] = row_cards[r, lens[r] - 1]
        table[r, LENGTH] = lens[r]
        table[r, COWS_COLUMN] = 0
        for i in range(lens[r]):
            table[r, COWS_COLUMN] += _COWS[row_cards[r, i]]


@jit
def _resolve_turn_cards(row_cards, lens, cards, n, professional, take_rows, tie_sides,
                        cows, step_rows, step_sides, trace_cards, trace_lens):
    """Resolve a turn on whole rows (row_cards[4, 5], lens[4]) in place. If trace_cards
    has rows, the rows after the i-th card placed go to trace_cards[i], trace_lens[i]."""
    table = np.empty((ROW_COUNT, 4), np.int64)
    _table_from_cards(row_cards, lens, table)
    order = np.zeros(n, np.int64)
    turn_order(cards, n, order)
    for i in range(n):
        p = order[i]
        card = cards[p]
        r, side, taken = place_card(table, card, professional, take_rows[p], tie_sides[p])
        _record_card(row_cards, table, r, side, taken > 0, card)
        cows[p] += taken
        step_rows[p] = r
        step_sides[p] = side
        for q in range(ROW_COUNT):
            lens[q] = table[q, LENGTH]
        if trace_cards.shape[0] > i:
            trace_cards[i] = row_cards
            trace_lens[i] = lens


@jit
def _resolve_turns_traced(row_cards_b, lens_b, cards_b, n_b, professional_b, take_b, tie_b,
                          cows_b, trace_cards_b, trace_lens_b):
    """Many independent turns (the tests' batch); t-th turn's rows after every card
    go to trace_*_b[t]."""
    steps = np.zeros((2, cards_b.shape[1]), np.int64)
    for t in range(row_cards_b.shape[0]):
        _resolve_turn_cards(row_cards_b[t], lens_b[t], cards_b[t], n_b[t], professional_b[t],
                            take_b[t], tie_b[t], cows_b[t], steps[0], steps[1],
                            trace_cards_b[t], trace_lens_b[t])


# ---------------------------------------------------------------- bots

@jit_inline
def landing(table, card, professional):
    """(kind, gap, cost) if ``card`` were played alone: how it lands, its distance to
    the end it joins (0 for a take), the cows it takes by the rule-following choice."""
    kind, a, b = find_end(table, card, professional)
    if kind == END_TAKE:
        return kind, 0, table[rule_take_row(table), COWS_COLUMN]
    if kind == END_TIE:
        return kind, card - table[a, LAST], min(end_cost(table, a), end_cost(table, b))
    if kind == END_RIGHT:
        return kind, card - table[a, LAST], end_cost(table, a)
    return kind, table[a, FIRST] - card, end_cost(table, a)


@jit
def _closest_index(hand, count, table, professional, skip_takes):
    """Index of the card that lands closest to a row end without taking a row; if every
    card takes one, the cheapest (ties: lowest card). -1 if every card is skipped."""
    best, best_cost, best_gap, best_card = -1, 1 << 30, 1 << 30, 1 << 30
    for i in range(count):
        kind, gap, cost = landing(table, hand[i], professional)
        if skip_takes and kind == END_TAKE:
            continue
        if (cost < best_cost or (cost == best_cost and gap < best_gap)
                or (cost == best_cost and gap == best_gap and hand[i] < best_card)):
            best, best_cost, best_gap, best_card = i, cost, gap, hand[i]
    return best


@jit_inline
def _extreme_index(hand, count, highest):
    best = 0
    for i in range(1, count):
        if (hand[i] > hand[best]) == highest:
            best = i
    return best


@jit_inline
def row_risk(table, r, gap, others, deck_size):
    """careful: the expected cows of a card joining the right end of row r ``gap`` past
    its last card. It is the row's sixth card when exactly 5 - length of the ``others``
    players' cards land in between first; each does so with probability (gap - 1) /
    deck_size (one card of a hand spread over the deck's numbers), independently."""
    need = ROW_LIMIT - table[r, LENGTH]
    if need > others:
        return 0.0
    q = min(1.0, (gap - 1) / deck_size)
    ways = 1.0
    for j in range(need):
        ways = ways * (others - j) / (j + 1)
    return (ways * q ** need * (1.0 - q) ** (others - need)
            * (table[r, COWS_COLUMN] + need * LANDED_COWS))


@jit
def _careful_index(hand, count, table, professional, players, deck_size):
    """Index of the card with the fewest expected cows this turn (``row_risk``; a card
    below every row takes the rule-following row; a left end, professional, takes only a
    full row); ties: the smallest gap, then the lowest card."""
    best, best_risk, best_gap, best_card = 0, 1e300, 1 << 30, 1 << 30
    for i in range(count):
        card = hand[i]
        kind, a, b = find_end(table, card, professional)
        if kind == END_TAKE:
            risk, gap = float(table[rule_take_row(table), COWS_COLUMN]), deck_size
        elif kind == END_LEFT:
            risk, gap = float(end_cost(table, a)), table[a, FIRST] - card
        else:
            gap = card - table[a, LAST]
            risk = row_risk(table, a, gap, players - 1, deck_size)
            if kind == END_TIE:
                risk = min(risk, float(end_cost(table, b)))
        if (risk < best_risk or (risk == best_risk and gap < best_gap)
                or (risk == best_risk and gap == best_gap and card < best_card)):
            best, best_risk, best_gap, best_card = i, risk, gap, card
    return best


@jit
def pick_card(bot, hand, count, table, professional, rng, players, deck_size):
    """Index into ``hand`` of the card ``bot`` plays (README, "Bots") at a table of
    ``players`` with cards 1..deck_size."""
    if bot == BOT_RANDOM or count == 1:
        return rng_below(rng, count)
    if bot == BOT_CAREFUL:
        return _careful_index(hand, count, table, professional, players, deck_size)
    if bot == BOT_LOWKEEPER:
        lowest = _extreme_index(hand, count, False)
        if find_end(table, hand[lowest], professional)[0] == END_TAKE:
            if table[rule_take_row(table), COWS_COLUMN] <= CHEAP_ROW:
                return lowest
            i = _closest_index(hand, count, table, professional, np.bool_(True))
            return lowest if i < 0 else i
    i = _closest_index(hand, count, table, professional, np.bool_(False))
    if bot == BOT_DUMPER:
        _, gap, cost = landing(table, hand[i], professional)
        if cost > 0 or gap > FAR_GAP:
            return _extreme_index(hand, count, True)
    return i


@jit
def _draft_pick(bot, pool, pool_count, rng):
    """Index into ``pool`` of the card a bot drafts (logic variant): random, or the
    fewest cows (ties: the lowest card)."""
    if bot == BOT_RANDOM:
        return rng_below(rng, pool_count)
    best = 0
    for i in range(1, pool_count):
        c, b = pool[i], pool[best]
        if _COWS[c] < _COWS[b] or (_COWS[c] == _COWS[b] and c < b):
            best = i
    return best


# ---------------------------------------------------------------- rounds, games

@jit_inline
def deal_round(n, deck_size, logic, start, bots, table, hands, deck, rng):
    """Deal a round into table and hands: shuffled, or the logic variant's open draft
    (round robin from player ``start``; the 4 cards left start the rows, ascending).
    ``deck`` is a work area of deck_size entries."""
    for i in range(deck_size):
        deck[i] = i + 1
    if logic:
        pool_count = deck_size
        for pick in range(HAND_SIZE * n):
            p = (start + pick) % n
            i = _draft_pick(bots[p], deck, pool_count, rng)
            hands[p, pick // n] = deck[i]
            pool_count -= 1
            deck[i] = deck[pool_count]
        deck[:ROW_COUNT].sort()
        row_start = 0
    else:  # Fisher-Yates, drawing only the cards dealt
        for i in range(HAND_SIZE * n + ROW_COUNT):
            j = i + rng_below(rng, deck_size - i)
            deck[i], deck[j] = deck[j], deck[i]
        for p in range(n):
            for i in range(HAND_SIZE):
                hands[p, i] = deck[p * HAND_SIZE + i]
        row_start = n * HAND_SIZE
    for r in range(ROW_COUNT):
        _start_row(table, r, deck[row_start + r])


@jit_inline
def _play_round(table, hands, n, deck_size, professional, bots, cows, plays_log, scratch, rng):
    """Play 10-card hands out with bots and rule-following row choices; ``cows[p]`` +=
    what p takes. If plays_log has rows, turn t's cards go to plays_log[t].
    ``scratch`` is an int64[5, n] work area (nothing is allocated per round)."""
    cards, none, step_rows, step_sides, order = (scratch[0], scratch[1], scratch[2],
                                                 scratch[3], scratch[4])
    none[:] = NO_CHOICE
    for turn in range(HAND_SIZE):
        count = HAND_SIZE - turn
        for p in range(n):
            if bots[p] == BOT_RANDOM:  # the hot case, without a call
                i = rng_below(rng, count)
            else:
                i = pick_card(bots[p], hands[p], count, table, professional, rng, n,
                              deck_size)
            cards[p] = hands[p, i]
            hands[p, i] = hands[p, count - 1]
            if plays_log.shape[0] > turn:
                plays_log[turn, p] = cards[p]
        _resolve_turn(table, cards, n, professional, none, none, cows,
                      step_rows, step_sides, order)


@jit_inline
def game_ends(totals, threshold, one_round):
    """After a round: whether the game ends (rules.game_over: some total at the threshold,
    or the one round of a one-round game)."""
    if one_round:
        return True
    for p in range(totals.shape[0]):
        if totals[p] >= threshold:
            return True
    return False


@jit
def _play_games(first_game, game_count, n, deck_size, logic, professional, threshold,
                one_round, max_rounds, bots, seed, totals, rounds, log_rows, log_hands,
                log_plays):
    """Play games first_game .. first_game + game_count - 1 into totals[j] and rounds[j]
    (j = game - first_game). Game g draws from its own stream (seed, g), so a run gives
    the same results however it is chunked. log_* (if not empty) record games j = 0..:
    log_rows[j, round, r], log_hands[j, round, p, i], log_plays[j, round, turn, p]."""
    table = np.zeros((ROW_COUNT, 4), np.int64)
    hands = np.zeros((n, HAND_SIZE), np.int64)
    cows = np.zeros(n, np.int64)
    scratch = np.zeros((5, n), np.int64)
    deck = np.zeros(deck_size, np.int64)
    no_log = np.zeros((0, n), np.int64)
    rng = np.zeros(1, np.uint64)
    for j in range(game_count):
        rng[0] = rng_seed(seed, first_game + j)
        totals[j, :] = 0
        played = 0
        while True:
            deal_round(n, deck_size, logic, played % n, bots, table, hands, deck, rng)
            logged = j < log_plays.shape[0] and played < log_plays.shape[1]
            if logged:
                log_rows[j, played] = table[:, FIRST]
                log_hands[j, played] = hands
            cows[:] = 0
            _play_round(table, hands, n, deck_size, professional, bots, cows,
                        log_plays[j, played] if logged else no_log, scratch, rng)
            played += 1
            for p in range(n):
                totals[j, p] += cows[p]
            if game_ends(totals[j], threshold, one_round) or played >= max_rounds:
                break
        rounds[j] = played


# ---------------------------------------------------------------- the logic draft's kernels
# Public names (in ``__all__`` above) of the round kernels that draftkernels builds on (the
# draft's analysis and whole logic rounds), so that no rule is written twice.
draft_pick = _draft_pick
play_round = _play_round
start_row = _start_row


# ---------------------------------------------------------------- Python API

Rows = tuple[tuple[int, ...], ...]


def rows_to_arrays(rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Rows as card lists -> (cards[4, 5], lens[4]) for the kernels."""
    if len(rows) != ROW_COUNT or any(not 1 <= len(r) <= ROW_LIMIT for r in rows):
        raise NimmtError("need exactly 4 rows of 1 to 5 cards each")
    cards = np.zeros((ROW_COUNT, ROW_LIMIT), np.int64)
    lens = np.zeros(ROW_COUNT, np.int64)
    for r, row in enumerate(rows):
        cards[r, :len(row)] = row
        lens[r] = len(row)
    return cards, lens


def arrays_to_rows(cards: np.ndarray, lens: np.ndarray) -> Rows:
    return tuple(tuple(int(c) for c in cards[r, :lens[r]]) for r in range(ROW_COUNT))


def row_table(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """The 4x4 row table (first, last, length, cows) of rows given as card lists."""
    cards, lens = rows_to_arrays(rows)
    table = np.zeros((ROW_COUNT, 4), np.int64)
    _table_from_cards(cards, lens, table)
    return table


@dataclass(frozen=True)
class CardStep:
    """Where one card went: its row, the end it joined, and what it took."""

    player_index: int  # 0 = player 1
    card: int
    row_index: int     # 0..3
    side: str          # 'right' or 'left'
    cows: int          # cows its owner took with it (0: it took no row)

    @property
    def took(self) -> bool:
        return self.cows > 0


@dataclass(frozen=True)
class TurnOutcome:
    """A resolved turn: the new rows, cows per player, and each card's step, lowest first."""

    rows: Rows
    cows: tuple[int, ...]
    steps: tuple[CardStep, ...]


def _check_turn(rows, cards, take_rows, tie_sides) -> None:
    """The kernels trust their input; this is where bad input stops."""
    on_table = [c for r in rows for c in r]
    if not 1 <= len(cards) <= 10:
        raise NimmtError("a turn has one card for each of 1 to 10 players")
    if any(not 1 <= c <= len(COWS) - 1 for c in [*on_table, *cards]):
        raise NimmtError("cards are numbers from 1 to 104")
    if len(set(on_table) | set(cards)) != len(on_table) + len(cards):
        raise NimmtError("a card is played twice or is already on the table")
    if any(list(r) != sorted(r) for r in rows):
        raise NimmtError("each row's cards must be ascending, in table order")
    for name, choices, top in (("take_rows", take_rows, ROW_COUNT - 1),
                               ("tie_sides", tie_sides, 1)):
        if choices is not None and (len(choices) != len(cards)
                                    or any(not -1 <= c <= top for c in choices)):
            raise NimmtError(f"{name} needs one entry per card, each -1..{top}")


def resolve_turn(rows: Sequence[Sequence[int]], cards: Sequence[int], professional: bool = False,
                 take_rows: Sequence[int] | None = None,
                 tie_sides: Sequence[int] | None = None) -> TurnOutcome:
    """Resolve one turn: ``cards[p]`` is player p's card; row choices default to
    the rule-following choice (``take_rows[p]`` 0..3, ``tie_sides[p]`` 0 right / 1 left).

    >>> resolve_turn([[3], [20], [30], [40]], [5, 2]).cows
    (0, 1)
    """
    n = len(cards)
    row_cards, lens = rows_to_arrays(rows)
    _check_turn(rows, cards, take_rows, tie_sides)
    card_arr = np.asarray(cards, np.int64)
    take = np.full(n, NO_CHOICE, np.int64) if take_rows is None else np.asarray(take_rows, np.int64)
    tie = np.full(n, NO_CHOICE, np.int64) if tie_sides is None else np.asarray(tie_sides, np.int64)
    cows = np.zeros(n, np.int64)
    step_rows = np.zeros(n, np.int64)
    step_sides = np.zeros(n, np.int64)
    no_trace = np.zeros((0, ROW_COUNT, ROW_LIMIT), np.int64)
    _resolve_turn_cards(row_cards, lens, card_arr, n, professional, take, tie, cows,
                        step_rows, step_sides, no_trace, np.zeros((0, ROW_COUNT), np.int64))
    # one card per player per turn, so a player's cows are its card's
    steps = tuple(CardStep(p, int(cards[p]), int(step_rows[p]),
                           "right" if step_sides[p] == SIDE_RIGHT else "left", int(cows[p]))
                  for p in sorted(range(n), key=lambda p: cards[p]))
    return TurnOutcome(arrays_to_rows(row_cards, lens), tuple(int(c) for c in cows), steps)


def bot_codes(names: Sequence[str]) -> np.ndarray:
    """Bot names -> kernel codes; unknown names are bad input."""
    unknown = [b for b in names if b not in BOT_CODES]
    if unknown:
        raise NimmtError(f"unknown bot {unknown[0]!r}; use one of {', '.join(BOT_CODES)}")
    return np.array([BOT_CODES[b] for b in names], np.int64)


def bot_card(bot: str, hand: Sequence[int], rows: Sequence[Sequence[int]],
             professional: bool = False, seed: int = 0, *, players: int,
             deck_size: int) -> int:
    """The card ``bot`` plays from ``hand`` on these rows (random bots use ``seed``), at a
    table of ``players`` with cards 1..deck_size (only ``careful`` reads those two).

    >>> bot_card("closest", [5, 13, 30], [[3], [12], [20], [40]], players=2, deck_size=24)
    13
    """
    codes = bot_codes([bot])
    if not hand:
        raise NimmtError("the hand is empty")
    cards = np.asarray(hand, np.int64)
    rng = np.array([rng_seed(seed, 0)], np.uint64)
    return int(cards[pick_card(codes[0], cards, len(cards), row_table(rows), professional, rng,
                               players, deck_size)])


@dataclass(frozen=True)
class GameLog:
    """What recorded games did: first row cards, hands dealt, cards played per turn."""

    rows: np.ndarray   # [game, round, row]
    hands: np.ndarray  # [game, round, player, i]
    plays: np.ndarray  # [game, round, turn, player]


def play_games(first_game: int, game_count: int, players: int, deck_size: int, logic: bool,
               professional: bool, threshold: int, one_round: bool, bots: np.ndarray,
               seed: int, max_rounds: int = 10_000, record_rounds: int = 0):
    """Play games first_game.. with bots; returns (totals[game, player], rounds[game])
    and, when record_rounds > 0, a GameLog of the first record_rounds rounds of each game.
    Game g's randomness depends only on (seed, g)."""
    if (len(bots) != players or not 2 <= players <= 10
            or deck_size < HAND_SIZE * players + ROW_COUNT):
        raise NimmtError("need one bot per player, 2..10 players, and a deck that deals")
    totals = np.zeros((game_count, players), np.int64)
    rounds = np.zeros(game_count, np.int64)
    logged = game_count if record_rounds else 0
    log = GameLog(np.zeros((logged, record_rounds, ROW_COUNT), np.int64),
                  np.zeros((logged, record_rounds, players, HAND_SIZE), np.int64),
                  np.zeros((logged, record_rounds, HAND_SIZE, players), np.int64))
    _play_games(first_game, game_count, players, deck_size, logic, professional, threshold,
                one_round, max_rounds, bots, seed, totals, rounds, log.rows, log.hands, log.plays)
    if record_rounds:
        return totals, rounds, log
    return totals, rounds


from ..base import notice  # noqa: E402  (at the end: kernels' line numbers name their cache)

notice.install()  # a compile (cache miss) can announce itself
