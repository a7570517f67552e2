"""Equilibrium (nash) figures: for k = 4..8 cards each, several random 2-player tactical
deals: distinct states, matrix games solved by LP, share decided by saddle points, seconds,
peak memory; the growth per card and what a full 10-card solve would cost.

    python benchmarks/nash.py [--max-k 8] [--deals 3]

Each solve runs in its own process so that its peak memory (ru_maxrss) is its own.
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
import json, resource, sys
sys.path.insert(0, sys.argv[3])
from solver.game import deal_position
from solver.nash import solve_nash
from solver.rules import Rules
k, seed = int(sys.argv[1]), int(sys.argv[2])
p = deal_position(Rules("tactical", 2), k, seed=seed)
solve_nash(deal_position(Rules("tactical", 2), 3, seed=1))  # load the kernel first
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = solve_nash(p, memory=2**40)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"states": r.states, "lp": r.matrix_games, "saddle": r.saddle_points,
                  "reply": r.best_reply_saddles, "skipped": r.cells_skipped,
                  "seconds": r.seconds, "peak_mb": peak / 1024,
                  "bytes_per_state": (peak - base) * 1024 / r.states, "nodes": r.nodes,
                  "exploitability": r.exploitability}))
"""


def solve(k: int, seed: int) -> dict:
    out = subprocess.check_output([sys.executable, "-c", CHILD, str(k), str(seed), ROOT])
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-k", type=int, default=8)
    parser.add_argument("--deals", type=int, default=3)
    args = parser.parse_args()
    rows, medians = [], {}
    for k in range(4, args.max_k + 1):
        deals = args.deals if k < 8 else max(1, args.deals - 1)
        runs = [solve(k, 10 + seed) for seed in range(deals)]
        for seed, r in enumerate(runs):
            states = r["saddle"] + r["lp"] + r["reply"]
            rows.append([k, 10 + seed, f"{r['states']:,}", f"{r['lp'] / states:.1%}",
                         f"{r['saddle'] / states:.1%}", f"{r['reply'] / states:.1%}",
                         f"{r['skipped'] / (r['nodes'] + r['skipped']):.0%}",
                         f"{r['seconds']:.2f}", f"{r['peak_mb']:,.0f}",
                         f"{r['bytes_per_state']:.0f}", f"{r['exploitability']:.0e}"])
        medians[k] = statistics.median(r["states"] for r in runs)
        print(f"k={k}: done", file=sys.stderr)
    print("Two-player tactical equilibrium, random deals (nimmt deal --players 2 -k K --seed S)")
    print(tabulate(rows, headers=["k", "seed", "states", "by LP", "by matrix saddle",
                                  "by best replies", "cells skipped", "seconds", "peak MB",
                                  "bytes/state", "exploitability"],
                   tablefmt="github"))
    ks = sorted(medians)
    growth = [medians[b] / medians[a] for a, b in zip(ks, ks[1:])]
    g = math.exp(statistics.mean(math.log(x) for x in growth))
    top = ks[-1]
    full = medians[top] * g ** (10 - top)
    print("\nGrowth of distinct states per extra card: "
          + ", ".join(f"{a}->{b}: {x:.1f}x" for a, b, x in zip(ks, ks[1:], growth))
          + f" (geometric mean {g:.1f}x)")
    print(f"A full 10-card solve: about {full:.1e} states, {full * 300 / 2**30:,.0f} GiB at "
          "300 bytes a state")


if __name__ == "__main__":
    main()
