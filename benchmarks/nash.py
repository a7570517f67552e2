"""Equilibrium (nash) figures: for k = 4..8 cards each, several random 2-player tactical
deals: distinct states, how states were decided (LP, a saddle point of the whole matrix,
best replies, alpha-beta bounds), seconds with one worker and with two side by side (the
speed-up measured in the same run), the alpha-beta windows against the plain search, peak
memory; the growth per card and what a full 10-card solve would cost.

    python benchmarks/nash.py [--max-k 8] [--deals 3] [--window-max-k 7]
    python benchmarks/nash.py --compare OLD_CHECKOUT [--ks 6,7] [--deals 3] [--repeat 2]
                              [--placements normal,professional]
    python benchmarks/nash.py --levels 6,7,8 [--deals 3]
    python benchmarks/nash.py --by-cell 6,7,8 [--deals 2]
    python benchmarks/nash.py --goal 9 [--memory 8] [--seed 10] [--plan-only] [--replace]
                              [--time-limit SECONDS] [--checkpoint FILE] [--root needed]
    python benchmarks/nash.py --root-cells 6,7 [--deals 3]

Each solve runs in its own process so that its peak memory (ru_maxrss) is its own.
``--compare`` solves the same positions with this checkout and with OLD_CHECKOUT (e.g. a
git worktree of an earlier commit: ``git worktree add /tmp/nimmt-old-nash a7ef167``), each
in its own process with its own sys.path, alternating, one worker, normal and professional
placement: states, stored states, seconds and peak memory side by side (the best of
``--repeat`` runs). ``--levels`` prints the distinct states stored per level (cards left
each), the planner's estimate beside it, and where a state's bytes go; ``--goal K`` prints
the plan for one dealt position of K cards each within ``--memory`` (estimated states, the
first table; ``--plan-only`` stops there), solves it and prints states, peak memory,
seconds and exploitability with the load.
Each checkout's children compile into their own numba cache folder (they import the
checkout's ``solver`` package, not the installed ``nimmt.solver``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

import numpy as np
from tabulate import tabulate

from checkouts import CHILD_PRELUDE, checkout_env

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CHILD = r"""
import hashlib, json, os, resource, sys, time
sys.path.insert(0, sys.argv[5])
import solver
assert os.path.samefile(os.path.dirname(solver.__file__), os.path.join(sys.argv[5], "solver"))
deal_position = module("solver", "game").deal_position
solve_nash = module("solver", "nash").solve_nash
Rules = module("solver", "rules").Rules
k, seed, workers, window = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
placement = sys.argv[6] if len(sys.argv) > 6 else "normal"
memory = int(sys.argv[7]) if len(sys.argv) > 7 else 2**40
replace = len(sys.argv) > 8 and sys.argv[8] == "1"
limit = (float(sys.argv[9]) or None) if len(sys.argv) > 9 else None  # 0: none
checkpoint = sys.argv[10] if len(sys.argv) > 10 else ""  # "": none
root = sys.argv[11] if len(sys.argv) > 11 else "all"  # the root cells: all or needed
p = deal_position(Rules("tactical", 2, placement), k, seed=seed)
solve_nash(deal_position(Rules("tactical", 2, placement), 3, seed=1), window=window)  # load
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
load = os.getloadavg()[0]
done, started = [0], time.perf_counter()
def progress(n):  # root cells solved, to stderr (a long --goal solve shows how it goes)
    done[0] += n
    if replace:
        print(f"  {done[0]}/{k * k} root cells, {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)
kept = {}
if checkpoint:  # the root cells of earlier runs (solver.search.deals.Checkpoint)
    Checkpoint = module("solver", "deals").Checkpoint
    book = Checkpoint(checkpoint, p)
    kept = {"known": book.cells, "on_cell": book.record}
    print(f"  {len(book.cells)}/{k * k} root cells from {checkpoint}"
          + (f" ({book.older} of them by another version of the search)" if book.older
             else ""), file=sys.stderr, flush=True)
try:
    r = solve_nash(p, memory=memory, workers=workers, window=window, progress=progress,
                   time_limit=limit, **kept,
                   **({"replace": True} if replace else {}),  # (older checkouts have none)
                   **({"root": root} if root != "all" else {}))
except Exception as stopped:  # the time limit (NashStopped) or a failure: how far it got
    print(json.dumps({"stopped": f"{type(stopped).__name__}: {stopped}", "cells": done[0],
                      "resumed": len(kept["known"]) if kept else 0,
                      "seconds": time.perf_counter() - started, "load": load,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "load_after": os.getloadavg()[0]}))
    sys.exit(0)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"states": r.states, "stored": r.stored, "lp": r.matrix_games,
                  "saddle": r.saddle_points, "reply": r.best_reply_saddles,
                  "cut": r.bound_cutoffs, "seconds": r.seconds, "peak_mb": peak / 1024,
                  "bytes_per_state": (peak - base) * 1024 / max(1, r.stored),
                  "table_mb": r.table_bytes / 2**20, "cells": r.nodes,
                  "exploitability": r.exploitability, "value": r.value,
                  "levels": list(getattr(r, "levels", ())), "load": load,
                  "digest": hashlib.sha1(r.matrix.tobytes() + repr((r.value, r.p1_frequency,
                      r.p2_frequency, r.p1_ev, r.p2_ev)).encode()).hexdigest(),
                  "load_after": os.getloadavg()[0], "base_mb": base / 1024,
                  "replaced": getattr(r, "replaced", 0), "dropped": getattr(r, "dropped", 0),
                  "resumed": getattr(r, "resumed", 0),
                  "root_cells": int((r.matrix == r.matrix).sum()),  # solved (not NaN)
                  "matrix": [[v if v == v else None for v in map(float, row)]
                             for row in r.matrix],
                  "x": list(r.p1_frequency), "y": list(r.p2_frequency)}))
"""


# The same deal solved cell by cell (solver.search.deals.solve_by_cells: each root cell a unit of
# the batch layer, in a table of its own) on ``jobs`` local processes; this checkout's
# installed code. argv = [k, seed, jobs]; stdout: JSON.
BY_CELL = r"""
import hashlib, json, resource, sys, time
from nimmt.solver.base.batch import Backend
from nimmt.solver.search.deals import solve_by_cells
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import solve_nash
from nimmt.solver.base.rules import Rules
k, seed, jobs = map(int, sys.argv[1:4])
solve_nash(deal_position(Rules("tactical", 2), 3, seed=1))  # load the kernels
r = solve_by_cells(deal_position(Rules("tactical", 2), k, seed=seed), Backend(jobs), workers=1)
peak = max(resource.getrusage(who).ru_maxrss
           for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print(json.dumps({"seconds": r.seconds, "value": r.value, "peak_mb": peak / 1024,
                  "exploitability": r.exploitability,
                  "digest": hashlib.sha1(r.matrix.tobytes() + repr((r.value, r.p1_frequency,
                      r.p2_frequency, r.p1_ev, r.p2_ev)).encode()).hexdigest()}))
"""


def by_cell(ks: list[int], deals: int) -> None:
    """Each deal solved twice, one process each: two worker threads sharing one table
    (solve_nash), and cell by cell on two local processes, a table each (solve_by_cells,
    what a cluster runs); the equilibrium must be identical (a digest of the root cells,
    value and strategies)."""
    rows = []
    for k in ks:
        for seed in range(10, 10 + deals):
            shared = solve(k, seed, 2)
            out = subprocess.check_output([sys.executable, "-c", BY_CELL, str(k), str(seed),
                                           "2"], cwd=os.path.dirname(ROOT))
            cells = json.loads(out)
            rows.append([k, seed, f"{shared['stored']:,}", round(shared["seconds"], 2),
                         round(cells["seconds"], 2),
                         f"{cells['seconds'] / shared['seconds']:.2f}",
                         round(shared["peak_mb"]), round(cells["peak_mb"]),
                         "yes" if cells["digest"] == shared["digest"] else "NO",
                         f"{cells['exploitability']:.0e}"])
    print(tabulate(rows, headers=["k", "seed", "stored (shared)", "s, shared table",
                                  "s, by cell", "by cell / shared", "peak MB, shared",
                                  "peak MB, a cell process", "identical", "exploitability"],
                   tablefmt="github"))
    print(f"load (1 min) at the end: {os.getloadavg()[0]:.1f}")


def solve(k: int, seed: int, workers: int, window: bool = False, root: str = ROOT,
          placement: str = "normal", memory: int = 2**40, replace: bool = False,
          time_limit: float = 0.0, checkpoint: str = "", root_cells: str = "all") -> dict:
    root = os.path.abspath(root)
    out = subprocess.check_output([sys.executable, "-c", CHILD_PRELUDE + CHILD, str(k),
                                   str(seed), str(workers), "1" if window else "0", root, placement,
                                   str(memory), "1" if replace else "0", str(time_limit),
                                   os.path.abspath(checkpoint) if checkpoint else "",
                                   root_cells],
                                  cwd=os.path.dirname(root),
                                  env=checkout_env(root))
    return json.loads(out)


def compare(old_root: str, ks: list[int], deals: int, repeat: int,
            placements: tuple[str, ...] = ("normal", "professional")) -> None:
    """Old and new code on the same positions, alternating, one worker."""
    rows, totals = [], {"old": 0.0, "new": 0.0}
    for placement in placements:
        for k in ks:
            for seed in range(10, 10 + deals):
                runs = {"old": [], "new": []}
                for _ in range(repeat):
                    for side, root in (("old", old_root), ("new", ROOT)):
                        runs[side].append(solve(k, seed, 1, root=root, placement=placement))
                old = min(runs["old"], key=lambda r: r["seconds"])
                new = min(runs["new"], key=lambda r: r["seconds"])
                assert abs(old["value"] - new["value"]) < 1e-9, (k, seed, placement)
                same = "yes" if old["digest"] == new["digest"] else "no"
                totals["old"] += old["seconds"]
                totals["new"] += new["seconds"]
                rows.append([placement, k, seed, f"{old['states']:,}", f"{new['states']:,}",
                             f"{old['stored']:,}", f"{new['stored']:,}",
                             f"{old['seconds']:.2f}", f"{new['seconds']:.2f}",
                             f"{new['seconds'] / old['seconds']:.3f}",
                             f"{old['peak_mb']:,.0f}", f"{new['peak_mb']:,.0f}", same])
                print(f"{placement} k={k} seed={seed}: done", file=sys.stderr, flush=True)
    rows.append(["all", "", "", "", "", "", "", f"{totals['old']:.2f}",
                 f"{totals['new']:.2f}", f"{totals['new'] / totals['old']:.3f}", "", "", ""])
    print(f"nash, old ({old_root}) and new side by side, one worker, best of {repeat}")
    print(tabulate(rows, headers=["placement", "k", "seed", "states, old", "states, new",
                                  "stored, old", "stored, new", "s, old", "s, new",
                                  "new / old", "peak MB, old", "peak MB, new",
                                  "identical (root cells, value, strategies)"],
                   tablefmt="github"))
    print(f"load (1 min) at the end: {os.getloadavg()[0]:.1f}")


def plan(k: int, seed: int, memory: int, placement: str = "normal") -> dict:
    """The planner's figures for one dealt position (no solve): this checkout's code."""
    from nimmt.solver.base.rules import Rules
    from nimmt.solver.search.game import deal_position
    from nimmt.solver.search.nash import (
        estimate_bytes,
        estimate_states,
        replacing_slots,
        slot_bytes,
        table_slots,
    )

    position = deal_position(Rules("tactical", 2, placement), k, seed=seed)
    first, largest = table_slots(position, memory)
    return {"states": estimate_states(position), "bytes": estimate_bytes(position),
            "first_slots": first, "first_bytes": first * slot_bytes(position),
            "fits": estimate_bytes(position) <= memory,
            "replacing_slots": replacing_slots(position, memory),
            "replacing_bytes": replacing_slots(position, memory) * slot_bytes(position)}


def levels(ks: list[int], deals: int) -> None:
    """Distinct states stored per level (cards left each), two workers."""
    rows, top = [], max(ks)
    for k in ks:
        for seed in range(10, 10 + deals):
            r = solve(k, seed, 2)
            stored = max(1, r["stored"])
            counts = r["levels"] + [0] * (top + 1 - len(r["levels"]))
            estimate = plan(k, seed, 2**40)["states"]
            rows.append([k, seed, f"{r['stored']:,}", f"{estimate:,}",
                         f"{estimate / stored:.2f}"]
                        + [f"{counts[j]:,} ({counts[j] / stored:.0%})" if counts[j] else ""
                           for j in range(top - 1, 2, -1)]
                        + [f"{r['seconds']:.1f}", f"{r['peak_mb']:,.0f}",
                           f"{(r['peak_mb'] - r['base_mb']) * 2**20 / stored:.0f}",
                           f"{r['load']:.1f}"])
            print(f"levels k={k} seed={seed}: done", file=sys.stderr, flush=True)
    print("States stored per level (cards left each; two-card states are solved again, "
          "not stored), two workers")
    print(tabulate(rows, headers=["k", "seed", "stored", "estimate", "estimate / stored"]
                   + [f"{j} left" for j in range(top - 1, 2, -1)]
                   + ["s", "peak MB", "bytes/state", "load"], tablefmt="github"))


def goal(k: int, memory: int, seed: int, plan_only: bool = False,
         replace: bool = False, time_limit: float = 0.0, checkpoint: str = "",
         root_cells: str = "all") -> None:
    """One dealt position of k cards each within ``memory``: the plan, then (unless
    ``plan_only``) the goal's figures; ``replace``: a replacing table when the estimate
    does not fit (solve_nash's replace); ``checkpoint``: a file keeping the root cells
    solved, so that a run stopped goes on from them (solver.search.deals.Checkpoint);
    ``root_cells``: solve_nash's ``root`` (all, or the cells the root's oracle needs)."""
    p = plan(k, seed, memory)
    print(f"k={k}, seed {seed}, --memory {memory / 2**30:.1f} GiB: plan {p['states']:,} "
          f"states, at least {p['bytes'] / 2**30:.2f} GiB: "
          + (f"fits; first table {p['first_slots']:,} slots "
             f"({p['first_bytes'] / 2**30:.2f} GiB)" if p["fits"] else
             f"a replacing table of {p['replacing_slots']:,} slots "
             f"({p['replacing_bytes'] / 2**30:.2f} GiB)" if replace else "refused"),
          flush=True)
    if plan_only:
        return
    try:
        r = solve(k, seed, 2, memory=memory, replace=replace, time_limit=time_limit,
                  checkpoint=checkpoint, root_cells=root_cells)
    except subprocess.CalledProcessError:  # the child printed why (e.g. the memory estimate)
        print(f"k={k}, seed {seed}, --memory {memory / 2**30:.1f} GiB: not solved (the "
              f"solver refused or failed; its message is above)")
        return
    if "stopped" in r:
        print(f"k={k}, seed {seed}, --memory {memory / 2**30:.1f} GiB, two workers: NOT "
              f"SOLVED: stopped ({r['stopped']}) after {r['seconds']:.0f} s with "
              f"{r['cells']} of {k * k} root cells solved"
              + (f" (and {r['resumed']} from the checkpoint)" if r.get("resumed") else "")
              + f", peak {r['peak_mb'] / 1024:.2f} GiB, "
              f"load {r['load']:.1f} before / {r['load_after']:.1f} after")
        return
    print(f"k={k}, seed {seed}, --memory {memory / 2**30:.1f} GiB, two workers: "
          f"{r['stored']:,} states stored ({r['states']:,} searches), {r['seconds']:.0f} s, "
          f"peak {r['peak_mb'] / 1024:.2f} GiB (table {r['table_mb'] / 1024:.2f} GiB), "
          f"exploitability {r['exploitability']:.0e}, value {r['value']:.6f}, "
          f"{r['root_cells']} of {k * k} root cells solved ({root_cells}), "
          f"load {r['load']:.1f} before / {r['load_after']:.1f} after"
          + (f"; {r['replaced']:,} stores replaced an entry, {r['dropped']:,} states "
             "not stored" if r["replaced"] or r["dropped"] else "")
          + (f"; {r['resumed']} of {k * k} root cells from the checkpoint (the seconds are "
             "this run's)" if r.get("resumed") else ""))
    print("levels (cards left: states):",
          ", ".join(f"{j}: {n:,}" for j, n in enumerate(r["levels"]) if n))


def root_cells(ks: list[int], deals: int) -> None:
    """Each deal solved with every root cell and with only those the root's double oracle
    needs (solve_nash's root), one process each, with one worker and with two: seconds,
    cells solved, and the oracle's strategies checked on the whole matrix (the best reply
    to each, from every cell of the full solve)."""
    rows = []
    for k in ks:
        for seed in range(10, 10 + deals):
            for workers in (1, 2):
                full = solve(k, seed, workers)
                lean = solve(k, seed, workers, root_cells="needed")
                matrix = np.array(full["matrix"], dtype=float)
                x, y = np.array(lean["x"]), np.array(lean["y"])
                gap = max(lean["value"] - (matrix @ y).min(), (x @ matrix).max() - lean["value"])
                rows.append([k, seed, workers, lean["root_cells"], k * k,
                             round(full["seconds"], 2), round(lean["seconds"], 2),
                             f"{lean['seconds'] / full['seconds']:.2f}",
                             f"{abs(lean['value'] - full['value']):.0e}", f"{gap:.0e}"])
    print(tabulate(rows, headers=["k", "seed", "workers", "cells, oracle", "cells, all",
                                  "s, all", "s, oracle", "oracle / all", "|value diff|",
                                  "exploitability on the whole matrix"], tablefmt="github"))
    print(f"load (1 min) at the end: {os.getloadavg()[0]:.1f}")


def proof_by_bounds(ks: list[int], seeds: list[int], table: str = "") -> None:
    """What proving a pure saddle point costs: its row and column cells exact
    (nash.solve_root_cells, one table) against bounds (nash.bound_root_cells: player 1's
    row shown at most the value, player 2's column at least; one table each, then the
    saddle cell exact), with the search below windowed and exact; one worker, this
    process, one after another. Deals from ``seeds`` at each k, or (``table``) the pure
    saddle points of a deal table (solve-deal --table); mixed ones are skipped."""
    import time

    from nimmt.solver.base.rules import Rules
    from nimmt.solver.positions.position import parse_position
    from nimmt.solver.search.deals import is_pure
    from nimmt.solver.search.game import deal_position
    from nimmt.solver.search.nash import bound_root_cells, solve_nash, solve_root_cells

    if table:
        with open(table) as f:
            deals = json.load(f)["deals"]
        positions = [(d["solved_from"], d["index"], parse_position(d["position"]))
                     for d in deals if is_pure(d)]
    else:
        positions = [(k, seed, deal_position(Rules("tactical", 2), k, seed))
                     for k in ks for seed in seeds]
    memory, rows = 2**33, []
    clock = time.perf_counter
    for k, seed, position in positions:
        start = clock()
        r = solve_nash(position, workers=1, memory=memory)
        every = clock() - start
        if max(r.p1_frequency) < 1.0 or max(r.p2_frequency) < 1.0:
            print(f"k={k} seed={seed}: mixed, skipped", file=sys.stderr, flush=True)
            continue
        i0, j0, v = r.p1_frequency.index(1.0), r.p2_frequency.index(1.0), r.value
        row = [(i0, j) for j in range(k) if j != j0]
        column = [(i, j0) for i in range(k) if i != i0]
        start = clock()
        solve_root_cells(position, [(i0, j0)] + row + column, workers=1, memory=memory)
        exact = clock() - start
        found = []
        for below in (True, False):
            start = clock()
            upper, _ = bound_root_cells(position, row, v, math.inf, memory, 1, below)
            lower, _ = bound_root_cells(position, column, -math.inf, v, memory, 1, below)
            solve_root_cells(position, [(i0, j0)], workers=1, memory=memory)
            proved = (all(u <= v + 1e-9 for _, u in upper.values())
                      and all(lo >= v - 1e-9 for lo, _ in lower.values()))
            found.append((proved, clock() - start))
        rows.append([k, seed, f"{position.hand[i0]} / {position.hands[1][j0]}", f"{v:.4f}",
                     f"{every:.2f}", f"{exact:.2f}", f"{found[0][1]:.2f}",
                     f"{found[0][1] / exact:.2f}", f"{found[1][1]:.2f}",
                     f"{found[1][1] / exact:.2f}",
                     "yes" if found[0][0] and found[1][0] else "NO"])
        print(f"k={k} seed={seed}: {rows[-1]}", file=sys.stderr, flush=True)
    print("Proving a pure saddle point: its row and column exact, or bounded (one worker)")
    print(tabulate(rows, headers=["k", "deal", "saddle (p1 / p2)", "value", "s, every cell",
                                  "s, row and column exact", "s, bounds (windows below)",
                                  "ratio", "s, bounds (exact below)", "ratio", "proved"],
                   tablefmt="github"))
    print(f"load (1 min) at the end: {os.getloadavg()[0]:.1f}")


def share(part: int, r: dict) -> str:
    return f"{part / (r['lp'] + r['saddle'] + r['reply'] + r['cut']):.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-k", type=int, default=8)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--window-max-k", type=int, default=7,
                        help="compare alpha-beta windows up to this k")
    parser.add_argument("--compare", metavar="OLD_CHECKOUT",
                        help="time this checkout against another on the same positions")
    parser.add_argument("--ks", default="6,7", help="--compare: the k to deal")
    parser.add_argument("--repeat", type=int, default=2, help="--compare: runs per side")
    parser.add_argument("--placements", default="normal,professional",
                        help="--compare: the placements to deal")
    parser.add_argument("--levels", help="the states per level for these k (6,7,8)")
    parser.add_argument("--by-cell", metavar="KS",
                        help="these k (6,7,8) with one table against cell by cell (--deals)")
    parser.add_argument("--goal", type=int, help="solve one position of this k")
    parser.add_argument("--memory", default="8", help="--goal: GiB")
    parser.add_argument("--seed", type=int, default=10, help="--goal: the deal's seed")
    parser.add_argument("--time-limit", type=float, default=0.0,
                        help="--goal: stop the solve after this many seconds (0: none)")
    parser.add_argument("--replace", action="store_true",
                        help="--goal: a replacing table when the estimate does not fit")
    parser.add_argument("--plan-only", action="store_true",
                        help="--goal: print the plan without solving")
    parser.add_argument("--checkpoint", default="", metavar="FILE",
                        help="--goal: keep the root cells solved in FILE; run again to go on")
    parser.add_argument("--root", choices=("all", "needed"), default="all",
                        help="--goal: the root cells solved: all, or those the root's double "
                             "oracle needs")
    parser.add_argument("--root-cells", metavar="KS",
                        help="these k (6,7,8): all root cells against the oracle's (--deals)")
    parser.add_argument("--bounds", metavar="KS",
                        help="these k: a pure saddle point proved by bounds against exact "
                             "cells (seeds 1..--deals; mixed deals skipped)")
    parser.add_argument("--bounds-table", metavar="FILE",
                        help="--bounds on the pure saddle points of a deal table")
    args = parser.parse_args()
    if args.bounds or args.bounds_table:
        proof_by_bounds([int(k) for k in (args.bounds or "0").split(",")],
                        list(range(1, args.deals + 1)), args.bounds_table or "")
        return
    if args.root_cells:
        root_cells([int(k) for k in args.root_cells.split(",")], args.deals)
        return
    if args.by_cell:
        by_cell([int(k) for k in args.by_cell.split(",")], args.deals)
        return
    if args.levels:
        levels([int(k) for k in args.levels.split(",")], args.deals)
        return
    if args.goal:
        goal(args.goal, int(float(args.memory) * 2**30), args.seed, args.plan_only,
             args.replace, args.time_limit, args.checkpoint, args.root)
        return
    if args.compare:
        compare(args.compare, [int(k) for k in args.ks.split(",")], args.deals, args.repeat,
                tuple(args.placements.split(",")))
        return
    rows, window_rows, medians = [], [], {}
    for k in range(4, args.max_k + 1):
        deals = args.deals if k < 8 else max(1, args.deals - 1)
        stored = []
        for seed in range(10, 10 + deals):
            one, two = solve(k, seed, 1), solve(k, seed, 2)
            assert abs(one["value"] - two["value"]) < 1e-9
            stored.append(one["stored"])
            rows.append([k, seed, f"{one['stored']:,}", share(one["lp"], one),
                         share(one["saddle"], one), share(one["reply"], one),
                         f"{one['seconds']:.2f}", f"{two['seconds']:.2f}",
                         f"{one['seconds'] / two['seconds']:.2f}x",
                         f"{two['peak_mb']:,.0f}", f"{two['bytes_per_state']:.0f}",
                         f"{max(one['exploitability'], two['exploitability']):.0e}"])
            if k <= args.window_max_k:
                w = solve(k, seed, 1, window=True)
                assert abs(one["value"] - w["value"]) < 1e-9
                window_rows.append([k, seed, f"{one['cells']:,}", f"{w['cells']:,}",
                                    f"{w['states']:,}", share(w["cut"], w),
                                    share(w["reply"], w), share(w["lp"] + w["saddle"], w),
                                    f"{one['seconds']:.2f}", f"{w['seconds']:.2f}"])
            print(f"k={k} seed={seed}: done", file=sys.stderr, flush=True)
        medians[k] = statistics.median(stored)
    print("Two-player tactical equilibrium, random deals (nimmt deal --players 2 -k K --seed S)")
    print(tabulate(rows, headers=["k", "seed", "states", "by LP", "by matrix saddle",
                                  "by best replies", "s, 1 worker", "s, 2 workers", "speed-up",
                                  "peak MB (2)", "bytes/state", "exploitability"],
                   tablefmt="github"))
    if window_rows:
        print("\nAlpha-beta windows (window=True) against the plain best-reply search, one "
              "worker: cells built, state searches and how they ended")
        print(tabulate(window_rows, headers=["k", "seed", "cells, plain", "cells, windows",
                                             "searches", "by a bound", "by best replies",
                                             "by the matrix", "s, plain", "s, windows"],
                       tablefmt="github"))
    ks = sorted(medians)
    growth = [medians[b] / medians[a] for a, b in zip(ks, ks[1:])]
    if growth:
        g = math.exp(statistics.mean(math.log(x) for x in growth))
        top = ks[-1]
        full = medians[top] * g ** (10 - top)
        print("\nGrowth of distinct states per extra card: "
              + ", ".join(f"{a}->{b}: {x:.1f}x" for a, b, x in zip(ks, ks[1:], growth))
              + f" (geometric mean {g:.1f}x)")
        print(f"A full 10-card solve: about {full:.1e} states")


if __name__ == "__main__":
    main()
