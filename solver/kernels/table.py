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
(``Table.doubled``) past it; every whole entry moves. A caller whose memory budget does
not allow the doubling may fill further (the equilibrium's FULL_LOAD, solver/search/nash.py).

The *compact* slot (``Table(..., compact=True)``, the equilibrium's exact values) holds
one exact value and a cow count in two words::

    | key word 0 .. width-1 | value (float64) | check (high 32 bits) | cows (low 32) |

the cows as a fixed-point count (COWS_SCALE units a cow: each store rounds by at most
half a unit, 2**-24 of a cow, a count up to 2**31 / COWS_SCALE = 256 cows; the value is
kept to the bit), the check a 32-bit hash of the key, the value and the cows, never 0,
written last (``probe_compact``, ``store_compact``, ``compact_cows``).

A compact table may also *replace*: a solve whose states do not all fit keeps the most
valuable ones (``probe_within`` looks at REACH slots from a key's home; when they are
all taken, ``replaceable`` names the one of least priority, read from the key, for the
new entry, or none when each is worth more). A replaced entry is simply solved again
when it is needed; no slot ever becomes free again, so probes stay sound.

A table may live in a file instead of memory (``Table(..., path=FILE)``: a numpy
memory map; the system pages it out to that file when memory runs short).
"""
from __future__ import annotations

import math

import numpy as np

from .engine import copy_row, jit, jit_inline

__all__ = ["EMPTY", "MAX_LOAD", "REACH", "Table", "probe", "probe_compact", "probe_within",
           "read_compact", "recall", "recent_cache", "rehash", "rehash_compact", "remember",
           "replaceable", "rounded_cows", "store", "store_compact"]

EMPTY = 0        # key word 0 of a free slot
MAX_LOAD = 0.5   # callers double the table past this load (when their memory allows)
_MULTIPLIER = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
_MIX_SEED = 0x2545F4914F6CDD1D
COMPACT_VALUE_WORDS = 2      # a compact slot: the value, then (check, cows) in one word
COWS_SCALE = float(2**23)    # compact cows: fixed point, this many units a cow
LOW32 = 0xFFFFFFFF
# A key's home slot: HOME_BITS high bits of its hash times the slots, shifted down (a
# table of any size; the product stays below 2**63 up to 2**32 slots)
HOME_BITS = 31
HOME_SHIFT = 64 - HOME_BITS - 1
HOME_MASK = (1 << HOME_BITS) - 1
# A replacing table (probe_within, replaceable) looks this many slots from a key's home:
# two to three 64-byte cache lines of 40-byte compact slots
REACH = 8


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
def _slot_of(entries, key, width):
    """The home slot of ``key``: the probes of both slot formats start there (HOME_BITS
    bits of its hash scaled to the table's slots, any number of them)."""
    h = 0
    for i in range(width):
        h = (h ^ key[i]) * _MULTIPLIER
        h ^= h >> 29
    h ^= h >> 32
    return ((h >> HOME_SHIFT) & HOME_MASK) * entries.shape[0] >> HOME_BITS


def recent_cache(slots: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """A cache of recent exact values (``recall``, ``remember``): ``slots`` slots of
    ``width`` key words (keys) and (value, player 1's cows) (values, NaN while empty).
    Direct-mapped: a key has one slot, and a new key there replaces the old one."""
    slots = max(1, slots)
    return np.zeros((slots, width), np.int64), np.full((slots, 2), np.nan)


@jit_inline
def recall(keys, values, key, width):
    """(found, value, cows) of ``key`` in a ``recent_cache`` (its home slot only)."""
    s = _slot_of(keys, key, width)
    if math.isnan(values[s, 0]):
        return False, 0.0, 0.0
    for i in range(width):
        if keys[s, i] != key[i]:
            return False, 0.0, 0.0
    return True, values[s, 0], values[s, 1]


@jit_inline
def remember(keys, values, key, width, value, cows):
    """Keep ``key``'s exact value and cows in its home slot of a ``recent_cache``."""
    s = _slot_of(keys, key, width)
    for i in range(width):
        keys[s, i] = key[i]
    values[s, 0], values[s, 1] = value, cows


@jit_inline
def _same_key(entries, s, key, width):
    """Whether slot s holds ``key``'s words (its check word aside)."""
    for i in range(width):
        if entries[s, i] != key[i]:
            return False
    return True


@jit_inline
def probe(entries, key, width):
    """(slot, found): where ``key`` (``width`` words) is in the table, or the free slot
    where it would go; (-1, False) when every slot is taken."""
    check = entries.shape[1] - 1
    s = _slot_of(entries, key, width)
    for _ in range(entries.shape[0]):
        if entries[s, 0] == EMPTY:
            return s, False
        if _same_key(entries, s, key, width) and entries[s, check] == check_word(
                entries, s, key, width):
            return s, True
        s = _next_slot(entries, s)
    return -1, False


@jit_inline
def _next_slot(entries, s):
    """The slot after s (the first after the last)."""
    s += 1
    return 0 if s == entries.shape[0] else s


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


@jit_inline
def _mix(h, w):
    h = (h ^ w) * _MULTIPLIER
    return h ^ (h >> 31)


@jit_inline
def compact_check(entries, s, key, width):
    """The 32-bit check of compact slot s (``key``, its value word and its cows): never 0."""
    h = _MIX_SEED
    for i in range(width):
        h = _mix(h, key[i])
    h = _mix(h, entries[s, width])
    h = _mix(h, entries[s, width + 1] & LOW32)
    return ((h >> 32) & LOW32) | 1




@jit_inline
def probe_compact(entries, key, width):
    """``probe`` for a compact table."""
    return probe_within(entries, key, width, entries.shape[0])


@jit_inline
def probe_within(entries, key, width, reach):
    """``probe`` for a compact table, looking at ``reach`` slots from the key's home at
    most: (slot, found), the slot -1 when those slots all hold other keys."""
    s = _slot_of(entries, key, width)
    for _ in range(reach):
        if entries[s, 0] == EMPTY:
            return s, False
        if _same_key(entries, s, key, width) and (
                entries[s, width + 1] >> 32) & LOW32 == compact_check(entries, s, key, width):
            return s, True
        s = _next_slot(entries, s)
    return -1, False


@jit_inline
def replaceable(entries, key, width, reach, priority, word, shift, mask):
    """The slot a replacing compact table gives ``key`` (of ``priority``) when its
    ``reach`` slots are all taken (probe_within answered -1): the one of least priority
    among them (a slot's priority: bits ``shift``.. of its key word ``word``, under
    ``mask``), the scan starting at a slot its hash picks so that equals take turns;
    -1 when every one of them is worth more than ``priority``."""
    n = entries.shape[0]
    home = _slot_of(entries, key, width)
    start = (((key[width - 1] * _MULTIPLIER) >> HOME_SHIFT) & HOME_MASK) % reach
    best, least = -1, priority + 1
    for o in range(reach):
        s = home + (start + o) % reach
        if s >= n:
            s -= n
        mine = (entries[s, word] >> shift) & mask
        if mine < least:
            best, least = s, mine
    return best


@jit_inline
def read_compact(entries, values, s, key, width):
    """(whole, value, cows) of compact slot s, which a probe found holding ``key``, read
    once more as a whole: another thread may have replaced the entry since the probe
    (a replacing table). The check word is read before and after the value; both reads
    equal and its check matching ``key`` with that value and cows make them ``key``'s
    (a writer clears the check word before it writes the value)."""
    before = entries[s, width + 1]
    value = values[s, width]
    bits = entries[s, width]
    after = entries[s, width + 1]
    h = _MIX_SEED
    for i in range(width):
        h = _mix(h, key[i])
    h = _mix(h, bits)
    h = _mix(h, before & LOW32)
    whole = before == after and (before >> 32) & LOW32 == ((h >> 32) & LOW32) | 1
    return whole, value, (before & LOW32) / COWS_SCALE


@jit_inline
def cows_fixed(cows):
    """Player 1's ``cows`` (>= 0) as the compact slot's fixed-point count: the nearest
    multiple of 1 / COWS_SCALE, in units."""
    return np.int64(cows * COWS_SCALE + 0.5)


@jit_inline
def rounded_cows(cows):
    """``cows`` as a compact slot gives them back: a search rounds every stored state's
    cows so, fresh or read from the table, so that its answers do not depend on what the
    table held (the workers' order)."""
    return cows_fixed(cows) / COWS_SCALE


@jit_inline
def store_compact(entries, values, s, key, width, value, cows):
    """Store ``key``, its exact ``value`` and player 1's ``cows`` (>= 0, rounded to
    1 / COWS_SCALE) in compact slot s, the check last."""
    entries[s, width + 1] = 0          # no check: not whole while it is written
    for i in range(width):
        entries[s, i] = key[i]
    values[s, width] = value
    fixed = cows_fixed(cows) & LOW32
    entries[s, width + 1] = fixed
    entries[s, width + 1] = (compact_check(entries, s, key, width) << 32) | fixed


@jit_inline
def compact_cows(entries, s, width):
    """Player 1's cows stored in compact slot s."""
    return (entries[s, width + 1] & LOW32) / COWS_SCALE


@jit
def rehash(entries, new_entries, width):
    """Move every whole entry into a (bigger) table."""
    check = entries.shape[1] - 1
    for s in range(entries.shape[0]):
        if entries[s, 0] != EMPTY:
            key = entries[s, :width]
            if entries[s, check] == check_word(entries, s, key, width):
                t, _ = probe(new_entries, key, width)
                copy_row(new_entries[t], entries[s])


@jit
def rehash_compact(entries, new_entries, width):
    """``rehash`` for compact tables."""
    for s in range(entries.shape[0]):
        if entries[s, 0] != EMPTY:
            key = entries[s, :width]
            if (entries[s, width + 1] >> 32) & LOW32 == compact_check(entries, s, key, width):
                t, _ = probe_compact(new_entries, key, width)
                copy_row(new_entries[t], entries[s])


@jit
def _probe(entries, key, width):
    return probe(entries, key, width)


@jit
def _probe_compact(entries, key, width):
    return probe_compact(entries, key, width)


@jit
def _store_compact(entries, values, s, key, width, value, cows):
    store_compact(entries, values, s, key, width, value, cows)


@jit
def _compact_cows(entries, s, width):
    return compact_cows(entries, s, width)


@jit
def _store(entries, values, s, key, width, first, second, third):
    store(entries, values, s, key, width, first, second, third)


class Table:
    """A table of ``slots`` (any number; the solvers size them in powers of two while
    they double) entries of ``width`` key words and
    ``value_words`` (1..3) float values, or compact slots (``compact``: an exact value
    and cows). Allocated zeroed by numpy: the system commits its pages as they are
    touched, and numpy asks for huge pages for big arrays (fewer TLB misses on random
    probes). With ``path`` the table is a memory-mapped file there instead (created,
    zeroed; removed by ``close``)."""

    def __init__(self, slots: int, width: int, value_words: int = 3, compact: bool = False,
                 path: str | None = None) -> None:
        if slots < 1 or not 1 <= value_words <= 3:
            raise ValueError(f"a table needs at least one slot and 1..3 value words, "
                             f"not {slots} and {value_words}")
        self.width = width
        self.compact = compact
        self.value_words = COMPACT_VALUE_WORDS if compact else value_words
        self.path = path
        shape = (slots, self.slot_bytes(width, value_words, compact) // 8)
        if path is None:
            self.entries = np.zeros(shape, np.int64)
        else:
            self.entries = np.lib.format.open_memmap(path, "w+", np.int64, shape)
        self.values = self.entries.view(np.float64)

    @staticmethod
    def slot_bytes(width: int, value_words: int = 3, compact: bool = False) -> int:
        return 8 * (width + (COMPACT_VALUE_WORDS if compact else value_words + 1))

    @property
    def slots(self) -> int:
        return self.entries.shape[0]

    @property
    def nbytes(self) -> int:
        return self.entries.nbytes

    def doubled(self, path: str | None = None) -> Table:
        """A table twice the size with every whole entry (in ``path`` when given); this
        one is closed."""
        bigger = Table(2 * self.slots, self.width, self.value_words, self.compact, path)
        (rehash_compact if self.compact else rehash)(self.entries, bigger.entries, self.width)
        self.close()
        return bigger

    def close(self) -> None:
        """Drop the entries (and the file of a memory-mapped table)."""
        import os

        if self.path is not None and os.path.exists(self.path):
            del self.values
            mapped = self.entries
            self.entries = np.zeros((0, mapped.shape[1]), np.int64)
            self.values = self.entries.view(np.float64)
            del mapped
            os.remove(self.path)

    # Python access (tests, tools): the kernels call probe and store directly.
    def find(self, key) -> tuple[int, bool]:
        probe_ = _probe_compact if self.compact else _probe
        s, found = probe_(self.entries, np.asarray(key, np.int64), self.width)
        return int(s), bool(found)

    def get(self, key) -> tuple[float, ...] | None:
        """The stored values of ``key`` (compact: the value and the cows), or None."""
        s, found = self.find(key)
        if not found:
            return None
        if self.compact:
            return (float(self.values[s, self.width]),
                    float(_compact_cows(self.entries, s, self.width)))
        return tuple(float(v) for v in self.values[s, self.width:self.width + self.value_words])

    def put(self, key, *stored: float) -> int:
        """Store ``key`` with its values (overwriting); the slot, -1 when full."""
        if len(stored) != self.value_words:
            raise ValueError(f"this table keeps {self.value_words} values, not {len(stored)}")
        s, _ = self.find(key)
        if s >= 0:
            key = np.asarray(key, np.int64)
            if self.compact:
                _store_compact(self.entries, self.values, s, key, self.width, *stored)
            else:
                padded = list(stored) + [0.0] * (3 - len(stored))
                _store(self.entries, self.values, s, key, self.width, *padded)
        return s


@jit
def _probe_within(entries, key, width, reach):
    return probe_within(entries, key, width, reach)


@jit
def _replaceable(entries, key, width, reach, priority, word, shift, mask):
    return replaceable(entries, key, width, reach, priority, word, shift, mask)
