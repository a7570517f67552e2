"""nimmt's solver: positions, the searches and their analysis for 6 nimmt!.

The main entry points, importable from here::

    from nimmt.solver import analyse, load_position
    analysis = analyse(load_position("example"), opponents="worst")

``import solver`` loads only the names and errors; the rest (numpy, and numba for the
searches) loads on first use of a name that needs it, so the command line starts fast.
The layers (each imports only those above it): names, errors, rules -> engine (kernels)
-> position -> exact, montecarlo, nash (searches) -> line, tree, game, render ->
analysis (every search result as an ``Analysis``) -> puzzles -> cli.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .base.errors import (
    BudgetExceeded,
    MemoryExceeded,
    NashStopped,
    NimmtError,
    SearchInterrupted,
    SearchStopped,
)
from .base.names import Method, Model, Placement, Variant

if TYPE_CHECKING:
    from .base.rules import Rules
    from .positions.position import Position, format_position, load_position, parse_position
    from .search.analysis import Analysis, CardAnalysis, analyse
    from .search.exact import solve_exact
    from .search.line import principal_line
    from .search.nash import solve_nash

# name -> the module that defines it, imported on first use
_LAZY = {
    "analyse": "search.analysis", "Analysis": "search.analysis",
    "CardAnalysis": "search.analysis", "Position": "positions.position",
    "parse_position": "positions.position", "load_position": "positions.position",
    "format_position": "positions.position", "Rules": "base.rules",
    "solve_exact": "search.exact", "solve_nash": "search.nash", "principal_line": "search.line",
}

__all__ = ["Analysis", "BudgetExceeded", "CardAnalysis", "MemoryExceeded", "Method", "Model",
           "NashStopped", "NimmtError", "Placement", "Position", "Rules", "SearchInterrupted",
           "SearchStopped", "Variant", "analyse", "format_position", "load_position",
           "parse_position", "principal_line", "solve_exact", "solve_nash"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
