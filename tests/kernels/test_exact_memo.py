"""The exact search's memo: the shared state key (solver.kernels.statekey, rows not merged) and
transposition table (solver.kernels.table), doubled inside the kernel, counted in real bytes.

Key soundness for the exact search's models: random small states (three players, one
hand known, one hidden: a pool) grouped by their memo key; every group has one value
by tests/naive.py's brute force (``card_values``, on solver.base.reference)."""
from __future__ import annotations

import random
from collections import defaultdict
from types import SimpleNamespace

import numpy as np
import pytest

from nimmt.solver.base.errors import MemoryExceeded
from nimmt.solver.base.rules import COWS, ROW_COUNT, STANDARD_DECK, Rules
from nimmt.solver.kernels import exactsearch
from nimmt.solver.kernels.engine import row_table
from nimmt.solver.kernels.statekey import (
    L_MERGE_ROWS,
    OWNER_BITS_ANY,
    key_layout,
    key_width,
    state_key,
)
from nimmt.solver.positions import owners
from nimmt.solver.positions.objective import goal_array
from nimmt.solver.positions.position import parse_position
from nimmt.solver.search import exact
from nimmt.solver.search.game import deal_position

from naive import card_values

TOL = 1e-9
PLAYERS = 3
DECK = 34  # small: takes and sixth cards come often


def small_state(rng: random.Random) -> SimpleNamespace:
    """Rows of 1..5 cards, k = 1 or 2 cards for player 1 and a known player 2, a pool of
    k + 1 cards for the hidden player 3, from 1..DECK."""
    k = rng.randint(1, 2)
    lengths = [rng.randint(1, 5) for _ in range(ROW_COUNT)]
    drawn = rng.sample(range(1, DECK + 1), sum(lengths) + 3 * k + 1)
    rows, at = [], 0
    for n in lengths:
        rows.append(sorted(drawn[at:at + n]))
        at += n
    hand, p2 = sorted(drawn[at:at + k]), sorted(drawn[at + k:at + 2 * k])
    return state(rows, hand, p2, [c for c in drawn[at + 2 * k:]])


def state(rows, hand, p2, pool) -> SimpleNamespace:
    """What naive.card_values and owners.owner_array read of a position (Position checks
    that the cards played fit a real game; these states need not)."""
    return SimpleNamespace(professional=False, rows=tuple(tuple(r) for r in rows),
                           hand=tuple(hand), hands=(tuple(hand), tuple(p2), None),
                           hidden_players=(3,), pool=tuple(sorted(pool)), deck_size=DECK)


def relabel(position: SimpleNamespace, rng: random.Random) -> SimpleNamespace:
    """The same state with card values changed, keeping their order and each card's cows
    (every listed card moves to a value of the same cows in 1..DECK, in order)."""
    rows = [list(r) for r in position.rows]
    hands = [list(position.hand), list(position.hands[1] or ()), list(position.pool)]
    used = sorted({c for r in rows for c in r} | {c for h in hands for c in h})
    upper, top = [], DECK + 1  # the highest value each card can take
    for c in reversed(used):
        top = max(v for v in range(1, top) if COWS[v] == COWS[c])
        upper.append(top)
    upper.reverse()
    new, last = {}, 0
    for c, high in zip(used, upper):
        choices = [v for v in range(last + 1, high + 1) if COWS[v] == COWS[c]]
        new[c] = last = rng.choice(choices[:3])
    return state([[new[c] for c in r] for r in rows], [new[c] for c in hands[0]],
                 [new[c] for c in hands[1]], [new[c] for c in hands[2]])


def memo_key(position, layout: np.ndarray) -> tuple[int, ...]:
    owner, _, _ = owners.owner_array(position)
    cards = [c for c in range(1, len(owner)) if owner[c]]
    return state_key(row_table(position.rows), cards, [int(owner[c]) for c in cards], layout)


def state_value(position, model: str) -> float:
    """The state's value for player 1: its best card's."""
    return min(card_values(position, model).values())


@pytest.mark.parametrize("model", ["random", "worst"])
def test_states_with_equal_memo_keys_have_equal_values(model):
    """Relabelled states (the same order and cows) share a key and a value; so do the
    random states that collide."""
    layout = key_layout(STANDARD_DECK, OWNER_BITS_ANY, False, merge_rows=False)
    rng = random.Random(5)
    groups = defaultdict(list)
    for _ in range(150):
        position = small_state(rng)
        other = relabel(position, rng)
        assert memo_key(position, layout) == memo_key(other, layout)
        groups[memo_key(position, layout)] += [position, other]
    colliding = [g for g in groups.values() if len({(p.rows, p.hand, p.hands[1], p.pool)
                                                    for p in g}) > 1]
    assert len(colliding) >= 100
    for group in colliding:
        values = [state_value(p, model) for p in group[:4]]
        assert max(values) - min(values) <= TOL, [str(p) for p in group[:4]]


def test_memo_layout_is_sized_to_the_cards_in_play():
    position = deal_position(Rules("tactical", 3), 4, seed=1)
    owner, _, _ = owners.owner_array(position)
    layout = exactsearch.memo_layout(owner, False)
    assert layout[L_MERGE_ROWS] == 0
    assert memo_key(position, layout) == memo_key(position, key_layout(
        int(np.count_nonzero(owner)), OWNER_BITS_ANY, False, merge_rows=False))


def test_table_doubles_inside_the_kernel():
    """A memo of 16 slots grows in search_state; the values are solve_exact's."""
    position = deal_position(Rules("tactical", 2), 5, seed=3)
    owner, known, hidden = owners.owner_array(position)
    layout = exactsearch.memo_layout(owner, position.professional)
    memo = exactsearch.new_memo(key_width(layout), 16)
    stats = np.zeros(exactsearch.STAT_SLOTS, np.int64)
    result = np.zeros(3)
    expected = {c.card: c.value for c in exact.solve_exact(position, "random").cards}
    for card in position.hand:
        exactsearch.search_state(row_table(position.rows), owner, position.deck_size, known,
                                 hidden, position.professional, exactsearch.MODEL_RANDOM, card,
                                 memo, layout, stats, 10**9, result, goal_array(position), None)
        assert result[0] == pytest.approx(expected[card], abs=TOL)
    slots = memo[0].shape[0]
    assert slots > 16 and stats[exactsearch.SLOTS] == slots
    assert 0 < stats[exactsearch.ENTRIES] <= exactsearch.MAX_LOAD * slots
    assert int(np.count_nonzero(memo[0][:, 0])) == stats[exactsearch.ENTRIES]


def test_memory_guard_counts_the_tables_bytes():
    """The largest table and the one it doubles from fit the budget; past it the search
    stops and says the table's size."""
    layout = key_layout(20, 4, False, merge_rows=False)
    slot = exactsearch.memo_slot_bytes(layout)
    for memory in (2**20, 50 * 2**20, 8 * 2**30):
        most = exactsearch.memo_max_slots(memory, slot)
        assert most & (most - 1) == 0
        assert 1.5 * most * slot <= memory < 3 * most * slot
    position = parse_position("variant=tactical players=3 rows=34/2,5,6,11,16/13,14,21,28/3 "
                              "hand=8,12,22,26,30 gone=4,7,15,20,27,29,31,33")
    with pytest.raises(MemoryExceeded) as info:
        exact.solve_exact(position, "random", max_nodes=10**9, memory=2**20)
    assert "slots of" in str(info.value) and "1 MiB" in str(info.value)
