"""The principal line after a card: what the searches' values say happens next.

``principal_line(position, card, model)`` plays ``card`` for player 1, then turn by turn:

- the opponents' reply is the one worst for player 1 among those the model allows (worst: the
  adversary's choice; random: the most damaging set of cards; nash: the most damaging card in
  player 2's equilibrium support), the first such set in the order of ``opponent_sets``;
- row choices inside the turn are made by their owners as the searches value them: player 1's
  to keep its value lowest, an adversary's (worst) or player 2's (nash) to make it highest, and
  under the random model the opponents follow the rule-following convention (RULES.md); among
  equal options the lowest row (or the right end) is taken;
- player 1's later cards are its best cards by the searches' values (the lowest card among
  equally good ones);

to the end of the round. A reply is valued as the cows of its turn in the model's unit (nash:
player 1's cows minus player 2's) plus the value of the position it reaches, solved by
``solve_exact`` (random, worst) or ``solve_nash`` (nash) on that position. Everything is
computed on Position values: no tree is built and no notation is parsed back.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from ..base.errors import NimmtError
from ..base.names import Model
from ..base.rules import MODELS
from ..kernels import turns
from ..positions.position import Position, format_position
from .exact import solve_exact
from .nash import solve_nash

EPS = 1e-9
EXACT_BUDGET = 10**9  # nodes: a line is asked for on positions already solved exactly
NO_CHOICE = -1
SIDES = ("right", "left")  # tie_side 0 and 1 (engine.resolve_turn)

__all__ = ["LineTurn", "Play", "RowChoice", "opponent_sets", "principal_line"]


@dataclass(frozen=True)
class Play:
    """An opponent's card in a turn. ``player`` is its seat number (2..); a card from the
    hidden pool (``hidden``) is seated at the hidden seats in order, which does not matter."""

    player: int
    card: int
    hidden: bool = False


@dataclass(frozen=True)
class RowChoice:
    """A row choice made inside a turn: a low card takes ``take_row`` (0..3), or a
    professional tie goes to ``tie_side`` ('right' or 'left')."""

    player: int             # seat number, 1 = player 1
    card: int
    take_row: int | None = None
    tie_side: str | None = None


@dataclass(frozen=True)
class LineTurn:
    """One turn of a principal line."""

    card: int                        # player 1's card
    opponents: tuple[Play, ...]      # known seats first, then the hidden pool's cards
    choices: tuple[RowChoice, ...]   # the row choices made, in the order the cards were placed
    cows: int                        # player 1's cows this turn

    @property
    def label(self) -> str:
        """The opponents' cards as the decision tree labels them: ``p2 17, hidden 3, 9``."""
        named = [f"p{p.player} {p.card}" for p in self.opponents if not p.hidden]
        hidden = [str(p.card) for p in self.opponents if p.hidden]
        return ", ".join(named + ([f"hidden {', '.join(hidden)}"] if hidden else []))


def opponent_sets(position: Position) -> list[tuple[Play, ...]]:
    """Every set of cards the opponents may play this turn: each known hand's card (seats in
    order), then each combination of the hidden pool for the hidden seats."""
    known = [(i, h) for i, h in enumerate(position.hands) if i and h is not None]
    hidden = position.hidden_players
    sets = []
    for picks in itertools.product(*(h for _, h in known)):
        for combo in itertools.combinations(position.pool, len(hidden)):
            sets.append(tuple(Play(i + 1, c) for (i, _), c in zip(known, picks))
                        + tuple(Play(i + 1, c, hidden=True) for i, c in zip(hidden, combo)))
    return sets


@dataclass(frozen=True)
class _Reply:
    """A turn's outcome with its owners' row choices made: its value in the model's unit
    (this turn's cows plus the value of the position reached) and what led there."""

    value: float
    cows: int
    choices: tuple[RowChoice, ...]
    after: Position


@dataclass(frozen=True)
class _Solved:
    ev: dict[int, float]                # player 1's cards: value (nash: EV against p2's mix)
    value: float                        # the position's value
    p2_frequency: dict[int, float]      # nash: player 2's equilibrium mix


class _Line:
    """The searches' values for one model, each position solved once."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.solved: dict[str, _Solved] = {}

    def solve(self, position: Position) -> _Solved:
        key = format_position(position)
        if key not in self.solved:
            if self.model == Model.NASH:
                r = solve_nash(position)
                self.solved[key] = _Solved(dict(zip(r.p1_cards, r.p1_ev)), r.value,
                                           dict(zip(r.p2_cards, r.p2_frequency)))
            else:
                ev = {c.card: c.value for c in solve_exact(position, self.model,
                                                           max_nodes=EXACT_BUDGET).cards}
                self.solved[key] = _Solved(ev, min(ev.values()), {})
        return self.solved[key]

    def best_card(self, position: Position) -> int:
        ev = self.solve(position).ev
        best = min(ev.values())
        return min(c for c in position.hand if ev[c] - best <= EPS)

    def replies(self, position: Position) -> list[tuple[Play, ...]]:
        sets = opponent_sets(position)
        if self.model == Model.NASH:  # player 2's cards in its equilibrium support
            mix = self.solve(position).p2_frequency
            return [s for s in sets if mix[s[0].card] > 0] or sets
        return sets

    def turn(self, position: Position, cards: list[int],
             choices: dict[int, tuple[int, int]], made: tuple[RowChoice, ...]) -> _Reply:
        """Resolve the turn from the first card (lowest first) whose row choice is not yet in
        ``choices`` (player -> (take_row, tie_side)), branching where its owner chooses."""
        for p in sorted(range(len(cards)), key=lambda p: cards[p]):
            if p in choices:
                continue
            made_take, made_tie = zip(*(choices.get(q, (-1, -1)) for q in range(len(cards))))
            rows = turns.rows_met(position.rows, cards, position.professional, made_take,
                                  made_tie, p)
            options = turns.option_choices(rows, cards[p], position.professional)
            if len(options) == 1 or (p != 0 and self.model == Model.RANDOM):
                choices = {**choices, p: (NO_CHOICE, NO_CHOICE)}
                continue
            results = []
            for take, side in options:
                choice = RowChoice(p + 1, cards[p], take if take != NO_CHOICE else None,
                                   SIDES[side] if side != NO_CHOICE else None)
                results.append(self.turn(position, cards, {**choices, p: (take, side)},
                                         made + (choice,)))
            pick = (min if p == 0 else max)(r.value for r in results)
            chosen = next(r for r in results if abs(r.value - pick) <= EPS)
            return replace(chosen, value=pick)
        after, outcome = position.apply_turn(cards, [choices[p][0] for p in range(len(cards))],
                                             [choices[p][1] for p in range(len(cards))])
        delta = outcome.cows[0] - (outcome.cows[1] if self.model == Model.NASH else 0)
        later = 0.0 if after.cards_left == 0 else self.solve(after).value
        return _Reply(delta + later, outcome.cows[0], made, after)


def principal_line(position: Position, card: int, model: str,
                   max_turns: int | None = None) -> tuple[LineTurn, ...]:
    """The line after player 1 plays ``card``, to the end of the round (or ``max_turns``
    turns), as the module docstring defines it.

    >>> from nimmt.solver.positions.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> [(t.card, t.label, t.cows) for t in principal_line(p, 22, "worst")]
    [(22, 'p2 15', 0), (13, 'p2 17', 1), (18, 'p2 24', 0)]
    """
    if model not in MODELS:
        raise NimmtError(f"unknown model {model!r}; use {', '.join(MODELS)}")
    if card not in position.hand:
        raise NimmtError(f"card {card} is not in player 1's hand "
                         f"({', '.join(map(str, position.hand))})")
    search = _Line(model)
    line: list[LineTurn] = []
    mine = card
    while position.cards_left and (max_turns is None or len(line) < max_turns):
        if line:
            mine = search.best_card(position)
        turns = []
        for plays in search.replies(position):
            cards = [mine] + [0] * (position.players - 1)
            for play in plays:
                cards[play.player - 1] = play.card
            turns.append((search.turn(position, cards, {}, ()), plays))
        reply, plays = max(turns, key=lambda t: t[0].value)  # the first most damaging
        line.append(LineTurn(mine, plays, reply.choices, reply.cows))
        position = reply.after
    return tuple(line)
