"""solver/kernels/turns.py against the reference engine, on one- and two-card states.

Rows are dealt from a small deck so that low cards, sixth cards and professional ties
come up often; every state is checked for every option.
"""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.rules import ROW_COUNT
from nimmt.solver.kernels import engine, turns
from nimmt.solver.kernels.engine import END_TAKE, END_TIE, NO_CHOICE, SIDE_LEFT, SIDE_RIGHT

DECK = 34  # small: lows, sixths and ties are common


def deal_rows(rng: random.Random, cards_after: int):
    """Four ascending rows of 1..5 cards and ``cards_after`` other cards, from 1..DECK."""
    lengths = [rng.randint(1, 5) for _ in range(ROW_COUNT)]
    drawn = rng.sample(range(1, DECK + 1), sum(lengths) + cards_after)
    rows, at = [], 0
    for n in lengths:
        rows.append(sorted(drawn[at:at + n]))
        at += n
    return rows, drawn[at:]


def states(count: int, cards_after: int, seed: int = 11):
    rng = random.Random(seed)
    for i in range(count):
        rows, cards = deal_rows(rng, cards_after)
        yield rows, cards, bool(i % 2)


def outcomes_ref(rows, card, professional):
    """Every option's (rows, cows) by the reference, as row tables for comparison."""
    return sorted((engine.row_table(new).tobytes(), cows) for new, cows in
                  (reference.apply_option(rows, card, o)
                   for o in reference.options(rows, card, professional)))


def played(table, card, professional, option):
    new = table.copy()
    cows = turns.play_option(new, card, professional, option)
    return new, int(cows)


# ---------------------------------------------------------------- one card

@pytest.mark.parametrize("rows, card, professional, count", [
    ([[3], [20], [30], [40]], 2, False, 4),        # below every row: a take
    ([[3], [20], [30], [40]], 2, True, 1),         # professional: the left end of row 1
    ([[3], [20], [30], [40]], 25, True, 2),        # 5 above 20 and 5 below 30: a tie
    ([[3], [20], [30], [40]], 25, False, 1),
])
def test_option_count_pinned(rows, card, professional, count):
    assert turns.option_count(engine.row_table(rows), card, professional) == count
    assert turns.options_of(rows, card, professional) == count


def test_option_count_matches_reference():
    seen = set()
    for rows, (card,), professional in states(400, 1):
        count = turns.option_count(engine.row_table(rows), card, professional)
        assert count == len(reference.options(rows, card, professional))
        seen.add(count)
    assert seen == {1, 2, 4}


def test_kind_option_count():
    assert turns.kind_option_count(END_TAKE) == ROW_COUNT
    assert turns.kind_option_count(END_TIE) == 2
    assert turns.kind_option_count(engine.END_RIGHT) == 1
    assert turns.kind_option_count(engine.END_LEFT) == 1


def test_option_choice():
    assert turns.option_choice(END_TAKE, 2) == (2, NO_CHOICE)
    assert turns.option_choice(END_TIE, 1) == (NO_CHOICE, SIDE_LEFT)
    assert turns.option_choice(engine.END_RIGHT, 0) == (NO_CHOICE, NO_CHOICE)
    for kind in (END_TAKE, END_TIE, engine.END_LEFT):
        assert turns.option_choice(kind, turns.RULE_OPTION) == (NO_CHOICE, NO_CHOICE)


def test_play_option_every_option_matches_reference():
    """The options played by the kernel are exactly the reference's, one for one."""
    for rows, (card,), professional in states(400, 1):
        table = engine.row_table(rows)
        count = turns.option_count(table, card, professional)
        got = sorted((t.tobytes(), c) for t, c in
                     (played(table, card, professional, o) for o in range(count)))
        assert got == outcomes_ref(rows, card, professional), (rows, card, professional)


def test_play_option_numbering():
    """A take's option is the row taken; a tie's option is the side joined."""
    rows = [[3], [20], [30], [40]]
    for o in range(ROW_COUNT):
        new, cows = played(engine.row_table(rows), 2, False, o)
        want = [list(r) for r in rows]
        want[o] = [2]
        assert (new == engine.row_table(want)).all() and cows == reference.row_cows(rows[o])
    right, _ = played(engine.row_table(rows), 25, True, SIDE_RIGHT)
    left, _ = played(engine.row_table(rows), 25, True, SIDE_LEFT)
    assert (right == engine.row_table([[3], [20, 25], [30], [40]])).all()
    assert (left == engine.row_table([[3], [20], [25, 30], [40]])).all()


def test_rule_option_matches_reference_rule_following():
    for rows, (card,), professional in states(400, 1, seed=5):
        opts = reference.options(rows, card, professional)
        new, cows = reference.apply_option(rows, card, reference.rule_following(rows, opts))
        table, got = played(engine.row_table(rows), card, professional, turns.RULE_OPTION)
        assert (table == engine.row_table(new)).all() and got == cows


def test_option_choices():
    rows = [[3], [20], [30], [40]]
    assert turns.option_choices(rows, 2, False) == tuple((r, -1) for r in range(4))
    assert turns.option_choices(rows, 25, True) == ((-1, 0), (-1, 1))
    assert turns.option_choices(rows, 25, False) == ((-1, -1),)


def test_option_choices_drive_resolve_turn_like_play_option():
    for rows, (card,), professional in states(200, 1, seed=3):
        table = engine.row_table(rows)
        for o, (take, tie) in enumerate(turns.option_choices(rows, card, professional)):
            outcome = engine.resolve_turn(rows, [card], professional, [take], [tie])
            new, cows = played(table, card, professional, o)
            assert (new == engine.row_table(outcome.rows)).all() and cows == outcome.cows[0]


# ---------------------------------------------------------------- two cards

def test_sort_turn_pairs():
    cards = np.array([30, 4, 17, 9, 0], np.int64)
    owners = np.array([1, 2, 3, 15, 7], np.int64)
    turns.sort_turn(cards, owners, 4)  # the fifth entry is not part of the turn
    assert cards.tolist() == [4, 9, 17, 30, 0]
    assert owners.tolist() == [2, 15, 3, 1, 7]
    one = np.array([5], np.int64)
    turns.sort_turn(one, one.copy(), 1)
    assert one.tolist() == [5]


def test_two_card_turns_match_reference():
    """Both cards of a turn, lowest first, every option of each: the same set of
    (rows, cows per owner) as the reference with every chooser."""
    for rows, pair, professional in states(250, 2, seed=7):
        cards = np.array(pair, np.int64)
        owners = np.array([0, 1], np.int64)
        turns.sort_turn(cards, owners, 2)
        assert cards.tolist() == sorted(pair)
        got = set()
        table0 = engine.row_table(rows)
        for o1 in range(turns.option_count(table0, cards[0], professional)):
            t1 = table0.copy()
            c1 = turns.play_option(t1, cards[0], professional, o1)
            for o2 in range(turns.option_count(t1, cards[1], professional)):
                t2 = t1.copy()
                c2 = turns.play_option(t2, cards[1], professional, o2)
                cows = [0, 0]
                cows[owners[0]] += c1
                cows[owners[1]] += c2
                got.add((t2.tobytes(), tuple(cows)))
        want = set()
        for first in reference.options(rows, min(pair), professional):
            mid, c1 = reference.apply_option(rows, min(pair), first)
            for second in reference.options(mid, max(pair), professional):
                end, c2 = reference.apply_option(mid, max(pair), second)
                cows = [0, 0]
                cows[pair.index(min(pair))] += c1
                cows[pair.index(max(pair))] += c2
                want.add((engine.row_table(end).tobytes(), tuple(cows)))
        assert got == want, (rows, pair, professional)


def test_two_card_rule_turns_match_reference_resolve_turn():
    for rows, pair, professional in states(250, 2, seed=9):
        cards = np.array(pair, np.int64)
        owners = np.array([0, 1], np.int64)
        turns.sort_turn(cards, owners, 2)
        table = engine.row_table(rows)
        cows = [0, 0]
        for a in range(2):
            cows[owners[a]] += turns.play_option(table, cards[a], professional,
                                                 turns.RULE_OPTION)
        new, want = reference.resolve_turn(rows, pair, professional)
        assert (table == engine.row_table(new)).all() and cows == want


def test_every_kind_comes_up():
    kinds = set()
    for rows, pair, professional in states(250, 2, seed=7):
        for card in pair:
            kinds.add(int(engine.find_end(engine.row_table(rows), card, professional)[0]))
    assert kinds == {engine.END_RIGHT, engine.END_LEFT, END_TIE, END_TAKE}


@pytest.mark.parametrize("professional", [False, True])
def test_sixth_card_options(professional):
    rows = [[1, 2, 3, 4, 5], [20], [30], [40]]
    table, cows = played(engine.row_table(rows), 6, professional, 0)
    assert cows == sum(reference.row_cows([c]) for c in range(1, 6))
    assert (table == engine.row_table([[6], [20], [30], [40]])).all()
    assert list(itertools.chain(*rows))  # the rows themselves are left alone


def test_card_options_and_play_found_option_agree_with_play_option():
    for rows, (card,), professional in states(200, 1, seed=13):
        table = engine.row_table(rows)
        count, kind, row_a, row_b = turns.card_options(table, card, professional)
        assert count == turns.option_count(table, card, professional)
        for o in [turns.RULE_OPTION, *range(count)]:
            found = table.copy()
            cows = turns.play_found_option(found, card, kind, row_a, row_b, o)
            new, want = played(table, card, professional, o)
            assert (found == new).all() and cows == want


def test_sort_turn_row_sorts_one_row_like_sort_turn():
    rng = random.Random(2)
    cards = np.array([rng.sample(range(1, 105), 6) for _ in range(3)], np.int64)
    owners = np.arange(18, dtype=np.int64).reshape(3, 6)
    want_cards, want_owners = cards[1].copy(), owners[1].copy()
    turns.sort_turn(want_cards, want_owners, 5)
    before = cards.copy(), owners.copy()
    turns.sort_turn_row(cards, owners, 1, 5)
    assert cards[1].tolist() == want_cards.tolist() and owners[1].tolist() == want_owners.tolist()
    for r in (0, 2):  # other rows untouched
        assert (cards[r] == before[0][r]).all() and (owners[r] == before[1][r]).all()
