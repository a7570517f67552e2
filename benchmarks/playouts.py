"""The playout bots (``mcs``, ``ismcts``) under each objective, before and after a change:
seconds per decision of this code and of the checkout DIR, side by side, on the same
positions and seeds, and how far their values agree.

    python benchmarks/playouts.py --old DIR [--rounds 3] [--decisions 3]
    python benchmarks/playouts.py --old DIR --within 0.25 [--rounds 3] [--decisions 3]

Each side runs in its own process (``checkouts.py``: the checkout imported as ``solver``,
numba's cache a folder of its own), sides alternating, the best of ``--rounds`` kept. The
positions: two-player tactical with known hands, four-player standard with hidden hands,
each under cows, margin and win, and a position in a game (two players: the game's table;
three: the lead); on the four-player position also the learned playouts (``mcs`` and the
sharp tree search). Per row: the bot, the position, old and new seconds per decision, new/old,
and the largest difference between the two sides' card values (mcs: mean playout cost;
ismcts: root visits). Prints a Markdown table; nothing here is asserted by the tests.

``--within T``: what a time budget buys instead, for the tree search as an arena seats it
(``ismcts:time=T,iterations=1000000``, random playouts and the sharp learned ones): the
iterations of one decision of old and new code at the start of a round of 4 players
(tactical and standard) and of 6 and 10 players (standard), the most of ``--rounds``, each
round's figure its last of ``--decisions`` decisions (the tree's memory touched before).
Before each decision the bot is told the turns (``see``, not timed), as a table does.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.positions.position import format_position  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402

from checkouts import CHILD_PRELUDE, checkout_env  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# stdout: JSON list of (seconds per decision, {card: value}) per job.
SIDE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
bots = module("solver", "bots")
parse_position = module("solver", "position").parse_position
jobs, decisions = json.load(sys.stdin)
out = []
for spec, text in jobs:
    position = parse_position(text)
    bot = bots.make_policy(spec, seed=1)
    score = bot.values if hasattr(bot, "values") else bot.visits
    bot.see(())
    score(position)  # the kernels loaded and the bot's buffers made
    spent = 0.0
    for _ in range(decisions):
        bot.see(())  # between decisions, as a table tells a bot the turns (not timed)
        t = time.perf_counter()
        values = score(position)
        spent += time.perf_counter() - t
    out.append((spent / decisions, {str(c): v for c, v in values.items()}))
print(json.dumps(out))
"""


def positions() -> list[tuple[str, str]]:
    """(name, notation) of the positions measured."""
    two = format_position(deal_position(Rules("tactical", 2), 10, seed=1))
    four = format_position(deal_position(Rules("standard", 4), 10, seed=2))
    three = format_position(deal_position(Rules("tactical", 3), 10, seed=3))
    return [("2p tactical k=10", two), ("4p standard k=10", four),
            ("2p game (table)", two + " scores=20,30 threshold=66"),
            ("3p game (lead)", three + " scores=20,30,10 threshold=66")]


def jobs() -> list[tuple[str, str, str]]:
    """(position name, bot spec, notation) of every measurement."""
    found = []
    for name, text in positions():
        objectives = ("cows", "margin", "win") if "game" not in name else ("win",)
        for objective in objectives:
            for bot in ("mcs:playouts=2000", "ismcts:iterations=4000"):
                found.append((name, f"{bot},objective={objective}", text))
        if name.startswith("4p"):  # the learned playouts, as the arenas' sharp bot plays them
            for bot in ("mcs:playouts=2000,playout=learned",
                        "ismcts:iterations=4000,playout=learned,temperature=0.1"):
                found.append((name, bot, text))
    return found


def within_jobs(seconds: float) -> list[tuple[str, str, str]]:
    """(position name, bot spec, notation) of the ``--within`` measurements."""
    found = []
    for variant, n in (("tactical", 4), ("standard", 4), ("standard", 6), ("standard", 10)):
        text = format_position(deal_position(Rules(variant, n), 10, seed=n))
        for playout in ("", ",playout=learned,temperature=0.1"):
            found.append((f"{n}p {variant} k=10",
                          f"ismcts:time={seconds:g},iterations=1000000{playout}", text))
    return found


def within_table(old: str, seconds: float, rounds: int, decisions: int) -> list[list]:
    """Iterations of one decision in ``seconds``, old and new, sides alternating."""
    work = within_jobs(seconds)
    most: dict = {}
    for _ in range(rounds):
        for side, root in (("old", old), ("new", ROOT)):
            for i, (_, values) in enumerate(measure(root, work, decisions)):
                most[side, i] = max(most.get((side, i), 0), sum(values.values()))
    return [[spec, name, f"{most['old', i]:,.0f}", f"{most['new', i]:,.0f}",
             f"{most['new', i] / most['old', i]:.2f}"]
            for i, (name, spec, _) in enumerate(work)]


def measure(root: str, work: list[tuple[str, str, str]], decisions: int) -> list:
    """One side's run: (seconds per decision, values) per job."""
    done = subprocess.run([sys.executable, "-c", CHILD_PRELUDE + SIDE, root],
                          input=json.dumps([[[spec, text] for _, spec, text in work],
                                            decisions]),
                          cwd=root, capture_output=True, text=True, env=checkout_env(root))
    if done.returncode:
        raise SystemExit(f"{root}: the playouts failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def compare_table(old: str, rounds: int, decisions: int) -> list[list]:
    """Old and new on the same jobs, sides alternating, the best time of ``rounds``."""
    work = jobs()
    best: dict = {}
    for _ in range(rounds):
        for side, root in (("old", old), ("new", ROOT)):
            for i, got in enumerate(measure(root, work, decisions)):
                if (side, i) not in best or got[0] < best[side, i][0]:
                    best[side, i] = got
    rows = []
    for i, (name, spec, _) in enumerate(work):
        (t_old, v_old), (t_new, v_new) = best["old", i], best["new", i]
        gap = max(abs(v_old[c] - v_new[c]) for c in v_old)
        rows.append([spec, name, f"{t_old * 1000:.1f}", f"{t_new * 1000:.1f}",
                     f"{t_new / t_old:.3f}", f"{gap:.2g}"])
    t_old = sum(best["old", i][0] for i in range(len(work)))
    t_new = sum(best["new", i][0] for i in range(len(work)))
    rows.append(["all", "", f"{t_old * 1000:.1f}", f"{t_new * 1000:.1f}",
                 f"{t_new / t_old:.3f}", ""])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", metavar="DIR", required=True,
                        help="a checkout to compare with (e.g. a git worktree of main)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--decisions", type=int, default=3)
    parser.add_argument("--within", type=float, metavar="SECONDS",
                        help="iterations of the tree search in this time, not ms per decision")
    args = parser.parse_args()
    if args.within:
        print(f"Tree search iterations in {args.within:g} s a decision, before ({args.old}) "
              f"and after ({ROOT}), the most of {args.rounds} rounds (each the last of "
              f"{args.decisions} decisions):\n")
        print(tabulate(within_table(args.old, args.within, args.rounds, args.decisions),
                       headers=["bot", "position", "old iterations", "new iterations",
                                "new/old"], tablefmt="github"))
        return
    print(f"Playout bots before ({args.old}) and after ({ROOT}), ms per decision, best of "
          f"{args.rounds} rounds of {args.decisions} decisions:\n")
    print(tabulate(compare_table(args.old, args.rounds, args.decisions),
                   headers=["bot", "position", "old ms", "new ms", "new/old", "value gap"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
