"""Key soundness (solver.kernels.statekey): states with equal keys have equal values.

The values are the equilibrium's (player 1's cows minus player 2's, both hands known),
by test_nash's brute force on solver.base.reference. Pairs of states with equal keys come
two ways: relabelling card values keeping their order and cows (the key must not
change), and random small states grouped by key (the abstractions — ranks, dead rows
by cows, lengths counted down — make different states collide)."""
from __future__ import annotations

import itertools
from collections import defaultdict
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nimmt.solver.base.rules import COWS, ROW_LIMIT, STANDARD_DECK
from nimmt.solver.kernels.engine import row_table
from nimmt.solver.kernels.statekey import (
    L_WIDTH,
    OWNER_BITS_ANY,
    OWNER_BITS_TWO,
    key_layout,
    state_key,
    two_hands_layout,
)

from naive import NashBrute as Brute

TOL = 1e-9
LAYOUTS = {"two": lambda pro: two_hands_layout(pro),
           # the equilibrium's layout before its cards were paired (3 words)
           "two-unpaired": lambda pro: key_layout(20, OWNER_BITS_TWO, pro),
           "any": lambda pro: key_layout(STANDARD_DECK, OWNER_BITS_ANY, pro),
           # the exact search's: rows not merged (tests/kernels/test_exact_memo.py)
           "exact": lambda pro: key_layout(STANDARD_DECK, OWNER_BITS_ANY, pro, merge_rows=False)}


def brute_value(rows, h1, h2, professional):
    position = SimpleNamespace(players=2, all_known=True, professional=professional,
                               rows=rows, hands=(tuple(h1), tuple(h2)))
    return Brute(position).root_value()


def key_of(rows, h1, h2, layout):
    return state_key(row_table(rows), list(h1) + list(h2), [1] * len(h1) + [2] * len(h2),
                     layout)


@st.composite
def states(draw, deck=30, k_max=3):
    """Rows of 1..5 cards and two hands of k cards from 1..deck, all distinct."""
    k = draw(st.integers(1, k_max))
    lengths = draw(st.lists(st.integers(1, ROW_LIMIT), min_size=4, max_size=4))
    need = sum(lengths) + 2 * k
    deck = max(deck, need + 2)
    cards = draw(st.permutations(range(1, deck + 1)))[:need]
    rows, at = [], 0
    for n in lengths:
        rows.append(sorted(cards[at:at + n]))
        at += n
    return rows, sorted(cards[at:at + k]), sorted(cards[at + k:at + 2 * k])


def relabel(rows, h1, h2, rng):
    """The same state with card values changed, keeping their order and each card's cows:
    every card moves to a random value of the same cows, in order, up to 104."""
    used = sorted({c for r in rows for c in r} | set(h1) | set(h2))
    upper, top = [], STANDARD_DECK + 1  # the highest value each card can take
    for c in reversed(used):
        top = max(v for v in range(1, top) if COWS[v] == COWS[c])
        upper.append(top)
    upper.reverse()
    new, last = {}, 0
    for c, high in zip(used, upper):
        choices = [v for v in range(last + 1, high + 1) if COWS[v] == COWS[c]]
        new[c] = last = int(rng.choice(choices[:3]))
    return ([[new[c] for c in r] for r in rows], [new[c] for c in h1], [new[c] for c in h2])


@pytest.mark.parametrize("layout", ["two", "any", "exact"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(), seed=st.integers(0, 2**32 - 1))
def test_relabelled_states_share_key_and_value(layout, state, seed):
    rows, h1, h2 = state
    rows2, g1, g2 = relabel(rows, h1, h2, np.random.default_rng(seed))
    lay = LAYOUTS[layout](False)
    assert key_of(rows, h1, h2, lay) == key_of(rows2, g1, g2, lay)
    assert brute_value(rows, h1, h2, False) == pytest.approx(
        brute_value(rows2, g1, g2, False), abs=TOL)


def colliding_groups(placement_pro, layout, count, seed, deck, k_max):
    rng = np.random.default_rng(seed)
    groups = defaultdict(list)
    lay = LAYOUTS[layout](placement_pro)
    for _ in range(count):
        k = int(rng.integers(1, k_max + 1))
        lengths = rng.integers(1, ROW_LIMIT + 1, size=4)
        need = int(lengths.sum()) + 2 * k
        cards = [int(c) for c in rng.permutation(np.arange(1, max(deck, need + 2) + 1))[:need]]
        rows, at = [], 0
        for n in lengths:
            rows.append(sorted(cards[at:at + n]))
            at += n
        h1, h2 = sorted(cards[at:at + k]), sorted(cards[at + k:at + 2 * k])
        groups[key_of(rows, h1, h2, lay)].append((rows, h1, h2))
    return [g for g in groups.values() if len(g) > 1
            and len({(tuple(map(tuple, r)), tuple(a), tuple(b)) for r, a, b in g}) > 1]


@pytest.mark.parametrize("layout", ["two", "any"])
def test_random_colliding_states_have_equal_values(layout):
    """Small decks and one or two cards each: many different states share a key (dead
    rows, counted-down lengths, ranks); every group has one value."""
    groups = (colliding_groups(False, layout, 3000, 11, deck=16, k_max=1)
              + colliding_groups(False, layout, 4000, 12, deck=12, k_max=2))
    assert len(groups) >= 60
    checked = 0
    for group in groups:
        values = [brute_value(r, a, b, False) for r, a, b in group[:4]]
        assert max(values) - min(values) <= TOL, group
        checked += 1
    assert checked == len(groups)


def test_dead_rows_and_lengths_collide():
    """The abstractions on purpose: two dead rows swapped in cows order, and a long row
    that no card can fill, give one key."""
    lay = two_hands_layout(False)
    a = key_of([[3], [10, 11], [20, 21], [30, 31, 32]], [5], [12], lay)
    b = key_of([[3], [7, 11, 13, 14], [20, 21, 23], [30, 31]], [5], [16], lay)
    assert a == b
    exact = LAYOUTS["exact"](False)  # rows not merged: the lengths and the order count
    assert key_of([[3], [10, 11], [20, 21], [30, 31, 32]], [5], [12], exact) != key_of(
        [[3], [7, 11, 13, 14], [20, 21, 23], [30, 31]], [5], [16], exact)
    assert key_of([[3], [10], [20, 21], [30]], [5], [12], exact) != key_of(
        [[3], [10, 11], [20], [30]], [5], [12], exact)
    # a row five cards reach keeps its length
    c = key_of([[3], [4, 6], [20], [30]], [7, 8, 9], [11, 12, 14], lay)
    d = key_of([[3], [6], [20], [30]], [7, 8, 9], [11, 12, 14], lay)
    assert c != d


@pytest.mark.parametrize("pro", [False, True])
def test_different_owners_differ(pro):
    for layout in ("two", "any", "exact"):
        lay = LAYOUTS[layout](pro)
        rows = [[3], [10], [20], [30]]
        assert key_of(rows, [5], [12], lay) != key_of(rows, [12], [5], lay)


def test_professional_keys_are_exact():
    """Professional placement compares distances: only the same state gives the same key."""
    lay = two_hands_layout(True)
    rows = [[4, 8], [12, 13], [16, 18], [22]]
    assert key_of(rows, [10, 20, 1], [14, 3, 24], lay) == key_of(
        [rows[2], rows[0], rows[3], rows[1]], [20, 1, 10], [3, 24, 14], lay)
    assert key_of(rows, [10, 20, 1], [14, 3, 24], lay) != key_of(
        [[4, 8], [12, 13], [16, 17], [22]], [10, 20, 1], [14, 3, 24], lay)


def test_widths():
    assert [int(LAYOUTS["two"](p)[L_WIDTH]) for p in (False, True)] == [2, 5]
    assert int(key_layout(STANDARD_DECK, OWNER_BITS_ANY, False)[L_WIDTH]) == 14
    assert int(key_layout(20, OWNER_BITS_TWO, False)[L_WIDTH]) == 3


def test_general_key_holds_a_whole_deck():
    """A hidden pool: every card in play, owners up to 15 (the pool), no key word
    overflows into another field: distinct owner lists give distinct keys."""
    lay = key_layout(STANDARD_DECK, OWNER_BITS_ANY, False)
    rows = row_table([[1], [2], [3], [4]])
    cards = list(range(5, 105))
    owners = [15] * len(cards)
    base = state_key(rows, cards, owners, lay)
    assert all(w != 0 for w in base[:2])
    seen = {base}
    for i in itertools.islice(range(len(cards)), 0, None, 7):
        changed = owners.copy()
        changed[i] = 3
        seen.add(state_key(rows, cards, changed, lay))
    assert len(seen) == 1 + len(range(0, len(cards), 7))


SMALL_DECK = [*range(5, 25), 55]  # every cow count (55: 7 cows), so kinds repeat often


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_paired_cards_tell_what_single_fields_tell(data):
    """Paired keys (two cards a 7-bit field) are equal exactly when the unpaired keys
    are, and exactly when the cards in play have the same (owner, cows) in order."""
    rows = row_table([[1], [2], [3], [4]])
    paired, single = two_hands_layout(False), key_layout(20, OWNER_BITS_TWO, False)
    n = data.draw(st.integers(1, 20))
    states = []
    for _ in range(2):
        values = sorted(data.draw(st.lists(st.sampled_from(SMALL_DECK), min_size=n,
                                           max_size=n, unique=True)))
        owners = data.draw(st.lists(st.sampled_from([1, 2]), min_size=n, max_size=n))
        states.append((values, owners))
    (a, oa), (b, ob) = states
    same_kinds = [(o, COWS[c]) for c, o in zip(a, oa)] == [(o, COWS[c]) for c, o in zip(b, ob)]
    same_paired = state_key(rows, a, oa, paired) == state_key(rows, b, ob, paired)
    same_single = state_key(rows, a, oa, single) == state_key(rows, b, ob, single)
    assert same_paired == same_single == same_kinds
    assert state_key(rows, a, oa, paired)[0] != 0
