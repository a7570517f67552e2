"""The Dask backend of ``solver.base.batch``: units as futures on a ``dask.distributed`` cluster.

Imported only when a batch runs on Dask (``--scheduler`` or ``--dask-local``): it needs the
optional extra, ``pip install "nimmt[dask]"``. Units are submitted with unique keys, at
most ``window`` at a time, and collected as they finish; the scheduler re-runs the units of
a worker that dies (a unit that kills workers again and again is reported, not retried
forever). A worker plugin warms each worker once. Ctrl-C and the time limit cancel the
futures left; a ``LocalCluster`` started for the run is closed with it.
"""
from __future__ import annotations

import gc
import hashlib
import logging
import os
import signal
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import dask
import distributed

from .errors import NimmtError, param

__all__ = ["IgnoreInterrupt", "WarmPlugin", "code_fingerprint", "connect", "local_cluster",
           "run"]

CONNECT_SECONDS = 3.0    # how long to try an unreachable scheduler before saying so
WORKER_WAIT = 10.0       # how long a scheduler without workers is waited for
POLL = 0.005             # seconds between looks for a finished unit


def _sources(root: str, folder: str) -> list[str]:
    """The ``.py`` files of ``root/folder``, relative to root, sorted; the solver's
    subfolders too (the top folder holds cli.py only: not walked)."""
    where = os.path.join(root, folder)
    if not folder:
        return sorted(n for n in os.listdir(where) if n.endswith(".py"))
    found = []
    for current, dirs, files in os.walk(where):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found += [os.path.relpath(os.path.join(current, n), root) for n in files
                  if n.endswith(".py")]
    return sorted(found)


def code_fingerprint() -> str:
    """nimmt's version and a hash of its source files: every worker must run this code."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("nimmt")
    except PackageNotFoundError:
        release = "unknown"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    digest = hashlib.sha256()
    for folder in ("", "solver", "puzzles"):
        for path in _sources(root, folder):
            with open(os.path.join(root, path), "rb") as f:
                digest.update(path.encode() + b"\0" + f.read())
    return f"{release}+{digest.hexdigest()[:12]}"


class WarmPlugin(distributed.WorkerPlugin):
    """``warm()`` once per worker when it joins (again after a restart)."""

    def __init__(self, warm: Callable[[], Any]) -> None:
        self.warm = warm

    def setup(self, worker: Any) -> None:
        self.warm()


class IgnoreInterrupt(distributed.WorkerPlugin):
    """The workers of a LocalCluster started for a run leave Ctrl-C to the command (which
    cancels its units and closes the cluster): no traceback from each worker. (Workers
    the user started are left alone.)"""

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def quiet() -> None:
    """Dask's own log lines (a worker lost, a unit re-run) are not the command's output.
    Dask's logging configuration gives some loggers their own level (``distributed.client``
    warns when a gather is cut short by Ctrl-C), so every one already made is raised."""
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore", module="distributed")


def local_cluster(workers: int) -> distributed.LocalCluster:
    """A LocalCluster of single-threaded worker processes, its dashboard on any free port,
    without the workers' statistical profiler (a stack sample every 10 ms of the unit's
    Python: time taken from the units, for a dashboard nobody watches here)."""
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        return distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True,
            dashboard_address=":0", silence_logs=logging.CRITICAL)


def connect(backend: Any) -> tuple[distributed.Client, distributed.LocalCluster | None]:
    """A client (and the LocalCluster it started, or None); one line when the scheduler
    cannot be reached, has no workers or runs other code."""
    quiet()
    cluster = None
    if backend.dask_local is not None:
        cluster = local_cluster(backend.dask_local)
        address = cluster.scheduler_address
    else:
        assert backend.scheduler is not None
        address = backend.scheduler
    reason = None
    try:
        client = distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        reason = str(e).split("\n")[0].strip() or type(e).__name__
    if reason is not None:
        # The half-made Client is held by the error's traceback; left to the interpreter's
        # exit, its __del__ waits 6 s for the scheduler it never reached and prints a
        # traceback. Outside the except block nothing holds it: collect it now, while its
        # event loop still runs (its close is then immediate).
        gc.collect()
        if cluster is not None:
            cluster.close()
        raise NimmtError(f"cannot reach the Dask scheduler at {address} ({reason[:100]}); "
                         f"start one with: dask scheduler, or check "
                         f"{param('scheduler')}")
    try:
        if cluster is not None:
            client.register_plugin(IgnoreInterrupt(), name="nimmt-ignore-interrupt")
        check_workers(client, address)
    except BaseException:
        client.close()
        if cluster is not None:
            cluster.close()
        raise
    return client, cluster


def check_workers(client: distributed.Client, address: str) -> None:
    """At least one worker, and every worker runs this nimmt (same version and source)."""
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT)
    except TimeoutError:
        raise NimmtError(f"the Dask scheduler at {address} has no workers; start some with: "
                         f"dask worker {address}") from None
    mine = code_fingerprint()
    theirs = client.run(code_fingerprint)
    other = sorted({f for f in theirs.values() if f != mine})
    if other:
        raise NimmtError(f"the Dask workers run another nimmt ({', '.join(other)}; here "
                         f"{mine}): install the same nimmt on every machine")


def run(task: Callable, numbered: Iterator[tuple[int, Any]], backend: Any, state: Any,
        warm: Callable[[], Any] | None, window: int | None, units_per_slot: int) -> None:
    """Run the units on the cluster (``backend``: a ``batch.Backend``); results go to
    ``state`` (a ``batch.RunState``) as they finish."""
    client, cluster = connect(backend)
    plugin = None
    futures: dict[distributed.Future, int] = {}
    try:
        if warm is not None:
            plugin = f"nimmt-warm-{uuid.uuid4().hex}"
            client.register_plugin(WarmPlugin(warm), name=plugin)
        slots = sum(w.get("nthreads", 1)
                    for w in client.scheduler_info()["workers"].values()) or 1
        limit = window or units_per_slot * slots
        prefix = f"nimmt-{uuid.uuid4().hex}"
        queue = distributed.as_completed(loop=client.loop, with_results=True)  # fetched ahead

        def refill() -> None:
            while len(futures) < limit:
                item = state.take(numbered)
                if item is None:
                    return
                future = client.submit(task, item[1], key=f"{prefix}-{item[0]}", pure=False)
                futures[future] = item[0]
                queue.add(future)

        refill()
        while futures:
            try:
                done = next_done(queue, state)
            except distributed.KilledWorker as e:
                raise NimmtError(f"a unit killed every Dask worker that ran it ({e}; out of "
                                 "memory?); the batch stopped") from None
            if done is None:
                state.batch.stopped = "time limit"
                break
            future, result = done
            index = futures.pop(future)
            state.record(index, result)
            future.release()
            if state.finished:
                break
            refill()
    finally:
        if futures:
            client.cancel(list(futures), force=True)
        if plugin is not None:
            try:
                client.unregister_worker_plugin(plugin)
            except Exception:  # noqa: BLE001 - the cluster may be gone: nothing to undo there
                pass
        client.close()
        if cluster is not None:
            cluster.close()


def next_done(queue: distributed.as_completed, state: Any
              ) -> tuple[distributed.Future, Any] | None:
    """The next finished future and its result, None once the time limit has passed
    (polled, so that Ctrl-C is seen at once)."""
    while not queue.has_ready():
        if state.out_of_time():
            return None
        time.sleep(POLL)
    return next(queue)
