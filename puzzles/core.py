"""Puzzle generation and checking: positions with exactly one clearly best card.

A candidate is a random deal played forward by rule-of-thumb bots (so it looks like a real
game) to ``cards_left`` cards; it is solved exactly in the chosen model and kept when one
card is best by at least ``min_margin`` and the position is not trivial (every simple bot
finds the answer) unless ``easy``. Each kept puzzle records the values of every card, the
refutation line of the most tempting wrong card, themes, a difficulty and an explanation.

Candidate i depends only on (seed, i), and the kept puzzles are the first ``count`` by
candidate index, so a set is the same for a seed whatever the number of workers.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from ..solver.base.batch import Backend, run_units
from ..solver.base.errors import NimmtError, param
from ..solver.base.names import Model, Variant
from ..solver.base.rules import HAND_SIZE, ROW_COUNT, Rules, plural
from ..solver.kernels import turns
from ..solver.players.bots import make_policy
from ..solver.positions.position import Position, format_position, parse_position
from ..solver.search.analysis import UNITS, analyse
from ..solver.search.game import deal_position
from ..solver.search.line import principal_line
from .records import Puzzle, RefutationTurn, Settings

SIMPLE_BOTS = ("closest", "lowkeeper", "dumper")
DEAL_BOTS = ("closest", "lowkeeper", "dumper", "random")
DEFAULT_MARGIN: dict[str, float] = {Model.WORST: 1.0, Model.RANDOM: 0.5, Model.NASH: 0.5}
TOLERANCE = 1e-9

__all__ = ["DEAL_BOTS", "DEFAULT_MARGIN", "Settings", "card_values", "check_puzzle",
           "check_settings", "generate", "make_puzzle", "refutation", "themes", "try_candidate"]


def card_values(position: Position, model: str) -> dict[int, float]:
    """Every card's exact value in the model (nash: its EV against player 2's equilibrium)."""
    result = analyse(position, opponents=model, method="exact", max_nodes=50_000_000)
    return {c.card: c.value for c in result.cards}


def bot_choices(position: Position, bots: tuple[str, ...] = SIMPLE_BOTS) -> dict[str, int]:
    """The card each bot plays here (any bot name of ``solver.players.bots``, parameters too):
    the candidates for the most tempting wrong card."""
    return {bot: make_policy(bot).choose(position).card for bot in bots}


def is_low(position: Position, card: int) -> bool:
    """The card has no legal end: its owner must take a row."""
    return turns.options_of(position.rows, card, position.professional) == ROW_COUNT


def refutation(position: Position, card: int, model: str,
               max_turns: int = HAND_SIZE) -> tuple[RefutationTurn, ...]:
    """The line after ``card``: each turn the opponents' reply that is worst for player 1
    (the adversary's choice; for random and nash, the most damaging reply the model
    allows) and player 1's best answers after it, to the end of the round
    (``solver.search.line.principal_line``), as the puzzle stores it."""
    return tuple(RefutationTurn(t.card, t.label, t.cows)
                 for t in principal_line(position, card, model, max_turns))


def themes(position: Position, solution: int, tempting: int, values: dict[int, float],
           line: tuple[RefutationTurn, ...], model: str) -> list[str]:
    tags = []
    if model == Model.WORST and abs(values[solution]) <= TOLERANCE:
        tags.append("guaranteed-zero")
    if is_low(position, solution):
        tags.append("low-card-take")
    elif solution == min(position.hand):
        tags.append("duck-low")
    if solution == max(position.hand) and not is_low(position, solution):
        tags.append("dump-high")
    if line and line[0].cows > 0 and not is_low(position, tempting):
        tags.append("sixth-card-trap")
    if line and is_low(position, tempting):
        tags.append("costly-take")
    if len(line) > 1 and line[0].cows == 0 and any(t.cows for t in line[1:]):
        tags.append("delayed-punishment")
    if position.hidden_players:
        tags.append("hidden-hands")
    if position.professional:
        tags.append("professional")
    return tags


def make_puzzle(position: Position, model: str, min_margin: float, easy: bool,
                ident: str, played: int | None = None) -> Puzzle | None:
    """A puzzle from a position, or None if it has no single clearly best card.
    ``played``: the wrong card a player chose here (a reviewed game's mistake): it is the
    tempting card whose refutation the puzzle stores, in place of the bots' choice."""
    values = card_values(position, model)
    ranked = sorted(values, key=lambda c: (values[c], c))
    if len(ranked) < 2:
        return None
    solution, runner_up = ranked[0], ranked[1]
    margin = values[runner_up] - values[solution]
    if margin < min_margin - TOLERANCE:
        return None
    bots = bot_choices(position)
    failing = [b for b, c in bots.items() if c != solution]
    if not failing and not easy:
        return None  # every simple bot finds it: trivial
    wrong = [bots[b] for b in failing]
    tempting = max(set(wrong), key=lambda c: (wrong.count(c), -values[c])) if wrong else runner_up
    if played is not None and played != solution:
        tempting = played
    line = refutation(position, tempting, model)
    depth = next((i + 1 for i, t in enumerate(line) if t.cows > 0), len(line))
    unit = "EV" if model == Model.NASH else UNITS[model]
    regret = values[tempting] - values[solution]
    players = [b for b, c in bots.items() if c == tempting]
    who = f" (what {' and '.join(players)} play{'s' if len(players) == 1 else ''})" if players \
        else ""
    if played is not None and played == tempting:
        who = " (the card played)"
    explanation = (f"Play {solution} ({unit} {values[solution]:.4g}); {tempting}{who} costs "
                   f"{regret:.4g} more")
    if line:
        hit = line[depth - 1]
        turn = HAND_SIZE - position.cards_left + depth  # numbered as in the round
        explanation += (f": after {line[0].opponents} you take {plural(hit.cows, 'cow')} "
                        f"on turn {turn}" if hit.cows else f": after {line[0].opponents}")
    explanation += "."
    return Puzzle(id=ident, position=format_position(position), model=model,
                  solution=solution, values={c: values[c] for c in position.hand},
                  margin=margin, runner_up=runner_up, tempting=tempting, refutation=line,
                  themes=tuple(themes(position, solution, tempting, values, line, model)),
                  bots=dict(bots), bots_failing=len(failing), refutation_depth=depth,
                  difficulty=len(failing) + depth, explanation=explanation)


def candidate(settings: Settings, index: int) -> Position:
    """Candidate ``index`` of a run: a deal played forward by rule-of-thumb bots."""
    digest = hashlib.sha256(f"{settings.seed}:{index}".encode()).digest()
    seed = int.from_bytes(digest[:8], "little") >> 1
    bots = [DEAL_BOTS[(index + p) % len(DEAL_BOTS)] for p in range(settings.players)]
    rules = Rules(settings.variant, settings.players, settings.placement)
    return deal_position(rules, settings.cards_left, seed, bots)


def try_candidate(args: tuple[Settings, int]) -> tuple[int, Puzzle | None]:
    """Candidate ``index`` of a run, solved: (index, its puzzle or None). ``args``:
    (settings, index); a unit of ``generate``'s batch."""
    settings, index = args
    position = candidate(settings, index)
    ident = f"{settings.variant[0]}{settings.players}{settings.placement[0]}" \
            f"{settings.cards_left}-{settings.seed}-{index}"
    return index, make_puzzle(position, settings.model, settings.min_margin, settings.easy,
                              ident)


def check_settings(settings: Settings) -> None:
    if settings.variant == Variant.STANDARD:
        raise NimmtError("puzzles need a small deck (every card known); use "
                         f"{param('variant', 'tactical')} or logic")
    if settings.model == Model.NASH and settings.players != 2:
        raise NimmtError("nash puzzles need 2 players")
    if not 2 <= settings.cards_left <= 6:
        raise NimmtError(f"{param('cards_left')} must be 2..6 for puzzles (exact solving must be "
                         "quick)")
    if settings.players > 4 or (settings.players > 2 and settings.cards_left > 4):
        raise NimmtError("puzzles are solved exactly: use up to 4 players, and at most 4 cards "
                         "left with more than 2 players")
    if settings.min_margin < 0:
        raise NimmtError(f"{param('min_margin')} must not be negative")


def generate(settings: Settings, count: int, workers: int = 1,
             progress: Callable[[int, int], None] | None = None,
             max_candidates: int | None = None,
             report: dict | None = None, batch: Backend | None = None
             ) -> tuple[list[Puzzle], int]:
    """The first ``count`` puzzles by candidate index; returns (puzzles, candidates tried).
    Candidates are the units of ``solver.base.batch`` (``batch``, else ``workers`` local
    processes); ``progress(kept, finished)`` after each. Ctrl-C stops and returns what was
    kept so far; ``report["interrupted"]`` (when a dict is given) then says so, so that the
    caller can mark the result incomplete."""
    check_settings(settings)
    limit = max_candidates or 200 * count
    kept: dict[int, Puzzle] = {}
    finished: set[int] = set()
    prefix = {"next": 0, "kept": 0}  # candidates 0..next-1 all finished, with kept of them

    def on_result(index: int, result: tuple[int, Puzzle | None]) -> None:
        if result[1] is not None:
            kept[index] = result[1]
        finished.add(index)
        while prefix["next"] in finished:
            prefix["kept"] += prefix["next"] in kept
            prefix["next"] += 1
        if progress:
            progress(len(kept), len(finished))

    run = run_units(try_candidate, ((settings, i) for i in range(limit)),
                    batch or Backend(workers), on_result=on_result,
                    enough=lambda: prefix["kept"] >= count,
                    warm=partial(try_candidate, (replace(settings, cards_left=2), 0)))
    if report is not None:
        report["interrupted"] = run.stopped == "interrupted"
    chosen = [kept[i] for i in sorted(kept)][:count]
    tried = max(finished) + 1 if finished else 0
    if chosen and prefix["kept"] >= count:
        tried = max(int(p.id.rsplit("-", 1)[1]) for p in chosen) + 1
    return chosen, tried


def check_puzzle(puzzle: Puzzle,
                 message: Callable[[NimmtError], str] = str) -> list[str]:
    """Problems with a stored puzzle (empty when its solution still holds). An error that
    stops the re-solve is worded by ``message`` (the command line: with its flags)."""
    problems = []
    try:
        position = parse_position(puzzle.position)
        values = card_values(position, puzzle.model)
    except NimmtError as e:
        return [f"cannot re-solve: {message(e)}"]
    stored = set(puzzle.values)
    if stored != set(position.hand):
        problems.append(f"values list cards {sorted(stored)} but the hand is "
                        f"{list(position.hand)}")
    ranked = sorted(values, key=lambda c: (values[c], c))
    best = ranked[0]
    if best != puzzle.solution:
        problems.append(f"stored solution {puzzle.solution} but the best card is {best}")
    margin = values[ranked[1]] - values[best] if len(ranked) > 1 else 0.0
    if abs(margin - puzzle.margin) > 1e-6:
        problems.append(f"stored margin {puzzle.margin:g} but it is {margin:g}")
    for card, value in puzzle.values.items():
        if abs(values.get(card, float("nan")) - value) > 1e-6:
            problems.append(f"card {card}: stored value {value:g}, re-solved "
                            f"{values.get(card, float('nan')):g}")
    return problems
