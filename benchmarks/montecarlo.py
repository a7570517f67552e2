"""Monte Carlo against exact search, on positions where exact search is feasible.

For each position: the exact random value of every card, then Monte Carlo
- "before": as it was (later cards by the 'closest' bot; exact continuation from the most
  cards left whose estimate for ONE state is at most 20,000 nodes);
- "now": as planned now for the default budget (5,000,000 nodes, as --max-nodes);
- "rollouts, before's depth": the rollout policy (16 playouts per card) behind the exact
  continuation of "before" (what the policy alone changes; the regime of larger positions,
  where the exact continuation starts late).
Bias = Monte Carlo mean minus exact value, per card; the table gives the mean and the
largest over the cards, and whether the best card is exact's best. Same seed and
sample count for every run.

With --big: the plan and the time of Monte Carlo on larger positions (no exact value),
for the default budget and for --max-nodes 50,000,000.

With --old DIR: the before/after table: this code and the checkout DIR (e.g. a `git worktree`
of main), each in its own subprocess, on the same positions and seeds (plans as now, 400
samples per card); sides alternate 3 rounds, the fastest counts; estimates and nodes must
agree exactly.

    python benchmarks/montecarlo.py [--samples 2000] [--seed 1] [--big] [--old DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.defaults import DEFAULT_MAX_NODES  # noqa: E402
from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.positions import owners
from nimmt.solver.positions.position import format_position, load_position, parse_position  # noqa: E402
from nimmt.solver.search import exact, montecarlo  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402

from checkouts import CHILD_PRELUDE, checkout_env  # noqa: E402

TESTER = ("variant=tactical players=3 rows=34/2,5,6,11,16/13,14,21,28/3 hand=8,12,22,26,30 "
          "gone=4,7,15,20,27,29,31,33")
DEALS = [("2p tactical k=6", "tactical", 2, "normal", 6, 1),
         ("2p tactical k=7", "tactical", 2, "normal", 7, 1),
         ("2p professional k=6", "tactical", 2, "professional", 6, 3),
         ("3p tactical k=5", "tactical", 3, "normal", 5, 2),
         ("3p logic k=5", "logic", 3, "normal", 5, 1),
         ("4p logic k=4", "logic", 4, "normal", 4, 1),
         ("2p standard k=3", "standard", 2, "normal", 3, 1),
         ("2p standard k=3", "standard", 2, "normal", 3, 3)]
OLD_SAMPLE_BUDGET = 20_000
BIG = [("tactical", 4, 8), ("tactical", 3, 7), ("logic", 4, 6), ("tactical", 2, 10),
       ("standard", 3, 7)]


def positions():
    yield "3p tactical k=5 (a tester's position)", parse_position(TESTER)
    for name, variant, players, placement, k, seed in DEALS:
        yield f"{name} (deal seed {seed})", deal_position(Rules(variant, players, placement), k,
                                                          seed=seed)


def old_depth(position) -> int:
    """The former rule: exact continuation once ONE state costs at most 20,000 nodes."""
    best = 0
    for e in range(1, position.cards_left):
        if owners.estimate_nodes(position, cards_left=e) <= OLD_SAMPLE_BUDGET:
            best = e
    return best


def summary(mc, values) -> tuple[str, str, str, str, str]:
    bias = [c.value - values[c.card] for c in mc.cards]
    best = min(values.values())
    picked = min(mc.cards, key=lambda c: (c.value, c.card)).card
    return (f"{statistics.mean(bias):+.3f}", f"{max(bias):+.3f}",
            f"{statistics.mean(c.stderr for c in mc.cards):.3f}",
            "yes" if values[picked] - best < 1e-9 else f"no ({picked})", f"{mc.seconds:.2f}")


# One side of the before/after table: argv = [root]; stdin: JSON list of (position, samples);
# stdout: JSON list of (seconds, nodes, [(card, value, stderr)]).
SIDE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
run_montecarlo = module("solver", "montecarlo").run_montecarlo
load_position = module("solver", "position").load_position
parse_position = module("solver", "position").parse_position
jobs = json.load(sys.stdin)
run_montecarlo(load_position("example-standard"), samples=16, seed=1)  # load the kernels
out = []
for text, samples in jobs:
    t = time.perf_counter()
    r = run_montecarlo(parse_position(text), samples=samples, seed=1)
    out.append((time.perf_counter() - t, r.nodes, [(c.card, c.value, c.stderr) for c in r.cards]))
print(json.dumps(out))
"""
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
COMPARE = [("example-standard (4p standard k=9)", "example-standard", 400),
           ("3p tactical k=5 (a tester's position)", TESTER, 400)] + [
    (f"{v} {n}p {pl} k={k} (deal seed {seed})", (v, n, pl, k, seed), 400)
    for v, n, pl, k, seed in [("tactical", 2, "normal", 7, 1), ("tactical", 3, "normal", 5, 2),
                              ("tactical", 2, "professional", 6, 3),
                              ("standard", 4, "normal", 8, 4)]]


def compare_table(old: str, rounds: int = 3) -> list[list]:
    """Old and new Monte Carlo on the same positions and seeds, sides alternating."""
    jobs = []
    for _, what, samples in COMPARE:
        if isinstance(what, tuple):
            v, n, pl, k, seed = what
            text = format_position(deal_position(Rules(v, n, pl), k, seed=seed))
        else:
            text = format_position(load_position(what) if "=" not in what
                                   else parse_position(what))
        jobs.append((text, samples))
    best: dict = {}
    for _ in range(rounds):
        for side, root in (("old", old), ("new", ROOT)):
            done = subprocess.run([sys.executable, "-c", CHILD_PRELUDE + SIDE, root],
                                  input=json.dumps(jobs), cwd=root, check=True,
                                  capture_output=True, text=True, env=checkout_env(root))
            for i, got in enumerate(json.loads(done.stdout)):
                if (side, i) not in best or got[0] < best[side, i][0]:
                    best[side, i] = got
    rows = []
    for i, (name, _, samples) in enumerate(COMPARE):
        old_run, new_run = best["old", i], best["new", i]
        if old_run[1:] != new_run[1:]:
            raise SystemExit(f"old and new disagree on {name}")
        rows.append([name, samples, f"{new_run[1]:,}", f"{old_run[0]:.3f}", f"{new_run[0]:.3f}",
                     f"{new_run[0] / old_run[0]:.3f}"])
    t_old = sum(best["old", i][0] for i in range(len(jobs)))
    t_new = sum(best["new", i][0] for i in range(len(jobs)))
    rows.append(["all", "", "", f"{t_old:.3f}", f"{t_new:.3f}", f"{t_new / t_old:.3f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--old", metavar="DIR", help="a checkout to compare with, side by side")
    args = parser.parse_args()
    if args.old:
        print(f"Monte Carlo before ({args.old}) and after ({ROOT}): the same positions and "
              "seeds, fastest of 3 alternating rounds")
        print(tabulate(compare_table(args.old), headers=[
            "position", "samples/card", "exact nodes", "old s", "new s", "new/old"],
            tablefmt="github", disable_numparse=True))
        return
    montecarlo.run_montecarlo(parse_position(TESTER), samples=2, exact_depth=1)  # load kernels
    if args.big:
        big()
        return
    rows = []
    for name, position in positions():
        result = exact.solve_exact(position, "random", max_nodes=10**9)
        values = {c.card: c.value for c in result.cards}
        runs = [("before", montecarlo.run_montecarlo(
                    position, samples=args.samples, seed=args.seed,
                    exact_depth=old_depth(position), rollouts=0)),
                ("now", montecarlo.run_montecarlo(position, samples=args.samples,
                                                  seed=args.seed))]
        if old_depth(position) < position.cards_left - 1:
            runs.append(("rollouts, before's depth", montecarlo.run_montecarlo(
                position, samples=args.samples, seed=args.seed,
                exact_depth=old_depth(position), rollouts=16)))
        for i, (label, mc) in enumerate(runs):
            policy = ("exact from the next turn" if mc.later_exact else
                      ("closest" if mc.rollouts == 0 else f"rollouts {mc.rollouts}")
                      + f", exact from {mc.exact_depth}")
            rows.append([name if i == 0 else "", f"{result.seconds:.2f}" if i == 0 else "",
                         label, policy, *summary(mc, values)])
            print(rows[-1], file=sys.stderr, flush=True)
    print(f"Monte Carlo minus exact, {args.samples:,} samples per card, seed {args.seed}")
    print(tabulate(rows, headers=["position", "exact s", "MC", "later play", "mean bias",
                                  "max bias", "mean stderr", "best card right", "MC s"],
                   tablefmt="github", disable_numparse=True))


def big() -> None:
    rows = []
    cases = [("example-standard", load_position("example-standard"))]
    cases += [(f"{v} {n}p k={k} (deal seed 5)", deal_position(Rules(v, n), k, seed=5))
              for v, n, k in BIG]
    for name, position in cases:
        row = [name, old_depth(position)]
        for budget in (DEFAULT_MAX_NODES, 50_000_000):
            mc = montecarlo.run_montecarlo(position, samples=2000, seed=1, node_budget=budget)
            policy = "closest" if mc.rollouts == 0 else f"rollouts {mc.rollouts}"
            row += [f"{policy}, exact from {mc.exact_depth}", f"{mc.seconds:.1f}",
                    f"{statistics.mean(c.value for c in mc.cards):.3f}"]
        rows.append(row)
        print(row, file=sys.stderr, flush=True)
    print("Larger positions, 2,000 samples per card, seed 1: the plan, seconds and the mean "
          "figure over the cards (lower is closer to exact: every figure is an upper bound)")
    print(tabulate(rows, headers=["position", "former exact depth", "plan, 5M", "s",
                                  "mean", "plan, 50M", "s", "mean"],
                   tablefmt="github", disable_numparse=True))


if __name__ == "__main__":
    main()
