"""A position as the exact search's kernel reads it: who holds each card (``owner_array``,
the codes of ``solver/kernels/statekey.py``), how many opponent card sets a turn has, and
how many nodes an exact search from it resolves (``estimate_nodes``, which the auto method,
the bots and the trees read before they search).
"""
from __future__ import annotations

import math

import numpy as np

from ..kernels.statekey import OWNER_P1, OWNER_POOL
from .position import Position

__all__ = ["CHOICE_FACTOR", "ROW_FACTOR", "estimate_nodes", "opponent_set_count", "owner_array"]

ROW_FACTOR = 64  # estimate: distinct row tables per set of cards in play
CHOICE_FACTOR = 3  # estimate: row choices inside turns widen the tree (benchmarks/analysis.py)


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


def estimate_nodes(position: Position, cards_left: int | None = None) -> int:
    """An upper estimate of the joint actions the exact search resolves (from this
    position, or from one like it with ``cards_left`` cards in each hand).

    Turn by turn: the states reachable (the smaller of the plain tree's width and the
    number of distinct card sets times a row factor) times the joint actions of each.
    """
    k = position.cards_left if cards_left is None else cards_left
    known = sum(1 for h in position.hands[1:] if h is not None)
    hidden = len(position.hidden_players)
    pool = len(position.pool) - hidden * (position.cards_left - k)
    tree, total = 1, 0
    for d in range(k):  # d turns played
        kd = k - d
        joint = kd * kd ** known * math.comb(max(pool - hidden * d, 0), hidden)
        card_sets = math.comb(k, d) ** (1 + known) * math.comb(max(pool, 0), hidden * d)
        states = min(tree, card_sets * ROW_FACTOR)
        total += states * joint
        tree *= joint
    return CHOICE_FACTOR * total
