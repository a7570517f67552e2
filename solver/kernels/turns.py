"""Turn kernels: a turn's cards in order, the options a card's owner has, one option played.

Every search resolves a turn the same way: sort the turn's cards (``sort_turn``), then for
each card, lowest first, ask how many options its owner has (``option_count``) and play one
(``play_option``), branching where the owner chooses. The rule steps themselves (where a
card goes, the sixth card, the rule-following choice) live in ``engine`` (``find_end``,
``place_at_end``); this module only composes them.

Options of a card at a row table, numbered 0..count-1::

    find_end kind   count       option o means
    END_RIGHT/LEFT  1           0: the only end
    END_TIE         2           o = tie_side: 0 right end (SIDE_RIGHT), 1 left end (SIDE_LEFT)
    END_TAKE        ROW_COUNT   o = take_row: take row o (0..3)

``RULE_OPTION`` (-1) is the rule-following choice of docs/RULES.md (fewest cows now, ties to
the row whose last card is lowest), whatever the count.

``options_of`` and ``option_choices`` are the Python face for ``tree`` and ``line``.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..base.rules import ROW_COUNT
from .engine import END_TAKE, END_TIE, NO_CHOICE, find_end, jit_inline, place_at_end, row_table

RULE_OPTION = -1  # play_option: the rule-following choice
TIE_OPTIONS = 2   # a professional tie: right end or left end


@jit_inline
def kind_option_count(kind):
    """How many options a card whose ``find_end`` kind is ``kind`` gives its owner:
    ROW_COUNT for a take, 2 for a professional tie, else 1."""
    if kind == END_TAKE:
        return ROW_COUNT
    return TIE_OPTIONS if kind == END_TIE else 1


@jit_inline
def option_count(table, card, professional):
    """How many options the owner of ``card`` has at this row table: 1, 2 (a professional
    tie) or ROW_COUNT (no legal end: a row to take)."""
    return kind_option_count(find_end(table, card, professional)[0])


@jit_inline
def option_choice(kind, option):
    """Option ``option`` of a card of ``find_end`` kind ``kind`` as the engine's
    (take_row, tie_side); RULE_OPTION, or an option of a card without a choice, is
    (NO_CHOICE, NO_CHOICE): the rule-following choice."""
    if option == RULE_OPTION:
        return NO_CHOICE, NO_CHOICE
    if kind == END_TAKE:
        return option, NO_CHOICE
    if kind == END_TIE:
        return NO_CHOICE, option
    return NO_CHOICE, NO_CHOICE


@jit_inline
def card_options(table, card, professional):
    """(option count, kind, row_a, row_b): ``option_count`` and the ``find_end`` it came
    from, for ``play_found_option`` (one search of the rows for both)."""
    kind, row_a, row_b = find_end(table, card, professional)
    return kind_option_count(kind), kind, row_a, row_b


@jit_inline
def play_found_option(table, card, kind, row_a, row_b, option):
    """``play_option`` for a card whose ``find_end`` (kind, row_a, row_b) is known."""
    take_row, tie_side = option_choice(kind, option)
    return place_at_end(table, card, kind, row_a, row_b, take_row, tie_side)[2]


@jit_inline
def play_option(table, card, professional, option):
    """Play ``card`` on ``table`` in place by option ``option`` (0..option_count-1, or
    RULE_OPTION); returns the cows its owner takes."""
    kind, row_a, row_b = find_end(table, card, professional)
    return play_found_option(table, card, kind, row_a, row_b, option)


@jit_inline
def sort_turn(cards, owners, count):
    """Sort a turn's first ``count`` (card, owner) pairs by card, ascending, in place:
    the order the cards are placed in. Insertion sort (a turn has at most 10 cards)."""
    for a in range(1, count):
        card, owner = cards[a], owners[a]
        j = a - 1
        while j >= 0 and cards[j] > card:
            cards[j + 1], owners[j + 1] = cards[j], owners[j]
            j -= 1
        cards[j + 1], owners[j + 1] = card, owner


@jit_inline
def sort_turn_row(cards, owners, row, count):
    """``sort_turn`` for turns kept as rows of 2-D arrays (a search's frames): sorts
    (cards[row, a], owners[row, a]) for a < count. Indexing the rows in place measured
    10-15% faster in exact search than sorting row views with ``sort_turn``."""
    for a in range(1, count):
        card, owner = cards[row, a], owners[row, a]
        j = a - 1
        while j >= 0 and cards[row, j] > card:
            cards[row, j + 1], owners[row, j + 1] = cards[row, j], owners[row, j]
            j -= 1
        cards[row, j + 1], owners[row, j + 1] = card, owner


# ---------------------------------------------------------------- Python API

def options_of(rows: Sequence[Sequence[int]], card: int, professional: bool) -> int:
    """How many options the owner of ``card`` has on these rows: 1, 2 (a professional tie)
    or 4 (a low card: a row of its owner's choice).

    >>> options_of([[3], [20], [30], [40]], 2, False)
    4
    """
    return int(option_count(row_table(rows), card, professional))


def option_choices(rows: Sequence[Sequence[int]], card: int,
                   professional: bool) -> tuple[tuple[int, int], ...]:
    """Each option of ``card`` on these rows as (take_row, tie_side) for
    ``engine.resolve_turn`` / ``Position.apply_turn`` (-1: no choice), in option order.

    >>> option_choices([[3], [20], [30], [40]], 25, True)
    ((-1, 0), (-1, 1))
    """
    table = row_table(rows)
    kind = int(find_end(table, card, professional)[0])
    return tuple((int(t), int(s)) for t, s in
                 (option_choice(kind, o) for o in range(int(kind_option_count(kind)))))

