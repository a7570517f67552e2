"""Analysis figures: exact search (random, worst) by player count and cards left, with
the ratio against a brute force on the pure-Python reference engine (same run, k <= 4);
Monte Carlo samples per second and interval width after one second; the wall time of
`nimmt analyse` with a warm cache; how the node estimate compares with the count.

    python benchmarks/analysis.py [--seeds 3] [--quick] [--old DIR]
    python benchmarks/analysis.py --budgets [--base OTHER_CHECKOUT]

--budgets measures what the budgets cost and use: the exact search's memo bytes per
entry (peak RSS growth over entries, one process per position), `auto` on the issue-10
three-player position, and with --base the search time of this checkout against another
(e.g. a `git worktree` of the commit before the stop-flag checks), both imported into one
process and alternating, CPU seconds (the least of the repeats).

``--old DIR`` adds the before/after table: DIR is a checkout of the code to compare with
(e.g. ``git worktree add /tmp/nimmt-old a7ef167``); each side runs in its own subprocess
with its own sys.path on the same positions, which must get the same values and nodes.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
# the brute forces shared with the tests live in tests/naive.py
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.positions.owners import estimate_nodes
from nimmt.solver.positions.position import format_position, load_position  # noqa: E402
from nimmt.solver.search.exact import solve_exact  # noqa: E402  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402
from nimmt.solver.search.montecarlo import run_montecarlo  # noqa: E402

from checkouts import CHILD_PRELUDE, checkout_env, checkout_module, load_package  # noqa: E402
from naive import card_values_plain as brute_force  # noqa: E402


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
solve_exact = module("solver", "exact").solve_exact
parse_position = module("solver", "position").parse_position
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
    done = subprocess.run([sys.executable, "-c", CHILD_PRELUDE + SIDE, root],
                          input=json.dumps(jobs), cwd=root,
                          check=True, capture_output=True, text=True, env=checkout_env(root))
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
    argv = [sys.executable, "-m", "nimmt.cli", "analyse", position_text]
    subprocess.run(argv, cwd=root, check=True, capture_output=True)  # warm the cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=root, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


THREE = ("variant=tactical players=3 rows=34/2,5,6,11,16/13,14,21,28/3 hand=8,12,22,26,30 "
         "gone=4,7,15,20,27,29,31,33")
# (players, k, seed, model): searches of 0.1 to 10 s
TIMED = [(2, 6, 100, "random"), (2, 6, 100, "worst"), (3, 5, 102, "random"),
         (4, 4, 100, "random"), (4, 4, 100, "worst"), (2, 7, 100, "random")]
CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
solve_exact = module("solver", "exact").solve_exact
deal_position = module("solver", "game").deal_position
Rules = module("solver", "rules").Rules
solve_exact(deal_position(Rules("tactical", 2), 3, seed=1), "random")  # load kernels
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
position = deal_position(Rules("tactical", {players}), {k}, seed={seed})
cpu = time.process_time()
r = solve_exact(position, {model!r}, max_nodes=10**10)
cpu = time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(r.seconds, r.resolved, r.states, peak - base, cpu)
"""


def child(root: str, players: int, k: int, seed: int, model: str) -> list[float]:
    code = CHILD_PRELUDE + CHILD.format(root=os.path.abspath(root), players=players, k=k,
                                        seed=seed,
                        model=model)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=checkout_env(root)).stdout.split()
    return [float(x) for x in out]


def memo_table() -> list[list]:
    root = os.path.join(os.path.dirname(__file__), "..")
    rows = []
    for players, k, seed in ((2, 6, 100), (4, 4, 100), (3, 5, 102), (2, 7, 100), (3, 5, 100),
                             (2, 7, 101)):
        seconds, nodes, states, grown, _ = child(root, players, k, seed, "random")
        rows.append([players, k, seed, f"{states:,.0f}", f"{grown / 2**20:,.0f}",
                     f"{grown / states:.0f}"])
    return rows


def load_checkout(root: str, name: str = "base_solver"):
    """Another checkout's ``exact`` module, its package imported under another name."""
    load_package(root, name)
    return checkout_module(name, "exact")


def overhead_table(base: str, repeats: int) -> list[list]:
    """Both checkouts' exact search in this process, alternating, on the same positions:
    CPU seconds (worker threads included), the least of ``repeats``."""
    old = load_checkout(base)
    small = deal_position(Rules("tactical", 2), 3, seed=1)
    old.solve_exact(small, "random")  # load (or compile) the kernels
    solve_exact(small, "random")
    rows = []
    for players, k, seed, model in TIMED:
        position = deal_position(Rules("tactical", players), k, seed=seed)
        times = {"base": [], "here": []}
        for _ in range(repeats):
            for name, solve in (("base", old.solve_exact), ("here", solve_exact)):
                cpu = time.process_time()
                nodes = solve(position, model, max_nodes=10**10).resolved
                times[name].append(time.process_time() - cpu)
        b, h = min(times["base"]), min(times["here"])
        rows.append([players, k, model, f"{nodes:,.0f}", f"{b:.3f}", f"{h:.3f}",
                     f"{100 * (h / b - 1):+.1f}%"])
    return rows


def auto_line() -> str:
    from nimmt.solver.positions.position import parse_position
    from nimmt.solver.search.analysis import analyse

    analyse(parse_position(THREE), method="montecarlo", samples=10)  # load kernels
    start = time.perf_counter()
    a = analyse(parse_position(THREE))
    return (f"auto on the issue-10 three-player position: {a.method}, "
            f"{time.perf_counter() - start:.2f} s in all, {a.nodes:,} nodes (estimated "
            f"{a.estimate:,}); reason: {a.reason}")


def budgets(base: str | None, repeats: int) -> None:
    print("Exact search memo: peak RSS growth over entries (random model, one process each)")
    print(tabulate(memo_table(), headers=["players", "k", "seed", "entries", "MiB",
                                         "bytes/entry"], tablefmt="github"))
    print("\n" + auto_line())
    if base:
        print(f"\nExact search CPU seconds (least of {repeats}, alternating in one process; "
              f"wall time is noisy on a shared machine): {base} against this checkout")
        print(tabulate(overhead_table(base, repeats),
                       headers=["players", "k", "model", "nodes", "s, base", "s, here",
                                "change"], tablefmt="github"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3, help="positions per row (median)")
    parser.add_argument("--quick", action="store_true", help="skip the largest cases")
    parser.add_argument("--budgets", action="store_true", help="the budgets' figures only")
    parser.add_argument("--base", help="another checkout to time exact search against")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--old", metavar="DIR",
                        help="a checkout of the code to compare with, side by side")
    parser.add_argument("--compare-only", action="store_true",
                        help="with --old: print only the before/after table")
    args = parser.parse_args()
    if args.budgets:
        budgets(args.base, args.repeats)
        return
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
