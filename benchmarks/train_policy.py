"""Train the learned card policy by self-play (REINFORCE), resumable, and write its weights.

    python benchmarks/train_policy.py [--seed 1] [--steps 20000] [--checkpoint FILE]
                                      [--out FILE] [--evaluate ROUNDS]

Each step plays 500 self-play rounds of one setting (players and deck size, in turn through
``solver.players.training.SETTINGS``) and takes one Adam step. The result depends on the
seed and the step count only: a run stopped with Ctrl-C (exit 130) writes its checkpoint
(default ``train_policy.checkpoint.json``) and, started again with the same arguments, ends
with the weights an uninterrupted run would have. ``--out`` (default: the weights file the
package ships, ``solver/players/learned_policy.json``) is written at the end.
``--evaluate`` then prints a table: in a table of the rule of thumb ``careful``, the cows a
round of one seat played by each policy (the learned one sampled and greedy, ``careful``
itself, ``closest``, ``random``), on the same deals.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.errors import NimmtError  # noqa: E402
from nimmt.solver.base.fileio import atomic_write_text  # noqa: E402
from nimmt.solver.players.training import (  # noqa: E402
    POLICY_FILE,
    TrainState,
    evaluate_seat,
    train,
    weights_document,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--checkpoint", default="train_policy.checkpoint.json")
    parser.add_argument("--out", default=POLICY_FILE)
    parser.add_argument("--evaluate", type=int, default=0, metavar="ROUNDS")
    args = parser.parse_args()
    start = time.perf_counter()
    means: list[float] = []

    def progress(state: TrainState, mean: float) -> None:
        means.append(mean)
        if state.step % 500 == 0:
            print(f"step {state.step:,} of {args.steps:,}, {time.perf_counter() - start:.0f} s; "
                  f"weights {np.round(state.weights, 2).tolist()}", flush=True)

    try:
        state = train(args.seed, args.steps, args.checkpoint, progress=progress)
    except KeyboardInterrupt:
        print(f"interrupted; the checkpoint {args.checkpoint} resumes it", file=sys.stderr)
        sys.exit(130)
    except NimmtError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    atomic_write_text(args.out, weights_document(state))
    print(f"{state.step:,} steps (seed {state.seed}) in {time.perf_counter() - start:.0f} s "
          f"this run; weights written to {args.out}")
    if args.evaluate:
        rows = []
        for players, deck in ((4, 104), (4, 44), (2, 24), (6, 104)):
            row = [f"{players} players, cards 1..{deck}"]
            for seat in ("learned", "greedy", "careful", "closest", "random"):
                row.append(evaluate_seat(state.weights, seat, players, deck, args.evaluate))
            rows.append(row)
        print(f"Cows a round of one seat among `careful` players, {args.evaluate:,} rounds, "
              "the same deals for every column (lower is better):")
        print(tabulate(rows, headers=["table", "learned", "greedy", "careful", "closest",
                                      "random"], tablefmt="github", floatfmt=".2f"))


if __name__ == "__main__":
    main()
