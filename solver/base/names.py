"""The names a caller chooses among: opponent model, variant, placement, search method.

One ``StrEnum`` each, plain Python (no numpy, no numba), so the command line builds its
choices from here at once. A member is its string: ``Model.NASH == "nash"``, it formats and
serialises as ``nash``, so callers may pass either, and JSON and messages read the same.

>>> Model("worst") is Model.WORST, Model.WORST == "worst", f"{Variant.LOGIC}"
(True, True, 'logic')
>>> values(Placement)
('normal', 'professional')
"""
from __future__ import annotations

from enum import StrEnum

__all__ = ["Method", "Model", "Placement", "Variant", "values"]


class Model(StrEnum):
    """The opponent models (DESIGN.md section 3)."""

    RANDOM = "random"   # uniformly random opponents: expected cows
    WORST = "worst"     # an adversary who sees player 1's card: guaranteed cows
    NASH = "nash"       # the two-player equilibrium: the game value


class Variant(StrEnum):
    """The deck (RULES.md): standard 1..104; tactical and logic 1..10n+4."""

    STANDARD = "standard"
    TACTICAL = "tactical"
    LOGIC = "logic"


class Placement(StrEnum):
    """Where a card goes: normal (the row of the closest lower end) or professional."""

    NORMAL = "normal"
    PROFESSIONAL = "professional"


class Method(StrEnum):
    """How ``analyse`` computes: exact search, Monte Carlo, or auto (exact if it fits)."""

    AUTO = "auto"
    EXACT = "exact"
    MONTECARLO = "montecarlo"


def values(names: type[StrEnum]) -> tuple[str, ...]:
    """The plain strings of an enum's members, in their order."""
    return tuple(member.value for member in names)
