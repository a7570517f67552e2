"""Position construction cost: ``apply_turn`` (which builds and checks the next position)
and parsing, for this checkout's ``solver/position.py`` and an older one side by side in
one run, on the same positions and cards. The old module is loaded from another checkout
(e.g. a git worktree of the previous commit) under the name ``solver._old_position``, so
both share this checkout's engine and rules and only the Position code differs.

    git worktree add --detach ../old HEAD~1
    python benchmarks/position.py --old ../old [--calls 100000] [--repeats 5]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver import position as new_module  # noqa: E402
from solver.game import deal_position  # noqa: E402
from solver.rules import PLACEMENTS, VARIANTS, Rules  # noqa: E402


def load_old(checkout: str):
    path = os.path.join(checkout, "solver", "position.py")
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
               rng.randint(1, 10), rng.randrange(50))
        if key not in texts:
            texts[key] = deal_position(Rules(*key[:3]), key[3], key[4])
        p = texts[key]
        hidden = rng.sample(p.pool, len(p.hidden_players))
        cards = [rng.choice(h) if h is not None else hidden.pop() for h in p.hands]
        cases.append((new_module.format_position(p), cards))
    return cases


def time_apply(module, cases, repeats: int) -> tuple[float, float]:
    """Median seconds per apply_turn and per parse, over ``repeats`` passes."""
    positions = [(module.parse_position(text), cards) for text, cards in cases]
    applies, parses = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for p, cards in positions:
            p.apply_turn(cards)
        applies.append((time.perf_counter() - t0) / len(positions))
        t0 = time.perf_counter()
        for text, _ in cases:
            module.parse_position(text)
        parses.append((time.perf_counter() - t0) / len(cases))
    return statistics.median(applies), statistics.median(parses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="an older checkout (its solver/position.py)")
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    old_module = load_old(args.old)
    cases = workload(args.calls, seed=1)
    time_apply(new_module, cases[:200], 1)  # load the kernels
    rounds = {"old": [], "new": []}
    for _ in range(args.repeats):  # alternate, so both see the same machine load
        rounds["old"].append(time_apply(old_module, cases, 1))
        rounds["new"].append(time_apply(new_module, cases, 1))
    table = []
    for name in ("old", "new"):
        apply_s = statistics.median(a for a, _ in rounds[name])
        parse_s = statistics.median(b for _, b in rounds[name])
        table.append([name, f"{apply_s * 1e6:.1f}", f"{apply_s * args.calls:.2f}",
                      f"{parse_s * 1e6:.1f}"])
    ratio = [statistics.median(a for a, _ in rounds["new"])
             / statistics.median(a for a, _ in rounds["old"]),
             statistics.median(b for _, b in rounds["new"])
             / statistics.median(b for _, b in rounds["old"])]
    table.append(["new / old", f"{ratio[0]:.2f}", "", f"{ratio[1]:.2f}"])
    print(f"{args.calls:,} apply_turn calls and parses, median of {args.repeats} alternating "
          "passes")
    print(tabulate(table, headers=["Position code", "apply_turn (µs)",
                                   f"{args.calls:,} apply_turn (s)", "parse (µs)"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
