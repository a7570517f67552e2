"""The k = 9 goal: the planner estimates what the table keeps and sizes it once
(filling past half when it cannot double in memory, then stopping or spilling), and the
round's last turn, now solved in place, against the pure-Python rules.
"""
from __future__ import annotations

import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.errors import MemoryExceeded
from nimmt.solver.base.rules import Rules
from nimmt.solver.kernels.table import MAX_LOAD
from nimmt.solver.positions.position import format_position
from nimmt.solver.search import nash
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import (
    FULL_LOAD,
    NO_ORACLE,
    estimate_bytes,
    estimate_states,
    fill_limit,
    largest_fitting_k,
    slot_bytes,
    solve_nash,
    table_slots,
)

P1, P2 = 1, 2
GIB = 2**30


def dealt(placement: str, k: int, seed: int):
    return deal_position(Rules("tactical", 2, placement), k, seed=seed)


# ---------------------------------------------------------------- the last turn

def line_value(rows, plays, professional) -> tuple[int, bool]:
    """(player 1's cows minus player 2's, whether a choice was met) of ``plays`` (card,
    owner) placed in that order, each owner choosing its options optimally (player 1 the
    least, player 2 the most): reference.options / apply_option, nothing from the kernels."""
    if not plays:
        return 0, False
    (card, owner), rest = plays[0], plays[1:]
    found, chose = [], False
    choices = reference.options(rows, card, professional)
    for option in choices:
        new, cows = reference.apply_option(rows, card, option)
        after, deeper = line_value(new, rest, professional)
        found.append((cows if owner == P1 else -cows) + after)
        chose = chose or deeper
    return (min if owner == P1 else max)(found), chose or len(choices) > 1


def reference_cell(position, a: int, b: int) -> tuple[int, bool]:
    """A two-card position's cell (player 1 plays a, player 2 b, then the other cards)."""
    (a2,) = [c for c in position.hand if c != a]
    (b2,) = [c for c in position.hands[1] if c != b]
    plays = sorted([(a, P1), (b, P2)]) + sorted([(a2, P1), (b2, P2)])
    return line_value([list(r) for r in position.rows], plays, position.professional)


@pytest.mark.parametrize("placement", ["normal", "professional"])
def test_last_turn_against_the_reference(placement):
    """Every cell of a two-card root is a turn then the last turn (solved in place):
    exact against the reference on many deals, choices (takes, ties) among them."""
    choices = 0
    for seed in range(40):
        position = dealt(placement, 2, seed)
        r = solve_nash(position, workers=1)
        for i, a in enumerate(position.hand):
            for j, b in enumerate(position.hands[1]):
                expected, chose = reference_cell(position, a, b)
                assert r.matrix[i, j] == expected, (format_position(position), a, b)
                choices += chose
    assert choices >= 20  # the row choices inside a turn were exercised


# ---------------------------------------------------------------- the plan

@pytest.mark.parametrize("k", [5, pytest.param(6, marks=pytest.mark.slow)])  # k=6: 3-5 s
def test_estimate_counts_the_states_kept(k):
    """Dealt positions (seeds 10-17, as calibrated): the estimate is of the states the
    table keeps (levels MEMO_FROM..k-1), above most counts and never far off."""
    ratios = []
    for seed in range(10, 18):
        r = solve_nash(dealt("normal", k, seed), workers=1)
        assert r.stored == sum(r.levels[nash.MEMO_FROM:k])
        ratios.append(estimate_states(dealt("normal", k, seed)) / r.stored)
    assert all(0.5 < q < 3 for q in ratios), ratios
    assert sum(q >= 1 for q in ratios) >= 6, ratios


def test_k9_plans_within_8g():
    """The goal's position: the plan fits 8 GiB in one table that holds the 62,679,677
    states measured (docs/PERFORMANCE.md), and a whole deal's largest fitting k is 9."""
    position = dealt("normal", 9, 10)
    assert estimate_bytes(position) <= 8 * GIB
    first, largest = table_slots(position, 8 * GIB)
    assert first * slot_bytes(position) <= 8 * GIB
    assert fill_limit(first, largest) >= 62_679_677
    assert largest_fitting_k(dealt("normal", 10, 10), 8 * GIB) == 9


def test_table_sized_once_from_the_estimate():
    position = dealt("normal", 6, 12)
    first, largest = table_slots(position, 8 * GIB)
    r = solve_nash(position, workers=1)
    assert r.table_bytes == first * slot_bytes(position)  # it never doubled
    assert r.stored <= fill_limit(first, largest)


def test_fill_limit_doubles_at_half_or_fills_when_it_cannot():
    assert fill_limit(1024, 2048) == int(MAX_LOAD * 1024)
    assert fill_limit(1024, 1024) == int(FULL_LOAD * 1024)


# A table of 1024 compact slots fits this memory alone, not beside its doubled one
ONE_TABLE = 1024 * slot_bytes(dealt("normal", 5, 17))  # 32-byte compact slots


@pytest.fixture
def small_table(monkeypatch):
    """A solve whose estimate asks for that table, counting every store against its
    limit (a worker reports its stores every REPORT_EVERY, up to slots / 16: a root cell
    of these small solves stores fewer, so the count would only be checked between cells)."""
    monkeypatch.setattr(nash, "estimate_states", lambda *a, **k: 700)  # 1024 slots
    monkeypatch.setattr(nash, "REPORT_EVERY", 1)


def test_table_that_cannot_double_fills_past_half(request):
    position = dealt("normal", 5, 17)  # 529 states kept: past half of 1024 slots (the
    expected = solve_nash(position, workers=1, oracle_from=NO_ORACLE)  # oracle keeps fewer)
    request.getfixturevalue("small_table")
    assert table_slots(position, ONE_TABLE) == (1024, 512)
    r = solve_nash(position, memory=ONE_TABLE, workers=1, oracle_from=NO_ORACLE)
    assert r.table_bytes == ONE_TABLE and MAX_LOAD * 1024 < r.stored <= FULL_LOAD * 1024
    assert (r.value, r.p1_frequency, r.p2_frequency) == (
        expected.value, expected.p1_frequency, expected.p2_frequency)
    assert (r.matrix == expected.matrix).all()


def test_full_table_stops_or_spills(request, tmp_path):
    position = dealt("normal", 5, 13)  # 871 states kept: past FULL_LOAD of 1024 slots
    expected = solve_nash(position, workers=1)
    request.getfixturevalue("small_table")
    with pytest.raises(MemoryExceeded, match="filled"):
        solve_nash(position, memory=ONE_TABLE, workers=1)
    r = solve_nash(position, memory=ONE_TABLE, workers=1, spill=str(tmp_path))
    assert r.on_disk and r.value == expected.value and (r.matrix == expected.matrix).all()
    assert r.levels == expected.levels


# ---------------------------------------------------------------- the cache of recent values

@pytest.mark.parametrize("placement, k, seed, workers, window", [
    ("normal", 6, 3, 1, False), ("normal", 6, 12, 2, False), ("professional", 6, 4, 2, False),
    ("normal", 6, 5, 1, True),
    pytest.param("normal", 7, 12, 2, False, marks=pytest.mark.slow)])
def test_the_workers_cache_of_two_card_states_changes_no_value(monkeypatch, placement, k,
                                                               seed, workers, window):
    """Each worker keeps the two-card states it solved (not stored in the table) in a
    cache of recent values and answers them from it: every root cell's value and cows,
    the strategies and the stored states are those of searching them again (no cache),
    with fewer searches; with alpha-beta windows too (only exact values are kept)."""
    p = dealt(placement, k, seed)
    cached = solve_nash(p, workers=workers, window=window)
    monkeypatch.setattr(nash, "recent_slots", lambda *_: 1)
    again = solve_nash(p, workers=workers, window=window)
    assert (cached.matrix == again.matrix).all()
    assert cached.value == again.value and cached.p1_cows == again.p1_cows
    assert cached.p1_frequency == again.p1_frequency
    assert cached.p2_frequency == again.p2_frequency
    assert again.recalled == 0 and cached.recalled > 0
    assert again.states > cached.states
    if workers == 1 and not window:  # each state recalled is one search fewer
        assert cached.states + cached.recalled == again.states
    if workers == 1:  # two workers may both store a state before either finds it
        assert cached.stored == again.stored


def test_a_cache_of_recent_values_keeps_the_last_value_of_each_slot():
    """recall finds what remember kept in a key's slot, and nothing for another key or
    once another key took the slot (direct-mapped: one slot, replaced)."""
    import numpy as np

    from nimmt.solver.kernels import table

    keys, values = table.recent_cache(1, 2)
    assert not table.recall(keys, values, np.array([0, 0]), 2)[0]  # empty: NaN
    table.remember(keys, values, np.array([5, 7]), 2, -1.5, 3.25)
    assert table.recall(keys, values, np.array([5, 7]), 2) == (True, -1.5, 3.25)
    assert not table.recall(keys, values, np.array([5, 8]), 2)[0]
    table.remember(keys, values, np.array([6, 7]), 2, 2.0, 0.0)
    assert not table.recall(keys, values, np.array([5, 7]), 2)[0]
    assert table.recall(keys, values, np.array([6, 7]), 2) == (True, 2.0, 0.0)
