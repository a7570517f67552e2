"""Whole games and rounds driven by bots: dealing positions, simulating many games.

The hot loops are numba kernels in ``engine``; this module picks seeds, chunks
the work (for progress and Ctrl-C), and turns totals into statistics.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..base.batch import Backend, run_units
from ..base.intervals import mean_interval
from ..base.rules import HAND_SIZE, NimmtError, Rules, win_shares
from ..kernels import engine
from ..positions.position import Position

__all__ = ["Estimate", "SeatStats", "SimulationResult", "deal_position", "play_random_turns",
           "simulate"]

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
    """A sample mean with its 95% interval (``solver.base.intervals``: inside the values' range
    when one is given; NaN from fewer than two values)."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, values: np.ndarray, low: float | None = None,
           high: float | None = None) -> Estimate:
        """The mean of ``values``, each known to lie in [low, high] (None: unbounded)."""
        if len(values) < 2:
            mean = float(values.mean()) if len(values) else math.nan
            return cls(mean, math.nan, math.nan)
        mean, (a, b) = mean_interval(values.astype(float).tolist(), low, high)
        return cls(mean, a, b)

    @classmethod
    def of_shares(cls, values: np.ndarray) -> Estimate:
        """A mean of shares in [0, 1] (win shares, pairwise scores): Wilson-type interval."""
        return cls.of(values, 0.0, 1.0)

    @classmethod
    def of_cows(cls, values: np.ndarray) -> Estimate:
        """A mean of cows (never negative): the interval cut at 0."""
        return cls.of(values, 0.0)


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


def play_games_unit(args: tuple[Rules, tuple[str, ...], int, int, int, int,
                                 tuple[str, ...] | None]) -> tuple[np.ndarray, np.ndarray]:
    """Games first..first+size-1 of a ``simulate`` run (each depends on (seed, game) only):
    their totals per seat and their rounds. ``args``: (rules, bots, seed, first, size,
    max_rounds, drafters or None)."""
    rules, bots, seed, first, size, max_rounds, drafters = args
    if drafters is not None:  # ---- the logic draft by named drafters
        from .draftsearch import play_logic_games

        return play_logic_games(rules, drafters, bots, first, size, seed, max_rounds)
    return engine.play_games(first, size, rules.players, rules.deck_size,
                             rules.variant == "logic", rules.professional, rules.threshold,
                             rules.one_round, engine.bot_codes(bots), seed,
                             max_rounds=max_rounds)


UNIT_GAMES = 1024   # games per unit at least
MAX_UNITS = 256     # a run is cut into at most about this many units


def simulate(rules: Rules, bots: Sequence[str], games: int, seed: int = 0,
             progress: Callable[[int], None] | None = None, unit_games: int | None = None,
             max_rounds: int = 10_000, drafters: Sequence[str] | None = None,
             batch: Backend | None = None) -> SimulationResult:
    """Play ``games`` games with one bot per seat; Ctrl-C stops and returns what was played.
    Logic variant: ``drafters`` (one per seat) draft each round (draftsearch.py); without
    them the engine drafts (random for a random bot, else the fewest cows). The games are
    cut into units of ``unit_games`` (default: at least 1024, at most about 256 units) run
    by ``solver.base.batch`` (``batch``; in process by default): game g depends on (seed, g)
    only, so the result is the same whatever the units and whatever runs them.

    >>> r = simulate(Rules("tactical", 2, one_round=True), ["random", "closest"], 2000, seed=1)
    >>> r.games, len(r.seats)
    (2000, 2)
    """
    if len(bots) != rules.players:
        raise NimmtError(f"{len(bots)} bots for {rules.players} players; name one bot per seat "
                         "(or a single bot for every seat)")
    if games < 1:
        raise NimmtError("games must be at least 1")
    engine.bot_codes(bots)  # unknown names: one error before any work
    if drafters is not None and rules.variant != "logic":
        raise NimmtError("drafters apply to the logic variant (the drafted deck)")
    names = tuple(bots)
    draft = tuple(drafters) if drafters is not None else None
    size = unit_games or max(UNIT_GAMES, -(-games // MAX_UNITS))
    units = ((rules, names, seed, first, min(size, games - first), max_rounds, draft)
             for first in range(0, games, size))
    one_round = Rules(rules.variant, rules.players, rules.placement, rules.threshold, True)

    def count(index: int, part: tuple[np.ndarray, np.ndarray]) -> None:
        if progress:
            progress(len(part[1]))

    run = run_units(play_games_unit, units, batch or Backend(), on_result=count,
                    warm=partial(play_games_unit, (one_round, names, seed, 0, 1, max_rounds,
                                                   draft)))
    parts = run.ordered()
    n = rules.players
    totals = np.concatenate([p[0] for p in parts]).reshape(-1, n) if parts \
        else np.zeros((0, n), np.int64)
    rounds = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    done = len(rounds)
    seconds = run.seconds - run.startup  # the games alone: loading the kernels excluded
    shares = win_shares(totals) if done else np.zeros((0, rules.players))
    seats = tuple(
        SeatStats(p + 1, bots[p], Estimate.of_cows(totals[:, p] / np.maximum(rounds, 1)),
                  Estimate.of_cows(totals[:, p].astype(float)), Estimate.of_shares(shares[:, p]))
        for p in range(rules.players))
    return SimulationResult(rules, tuple(bots), seed, done, games, seconds,
                            float(rounds.mean()) if done else math.nan, seats,
                            tuple(drafters) if drafters is not None else None)
