"""Learn from your mistakes: a reviewed game's mistakes and blunders as a puzzle set.

Each card decision the review labelled ``mistake`` or ``blunder`` (``players.review``) is
solved again exactly, from the player's view, in the model the review judged against
(random or worst), and kept as a puzzle (``core.make_puzzle``) whose tempting card is the
card played: the puzzle stores the position, the best card, every card's value, the card
played and its refutation line, and where in the game it came from (``extra``: round,
turn, player, the card played). A decision whose exact solve does not fit ``max_nodes`` (an
early turn with hidden hands) is skipped, and the count of skipped decisions is reported:
a puzzle's solution is exact, never an estimate.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..solver.base.errors import NimmtError, SearchStopped
from ..solver.base.names import Model
from ..solver.players.review import Decision, GameReview
from ..solver.positions.position import parse_position
from . import core
from .records import Puzzle, PuzzleSet

__all__ = ["MISTAKE_LABELS", "MistakeSet", "mistake_puzzles", "mistakes_of"]

MISTAKE_LABELS = ("mistake", "blunder")
MAX_NODES = 5_000_000   # an exact re-solve per mistake; larger ones are skipped


@dataclass
class MistakeSet:
    """The puzzles made from a review and what was left out (``skipped``: one line each)."""

    puzzles: list[Puzzle] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def puzzle_set(self, command: str | None = None) -> PuzzleSet:
        """The puzzle set file's record."""
        return PuzzleSet(tuple(self.puzzles), command=command, complete=True)


def mistakes_of(review: GameReview, labels: Sequence[str] = MISTAKE_LABELS) -> list[Decision]:
    """The review's card decisions labelled one of ``labels``, in the review's order."""
    return [d for d in review.decisions if d.kind == "card" and d.label in labels]


def mistake_puzzles(review: GameReview, labels: Sequence[str] = MISTAKE_LABELS,
                    max_nodes: int = MAX_NODES,
                    progress: Callable[[int], None] | None = None) -> MistakeSet:
    """The review's card decisions labelled one of ``labels``, as puzzles (module
    docstring). The review must judge against random or worst (a bot's model is not a
    puzzle's). ``progress(1)`` after each decision tried."""
    if review.opponents not in (Model.RANDOM, Model.WORST):
        raise NimmtError(f"puzzles come from a review against opponents random or worst (the "
                         f"models a puzzle is solved in); this review judged against "
                         f"{review.opponents}")
    out = MistakeSet()
    names = review.names
    for d in mistakes_of(review, labels):
        where = f"round {d.round} turn {d.turn} {names[d.seat]} played {d.played}"
        position = parse_position(d.position)
        try:
            puzzle = _puzzle(position, review.opponents, int(d.played), max_nodes,
                             f"r{d.round}t{d.turn}p{d.seat + 1}")
        except SearchStopped:
            out.skipped.append(f"{where}: too large to solve exactly (over "
                               f"{max_nodes:,} nodes)")
            puzzle = None
        if puzzle is not None:
            out.puzzles.append(replace(puzzle, extra={
                "from_game": {"round": d.round, "turn": d.turn, "player": d.seat + 1,
                              "name": names[d.seat], "played": int(d.played),
                              "label": d.label}}))
        elif not out.skipped or not out.skipped[-1].startswith(where):
            out.skipped.append(f"{where}: the exact solve finds no loss")
        if progress:
            progress(1)
    return out


def _puzzle(position: Any, model: str, played: int, max_nodes: int,
            ident: str) -> Puzzle | None:
    """The puzzle of one mistake, solved exactly within ``max_nodes``; None when the card
    played is best after all (a Monte Carlo review's noise)."""
    values = core.analyse(position, opponents=model, method="exact", max_nodes=max_nodes)
    best = min(c.value for c in values.cards)
    mine = next(c.value for c in values.cards if c.card == played)
    if mine - best <= core.TOLERANCE:
        return None
    return core.make_puzzle(position, model, 0.0, True, ident, played=played)
