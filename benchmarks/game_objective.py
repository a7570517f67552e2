"""What the win objective over a game costs against the round's win:
the exact search and Monte Carlo on the same positions, side by side in one process
(alternating, the least of the repeats), with node counts; and the one-time cost of the
continuation (the measured round, the dynamic programme).

    python benchmarks/game_objective.py [--repeats 3] [--quick]
    python benchmarks/game_objective.py --arena 200 [--bot ismcts:iterations=1000]

--arena DEALS: whole two-player tactical games to 66 in duplicate deals (nimmt arena, in
this process) between the bot with objective=win as it plays now (the game's win) and the
same bot shown each position without the game (scores and threshold dropped: the round's
win), named ``<bot>-round`` in the table.

Round: ``taken=`` only (P(win round)). Game: the same position with ``scores`` and the
threshold: two players look the game's share up in a table (continuation), three players
compare totals (the lead).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import Rules, card_cows  # noqa: E402
from nimmt.solver.positions import objective as goals  # noqa: E402
from nimmt.solver.positions.position import Position, format_position, parse_position  # noqa: E402
from nimmt.solver.search.exact import solve_exact  # noqa: E402  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402
from nimmt.solver.search.montecarlo import run_montecarlo  # noqa: E402


def round_and_game(rules: Rules, k: int, seed: int) -> tuple[Position, Position]:
    """The dealt position with taken= (the gone cows split), and the same in a game
    (scores near the threshold, the default 66)."""
    p = deal_position(rules, k, seed=seed)
    total = sum(card_cows(c) for c in p.gone)
    taken = [total // 2, total - total // 2] + [0] * (rules.players - 2)
    base = format_position(p) + " taken=" + ",".join(map(str, taken))
    scores = [58 - 4 * s for s in range(rules.players)]
    return parse_position(base), parse_position(base + " scores=" + ",".join(map(str, scores)))


def exact_rows(cases, repeats: int) -> list[list]:
    rows = []
    for rules, k, seed, model in cases:
        plain, game = round_and_game(rules, k, seed)
        best: dict[str, float] = {"round": float("inf"), "game": float("inf")}
        nodes = {}
        for _ in range(repeats):
            for name, p in (("round", plain), ("game", game)):
                r = solve_exact(p, model, objective="win", max_nodes=10**10)
                best[name] = min(best[name], r.seconds)
                nodes[name] = r.resolved
        rows.append([f"{rules.variant} {rules.players}p", k, model, goals.win_word(game),
                     f"{nodes['round']:,}", f"{nodes['game']:,}", f"{best['round']:.3f}",
                     f"{best['game']:.3f}", f"{best['game'] / best['round']:.2f}"])
    return rows


def montecarlo_rows(cases, repeats: int) -> list[list]:
    rows = []
    for rules, k, seed, samples in cases:
        plain, game = round_and_game(rules, k, seed)
        best = {"round": float("inf"), "game": float("inf")}
        for _ in range(repeats):
            for name, p in (("round", plain), ("game", game)):
                r = run_montecarlo(p, samples=samples, seed=1, objective="win")
                best[name] = min(best[name], r.seconds)
        rows.append([f"{rules.variant} {rules.players}p", k, samples, goals.win_word(game),
                     f"{best['round']:.3f}", f"{best['game']:.3f}",
                     f"{best['game'] / best['round']:.2f}"])
    return rows


def round_only(position: Position) -> Position:
    """The position without the game: the win objective is then the round's."""
    return dataclasses.replace(position, scores=(0,) * position.players, threshold=None)


def arena_table(deals: int, bot: str, seed: int) -> str:
    """The game's win against the round's win for the same bot, whole games to 66."""
    from nimmt.solver.players import bots
    from nimmt.solver.players.arena import run_arena

    spec = bots.parse_bot(bot + ",objective=win")
    base = bots.BOT_CLASSES[spec.name]

    class RoundOnly(base):  # type: ignore[valid-type,misc]
        def choose(self, position):
            return super().choose(round_only(position))

    name = spec.name + "-round"  # registered in this process only (workers=1)
    bots.PARAMETERS[name] = bots.PARAMETERS[spec.name]
    bots.BOT_CLASSES[name] = RoundOnly
    bots.SEARCH_BOTS = (*bots.SEARCH_BOTS, name)
    other = bots.BotSpec(name, spec.params)
    result = run_arena(Rules("tactical", 2, threshold=66), [spec, other], deals, seed=seed)
    rows = [[s.bot, f"{s.cows_per_round.mean:.2f}", f"{s.win_rate.mean:.3f} [{s.win_rate.low:.3f}, "
             f"{s.win_rate.high:.3f}]"] for s in result.summaries]
    return (f"{result.deals} deals ({len(result.games)} games), seed {seed}, "
            f"{result.seconds:.0f} s\n" + tabulate(rows, headers=["bot", "cows/round",
                                                                  "games won [95%]"],
                                                   tablefmt="github"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--arena", type=int, default=0, metavar="DEALS")
    parser.add_argument("--bot", default="ismcts:iterations=1000")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    if args.arena:
        print(arena_table(args.arena, args.bot, args.seed))
        return
    t0 = time.perf_counter()
    goals.round_cows.cache_clear()
    dist = goals.round_cows("tactical", "normal")
    measured = time.perf_counter() - t0
    t0 = time.perf_counter()
    goals.round_cows.cache_clear()
    goals.round_cows("tactical", "normal")
    again = time.perf_counter() - t0
    t0 = time.perf_counter()
    goals.continuation(dist, 66)
    programme = time.perf_counter() - t0
    print(f"continuation, tactical 2p: {goals.CONTINUATION_ROUNDS:,} rounds of "
          f"{goals.CONTINUATION_BOT} self-play {measured:.2f} s (kernels loading "
          f"included; again {again:.2f} s), dynamic programme to 66: {programme * 1e3:.0f} ms;"
          " once per process and variant")
    print()
    two, three = Rules("tactical", 2), Rules("logic", 3)
    exact_cases = [(two, 5, 1, "random"), (two, 6, 2, "random"), (two, 7, 3, "random"),
                   (two, 6, 4, "worst"), (three, 4, 5, "random"), (three, 5, 6, "random")]
    mc_cases = [(two, 9, 1, 500), (three, 8, 2, 300)]
    if args.quick:
        exact_cases, mc_cases = exact_cases[:2], mc_cases[:1]
    print("Exact search, objective win: round (taken=) against game (scores, threshold 66)")
    print(tabulate(exact_rows(exact_cases, args.repeats),
                   headers=["position", "k", "model", "game unit", "nodes round", "nodes game",
                            "s round", "s game", "ratio"], tablefmt="github"))
    print()
    print("Monte Carlo, objective win (seconds for every card)")
    print(tabulate(montecarlo_rows(mc_cases, args.repeats),
                   headers=["position", "k", "samples", "game unit", "s round", "s game",
                            "ratio"], tablefmt="github"))


if __name__ == "__main__":
    main()
