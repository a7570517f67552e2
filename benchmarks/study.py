"""Study figures: positions per second per k and model (each model's exact solve alone),
the bots' picks, and the whole per-position work of ``nimmt study`` (every model, the bots,
the themes of a miss), on one core. Then the goal: 500 positions of 2 players tactical,
k = 5, in every model (random, worst, nash) with the default bots, in under a minute.

    python benchmarks/study.py [--positions 100] [--goal-positions 500] [--goal-only]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.puzzles.study import StudySettings, position_of, run_study  # noqa: E402
from nimmt.solver.players.bots import make_policy  # noqa: E402
from nimmt.solver.search.analysis import analyse  # noqa: E402

CASES = [(2, k) for k in range(2, 7)] + [(3, k) for k in range(2, 5)]


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--goal-positions", type=int, default=500)
    parser.add_argument("--goal-only", action="store_true", help="Only the goal's run.")
    args = parser.parse_args()
    rows = []
    for players, k in [] if args.goal_only else CASES:
        models = ("random", "worst", "nash") if players == 2 else ("random", "worst")
        settings = StudySettings("tactical", players, (k,), args.positions, 1000, models=models)
        positions = [position_of(settings, k, i) for i in range(args.positions)]
        row = [f"{players}p k={k}"]
        for model in ("random", "worst", "nash"):
            if model not in models:
                row.append("–")
                continue
            analyse(positions[0], opponents=model, method="exact")  # load kernels
            start = time.perf_counter()
            for p in positions:
                analyse(p, opponents=model, method="exact", max_nodes=50_000_000)
            row.append(rate(len(positions), time.perf_counter() - start))
        bots = [make_policy(b) for b in settings.bots]
        start = time.perf_counter()
        for p in positions:
            for bot in bots:
                bot.choose(p)
        row.append(rate(len(positions), time.perf_counter() - start))
        study = run_study(settings)
        row.append(rate(len(study.records), study.seconds))
        rows.append(row)
        print(tabulate([row], tablefmt="plain"), flush=True)
    if rows:
        print(f"\nPositions per second, one core, {args.positions} positions per row (tactical, "
              "normal placement; each model's exact solve alone; the bots "
              f"{', '.join(StudySettings('tactical', 2, (2,), 1, 0).bots)}; "
              "'study': everything nimmt study does per position)")
        print(tabulate(rows, headers=["case", "random", "worst", "nash", "bots", "study"],
                       disable_numparse=True))
    goal = StudySettings("tactical", 2, (5,), args.goal_positions, 1000)
    study = run_study(goal)
    verdict = "met" if study.seconds < 60 else "missed"
    print(f"\ngoal: {args.goal_positions} positions of 2 players k=5 in every model (with the "
          f"bots and themes): {study.seconds:.1f} s on one core; under a minute: {verdict}")


if __name__ == "__main__":
    main()
