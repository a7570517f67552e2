"""The game's fixed numbers: the cards and their cows, the rows, the hand, the players.

A leaf: it imports nothing of nimmt, so the kernels and the reference engine that build
on it sit low in the import graph. ``rules`` offers the same names beside the variants
and checks. See ``docs/RULES.md``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["COWS", "DEFAULT_THRESHOLD", "HAND_SIZE", "MAX_PLAYERS", "MIN_PLAYERS", "ROW_COUNT",
           "ROW_LIMIT", "STANDARD_DECK", "card_cows"]

ROW_COUNT = 4
ROW_LIMIT = 5  # a row holds at most 5 cards; the sixth takes it
HAND_SIZE = 10
MIN_PLAYERS, MAX_PLAYERS = 2, 10
STANDARD_DECK = 104
DEFAULT_THRESHOLD = 66


def card_cows(card: int) -> int:
    """Cows (bull's heads) on one card.

    >>> [card_cows(c) for c in (1, 5, 10, 11, 55, 104)]
    [1, 2, 3, 5, 7, 1]
    """
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


# COWS[card] for card 0..104 (index 0 unused, 0 cows): the kernels' lookup table.
COWS = np.array([0] + [card_cows(c) for c in range(1, STANDARD_DECK + 1)], dtype=np.int64)


# COWS[card] for card 0..104 (index 0 unused, 0 cows): the kernels' lookup table.
COWS = np.array([0] + [card_cows(c) for c in range(1, STANDARD_DECK + 1)], dtype=np.int64)
