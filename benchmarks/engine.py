"""Engine figures: random 10-turn rounds per second, numba kernels vs the pure-Python
reference (same run), compile and warm-start times, and `nimmt simulate --one-round`.

    python benchmarks/engine.py [--seconds 2]
    python benchmarks/engine.py --old DIR [--seconds 2] [--rounds 3]

Prints a table (tabulate). Nothing here is asserted by the tests. With ``--old DIR``: the
numba engine's rounds per second of this code and of the checkout DIR side by side, each
side in its own process (``checkouts.py``), sides alternating, the best of ``--rounds``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from nimmt.solver.base import reference  # noqa: E402
from nimmt.solver.base.rules import deck_size  # noqa: E402

from checkouts import CHILD_PRELUDE, checkout_env  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CASES = ((2, "tactical"), (4, "tactical"), (4, "standard"))
# stdout: rounds per second of each case, measured by one checkout's engine
SIDE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
engine = module("solver", "engine")
deck_size = module("solver", "rules").deck_size
seconds = float(sys.argv[2])
out = []
for players, variant in json.loads(sys.argv[3]):
    bots = engine.bot_codes(["random"] * players)
    top = deck_size(variant, players)
    engine.play_games(0, 1, players, top, False, False, 66, True, bots, 1)  # load
    games, start, done = 65536, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        engine.play_games(done, games, players, top, False, False, 66, True, bots, 1)
        done += games
    out.append(done / (time.perf_counter() - start))
print(json.dumps(out))
"""


def reference_rounds(players: int, variant: str, seconds: float) -> float:
    """Random rounds per second with the pure-Python reference engine."""
    rng = random.Random(1)
    top = deck_size(variant, players)
    chooser = reference.default_chooser
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        deck = list(range(1, top + 1))
        rng.shuffle(deck)
        hands = [deck[10 * p:10 * p + 10] for p in range(players)]
        rows = [[c] for c in deck[10 * players:10 * players + 4]]
        reference.play_round(rows, hands, False, lambda p, hand, rows: rng.choice(hand), chooser)
        count += 1
    return count / (time.perf_counter() - start)


def start_times() -> tuple[float, float]:
    """Seconds to import and run one round: with an empty numba cache, then warm."""
    code = ("import time; t = time.perf_counter(); from nimmt.solver import engine; "
            "b = engine.bot_codes(['random'] * 2); "
            "engine.play_games(0, 1, 2, 24, False, False, 66, True, b, 1); "
            "print(time.perf_counter() - t)")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        root = os.path.join(os.path.dirname(__file__), "..")
        cold = float(subprocess.check_output([sys.executable, "-c", code], env=env, cwd=root))
        warm = float(subprocess.check_output([sys.executable, "-c", code], env=env, cwd=root))
    return cold, warm


def simulate_command(games: int) -> float:
    """Games per second reported by `nimmt simulate --one-round` (startup excluded)."""
    out = subprocess.check_output([sys.executable, "-m", "nimmt.cli", "simulate", "--players", "2",
                                   "--one-round", "--games", str(games), "--seed", "1",
                                   "--format", "json"],
                                  cwd=os.path.join(os.path.dirname(__file__), ".."))
    return json.loads(out)["games_per_second"]


def side_rounds(root: str, seconds: float) -> list[float]:
    """Rounds per second of every case with the engine of the checkout ``root``."""
    done = subprocess.run([sys.executable, "-c", CHILD_PRELUDE + SIDE, root, str(seconds),
                           json.dumps(CASES)], capture_output=True, text=True,
                          env=checkout_env(root), check=True)
    return json.loads(done.stdout)


def compare(old: str, seconds: float, rounds: int) -> None:
    """This code's engine against the checkout ``old``'s, sides alternating."""
    best: dict[str, list[float]] = {"old": [0.0] * len(CASES), "new": [0.0] * len(CASES)}
    for _ in range(rounds):
        for side, root in (("old", old), ("new", ROOT)):
            best[side] = [max(a, b) for a, b in zip(best[side], side_rounds(root, seconds))]
    rows = [[f"{players} players {variant}", f"{o:,.0f}", f"{n:,.0f}", f"{n / o:.3f}"]
            for (players, variant), o, n in zip(CASES, best["old"], best["new"])]
    print(f"Random 10-turn rounds per second, one core, best of {rounds} (old: {old})")
    print(tabulate(rows, headers=["rounds", "old", "new", "new/old"], tablefmt="github"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--old", metavar="DIR", help="compare with this checkout's engine")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.old:
        compare(args.old, args.seconds, args.rounds)
        return
    rows = []
    kernels = side_rounds(ROOT, args.seconds)  # in a child, as --old measures both sides
    for (players, variant), ker in zip(CASES, kernels):
        ref = reference_rounds(players, variant, args.seconds)
        rows.append([f"{players} players {variant}", f"{ker:,.0f}", f"{ref:,.0f}",
                     f"{ker / ref:,.0f}x"])
    print("Random 10-turn rounds per second, one core (random bots, rule-following rows)")
    print(tabulate(rows, headers=["rounds", "numba engine", "reference", "ratio"],
                   tablefmt="github"))
    sim = simulate_command(4_000_000)
    print(f"\n`nimmt simulate --players 2 --one-round --games 4000000`: {sim:,.0f} rounds "
          "per second (startup excluded)")
    cold, warm = start_times()
    print(f"import + first round: {cold:.1f} s with an empty numba cache (compile), "
          f"{warm:.2f} s warm")


if __name__ == "__main__":
    main()
