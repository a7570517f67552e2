"""Puzzle sets as typed records: ``PuzzleSet`` of ``Puzzle``s, read and written as JSON.

``from_json`` checks everything it reads (a malformed set is one line naming the puzzle and the
field) and ``to_json`` writes the same JSON back, key for key and in the same order, so a set
file survives a load and a save byte for byte. Keys a record does not know are kept (``extra``)
and written after the known ones.

    {"format": "nimmt-puzzles", "version": 1, "command": "nimmt puzzles generate ...",
     "complete": true, "settings": {...}, "stats": {...}, "puzzles": [...], "note": "..."}
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..solver.base.rules import MODELS, PLACEMENTS, VARIANTS, NimmtError

FORMAT, VERSION = "nimmt-puzzles", 1
REQUIRED = ("id", "position", "model", "solution", "values", "margin", "themes", "difficulty",
            "explanation")
_CARD_KEY = re.compile(r"0|[1-9][0-9]*", re.ASCII)  # a card as a JSON key, written canonically

__all__ = ["FORMAT", "VERSION", "REQUIRED", "Puzzle", "PuzzleSet", "RefutationTurn",
           "SetStats", "Settings"]


# ---------------------------------------------------------------- value checks

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_text_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_bots(value: Any) -> bool:
    return isinstance(value, dict) and all(_is_int(v) for v in value.values())


def _is_refutation(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(t, dict) and set(RefutationTurn.KEYS) <= set(t) and _is_int(t["you"])
        and _is_text(t["opponents"]) and _is_int(t["cows"]) for t in value)


_WHAT: dict[Callable[[Any], bool], str] = {
    _is_int: "a whole number", _is_number: "a number", _is_text: "a string",
    _is_text_list: "a list of strings", _is_bots: "bot name -> card",
    _is_refutation: 'a list of {"you": card, "opponents": text, "cows": number} turns'}


def _checked(data: Mapping[str, Any], key: str, check: Callable[[Any], bool], where: str,
             optional: bool = False) -> Any:
    """``data[key]`` when it passes ``check`` (None when optional and absent); else one line."""
    if key not in data:
        if optional:
            return None
        raise NimmtError(f"{where} lacks {key}")
    if not check(data[key]):
        raise NimmtError(f"{where} needs {key} as {_WHAT[check]}")
    return data[key]


def _known_first(known: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """The known keys (None: absent) in their order, then the unknown ones as read."""
    return {**{k: v for k, v in known.items() if v is not None}, **extra}


# ---------------------------------------------------------------- records

@dataclass(frozen=True)
class Settings:
    """How a set was generated (``nimmt puzzles generate``'s options)."""

    variant: str
    players: int
    placement: str
    cards_left: int
    model: str
    min_margin: float
    easy: bool
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Any, source: str) -> Settings:
        where = f"{source}'s settings"
        if not isinstance(data, dict):
            raise NimmtError(f"{source} needs settings as an object")
        for key, names in (("variant", VARIANTS), ("placement", PLACEMENTS),
                           ("model", MODELS)):
            if _checked(data, key, _is_text, where) not in names:
                raise NimmtError(f"{where} has unknown {key} {data[key]!r}; use "
                                 f"{', '.join(names)}")
        for key in ("players", "cards_left", "seed"):
            _checked(data, key, _is_int, where)
        _checked(data, "min_margin", _is_number, where)
        if not isinstance(data.get("easy"), bool):
            raise NimmtError(f"{where} needs easy as true or false")
        return cls(**{f.name: data[f.name] for f in fields(cls)})


@dataclass(frozen=True)
class SetStats:
    """What generating a set took."""

    candidates: int
    kept: int
    seconds: float
    acceptance: float
    kept_per_minute: float

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Any, source: str) -> SetStats:
        if not isinstance(data, dict):
            raise NimmtError(f"{source} needs stats as an object")
        where = f"{source}'s stats"
        for f in fields(cls):
            _checked(data, f.name, _is_int if f.type == "int" else _is_number, where)
        return cls(**{f.name: data[f.name] for f in fields(cls)})


@dataclass(frozen=True)
class RefutationTurn:
    """A turn of a stored refutation line: your card, the opponents' cards (as the decision
    tree labels them, e.g. ``p2 17`` or ``hidden 3, 9``) and the cows you take."""

    you: int
    opponents: str
    cows: int

    KEYS = ("you", "opponents", "cows")

    def to_json(self) -> dict[str, Any]:
        return {"you": self.you, "opponents": self.opponents, "cows": self.cows}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RefutationTurn:
        return cls(data["you"], data["opponents"], data["cows"])


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: a position with exactly one clearly best card in ``model``.

    ``values`` holds every card of the hand (card -> value in the model's unit) in the order
    stored. The fields after ``explanation`` are written by ``generate``; a hand-made set may
    leave them out (None)."""

    id: str
    position: str                    # canonical notation
    model: str                       # one of solver.base.rules.MODELS
    solution: int
    values: Mapping[int, float]
    margin: float
    themes: tuple[str, ...]
    difficulty: int
    explanation: str
    runner_up: int | None = None
    tempting: int | None = None      # the most tempting wrong card
    refutation: tuple[RefutationTurn, ...] | None = None   # the line after ``tempting``
    bots: Mapping[str, int] | None = None                  # bot -> the card it plays
    bots_failing: int | None = None
    refutation_depth: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def cards(self) -> tuple[int, ...]:
        """The hand, as ``values`` lists it."""
        return tuple(self.values)

    def to_json(self) -> dict[str, Any]:
        return _known_first({
            "id": self.id, "position": self.position, "model": self.model,
            "solution": self.solution, "values": {str(c): v for c, v in self.values.items()},
            "margin": self.margin, "runner_up": self.runner_up, "tempting": self.tempting,
            "refutation": None if self.refutation is None else
            [t.to_json() for t in self.refutation],
            "themes": list(self.themes),
            "bots": None if self.bots is None else dict(self.bots),
            "bots_failing": self.bots_failing, "refutation_depth": self.refutation_depth,
            "difficulty": self.difficulty, "explanation": self.explanation}, self.extra)

    @classmethod
    def from_json(cls, data: Any, source: str, number: int) -> Puzzle:
        """Checked: ``source`` and ``number`` (1-based) name the puzzle in a message."""
        where = f"{source}: puzzle {number}"
        values = _puzzle_values(data, where)
        for key in ("id", "position", "explanation"):
            _checked(data, key, _is_text, where)
        _checked(data, "margin", _is_number, where)
        _checked(data, "difficulty", _is_int, where)
        _checked(data, "themes", _is_text_list, where)
        for key in ("runner_up", "tempting", "bots_failing", "refutation_depth"):
            _checked(data, key, _is_int, where, optional=True)
        bots = _checked(data, "bots", _is_bots, where, optional=True)
        line = _checked(data, "refutation", _is_refutation, where, optional=True)
        known = {f.name for f in fields(cls)} - {"extra"}
        return cls(
            data["id"], data["position"], data["model"], data["solution"],
            {int(c): v for c, v in values.items()}, data["margin"], tuple(data["themes"]),
            data["difficulty"], data["explanation"], data.get("runner_up"), data.get("tempting"),
            None if line is None else tuple(RefutationTurn.from_json(t) for t in line),
            None if bots is None else dict(bots), data.get("bots_failing"),
            data.get("refutation_depth"), {k: v for k, v in data.items() if k not in known})


def _puzzle_values(data: Any, where: str) -> dict:
    """A puzzle's checked values (card -> number) once its required keys, its model and its
    solution (one of the cards) are checked; ``where`` names the puzzle in a message."""
    missing = [k for k in REQUIRED if not isinstance(data, dict) or k not in data]
    if missing:
        raise NimmtError(f"{where} lacks {', '.join(missing)}")
    if data["model"] not in MODELS:
        raise NimmtError(f"{where} has unknown model {data['model']!r}; models are "
                         f"{', '.join(MODELS)}")
    values = data["values"]
    if (not isinstance(values, dict) or not values
            or not all(isinstance(c, str) and _CARD_KEY.fullmatch(c) for c in values)
            or not all(_is_number(v) for v in values.values())):
        raise NimmtError(f"{where} needs values as card -> number")
    if not _is_int(data["solution"]) or str(data["solution"]) not in values:
        raise NimmtError(f"{where}'s solution is not one of its cards")
    return values


@dataclass(frozen=True)
class PuzzleSet:
    """A puzzle set file. ``command`` made it; ``complete`` is False when generation was
    interrupted (``note`` says so); None fields are absent from the file."""

    puzzles: tuple[Puzzle, ...]
    command: str | None = None
    complete: bool | None = None
    settings: Settings | None = None
    stats: SetStats | None = None
    note: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    KEYS = ("format", "version", "command", "complete", "settings", "stats", "puzzles", "note")

    def to_json(self) -> dict[str, Any]:
        return _known_first({
            "format": FORMAT, "version": VERSION, "command": self.command,
            "complete": self.complete,
            "settings": None if self.settings is None else self.settings.to_json(),
            "stats": None if self.stats is None else self.stats.to_json(),
            "puzzles": [p.to_json() for p in self.puzzles], "note": self.note}, self.extra)

    @classmethod
    def from_json(cls, data: Any, source: str) -> PuzzleSet:
        """Checked: a malformed set is a NimmtError of one line naming ``source``, the puzzle
        and the field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise NimmtError(f"{source} is not a nimmt puzzle set (format {FORMAT!r} expected)")
        if data.get("version") != VERSION:
            raise NimmtError(f"{source} has puzzle-set version {data.get('version')!r}; this "
                             f"nimmt reads version {VERSION}")
        puzzles = data.get("puzzles")
        if not isinstance(puzzles, list):
            raise NimmtError(f"{source} has no puzzle list")
        records = tuple(Puzzle.from_json(p, source, n) for n, p in enumerate(puzzles, 1))
        command = _checked(data, "command", _is_text, source, optional=True)
        note = _checked(data, "note", _is_text, source, optional=True)
        if "complete" in data and not isinstance(data["complete"], bool):
            raise NimmtError(f"{source} needs complete as true or false")
        settings = data.get("settings")
        stats = data.get("stats")
        return cls(records, command, data.get("complete"),
                   None if settings is None else Settings.from_json(settings, source),
                   None if stats is None else SetStats.from_json(stats, source), note,
                   {k: v for k, v in data.items() if k not in cls.KEYS})
