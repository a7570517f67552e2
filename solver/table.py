"""The transposition table: open addressing with linear probing, shared by threads.

One int64 array ``entries`` of shape (slots, width + value_words + 1); ``values`` is
the same memory seen as float64. A slot holds::

    | key word 0 .. width-1 | value word 0 .. value_words-1 | check |

- a free slot has key word 0 == EMPTY (statekey never packs a key to 0);
- the check word is a hash of the key and the value words, written last: a slot whose
  check does not match its contents (another thread is writing it, or two wrote it at
  once) counts as some other key's, so a probe never returns a half-written entry. It
  is never 0 (so a slot whose key is written but not yet its check is not whole).

Use::

    s, found = probe(table.entries, key, width)     # s = -1: the table is full
    if found: v = table.values[s, width]            # value words follow the key
    else:     store(table.entries, table.values, s, key, width, v, 0.0, 0.0)

``store`` writes the first ``value_words`` of its three values. Callers keep the load
at most MAX_LOAD (linear probing keeps its chains short) and double the table
(``Table.doubled``) past it; every whole entry moves.
"""
from __future__ import annotations

import numpy as np

from .engine import jit, jit_inline

EMPTY = 0        # key word 0 of a free slot
MAX_LOAD = 0.5   # callers double the table past this load
_MULTIPLIER = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
_MIX_SEED = 0x2545F4914F6CDD1D


@jit_inline
def check_word(entries, s, key, width):
    """The check word of slot s: a hash of ``key`` and the slot's value words."""
    h = _MIX_SEED
    for i in range(entries.shape[1] - 1):
        w = key[i] if i < width else entries[s, i]
        h = (h ^ w) * _MULTIPLIER
        h ^= h >> 31
    return h | 1  # never 0, the check of a slot never written


@jit_inline
def probe(entries, key, width):
    """(slot, found): where ``key`` (``width`` words) is in the table, or the free slot
    where it would go; (-1, False) when every slot is taken."""
    h = 0
    for i in range(width):
        h = (h ^ key[i]) * _MULTIPLIER
        h ^= h >> 29
    mask = entries.shape[0] - 1
    check = entries.shape[1] - 1
    s = (h ^ (h >> 32)) & mask
    for _ in range(entries.shape[0]):
        if entries[s, 0] == EMPTY:
            return s, False
        same = True
        for i in range(width):
            if entries[s, i] != key[i]:
                same = False
                break
        if same and entries[s, check] == check_word(entries, s, key, width):
            return s, True
        s = (s + 1) & mask
    return -1, False


@jit_inline
def store(entries, values, s, key, width, first, second, third):
    """Store ``key`` and its values (the first ``value_words`` of first, second, third)
    in slot s, the check word last. ``values`` is the float view of ``entries``."""
    for i in range(width):
        entries[s, i] = key[i]
    value_words = entries.shape[1] - 1 - width
    values[s, width] = first
    if value_words > 1:
        values[s, width + 1] = second
    if value_words > 2:
        values[s, width + 2] = third
    entries[s, width + value_words] = check_word(entries, s, key, width)


@jit
def rehash(entries, new_entries, width):
    """Move every whole entry into a (bigger) table."""
    check = entries.shape[1] - 1
    for s in range(entries.shape[0]):
        if entries[s, 0] != EMPTY:
            key = entries[s, :width]
            if entries[s, check] == check_word(entries, s, key, width):
                t, _ = probe(new_entries, key, width)
                new_entries[t, :] = entries[s, :]


@jit
def _probe(entries, key, width):
    return probe(entries, key, width)


@jit
def _store(entries, values, s, key, width, first, second, third):
    store(entries, values, s, key, width, first, second, third)


class Table:
    """A table of ``slots`` (a power of two) entries of ``width`` key words and
    ``value_words`` (1..3) float values. Allocated zeroed by numpy: the system commits
    its pages as they are touched, and numpy asks for huge pages for big arrays (fewer
    TLB misses on random probes)."""

    def __init__(self, slots: int, width: int, value_words: int = 3) -> None:
        if slots < 1 or slots & (slots - 1) or not 1 <= value_words <= 3:
            raise ValueError(f"a table needs a power of two of slots and 1..3 value words, "
                             f"not {slots} and {value_words}")
        self.entries = np.zeros((slots, width + value_words + 1), np.int64)
        self.values = self.entries.view(np.float64)
        self.width = width
        self.value_words = value_words

    @staticmethod
    def slot_bytes(width: int, value_words: int = 3) -> int:
        return 8 * (width + value_words + 1)

    @property
    def slots(self) -> int:
        return self.entries.shape[0]

    @property
    def nbytes(self) -> int:
        return self.entries.nbytes

    def doubled(self) -> Table:
        bigger = Table(2 * self.slots, self.width, self.value_words)
        rehash(self.entries, bigger.entries, self.width)
        return bigger

    # Python access (tests, tools): the kernels call probe and store directly.
    def find(self, key) -> tuple[int, bool]:
        s, found = _probe(self.entries, np.asarray(key, np.int64), self.width)
        return int(s), bool(found)

    def get(self, key) -> tuple[float, ...] | None:
        """The stored values of ``key``, or None."""
        s, found = self.find(key)
        if not found:
            return None
        return tuple(float(v) for v in self.values[s, self.width:self.width + self.value_words])

    def put(self, key, *stored: float) -> int:
        """Store ``key`` with its values (overwriting); the slot, -1 when full."""
        if len(stored) != self.value_words:
            raise ValueError(f"this table keeps {self.value_words} values, not {len(stored)}")
        s, _ = self.find(key)
        if s >= 0:
            padded = list(stored) + [0.0] * (3 - len(stored))
            _store(self.entries, self.values, s, np.asarray(key, np.int64), self.width,
                   *padded)
        return s
