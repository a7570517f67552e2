"""Position construction cost: ``apply_turn`` (which builds and checks the next position)
and parsing, for this checkout's ``solver/positions/position.py`` and an older one side by side in
one run, on the same positions and cards. The old module is loaded from another checkout
(e.g. a git worktree of the previous commit) under the name ``solver._old_position``, so
both share this checkout's engine and rules and only the Position code differs.

    git worktree add --detach ../old HEAD~1
    python benchmarks/position.py --old ../old [--calls 100000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import PLACEMENTS, VARIANTS, Rules  # noqa: E402
from nimmt.solver.positions import position as new_module  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402

from checkouts import module_path  # noqa: E402


def load_old(checkout: str):
    path = module_path(checkout, "position")
    spec = importlib.util.spec_from_file_location("solver._old_position", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def workload(count: int, seed: int) -> list[tuple[str, list[int]]]:
    """``count`` (position notation, one legal turn's cards): every variant, placement,
    2 to 10 players, 1 to 10 cards left; hidden hands play distinct cards of the pool."""
    rng = random.Random(seed)
    cases, texts = [], {}
    while len(cases) < count:
        key = (rng.choice(VARIANTS), rng.randint(2, 10), rng.choice(PLACEMENTS),
               rng.randint(1, 10), rng.randrange(5))
        if key not in texts:
            texts[key] = deal_position(Rules(*key[:3]), key[3], key[4])
        p = texts[key]
        hidden = rng.sample(p.pool, len(p.hidden_players))
        cards = [rng.choice(h) if h is not None else hidden.pop() for h in p.hands]
        cases.append((new_module.format_position(p), cards))
    return cases


def timed(run, items) -> float:
    t0 = time.perf_counter()
    for item in items:
        run(item)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True,
                        help="an older checkout (its solver/positions/position.py)")
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    modules = {"old": load_old(args.old), "new": new_module}
    cases = workload(args.calls, seed=1)
    work = {name: [(m.parse_position(text), cards) for text, cards in cases]
            for name, m in modules.items()}
    for name in modules:  # load the kernels
        timed(lambda pc: pc[0].apply_turn(pc[1]), work[name][:200])
    # chunks of 500 calls, old and new alternating (order swapped every chunk), so both see
    # the same machine load; totals over every chunk and repeat
    totals = {(name, what): 0.0 for name in modules for what in ("apply", "parse")}
    chunk = 500
    for repeat in range(args.repeats):
        for n, start in enumerate(range(0, len(cases), chunk)):
            names = ("old", "new") if (n + repeat) % 2 == 0 else ("new", "old")
            for name in names:
                totals[name, "apply"] += timed(lambda pc: pc[0].apply_turn(pc[1]),
                                               work[name][start:start + chunk])
                totals[name, "parse"] += timed(modules[name].parse_position,
                                               [text for text, _ in cases[start:start + chunk]])
    calls = args.repeats * len(cases)
    table = [[name, f"{totals[name, 'apply'] / calls * 1e6:.1f}",
              f"{totals[name, 'apply'] / args.repeats:.2f}",
              f"{totals[name, 'parse'] / calls * 1e6:.1f}"] for name in modules]
    table.append(["new / old", f"{totals['new', 'apply'] / totals['old', 'apply']:.2f}", "",
                  f"{totals['new', 'parse'] / totals['old', 'parse']:.2f}"])
    print(f"{len(cases):,} apply_turn calls and parses, {args.repeats} passes, old and new "
          f"alternating every {chunk} calls")
    print(tabulate(table, headers=["Position code", "apply_turn (µs)",
                                   f"{len(cases):,} apply_turn (s)", "parse (µs)"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
