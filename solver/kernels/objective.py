"""The objective's cost, one encoding for every search: exact search, Monte Carlo and the
playout bots all read the same ``goal`` array (float, named slots ``G_*``) that
``solver/positions/objective.py`` builds from a position.

What a player minimises is a *cost* made of two parts:

- per cow taken: ``+ goal[G_MINE]`` for its own, ``- goal[G_OTHERS]`` for anyone else's
  (cows: 1 and 0; margin: 1 and 1 / (players - 1); win: 0 and 0);
- at the end of the round, ``goal[G_WIN]`` x (1 - its share of the win) over the seats'
  cows ``held`` (win: 1). The share is of the fewest totals, a seat's total being
  ``goal[G_SCORES + seat]`` + its cows (the round's win: scores 0), or, when
  ``goal[G_TABLE_DIM]`` = d > 0 (a two-player game, ``solver/positions/objective.py``),
  ``goal[G_TABLE + d x seat 0's cows + seat 1's]``: the table of seat 0's share of the
  game (ended, or its continuation) appended to the goal array.

Seats' cows taken before the search starts are ``goal[G_TAKEN + seat]``; only win sets
them. Exact search and Monte Carlo value player 1 (seat 0; the other seats are its known
opponents, then the hidden hands, told apart when ``goal[G_HIDDEN_SEATS]`` > 0); the
playout bots give every player its own cost (seat = player).
"""
from __future__ import annotations

from ..base.rules import MAX_PLAYERS
from .engine import jit, jit_inline

__all__ = ["GOAL_SLOTS", "G_HIDDEN_SEATS", "G_MINE", "G_OTHERS", "G_SCORES", "G_SEATS",
           "G_TABLE", "G_TABLE_DIM", "G_TAKEN", "G_WIN", "OBJECTIVES", "cost_of_cows",
           "end_cost", "playout_cost", "win_share"]

OBJECTIVES = ("cows", "margin", "win")
G_MINE, G_OTHERS, G_WIN, G_SEATS, G_TAKEN = range(5)
G_HIDDEN_SEATS = G_TAKEN + MAX_PLAYERS  # hidden seats told apart (win, 2+ hidden hands), or 0
G_SCORES = G_HIDDEN_SEATS + 1  # + seat: the game's score before this round
G_TABLE_DIM = G_SCORES + MAX_PLAYERS
G_TABLE = G_TABLE_DIM + 1
GOAL_SLOTS = G_TABLE  # without a table


@jit_inline
def cost_of_cows(goal, mine, cows):
    """The cost of ``cows`` taken by player 1 (mine) or by someone else."""
    return cows * goal[G_MINE] if mine else -cows * goal[G_OTHERS]


@jit_inline
def win_share(goal, held, p):
    """Seat ``p``'s share of the win when the round ends with ``held`` cows by seat: the
    table's (G_TABLE_DIM > 0; two seats), else 1 / w when it is one of the w seats with
    the fewest totals (score, G_SCORES, plus cows), else 0."""
    dim = int(goal[G_TABLE_DIM])
    if dim > 0:
        share = goal[G_TABLE + dim * held[0] + held[1]]
        return share if p == 0 else 1.0 - share
    seats = int(goal[G_SEATS])
    fewest, winners = held[p] + goal[G_SCORES + p], 0
    for s in range(seats):
        fewest = min(fewest, held[s] + goal[G_SCORES + s])
    for s in range(seats):
        winners += held[s] + goal[G_SCORES + s] == fewest
    return 1.0 / winners if held[p] + goal[G_SCORES + p] == fewest else 0.0


@jit_inline
def end_cost(goal, held):
    """Player 1's cost at the end of the round: goal[G_WIN] x (1 - its ``win_share``)."""
    if goal[G_WIN] == 0.0:
        return 0.0
    return goal[G_WIN] * (1.0 - win_share(goal, held, 0))


@jit
def playout_cost(goal, got, p):
    """Player ``p``'s cost at the end of a playout in which every player's cows went from
    goal[G_TAKEN + player] to ``got[player]``: its cows since then at G_MINE, the others'
    at -G_OTHERS, and the end of the round's G_WIN x (1 - its ``win_share``)."""
    own, others = 0.0, 0.0
    for q in range(got.shape[0]):
        cows = got[q] - goal[G_TAKEN + q]
        if q == p:
            own += cows
        else:
            others += cows
    cost = own * goal[G_MINE] - others * goal[G_OTHERS]
    if goal[G_WIN] != 0.0:
        cost += goal[G_WIN] * (1.0 - win_share(goal, got, p))
    return cost
