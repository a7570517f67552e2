"""The batch layer's backends side by side: one batch of units in process, on
local processes and on a 2-worker Dask LocalCluster, in one run.

    python benchmarks/backends.py [--candidates 200] [--deals 2000] [--long-deals 200]
                                     [--workers 2] [--repeats 1]

Batches: puzzle candidates (3 players, k = 4, worst: about a third of a second each),
duplicate arena deals of rule-of-thumb bots (2 players, one round: a few milliseconds each)
and whole-game arena deals (4 players to 66: about a quarter of a second each). Each batch
runs through ``solver.base.batch.run_units`` with the commands' own unit functions.

Figures per backend: start-up (before the first unit: connection, warm-up), the steady wall
time after it, units per second (steady), and the overhead per unit: steady wall time x
worker slots / units minus the in-process time per unit (what a unit costs beyond its own
computation). The LocalCluster is started once (its start-up is printed apart), so each
batch's Dask start-up is the client's connection and the warm-up plugin. Goal: Dask's
throughput within 10% of the local processes' for units longer than 50 ms. The machine's
load (``os.getloadavg``) is printed with the figures: on a shared machine they move, so
``--repeats R`` runs the backends in turn R times and keeps each one's best.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial

from tabulate import tabulate

HERE = os.path.dirname(os.path.abspath(__file__))
# This file's name is the Dask package's: its folder must not shadow the package.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, os.path.join(HERE, ".."))

from nimmt.puzzles.core import Settings, try_candidate  # noqa: E402
from nimmt.solver.base.batch import Backend, run_units  # noqa: E402
from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.players.arena import play_deal, unit_group, warm_deal  # noqa: E402
from nimmt.solver.players.bots import parse_bots  # noqa: E402


def games_of(results: list) -> list:
    """The deals' games without their decision times (which are measured, not computed)."""
    return [(g.deal, g.rotation, g.seat_of, g.totals, g.rounds) for r in results for g in r]


def puzzles_of(results: list) -> list:
    return [(i, p.to_json() if p is not None else None) for i, p in results]


def batches(args: argparse.Namespace) -> list[tuple[str, object, list, object, object, int]]:
    """(name, task, units, warm, what must be equal in the results, units per task) of
    each batch (the grouping the commands use)."""
    puzzle = Settings("tactical", 3, "normal", 4, "worst", 1.0, False, 1)
    short = Rules("tactical", 2, one_round=True)
    short_bots = tuple(parse_bots("closest,random"))
    long = Rules("tactical", 4)
    long_bots = tuple(parse_bots("closest,random,dumper,lowkeeper"))
    return [
        (f"{args.candidates} puzzle candidates (3p k=4 worst)", try_candidate,
         [(puzzle, i) for i in range(args.candidates)],
         partial(try_candidate, (Settings("tactical", 3, "normal", 2, "worst", 1.0, False, 1),
                                 0)), puzzles_of, 1),
        (f"{args.deals} arena deals (2p one round)", play_deal,
         [(short, short_bots, 1, d, True, None, False) for d in range(args.deals)],
         partial(play_deal, warm_deal(short, short_bots, None)), games_of,
         unit_group(short, short_bots, None)),
        (f"{args.long_deals} arena deals (4p whole games)", play_deal,
         [(long, long_bots, 1, d, True, None, False) for d in range(args.long_deals)],
         partial(play_deal, warm_deal(long, long_bots, None)), games_of,
         unit_group(long, long_bots, None)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=200)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--long-deals", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1,
                        help="Rounds of the backends in turn; the best of each is shown.")
    args = parser.parse_args()

    from nimmt.solver.base.batchdask import local_cluster

    load_before = os.getloadavg()
    start = time.perf_counter()
    cluster = local_cluster(args.workers)  # as --dask-local starts it
    cluster_start = time.perf_counter() - start
    backends = [("in process", Backend(), 1),
                (f"{args.workers} local processes", Backend(workers=args.workers),
                 args.workers),
                (f"Dask LocalCluster, {args.workers} workers",
                 Backend(scheduler=cluster.scheduler_address), args.workers)]
    rows = []
    try:
        for name, task, units, warm, same, group in batches(args):
            best: dict[str, tuple[float, float]] = {}  # backend -> (steady, start-up), best
            results = None
            for _ in range(args.repeats):  # the backends in turn, each round
                for label, backend, _slots in backends:
                    run = run_units(task, units, backend, warm=warm, group=group)
                    assert run.stopped is None and len(run.results) == len(units)
                    if results is None:
                        results = same(run.ordered())
                    assert same(run.ordered()) == results, f"{label}: other results"
                    steady = run.seconds - run.startup
                    if label not in best or steady < best[label][0]:
                        best[label] = (steady, run.startup)
            here = best[backends[0][0]][0] / len(units)
            local = len(units) / best[backends[1][0]][0]
            for label, _backend, slots in backends:
                steady, startup = best[label]
                per_unit, rate = steady / len(units), len(units) / steady
                versus = f"{rate / local - 1:+.1%}" if label.startswith("Dask") else ""
                rows.append([name, label, f"{startup:.2f}", f"{steady:.2f}", f"{rate:.1f}",
                             f"{1000 * per_unit * slots:.1f}",
                             f"{1000 * (per_unit * slots - here):+.1f}", versus])
    finally:
        cluster.close()
    load_after = os.getloadavg()
    print(f"batch backends side by side, best of {args.repeats}; LocalCluster start-up "
          f"{cluster_start:.1f} s; "
          f"{os.cpu_count()} cores; load average {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after")
    print(tabulate(rows, headers=["batch", "backend", "start-up s", "steady s", "units/s",
                                  "ms per unit per slot", "overhead ms/unit",
                                  "Dask vs local"], tablefmt="github"))


if __name__ == "__main__":
    main()
