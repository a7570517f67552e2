"""Exact search over the rest of a round from a position: models ``random`` and ``worst``.

``solve_exact`` values every card in hand with the kernel of
``solver/kernels/exactsearch.py`` (the algorithm is described there), one card after
another sharing one memo, within a node budget, a memory budget, a time limit and Ctrl-C;
a long search runs in a worker thread while the caller's thread watches the clock.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..base.defaults import DEFAULT_MEMORY
from ..base.errors import (
    BudgetExceeded,
    MemoryExceeded,
    NimmtError,
    SearchInterrupted,
    SearchStopped,
    param,
)
from ..base.notice import compiling, work_clock
from ..kernels.engine import compiled_for, row_table
from ..kernels.exactsearch import (
    ABORTED,
    CARDS_DONE,
    ENTRIES,
    HITS,
    INTERRUPTED,
    MAX_SLOTS,
    MODELS,
    PRUNED,
    RESOLVED,
    SLOTS,
    STAT_SLOTS,
    STATES,
    STOP,
    STOPPED_FLAG,
    STOPPED_MEMORY,
    TIME_LIMIT,
    attribution,
    memo_layout,
    memo_max_slots,
    memo_slot_bytes,
    solve_cards,
)
from ..positions.objective import goal_array, objective_value
from ..positions.owners import estimate_nodes, owner_array
from ..positions.position import Position

__all__ = ["CardLine", "ExactResult", "solve_exact", "start_worker"]

# Searches estimated below this run in the caller's thread: they take milliseconds, and a
# worker thread would cost more than they do.
INLINE_NODES = 20_000
POLL_SECONDS = 0.05
# with a time limit the watcher wakes at the deadline, then every LIMIT_POLL_SECONDS: the
# search stops within that plus 1,024 nodes (within max(10%, 50 ms))
LIMIT_POLL_SECONDS = 0.005


@dataclass(frozen=True)
class CardLine:
    """One card's exact result: its value (expected or guaranteed cows to the end of
    the round), its cows this turn, and the probability it takes a row this turn
    (random: under the model; worst: 1 or 0 on the adversary's line)."""

    card: int
    value: float
    cows_now: float
    take_probability: float


@dataclass(frozen=True)
class ExactResult:
    model: str
    cards: tuple[CardLine, ...]
    resolved: int   # nodes: joint actions resolved (a turn's cards placed)
    states: int     # distinct turn-boundary states expanded
    memo_hits: int
    pruned: int     # cards cut off by the worst-case bound
    seconds: float
    objective: str = "cows"


def solve_exact(position: Position, model: str = "random", max_nodes: int = 50_000_000,
                time_limit: float | None = None, memory: int = DEFAULT_MEMORY,
                progress: Callable[[int], None] | None = None,
                objective: str = "cows") -> ExactResult:
    """Exact value of every card in hand for ``model`` ('random' or 'worst') and
    ``objective`` (``goal_array``: cows and margin from now to the end of the round, win
    the probability of ending it with the fewest cows, ties shared; the worst model's
    adversary plays against player 1's objective).

    The cards are solved one after another, sharing one memo. The search stops early,
    keeping the cards it finished, past ``max_nodes`` nodes (BudgetExceeded), when its
    memo would pass ``memory`` bytes (MemoryExceeded), after ``time_limit`` seconds
    (SearchStopped) or on Ctrl-C (SearchInterrupted); it runs in a worker thread (the
    kernel releases the GIL) while this one watches the clock. ``progress(n)`` reports
    n more root cards solved.

    >>> from nimmt.solver.positions.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> r = solve_exact(p, "worst")
    >>> sorted((c.value, c.card) for c in r.cards)[0]
    (0.0, 13)
    """
    if model not in MODELS:
        raise NimmtError(f"unknown model {model!r} for exact search; use random or worst")
    if time_limit is not None and not time_limit > 0:
        raise NimmtError(f"time_limit={time_limit!r} must be a positive number of seconds")
    clock = work_clock()  # the time limit: work time from here (a compile is not counted)
    goal = goal_array(position, objective)
    owner, known, hidden = owner_array(position)
    table = row_table(position.rows)
    stats = np.zeros(STAT_SLOTS, np.int64)
    layout = memo_layout(owner, position.professional,
                         position.players if objective == "win" else 0)
    stats[MAX_SLOTS] = memo_max_slots(memory, memo_slot_bytes(layout))
    results = np.zeros((position.cards_left, 3))
    cards = np.asarray(position.hand, np.int64)
    args = (table, owner, position.deck_size, known, hidden, position.professional,
            MODELS[model], cards, layout, goal, attribution(goal))
    if not compiled_for(solve_cards, *args, stats, max_nodes, results):
        # compile or load first: reported times are the search's
        solve_cards(*args, np.zeros(STAT_SLOTS, np.int64), 0, results.copy())
    start = work_clock()
    interrupted = False
    if time_limit is None and progress is None and estimate_nodes(position) <= INLINE_NODES:
        solve_cards(*args, stats, max_nodes, results)
    else:
        interrupted = _run_watched(args, stats, max_nodes, results, clock, time_limit, progress)
    seconds = work_clock() - start
    lines = [CardLine(card, objective_value(objective, float(v)), float(now), float(took))
             for card, (v, now, took) in zip(position.hand, results)]
    if stats[ABORTED]:
        _raise_stopped(stats, lines, position, model, max_nodes, time_limit, memory, seconds,
                       interrupted, memo_slot_bytes(layout))
    if interrupted:  # Ctrl-C as the search finished: the interrupt still stops the caller
        raise KeyboardInterrupt
    return ExactResult(model, tuple(lines), int(stats[RESOLVED]), int(stats[STATES]),
                       int(stats[HITS]), int(stats[PRUNED]), seconds, objective)


def start_worker(thread: threading.Thread) -> None:
    """Start ``thread`` with SIGINT held back from the main thread while it starts: a
    KeyboardInterrupt inside ``Thread.start`` can leave it waiting for good (CPython 3.11).
    The worker keeps SIGINT blocked, so Ctrl-C reaches the main thread, which stops it."""
    if (threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "pthread_sigmask")):
        thread.start()
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _run_watched(args, stats, max_nodes, results, start, time_limit, progress) -> bool:
    """Run the search in a worker thread; stop it at the time limit or on Ctrl-C (then
    True). An error inside the worker is raised here."""
    failures: list[BaseException] = []
    # An Event, not Thread.join: a join that Ctrl-C interrupts may mark the thread
    # finished while it still runs (CPython 3.11), and a second join then returns at once.
    done = threading.Event()

    def work() -> None:
        try:
            # numba's Dispatcher.__call__ is typed without the kernel's parameters
            solve_cards(*args, stats, max_nodes, results)  # type: ignore[call-arg]
        except BaseException as error:  # handed to the caller's thread
            failures.append(error)
        finally:
            done.set()

    start_worker(threading.Thread(target=work, daemon=True))
    reported = 0
    interrupted = False
    try:
        while not done.wait(POLL_SECONDS if time_limit is None else min(
                POLL_SECONDS, max(start + time_limit - work_clock(), LIMIT_POLL_SECONDS))):
            if time_limit is not None and work_clock() - start > time_limit:
                stats[STOP] = TIME_LIMIT
            if progress is not None and stats[CARDS_DONE] > reported:
                step, reported = int(stats[CARDS_DONE]) - reported, int(stats[CARDS_DONE])
                progress(step)
    except KeyboardInterrupt:
        stats[STOP] = INTERRUPTED
        interrupted = True
        if compiling():  # the worker has not started searching: nothing to wait for
            raise
        done.wait()  # within 1024 nodes
    if failures:
        raise failures[0]
    if progress is not None and not interrupted and stats[CARDS_DONE] > reported:
        progress(int(stats[CARDS_DONE]) - reported)
    return interrupted


def _raise_stopped(stats, lines, position, model, max_nodes, time_limit, memory, seconds,
                   interrupted, slot_bytes) -> None:
    done = int(stats[CARDS_DONE])
    total = position.cards_left
    nodes = int(stats[RESOLVED])
    kept = dict(finished=tuple(lines[:done]), cards_total=total, nodes=nodes, seconds=seconds)
    so_far = f"after {nodes:,} nodes, {done} of {total} cards solved"
    if interrupted:
        raise SearchInterrupted(f"exact search interrupted {so_far}", **kept)
    why = int(stats[ABORTED])
    if why == STOPPED_MEMORY:
        slots, entries = int(stats[SLOTS]), int(stats[ENTRIES])
        raise MemoryExceeded(
            f"exact search ({model}) stopped at its memory budget of {_size(memory)}: the "
            f"memo filled its largest table ({slots:,} slots of {slot_bytes} bytes, "
            f"{entries:,} entries; {_size(slots * slot_bytes)}) ({so_far}); "
            f"raise {param('memory', beside=True)} or analyse a position with fewer cards left",
            **kept)
    if why == STOPPED_FLAG:
        raise SearchStopped(
            f"exact search ({model}) stopped at the time limit of {time_limit:g} s ({so_far}); "
            f"allow more time ({param('time_limit', beside=True)}) or analyse a position with "
            "fewer cards left", "time limit", **kept)
    raise BudgetExceeded(
        f"exact search ({model}) passed its budget of {max_nodes:,} nodes ({so_far}); raise "
        f"{param('max_nodes', beside=True)} or use Monte Carlo ({param('method', 'montecarlo')})",
        **kept)


def _size(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB" if size < 2**30 else f"{size / 2**30:.1f} GiB"
