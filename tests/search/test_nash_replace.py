"""The replacing table: a solve whose states do not fit its memory keeps the
costliest states and solves the others again when needed, with the same values and
strategies as a table that keeps everything; the table's window probe and its choice of
the entry to replace; tables of any number of slots.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from nimmt.solver.base.rules import Rules
from nimmt.solver.kernels.table import (
    REACH,
    Table,
    _probe_within,
    _replaceable,
    _store_compact,
)
from nimmt.solver.search import nash
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import replacing_slots, slot_bytes, solve_nash

from cli_checks import assert_ok, invoke

WIDTH = 3
PRIORITY_WORD, PRIORITY_SHIFT, PRIORITY_MASK = 0, 8, 0xFF


def dealt(placement: str, k: int, seed: int):
    return deal_position(Rules("tactical", 2, placement), k, seed=seed)


def key_of(i: int, priority: int) -> np.ndarray:
    """A key whose word 0 carries ``priority`` in bits 8..15 (never all zero)."""
    return np.array([1 | priority << PRIORITY_SHIFT | i << 16, 7 * i + 3, i ^ 0x5555],
                    np.int64)


def test_tables_of_any_size_keep_every_key():
    table = Table(1000, WIDTH, compact=True)  # not a power of two
    stored = {}
    for i in range(700):
        key = key_of(i, i % 5)
        table.put(key, float(i) / 3, i % 11)
        stored[i] = (float(i) / 3, i % 11)
    for i, want in stored.items():
        assert table.get(key_of(i, i % 5)) == pytest.approx(want, abs=2**-23)
    assert table.get(key_of(5000, 1)) is None
    assert np.count_nonzero(table.entries[:, 0]) == 700


def test_probe_within_and_the_entry_replaced():
    table = Table(64, WIDTH, compact=True)
    e, v = table.entries, table.values
    reach = 4
    # fill one key's window with keys that share its home slot
    target = key_of(10_000, 3)
    home = _probe_within(e, target, WIDTH, 1)[0]
    priorities = [5, 2, 7, 2]
    for offset, priority in enumerate(priorities):
        other = key_of(offset, priority)
        _store_compact(e, v, (home + offset) % 64, other, WIDTH, 1.0, 0.0)
    assert _probe_within(e, target, WIDTH, reach) == (-1, False)  # all taken, not found
    # the least priority goes first (one of the two 2s), never one worth more than the new
    s = _replaceable(e, target, WIDTH, reach, 3, PRIORITY_WORD, PRIORITY_SHIFT, PRIORITY_MASK)
    assert s in {(home + 1) % 64, (home + 3) % 64}
    assert _replaceable(e, target, WIDTH, reach, 1, PRIORITY_WORD, PRIORITY_SHIFT,
                        PRIORITY_MASK) == -1
    _store_compact(e, v, s, target, WIDTH, 4.5, 1.0)
    found = _probe_within(e, target, WIDTH, reach)
    assert found == (s, True) and table.get(target) == (4.5, 1.0)



@pytest.mark.parametrize("placement,k,seed", [("normal", 6, 10),  # seed 13 with -m slow
                                              pytest.param("normal", 6, 13,
                                                           marks=pytest.mark.slow),
                                              ("professional", 6, 11),
                                              pytest.param("professional", 7, 12,
                                                           marks=pytest.mark.slow)])
def test_replacing_solve_gives_the_same_equilibrium(placement, k, seed):
    position = dealt(placement, k, seed)
    expected = solve_nash(position, workers=1)
    tiny = 1024 * slot_bytes(position)  # far too small for these states
    assert replacing_slots(position, tiny) == 1024
    r = solve_nash(position, memory=tiny, workers=1, replace=True)
    assert r.table_bytes == tiny and r.replaced > 0
    assert r.stored <= 1024 < expected.stored
    assert r.value == expected.value
    assert (r.matrix == expected.matrix).all()
    assert (r.p1_frequency, r.p2_frequency) == (expected.p1_frequency, expected.p2_frequency)
    assert r.p1_cows == pytest.approx(expected.p1_cows, abs=1e-5)  # cows kept to 2**-23
    assert r.exploitability < 1e-9
    assert r.states > expected.states  # states replaced were solved again


def test_full_table_goes_on_replacing(monkeypatch):
    position = dealt("normal", 5, 13)  # 871 states kept: past FULL_LOAD of 1024 slots
    expected = solve_nash(position, workers=1)
    monkeypatch.setattr(nash, "estimate_states", lambda *a, **k: 700)  # 1024 slots
    monkeypatch.setattr(nash, "REPORT_EVERY", 1)
    r = solve_nash(position, memory=1024 * slot_bytes(position), workers=1, replace=True)
    assert r.table_bytes == 1024 * slot_bytes(position)
    assert r.value == expected.value and (r.matrix == expected.matrix).all()
    assert r.replaced + r.dropped > 0


def test_two_workers_replacing():
    position = dealt("normal", 6, 12)
    expected = solve_nash(position, workers=1)
    r = solve_nash(position, memory=2048 * slot_bytes(position), workers=2, replace=True)
    assert r.workers == 2 and r.replaced > 0
    assert r.value == expected.value and (r.matrix == expected.matrix).all()


def test_windows_do_not_replace():
    with pytest.raises(ValueError, match="compact"):
        solve_nash(dealt("normal", 4, 10), window=True, replace=True)


def test_reach_is_a_few_cache_lines():
    assert 2 <= REACH <= 16


def test_cli_solve_deal_replace_solves_the_whole_round(runner):
    """1M of memory holds no k = 6 round: without --replace random bots play first,
    with it the whole round is solved, to the value of a solve with memory to spare."""
    common = ("solve-deal", "--seed", 4, "-k", 6, "--format", "json", "--workers", 1)
    runs = {}
    for name, extra in (("short", ()), ("replaced", ("--replace",)), ("roomy", ())):
        memory = "1G" if name == "roomy" else "1M"
        result = invoke(runner, *common, "--memory", memory, *extra)
        assert_ok(result)
        runs[name] = json.loads(result.output)
    short, replaced, roomy = runs["short"], runs["replaced"], runs["roomy"]
    assert short["solved_from"] < 6 == replaced["solved_from"] == roomy["solved_from"]
    assert replaced["solution"]["solve"]["replaced"] > 0 == roomy["solution"]["solve"]["replaced"]
    assert replaced["solution"]["value"] == roomy["solution"]["value"]
    assert replaced["solution"]["p1_strategy"] == roomy["solution"]["p1_strategy"]
