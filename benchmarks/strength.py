"""Playing strength: duplicate-deal arenas and one rating table per setting.

    python benchmarks/strength.py [--deals 200] [--seed 1] [--workers 1] [--only 2p,4p,3p]
                                  [--checkpoint DIR]

Settings (one round each, duplicate deals: every deal replayed in every seat rotation):
  2p  tactical, 2 players: every listed pair plays its own duplicate match;
  4p  tactical, 4 players: two tables of four bots;
  3p  logic, 3 players: one table of three bots;
  2p-ismcts, 4p-ismcts, 3p-ismcts: the tree search against the others (fitted apart);
  2p-objectives: expecti and ismcts with objective win / margin against themselves (cows);
  2p-ismcts-tuning: ismcts at 1,000 iterations against random, objective and UCB constant;
  2p-uct: expecti for the win at 0.2 s a decision against ismcts for the win at 10,000
          iterations a move (a UCT of the published strength).
  2p-uct-tree: ismcts for the win at 0.2 s a decision (a large iteration budget, so time
          binds) against the same UCT stand-in.
  std4, std6: the standard game (104 cards, hidden hands), 4 and 6 players: the search
          bots at their default budgets with the rule bots (std4: two tables of four).
  rules4: the rule-of-thumb bots at one table, tactical, 4 players.
  r2, r4, r3, rstd4, rstd6: the rating list: every kind of bot (the learned policy and
          playouts by it among them) in 2- and 4-player tactical, 3-player logic and 4- and
          6-player standard; where hands are hidden (4 and 6 players), the tree search with
          sharp learned playouts (ismcts:playout=learned,temperature=0.1) has a table too.
The matches of a setting are fitted together into one Bradley-Terry rating (Elo scale,
`random` or the first rule bot anchored at 0) with 95% intervals from a bootstrap over each
match's deals. Per bot: mean cows per round and win rate over its games (a win shared by a
tie counts 1/winners), decisions timed (forced last cards excluded): mean, median, 95th
percentile. Prints Markdown tables.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import pickle
import sys
import time
from collections import defaultdict

import numpy as np
from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.players.arena import fit_bradley_terry, run_arena  # noqa: E402
from nimmt.solver.players.bots import parse_bots  # noqa: E402

SETTINGS = {
    "2p": (Rules("tactical", 2, one_round=True), [
        "expecti,random", "expecti,closest", "expecti,lowkeeper", "expecti,dumper",
        "expecti,mcs", "nash:k=6,expecti", "paranoid,expecti", "mcs,closest",
        "closest,random"]),
    "4p": (Rules("tactical", 4, one_round=True), [
        "expecti,closest,lowkeeper,dumper", "expecti,mcs,paranoid,random"]),
    "3p": (Rules("logic", 3, one_round=True), ["expecti,mcs,closest"]),
    # the tree search, measured on its own (run with --only 2p-ismcts,4p-ismcts,3p-ismcts)
    "2p-ismcts": (Rules("tactical", 2, one_round=True), [
        "ismcts,random", "ismcts:iterations=1000,random", "ismcts,expecti", "ismcts,mcs"]),
    "4p-ismcts": (Rules("tactical", 4, one_round=True), ["ismcts,expecti,mcs,closest"]),
    "3p-ismcts": (Rules("logic", 3, one_round=True), ["ismcts,expecti,mcs"]),
    # objectives: the same bot with win or margin against itself with cows
    "2p-objectives": (Rules("tactical", 2, one_round=True), [
        "expecti:objective=win,expecti", "expecti:objective=margin,expecti",
        "ismcts:objective=win,ismcts", "ismcts:objective=margin,ismcts"]),
    # the tree search at the published UCT's budget (1,000 a move) against random: its
    # objective and exploration constant side by side
    "2p-ismcts-tuning": (Rules("tactical", 2, one_round=True), [
        "ismcts:iterations=1000,random", "ismcts:iterations=1000,objective=win,random",
        "ismcts:iterations=1000,objective=win,c=0.35,random",
        "ismcts:iterations=1000,objective=win,c=1.4,random",
        "ismcts:iterations=1000,objective=margin,random"]),
    # the bar beyond: the best bot for the win at 0.2 s a decision against a UCT of the
    # published strength (decoupled UCT over joint moves for the win, 10,000 iterations a move)
    "2p-uct": (Rules("tactical", 2, one_round=True), [
        "expecti:objective=win,time=0.2,ismcts:objective=win,c=0.7"]),
    "2p-uct-tree": (Rules("tactical", 2, one_round=True), [
        "ismcts:objective=win,c=0.7,time=0.2,iterations=500000,ismcts:objective=win,c=0.7"]),
    # the standard game, where hands are hidden and most cards are never dealt
    "std4": (Rules("standard", 4, one_round=True), [
        "ismcts,expecti,mcs,careful", "careful,closest,lowkeeper,dumper"]),
    "std6": (Rules("standard", 6, one_round=True), [
        "ismcts,expecti,mcs,careful,closest,random"]),
    "rules4": (Rules("tactical", 4, one_round=True), ["careful,closest,lowkeeper,dumper"]),
    # the rating list (docs/PERFORMANCE.md, "The rating list"): every kind of bot, the learned
    # policy among them, in the five settings, each setting's tables sharing bots so that one
    # fit rates them all (run with --only r2,r4,r3,rstd4,rstd6 --checkpoint DIR)
    "r2": (Rules("tactical", 2, one_round=True), [
        "learned,closest", "learned,random", "careful,closest", "closest,random",
        "expecti,learned", "expecti,mcs", "mcs:playout=learned,mcs", "ismcts,expecti",
        "ismcts,mcs:playout=learned"]),
    "r4": (Rules("tactical", 4, one_round=True), [
        "ismcts,mcs:playout=learned,learned,careful", "expecti,mcs,closest,random",
        "learned,careful,closest,random", "ismcts,expecti,mcs,learned",
        "ismcts:playout=learned,temperature=0.1,ismcts,mcs:playout=learned,careful"]),
    "r3": (Rules("logic", 3, one_round=True), [
        "expecti,learned,careful", "mcs,mcs:playout=learned,closest", "ismcts,expecti,mcs",
        "learned,closest,random"]),
    "rstd4": (Rules("standard", 4, one_round=True), [
        "ismcts,mcs:playout=learned,learned,careful", "expecti,mcs,careful,closest",
        "learned,closest,lowkeeper,random",
        "ismcts:playout=learned,temperature=0.1,ismcts,mcs:playout=learned,careful"]),
    "rstd6": (Rules("standard", 6, one_round=True), [
        "ismcts,mcs:playout=learned,learned,careful,closest,random",
        "expecti,mcs,careful,closest,dumper,random",
        "ismcts:playout=learned,temperature=0.1,ismcts,mcs,mcs:playout=learned,careful,closest"]),
}
ANCHORS = ("random", "closest")
BOOT = 200
SCALE = 400 / math.log(10)


def pair_wins(result, names):
    """Per deal, wins[a, b] in the global index (ties half)."""
    index = [names.index(b) for b in result.bots]
    deals = defaultdict(lambda: np.zeros((len(names), len(names))))
    for g in result.games:
        for a in range(len(index)):
            for b in range(len(index)):
                if a != b:
                    s = 1.0 if g.totals[a] < g.totals[b] else 0.5 if g.totals[a] == g.totals[b] \
                        else 0.0
                    deals[g.deal][index[a], index[b]] += s
    return np.array(list(deals.values()))


def played(key, text, rules, deals, seed, workers, checkpoint):
    """One table's arena; with ``checkpoint`` (a folder) a table finished before is read
    back, and one finished now is kept, so a stopped run resumes at its next table."""
    path = None
    if checkpoint:
        name = f"{key}-{hashlib.sha1(text.encode()).hexdigest()[:10]}-d{deals}-s{seed}.pickle"
        path = os.path.join(checkpoint, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                return pickle.load(f)
    t0 = time.perf_counter()
    r = run_arena(rules, parse_bots(text), deals, seed, workers=workers)
    print(f"  {key} {text}: {r.deals} deals, {len(r.games)} games, "
          f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    if path and r.complete:
        os.makedirs(checkpoint, exist_ok=True)
        with open(path + ".part", "wb") as f:
            pickle.dump(r, f)
        os.replace(path + ".part", path)
    return r


def run_setting(key, deals, seed, workers, checkpoint=None):
    rules, tables = SETTINGS[key]
    results = [played(key, text, rules, deals, seed, workers, checkpoint) for text in tables]
    names = sorted({b for r in results for b in r.bots},
                   key=lambda b: min(r.bots.index(b) + 10 * i for i, r in enumerate(results)
                                     if b in r.bots))
    anchor = next((names.index(a) for a in ANCHORS if a in names), len(names) - 1)
    per_match = [pair_wins(r, names) for r in results]
    point = SCALE * fit_bradley_terry(sum(m.sum(axis=0) for m in per_match), anchor)
    rng = np.random.default_rng(seed)
    boots = np.array([SCALE * fit_bradley_terry(
        sum(m[rng.integers(0, len(m), len(m))].sum(axis=0) for m in per_match), anchor)
        for _ in range(BOOT)])
    low, high = np.percentile(boots, 2.5, axis=0), np.percentile(boots, 97.5, axis=0)
    rows = []
    for i, name in enumerate(names):
        cows, wins, times = [], [], []
        for r in results:
            if name not in r.bots:
                continue
            b = r.bots.index(name)
            cows += [g.totals[b] / g.rounds for g in r.games]
            for g in r.games:
                best = min(g.totals)
                wins.append((g.totals[b] == best) / sum(t == best for t in g.totals))
            times += [t for g in r.games for t in g.times[b]]
        t = np.array(times) if times else np.array([math.nan])
        rating = "0 (anchor)" if i == anchor else \
            f"{point[i]:+.0f} [{low[i]:+.0f}, {high[i]:+.0f}]"
        rows.append([name, f"{np.mean(cows):.2f}", f"{np.mean(wins):.3f}", rating,
                     f"{t.mean():.3f}", f"{np.median(t):.3f}", f"{np.percentile(t, 95):.3f}",
                     len(times)])
    rows.sort(key=lambda row: -point[names.index(row[0])])
    print(f"\n#### {key}: {rules.variant}, {rules.players} players, one round, "
          f"{deals} duplicate deals per match (seed {seed})\n")
    print(tabulate(rows, headers=["bot", "cows/round", "win rate", "rating [95%]",
                                  "s/decision mean", "median", "p95", "decisions"],
                   tablefmt="github", disable_numparse=True))
    print("\nmatches (cows/round and duplicate win rate with 95% intervals):\n")
    match_rows = []
    for r in results:
        for s in r.summaries:
            match_rows.append([" vs ".join(r.bots), s.bot,
                               f"{s.cows_per_round.mean:.2f} [{s.cows_per_round.low:.2f}, "
                               f"{s.cows_per_round.high:.2f}]",
                               f"{s.win_rate.mean:.3f} [{s.win_rate.low:.3f}, "
                               f"{s.win_rate.high:.3f}]"])
    print(tabulate(match_rows, headers=["match", "bot", "cows/round [95%]", "win rate [95%]"],
                   tablefmt="github", disable_numparse=True))
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", default="2p,4p,3p")
    parser.add_argument("--checkpoint", metavar="DIR",
                        help="keep each finished table here; a run started again with the "
                             "same arguments resumes at the first table not finished")
    args = parser.parse_args()
    for key in args.only.split(","):
        run_setting(key, args.deals, args.seed, args.workers, args.checkpoint)


if __name__ == "__main__":
    main()
