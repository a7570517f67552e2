"""Analysis figures: exact search (random, worst) by player count and cards left, with
the ratio against a brute force on the pure-Python reference engine (same run, k <= 4);
Monte Carlo samples per second and interval width after one second; the wall time of
`nimmt analyse` with a warm cache; how the node estimate compares with the count.

    python benchmarks/analysis.py [--seeds 3] [--quick]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
# the brute forces shared with the tests live in tests/naive.py
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from naive import card_values_plain as brute_force  # noqa: E402
from solver.exact import estimate_nodes, solve_exact  # noqa: E402
from solver.game import deal_position  # noqa: E402
from solver.montecarlo import run_montecarlo  # noqa: E402
from solver.position import format_position, load_position  # noqa: E402
from solver.rules import Rules  # noqa: E402


def exact_table(seeds: int, quick: bool) -> list[list]:
    cases = [(2, k) for k in range(3, 8)] + [(3, k) for k in range(2, 6)] + \
        [(4, k) for k in range(2, 5)]
    if quick:
        cases = [c for c in cases if c[1] <= 5 and not (c[0] >= 3 and c[1] >= 5)]
    rows = []
    for players, k in cases:
        for model in ("random", "worst"):
            times, nodes, brute = [], [], []
            for seed in range(seeds):
                position = deal_position(Rules("tactical", players), k, seed=100 + seed)
                result = solve_exact(position, model, max_nodes=10**10)
                times.append(result.seconds)
                nodes.append(result.resolved)
                if k <= 4 and (players, k) not in ((4, 4), (3, 4)) or (players, k) == (2, 4):
                    t0 = time.perf_counter()
                    brute_force(position, model)
                    brute.append(time.perf_counter() - t0)
            t = statistics.median(times)
            n = statistics.median(nodes)
            ratio = f"{statistics.median(brute) / t:,.0f}x" if brute else ""
            rows.append([players, k, model, f"{t:.4f}", f"{n:,.0f}", f"{n / t:,.0f}", ratio])
    return rows


def estimate_table(seeds: int) -> list[list]:
    rows = []
    for players, k in ((2, 4), (2, 6), (3, 3), (3, 4), (4, 3)):
        ratios = []
        for seed in range(seeds):
            position = deal_position(Rules("tactical", players), k, seed=200 + seed)
            result = solve_exact(position, "random", max_nodes=10**10)
            ratios.append(estimate_nodes(position) / result.resolved)
        rows.append([players, k, f"{min(ratios):.2f}", f"{statistics.median(ratios):.2f}",
                     f"{max(ratios):.2f}"])
    return rows


def montecarlo_line() -> str:
    position = load_position("example-standard")
    run_montecarlo(position, samples=64, seed=1)  # load kernels
    result = run_montecarlo(position, samples=10**9, seed=1, time_limit=1.0)
    count = result.cards[0].samples * len(result.cards)
    width = statistics.median(2 * 1.96 * c.stderr for c in result.cards)
    return (f"Monte Carlo, 4 players standard, 9 cards left (example-standard): "
            f"{count / result.seconds:,.0f} samples per second over {len(result.cards)} cards; "
            f"after {result.seconds:.2f} s, {result.cards[0].samples:,} samples per card and a "
            f"median 95% interval width of {width:.3f} cows (later play: {result.later_play})")


def command_time(position_text: str, repeats: int = 5) -> float:
    root = os.path.join(os.path.dirname(__file__), "..")
    argv = [sys.executable, "-m", "cli", "analyse", position_text]
    subprocess.run(argv, cwd=root, check=True, capture_output=True)  # warm the cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=root, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3, help="positions per row (median)")
    parser.add_argument("--quick", action="store_true", help="skip the largest cases")
    args = parser.parse_args()
    solve_exact(deal_position(Rules("tactical", 2), 3, seed=1), "random")  # load kernels
    print("Exact search, tactical deck, median over positions dealt by `nimmt deal`")
    print(tabulate(exact_table(args.seeds, args.quick),
                   headers=["players", "k", "model", "seconds", "nodes", "nodes/s",
                            "vs brute force"], tablefmt="github"))
    print("\nNode estimate / nodes counted (random model)")
    print(tabulate(estimate_table(args.seeds), headers=["players", "k", "min", "median", "max"],
                   tablefmt="github"))
    print("\n" + montecarlo_line())
    k4 = format_position(deal_position(Rules("tactical", 2), 4, seed=7))
    print(f"\n`nimmt analyse` wall time, 2 players k=4, warm cache: {command_time(k4):.2f} s "
          f"(median of 5; position {k4})")
    print(f"`nimmt analyse example` (2 players k=5) wall time, warm cache: "
          f"{command_time('example'):.2f} s")


if __name__ == "__main__":
    main()
