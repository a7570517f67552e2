"""Distil a search into the learned policy: collect its decisions in self-play, fit a policy.

    python benchmarks/distill_policy.py --out FILE [--bot SPEC] [--variant standard]
        [--players 4] [--rounds 400] [--seed 1] [--decisions FILE] [--units 8] [--tau 0.25]
        [--iterations 1500] [--fit-only]

Every seat of ``--rounds`` one-round tables plays ``--bot`` (a search with values per card,
``mcs``; a counted budget, so that the decisions depend on the seed only), and each
decision with a choice is kept in ``--decisions`` (default ``distill.<seed>.npz``), written
every 20 rounds: a run stopped with Ctrl-C (exit 130) or a lost machine goes on from there
when started again with the same arguments. A policy with ``--units`` hidden units
(``solver.kernels.learned.card_score``) is then fitted to the search's values
(``solver.players.distill.fit_policy``): on four fifths of the decisions, and the table
printed says how it does on the other fifth, beside the shipped policy: the loss, and the
cows the policy's likeliest card loses against the search's best by the search's own values
(its "regret"; the expected regret of a sampled card beside it). Then fitted on all of them
and written to ``--out`` as a weights file for ``weights=FILE``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.errors import NimmtError  # noqa: E402
from nimmt.solver.base.fileio import atomic_write_text  # noqa: E402
from nimmt.solver.base.rules import HAND_SIZE, Rules  # noqa: E402
from nimmt.solver.kernels.learned import FEATURE_NAMES, hidden_units  # noqa: E402
from nimmt.solver.players.bots import parse_bot, shipped_weights  # noqa: E402
from nimmt.solver.players.distill import (  # noqa: E402
    DecisionSet,
    collect,
    fit_policy,
    policy_loss,
    policy_scores,
)


def subset(data: DecisionSet, rows: np.ndarray) -> DecisionSet:
    return DecisionSet(data.feats[rows], data.values[rows], data.counts[rows],
                       data.rounds[rows], data.done)


def regrets(weights: np.ndarray, data: DecisionSet) -> tuple[float, float]:
    """Mean cows the greedy card and a sampled card lose against the search's best."""
    score, _ = policy_scores(weights, data.feats, hidden_units(weights.size))
    mask = np.arange(HAND_SIZE)[None, :] < data.counts[:, None]
    score = np.where(mask, score, -np.inf)
    best = np.where(mask, data.values, np.inf).min(1, keepdims=True)
    loss = np.where(mask, data.values - best, 0.0)
    greedy = loss[np.arange(len(score)), score.argmax(1)].mean()
    p = np.exp(score - score.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return float(greedy), float((p * loss).sum(1).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--bot", default="mcs:playouts=300,playout=learned,temperature=0.25")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decisions")
    parser.add_argument("--units", type=int, default=8)
    parser.add_argument("--tau", type=float, default=0.25)
    parser.add_argument("--iterations", type=int, default=1500)
    parser.add_argument("--fit-only", action="store_true")
    args = parser.parse_args()
    path = args.decisions or f"distill.{args.seed}.npz"
    try:
        spec = parse_bot(args.bot)
        rules = Rules(args.variant, args.players, one_round=True)
        start = time.perf_counter()
        if args.fit_only:
            data = DecisionSet.load(path)
        else:
            def progress(d: DecisionSet) -> None:
                print(f"{d.done} of {args.rounds} rounds, {len(d.values):,} decisions, "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
            data = collect(spec, rules, args.rounds, args.seed, path, progress=progress)
    except NimmtError as e:
        sys.exit(f"distill_policy: {e}")
    except KeyboardInterrupt:
        print(f"interrupted; {path} resumes it", file=sys.stderr)
        sys.exit(130)
    order = np.random.default_rng(args.seed).permutation(len(data.values))
    cut = len(order) * 4 // 5
    train, test = subset(data, order[:cut]), subset(data, order[cut:])
    t0 = time.perf_counter()
    weights, loss = fit_policy(train, args.units, args.tau, args.seed, args.iterations)
    fitted = time.perf_counter() - t0
    shipped = shipped_weights()
    rows = [["shipped", hidden_units(shipped.size),
             policy_loss(shipped, test, 0, args.tau, 0.0)[0], *regrets(shipped, test)],
            [f"fitted ({fitted:.0f} s)", args.units,
             policy_loss(weights, test, args.units, args.tau, 0.0)[0], *regrets(weights, test)]]
    print(f"\n{len(data.values):,} decisions of {data.done} rounds of {spec}, "
          f"{rules.variant} with {rules.players} players; tested on "
          f"{len(test.values):,}\n")
    print(tabulate(rows, headers=["policy", "hidden units", "loss", "greedy regret (cows)",
                                  "sampled regret"], floatfmt=".3f", tablefmt="github"))
    weights, loss = fit_policy(data, args.units, args.tau, args.seed, args.iterations,
                               start=weights)
    atomic_write_text(args.out, json.dumps({
        "policy": "softmax over card features (solver/kernels/learned.py)",
        "made_by": "python benchmarks/distill_policy.py", "bot": str(spec),
        "variant": rules.variant, "players": rules.players, "rounds": data.done,
        "seed": args.seed, "tau": args.tau, "features": list(FEATURE_NAMES),
        "hidden_units": args.units,
        "weights": [round(float(w), 6) for w in weights]}, indent=1) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
