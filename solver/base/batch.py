"""One execution layer for every batch command: seeded units run in-process, on local
processes or on a Dask cluster, with the same results.

A batch is a sequence of *units*: unit i is a picklable argument (usually a tuple holding
the settings, the seed and i) handed to a module-level *task*; the task's result depends only
on its unit, so on (seed, i), never on what runs it. ``run_units`` runs them on a ``Backend``:

* ``Backend()`` or ``Backend(workers=1)``: in this process, in index order;
* ``Backend(workers=N)``: N local worker processes (the standard library's process pool);
  no cluster, no extra package;
* ``Backend(scheduler="tcp://HOST:8786")``: an existing Dask cluster (``dask scheduler`` and
  ``dask worker tcp://HOST:8786`` on each machine, the same nimmt everywhere; checked);
* ``Backend(dask_local=N)``: a Dask ``LocalCluster`` of N single-threaded worker processes,
  started for the run and closed after it.

Dask (``dask.distributed``) is optional: ``pip install "nimmt[dask]"``; without it the Dask
backends stop with one line saying so. Whatever the backend:

* results come back as ``{index: result}`` (``Batch.results``); ``Batch.ordered()`` lists
  them by index, so a caller that folds them in index order gets the same figures bit for bit;
* ``progress(1)`` is called once per finished unit, in the calling process;
* ``on_result(index, result)`` is called in the calling process as each unit finishes (in
  the order they finish), e.g. to save a file per unit or to stop early: ``enough()`` is
  asked after each one, and True stops the batch (units not started are never run);
* ``time_limit`` (seconds) and Ctrl-C stop the batch: units not finished are cancelled (the
  cluster's futures too; a local pool's worker processes still running one are stopped, not
  waited for), the units finished are returned, ``Batch.stopped`` says why
  (``"time limit"`` or ``"interrupted"``);
* ``warm`` (a picklable callable, e.g. ``functools.partial(task, small_unit)``) runs once in
  each worker before its first unit, so that each worker compiles or loads the numba
  kernels once, not per unit (a Dask worker plugin; the process pool's initializer; in
  process, once before the first unit);
* a worker that dies mid-run loses nothing: Dask re-runs its units on the other workers (and
  the worker's nanny restarts it), the process pool is rebuilt and the units it had not
  returned run again. Units are pure, so the results do not change.

Only ``window`` tasks are in flight at once (default: 4 per worker slot), so a batch of
millions of units, or an open-ended one stopped by ``enough``, never queues them all. Units
of a few milliseconds pass ``group=G``: a pool's or a cluster's task then runs G consecutive
units (results, progress and ``on_result`` stay per unit; in process they run one by one).

Wiring a batch command (e.g. ``solve-deal --deals N --seed S``) takes a few lines::

    def solve_one(unit: tuple[Settings, int]) -> dict:      # module level: picklable
        settings, i = unit
        return solve(deal_for(settings.seed, i))             # depends on (seed, i) only

    batch = run_units(solve_one, [(settings, i) for i in range(deals)], backend,
                      progress=bar, time_limit=time_limit)
    records = batch.ordered()                                # by deal index
    complete = batch.stopped is None

and on the command line ``@batch_options`` (cli.py) adds ``--workers``, ``--scheduler`` and
``--dask-local`` and hands the command a ``Backend`` as its ``batch`` argument.
"""
from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from typing import Any, Generic, TypeVar

from .errors import NimmtError, param
from .notice import work_clock

__all__ = ["Backend", "Batch", "DASK_MISSING", "RunState", "run_group", "run_units"]

U = TypeVar("U")
R = TypeVar("R")

DASK_MISSING = ('Dask is not installed: pip install "nimmt[dask]" (or pip install '
                '"dask[distributed]") to use a Dask cluster')
UNITS_PER_SLOT = 4       # units in flight per worker slot
MAX_POOL_RESTARTS = 3    # a process pool rebuilt more often than this gives up


@dataclass(frozen=True)
class Backend:
    """What runs the units: ``workers`` local processes (1: this process), or a Dask
    cluster at ``scheduler``, or a ``LocalCluster`` of ``dask_local`` workers."""

    workers: int = 1
    scheduler: str | None = None
    dask_local: int | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise NimmtError(f"{param('workers')} must be at least 1")
        if self.dask_local is not None and self.dask_local < 1:
            raise NimmtError(f"{param('dask_local')} must be at least 1")
        if self.scheduler is not None and self.dask_local is not None:
            raise NimmtError(f"give either {param('scheduler')} (an existing cluster) or "
                             f"{param('dask_local')} (a cluster on this machine), not both")
        if (self.scheduler is not None or self.dask_local is not None) and self.workers != 1:
            raise NimmtError(f"{param('workers')} is for local processes; a Dask cluster has "
                             "its own workers (give one or the other)")

    @property
    def uses_dask(self) -> bool:
        return self.scheduler is not None or self.dask_local is not None

    def describe(self) -> str:
        """One phrase for reports: 'in process', '4 local processes', 'Dask at ...'."""
        if self.scheduler is not None:
            return f"Dask scheduler {self.scheduler}"
        if self.dask_local is not None:
            return f"Dask LocalCluster of {self.dask_local} workers"
        return "in process" if self.workers == 1 else f"{self.workers} local processes"


@dataclass
class Batch(Generic[R]):
    """The units finished: ``results[index]``; ``stopped`` None when every unit ran (or
    ``enough`` said so), else 'time limit' or 'interrupted'."""

    results: dict[int, R] = field(default_factory=dict)
    stopped: str | None = None
    seconds: float = 0.0     # the whole run, start-up included
    startup: float = 0.0     # before the first unit was handed out (cluster, connection, warm)
    units: int = 0           # units handed out (started or queued) before the end

    def ordered(self) -> list[R]:
        """The results by unit index."""
        return [self.results[i] for i in sorted(self.results)]


class RunState:
    """One run's bookkeeping, shared by the backends: deadline, callbacks, the results."""

    def __init__(self, progress: Callable[[int], None] | None,
                 on_result: Callable[[int, Any], None] | None,
                 enough: Callable[[], bool] | None, time_limit: float | None) -> None:
        self.progress, self.on_result, self.enough = progress, on_result, enough
        self.start = work_clock()
        self.deadline = None if time_limit is None else self.start + time_limit
        self.batch: Batch = Batch()
        self.finished = False   # enough() said so
        self.grouped = False    # each task runs a group of units (run_units' ``group``)

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - work_clock()

    def out_of_time(self) -> bool:
        left = self.left()
        return left is not None and left <= 0

    def take(self, numbered: Iterator[tuple[int, Any]]) -> tuple[int, Any] | None:
        """The next (index, unit) to hand out; None at the end, once ``enough`` said so, or
        past the time limit (then noted: a batch whose units all ran is complete however
        late its last one finished)."""
        if self.finished:
            return None
        item = next(numbered, None)
        if item is None:
            return None
        if self.out_of_time():
            self.batch.stopped = "time limit"
            return None
        if self.batch.units == 0:
            self.batch.startup = work_clock() - self.start
        self.batch.units += len(item[1]) if self.grouped else 1
        return item

    def record(self, index: int, result: Any) -> None:
        if self.grouped:  # a group of units: (unit index, result) pairs
            for i, r in result:
                self.record_one(i, r)
        else:
            self.record_one(index, result)

    def record_one(self, index: int, result: Any) -> None:
        self.batch.results[index] = result
        if self.on_result is not None:
            self.on_result(index, result)
        if self.progress is not None:
            self.progress(1)
        if self.enough is not None and self.enough():
            self.finished = True


def run_units(task: Callable[[U], R], units: Iterable[U], backend: Backend = Backend(), *,
              progress: Callable[[int], None] | None = None,
              on_result: Callable[[int, R], None] | None = None,
              enough: Callable[[], bool] | None = None,
              time_limit: float | None = None,
              warm: Callable[[], Any] | None = None,
              window: int | None = None, group: int = 1) -> Batch[R]:
    """Run ``task(unit)`` for each unit on ``backend``; see the module's docstring.
    Ctrl-C and ``time_limit`` return the units finished, ``stopped`` saying why.
    ``group`` > 1: each task of a process pool or a cluster runs that many consecutive units
    (short units pay the per-task cost once per group; results, progress and ``on_result``
    stay per unit; in process, units run one by one, so Ctrl-C keeps every unit finished)."""
    run = RunState(progress, on_result, enough, time_limit)
    numbered: Iterator[tuple[int, Any]] = enumerate(units)
    runs: Callable[[Any], Any] = task
    if group > 1 and (backend.uses_dask or backend.workers > 1):  # in process: unit by unit
        run.grouped = True
        numbered = enumerate(_groups(numbered, group))
        runs = partial(run_group, task)
    try:
        if backend.uses_dask:
            _run_dask(runs, numbered, backend, run, warm, window)
        elif backend.workers > 1:
            _run_pool(runs, numbered, backend.workers, run, warm, window)
        else:
            _run_here(runs, numbered, run, warm)
    except KeyboardInterrupt:
        run.batch.stopped = "interrupted"
    run.batch.seconds = work_clock() - run.start
    return run.batch


def _groups(numbered: Iterator[tuple[int, Any]], size: int
            ) -> Iterator[list[tuple[int, Any]]]:
    """Consecutive (index, unit) pairs in lists of ``size`` (the last one shorter)."""
    while chunk := list(islice(numbered, size)):
        yield chunk


def run_group(task: Callable, pairs: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """A task of a grouped batch: each unit's (index, result)."""
    return [(i, task(unit)) for i, unit in pairs]


# ---------------------------------------------------------------- in process

def _run_here(task: Callable, numbered: Iterator[tuple[int, Any]], run: RunState,
              warm: Callable[[], Any] | None) -> None:
    if warm is not None:
        warm()
    while (item := run.take(numbered)) is not None:
        run.record(item[0], task(item[1]))


# ---------------------------------------------------------------- local processes

def _start_worker(warm: Callable[[], Any] | None) -> None:
    """A pool worker leaves Ctrl-C to the parent (which stops it) and warms up once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm is not None:
        warm()


def _run_pool(task: Callable, numbered: Iterator[tuple[int, Any]], workers: int, run: RunState,
              warm: Callable[[], Any] | None, window: int | None) -> None:
    """A process pool with ``window`` units in flight; a broken pool (a worker killed) is
    rebuilt and the units it had not returned are handed out again, in index order."""
    limit = window or UNITS_PER_SLOT * workers
    if warm is not None and run.deadline is not None:
        warm()  # compiled here once (work_clock leaves it out of the time limit), loaded there
    retry: list[tuple[int, Any]] = []       # units of a broken pool, to run again
    for _ in range(MAX_POOL_RESTARTS + 1):
        if not _pool_round(task, numbered, workers, run, warm, limit, retry):
            return
        retry.sort(key=lambda item: item[0])
    raise NimmtError(f"worker processes died {MAX_POOL_RESTARTS + 1} times; the batch "
                     "stopped (is the machine out of memory?)")


def _pool_round(task: Callable, numbered: Iterator[tuple[int, Any]], workers: int, run: RunState,
                warm: Callable[[], Any] | None, limit: int,
                retry: list[tuple[int, Any]]) -> bool:
    """Run units on one pool until the end; True when the pool broke (``retry`` then
    holds the units to run again)."""
    pool = ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(warm,))
    flying: dict[Future, tuple[int, Any]] = {}
    broken = False

    def settle(futures: Iterable[Future]) -> None:
        nonlocal broken
        for future in sorted(futures, key=lambda f: flying[f][0]):
            item = flying.pop(future)
            try:
                result = future.result()
            except BrokenProcessPool:
                retry.append(item)
                broken = True
                continue
            run.record(item[0], result)

    cut_off = True  # until the loop ends by itself: Ctrl-C or an error leaves units running
    try:
        while True:
            while not broken and len(flying) < limit and not run.batch.stopped \
                    and not run.finished:
                item = retry.pop(0) if retry else run.take(numbered)
                if item is None:
                    break
                try:
                    flying[pool.submit(task, item[1])] = item
                except BrokenProcessPool:
                    retry.insert(0, item)
                    broken = True
            if not flying:
                break
            finished, _ = wait(flying, timeout=run.left(), return_when=FIRST_COMPLETED)
            if not finished:
                run.batch.stopped = "time limit"
                break
            settle(finished)
            if broken:  # every other unit of a broken pool fails too: run them again
                settle(wait(flying).done)
                break
            if run.finished:
                break
        cut_off = run.batch.stopped is not None
    finally:
        if cut_off and flying:  # a unit still running would be waited for: stop them now
            # (no cancel() first: Python 3.11's pool then fails on a cancelled future when
            # it finds its workers gone; the units left simply end as BrokenProcessPool)
            _terminate_workers(pool)
            pool.shutdown(wait=True)
        else:
            for future in flying:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
    return broken and run.batch.stopped is None


def _terminate_workers(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's worker processes at once (SIGTERM): the units they run are cut off,
    as a time limit or Ctrl-C asks, instead of being waited for (a unit may take hours)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            process.terminate()
        except (OSError, AttributeError, ValueError):  # already gone
            pass


def _run_dask(task: Callable, numbered: Iterator[tuple[int, Any]], backend: Backend,
              run: RunState, warm: Callable[[], Any] | None, window: int | None) -> None:
    try:
        from . import batchdask
    except ImportError:
        raise NimmtError(DASK_MISSING) from None
    batchdask.run(task, numbered, backend, run, warm, window, UNITS_PER_SLOT)

