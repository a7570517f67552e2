"""The memory plan of the equilibrium search (solver.search.nash): how many states a solve
keeps in its transposition table (estimated from measured medians), how large a table to
start with, when it doubles or fills, how large a replacing table is, and where a table
past the memory goes (a memory-mapped file in a spill directory).
"""
from __future__ import annotations

import math
import os

from ..kernels.statekey import key_width, two_hands_layout
from ..kernels.table import MAX_LOAD, Table
from ..positions.position import Position

__all__ = ["BYTES_PER_STATE", "FULL_LOAD", "GROWTH_INTO", "KEY_NORMAL",
           "KEY_PRO", "MEMO_FROM", "RECENT_SLOTS", "RESIDENT_BYTES", "STATES_MARGIN",
           "STORED_MEDIAN", "Spill",
           "VALUE_WORDS", "estimate_bytes", "estimate_states", "fill_limit",
           "largest_fitting_k", "recent_slots", "replacing_slots", "slot_bytes", "slots_for",
           "table_slots"]

# Peak memory per state stored, measured 160-330 bytes at k = 6..8 (benchmarks/nash.py)
# while the table doubled (the old and the new one both alive); a table sized once from
# the estimate (table_slots) costs its slots alone. The plan computes that table.
BYTES_PER_STATE = 320
# States with fewer cards each are not stored in the table (measured, docs/PERFORMANCE.md:
# the two-card states are 60-75% of a table that keeps them; keeping the three-card ones
# is 3-4 times faster than not); the two-card ones go to each worker's cache of recent
# values instead (RECENT_SLOTS)
MEMO_FROM = 3
# The states of MEMO_FROM - 1 cards each (two cards: 92% of a k = 8 or 9 solve's searches,
# each searched about 6 times) are not stored in the table but kept by each worker in a
# cache of recent values (solver.kernels.table.recent_cache: direct-mapped, replacing) of at
# most RECENT_SLOTS slots (32 bytes each at two key words: 128 MiB a worker); it answers
# 85-95% of them at k = 8 (2^20-2^24 slots), and a solve takes about half the time
RECENT_SLOTS = 2**22
# The state estimate counts what the table holds: the states of MEMO_FROM..k-1 cards each
# (the root is not stored). Calibrated on dealt tactical positions with one worker
# (seeds 10-17 at k = 4..6, 10-15 at k = 7 normal, 10-12 at k = 7 professional; k = 8
# normal: seeds 10-12, docs/PERFORMANCE.md's --levels table; benchmarks/nash.py --levels prints the
# estimate beside the counts): STORED_MEDIAN is the median count at each k measured, by
# placement (professional keeps 3-6 times fewer); past the largest k measured each card
# multiplies it by GROWTH_INTO (into 8: the normal medians' 7 -> 8; into 9 and after:
# 6,200,729 -> 62,679,677 stored from k = 8 to 9, seed 10 normal; the medians grew 27,
# 27, 20 and 14 times into k = 5..8: the growth falls as the deck runs out). The
# estimate is the median times STATES_MARGIN: at or above 6-7 of 8 deals at k = 5 and 6,
# 5 of 6 at k = 7 (3 of 3 professional), 2 of 3 at k = 8; the largest measured are
# 1.4-2.1 times the median, so a deal may pass it: its table then doubles or fills
# further (table_slots, fill_limit).
STORED_MEDIAN = {False: {4: 35, 5: 943, 6: 25_266, 7: 499_908, 8: 6_962_592},
                 True: {4: 18, 5: 266, 6: 5_402, 7: 82_077}}
GROWTH_INTO = {8: 13.9, 9: 10.1}   # and GROWTH_INTO[9] for every card after
STATES_MARGIN = 1.3
# A table that cannot double within the memory budget fills up to FULL_LOAD before the
# solve stops (or spills): linear probing at load a takes (1 + 1/(1-a)) / 2 probes a hit
# and (1 + 1/(1-a)^2) / 2 a miss: 1.5 and 2.5 at half load, 2.5 and 8.5 at 0.75
FULL_LOAD = 0.75
# A replacing table (solve_nash's replace) takes the memory budget less what the process
# needs beside its table: 0.53 GiB measured at k = 9 (peak 5.53 GiB with a 5.00 GiB table)
RESIDENT_BYTES = 3 * 2**28
# Key words of a state (solver.kernels.statekey, two known hands): normal and professional.
KEY_NORMAL, KEY_PRO = (key_width(two_hands_layout(p)) for p in (False, True))
VALUE_WORDS = 3      # a table entry's values: (lower, upper, player 1's cows or NaN)


def estimate_states(position: Position, cards_left: int | None = None) -> int:
    """Estimated distinct states the table keeps in a solve from ``cards_left`` cards
    each: those of MEMO_FROM..k-1 cards each (measured medians times a margin, see
    STORED_MEDIAN; an upper-ish estimate, not a bound: a deal past it grows its table).
    From MEMO_FROM cards or fewer the table keeps none: 0, exactly.

    >>> from nimmt.solver.positions.position import load_position
    >>> [estimate_states(load_position("example"), k) for k in (1, 3, 4, 7, 8, 9)]
    [0, 0, 46, 649881, 9051370, 91418833]
    """
    k = position.cards_left if cards_left is None else cards_left
    if k < MEMO_FROM + 1:
        return 0
    medians = STORED_MEDIAN[position.professional]
    top = max(medians)
    states = float(medians[min(k, top)])
    for j in range(top + 1, k + 1):
        states *= GROWTH_INTO.get(j, GROWTH_INTO[9])
    return max(1, math.ceil(states * STATES_MARGIN))


def recent_slots(position: Position, memory: int, workers: int) -> int:
    """Slots of each worker's cache of recent values (RECENT_SLOTS): a power of two
    about the states the solve stores (estimate_states; the states of one card fewer
    are about as many), at most RECENT_SLOTS and a sixteenth of ``memory`` for all
    ``workers``' caches; 1 (no cache to speak of) for a solve that stores no state.

    >>> from nimmt.solver.positions.position import load_position
    >>> example = load_position("example")  # two players, 5 cards each: 1,226 states
    >>> recent_slots(example, 8 * 2**30, 2), recent_slots(example, 2**20, 2)
    (2048, 1024)
    """
    states = estimate_states(position)
    if not states:
        return 1
    width = KEY_PRO if position.professional else KEY_NORMAL
    room = memory // 16 // (max(1, workers) * (width + 2) * 8)
    most = min(RECENT_SLOTS, 1 << max(0, int(math.log2(max(1, room)))))
    return max(1, min(most, slots_for(states, 1.0)))


def slot_bytes(position: Position, compact: bool = True) -> int:
    """Bytes a table slot of this position's solve (``compact``: exact values only, the
    default search; alpha-beta windows keep bounds)."""
    return Table.slot_bytes(KEY_PRO if position.professional else KEY_NORMAL, VALUE_WORDS,
                            compact)


def slots_for(states: float, load: float) -> int:
    """The smallest power of two of slots (at least 1024) that holds ``states`` at ``load``."""
    return 1 << max(10, math.ceil(math.log2(max(2.0, states / load))))


def estimate_bytes(position: Position, cards_left: int | None = None,
                   compact: bool = True) -> int:
    """The least memory of a transposition table that holds the estimated states of a
    solve from ``cards_left`` cards each: the smallest power of two of slots that they
    fill to FULL_LOAD at most (a solve whose memory allows it takes one that they fill
    to half, table_slots)."""
    return slot_bytes(position, compact) * slots_for(estimate_states(position, cards_left),
                                                      FULL_LOAD)


def largest_fitting_k(position: Position, memory: int) -> int:
    best = 0
    for k in range(1, position.cards_left + 1):
        if estimate_bytes(position, k) <= memory:
            best = k
    return best


def table_slots(position: Position, memory: int, compact: bool = True,
                states: int | None = None) -> tuple[int, int]:
    """(first, largest) table sizes in slots, powers of two. The first is sized once from
    the state estimate (estimate_bytes' table: the estimate fills it to FULL_LOAD at
    most; a typical deal, to half), or is the largest that fits ``memory`` alone. A
    table past MAX_LOAD doubles while the doubled one fits: up to ``largest``, the most
    that fits ``memory`` while it doubles (the old and the new table side by side);
    past that it fills to FULL_LOAD (fill_limit). ``states``: the estimate to size for
    (default: the whole solve's, estimate_states)."""
    slot = slot_bytes(position, compact)
    largest = 1 << max(4, int(math.log2(max(16, memory / (1.5 * slot)))))
    alone = 1 << max(4, int(math.log2(max(16, memory / slot))))
    first = min(slots_for(estimate_states(position) if states is None else states,
                           FULL_LOAD), alone)
    return first, largest


def replacing_slots(position: Position, memory: int) -> int:
    """Slots of a replacing table within ``memory`` (any number: the budget less
    RESIDENT_BYTES, at least half of it, in compact slots)."""
    return max(1024, int(max(memory / 2, memory - RESIDENT_BYTES)) // slot_bytes(position))


def fill_limit(slots: int, largest: int) -> int:
    """How many entries a table of ``slots`` takes before it doubles (MAX_LOAD) or, when
    it cannot double in memory (past ``largest``), before it is full (FULL_LOAD)."""
    return int((MAX_LOAD if 2 * slots <= largest else FULL_LOAD) * slots)


class Spill:
    """Where a table of so many slots lives: in memory up to ``largest`` slots, past
    that in a memory-mapped file in the directory ``where`` (None: never)."""

    def __init__(self, where: str | None, largest: int) -> None:
        self.where, self.largest = where, largest

    def path(self, slots: int, largest: int | None = None) -> str | None:
        """The file of a table of ``slots`` (None: in memory); ``largest`` replaces the
        in-memory limit (the first table, allocated alone)."""
        if self.where is None or slots <= (self.largest if largest is None else largest):
            return None
        return os.path.join(self.where, f"nimmt-nash-{os.getpid()}-{slots}.npy")

    def fits(self, slots: int, table: Table) -> bool:
        """Whether a table of ``slots`` fits the spill directory's free space."""
        if self.where is None:
            return False
        import shutil

        return shutil.disk_usage(self.where).free > slots * table.entries.shape[1] * 8
