"""The objective from a position: the ``goal`` arrays the kernels read
(``solver/kernels/objective.py`` holds their layout and the cost they encode), the same
cost for the bots that value turns in Python, and the win objective over a game.

Objectives: ``cows`` (player 1's cows), ``margin`` (player 1's cows minus the mean of
the others'), ``win`` (player 1's share of the fewest cows at the end of the round, or in
a game of the game, below).

The win objective over a game: what the end of this round is worth to player 1 when the
position carries the game (``scores``, ``threshold``).

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

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from ..base.errors import NimmtError
from ..base.rules import COWS, deck_size, game_over, win_shares
from ..kernels import engine
from ..kernels.objective import (
    G_HIDDEN_SEATS,
    G_MINE,
    G_OTHERS,
    G_SCORES,
    G_SEATS,
    G_TABLE_DIM,
    G_TAKEN,
    G_WIN,
    GOAL_SLOTS,
    OBJECTIVES,
)
from ..kernels.statekey import TAKEN_BITS
from .position import Position

__all__ = ["CONTINUATION_BOT", "CONTINUATION_ROUNDS", "CONTINUATION_SEED", "GAME", "LEAD",
           "MAX_TABLE_THRESHOLD", "OBJECTIVES", "ROUND", "as_costs", "check_game",
           "check_objective", "continuation", "cow_weights", "game_kind", "goal_array",
           "hidden_totals", "objective_value", "playout_goal", "round_cows", "round_end_cost",
           "share_at_end", "turn_cost", "utility_table", "win_word"]

TAKEN_NEEDED = ("the win objective needs each player's cows taken so far this round: add "
                "taken=... (player 1 first, e.g. taken=3,0)")



# ---------------------------------------------------------------- a game's win

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


# ---------------------------------------------------------------- goal arrays

def check_objective(objective: str) -> None:
    """Raise the one-line error for an unknown objective name."""
    if objective not in OBJECTIVES:
        raise NimmtError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")


def cow_weights(objective: str, players: int) -> tuple[float, float, float]:
    """(G_MINE, G_OTHERS, G_WIN): what a cow of one's own and a cow of someone else's
    cost, and what losing the win costs, under ``objective`` at ``players`` players."""
    check_objective(objective)
    if objective == "cows":
        return 1.0, 0.0, 0.0
    if objective == "margin":
        return 1.0, 1.0 / (players - 1), 0.0
    return 0.0, 0.0, 1.0


def _taken(position: Position) -> tuple[int, ...]:
    taken = position.taken_so_far
    if taken is None:
        raise NimmtError(TAKEN_NEEDED)
    return taken


def _weighted_goal(position: Position, objective: str) -> np.ndarray:
    goal = np.zeros(GOAL_SLOTS)
    goal[G_SEATS] = position.players
    goal[G_MINE], goal[G_OTHERS], goal[G_WIN] = cow_weights(objective, position.players)
    return goal


def _with_table(goal: np.ndarray, position: Position) -> np.ndarray:
    """``goal`` with a two-player game's table of player 1's share appended (GAME)."""
    table = utility_table(position)
    if table is None:
        return goal
    goal[G_TABLE_DIM] = table.shape[0]
    return np.concatenate([goal, table.ravel()])


def hidden_totals(goal: np.ndarray, position: Position, base: int) -> None:
    """Hidden seats in a game (win, two or more hidden hands): the kernels sort the hidden
    seats' cows (they are interchangeable, exact search's "hidden seats"), so their scores
    cannot stay by seat. Each hidden seat carries its score above the lowest hidden score
    with its cows (goal[G_TAKEN + seat]) and that lowest score as its score: the totals are
    the same, and hidden seats with equal totals are alike. The cows' key bits
    (statekey.TAKEN_BITS) bound how far apart the hidden scores may be."""
    hidden = position.hidden_players
    low = min(position.scores[p] for p in hidden)
    in_play = sum(COWS[c] for c in range(1, position.deck_size + 1) if c not in position.gone)
    for t, player in enumerate(hidden):
        goal[G_TAKEN + base + t] += position.scores[player] - low
        goal[G_SCORES + base + t] = low
    widest = int(max(goal[G_TAKEN + base + t] for t in range(len(hidden)))) + in_play
    if widest >= 1 << TAKEN_BITS:
        raise NimmtError(
            f"the hidden players' scores are too far apart for the win objective ({widest} "
            f"cows above the lowest hidden score would not fit the search's {TAKEN_BITS}-bit "
            "counts); give the hidden hands (p2=...) or use objective cows or margin")


def goal_array(position: Position, objective: str = "cows") -> np.ndarray:
    """Exact search's and Monte Carlo's ``goal`` array for ``objective``, player 1's cost
    by seat (0 player 1, then the known opponents, then the hidden hands). Win needs the
    cows taken so far (``Position.taken_so_far``); two or more hidden hands are told apart
    (exact search's "hidden seats"); a position in a game (``Position.in_game``) values the
    game instead: the scores by seat and, for two players, the table of the game's share."""
    goal = _weighted_goal(position, objective)
    if objective != "win":
        return goal
    taken = _taken(position)
    known = [p for p, h in enumerate(position.hands) if p and h is not None]
    seats = [0, *known, *position.hidden_players]
    for seat, player in enumerate(seats):
        goal[G_TAKEN + seat] = taken[player]
    if len(position.hidden_players) > 1:
        goal[G_HIDDEN_SEATS] = len(position.hidden_players)
    if not position.in_game:
        return goal
    check_game(position)
    for seat, player in enumerate(seats):
        goal[G_SCORES + seat] = position.scores[player]
    if len(position.hidden_players) > 1:
        hidden_totals(goal, position, len(known) + 1)
    return _with_table(goal, position)


def playout_goal(position: Position, objective: str = "cows") -> np.ndarray:
    """The playout bots' ``goal`` array for ``objective``, by player (seat = player): every
    player's cost is read from it (kernels.objective.playout_cost). Win needs the cows taken
    so far; in a game it compares the totals (LEAD) or reads the two-player game's table
    (GAME)."""
    goal = _weighted_goal(position, objective)
    if objective != "win":
        return goal
    for player, cows in enumerate(_taken(position)):
        goal[G_TAKEN + player] = cows
    if not position.in_game:
        return goal
    check_game(position)
    for player, score in enumerate(position.scores):
        goal[G_SCORES + player] = score
    return _with_table(goal, position)


def objective_value(objective: str, cost: float) -> float:
    """A kernel's cost as the objective's value: cows and margin as they are, win as the
    probability of winning (1 - cost)."""
    return 1.0 - cost if objective == "win" else cost


def turn_cost(objective: str, cows: Sequence[int]) -> float:
    """What a turn's cows (player 1 first) cost player 1 under ``objective`` (the goal's
    cow weights; win: nothing until the end)."""
    mine, others, _ = cow_weights(objective, len(cows))
    return cows[0] * mine - sum(cows[1:]) * others


def round_end_cost(objective: str, position: Position) -> float:
    """What the end of the round costs player 1 in the bots' Python valuations: win, minus
    its share of the win (share_at_end; ``as_costs`` makes win values costs by
    negating them); nothing for cows and margin."""
    if objective != "win":
        return 0.0
    return -share_at_end(position, _taken(position))


def as_costs(values: Mapping[int, float], objective: str) -> dict[int, float]:
    """Card values as costs (lower is better): win probabilities negated."""
    sign = -1.0 if objective == "win" else 1.0
    return {c: sign * v for c, v in values.items()}
