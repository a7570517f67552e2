"""The objective from a position: the ``goal`` arrays the kernels read
(``solver/kernels/objective.py`` holds their layout and the cost they encode) and the
same cost for the bots that value turns in Python.

Objectives: ``cows`` (player 1's cows), ``margin`` (player 1's cows minus the mean of
the others'), ``win`` (player 1's share of the fewest cows at the end of the round, or in
a game of the game: ``solver/positions/gamewin.py``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..base.errors import NimmtError
from ..base.rules import COWS
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
from . import gamewin
from .position import Position

__all__ = ["OBJECTIVES", "as_costs", "check_objective", "cow_weights", "goal_array",
           "objective_value", "playout_goal", "round_end_cost", "turn_cost"]

TAKEN_NEEDED = ("the win objective needs each player's cows taken so far this round: add "
                "taken=... (player 1 first, e.g. taken=3,0)")


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
    table = gamewin.utility_table(position)
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
    gamewin.check_game(position)
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
    gamewin.check_game(position)
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
    its share of the win (gamewin.share_at_end; ``as_costs`` makes win values costs by
    negating them); nothing for cows and margin."""
    if objective != "win":
        return 0.0
    return -gamewin.share_at_end(position, _taken(position))


def as_costs(values: Mapping[int, float], objective: str) -> dict[int, float]:
    """Card values as costs (lower is better): win probabilities negated."""
    sign = -1.0 if objective == "win" else 1.0
    return {c: sign * v for c, v in values.items()}
