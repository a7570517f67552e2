"""Beliefs about the hidden hands: how much they know, how many deals they keep, what they cost.

    python benchmarks/beliefs.py [--rounds 100] [--seed 1] [--variant standard] [--players 4]
                                 [--opponents learned:play=sampled,careful,random]
                                 [--trust 1,0.5,0.25]

Rounds are played at the arena's table by the ``--opponents`` bot in every seat; before each
turn after the first, seat 1's beliefs (``bots.belief_sample``: BELIEF_DEALS deals) are
drawn with each ``--trust`` (the share of a player's cards taken as the learned policy's)
and held against the hands the others really hold. Per opponent bot and trust, by stage of
the round (turns 2-4, 5-7, 8-10), the script prints:

* **p(owner)**: the share of the deals drawn that give each hidden card to its true
  holder, the mean over the others' cards; the uniform deal's (``belief=none``) is the
  first row (trust 0: every split alike);
* **acc**: the share of the Markov chains' card swaps accepted;
* **ms**: milliseconds per ``belief_sample``.

A p(owner) above the uniform row's means the beliefs put the hidden cards in the right hands
more often than an even deal does; a low acc means chains that move slowly.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

import numpy as np
from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import HAND_SIZE, Rules  # noqa: E402
from nimmt.solver.players.bots import belief_sample, make_policy  # noqa: E402
from nimmt.solver.players.seats import Table, bot_seed, deal_cards  # noqa: E402

STAGES = ((2, 4), (5, 7), (8, 10))


def owner_probability(position, history, truth, trust: float, seed: int
                      ) -> tuple[float, float, float]:
    """(mean probability of the true holder, swaps accepted, seconds) for one decision."""
    k = position.cards_left
    t0 = time.perf_counter()
    dealt, accepted = belief_sample(position, history, seed, trust=trust)
    seconds = time.perf_counter() - t0
    probs = [float(np.mean((dealt[:, p, :k] == c).any(axis=1)))
             for p in truth for c in truth[p]]
    return float(np.mean(probs)), accepted, seconds


def measure(variant: str, players: int, opponent: str, trusts: list[float], rounds: int,
            seed: int) -> dict:
    """stats[(trust, stage)] -> lists of (p(owner), swaps accepted, seconds)."""
    rules = Rules(variant, players)
    stats: dict = defaultdict(list)
    for r in range(rounds):
        rows, hands = deal_cards(rules, seed, r, 0)
        bots = [make_policy(opponent, bot_seed(seed, r, s)) for s in range(players)]
        table = Table(rules, rows, hands, bots)
        for turn in range(1, HAND_SIZE + 1):
            if turn >= 2:
                position, history = table.view(0), table.seen(0)
                n = players
                truth = {j: table.hands[j % n] for j in range(1, n)}
                stage = next(i for i, (a, b) in enumerate(STAGES) if a <= turn <= b)
                for trust in [0.0, *trusts]:
                    stats[(trust, stage)].append(owner_probability(
                        position, history, truth, trust, bot_seed(seed, r, turn)))
            table.play_turn()
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--opponents", default="learned:play=sampled;careful;random",
                    help="bots separated by semicolons, each played in every seat")
    ap.add_argument("--trust", default="1,0.5,0.25")
    args = ap.parse_args()
    trusts = [float(t) for t in args.trust.split(",")]
    for opponent in args.opponents.split(";"):
        stats = measure(args.variant, args.players, opponent, trusts, args.rounds, args.seed)
        rows = []
        for trust in [0.0, *trusts]:
            row = ["uniform (belief=none)" if trust == 0 else f"trust {trust:g}"]
            for stage in range(len(STAGES)):
                got = np.asarray(stats[(trust, stage)])
                row += [f"{got[:, 0].mean():.3f}", f"{got[:, 1].mean():.2f}",
                        f"{1000 * got[:, 2].mean():.1f}"]
            rows.append(row)
        headers = ["beliefs"]
        for a, b in STAGES:
            headers += [f"p(owner) t{a}-{b}", "acc", "ms"]
        print(f"\n### {args.variant}, {args.players} players, every seat {opponent}, "
              f"{args.rounds} rounds (seed {args.seed})\n")
        print(tabulate(rows, headers, tablefmt="github"))


if __name__ == "__main__":
    main()
