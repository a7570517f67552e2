"""The win objective with two or more hidden hands: its cost against cows, side by side.

    python benchmarks/win_hidden.py [--seeds 1] [--old DIR]

On dealt tactical positions of 3 and 4 players (two and three hidden hands; the cows
taken so far split unevenly, the hidden seats unequal), the exact search for ``cows`` and
for ``win``, models random and worst, one after the other in this process: nodes (joint
actions resolved), states expanded and seconds, and win's ratios to cows. Kernels are
loaded before timing.

``--old DIR``: another checkout (e.g. ``git archive <commit> | tar -x -C DIR``), imported
in this process: its values for ``cows`` and ``margin`` on these positions, and for ``win``
on positions with one hidden hand (2 players tactical, 3 players standard with player 2's
hand given), compared for equality (bit for bit) with this checkout's, and its nodes.
"""
from __future__ import annotations

import argparse
import os
import sys

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import Rules, card_cows  # noqa: E402
from nimmt.solver.positions.position import format_position, parse_position  # noqa: E402
from nimmt.solver.search.exact import solve_exact  # noqa: E402  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402

from checkouts import checkout_module, load_package  # noqa: E402

SIZES = ((3, (3, 4, 5)), (4, (3, 4)))  # (players, cards left)


def with_taken(position, seed: int):
    """The position with the gone cards' cows split unevenly (player 1 a share, the first
    hidden player the rest, the others none)."""
    total = sum(card_cows(c) for c in position.gone)
    first = (seed * 7) % (total + 1)
    taken = [first, total - first] + [0] * (position.players - 2)
    return parse_position(format_position(position) + " taken=" + ",".join(map(str, taken)))


def hidden_positions(seeds: int) -> list:
    return [with_taken(deal_position(Rules("tactical", n), k, seed=s), s)
            for n, ks in SIZES for k in ks for s in range(seeds)]


def one_hidden_positions(seeds: int) -> list:
    found = [with_taken(deal_position(Rules("tactical", 2), k, seed=s), s)
             for k in (4, 5) for s in range(seeds)]
    for s in range(seeds):
        p = deal_position(Rules("standard", 3), 3, seed=s)
        hand = ",".join(map(str, sorted(p.pool)[:3]))
        found.append(with_taken(parse_position(format_position(p) + f" p2={hand}"), s))
    return found


def load_exact(root: str, name: str = "old_solver"):
    """Another checkout's ``exact`` and ``position`` modules under another name."""
    load_package(root, name)
    return checkout_module(name, "exact"), checkout_module(name, "position")


def label(p) -> str:
    return f"{p.players}p k={p.cards_left} hidden={len(p.hidden_players)} taken={p.taken}"


def cost_table(positions) -> None:
    solve_exact(positions[0], objective="win")  # load the kernel
    rows = []
    for p in positions:
        for model in ("random", "worst"):
            cows = solve_exact(p, model, max_nodes=10**10)
            win = solve_exact(p, model, max_nodes=10**10, objective="win")
            rows.append([label(p), model, cows.resolved, win.resolved,
                         f"{win.resolved / cows.resolved:.2f}", cows.states, win.states,
                         f"{cows.seconds:.3f}", f"{win.seconds:.3f}",
                         f"{win.seconds / max(cows.seconds, 1e-9):.2f}"])
            print(*rows[-1], sep=" | ", flush=True)  # as it goes; the table at the end
    print(tabulate(rows, headers=["position", "model", "nodes cows", "nodes win", "x",
                                  "states cows", "states win", "s cows", "s win", "x"]))


def compare_old(root: str, positions, one_hidden) -> None:
    old_exact, old_position = load_exact(root)
    rows = []
    cases = [(p, o) for p in positions for o in ("cows", "margin")]
    cases += [(p, "win") for p in one_hidden]
    for p, objective in cases:
        q = old_position.parse_position(format_position(p))
        for model in ("random", "worst"):
            new = solve_exact(p, model, max_nodes=10**10, objective=objective)
            old = old_exact.solve_exact(q, model, max_nodes=10**10, objective=objective)
            same = [(a.card, a.value, a.cows_now, a.take_probability)
                    for a in new.cards] == [(b.card, b.value, b.cows_now, b.take_probability)
                                            for b in old.cards]
            rows.append([label(p), objective, model, "yes" if same else "NO",
                         new.resolved, old.resolved])
            print(*rows[-1], sep=" | ", flush=True)
    print(tabulate(rows, headers=["position", "objective", "model", "bit-identical",
                                  "nodes", "nodes old"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--old", help="another checkout to compare values with")
    args = parser.parse_args()
    positions = hidden_positions(args.seeds)
    print("## win against cows, exact search (two or more hidden hands)\n", flush=True)
    cost_table(positions)
    if args.old:
        print("\n## against the old checkout: cows and margin, and win with one hidden hand\n")
        compare_old(args.old, positions, one_hidden_positions(args.seeds))


if __name__ == "__main__":
    main()
