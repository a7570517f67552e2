"""The win objective over a game: what the end of this round is worth to
player 1 when the position carries the game (``scores``, ``threshold``).

At the end of the round each total is score + cows taken this round. If a total reaches the
threshold the game ends there and player 1's share of the win is exact: 1/w when it is one
of the w players with the fewest total cows (docs/RULES.md: equal totals share a rank).
If no total reaches it the game goes on, and its value is a *continuation*:

- two players: ``continuation`` — the probability that player 1 wins the game from those
  totals, by dynamic programming over the later rounds, each round's cows drawn from a
  distribution the engine measures by self-play of a named bot (``round_cows``:
  CONTINUATION_BOT against itself, CONTINUATION_ROUNDS rounds, CONTINUATION_SEED; the two
  seats symmetrised). The searches look it up in a table indexed by this round's cows
  (``utility_table``).
- three players or more (or a threshold over MAX_TABLE_THRESHOLD): a proxy, player 1's
  share of the lead (the fewest total cows, ties shared), as if the game ended now.

Without scores or a threshold (``Position.in_game`` false) the objective is the round's:
the share of the fewest cows taken this round.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..base.errors import NimmtError
from ..base.rules import COWS, deck_size, game_over, win_shares
from ..kernels import engine
from .position import Position

__all__ = ["CONTINUATION_BOT", "CONTINUATION_ROUNDS", "CONTINUATION_SEED", "MAX_TABLE_THRESHOLD",
           "check_game", "continuation", "game_kind", "round_cows", "share_at_end",
           "utility_table", "win_word"]

CONTINUATION_BOT = "closest"   # the later rounds are played like this bot plays (self-play)
CONTINUATION_ROUNDS = 20_000   # rounds measured (a round's cows: about 0.05 cow of error)
CONTINUATION_SEED = 1
MAX_TABLE_THRESHOLD = 500      # the dynamic programme costs threshold^2 x the round's support
ROUND, GAME, LEAD = "round", "game", "lead"  # game_kind: what the win objective values


@lru_cache(maxsize=16)
def round_cows(variant: str, placement: str, bot: str = CONTINUATION_BOT,
               rounds: int = CONTINUATION_ROUNDS, seed: int = CONTINUATION_SEED) -> np.ndarray:
    """D[x, y]: the measured probability that a two-player round ends with x cows for one
    player and y for the other, both seats played by ``bot`` (engine.play_games, one round
    each; the logic variant drafted as the engine drafts for that bot), symmetrised (the
    seats are alike), trimmed to the cows seen. Reproducible: round g draws from (seed, g).

    >>> d = round_cows("tactical", "normal", rounds=500)
    >>> bool(abs(d.sum() - 1) < 1e-12), bool(np.allclose(d, d.T))
    (True, True)
    """
    top = deck_size(variant, 2)
    totals, _ = engine.play_games(0, rounds, 2, top, variant == "logic",
                                  placement == "professional", 1, True,
                                  engine.bot_codes([bot, bot]), seed)
    size = int(totals.max()) + 1
    counts = np.zeros((size, size))
    np.add.at(counts, (totals[:, 0], totals[:, 1]), 1.0)
    counts += counts.T
    return counts / counts.sum()


def continuation(dist: np.ndarray, threshold: int) -> np.ndarray:
    """V[a, b] for totals a, b below ``threshold``: the probability that player 1 (total a)
    wins a two-player game against total b (ties shared) when every later round adds
    (x, y) cows with probability dist[x, y], and the game ends after the first round
    that brings a total to the threshold.

    Computed backwards over the anti-diagonals a + b (a round adds cows, so a state
    depends only on states of larger sums, and on itself through dist[0, 0]).

    >>> v = continuation(np.array([[0.0, 0.5], [0.5, 0.0]]), 2)  # one cow a round, to 2
    >>> v.tolist()  # (0, 0): the first to take two cows loses; (1, 0) can only lose or tie
    [[0.5, 0.75], [0.25, 0.5]]
    """
    if threshold < 1:
        raise NimmtError(f"threshold={threshold} must be at least 1")
    stay = float(dist[0, 0])
    if stay >= 1.0:
        raise NimmtError("a round distribution where nobody ever takes a cow never ends a game")
    x_size, y_size = dist.shape
    size = threshold + max(x_size, y_size)
    a, b = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    wins = np.where(a < b, 1.0, np.where(a == b, 0.5, 0.0))  # the game ended: the lead
    windows = np.lib.stride_tricks.sliding_window_view(wins, (x_size, y_size))
    for total in range(2 * threshold - 2, -1, -1):
        first = np.arange(max(0, total - threshold + 1), min(total, threshold - 1) + 1)
        second = total - first
        ahead = np.einsum("mxy,xy->m", windows[first, second], dist)
        wins[first, second] = (ahead - stay * wins[first, second]) / (1.0 - stay)
    return wins[:threshold, :threshold].copy()


@lru_cache(maxsize=16)
def _continuation(variant: str, placement: str, threshold: int) -> np.ndarray:
    return continuation(round_cows(variant, placement), threshold)


def game_kind(position: Position) -> str:
    """What the win objective values for this position: ROUND (no game carried), GAME
    (two players: the win of the game, with the continuation) or LEAD (the lead's share
    where the game goes on: three players or more, or a very high threshold)."""
    if not position.in_game:
        return ROUND
    if position.players == 2 and position.game_threshold <= MAX_TABLE_THRESHOLD:
        return GAME
    return LEAD


def win_word(position: Position) -> str:
    """The unit's word: ``P(win round)``, ``P(win game)`` or ``P(lead game)``."""
    return {ROUND: "win round", GAME: "win game", LEAD: "lead game"}[game_kind(position)]


def check_game(position: Position) -> None:
    """A game's scores must leave it open: no total at the threshold before this round."""
    if position.in_game and game_over(position.scores, position.game_threshold):
        raise NimmtError(
            f"scores={','.join(map(str, position.scores))} already reach the threshold "
            f"{position.game_threshold}: the game ended before this round; give the scores "
            "before this round and the game's threshold (threshold=...)")


def share_at_end(position: Position, taken: Sequence[int]) -> float:
    """Player 1's share of the win when the round ends with ``taken`` cows (player 1
    first) taken this round: the round's (ROUND), the game's with the continuation (GAME)
    or the lead's (LEAD); see the module docstring."""
    kind = game_kind(position)
    if kind == ROUND:
        return float(win_shares(taken)[0])
    check_game(position)
    totals = [s + t for s, t in zip(position.scores, taken)]
    if kind == LEAD or game_over(totals, position.game_threshold):
        return float(win_shares(totals)[0])
    values = _continuation(position.variant, position.placement, position.game_threshold)
    return float(values[totals[0], totals[1]])


def utility_table(position: Position) -> np.ndarray | None:
    """For a two-player game (GAME): U[x, y] = player 1's share of the win when this round
    ends with x cows for player 1 and y for player 2 (``share_at_end``), for x and y up to
    every cow of the deck; None otherwise (the kernels then compute the share)."""
    if game_kind(position) != GAME:
        return None
    check_game(position)
    threshold = position.game_threshold
    values = _continuation(position.variant, position.placement, threshold)
    most = int(COWS[1:position.deck_size + 1].sum())
    x = position.scores[0] + np.arange(most + 1)[:, None]
    y = position.scores[1] + np.arange(most + 1)[None, :]
    ended = np.maximum(x, y) >= threshold
    lead = np.where(x < y, 1.0, np.where(x == y, 0.5, 0.0))
    inside = values[np.minimum(x, threshold - 1), np.minimum(y, threshold - 1)]
    return np.where(ended, lead, inside)
