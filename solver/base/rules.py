"""The rules as data: variants, placements, the cow table, deck sizes.

Everything here is plain Python and numpy, built once at import. See
``docs/RULES.md`` for the rules these constants encode.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import NimmtError
from .names import Model, Placement, Variant, values

__all__ = ["COWS", "DEFAULT_THRESHOLD", "ECHO_LIMIT", "HAND_SIZE", "MAX_PLAYERS", "MIN_PLAYERS",
           "MODELS", "PLACEMENTS", "ROW_COUNT", "ROW_LIMIT", "STANDARD_DECK", "VARIANTS",
           "NimmtError", "Rules", "card_cows", "check_placement", "check_players",
           "check_variant", "clip", "cut", "deck_size", "game_over", "plural", "ranks",
           "win_shares"]

# The names as plain strings, from ``names`` (importable without the searches and numba).
VARIANTS = values(Variant)
PLACEMENTS = values(Placement)
MODELS = values(Model)  # the opponent models (DESIGN.md section 3)
ROW_COUNT = 4
ROW_LIMIT = 5  # a row holds at most 5 cards; the sixth takes it
HAND_SIZE = 10
MIN_PLAYERS, MAX_PLAYERS = 2, 10
STANDARD_DECK = 104
DEFAULT_THRESHOLD = 66


ECHO_LIMIT = 40  # characters of the user's text an error message repeats


def cut(text, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis: error messages never echo a
    10 kB argument whole."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."


def clip(text, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted for an error message (its repr), cut as by ``cut``."""
    text = str(text)
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` with thousands separators and ``word``, plural unless it is 1.

    >>> plural(1, "cow"), plural(2, "cow"), plural(12345, "game"), plural(1, "cows", "cows")
    ('1 cow', '2 cows', '12,345 games', '1 cows')
    """
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


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


def deck_size(variant: str, players: int) -> int:
    """Highest card in play: 104 for standard, 10n+4 for tactical and logic."""
    if variant == Variant.STANDARD:
        return STANDARD_DECK
    return 10 * players + 4


def check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise NimmtError(
            f"players={players} is outside 2..10; give a player count from 2 to 10")


def check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise NimmtError(
            f"unknown variant {clip(variant)}; use one of {', '.join(VARIANTS)}")


def check_placement(placement: str) -> None:
    if placement not in PLACEMENTS:
        raise NimmtError(
            f"unknown placement {clip(placement)}; use one of {', '.join(PLACEMENTS)}")


@dataclass(frozen=True)
class Rules:
    """The table's agreement: deck, player count, placement, end of game."""

    variant: str = "tactical"
    players: int = 2
    placement: str = "normal"
    threshold: int = DEFAULT_THRESHOLD
    one_round: bool = False

    def __post_init__(self) -> None:
        check_variant(self.variant)
        check_players(self.players)
        check_placement(self.placement)
        if self.threshold < 1:
            raise NimmtError(f"threshold={self.threshold} must be at least 1; the usual is 66")

    @property
    def deck_size(self) -> int:
        return deck_size(self.variant, self.players)

    def game_over(self, totals: Sequence[int]) -> bool:
        """Whether the game ends after a round that leaves these totals (``game_over``; a
        one-round game ends after its round)."""
        return self.one_round or game_over(totals, self.threshold)

    @property
    def professional(self) -> bool:
        return self.placement == Placement.PROFESSIONAL


def ranks(totals) -> list[int]:
    """Final ranks, 1 = best (fewest cows); equal totals share a rank.

    >>> ranks([12, 7, 12, 30])
    [2, 1, 2, 4]
    """
    return [1 + sum(1 for u in totals if u < t) for t in totals]


def game_over(totals: Sequence[int] | np.ndarray, threshold: int = DEFAULT_THRESHOLD
              ) -> bool:
    """The game ends after the round in which some player's total reaches the threshold
    (docs/RULES.md). The kernels' games test the same (``engine.game_ends``).

    >>> game_over([65, 12], 66), game_over([66, 12], 66)
    (False, True)
    """
    return bool(max(totals) >= threshold)


def win_shares(totals: Sequence[int] | np.ndarray) -> np.ndarray:
    """Each player's share of the win from the cows at the end (the last axis is the
    players; a game's totals, a round's cows): 1/w for each of the w players with the
    fewest, 0 for the others. The searches' kernels read the same rule from their goal
    array (``solver/kernels/objective.py``'s ``win_share``).

    >>> win_shares([3, 5]).tolist(), win_shares([4, 4, 9]).tolist()
    ([1.0, 0.0], [0.5, 0.5, 0.0])
    >>> win_shares([[7, 2], [1, 1]]).tolist()
    [[0.0, 1.0], [0.5, 0.5]]
    """
    totals = np.asarray(totals)
    winners = totals == totals.min(axis=-1, keepdims=True)
    return winners / winners.sum(axis=-1, keepdims=True)
