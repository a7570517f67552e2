"""The transposition table (solver.kernels.table): store, probe, doubling, torn entries."""
from __future__ import annotations

import math

import numpy as np
import pytest

from nimmt.solver.kernels.table import EMPTY, Table, check_word, probe, store  # noqa: F401


def keys(count, width, seed=0):
    rng = np.random.default_rng(seed)
    out = rng.integers(1, 2**62, size=(count, width), dtype=np.int64)
    return [tuple(int(w) for w in row) for row in out]


@pytest.mark.parametrize("width,value_words", [(3, 3), (5, 3), (14, 1), (2, 2)])
def test_store_then_probe(width, value_words):
    table = Table(64, width, value_words)
    stored = {}
    for i, key in enumerate(keys(30, width)):
        values = tuple(float(i + j / 4) for j in range(value_words))
        assert table.get(key) is None
        assert table.put(key, *values) >= 0
        stored[key] = values
    for key, values in stored.items():
        assert table.get(key) == values
    assert table.get(keys(1, width, seed=99)[0]) is None


def test_overwrite_keeps_one_entry():
    table = Table(16, 3, 1)
    key = (7, 8, 9)
    s = table.put(key, 1.0)
    assert table.put(key, 2.5) == s
    assert table.get(key) == (2.5,)
    assert sum(table.entries[:, 0] != EMPTY) == 1


def test_full_table_reports_no_slot():
    table = Table(4, 2, 1)
    for key in keys(4, 2):
        assert table.put(key, 1.0) >= 0
    assert table.find(keys(1, 2, seed=5)[0]) == (-1, False)


def test_doubling_keeps_every_entry():
    table = Table(32, 3)
    stored = {key: (float(i), -float(i), math.nan if i % 2 else 1.0)
              for i, key in enumerate(keys(16, 3))}
    for key, values in stored.items():
        table.put(key, *values)
    bigger = table.doubled()
    assert bigger.slots == 64 and bigger.width == 3 and bigger.value_words == 3
    for key, values in stored.items():
        got = bigger.get(key)
        assert got[:2] == values[:2]
        assert (math.isnan(got[2]) and math.isnan(values[2])) or got[2] == values[2]


def test_torn_entry_is_invisible_and_not_moved():
    """A value changed behind the check word's back (a write in progress, or two at
    once) makes the entry invisible: a probe goes past it, a doubling drops it."""
    table = Table(16, 3)
    key = np.array([5, 6, 7], np.int64)
    s, found = table.find(key)
    assert not found
    table.put(key, 1.5, 1.5, 2.0)
    assert table.find(key) == (s, True)
    table.values[s, 4] = 9.0  # the second value changed, the check word not
    t, found = table.find(key)
    assert not found and t != s
    assert table.doubled().get(key) is None
    table.entries[s, 6] = 0  # a key written, its check not yet
    assert table.find(key)[1] is False


def test_bad_shapes_refused():
    with pytest.raises(ValueError):
        Table(0, 3)  # any number of slots but none (tests/search/test_nash_replace.py: 1000)
    with pytest.raises(ValueError):
        Table(16, 3, 4)
    with pytest.raises(ValueError):
        Table(16, 3, 1).put((1, 2, 3), 1.0, 2.0)
