"""Strength where hands are hidden: bots against today's tree search, in duplicate arenas.

    python benchmarks/hidden.py [--deals 40] [--seed 1] [--workers 2] [--time 0.25]
                                [--only std4,tac4] [--checkpoint DIR] [--fresh]
    python benchmarks/hidden.py --pool FILE[:B] FILE[:B] ...
    python benchmarks/hidden.py --table "ismcts:time=0.25;ismcts:time=0.25,c=0.35" \
                                [--variant standard] [--players 4] ...

Each setting is one table of bots playing one round per game, every deal replayed in every
seat rotation (duplicate deals), every search bot at the same time per decision
(``--time``). The first bot of a table is the reference (``ismcts``, as it plays by
default: uniformly random playouts). Per bot the script prints cows a round and the win
share (a shared win counts 1/winners) with 95% intervals over deals, seconds per decision,
and the paired difference against the reference: per deal, the bot's mean cows over its
rotations less the reference's (both held every hand), the mean over deals with its 95%
interval by Student's t (``solver.base.intervals``). Negative is better than the reference.

Deals are played in pieces of ``--piece`` and each finished piece is appended to
``DIR/<setting>-s<seed>-t<time>.jsonl``, so an interrupted run (Ctrl-C, a lost machine)
resumes where it stopped when started again with the same arguments (``--fresh`` starts
over). Results depend on the seed and the deal only, not on ``--workers``, but a bot's
time budget makes its play depend on the machine's speed and load: compare bots measured
side by side in one table, as here.

``--pool FILE[:B] ...`` plays nothing: it reads tables played before (their checkpoint
files) and prints distinct bot B's paired difference (default 1) against each file's
reference, per table and over all their deals together.

``--table`` plays a table of your own instead (specs separated by semicolons, the first
the reference), in ``--variant`` with ``--players`` seats (the specs are repeated in turn
to fill them; a repeated spec counts as one bot, its seats averaged); ``SPEC*N`` gives a
bot N seats (``"I*3;S"``: one S among three I), the counts adding up to ``--players``.

Settings:
  std4   standard, 4 players: ismcts, ismcts with mix playouts (a rule bot drawn for each
         player and playout), mcs with careful playouts, careful
  tac4   tactical, 4 players: the same table
  tac2   tactical, 2 players, every hand known, objective win: ismcts against ismcts with
         mix playouts
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from collections import defaultdict

import numpy as np
from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.intervals import mean_interval  # noqa: E402
from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.players.arena import run_arena  # noqa: E402
from nimmt.solver.players.bots import parse_bots  # noqa: E402

# Counts that never bind at these times (the time budget does): the tree search allocates
# its tree for ``iterations`` nodes up front (virtual memory, touched as it grows).
ITERATIONS, PLAYOUTS = 10 ** 6, 10 ** 7


def table(time_limit: float, objective: str = "cows") -> dict[str, str]:
    """The bots of a four-seat table: label -> spec."""
    t = f"time={time_limit:g}"
    win = "" if objective == "cows" else f",objective={objective}"
    return {
        "ismcts": f"ismcts:{t},iterations={ITERATIONS}{win}",
        "ismcts mix": f"ismcts:{t},iterations={ITERATIONS},playout=mix{win}",
        "mcs careful": f"mcs:{t},playouts={PLAYOUTS},playout=careful{win}",
        "careful": "careful",
    }


def settings(time_limit: float) -> dict[str, tuple[Rules, dict[str, str]]]:
    four = table(time_limit)
    two = table(time_limit, "win")
    return {
        "std4": (Rules("standard", 4, one_round=True), four),
        "tac4": (Rules("tactical", 4, one_round=True), four),
        "tac2": (Rules("tactical", 2, one_round=True),
                 {k: two[k] for k in ("ismcts", "ismcts mix")}),
    }


def hash_text(text: str) -> int:
    """A stable number for a text (Python's hash of a str changes between runs)."""
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:6], "big")


def checkpoint_path(folder: str, key: str, seed: int, time_limit: float) -> str:
    return os.path.join(folder, f"{key}-s{seed}-t{time_limit:g}.jsonl")


def load_games(path: str) -> list[dict]:
    """The games of the pieces finished so far; a torn tail (a run stopped while writing)
    is cut off the file, so the next piece is appended after the last whole line."""
    games: list[dict] = []
    if not os.path.exists(path):
        return games
    good = 0
    with open(path, "rb") as f:
        for line in f:
            try:
                games.append(json.loads(line))
            except json.JSONDecodeError:
                break
            if not line.endswith(b"\n"):
                games.pop()
                break
            good += len(line)
    if good < os.path.getsize(path):
        with open(path, "r+b") as f:
            f.truncate(good)
    return games


def whole_deals(games: list[dict], seats: int) -> list[dict]:
    """The games of the deals played in every one of their ``seats`` rotations (a
    rotation played again: its last game)."""
    kept = {(g["deal"], g["rotation"]): g for g in games}
    rotations: dict[int, int] = defaultdict(int)
    for deal, _ in kept:
        rotations[deal] += 1
    return [g for g in kept.values() if rotations[g["deal"]] == seats]


def seated(values, owners: list[int]) -> list[list]:
    """Per distinct bot, the values of its copies: copy i is distinct bot owners[i]."""
    return [[v for s, v in enumerate(values) if owners[s] == b]
            for b in range(max(owners) + 1)]


def seat_plan(entries: list[str], players: int) -> tuple[dict[str, str], list[int]]:
    """A ``--table``'s distinct bots (label -> spec) and the distinct bot of each copy the
    arena seats: ``SPEC*N`` takes N seats (the counts then add up to ``players``); without
    counts the distinct specs take the seats in turn.

    >>> seat_plan(["a", "b*3"], 4)
    ({'a': 'a', 'b': 'b'}, [0, 1, 1, 1])
    >>> seat_plan(["a", "b", "a"], 4)
    ({'a': 'a', 'b': 'b'}, [0, 1, 0, 1])
    """
    counted = [e.rpartition("*") if "*" in e else (e, "", "") for e in entries]
    bots = {spec: spec for spec, _, _ in counted}
    labels = list(bots)
    if not any(star for _, star, _ in counted):
        return bots, [i % len(labels) for i in range(players)]
    owners = [labels.index(spec) for spec, star, n in counted for _ in range(int(n) if star else 1)]
    if len(owners) != players:
        raise SystemExit(f"hidden.py: the seats of --table add up to {len(owners)}, not "
                         f"--players {players}")
    return bots, owners


def pieces(missing: list[int], size: int) -> list[tuple[int, int]]:
    """The deals still to play as (first, count) runs of consecutive deals, at most
    ``size`` each.

    >>> pieces([0, 1, 2, 5, 6, 9], 2)
    [(0, 2), (2, 1), (5, 2), (9, 1)]
    """
    runs: list[tuple[int, int]] = []
    for d in missing:
        if runs and runs[-1][0] + runs[-1][1] == d and runs[-1][1] < size:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((d, 1))
    return runs


def play(key: str, rules: Rules, bots: dict[str, str], deals: int, seed: int, workers: int,
         piece: int, path: str, owners: list[int] | None = None) -> list[dict]:
    """Every deal 0..deals-1 of the setting, from the checkpoint where it has them;
    ``owners``: the distinct bot of each seat (``seat_plan``; default: in turn)."""
    games = whole_deals(load_games(path), rules.players)
    done = {g["deal"] for g in games}
    names = list(bots.values())
    owners = owners or [i % len(names) for i in range(rules.players)]
    specs = parse_bots(",".join(names[o] for o in owners))
    for first, count in pieces([d for d in range(deals) if d not in done], piece):
        t0 = time.perf_counter()
        result = run_arena(rules, specs, count, seed, workers=workers, first=first)
        new = [{"deal": g.deal, "rotation": g.rotation,
                "totals": seated(g.totals, owners), "rounds": g.rounds,
                "times": seated(g.times, owners), "best": min(g.totals),
                "winners": sum(t == min(g.totals) for t in g.totals)}
               for g in result.games]
        with open(path, "a") as f:
            for g in new:
                f.write(json.dumps(g) + "\n")
        games += new
        print(f"  {key}: deals {first}..{first + count - 1} in "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return [g for g in games if g["deal"] < deals]


def deal_means(games: list[dict], bots: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The deals of ``games`` and, per deal and distinct bot (``bots`` of them), the mean
    cows a round and the mean win share over the bot's seats in every rotation."""
    per_deal: dict[int, list[list[float]]] = defaultdict(lambda: [[] for _ in range(bots)])
    wins: dict[int, list[list[float]]] = defaultdict(lambda: [[] for _ in range(bots)])
    for g in games:
        for b in range(bots):
            for total in g["totals"][b]:
                per_deal[g["deal"]][b].append(total / g["rounds"])
                wins[g["deal"]][b].append((total == g["best"]) / g["winners"])
    deals = sorted(per_deal)
    cows = np.array([[np.mean(per_deal[d][b]) for b in range(bots)] for d in deals])
    share = np.array([[np.mean(wins[d][b]) for b in range(bots)] for d in deals])
    return deals, cows, share


def report(key: str, rules: Rules, bots: dict[str, str], games: list[dict], seed: int,
           time_limit: float | None) -> None:
    """Print a table's figures: per bot its cows a round, win share, seconds a decision and
    paired difference against the first bot (and, with three or more, between the others);
    ``time_limit``: the decision time the table's settings gave (None for ``--table``,
    whose specs say their own)."""
    labels = list(bots)
    times: list[list[float]] = [[] for _ in labels]
    for g in games:
        for b in range(len(labels)):
            for seat_times in g["times"][b]:
                times[b] += seat_times
    deals, cows, share = deal_means(games, len(labels))
    rows = []
    for b, label in enumerate(labels):
        c, (c_lo, c_hi) = mean_interval(list(cows[:, b]), low=0.0)
        w, (w_lo, w_hi) = mean_interval(list(share[:, b]), low=0.0, high=1.0)
        diff = "(reference)"
        if b:
            d, (d_lo, d_hi) = mean_interval(list(cows[:, b] - cows[:, 0]))
            diff = f"{d:+.2f} [{d_lo:+.2f}, {d_hi:+.2f}]"
        t = np.array(times[b]) if times[b] else np.array([math.nan])
        rows.append([label, f"{c:.2f} [{c_lo:.2f}, {c_hi:.2f}]",
                     f"{w:.3f} [{w_lo:.3f}, {w_hi:.3f}]", diff,
                     f"{t.mean():.3f}", f"{np.percentile(t, 95):.3f}"])
    timing = "" if time_limit is None else f", {time_limit:g} s a decision"
    print(f"\n#### {key}: {rules.variant}, {rules.players} players, one round, {len(deals)} "
          f"duplicate deals ({len(games)} games), seed {seed}{timing}\n")
    print(tabulate(rows, headers=["bot", "cows/round [95%]", "win share [95%]",
                                  f"cows/round vs {labels[0]} [95%]", "s/decision",
                                  "p95 s"], tablefmt="github", disable_numparse=True))
    print()
    for label, spec in bots.items():
        print(f"- {label}: `{spec}`")
    for a in range(1, len(labels)):  # the other bots, paired with each other too
        for b in range(a + 1, len(labels)):
            d, (d_lo, d_hi) = mean_interval(list(cows[:, b] - cows[:, a]))
            print(f"- cows/round, bot {b + 1} less bot {a + 1} (paired by deal): "
                  f"{d:+.2f} [{d_lo:+.2f}, {d_hi:+.2f}]")


def pool(entries: list[str]) -> None:
    """``--pool``: tables played before (checkpoint files, each ``FILE`` or ``FILE:B``),
    the paired difference of distinct bot B (default 1) against the file's reference
    (bot 0), per table and over every deal of them all (only deals played in every
    rotation)."""
    rows, pooled, shares = [], [], []
    for entry in entries:
        path, _, which = entry.rpartition(":") if entry.count(":") else (entry, "", "1")
        if not which.isdigit() or int(which) < 1:
            raise SystemExit(f"hidden.py: --pool {entry}: B must be a bot's number, 1 or more")
        b = int(which)
        games = load_games(path)
        if not games:
            raise SystemExit(f"hidden.py: {path}: no games; give checkpoint files of tables")
        whole = whole_deals(games, sum(len(t) for t in games[0]["totals"]))
        _, cows, share = deal_means(whole, b + 1)
        diff = list(cows[:, b] - cows[:, 0])
        d, (lo, hi) = mean_interval(diff)
        rows.append([os.path.basename(path), b, len(diff), f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]",
                     f"{np.mean(share[:, b]):.3f}"])
        pooled += diff
        shares += list(share[:, b])
    d, (lo, hi) = mean_interval(pooled)
    rows.append(["pooled", "", len(pooled), f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]",
                 f"{np.mean(shares):.3f}"])
    print(tabulate(rows, headers=["table", "bot", "deals", "vs reference [95%]",
                                  "win share"], tablefmt="github", disable_numparse=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--time", type=float, default=0.25)
    ap.add_argument("--piece", type=int, default=4)
    ap.add_argument("--only", default="std4,tac4")
    ap.add_argument("--checkpoint", default=os.path.join("benchmarks", "results", "hidden"))
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--table", default=None)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--pool", nargs="+", metavar="FILE[:B]", default=None)
    args = ap.parse_args()
    if args.pool:
        pool(args.pool)
        return
    all_settings = settings(args.time)
    keys = args.only.split(",")
    owners: list[int] | None = None
    if args.table:
        table_bots, owners = seat_plan(args.table.split(";"), args.players)
        name = f"table-{abs(hash_text(args.table + args.variant + str(args.players))):x}"
        all_settings[name] = (Rules(args.variant, args.players, one_round=True), table_bots)
        keys = [name]
    unknown = [k for k in keys if k not in all_settings]
    if unknown:
        ap.error(f"unknown setting {unknown[0]!r}; use some of {', '.join(all_settings)}")
    os.makedirs(args.checkpoint, exist_ok=True)
    try:
        for key in keys:
            rules, bots = all_settings[key]
            path = checkpoint_path(args.checkpoint, key, args.seed, args.time)
            if args.fresh and os.path.exists(path):
                os.remove(path)
            games = play(key, rules, bots, args.deals, args.seed, args.workers, args.piece,
                         path, owners)
            report(key, rules, bots, games, args.seed, None if args.table else args.time)
    except KeyboardInterrupt:
        print("interrupted: the finished pieces are kept; run again to go on",
              file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
