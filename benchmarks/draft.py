"""Draft analysis figures: Monte Carlo samples per second for a draft's first
pick with 2 and 4 players, the time of 10,000 samples per card for the 24-card
2-player pool (the goal: within 2 s), and the 95% interval width reached in 1 s.

    python benchmarks/draft.py [--workers 1,2] [--samples 10000]

Drafters ``cheap`` (the default), the round by the ``closest`` bot. Prints a table
(tabulate): wall-clock seconds and the process's CPU seconds (on a shared machine the
CPU figure is what one idle core would take); nothing here is asserted by the tests.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.positions.draft import parse_draft  # noqa: E402
from nimmt.solver.search.draftsearch import analyse_draft  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--drafters", default="cheap")
    parser.add_argument("--round", default="closest")
    args = parser.parse_args()
    rows = []
    for players in (2, 4):
        draft = parse_draft(f"variant=logic players={players} phase=draft")
        analyse_draft(draft, args.drafters, args.round, method="montecarlo", samples=2,
                      seed=1)  # load the kernels
        for workers in map(int, args.workers.split(",")):
            cpu = time.process_time()
            full = analyse_draft(draft, args.drafters, args.round, method="montecarlo",
                                 samples=args.samples, seed=1, workers=workers)
            cpu = time.process_time() - cpu
            total = full.cards[0].samples * len(full.cards)
            second = analyse_draft(draft, args.drafters, args.round, method="montecarlo",
                                   samples=10**9, seed=1, workers=workers, time_limit=1.0)
            widths = [c.ci95[1] - c.ci95[0] for c in second.cards]
            rows.append([players, len(draft.pool), workers, f"{args.samples:,}",
                         f"{full.seconds:.2f}", f"{cpu:.2f}", f"{total / full.seconds:,.0f}",
                         f"{total / cpu:,.0f}",
                         f"{second.cards[0].samples:,}",
                         f"{sum(widths) / len(widths):.3f}", f"{max(widths):.3f}"])
    print(f"drafters: {args.drafters}; round: {args.round}; first pick of the draft")
    print(tabulate(rows, headers=["players", "pool", "workers", "samples per card",
                                  "s", "CPU s", "samples/s", "samples per CPU s",
                                  "samples per card in 1 s",
                                  "mean 95% width, 1 s", "widest, 1 s"],
                   tablefmt="github", disable_numparse=True))


if __name__ == "__main__":
    main()
