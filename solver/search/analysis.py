"""One entry point: analyse a position, return a typed result.

The numbers mean what DESIGN.md section 3 says: from player 1's view, cows from
now to the end of the round, against a named opponent model, by a named method.

This module is the layer above the searches: it runs them (``exact``, ``montecarlo``,
``nash``) and adapts each one's result into ``Analysis``; the searches never import it.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..base.defaults import DEFAULT_MAX_NODES, DEFAULT_MEMORY, DEFAULT_SAMPLES
from ..base.errors import BudgetExceeded, NimmtError, SearchInterrupted, SearchStopped, param
from ..base.names import Method, Model, values
from ..kernels.objective import OBJECTIVES
from ..positions.objective import (
    CONTINUATION_BOT,
    CONTINUATION_ROUNDS,
    GAME,
    game_kind,
    goal_array,
    win_word,
)
from ..positions.owners import estimate_nodes
from ..positions.position import Position, format_position
from . import exact, montecarlo, nash
from .auto import AutoBudget, run_auto

__all__ = ["AUTO_SECONDS", "AUTO_SHARE", "Analysis", "BOUND_UNIT", "CardAnalysis",
           "METHODS", "OBJECTIVES", "OPPONENTS", "UNITS", "analyse",
           "analyse_auto", "analyse_nash", "auto_budget", "better_first", "from_exact",
           "from_montecarlo", "from_nash", "objective_unit"]

OPPONENTS = values(Model)
METHODS = values(Method)
# max_nodes is the exact search's budget in nodes. The node estimate is rough (measured
# 0.29-7.7 times the count), so an exact search stops only once it has resolved OVERRUN
# times the budget; --method exact refuses at once when the estimate is over the budget;
# auto tries exact search unless the estimate is over HOPELESS times the budget (an
# estimate has been at most 7.7 times the count, so such a search would pass the stop).
OVERRUN = 4
HOPELESS = 32
# auto's exact attempt, model random (Monte Carlo follows if it does not finish): this
# long without a time_limit, else this share of it (Monte Carlo gets what is left).
AUTO_SECONDS = 10.0
AUTO_SHARE = 0.5
STOPPED_BY = {"time limit": "its time budget", "memory": "the memory budget",
              "nodes": "the node budget"}
UNITS: dict[str, str] = {Model.RANDOM: "expected cows", Model.WORST: "guaranteed cows",
                         Model.NASH: "game value"}
# Monte Carlo with some later turns played by a policy: what its figures are (README)
BOUND_UNIT = "upper bound on expected cows"
# the objectives' units (cows: UNITS), by model; and Monte Carlo's bound with a policy
OBJECTIVE_UNITS: dict[tuple[str, str], str] = {
    ("margin", Model.RANDOM): "expected margin",
    ("margin", Model.WORST): "guaranteed margin",
    ("win", Model.RANDOM): "P(win round)",
    ("win", Model.WORST): "guaranteed P(win round)",
}
OBJECTIVE_BOUNDS = {"cows": BOUND_UNIT, "margin": "upper bound on expected margin",
                    "win": "lower bound on P(win round)"}
OBJECTIVE_TEXT = {
    "cows": "your cows",
    "margin": "your cows minus the mean of the others' (lower is better)",
    "win": "the probability of ending the round with the fewest cows, ties shared (cows "
           "taken so far included; higher is better)",
}


def objective_unit(objective: str, opponents: str) -> str:
    """What the card values are for ``objective`` against ``opponents``."""
    if objective == "cows" or opponents == Model.NASH:
        return UNITS[opponents]
    return OBJECTIVE_UNITS[(objective, opponents)]


def better_first(objective: str) -> int:
    """+1 when a lower value is better (cows, margin), -1 when higher is (win)."""
    return -1 if objective == "win" else 1


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
    estimate: int | None  # estimated exact-search nodes (None for nash: no node estimate)
    nodes: int         # nodes resolved (nash: cells built)
    seconds: float
    complete: bool = True
    later_play: str | None = None  # montecarlo: how player 1's later turns were played
    extra: dict = field(default_factory=dict)
    game_value: float | None = None  # nash: the value of the game (cards hold their EVs)
    estimated_states: int | None = None  # nash: the estimated states of its solve

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
        return self.extra.get("unit", UNITS.get(self.opponents, "expected cows"))

    def to_json(self) -> dict:
        """The JSON of DESIGN.md section 4 (plus fields that never change its meaning)."""
        cards = []
        for c in self.cards:
            item: dict[str, Any] = {"card": c.card, "value": c.value, "regret": c.regret}
            if not math.isnan(c.cows_now):
                item.update(cows_now=c.cows_now, cows_later=c.cows_later,
                            take_probability=c.take_probability)
                if self.extra.get("objective", "cows") != "cows":
                    del item["cows_later"]  # the value is not in cows: no 'later' part
            if c.stderr is not None:
                assert c.ci95 is not None  # Monte Carlo sets stderr and ci95 together
                item.update(stderr=c.stderr, ci95=list(c.ci95), samples=c.samples,
                            regret_stderr=c.regret_stderr)
            if c.frequency is not None:
                item["frequency"] = c.frequency
            cards.append(item)
        data = {"position": format_position(self.position), "opponents": self.opponents,
                "method": self.method, "value": self.value, "cards": cards,
                "reason": self.reason, "unit": self.unit,
                "estimated_nodes": self.estimate}
        if self.estimated_states is not None:
            data["estimated_states"] = self.estimated_states
        data.update(nodes=self.nodes, seconds=self.seconds, complete=self.complete)
        if self.later_play:
            data["later_play"] = self.later_play
        data.update(self.extra)
        return data


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**12 else f"{n:.1e}"


def _ranked(raw: list[dict], objective: str = "cows") -> tuple[CardAnalysis, ...]:
    sign = better_first(objective)
    raw = sorted(raw, key=lambda c: (sign * c["value"], c["card"]))
    best = raw[0]["value"]
    return tuple(CardAnalysis(regret=abs(c["value"] - best), **c) for c in raw)


def _objective_extra(objective: str, opponents: str, position: Position) -> dict:
    """The JSON's objective fields (cows: only the name); win in a game says what it
    values (``game``: DESIGN.md section 3)."""
    if objective == "cows":
        return {"objective": "cows"}
    extra: dict[str, Any] = {
        "objective": objective,
        "unit": _win_unit(objective_unit(objective, opponents), position)}
    if objective == "win" and position.in_game:
        kind = game_kind(position)
        extra["game"] = {
            "scores": list(position.scores), "threshold": position.game_threshold,
            "after_round": ("continuation" if kind == GAME else "lead"),
            "continuation": (f"{CONTINUATION_BOT} self-play, "
                             f"{CONTINUATION_ROUNDS} rounds measured"
                             if kind == GAME else
                             "proxy: share of the fewest totals after this round")}
    return extra


def _win_unit(unit: str, position: Position) -> str:
    """``unit`` with the win objective's word for this position (round, game, lead)."""
    return unit.replace("win round", win_word(position))


def from_exact(position: Position, result: exact.ExactResult, reason: str,
               estimate: int) -> Analysis:
    """An exact search's result (model random or worst) as an Analysis."""
    cards = _ranked([{"card": c.card, "value": c.value, "cows_now": c.cows_now,
                      "take_probability": c.take_probability} for c in result.cards],
                    result.objective)
    return Analysis(position, result.model, "exact", reason, cards, estimate,
                    result.resolved, result.seconds,
                    extra={"states": result.states,
                           **_objective_extra(result.objective, result.model, position)})


def from_montecarlo(position: Position, mc: montecarlo.MonteCarloResult, reason: str,
                    estimate: int, seed: int) -> Analysis:
    """A Monte Carlo estimate (model random) as an Analysis. Where a policy plays some of
    player 1's later turns the figures are an upper bound on the expected cows, and the
    unit says so (README: what the numbers mean)."""
    sign = better_first(mc.objective)
    top = min(mc.cards, key=lambda c: (sign * c.value, c.card))  # _ranked's best
    cards = _ranked([{"card": c.card, "value": c.value, "cows_now": c.cows_now,
                      "take_probability": c.take_probability, "stderr": c.stderr,
                      "ci95": c.interval(objective=mc.objective), "samples": c.samples,
                      "regret_stderr": mc.difference(c.card, top.card)[1] if c is not top
                      else 0.0} for c in mc.cards], mc.objective)
    extra = {"samples": mc.cards[0].samples, "seed": seed, "exact_depth": mc.exact_depth,
             "rollouts": mc.rollouts, "later_exact": mc.later_exact, "quantity": mc.quantity,
             **_objective_extra(mc.objective, Model.RANDOM, position)}
    if not mc.later_exact:
        extra["unit"] = _win_unit(OBJECTIVE_BOUNDS[mc.objective], position)
    if mc.stopped:  # why the figures use fewer samples than asked
        extra["stopped"] = mc.stopped
    return Analysis(position, Model.RANDOM.value, "montecarlo", reason, cards, estimate,
                    mc.nodes, mc.seconds, complete=mc.complete, later_play=mc.later_play,
                    extra=extra)


def from_nash(position: Position, r: nash.NashResult) -> Analysis:
    """An equilibrium (model nash) as an Analysis: each card's EV against player 2's
    equilibrium strategy, its regret and its frequency; no node estimate (the solve's
    size is estimated in states)."""
    order = sorted(range(len(r.p1_cards)), key=lambda i: (r.p1_ev[i], r.p1_cards[i]))
    cards = tuple(CardAnalysis(card=r.p1_cards[i], value=r.p1_ev[i],
                               regret=max(0.0, r.p1_ev[i] - r.value),  # >= 0 up to rounding
                               cows_now=math.nan, take_probability=math.nan,
                               frequency=r.p1_frequency[i])
                  for i in order)
    extra = {"game_value": r.value, "p1_expected_cows": r.p1_cows,
             "p2_expected_cows": r.p2_cows, "states": r.states,
             "matrix_games": r.matrix_games, "oracle_games": r.oracle_games,
             "saddle_points": r.saddle_points,
             "best_reply_saddles": r.best_reply_saddles, "bound_cutoffs": r.bound_cutoffs,
             "exploitability": r.exploitability, "workers": r.workers,
             "table_bytes": r.table_bytes,
             "p2_strategy": [{"card": c, "value": v, "frequency": f}
                             for c, v, f in zip(r.p2_cards, r.p2_ev, r.p2_frequency)],
             "objective": "margin"}  # the zero-sum game: your cows minus player 2's
    return Analysis(position, Model.NASH.value, "exact",
                    f"backward induction over {r.states:,} states", cards, None, r.nodes,
                    r.seconds, extra=extra, game_value=r.value,
                    estimated_states=nash.estimate_states(position))


def analyse_nash(position: Position, memory: int = DEFAULT_MEMORY,
                 workers: int | None = None, time_limit: float | None = None,
                 progress: Callable[[int], None] | None = None) -> Analysis:
    """``analyse`` for opponents='nash': ``nash.solve_nash``, adapted."""
    return from_nash(position, nash.solve_nash(position, memory=memory, workers=workers,
                                               time_limit=time_limit, progress=progress))


def analyse(position: Position, opponents: str = "random", method: str = "auto",
            samples: int = DEFAULT_SAMPLES, seed: int = 0, time_limit: float | None = None,
            max_nodes: int = DEFAULT_MAX_NODES,
            progress: Callable[[int], None] | None = None,
            memory: int = DEFAULT_MEMORY, workers: int | None = None,
            exact_progress: Callable[[int], None] | None = None,
            objective: str = "cows") -> Analysis:
    """Analyse every card of player 1's hand for ``objective`` (OBJECTIVE_TEXT; nash: the
    zero-sum game, whose value is the margin, so cows and margin give it and win is
    refused).

    ``method='auto'`` tries exact search first (see HOPELESS, AUTO_SECONDS) and, for model
    random, falls back to Monte Carlo when it does not finish; ``reason`` says what
    happened (``analyse_auto``). Exact search stops at ``time_limit``, ``memory`` (its memo)
    and OVERRUN x ``max_nodes`` nodes: with ``method='exact'`` (or auto for worst) that raises
    errors.SearchStopped (a NimmtError) carrying the cards it finished; Ctrl-C raises
    errors.SearchInterrupted (a KeyboardInterrupt) with them, or in Monte Carlo with the
    samples taken as its ``partial`` Analysis (``complete`` False, ``extra['stopped']``
    'interrupted'). ``progress(n)``: n more Monte Carlo samples per card;
    ``exact_progress(n)``: n more cards solved exactly.

    >>> from nimmt.solver.positions.position import parse_position
    >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
    ...                    "gone=1,2,4,5,6,8,9,10,11")
    >>> a = analyse(p, opponents="random")
    >>> a.method, a.best.card, round(a.value, 4), [round(c.value, 4) for c in a.cards]
    ('exact', 13, 0.0, [0.0, 0.3333, 0.3333])
    """
    _check_request(position, opponents, method, objective)
    if method == Method.AUTO:
        return analyse_auto(position, opponents, samples=samples, seed=seed,
                            time_limit=time_limit, max_nodes=max_nodes, progress=progress,
                            memory=memory, workers=workers, exact_progress=exact_progress,
                            objective=objective)
    if opponents == Model.NASH:
        _check_nash_objective(objective)
        return analyse_nash(position, memory=memory, workers=workers,
                            time_limit=time_limit, progress=progress)
    estimate = _estimate_within(position, max_nodes)
    if method == Method.EXACT:
        return _analyse_exact(position, opponents, estimate, time_limit, max_nodes, memory,
                              exact_progress, objective)
    if opponents != Model.RANDOM:
        raise NimmtError(f"Monte Carlo estimates the random model only; for {opponents} use "
                         f"{param('method', 'exact')}")
    return _montecarlo_analysis(position, "Monte Carlo as asked", estimate, samples, seed,
                                time_limit, progress, max_nodes, objective)


def analyse_auto(position: Position, opponents: str = "random", samples: int = DEFAULT_SAMPLES,
                 seed: int = 0, time_limit: float | None = None,
                 max_nodes: int = DEFAULT_MAX_NODES,
                 progress: Callable[[int], None] | None = None,
                 memory: int = DEFAULT_MEMORY, workers: int | None = None,
                 exact_progress: Callable[[int], None] | None = None,
                 objective: str = "cows") -> Analysis:
    """The auto policy: ``analyse(..., method='auto')``, the one home of that choice.

    Estimate the exact search's nodes (``owners.estimate_nodes``); unless the estimate is
    over HOPELESS x ``max_nodes``, run exact search within AUTO_SECONDS (or AUTO_SHARE of
    ``time_limit``) and OVERRUN x ``max_nodes`` nodes; when it does not fit or finish, the
    random model runs Monte Carlo with the time left, and the worst model falls back to the
    random model (``extra['fallback_from']``). Model nash solves the equilibrium within
    AUTO_SHARE of ``time_limit`` and falls back the same way. ``reason`` says what
    happened; the options and errors are ``analyse``'s.
    """
    _check_request(position, opponents, Method.AUTO, objective)
    if opponents == Model.NASH:
        _check_nash_objective(objective)
        return _auto_nash(position, samples, seed, time_limit, max_nodes, progress, memory,
                          workers, exact_progress, objective)
    estimate = _estimate_within(position, max_nodes)
    hopeless = not auto_budget().tries_exact(estimate, max_nodes)
    if opponents != Model.RANDOM:
        if hopeless:
            return _fell_back(position, opponents,
                              f"auto: {opponents} needs exact search, which would take about "
                              f"{_count(estimate)} nodes, over {HOPELESS}x the budget of "
                              f"{max_nodes:,}", samples, seed, time_limit, max_nodes, progress,
                              memory, exact_progress, objective)
        return _auto_worst(position, opponents, estimate, samples, seed, time_limit,
                           max_nodes, progress, memory, exact_progress, objective)
    if hopeless:
        return _montecarlo_analysis(
            position, f"auto: exact search would take about {_count(estimate)} nodes, over "
            f"{HOPELESS}x the budget of {max_nodes:,}; Monte Carlo", estimate, samples, seed,
            time_limit, progress, max_nodes, objective)
    return _auto_random(position, opponents, estimate, samples, seed, time_limit, max_nodes,
                        progress, memory, exact_progress, objective)


def _check_request(position: Position, opponents: str, method: str, objective: str) -> None:
    """Refuse an unknown model, method or objective, and a row-choice position."""
    if opponents not in OPPONENTS:
        raise NimmtError(f"unknown opponents {opponents!r}; use one of {', '.join(OPPONENTS)}")
    if position.turn:
        raise NimmtError("this position is a row choice (turn=...): value its rows with "
                         "bots.row_choices (nimmt analyse does), or drop turn= to value cards")
    if method not in METHODS:
        raise NimmtError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if objective not in OBJECTIVES:
        raise NimmtError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")


def _check_nash_objective(objective: str) -> None:
    """Refuse the win objective for nash (its game is zero-sum in the margin)."""
    if objective == "win":
        raise NimmtError("nash solves the zero-sum game (your cows minus player 2's): its "
                         f"objective is margin; use {param('objective', 'margin')}, or "
                         f"{param('opponents', 'random')} (or worst) for win")


def _estimate_within(position: Position, max_nodes: int) -> int:
    """The exact search's node estimate, once ``max_nodes`` is checked (at least 1)."""
    if max_nodes < 1:
        raise NimmtError(f"{param('max_nodes', beside=True)} must be at least 1")
    return estimate_nodes(position)


def auto_budget(seconds: float | None = None) -> AutoBudget:
    """auto's budgets (HOPELESS, OVERRUN, AUTO_SECONDS unless ``seconds``, AUTO_SHARE),
    read when asked."""
    return AutoBudget(HOPELESS, OVERRUN, AUTO_SECONDS if seconds is None else seconds,
                      AUTO_SHARE)


def _auto_nash(position: Position, samples: int, seed: int, time_limit: float | None,
               max_nodes: int, progress: Callable[[int], None] | None, memory: int,
               workers: int | None, exact_progress: Callable[[int], None] | None,
               objective: str) -> Analysis:
    """auto for nash: the equilibrium within AUTO_SHARE of ``time_limit`` (no bound
    without one); when its budget or time stops it, the random model with the time left
    (``_fell_back``)."""
    def solve(seconds: float | None) -> Analysis:
        return analyse_nash(position, memory=memory, workers=workers, time_limit=seconds,
                            progress=progress)

    def fall_back(stopped: SearchStopped, spent: float, left: float | None) -> Analysis:
        why = f"auto: nash did not fit ({_first_clause(stopped)})"
        return _fell_back(position, Model.NASH, why, samples, seed, left, max_nodes,
                          progress, memory, exact_progress, objective)

    budget = replace(auto_budget(), seconds=None)
    return run_auto(solve, fall_back, time_limit, budget, SearchStopped)


def _auto_worst(position: Position, opponents: str, estimate: int, samples: int, seed: int,
                time_limit: float | None, max_nodes: int,
                progress: Callable[[int], None] | None, memory: int,
                exact_progress: Callable[[int], None] | None, objective: str) -> Analysis:
    """auto for a model Monte Carlo cannot estimate (worst): exact search within its auto
    budget, else the random model with the time left (``_fell_back``)."""
    budget = auto_budget()

    def solve(seconds: float | None) -> Analysis:
        result = exact.solve_exact(position, opponents, max_nodes=budget.exact_nodes(max_nodes),
                                   time_limit=seconds, memory=memory,
                                   progress=exact_progress, objective=objective)
        return from_exact(position, result, f"auto: exact search finished within its time "
                          f"budget of {seconds:g} s; estimated {_count(estimate)} nodes",
                          estimate)

    def fall_back(stopped: SearchStopped, spent: float, left: float | None) -> Analysis:
        return _fell_back(position, opponents,
                          f"auto: exact search ({opponents}) did not finish in {spent:.3g} "
                          f"s ({stopped.nodes:,} nodes, estimated {_count(estimate)}; "
                          f"stopped by {STOPPED_BY[stopped.reason]})", samples, seed,
                          left, max_nodes, progress, memory, exact_progress, objective)

    return run_auto(solve, fall_back, time_limit, budget, SearchStopped)


def _auto_random(position: Position, opponents: str, estimate: int, samples: int, seed: int,
                 time_limit: float | None, max_nodes: int,
                 progress: Callable[[int], None] | None, memory: int,
                 exact_progress: Callable[[int], None] | None, objective: str) -> Analysis:
    """auto for the random model once exact search may fit: exact search within its auto
    budget, else Monte Carlo with the time left (at least auto.MIN_SECONDS)."""
    budget = auto_budget()

    def solve(seconds: float | None) -> Analysis:
        result = exact.solve_exact(position, opponents, max_nodes=budget.exact_nodes(max_nodes),
                                   time_limit=seconds, memory=memory, progress=exact_progress,
                                   objective=objective)
        return from_exact(position, result, "auto: exact search finished"
                          + (f" within its time budget of {seconds:g} s" if seconds else "")
                          + f"; estimated {_count(estimate)} nodes", estimate)

    def fall_back(stopped: SearchStopped, spent: float, left: float | None) -> Analysis:
        reason = _exact_stop_reason(stopped, spent, budget.exact_seconds(time_limit), estimate)
        return _montecarlo_analysis(position, reason, estimate, samples, seed, left,
                                    progress, max_nodes, objective)

    return run_auto(solve, fall_back, time_limit, budget, SearchStopped)


def _exact_stop_reason(stopped: SearchStopped, spent: float, seconds: float | None,
                       estimate: int) -> str:
    """auto's reason when its exact search (random) stopped and Monte Carlo follows."""
    by = STOPPED_BY[stopped.reason]
    if stopped.reason == "time limit":
        by += f" of {seconds:g} s"
    return (f"auto: exact search did not finish in {spent:.3g} s ({stopped.nodes:,} "
            f"nodes, estimated {_count(estimate)}; stopped by {by}); Monte Carlo")


def _analyse_exact(position: Position, opponents: str, estimate: int,
                   time_limit: float | None, max_nodes: int, memory: int,
                   exact_progress: Callable[[int], None] | None, objective: str) -> Analysis:
    """``method='exact'``: refused when the estimate is over ``max_nodes``; a stop raises
    (past OVERRUN x the budget: a message saying so)."""
    if estimate > max_nodes:
        raise BudgetExceeded(
            f"exact search would take about {_count(estimate)} nodes, over the budget of "
            f"{max_nodes:,}; raise {param('max_nodes', beside=True)} (about 1,000,000 nodes a "
            f"second) or use {param('method', 'montecarlo')}")
    limit = OVERRUN * max_nodes
    try:
        result = exact.solve_exact(position, opponents, max_nodes=limit, time_limit=time_limit,
                                   memory=memory, progress=exact_progress, objective=objective)
    except SearchStopped as stopped:
        if stopped.reason == "nodes":
            raise _past_nodes(stopped, opponents, limit, max_nodes, estimate) from None
        raise
    return from_exact(position, result,
                      f"exact search as asked (estimated {_count(estimate)} nodes)", estimate)


def _past_nodes(stopped: SearchStopped, opponents: str, limit: int, max_nodes: int,
                estimate: int) -> SearchStopped:
    """The stop of ``method='exact'`` past its node limit, with what to do about it."""
    return type(stopped)(
        f"exact search ({opponents}) passed {limit:,} nodes ({OVERRUN}x the "
        f"budget of {max_nodes:,}; estimated {_count(estimate)}) with "
        f"{len(stopped.finished)} of {stopped.cards_total} cards solved; raise "
        f"{param('max_nodes', beside=True)} or analyse a position with fewer "
        "cards left",
        finished=stopped.finished, cards_total=stopped.cards_total,
        nodes=stopped.nodes, seconds=stopped.seconds)


def _montecarlo_analysis(position: Position, reason: str, estimate: int, samples: int,
                         seed: int, time_limit: float | None,
                         progress: Callable[[int], None] | None, max_nodes: int,
                         objective: str) -> Analysis:
    """Monte Carlo (model random) as an Analysis; Ctrl-C's samples as its ``partial``."""
    if objective != "cows":
        goal_array(position, objective)  # its problem in one line before sampling
    try:
        mc = montecarlo.run_montecarlo(position, samples=samples, seed=seed,
                                       time_limit=time_limit, progress=progress,
                                       node_budget=max_nodes, objective=objective)
    except SearchInterrupted as stop:  # the samples taken, as this function's result
        if stop.partial is not None:
            stop.partial = from_montecarlo(position, stop.partial, reason, estimate, seed)
        raise
    return from_montecarlo(position, mc, reason, estimate, seed)


def _first_clause(error: Exception) -> str:
    """A stop's message without its advice (what to raise or allow)."""
    return re.split(r"[:;] (?:raise|allow) ", str(error))[0]


def _fell_back(position: Position, model: str, why: str, samples: int, seed: int,
               time_limit: float | None, max_nodes: int,
               progress: Callable[[int], None] | None, memory: int,
               exact_progress: Callable[[int], None] | None,
               objective: str = "cows") -> Analysis:
    """auto's fallback for a model whose search does not fit (worst, nash): the random
    model (``analyse`` auto: exact search, else Monte Carlo), its reason prefixed by
    ``why`` and the model it replaces (``extra['fallback_from']``); the figures are the
    random model's (expected cows), and ``opponents`` says so."""
    left = None if time_limit is None else max(time_limit, 0.01)

    def labelled(result: Analysis) -> Analysis:
        reason = f"{why}; fell back to the random model: {result.reason}"
        return replace(result, reason=reason, extra={**result.extra, "fallback_from": str(model)})

    try:
        result = analyse_auto(position, Model.RANDOM.value, samples=samples, seed=seed,
                              time_limit=left, max_nodes=max_nodes, progress=progress,
                              memory=memory, exact_progress=exact_progress,
                              objective=objective)
    except SearchInterrupted as stop:  # the fallback's samples, labelled as its result
        if isinstance(stop.partial, Analysis):
            stop.partial = labelled(stop.partial)
        raise
    return labelled(result)
