"""Analysis figures: exact search (random, worst) by player count and cards left, with
the ratio against a brute force on the pure-Python reference engine (same run, k <= 4);
Monte Carlo samples per second and interval width after one second; the wall time of
`nimmt analyse` with a warm cache; how the node estimate compares with the count.

    python benchmarks/analysis.py [--seeds 3] [--quick] [--old DIR]

``--old DIR`` adds the before/after table: DIR is a checkout of the code to compare with
(e.g. ``git worktree add /tmp/nimmt-old a7ef167``); each side runs in its own subprocess
with its own sys.path on the same positions, which must get the same values and nodes.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver import reference  # noqa: E402
from solver.exact import estimate_nodes, solve_exact  # noqa: E402
from solver.game import deal_position  # noqa: E402
from solver.montecarlo import run_montecarlo  # noqa: E402
from solver.position import format_position, load_position  # noqa: E402
from solver.rules import Rules  # noqa: E402


def brute_force(position, model: str) -> dict[int, float]:
    """Plain recursion on the reference engine, no memo: the baseline."""
    known = [h for h in position.hands[1:] if h is not None]
    hidden = len(position.hidden_players)
    pick = max if model == "worst" else (lambda xs: sum(xs) / len(xs))

    def place(rows, turn, i, hands, pool):
        if i == len(turn):
            return state(rows, hands, pool)
        card, mine = turn[i]
        opts = reference.options(rows, card, position.professional)
        if len(opts) > 1 and not mine and model == "random":
            opts = [reference.rule_following(rows, opts)]
        values = []
        for o in opts:
            new, cows = reference.apply_option(rows, card, o)
            values.append((cows if mine else 0) + place(new, turn, i + 1, hands, pool))
        return min(values) if mine else max(values)

    def card_value(rows, c, hands, pool):
        outcomes = []
        for combo in itertools.product(*hands[1:], itertools.combinations(pool, hidden)):
            opp = list(combo[:len(hands) - 1]) + list(combo[-1])
            turn = sorted([(c, True)] + [(x, False) for x in opp])
            new_hands = [tuple(x for x in h if x != pick_) for h, pick_ in zip(hands, [c] + opp)]
            outcomes.append(place(rows, turn, 0, new_hands,
                                  tuple(x for x in pool if x not in opp)))
        return pick(outcomes)

    def state(rows, hands, pool):
        if not hands[0]:
            return 0.0
        return min(card_value(rows, c, hands, pool) for c in hands[0])

    hands = [position.hand] + known
    rows = [list(r) for r in position.rows]
    return {c: card_value(rows, c, hands, position.pool) for c in position.hand}


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


# One side of the before/after table: argv = [root]; stdin: JSON list of (position, model,
# repeats); stdout: JSON list of (seconds: fastest of the repeats, nodes, values).
SIDE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from solver.exact import solve_exact
from solver.position import parse_position
jobs = json.load(sys.stdin)
solve_exact(parse_position(jobs[0][0]), "random")  # load the kernels
out = []
for text, model, repeats in jobs:
    runs = [solve_exact(parse_position(text), model, max_nodes=10**10) for _ in range(repeats)]
    out.append((min(r.seconds for r in runs), runs[0].resolved,
                [(c.card, c.value, c.cows_now, c.take_probability) for c in runs[0].cards]))
print(json.dumps(out))
"""
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def run_side(root: str, jobs: list) -> list:
    done = subprocess.run([sys.executable, "-c", SIDE, root], input=json.dumps(jobs), cwd=root,
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def compare_table(old: str, seeds: int, quick: bool, rounds: int = 3) -> list[list]:
    """Old and new exact search on the same positions, sides alternating ``rounds`` times
    (the fastest round counts); values and node counts must agree."""
    cases = [("tactical", 2, "normal", k) for k in range(3, 8)] + \
        [("tactical", 3, "normal", k) for k in range(2, 6)] + \
        [("tactical", 4, "normal", k) for k in range(2, 5)] + \
        [("tactical", 2, "professional", k) for k in range(3, 7)]
    if quick:
        cases = [c for c in cases if c[3] <= 5 and not (c[1] >= 3 and c[3] >= 5)]
    jobs, where = [], []
    for variant, players, placement, k in cases:
        for model in ("random", "worst"):
            for seed in range(seeds):
                rules = Rules(variant, players, placement)
                jobs.append((format_position(deal_position(rules, k, seed=100 + seed)), model, 1))
                where.append((players, placement, k, model))
    best = {}
    for _ in range(rounds):
        for side, root in (("old", old), ("new", ROOT)):
            for i, got in enumerate(run_side(root, jobs)):
                if (side, i) not in best or got[0] < best[side, i][0]:
                    best[side, i] = got
    rows = []
    for case in dict.fromkeys(where):
        idx = [i for i, w in enumerate(where) if w == case]
        for i in idx:
            if best["old", i][1:] != best["new", i][1:]:
                raise SystemExit(f"old and new disagree on {jobs[i][0]} ({case[3]}): "
                                 f"{best['old', i][1:]} vs {best['new', i][1:]}")
        t_old = sum(best["old", i][0] for i in idx)
        t_new = sum(best["new", i][0] for i in idx)
        nodes = sum(best["new", i][1] for i in idx)
        players, placement, k, model = case
        rows.append([players, placement, k, model, len(idx), f"{nodes:,}", f"{t_old:.4f}",
                     f"{t_new:.4f}", f"{t_new / t_old:.3f}"])
    t_old = sum(best["old", i][0] for i in range(len(jobs)))
    t_new = sum(best["new", i][0] for i in range(len(jobs)))
    nodes = sum(best["new", i][1] for i in range(len(jobs)))
    rows.append(["all", "", "", "", len(jobs), f"{nodes:,}", f"{t_old:.4f}", f"{t_new:.4f}",
                 f"{t_new / t_old:.3f}"])
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
    parser.add_argument("--old", metavar="DIR",
                        help="a checkout of the code to compare with, side by side")
    parser.add_argument("--compare-only", action="store_true",
                        help="with --old: print only the before/after table")
    args = parser.parse_args()
    if args.old:
        print(f"Exact search before ({args.old}) and after ({ROOT}): the same positions, "
              "fastest of 3 alternating rounds, seconds summed over the positions")
        print(tabulate(compare_table(args.old, args.seeds, args.quick),
                       headers=["players", "placement", "k", "model", "positions", "nodes",
                                "old s", "new s", "new/old"], tablefmt="github"))
        if args.compare_only:
            return
        print()
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
