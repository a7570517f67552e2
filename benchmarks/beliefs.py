"""Beliefs about the hidden hands: how much they know, how many deals they keep, what they cost.

    python benchmarks/beliefs.py [--rounds 100] [--seed 1] [--variant standard] [--players 4]
                                 [--opponents learned:play=sampled,careful,random]
                                 [--trust 1,0.5,0.25]
    python benchmarks/beliefs.py --old DIR [--rounds 10] [--repeats 3]

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

``--old DIR``: the belief sampler before and after a change, side by side in one run. Each
side runs in its own process (``checkouts.py``: the checkout imported as ``solver``, numba's
cache a folder of its own), sides alternating ``--repeats`` times; each times every
``belief_sample`` of ``--rounds`` rounds (the first ``--opponents`` bot in every seat,
``--trust`` 1) after one untimed call that loads the kernels. Per stage of the round: old and
new milliseconds per sample (the best of the repeats, summed over the samples), new/old, and
whether the two sides drew the same deals (a digest of every deal drawn).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict

import numpy as np
from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import HAND_SIZE, Rules  # noqa: E402
from nimmt.solver.players.bots import belief_sample, make_policy  # noqa: E402
from nimmt.solver.players.seats import Table, bot_seed, deal_cards  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from checkouts import CHILD_PRELUDE, checkout_env  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# One side of --old: stdin (variant, players, opponent, rounds, seed); stdout a JSON list of
# (stage, seconds, digest of the deals drawn) per belief sample, the kernels loaded first.
SIDE = """
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
bots, seats = module("solver", "bots"), module("solver", "seats")
Rules, HAND_SIZE = module("solver", "rules").Rules, module("solver", "rules").HAND_SIZE
variant, players, opponent, rounds, seed, stages = json.load(sys.stdin)
rules = Rules(variant, players)
out, warm = [], False
for r in range(rounds):
    rows, hands = seats.deal_cards(rules, seed, r, 0)
    table = seats.Table(rules, rows, hands,
                        [bots.make_policy(opponent, seats.bot_seed(seed, r, s))
                         for s in range(players)])
    for turn in range(1, HAND_SIZE + 1):
        if turn >= 2:
            position, history = table.view(0), table.seen(0)
            seed_turn = seats.bot_seed(seed, r, turn)
            if not warm:
                bots.belief_sample(position, history, seed_turn, trust=1.0)
                warm = True
            t = time.perf_counter()
            dealt, _ = bots.belief_sample(position, history, seed_turn, trust=1.0)
            seconds = time.perf_counter() - t
            stage = next(i for i, (a, b) in enumerate(stages) if a <= turn <= b)
            out.append((stage, seconds, hashlib.sha1(dealt.tobytes()).hexdigest()))
        table.play_turn()
print(json.dumps(out))
"""

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


def side(root: str, job: list) -> list:
    """One side's run of the ``--old`` comparison: (stage, seconds, digest) per sample."""
    done = subprocess.run([sys.executable, "-c", CHILD_PRELUDE + SIDE, root],
                          input=json.dumps(job), cwd=root, capture_output=True, text=True,
                          env=checkout_env(root))
    if done.returncode:
        raise SystemExit(f"{root}: the belief samples failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def compare_old(old: str, job: list, repeats: int) -> list[list]:
    """Rows of old and new milliseconds per belief sample by stage, sides alternating."""
    best: dict = {}
    digests: dict = {}
    for _ in range(repeats):
        for name, root in (("old", old), ("new", ROOT)):
            got = side(root, job)
            digests[name] = [d for _, _, d in got]
            for i, (stage, seconds, _) in enumerate(got):
                if (name, i) not in best or seconds < best[name, i][0]:
                    best[name, i] = seconds, stage
    rows = []
    samples = len(digests["new"])
    for stage in [*range(len(STAGES)), None]:
        picked = [i for i in range(samples) if stage is None or best["new", i][1] == stage]
        old_ms = 1000 * sum(best["old", i][0] for i in picked) / len(picked)
        new_ms = 1000 * sum(best["new", i][0] for i in picked) / len(picked)
        same = all(digests["old"][i] == digests["new"][i] for i in picked)
        label = "all" if stage is None else f"turns {STAGES[stage][0]}-{STAGES[stage][1]}"
        rows.append([label, len(picked), f"{old_ms:.2f}", f"{new_ms:.2f}",
                     f"{new_ms / old_ms:.3f}", "yes" if same else "NO"])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--opponents", default="learned:play=sampled;careful;random",
                    help="bots separated by semicolons, each played in every seat")
    ap.add_argument("--trust", default="1,0.5,0.25")
    ap.add_argument("--old", metavar="DIR", help="another checkout: its belief sampler's "
                    "time and deals beside this one's")
    ap.add_argument("--repeats", type=int, default=3, help="with --old: runs of each side")
    args = ap.parse_args()
    if args.old:
        opponent = args.opponents.split(";")[0]
        job = [args.variant, args.players, opponent, args.rounds, args.seed, STAGES]
        print(f"\n### belief samples (trust 1), before ({args.old}) and after ({ROOT}): "
              f"{args.variant}, {args.players} players, every seat {opponent}, "
              f"{args.rounds} rounds (seed {args.seed}), best of {args.repeats}\n")
        print(tabulate(compare_old(args.old, job, args.repeats),
                       ["stage", "samples", "old ms", "new ms", "new/old", "same deals"],
                       tablefmt="github"))
        return
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
