"""Monte Carlo for positions too large for exact search (model ``random``).

Per candidate card and sample: the opponents' cards of each turn are drawn as the
model says (known hands: one card each, uniformly; hidden hands: a uniform set of
cards from the pool), player 1 plays its later cards with the ``closest`` bot and
rule-following row choices, until player 1 holds few enough cards for exact search
(``exact_depth``): from that turn on player 1 plays optimally, and the sample's
value there is the exact expected value (its conditional expectation, not a draw).
So when ``exact_depth >= cards_left - 1`` the estimate has exactly the meaning of
the exact ``random`` value, which the tests check.

Each sample draws from its own stream (seed, card, sample index), so a result does
not depend on batching or on where a time limit stopped it.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba.typed import Dict

from . import exact
from .engine import (BOT_CLOSEST, END_TAKE, END_TIE, _find_end, _pick_card, _place_card,
                     _rng_below, _rng_seed, _turn_order, jit, row_table)
from .errors import NimmtError, param
from .exact import MODEL_RANDOM, OWNER_GONE, OWNER_P1, OWNER_POOL, _cards_of, _state_value
from .position import Position
from .rules import ROW_COUNT

__all__ = ["SAMPLE_NODE_BUDGET", "MonteCarloResult", "SampledCard", "choose_exact_depth",
           "later_play_text", "run_montecarlo"]

Z95 = 1.959963984540054
Z99 = 2.5758293035489004
SAMPLE_NODE_BUDGET = 20_000  # exact continuation is used once it costs at most this


@jit
def _turn_with_choice(table, owner, cards, tags, width, deck_size, known_count, hidden_count,
                      professional, exact_child, memo, stats, max_resolved, words, result):
    """Resolve one turn (cards sorted ascending, tags: owner of each); player 1's row
    choice minimises its cows now plus, if exact_child, the exact value after the turn.
    Returns (total, cows now) for player 1 and leaves ``table`` as the chosen line."""
    for a in range(width):
        owner[cards[a]] = OWNER_GONE
    mine_at = 0
    for a in range(width):
        if tags[a] == OWNER_P1:
            mine_at = a
    for a in range(mine_at):  # cards below player 1's: rule-following owners
        _place_card(table, cards[a], professional, -1, -1)
    kind = _find_end(table, cards[mine_at], professional)[0]
    options = ROW_COUNT if kind == END_TAKE else (2 if kind == END_TIE else 1)
    best_total, best_now = math.inf, 0.0
    best_table = table.copy()
    for o in range(options):
        line = table.copy()
        cows = _place_card(line, cards[mine_at], professional,
                           o if (options > 1 and kind == END_TAKE) else -1,
                           o if (options > 1 and kind == END_TIE) else -1)[2]
        for a in range(mine_at + 1, width):
            _place_card(line, cards[a], professional, -1, -1)
        total = float(cows)
        if exact_child:
            total += _state_value(line, owner, deck_size, known_count, hidden_count,
                                  professional, MODEL_RANDOM, memo, stats, max_resolved,
                                  words, result)
        elif options > 1:  # greedy, rule-following: fewest cows now (ties: first option)
            total = float(cows)
        if total < best_total:
            best_total, best_now = total, float(cows)
            best_table[:] = line
    table[:] = best_table
    return best_total, best_now


@jit
def _montecarlo(table0, owner0, deck_size, known_count, hidden_count, professional, card,
                card_index, first_sample, sample_count, exact_depth, seed, memo, stats,
                max_resolved, values, cows_now):
    """Samples first_sample.. of ``card``: values[i] = player 1's cows to the end of the
    round, cows_now[i] = its cows this turn."""
    width = known_count + hidden_count + 1
    rng = np.zeros(1, np.uint64)
    owner = owner0.copy()
    table = table0.copy()
    hand = np.zeros(10, np.int64)
    known = np.zeros((max(known_count, 1), 10), np.int64)
    pool = np.zeros(deck_size, np.int64)
    cards = np.zeros(width, np.int64)
    tags = np.zeros(width, np.int64)
    order = np.zeros(width, np.int64)
    sorted_cards = np.zeros(width, np.int64)
    sorted_tags = np.zeros(width, np.int64)
    words = np.zeros(exact.KEY_WORDS, np.int64)
    result = np.zeros(3)
    for i in range(sample_count):
        rng[0] = _rng_seed(seed, (card_index << 40) + first_sample + i)
        owner[:] = owner0
        table[:] = table0
        total, first_now = 0.0, 0.0
        turn = 0
        while True:
            k = _cards_of(owner, deck_size, OWNER_P1, hand)
            if turn == 0:
                cards[0] = card
            else:
                cards[0] = hand[_pick_card(BOT_CLOSEST, hand, k, table, professional, rng)]
            tags[0] = OWNER_P1
            for j in range(known_count):
                size = _cards_of(owner, deck_size, 2 + j, known[j])
                cards[1 + j] = known[j, _rng_below(rng, size)]
                tags[1 + j] = 2 + j
            if hidden_count:
                pool_count = _cards_of(owner, deck_size, OWNER_POOL, pool)
                for t in range(hidden_count):  # partial Fisher-Yates
                    u = t + _rng_below(rng, pool_count - t)
                    pool[t], pool[u] = pool[u], pool[t]
                    cards[1 + known_count + t] = pool[t]
                    tags[1 + known_count + t] = OWNER_POOL
            _turn_order(cards, width, order)
            for a in range(width):
                sorted_cards[a] = cards[order[a]]
                sorted_tags[a] = tags[order[a]]
            exact_child = k - 1 <= exact_depth
            value, now = _turn_with_choice(table, owner, sorted_cards, sorted_tags, width,
                                           deck_size, known_count, hidden_count, professional,
                                           exact_child and k > 1, memo, stats, max_resolved,
                                           words, result)
            if turn == 0:
                first_now = now
            total += value
            turn += 1
            if exact_child or k == 1:
                break
        values[i] = total
        cows_now[i] = first_now


@jit
def _montecarlo_batch(table0, owner0, deck_size, known_count, hidden_count, professional,
                      cards, first_sample, sample_count, exact_depth, seed, stats, values,
                      cows_now):
    """Samples first_sample.. of every card (values[i, s], cows_now[i, s]); the exact
    continuation's memo is made here and shared by the batch."""
    memo = Dict.empty(key_type=exact.KEY_TYPE, value_type=exact.VALUE_TYPE)
    for i in range(cards.shape[0]):
        _montecarlo(table0, owner0, deck_size, known_count, hidden_count, professional,
                    cards[i], i, first_sample, sample_count, exact_depth, seed, memo, stats,
                    1 << 62, values[i], cows_now[i])


@dataclass(frozen=True)
class SampledCard:
    card: int
    samples: int
    value: float      # mean cows to the end of the round
    stderr: float
    cows_now: float   # mean cows this turn
    take_probability: float

    def interval(self, z: float = Z95) -> tuple[float, float]:
        return (self.value - z * self.stderr, self.value + z * self.stderr)


@dataclass(frozen=True)
class MonteCarloResult:
    cards: tuple[SampledCard, ...]
    exact_depth: int
    seconds: float
    complete: bool  # False if a time limit or Ctrl-C stopped it early
    nodes: int      # exact-continuation nodes resolved

    @property
    def later_play(self) -> str:
        return later_play_text(self.exact_depth)


def later_play_text(exact_depth: int) -> str:
    if exact_depth <= 0:
        return ("player 1's later cards: the 'closest' bot; row choices: fewest cows now; "
                "the last turn's row choice optimal")
    return (f"player 1's later cards: the 'closest' bot while it holds more than "
            f"{exact_depth + 1} cards, then optimal play found by exact search "
            f"(exact values from {exact_depth} cards left)")


def choose_exact_depth(position: Position, budget: int = SAMPLE_NODE_BUDGET) -> int:
    """The most cards left at which exact continuation costs at most ``budget`` nodes."""
    best = 0
    for e in range(1, position.cards_left):
        if exact.estimate_nodes(position, cards_left=e) <= budget:
            best = e
    return best


def run_montecarlo(position: Position, samples: int = 2000, seed: int = 0,
                   time_limit: float | None = None, exact_depth: int | None = None,
                   progress: Callable[[int], None] | None = None,
                   batch: int = 64) -> MonteCarloResult:
    """Estimate every card's expected cows (model random) by sampling.

    Cards are sampled round robin in batches, so a time limit or Ctrl-C leaves every
    card with about the same number of samples; each sample's stream is fixed by
    (seed, card, sample index).
    """
    if samples < 2:
        raise NimmtError(f"{param('samples')} must be at least 2 (a standard error needs two)")
    owner, known, hidden = exact.owner_array(position)
    table = row_table(position.rows)
    depth = choose_exact_depth(position) if exact_depth is None else exact_depth
    stats = np.zeros(exact.STAT_SLOTS, np.int64)
    hand = position.hand
    batches: list[tuple[np.ndarray, np.ndarray]] = []  # ([card, sample] values, cows now)
    done = 0
    if not _montecarlo_batch.signatures:  # compile or load first: times are the sampling's
        _montecarlo_batch(table, owner, position.deck_size, known, hidden, position.professional,
                          np.asarray(hand, np.int64), 0, 0, depth, seed, stats.copy(),
                          np.zeros((len(hand), 0)), np.zeros((len(hand), 0)))
    start = time.perf_counter()
    complete = True
    try:
        while done < samples:
            size = min(batch, samples - done)
            t0 = time.perf_counter()
            values = np.zeros((len(hand), size))
            now = np.zeros((len(hand), size))
            _montecarlo_batch(table, owner, position.deck_size, known, hidden,
                              position.professional, np.asarray(hand, np.int64), done, size,
                              depth, seed, stats, values, now)
            batches.append((values, now))
            done += size
            if time.perf_counter() - t0 < 0.05 and batch < 8192:
                batch *= 2  # fewer kernel calls, while time limits stay responsive
            if progress:
                progress(size)
            if time_limit is not None and time.perf_counter() - start > time_limit:
                complete = done >= samples
                break
    except KeyboardInterrupt:
        complete = False
    done = sum(v.shape[1] for v, _ in batches)  # what finished, even if Ctrl-C came late
    if done < 2:
        raise NimmtError("stopped before two samples per card; allow more time")
    values = np.hstack([v for v, _ in batches])
    now = np.hstack([n for _, n in batches])
    cards = []
    for ci, card in enumerate(hand):
        v = values[ci, :done]
        cards.append(SampledCard(card, done, float(v.mean()),
                                 float(v.std(ddof=1) / math.sqrt(done)),
                                 float(now[ci, :done].mean()),
                                 float((now[ci, :done] > 0).mean())))
    return MonteCarloResult(tuple(cards), depth, time.perf_counter() - start, complete,
                            int(stats[exact.RESOLVED]))
