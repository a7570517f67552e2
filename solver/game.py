"""Whole games and rounds driven by bots: dealing positions, simulating many games.

The hot loops are numba kernels in ``engine``; this module picks seeds, chunks
the work (for progress and Ctrl-C), and turns totals into statistics.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import engine
from .position import Position
from .rules import HAND_SIZE, NimmtError, Rules

__all__ = ["Estimate", "SeatStats", "SimulationResult", "deal_position", "play_random_turns",
           "simulate", "win_shares"]

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def deal_position(rules: Rules, cards_left: int = HAND_SIZE, seed: int = 0,
                  bots: Sequence[str] | None = None) -> Position:
    """A random legal position: a deal (the logic variant's draft by the bots), then
    10 - cards_left turns of the bots (default: all random) with rule-following row choices.

    >>> deal_position(Rules("tactical", 2), 3, seed=1).cards_left
    3
    """
    if not 1 <= cards_left <= HAND_SIZE:
        raise NimmtError(f"cards-left={cards_left} is outside 1..10")
    logic = rules.variant == "logic"
    codes = engine.bot_codes(list(bots) if bots else ["random"] * rules.players)
    _, _, log = engine.play_games(0, 1, rules.players, rules.deck_size, logic, rules.professional,
                                  rules.threshold, True, codes, seed, record_rounds=1)
    hands = log.hands[0, 0].tolist()
    others = {i + 1: hands[i] for i in range(1, rules.players)} if logic else None
    position = Position.make(players=rules.players, rows=[[int(c)] for c in log.rows[0, 0]],
                             hand=hands[0], variant=rules.variant, placement=rules.placement,
                             others=others)
    for turn in range(HAND_SIZE - cards_left):
        position, _ = position.apply_turn([int(c) for c in log.plays[0, 0, turn]])
    return position


def play_random_turns(position: Position, turns: int, seed: int) -> Position:
    """``turns`` turns played by random bots: each player a uniformly random card of its
    hand (``random.Random(seed)``), row choices rule-following. Every hand must be known.

    >>> p = deal_position(Rules("tactical", 2), 5, seed=1)
    >>> play_random_turns(p, 2, seed=3).cards_left
    3
    """
    if not 0 <= turns <= position.cards_left:
        raise NimmtError(f"cannot play {turns} turns with {position.cards_left} cards in hand")
    if turns and not position.all_known:
        raise NimmtError("random bots need every hand known to play a turn; give p2..."
                         f"p{position.players}")
    rng = random.Random(seed)
    for _ in range(turns):
        cards = []
        for h in position.hands:
            assert h is not None  # every hand known (checked above; turns keep them known)
            cards.append(rng.choice(h))
        position, _ = position.apply_turn(cards)
    return position


@dataclass(frozen=True)
class Estimate:
    """A sample mean with its 95% interval (normal approximation)."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, values: np.ndarray) -> Estimate:
        mean = float(values.mean()) if len(values) else math.nan
        half = (Z95 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1
                else math.nan)
        return cls(mean, mean - half, mean + half)


@dataclass(frozen=True)
class SeatStats:
    seat: int  # 1-based
    bot: str
    cows_per_round: Estimate  # per game: its cows / its rounds; averaged over games
    final_total: Estimate
    win_rate: Estimate        # a shared win counts 1/(number of winners)


@dataclass(frozen=True)
class SimulationResult:
    rules: Rules
    bots: tuple[str, ...]
    seed: int
    games: int          # games played (fewer than asked if stopped)
    games_asked: int
    seconds: float
    mean_rounds: float
    seats: tuple[SeatStats, ...]
    drafters: tuple[str, ...] | None = None  # logic: the named drafters (None: the engine's)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    @property
    def complete(self) -> bool:
        return self.games == self.games_asked


def win_shares(totals: np.ndarray) -> np.ndarray:
    """Per game and player: 1/w if the player is one of the w players with fewest cows."""
    best = totals.min(axis=1, keepdims=True)
    winners = totals == best
    return winners / winners.sum(axis=1, keepdims=True)


def simulate(rules: Rules, bots: Sequence[str], games: int, seed: int = 0,
             progress: Callable[[int], None] | None = None, chunk_seconds: float = 0.2,
             max_rounds: int = 10_000,
             drafters: Sequence[str] | None = None) -> SimulationResult:
    """Play ``games`` games with one bot per seat; Ctrl-C stops and returns what was played.
    Logic variant: ``drafters`` (one per seat) draft each round (draftsearch.py); without
    them the engine drafts (random for a random bot, else the fewest cows).

    >>> r = simulate(Rules("tactical", 2, one_round=True), ["random", "closest"], 2000, seed=1)
    >>> r.games, len(r.seats)
    (2000, 2)
    """
    if len(bots) != rules.players:
        raise NimmtError(f"{len(bots)} bots for {rules.players} players; name one bot per seat "
                         "(or a single bot for every seat)")
    if games < 1:
        raise NimmtError("games must be at least 1")
    codes = engine.bot_codes(bots)
    logic = rules.variant == "logic"
    totals = np.zeros((games, rules.players), np.int64)
    rounds = np.zeros(games, np.int64)
    done, chunk = 0, 1024

    def play(first: int, size: int, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
        if drafters is not None:  # ---- the logic draft by named drafters
            from .draftsearch import play_logic_games

            return play_logic_games(rules, drafters, bots, first, size, seed, max_rounds)
        return engine.play_games(first, size, rules.players, rules.deck_size, logic,
                                 rules.professional, rules.threshold, rules.one_round, codes,
                                 seed, max_rounds=max_rounds)

    if drafters is not None and not logic:
        raise NimmtError("drafters apply to the logic variant (the drafted deck)")
    play(0, 1, Rules(rules.variant, rules.players, rules.placement, rules.threshold,
                     True))  # load the compiled kernel first
    start = time.perf_counter()
    try:
        while done < games:
            size = min(chunk, games - done)
            t0 = time.perf_counter()
            totals[done:done + size], rounds[done:done + size] = play(done, size, rules)
            done += size
            if progress:
                progress(size)
            elapsed = time.perf_counter() - t0
            if elapsed < chunk_seconds / 2:
                chunk *= 2
    except KeyboardInterrupt:
        pass  # keep the games finished so far
    seconds = time.perf_counter() - start
    totals, rounds = totals[:done], rounds[:done]
    shares = win_shares(totals) if done else np.zeros((0, rules.players))
    seats = tuple(
        SeatStats(p + 1, bots[p], Estimate.of(totals[:, p] / np.maximum(rounds, 1)),
                  Estimate.of(totals[:, p].astype(float)), Estimate.of(shares[:, p]))
        for p in range(rules.players))
    return SimulationResult(rules, tuple(bots), seed, done, games, seconds,
                            float(rounds.mean()) if done else math.nan, seats,
                            tuple(drafters) if drafters is not None else None)
