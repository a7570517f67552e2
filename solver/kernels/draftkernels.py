"""Numba kernels of the logic variant's draft: draft bots, the rest of a draft, whole
logic rounds (draft + play) and games, and the samples of a draft's analysis.

Rules are the engine's: a drafted deck is dealt into the rows with ``engine.start_row``,
the round is played by ``engine.play_round`` (the bots' cards, rule-following row
choices), and the drafters ``random`` and ``fewest`` are ``engine.draft_pick``. A draft
from the whole deck with those two drafters draws exactly what ``engine.play_games``
draws for the logic variant (the same pool order and random stream), so a round played
here with the drafters the engine derives from the bots is the engine's round.

State of a draft (plain int64 arrays): ``pool[:pool_count]`` the open cards (picked cards
are swap-removed, as the engine does), ``hands[p, :counts[p]]`` what player p drafted,
``pickers[i]`` the player of pick i (0-based; 10 per player).
"""
from __future__ import annotations

import numpy as np

from ..base.rules import COWS, HAND_SIZE, ROW_COUNT
from .engine import (
    BOT_CLOSEST,
    BOT_RANDOM,
    draft_pick,
    game_ends,
    jit,
    play_round,
    rng_below,
    rng_seed,
    start_row,
)

__all__ = ["DRAFT_CHEAP", "DRAFT_EVALUATE", "DRAFT_FEWEST", "DRAFT_RANDOM", "EVALUATE_SAMPLES",
           "analysis_samples", "draft_rest", "evaluate_pick", "play_logic_games",
           "round_cows", "round_once"]

DRAFT_RANDOM, DRAFT_FEWEST, DRAFT_CHEAP, DRAFT_EVALUATE = 0, 1, 2, 3
EVALUATE_SAMPLES = 16   # the evaluate drafter's samples per candidate card (its budget)
EVALUATE_STREAM = 1 << 61  # its samples' streams: (its seed, EVALUATE_STREAM + sample)
_COWS = COWS


@jit
def _cheap_pick(pool, pool_count, rng):
    """A uniformly random card among the pool's cards with the fewest cows."""
    least, ties = 1 << 30, 0
    for i in range(pool_count):
        c = _COWS[pool[i]]
        if c < least:
            least, ties = c, 1
        elif c == least:
            ties += 1
    k = rng_below(rng, ties)
    for i in range(pool_count):
        if _COWS[pool[i]] == least:
            if k == 0:
                return i
            k -= 1
    return 0


@jit
def _simple_pick(code, pool, pool_count, rng):
    """Index into pool of a simple drafter's card (random, fewest, cheap)."""
    if code == DRAFT_RANDOM:
        return draft_pick(np.int64(BOT_RANDOM), pool, pool_count, rng)  # one signature
    if code == DRAFT_FEWEST:
        return draft_pick(np.int64(BOT_CLOSEST), pool, pool_count, rng)
    return _cheap_pick(pool, pool_count, rng)


@jit
def _take(pool, pool_count, hands, counts, player, i):
    """Player takes pool[i] (swap-removed); returns the new pool count."""
    hands[player, counts[player]] = pool[i]
    counts[player] += 1
    pool[i] = pool[pool_count - 1]
    pool[pool_count - 1] = hands[player, counts[player] - 1]  # kept behind the count
    return pool_count - 1


@jit
def _cheap_rest(pool, pool_count, hands, counts, pickers, first, rng):
    """Picks first.. by the cheap drafter for everyone; returns the pool count."""
    for pick in range(first, pickers.shape[0]):
        pool_count = _take(pool, pool_count, hands, counts, pickers[pick],
                           _cheap_pick(pool, pool_count, rng))
    return pool_count


@jit
def round_cows(pool, hands, n, professional, bots, cows, table, scratch, rng, plays_log):
    """Play the round after a finished draft: pool[:4] (the cards left) start the rows,
    sorted ascending in place; hands[p] hold 10 cards each (played out in place).
    cows[p] += p's take; turn t's cards go to plays_log[t] if it has rows."""
    pool[:ROW_COUNT].sort()
    for r in range(ROW_COUNT):
        start_row(table, r, pool[r])
    play_round(table, hands, n, n * HAND_SIZE + ROW_COUNT, professional, bots, cows, plays_log,
               scratch, rng)


@jit
def _own_cows(pool, pool_count, hands, counts, pickers, first, me, n, professional, bots,
              rng, work_pool, work_hands, work_counts, cows, table, scratch):
    """One sample: from this state (pick ``first`` next), the rest of the draft by the
    cheap drafter for everyone, the round by ``bots``; player me's cows."""
    work_pool[:pool_count] = pool[:pool_count]
    work_hands[:, :] = hands
    work_counts[:] = counts
    _cheap_rest(work_pool, pool_count, work_hands, work_counts, pickers, first, rng)
    cows[:] = 0
    round_cows(work_pool, work_hands, n, professional, bots, cows, table, scratch, rng,
               np.zeros((0, n), np.int64))
    return cows[me]


@jit
def evaluate_pick(pool, pool_count, hands, counts, pickers, pick, n, professional, bots,
                  samples, seed):
    """The evaluate drafter: for each card of the pool, ``samples`` samples of the rest
    (that card taken; the rest drafted by the cheap drafter for everyone; the round by
    ``bots``), the same streams for every card; the card with the fewest own cows on
    average (ties: the lowest card). Returns its index into pool."""
    me = pickers[pick]
    work_pool = np.zeros(pool.shape[0], np.int64)
    work_hands = np.zeros_like(hands)
    work_counts = np.zeros_like(counts)
    trial_pool = np.zeros(pool.shape[0], np.int64)
    trial_hands = np.zeros_like(hands)
    trial_counts = np.zeros_like(counts)
    cows = np.zeros(n, np.int64)
    table = np.zeros((ROW_COUNT, 4), np.int64)
    scratch = np.zeros((5, n), np.int64)
    rng = np.zeros(1, np.uint64)
    best, best_total, best_card = 0, 1 << 60, 1 << 30
    for i in range(pool_count):
        trial_pool[:pool_count] = pool[:pool_count]
        trial_hands[:, :] = hands
        trial_counts[:] = counts
        left = _take(trial_pool, pool_count, trial_hands, trial_counts, me, i)
        total = 0
        for s in range(samples):
            rng[0] = rng_seed(seed, EVALUATE_STREAM + s)
            total += _own_cows(trial_pool, left, trial_hands, trial_counts, pickers, pick + 1,
                               me, n, professional, bots, rng, work_pool, work_hands,
                               work_counts, cows, table, scratch)
        if total < best_total or (total == best_total and pool[i] < best_card):
            best, best_total, best_card = i, total, pool[i]
    return best


@jit
def draft_rest(pool, pool_count, hands, counts, pickers, first, last, drafters, n,
               professional, bots, rng):
    """Picks first..last-1 by each picker's drafter (any code); returns the pool count (4
    when the draft is over). The evaluate drafter models the round by ``bots``."""
    for pick in range(first, last):
        p = pickers[pick]
        if drafters[p] == DRAFT_EVALUATE:
            seed = np.int64(rng_below(rng, 1 << 31))
            i = evaluate_pick(pool, pool_count, hands, counts, pickers, pick, n, professional,
                              bots, np.int64(EVALUATE_SAMPLES), seed)
        else:
            i = _simple_pick(drafters[p], pool, pool_count, rng)
        pool_count = _take(pool, pool_count, hands, counts, p, i)
    return pool_count


@jit
def analysis_samples(pool0, hands0, counts0, pickers, first, card, stream, drafters, n,
                     professional, bots, seed, first_sample, values, others):
    """Samples first_sample.. of the draft analysis of ``card``: player pickers[first]
    takes it, the rest of the draft by ``drafters``, the round by ``bots``. values[s] is
    the picker's cows, others[s] the other players' mean cows. Sample s draws from the
    stream (seed, stream + first_sample + s) alone."""
    me = pickers[first]
    size = pool0.shape[0]
    pool = np.zeros(size, np.int64)
    hands = np.zeros_like(hands0)
    counts = np.zeros_like(counts0)
    cows = np.zeros(n, np.int64)
    table = np.zeros((ROW_COUNT, 4), np.int64)
    scratch = np.zeros((5, n), np.int64)
    rng = np.zeros(1, np.uint64)
    no_log = np.zeros((0, n), np.int64)
    at = np.int64(0)  # (constants passed on as np.int64: one compiled signature)
    for i in range(size):
        if pool0[i] == card:
            at = i
    for s in range(values.shape[0]):
        rng[0] = rng_seed(seed, stream + first_sample + s)
        pool[:] = pool0
        hands[:, :] = hands0
        counts[:] = counts0
        left = _take(pool, size, hands, counts, me, at)
        draft_rest(pool, left, hands, counts, pickers, first + 1, pickers.shape[0], drafters, n,
                   professional, bots, rng)
        cows[:] = 0
        round_cows(pool, hands, n, professional, bots, cows, table, scratch, rng, no_log)
        values[s] = cows[me]
        others[s] = (cows.sum() - cows[me]) / (n - 1)


@jit
def play_logic_games(first_game, game_count, n, professional, threshold, one_round,
                     max_rounds, drafters, bots, seed, totals, rounds, log_rows, log_hands,
                     log_plays, log_picks):
    """Logic games first_game.. (as engine.play_games: game g draws from the stream
    (seed, g); round r's draft is round robin from player r mod n) with a drafter and a
    play bot per seat. log_* (if not empty) record each game's first rounds: rows,
    hands after the draft, plays per turn, and the cards in pick order."""
    deck_size = HAND_SIZE * n + ROW_COUNT
    table = np.zeros((ROW_COUNT, 4), np.int64)
    hands = np.zeros((n, HAND_SIZE), np.int64)
    counts = np.zeros(n, np.int64)
    cows = np.zeros(n, np.int64)
    scratch = np.zeros((5, n), np.int64)
    deck = np.zeros(deck_size, np.int64)
    pickers = np.zeros(HAND_SIZE * n, np.int64)
    no_log = np.zeros((0, n), np.int64)
    rng = np.zeros(1, np.uint64)
    for j in range(game_count):
        rng[0] = rng_seed(seed, first_game + j)
        totals[j, :] = 0
        played = 0
        while True:
            for i in range(deck_size):
                deck[i] = i + 1
            for i in range(HAND_SIZE * n):
                pickers[i] = (played + i) % n
            counts[:] = 0
            logged = j < log_plays.shape[0] and played < log_plays.shape[1]
            if logged:  # the picks in order: replay them one by one
                pool_count = deck_size
                for pick in range(HAND_SIZE * n):
                    pool_count = draft_rest(deck, pool_count, hands, counts, pickers, pick,
                                            pick + 1, drafters, n, professional, bots, rng)
                    p = pickers[pick]
                    log_picks[j, played, pick] = hands[p, counts[p] - 1]
            else:
                draft_rest(deck, deck_size, hands, counts, pickers, np.int64(0), pickers.shape[0],
                           drafters, n, professional, bots, rng)
            if logged:
                log_hands[j, played] = hands
            cows[:] = 0
            round_cows(deck, hands, n, professional, bots, cows, table, scratch, rng,
                       log_plays[j, played] if logged else no_log)
            if logged:
                log_rows[j, played] = deck[:ROW_COUNT]  # sorted: the rows' first cards
            played += 1
            for p in range(n):
                totals[j, p] += cows[p]
            if game_ends(totals[j], threshold, one_round) or played >= max_rounds:
                break
        rounds[j] = played


@jit
def round_once(pool, hands, n, professional, bots, seed):
    """Player cows of the round after a finished draft (pool[:4] left, hands[p] 10 cards
    each; both copied), the round by ``bots`` drawing from the stream (seed, 0)."""
    work_pool = pool.copy()
    work_hands = hands.copy()
    cows = np.zeros(n, np.int64)
    rng = np.zeros(1, np.uint64)
    rng[0] = rng_seed(seed, 0)
    round_cows(work_pool, work_hands, n, professional, bots, cows,
               np.zeros((ROW_COUNT, 4), np.int64), np.zeros((5, n), np.int64), rng,
               np.zeros((0, n), np.int64))
    return cows
