"""The policy interface every player implements, and how bots are named.

A bot answers two questions from its own seat's view (``solver/players/bots.py`` has the
bots and the whole story): ``choose(position) -> Decision``, the card with the row
choices it would make for it on the rows as they are, and ``choose_option(moment) ->
int``, the choice to make once the turn's cards are revealed and its card has reached
the rows with more than one option (a ``Moment``). Bots are named with parameters,
``expecti:samples=500,time=0.2`` (``parse_bot``); the table and the game loops need only
this module, not the searches behind the bots.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..base.deck import HAND_SIZE
from ..base.defaults import BELIEF_TRUST
from ..base.errors import NimmtError
from ..kernels import engine
from ..kernels.objective import OBJECTIVES
from ..positions.position import Position
from .training import load_weights

__all__ = ["BELIEFS", "BOT_NAMES", "Bot", "BotSpec", "Decision", "LIMITS", "Moment",
           "PARAMETERS", "PLAYOUTS", "POLICY_BOTS", "PRESETS", "Policy", "RULE_BOTS",
           "SEARCH_BOTS", "Seen", "parse_bot", "parse_bots", "split_bot_list"]

RULE_BOTS = tuple(engine.BOT_CODES)
# The learned policy (kernels/learned.py) as a player of its own, no search.
POLICY_BOTS = ("learned",)
SEARCH_BOTS = ("expecti", "paranoid", "nash", "mcs", "ismcts")
# A name for a setting of another bot (parse_bot gives that bot, these parameters fixed):
# ``sharp``, the tree search with sharp learned playouts, the strongest measured where
# hands are hidden (docs/PERFORMANCE.md, "Strength where hands are hidden").
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "sharp": ("ismcts", {"playout": "learned", "temperature": 0.1})}
BOT_NAMES = RULE_BOTS + POLICY_BOTS + SEARCH_BOTS + tuple(PRESETS)

OBJECTIVE = {"objective": (str, "cows")}
# The playouts' policy of mcs and ismcts: every player (the bot too) plays a rule bot's card
# in the playouts; ``mix``: each player a rule bot drawn at random for each playout;
# ``learned``: the learned policy (kernels/learned.py), a card drawn from its probabilities.
PLAYOUTS = (*RULE_BOTS, "mix", "learned")
# ``temperature`` divides the learned policy's scores before its softmax (below 1 it plays
# its likelier cards more often, above 1 more evenly); only ``playout=learned`` reads it.
# ``others_temperature`` divides them for the other players' cards alone (by default
# ``temperature``'s): the bot's own future play sharp, the others' looser, say.
PLAYOUT = {"playout": (str, "random"), "temperature": (float, 1.0),
           "others_temperature": (float, None)}
# A weights file of the learned policy (players/training.py ``load_weights``) instead of the
# shipped one: for the ``learned`` bot, and for the playouts and beliefs of mcs and ismcts.
WEIGHTS = {"weights": (str, None)}
FILES = ("weights",)
# The hidden hands of mcs's and ismcts's deals: ``none``, every split of the pool alike;
# ``learned``, weighted by how likely each hidden player was to play what it played this
# round, a card by the learned policy with probability ``trust``, else at random
# (kernels/beliefs.py).
BELIEFS = ("none", "learned")
BELIEF = {"belief": (str, "none"), "trust": (float, BELIEF_TRUST)}
# A parameter read only under another's value: given without it, it would do nothing.
# ``expand`` (ismcts): the order in which a node of the tree first plays each player's
# cards: ``random``, uniformly; ``policy``, drawn from the learned policy's probabilities
# (so a node visited a few times sees the likely cards, as the playouts below it do).
EXPANSIONS = ("random", "policy")
# ``others`` (ismcts): how the other players choose in the tree: ``search``, by UCB over
# their own statistics (each seat searches); ``playout``, by their playout policy, as below
# the tree (the tree searches the bot's cards against the policy's likely replies).
OTHERS = ("search", "playout")
# ``loop`` (ismcts): what tells a node's children apart: ``closed``, the joint turn (every
# player's card); ``open``, the bot's own card alone (a node is the bot's cards so far,
# whatever the others played: fewer, more visited nodes, each over many tables).
LOOPS = ("closed", "open")
NEEDS = {"temperature": (("playout", "learned"),), "expand": (("playout", "learned"),),
         "others_temperature": (("playout", "learned"),),
         "trust": (("belief", "learned"),),
         "weights": (("playout", "learned"), ("belief", "learned"))}
CHOICES = {"objective": OBJECTIVES, "playout": PLAYOUTS, "play": ("greedy", "sampled"),
           "belief": BELIEFS, "expand": EXPANSIONS, "others": OTHERS,
           "loop": LOOPS}
_EXPECTI = {"nodes": (int, 200_000), "samples": (int, 300), "time": (float, None), **OBJECTIVE}
# name -> parameter -> (type, default); None: no such budget unless given
PARAMETERS: dict[str, dict[str, tuple[type, Any]]] = {
    **{name: {} for name in RULE_BOTS},
    "learned": {"play": (str, "greedy"), **WEIGHTS},
    "expecti": dict(_EXPECTI),
    "paranoid": dict(_EXPECTI),
    "nash": {"k": (int, 7), **_EXPECTI},
    "mcs": {"playouts": (int, 1000), "time": (float, None), **OBJECTIVE, **PLAYOUT,
            **BELIEF, **WEIGHTS},
    "ismcts": {"iterations": (int, 10000), "time": (float, None), "c": (float, None),
               **OBJECTIVE, **PLAYOUT, "expand": (str, "random"), "others": (str, "search"),
               "loop": (str, "closed"),
               **BELIEF, **WEIGHTS},
}
PARAMETERS.update({name: {k: v for k, v in PARAMETERS[base].items() if k not in fixed}
                   for name, (base, fixed) in PRESETS.items()})
LIMITS = {"nodes": (1, 10**12), "samples": (2, 10**9), "time": (0.001, 86_400.0),
          "k": (1, HAND_SIZE), "playouts": (1, 10**9), "iterations": (1, 10**7),
          "c": (0.0, 100.0), "trust": (0.0, 1.0), "temperature": (0.001, 1000.0),
          "others_temperature": (0.001, 1000.0)}


# ---------------------------------------------------------------- names

@dataclass(frozen=True)
class BotSpec:
    """A bot's name and its parameters (the defaults filled in)."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        given = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                 for k, v in self.params.items()
                 if v is not None and v != PARAMETERS[self.name][k][1]]
        return self.name + (":" + ",".join(given) if given else "")

    @property
    def searches(self) -> bool:
        """A bot played by the Python game loop, not by the engine's kernels: a search, or
        the learned policy (its weights are an argument the engine's loops do not take)."""
        return self.name not in RULE_BOTS


def parse_bot(text: str) -> BotSpec:
    """``name`` or ``name:key=value,key=value`` -> BotSpec; one NimmtError naming the
    valid names or parameters otherwise. A preset's name (PRESETS) gives its bot with the
    preset's parameters: ``sharp:time=0.25`` is ``ismcts:playout=learned,temperature=0.1,
    time=0.25``.

    >>> parse_bot("expecti:samples=500,time=0.2").params["samples"]
    500
    """
    name, colon, rest = str(text).strip().partition(":")
    name = name.strip()
    if name not in PARAMETERS:
        raise NimmtError(f"unknown bot {name[:40]!r}; use one of {', '.join(BOT_NAMES)}")
    allowed = PARAMETERS[name]
    params = {k: default for k, (_, default) in allowed.items()}
    if rest.strip() or colon:
        for item in rest.split(","):
            key, eq, value = item.strip().partition("=")
            if key not in allowed:
                raise _unknown_parameter(name, key)
            if not eq or not value:
                raise NimmtError(f"bot {name}: give a value, as {key}=N")
            params[key] = _parameter_value(name, key, value)
    label = name
    if name in PRESETS:
        name, fixed = PRESETS[name]
        params = {k: fixed.get(k, params.get(k)) for k in PARAMETERS[name]}
    _check_needs(label, params, PARAMETERS[name])
    return BotSpec(name, params)


def _unknown_parameter(name: str, key: str) -> NimmtError:
    """The error for ``key``, which bot ``name`` does not take (or, for a preset, fixes)."""
    if name in PRESETS and key in PRESETS[name][1]:
        base, fixed = PRESETS[name]
        return NimmtError(f"bot {name} is {BotSpec(base, fixed)} with {key} fixed; to "
                          f"change it, write {base}:{key}=...")
    allowed = PARAMETERS[name]
    valid = ", ".join(allowed) if allowed else "none"
    return NimmtError(f"bot {name} has no parameter {key[:40]!r} (its parameters: {valid}); "
                      f"write {name}:key=value,key=value")


def _parameter_value(name: str, key: str, value: str) -> Any:
    """Bot ``name``'s parameter ``key`` given as ``value``, checked: a weights file (read
    now, so that a bad one fails here), one of CHOICES[key], or a number within LIMITS."""
    kind = PARAMETERS[name][key][0]
    if key in FILES:
        load_weights(value)
        return value
    if kind is str:  # a name: the objective, the playouts' policy, the beliefs
        if value not in CHOICES[key]:
            raise NimmtError(f"bot {name}: {key}={value[:40]!r} is not one of "
                             f"{', '.join(CHOICES[key])}")
        return value
    low, high = LIMITS[key]
    try:
        if not value.isascii() or "_" in value:
            raise ValueError
        number = kind(value)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise NimmtError(f"bot {name}: {key}={value[:40]!r} is not {what}") from None
    if not (math.isfinite(number) and low <= number <= high):
        raise NimmtError(f"bot {name}: {key} must be {low:g}..{high:g}, got {value[:40]}")
    return number


def _check_needs(label: str, params: Mapping[str, Any],
                 allowed: Mapping[str, tuple[type, Any]]) -> None:
    """Refuse a parameter that would change nothing (NEEDS): one given away from its
    default while none of the settings it applies with is."""
    for key, needs in NEEDS.items():
        needs = tuple((switch, value) for switch, value in needs if switch in allowed)
        if (key in allowed and needs and params[key] != allowed[key][1]
                and all(params[switch] != value for switch, value in needs)):
            either = " or ".join(f"{switch}={value}" for switch, value in needs)
            raise NimmtError(f"bot {label}: {key}= applies with {either} only; "
                             f"add {needs[0][0]}={needs[0][1]} or drop {key}=")


def split_bot_list(text: str) -> list[str]:
    """A comma-separated list of bots whose parameters are comma-separated too: an item
    with '=' and no ':' belongs to the bot before it.

    >>> split_bot_list("expecti:samples=500,time=0.2,mcs,closest")
    ['expecti:samples=500,time=0.2', 'mcs', 'closest']
    """
    items: list[str] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "=" in part and ":" not in part and items and ":" in items[-1]:
            items[-1] += "," + part
        else:
            items.append(part)
    return items


def parse_bots(text: str, players: int | None = None) -> list[BotSpec]:
    """A bot list: one bot per seat, or one bot for every seat (``players`` given)."""
    specs = [parse_bot(item) for item in split_bot_list(text)]
    if not specs:
        raise NimmtError(f"name at least one bot: {', '.join(BOT_NAMES)}")
    if players is not None:
        if len(specs) == 1:
            specs *= players
        if len(specs) != players:
            raise NimmtError(f"{len(specs)} bots for {players} players; name one bot per seat "
                             "(or a single bot for every seat)")
    return specs


# ---------------------------------------------------------------- the interface

@dataclass(frozen=True)
class Decision:
    """A card and the row choices its owner would make for it on the rows as they are:
    ``take_row`` (0..3) if it has no legal end, ``tie_side`` (0 right, 1 left) on a
    professional tie; -1: the rule-following choice, or no choice to make."""

    card: int
    take_row: int = -1
    tie_side: int = -1


@dataclass(frozen=True)
class Moment:
    """A row choice to make now: the turn's cards are revealed and player 1's card has
    reached the rows with ``len(options)`` options. ``position`` is the seat's view before
    the turn; ``cards[p]`` each player's card (player 1 first); ``take_rows`` /
    ``tie_sides`` the choices made by the cards placed before (-1 elsewhere); ``rows`` the
    rows the card meets; ``options`` each option as (take_row, tie_side)."""

    position: Position
    cards: tuple[int, ...]
    take_rows: tuple[int, ...]
    tie_sides: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    options: tuple[tuple[int, int], ...]

    def after(self, option: int) -> tuple[Position, tuple[int, ...]]:
        """The position after the turn (player 1 choosing ``option``, the later cards'
        owners rule-following) and each player's cows this turn."""
        take, tie = list(self.take_rows), list(self.tie_sides)
        take[0], tie[0] = self.options[option] if option >= 0 else (-1, -1)
        after, outcome = self.position.apply_turn(self.cards, take, tie)
        return after, outcome.cows


@dataclass(frozen=True)
class Seen:
    """One turn of the round so far as a seat saw it: the rows before the turn and every
    player's card, the seat's own first (its player 1), the others in seat order after it."""

    rows: tuple[tuple[int, ...], ...]
    cards: tuple[int, ...]


class Policy(Protocol):
    """What every bot is: see the module's docstring."""

    spec: BotSpec

    def choose(self, position: Position) -> Decision: ...

    def choose_option(self, moment: Moment) -> int: ...


class Bot:
    """The common part: a seed, a fresh stream per decision, rule-following rows."""

    def __init__(self, spec: BotSpec, seed: int = 0) -> None:
        self.spec = spec
        self.params = dict(spec.params)
        self.seed = int(seed) % 2**63
        self.decisions = 0
        self.history: tuple[Seen, ...] = ()

    def see(self, history: Sequence[Seen]) -> None:
        """The turns of this round played so far, told by the table before each decision
        (a bot asked about a position alone has none: only what the position shows)."""
        self.history = tuple(history)

    def next_seed(self) -> int:
        """A seed for the next decision: a function of (seed, decisions made)."""
        self.decisions += 1
        ss = np.random.SeedSequence([self.seed, self.decisions])
        return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))

    def choose(self, position: Position) -> Decision:
        raise NotImplementedError

    def choose_option(self, moment: Moment) -> int:
        return -1
