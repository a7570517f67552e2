"""The auto policy, one home for it: exact when the estimate fits, within its share of the
time; when it does not fit, or stops, Monte Carlo with the time that is left.

``analyse`` (method auto, every model), the bot model (``analyse_bots``, exact enumeration
of a deterministic bot) and the search bots (``expecti``, ``paranoid``) all decide this
way; only their budgets differ (``AutoBudget``): an analysis may overrun its node budget
and gives exact search 10 s or half of a time limit (``analysis.auto_budget``); a bot's
budgets are bounds (``bots.BOT_AUTO``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..base.notice import work_clock

__all__ = ["MIN_SECONDS", "AutoBudget", "run_auto"]

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)
MIN_SECONDS = 0.01  # what Monte Carlo is given when exact search used the whole time


@dataclass(frozen=True)
class AutoBudget:
    """How auto splits its budgets: exact search is tried when its estimate is at most
    ``hopeless`` x the node budget and may run to ``overrun`` x it, for ``seconds``
    without a time limit (None: unbounded) or ``share`` of one. ``exact``'s callers stop
    it with ``SearchStopped`` or an exception of their own (``run_auto``'s ``stops``)."""

    hopeless: float
    overrun: float
    seconds: float | None
    share: float

    def tries_exact(self, estimate: int, max_nodes: int) -> bool:
        """Whether exact search is worth trying at this estimate."""
        return estimate <= self.hopeless * max_nodes

    def exact_nodes(self, max_nodes: int) -> int:
        """The nodes exact search may use."""
        return int(self.overrun * max_nodes)

    def exact_seconds(self, time_limit: float | None) -> float | None:
        """The seconds exact search may use."""
        return self.seconds if time_limit is None else self.share * time_limit


def run_auto(exact: Callable[[float | None], T], fallback: Callable[[E, float, float | None], T],
             time_limit: float | None, budget: AutoBudget, stops: type[E]) -> T:
    """``exact(seconds)`` within ``budget``'s share of ``time_limit``; when it raises one
    of ``stops``, ``fallback(stop, seconds spent, seconds left)`` (left: None without a
    time limit, else at least MIN_SECONDS). Time is work time (``notice.work_clock``)."""
    start = work_clock()
    try:
        return exact(budget.exact_seconds(time_limit))
    except stops as stop:
        spent = work_clock() - start
        left = None if time_limit is None else max(time_limit - spent, MIN_SECONDS)
        return fallback(stop, spent, left)
