"""Puzzle figures: for each shipped set's settings, puzzles kept per minute and the
acceptance rate (kept / candidates), measured by generating a fresh batch (another seed).

    python benchmarks/puzzles.py [--count 10] [--workers 1]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.puzzles.core import generate  # noqa: E402
from nimmt.puzzles.files import load_set, shipped_sets  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    rows = []
    for name in shipped_sets():
        st = load_set(name).settings
        assert st is not None, f"{name} records no settings"
        settings = replace(st, seed=1000)
        generate(settings, 1)  # load kernels
        start = time.perf_counter()
        found, tried = generate(settings, args.count, workers=args.workers)
        seconds = time.perf_counter() - start
        rows.append([name, f"{st.players}p {st.variant} {st.placement} k={st.cards_left}"
                     f" {st.model} margin {st.min_margin:g}", len(found), tried,
                     f"{len(found) / tried:.0%}", f"{60 * len(found) / seconds:.0f}"])
    print(f"Puzzle generation, {args.workers} worker(s), {args.count} puzzles per set's settings")
    print(tabulate(rows, headers=["set", "settings", "kept", "candidates", "acceptance",
                                  "kept per minute"], tablefmt="github"))


if __name__ == "__main__":
    main()
