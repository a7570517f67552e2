"""Equilibrium (nash) figures: for k = 4..8 cards each, several random 2-player tactical
deals: distinct states, how states were decided (LP, a saddle point of the whole matrix,
best replies, alpha-beta bounds), seconds with one worker and with two side by side (the
speed-up measured in the same run), the alpha-beta windows against the plain search, peak
memory; the growth per card and what a full 10-card solve would cost.

    python benchmarks/nash.py [--max-k 8] [--deals 3] [--window-max-k 7]
    python benchmarks/nash.py --compare OLD_CHECKOUT [--ks 6,7] [--deals 3] [--repeat 2]

Each solve runs in its own process so that its peak memory (ru_maxrss) is its own.
``--compare`` solves the same positions with this checkout and with OLD_CHECKOUT (e.g. a
git worktree of an earlier commit: ``git worktree add /tmp/nimmt-old-nash a7ef167``), each
in its own process with its own sys.path, alternating, one worker, normal and professional
placement: states, stored states and seconds side by side (the best of ``--repeat`` runs).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

from tabulate import tabulate

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CHILD = r"""
import json, os, resource, sys
sys.path.insert(0, sys.argv[5])
import solver
assert os.path.samefile(os.path.dirname(solver.__file__), os.path.join(sys.argv[5], "solver"))
from solver.game import deal_position
from solver.nash import solve_nash
from solver.rules import Rules
k, seed, workers, window = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
placement = sys.argv[6] if len(sys.argv) > 6 else "normal"
p = deal_position(Rules("tactical", 2, placement), k, seed=seed)
solve_nash(deal_position(Rules("tactical", 2, placement), 3, seed=1), window=window)  # load
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = solve_nash(p, memory=2**40, workers=workers, window=window)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"states": r.states, "stored": r.stored, "lp": r.matrix_games,
                  "saddle": r.saddle_points, "reply": r.best_reply_saddles,
                  "cut": r.bound_cutoffs, "seconds": r.seconds, "peak_mb": peak / 1024,
                  "bytes_per_state": (peak - base) * 1024 / max(1, r.stored),
                  "table_mb": r.table_bytes / 2**20, "cells": r.nodes,
                  "exploitability": r.exploitability, "value": r.value}))
"""


def solve(k: int, seed: int, workers: int, window: bool = False, root: str = ROOT,
          placement: str = "normal") -> dict:
    out = subprocess.check_output([sys.executable, "-c", CHILD, str(k), str(seed),
                                   str(workers), "1" if window else "0", root, placement],
                                  cwd=os.path.dirname(os.path.abspath(root)))
    return json.loads(out)


def compare(old_root: str, ks: list[int], deals: int, repeat: int) -> None:
    """Old and new code on the same positions, alternating, one worker."""
    rows, totals = [], {"old": 0.0, "new": 0.0}
    for placement in ("normal", "professional"):
        for k in ks:
            for seed in range(10, 10 + deals):
                runs = {"old": [], "new": []}
                for _ in range(repeat):
                    for side, root in (("old", old_root), ("new", ROOT)):
                        runs[side].append(solve(k, seed, 1, root=root, placement=placement))
                old = min(runs["old"], key=lambda r: r["seconds"])
                new = min(runs["new"], key=lambda r: r["seconds"])
                assert abs(old["value"] - new["value"]) < 1e-9, (k, seed, placement)
                totals["old"] += old["seconds"]
                totals["new"] += new["seconds"]
                rows.append([placement, k, seed, f"{old['states']:,}", f"{new['states']:,}",
                             f"{old['stored']:,}", f"{new['stored']:,}",
                             f"{old['seconds']:.2f}", f"{new['seconds']:.2f}",
                             f"{new['seconds'] / old['seconds']:.3f}"])
                print(f"{placement} k={k} seed={seed}: done", file=sys.stderr, flush=True)
    rows.append(["all", "", "", "", "", "", "", f"{totals['old']:.2f}",
                 f"{totals['new']:.2f}", f"{totals['new'] / totals['old']:.3f}"])
    print(f"nash, old ({old_root}) and new side by side, one worker, best of {repeat}")
    print(tabulate(rows, headers=["placement", "k", "seed", "states, old", "states, new",
                                  "stored, old", "stored, new", "s, old", "s, new",
                                  "new / old"], tablefmt="github"))


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
    args = parser.parse_args()
    if args.compare:
        compare(args.compare, [int(k) for k in args.ks.split(",")], args.deals, args.repeat)
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
