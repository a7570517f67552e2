"""One entry point: analyse a position, return a typed result.

The numbers mean what DESIGN.md section 3 says: from player 1's view, cows from
now to the end of the round, against a named opponent model, by a named method.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from . import exact, montecarlo
from .position import Position, format_position
from .rules import NimmtError

OPPONENTS = ("random", "worst", "nash")
METHODS = ("auto", "exact", "montecarlo")
DEFAULT_MAX_NODES = 5_000_000
OVERRUN = 4
UNITS = {"random": "expected cows", "worst": "guaranteed cows", "nash": "game value"}
# Monte Carlo with some later turns played by a policy: what its figures are (README)
BOUND_UNIT = "upper bound on expected cows"


@dataclass(frozen=True)
class CardAnalysis:
    """One card of the hand. ``value`` is in the model's unit; regret = value - best."""

    card: int
    value: float
    regret: float
    cows_now: float                  # this turn (random: expected; worst: on the adversary's line)
    take_probability: float          # of taking a row this turn (worst: 1/0 on that line)
    stderr: float | None = None      # montecarlo
    ci95: tuple[float, float] | None = None
    samples: int | None = None
    regret_stderr: float | None = None  # montecarlo: standard error of the regret
    frequency: float | None = None   # nash

    @property
    def cows_later(self) -> float:
        return self.value - self.cows_now


@dataclass(frozen=True)
class Analysis:
    """What ``analyse`` found: every card of the hand, best first."""

    position: Position
    opponents: str
    method: str        # 'exact' or 'montecarlo' (what ran)
    reason: str        # why that method (auto's choice, or as asked)
    cards: tuple[CardAnalysis, ...]
    estimate: int      # estimated exact-search nodes
    nodes: int         # nodes resolved
    seconds: float
    complete: bool = True
    later_play: str | None = None  # montecarlo: how player 1's later turns were played
    extra: dict = field(default_factory=dict)
    game_value: float | None = None  # nash: the value of the game (cards hold their EVs)

    @property
    def value(self) -> float:
        return self.game_value if self.game_value is not None else self.cards[0].value

    @property
    def best(self) -> CardAnalysis:
        return self.cards[0]

    @property
    def unit(self) -> str:
        """What the card values are: the model's unit, or (Monte Carlo with policy-played
        later turns) an upper bound on it."""
        return self.extra.get("unit", UNITS[self.opponents])

    def to_json(self) -> dict:
        """The JSON of DESIGN.md section 4 (plus fields that never change its meaning)."""
        cards = []
        for c in self.cards:
            item = {"card": c.card, "value": c.value, "regret": c.regret}
            if not math.isnan(c.cows_now):
                item.update(cows_now=c.cows_now, cows_later=c.cows_later,
                            take_probability=c.take_probability)
            if c.stderr is not None:
                item.update(stderr=c.stderr, ci95=list(c.ci95), samples=c.samples,
                            regret_stderr=c.regret_stderr)
            if c.frequency is not None:
                item["frequency"] = c.frequency
            cards.append(item)
        data = {"position": format_position(self.position), "opponents": self.opponents,
                "method": self.method, "value": self.value, "cards": cards,
                "reason": self.reason, "unit": UNITS[self.opponents],
                "estimated_nodes": self.estimate, "nodes": self.nodes,
                "seconds": self.seconds, "complete": self.complete}
        if self.later_play:
            data["later_play"] = self.later_play
        data.update(self.extra)
        return data


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**12 else f"{n:.1e}"


def _ranked(raw: list[dict]) -> tuple[CardAnalysis, ...]:
    raw = sorted(raw, key=lambda c: (c["value"], c["card"]))
    best = raw[0]["value"]
    return tuple(CardAnalysis(regret=c["value"] - best, **c) for c in raw)


def analyse(position: Position, opponents: str = "random", method: str = "auto",
            samples: int = 2000, seed: int = 0, time_limit: float | None = None,
            max_nodes: int = DEFAULT_MAX_NODES,
            progress: Callable[[int], None] | None = None,
            memory: int = 8 * 2**30, workers: int | None = None) -> Analysis:
    """Analyse every card of player 1's hand.

    >>> from solver.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> a = analyse(p, opponents="random")
    >>> a.method, a.best.card, round(a.value, 4), [round(c.value, 4) for c in a.cards]
    ('exact', 13, 0.0, [0.0, 0.3333, 0.3333])
    """
    if opponents not in OPPONENTS:
        raise NimmtError(f"unknown opponents {opponents!r}; use one of {', '.join(OPPONENTS)}")
    if method not in METHODS:
        raise NimmtError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if opponents == "nash":
        from . import nash
        return nash.analyse_nash(position, memory=memory, workers=workers,
                                 time_limit=time_limit, progress=progress)
    if max_nodes < 1:
        raise NimmtError("--max-nodes must be at least 1")
    estimate = exact.estimate_nodes(position)
    fits = estimate <= max_nodes
    if method == "exact" and not fits:
        raise exact.BudgetExceeded(
            f"exact search would take about {_count(estimate)} nodes, over the budget of "
            f"{max_nodes:,}; raise --max-nodes (about 1,000,000 nodes a second) or use "
            "--method montecarlo")
    if method == "montecarlo" and opponents != "random":
        raise NimmtError(f"Monte Carlo estimates the random model only; for {opponents} use "
                         "--method exact")
    if method == "auto" and not fits and opponents != "random":
        raise exact.BudgetExceeded(
            f"{opponents} needs exact search, which would take about {_count(estimate)} nodes, over "
            f"the budget of {max_nodes:,}; raise --max-nodes or analyse a position with fewer "
            "cards left")
    if method == "exact" or (method == "auto" and fits):
        reason = (f"exact search as asked (estimated {_count(estimate)} nodes)"
                  if method == "exact" else
                  f"auto: estimated {_count(estimate)} nodes, within the budget of {max_nodes:,}")
        # The estimate can be low by a few times; the search may overrun the budget up to
        # OVERRUN times before it gives up (auto then falls back to Monte Carlo if it can).
        limit = OVERRUN * max(max_nodes, estimate)
        try:
            result = exact.solve_exact(position, opponents, max_nodes=limit)
        except exact.BudgetExceeded:
            if method == "exact" or opponents != "random":
                raise exact.BudgetExceeded(
                    f"exact search passed {limit:,} nodes ({OVERRUN}x the budget; estimated "
                    f"{_count(estimate)}); raise --max-nodes or analyse a position with fewer "
                    "cards left") from None
            reason = (f"auto: estimated {_count(estimate)} nodes, but exact search passed "
                      f"{limit:,}; switched to Monte Carlo")
        else:
            cards = _ranked([{"card": c.card, "value": c.value, "cows_now": c.cows_now,
                              "take_probability": c.take_probability} for c in result.cards])
            return Analysis(position, opponents, "exact", reason, cards, estimate,
                            result.resolved, result.seconds, extra={"states": result.states})
    else:
        reason = ("Monte Carlo as asked" if method == "montecarlo" else
                  f"auto: estimated {_count(estimate)} nodes, over the budget of {max_nodes:,}")
    mc = montecarlo.run_montecarlo(position, samples=samples, seed=seed, time_limit=time_limit,
                                   progress=progress, node_budget=max_nodes)
    top = min(mc.cards, key=lambda c: (c.value, c.card))  # _ranked's best
    cards = _ranked([{"card": c.card, "value": c.value, "cows_now": c.cows_now,
                      "take_probability": c.take_probability, "stderr": c.stderr,
                      "ci95": c.interval(), "samples": c.samples,
                      "regret_stderr": mc.difference(c.card, top.card)[1] if c is not top
                      else 0.0} for c in mc.cards])
    extra = {"samples": mc.cards[0].samples, "seed": seed, "exact_depth": mc.exact_depth,
             "rollouts": mc.rollouts, "later_exact": mc.later_exact, "quantity": mc.quantity}
    if not mc.later_exact:
        extra["unit"] = BOUND_UNIT
    return Analysis(position, opponents, "montecarlo", reason, cards, estimate, mc.nodes,
                    mc.seconds, complete=mc.complete, later_play=mc.later_play, extra=extra)
