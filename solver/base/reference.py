"""The rules in short, obvious pure Python: the oracle for the kernels.

Never used on a hot path. Rows are lists of cards in table order; every
function returns new values and leaves its arguments alone. Written from
``docs/RULES.md`` without looking at ``engine.py``.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .deck import ROW_LIMIT, card_cows

__all__ = ["Option", "apply_option", "default_chooser", "option_cows", "options", "play_round",
           "random_chooser", "resolve_turn", "row_cows", "rule_following"]


def row_cows(row: Sequence[int]) -> int:
    return sum(card_cows(c) for c in row)


@dataclass(frozen=True)
class Option:
    """One way a card can go: ``kind`` is 'place', 'sixth' or 'take'."""

    row_index: int
    side: str  # 'right' or 'left' (a take replaces the row: 'right')
    kind: str


def options(rows: Sequence[Sequence[int]], card: int, professional: bool) -> list[Option]:
    """Every option the owner of ``card`` has; more than one means a choice."""
    ends = []  # (difference, row_index, side)
    for i, row in enumerate(rows):
        if row[-1] < card:
            ends.append((card - row[-1], i, "right"))
        if professional and card < row[0]:
            ends.append((row[0] - card, i, "left"))
    if not ends:
        return [Option(i, "right", "take") for i in range(len(rows))]
    best = min(d for d, _, _ in ends)
    return [Option(i, side, "sixth" if len(rows[i]) == ROW_LIMIT else "place")
            for d, i, side in ends if d == best]


def option_cows(rows, option: Option) -> int:
    return 0 if option.kind == "place" else row_cows(rows[option.row_index])


def rule_following(rows, opts: list[Option]) -> Option:
    """Fewest cows now; ties to the row whose last card is lowest."""
    return min(opts, key=lambda o: (option_cows(rows, o), rows[o.row_index][-1]))


def apply_option(rows, card: int, option: Option) -> tuple[list[list[int]], int]:
    """New rows and the cows the owner takes."""
    new = [list(r) for r in rows]
    i = option.row_index
    if option.kind == "place":
        if option.side == "right":
            new[i].append(card)
        else:
            new[i].insert(0, card)
        return new, 0
    cows = row_cows(new[i])
    new[i] = [card]
    return new, cows


Chooser = Callable[[int, list, int, list], Option]  # (player, rows, card, options)


def default_chooser(player, rows, card, opts):
    return rule_following(rows, opts)


def resolve_turn(rows, cards: Sequence[int], professional: bool,
                 chooser: Chooser = default_chooser, trace: list | None = None):
    """Place one turn's cards, lowest first. Returns (rows, cows per player).

    ``cards[p]`` is player p's card. ``chooser`` decides whenever a card
    has several options. ``trace``, if given, gets the rows after every card.
    """
    cows = [0] * len(cards)
    rows = [list(r) for r in rows]
    for player in sorted(range(len(cards)), key=lambda p: cards[p]):
        card = cards[player]
        opts = options(rows, card, professional)
        option = opts[0] if len(opts) == 1 else chooser(player, rows, card, opts)
        rows, taken = apply_option(rows, card, option)
        cows[player] += taken
        if trace is not None:
            trace.append([list(r) for r in rows])
    return rows, cows


def random_chooser(rng: random.Random) -> Chooser:
    return lambda player, rows, card, opts: rng.choice(opts)


def play_round(rows, hands: Sequence[Sequence[int]], professional: bool,
               pick: Callable[[int, list, list], int], chooser: Chooser = default_chooser):
    """Play hands out. ``pick(player, hand, rows)`` returns the card to play."""
    held = [list(h) for h in hands]
    total = [0] * len(held)
    while held[0]:
        cards = [pick(p, held[p], rows) for p in range(len(held))]
        for p, c in enumerate(cards):
            held[p].remove(c)
        rows, cows = resolve_turn(rows, cards, professional, chooser)
        total = [t + c for t, c in zip(total, cows)]
    return rows, total
