"""Engine figures: random 10-turn rounds per second, numba kernels vs the pure-Python
reference (same run), compile and warm-start times, and `nimmt simulate --one-round`.

    python benchmarks/engine.py [--seconds 2]

Prints a table (tabulate). Nothing here is asserted by the tests.
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

from nimmt.solver.base import reference  # noqa: E402
from nimmt.solver.base.rules import deck_size  # noqa: E402
from nimmt.solver.kernels import engine  # noqa: E402


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


def kernel_rounds(players: int, variant: str, seconds: float) -> float:
    bots = engine.bot_codes(["random"] * players)
    top = deck_size(variant, players)
    engine.play_games(0, 1, players, top, False, False, 66, True, bots, 1)  # load
    games, start, done = 65536, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        engine.play_games(done, games, players, top, False, False, 66, True, bots, 1)
        done += games
    return done / (time.perf_counter() - start)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    rows = []
    for players, variant in ((2, "tactical"), (4, "tactical"), (4, "standard")):
        ref = reference_rounds(players, variant, args.seconds)
        ker = kernel_rounds(players, variant, args.seconds)
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
