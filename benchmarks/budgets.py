"""Budgets that hold: per-decision time against a time budget.

    python benchmarks/budgets.py [--seconds 0.2] [--seeds 3] [--old DIR] [--overhead-only]
                                 [--deciders ismcts,mcs] [--decisions-only] [--fresh-bots]
                                 [--ismcts-iterations 50000]
    python benchmarks/budgets.py --default-budget "sharp;sharp:iterations=5000" [--seeds 4]

For every search-backed bot with ``time=T`` (its counted budgets made large, so that the
time binds) and for ``analyse(time_limit=T)`` (models random and worst, method auto), on
dealt positions of 2, 3 and 4 players tactical at 10, 8, 6 and 4 cards left: the wall time
of each decision, as a distribution (median, 95th percentile, max) and the share within
the bound max(1.1 T, T + 0.05 s), and the median of the page faults a decision takes
(first touches of fresh memory: slow on a virtual machine). Kernels are loaded before
timing (a process's first use loads them: about a second, not counted). ``--deciders``:
only the deciders whose label starts with one of these names. A bot is told the turns
(``see``) before each decision, as a table tells it. ``--fresh-bots``: a new bot
for each decision, as an arena makes new bots for each game (with ``--ismcts-iterations
1000000``, an arena's tree search, whose tree the time alone bounds).

``--old DIR``: the same decisions with another checkout's code (e.g. ``git worktree add
/tmp/nimmt-old 17857c1``), imported in this process, side by side.

``--default-budget SPECS`` (bots separated by ``;``): each bot at its own budget, no
``time`` given, on dealt positions of 4 players tactical and 4, 6 and 10 players standard at
10, 9, 8, 6, 4 and 2 cards left (``--seeds`` of each): the decisions' wall times (mean,
median, p95, the largest after the process's first, the process's first, and the mean of
the first turn's, k = 10). Each (bot, table) runs in a process of its own: its first
decision at the table's size pays for its tree's fresh memory, once (later decisions reuse
the arrays); the bots one after another for each table, side by side.

The overhead table: the mechanism's cost where the time does not bind (the same counted
work with no time limit and with a limit far away): Monte Carlo's watched batches, the
chunked mcs and ismcts kernels, exact search's watcher.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np
from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.players import bots  # noqa: E402
from nimmt.solver.search import analysis  # noqa: E402
from nimmt.solver.search.exact import solve_exact  # noqa: E402  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402
from nimmt.solver.search.montecarlo import run_montecarlo  # noqa: E402

from checkouts import checkout_module, load_package  # noqa: E402

BIG = {"expecti": "samples=1000000000", "paranoid": "samples=1000000000",
       "nash": "samples=1000000000", "mcs": "playouts=1000000000",
       "ismcts": "iterations=50000"}


def positions(seeds: int) -> list:
    return [deal_position(Rules("tactical", n), k, seed=s)
            for n in (2, 3, 4) for k in (10, 8, 6, 4) for s in range(seeds)]


def load_checkout(root: str, name: str = "old_solver"):
    """Another checkout's ``bots``, ``analysis`` and ``position`` modules, its package
    imported under another name, so both run in this process."""
    load_package(root, name)
    return (checkout_module(name, "bots"), checkout_module(name, "analysis"),
            checkout_module(name, "position"))


def deciders(seconds: float, side_bots, side_analysis, convert, fresh: bool = False):
    """(label, decide(position), between()) for every bot and analyse model at
    ``seconds``; ``between`` is what a table does before a decision, outside its clock
    (it tells the bot the turns: ``see``); with ``fresh``, a new bot for each decision (as
    an arena makes one for each game)."""
    out = []
    for name in ("expecti", "paranoid", "nash", "mcs", "ismcts"):
        text = f"{name}:time={seconds:g},{BIG[name]}"
        bot = side_bots.make_policy(text, seed=1)
        if fresh:  # a new bot for each decision, told the turns first as a table does
            holder = [bot]

            def new_bot(text=text, holder=holder):
                holder[0] = side_bots.make_policy(text, seed=1)
                holder[0].see(())

            out.append((f"{name}:time={seconds:g}",
                        lambda p, holder=holder: holder[0].choose(convert(p)), new_bot))
            continue
        out.append((f"{name}:time={seconds:g}", lambda p, bot=bot: bot.choose(convert(p)),
                    lambda bot=bot: bot.see(())))
    for model in ("random", "worst"):
        def run(p, model=model):
            try:
                side_analysis.analyse(convert(p), model, time_limit=seconds, seed=1)
            except Exception as e:  # the old code raises where it does not fit (worst)
                return type(e).__name__
            return None
        out.append((f"analyse {model} --time-limit {seconds:g}", run, untimed))
    return out


def untimed() -> None:
    """Nothing between two decisions (a new bot, or an analysis)."""


def faults() -> int:
    """Page faults of this process so far (minor and major)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_minflt + usage.ru_majflt


def timings(seconds: float, seeds: int, side_bots, side_analysis, convert,
            only: tuple[str, ...] = (), fresh: bool = False) -> dict:
    found = {}
    ps = positions(seeds)
    for label, decide, between in deciders(seconds, side_bots, side_analysis, convert, fresh):
        if only and not any(label.startswith(o) for o in only):
            continue
        decide(deal_position(Rules("tactical", 2), 3, seed=99))  # load the kernels
        times, errors, faulted = [], 0, []
        for p in ps:
            between()
            f0 = faults()
            t0 = time.perf_counter()
            err = decide(p)
            if isinstance(err, str):
                errors += 1
                continue
            times.append(time.perf_counter() - t0)
            faulted.append(faults() - f0)
        found[label] = (np.asarray(times), errors, np.asarray(faulted))
    return found


BUDGET_TABLES = (("tactical", 4), ("standard", 4), ("standard", 6), ("standard", 10))
BUDGET_KS = (10, 9, 8, 6, 4, 2)


def budget_times(spec: str, variant: str, players: int, seeds: int) -> list[tuple[int, float]]:
    """(cards left, seconds) of each decision of one ``spec`` bot, in this process, on
    the dealt positions of a table (``--default-budget``), told the turns before each."""
    bot = bots.make_policy(spec, seed=1)
    bot.choose(deal_position(Rules("tactical", 2), 3, seed=99))  # load the kernels
    out = []
    for k in BUDGET_KS:
        for s in range(seeds):
            p = deal_position(Rules(variant, players), k, seed=s)
            bot.see(())
            t0 = time.perf_counter()
            bot.choose(p)
            out.append((k, time.perf_counter() - t0))
    return out


def default_budget(specs: list[str], seeds: int) -> None:
    """Print the ``--default-budget`` table: each bot and table in a new process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    rows = []
    context = multiprocessing.get_context("spawn")
    for variant, players in BUDGET_TABLES:
        for spec in specs:
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                found = pool.submit(budget_times, spec, variant, players, seeds).result()
            t = np.array([x for _, x in found])
            first = np.array([x for k, x in found if k == 10])
            rows.append([f"{players} players, {variant}", spec, len(t), f"{t.mean():.3f}",
                         f"{np.median(t):.3f}", f"{np.quantile(t, 0.95):.3f}",
                         f"{t[1:].max():.3f}", f"{t[0]:.3f}", f"{first.mean():.3f}"])
            print(" | ".join(map(str, rows[-1])), file=sys.stderr)
    print(f"\nDecisions at the bots' own budgets ({seeds} positions at each of k = "
          f"{', '.join(map(str, BUDGET_KS))}; a process for each bot and table):\n")
    print(tabulate(rows, headers=["table", "bot", "decisions", "mean s", "median s", "p95 s",
                                  "max s after the first", "the process's first s",
                                  "first turn mean s"], tablefmt="github"))
    print(f"\nload at the end: {os.getloadavg()[0]:.2f} (1 min)")


def row(label: str, times: np.ndarray, errors: int, seconds: float, side: str,
        faulted: np.ndarray) -> list:
    bound = max(1.1 * seconds, seconds + 0.05)
    if not len(times):
        return [label, side, 0, "", "", "", "", errors, ""]
    return [label, side, len(times), f"{np.median(times):.3f}",
            f"{np.quantile(times, 0.95):.3f}", f"{times.max():.3f}",
            f"{np.mean(times <= bound):.0%}", errors, f"{np.median(faulted):.0f}"]


def overhead_rows(repeats: int) -> list[list]:
    """The same counted work with no time limit and with one far away (best of repeats)."""
    far = 80_000.0
    p2 = deal_position(Rules("tactical", 2), 7, seed=3)
    p4 = deal_position(Rules("tactical", 4), 8, seed=3)
    p3 = deal_position(Rules("tactical", 3), 4, seed=2)
    cases = [
        ("Monte Carlo 2p k=7, 2,000 samples", lambda t: run_montecarlo(p2, 2000, 1, t)),
        ("Monte Carlo 4p k=8, 2,000 samples", lambda t: run_montecarlo(p4, 2000, 1, t)),
        ("mcs 4p k=8, 3,000 playouts",
         lambda t: bots.make_policy(f"mcs:playouts=3000{',time=' + str(t) if t else ''}",
                                    seed=1).choose(p4)),
        ("ismcts 4p k=8, 5,000 iterations",
         lambda t: bots.make_policy(f"ismcts:iterations=5000{',time=' + str(t) if t else ''}",
                                    seed=1).choose(p4)),
        ("exact 3p k=4 (random)", lambda t: solve_exact(p3, "random", time_limit=t)),
    ]
    rows = []
    for label, run in cases:
        run(None)
        run(far)
        best = {None: 1e9, far: 1e9}
        for _ in range(repeats):
            for t in (None, far):
                t0 = time.perf_counter()
                run(t)
                best[t] = min(best[t], time.perf_counter() - t0)
        rows.append([label, f"{best[None]:.4f}", f"{best[far]:.4f}",
                     f"{best[far] / best[None]:.3f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--old", metavar="DIR", help="another checkout, side by side")
    parser.add_argument("--overhead-only", action="store_true")
    parser.add_argument("--decisions-only", action="store_true")
    parser.add_argument("--deciders", default="", help="e.g. ismcts,mcs (default: all)")
    parser.add_argument("--fresh-bots", action="store_true",
                        help="a new bot for each decision, as in an arena's games")
    parser.add_argument("--ismcts-iterations", type=int, default=50_000,
                        help="ismcts's counted budget beside its time (an arena's: 1000000)")
    parser.add_argument("--default-budget", metavar="SPECS",
                        help="bots separated by ';', timed at their own budgets")
    args = parser.parse_args()
    if args.default_budget:
        print(f"load: {os.getloadavg()[0]:.2f} (1 min)")
        default_budget([x for x in args.default_budget.split(";") if x], args.seeds)
        return
    BIG["ismcts"] = f"iterations={args.ismcts_iterations}"
    only = tuple(d for d in args.deciders.split(",") if d)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min); seconds={args.seconds:g}\n")
    if not args.decisions_only:
        overhead(args.repeats)
    if args.overhead_only:
        return
    sides = [("new", bots, analysis, lambda p: p)]
    if args.old:
        ob, oa, opos = load_checkout(args.old)
        sides.insert(0, ("old", ob, oa, lambda p: opos.parse_position(
            __import__("nimmt.solver.positions.position", fromlist=["x"]).format_position(p))))
    results = {side: timings(args.seconds, args.seeds, b, a, conv, only, args.fresh_bots)
               for side, b, a, conv in sides}
    rows = []
    for label in results["new"]:
        for side in results:
            times, errors, faulted = results[side][label]
            rows.append(row(label, times, errors, args.seconds, side, faulted))
    bound = max(1.1 * args.seconds, args.seconds + 0.05)
    print(f"\nDecision wall time at a budget of {args.seconds:g} s (bound {bound:.3f} s), "
          f"{len(positions(args.seeds))} positions (2-4 players tactical, k = 10, 8, 6, 4):\n")
    print(tabulate(rows, headers=["decider", "code", "decisions", "median s", "p95 s",
                                  "max s", "within bound", "errors", "page faults"],
                   tablefmt="github"))
    print(f"\nload at the end: {os.getloadavg()[0]:.2f} (1 min)")


def overhead(repeats: int) -> None:
    """Print the overhead table."""
    print("Overhead where the time does not bind (no limit vs a limit of 80,000 s; best of "
          f"{repeats}):\n")
    print(tabulate(overhead_rows(repeats),
                   headers=["work", "no limit s", "limit far s", "ratio"], tablefmt="github"))


if __name__ == "__main__":
    main()
