"""Decision-tree figures: node counts of full trees for 2 players tactical with k = 3..5 and
the nodes built per second, per model.

    python benchmarks/tree.py [--seeds 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402
from nimmt.solver.search.tree import build_tree  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3, help="positions per row (k < 5)")
    args = parser.parse_args()
    build_tree(deal_position(Rules("tactical", 2), 2, seed=1))  # load kernels
    rows = []
    for k in (3, 4, 5):
        # at k = 5 only random: worst trees (adversary choice nodes) and nash trees (a matrix
        # game solved afresh at every node) take many minutes there
        for model in ("random", "worst", "nash") if k < 5 else ("random",):
            counts, rates, merged = [], [], []
            for seed in range(args.seeds if k < 5 else 1):  # a k=5 tree takes about a minute
                position = deal_position(Rules("tactical", 2), k, seed=300 + seed)
                start = time.perf_counter()
                graph = build_tree(position, opponents=model, max_nodes=10**7)
                seconds = time.perf_counter() - start
                counts.append(graph.number_of_nodes())
                rates.append(graph.number_of_nodes() / seconds)
                if k <= 4:
                    merged.append(build_tree(position, opponents=model, merge=True,
                                             max_nodes=10**7).number_of_nodes())
            print(f"k={k} {model}: done", file=sys.stderr, flush=True)
            rows.append([k, model, f"{statistics.median(counts):,.0f}",
                         f"{min(counts):,} .. {max(counts):,}",
                         f"{statistics.median(merged):,.0f}" if merged else "",
                         f"{statistics.median(rates):,.0f}"])
    print("Full decision trees, 2 players tactical (positions dealt by `nimmt deal`); the build "
          "counts nodes first, then builds (both passes in the rate)")
    print(tabulate(rows, headers=["k", "model", "nodes (median)", "range", "--merge",
                                  "nodes/s"], tablefmt="github"))


if __name__ == "__main__":
    main()
