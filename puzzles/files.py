"""The puzzle-set file: JSON, versioned, written atomically; shipped sets as package data.
The records it reads and writes (``PuzzleSet``, ``Puzzle``) are in ``puzzles.records``.

    {"format": "nimmt-puzzles", "version": 1, "command": "nimmt puzzles generate ...",
     "settings": {...}, "stats": {"candidates": N, "kept": M, "seconds": S},
     "puzzles": [{"id", "position", "model", "solution", "values", "margin", "themes",
                  "difficulty", "explanation", "refutation", ...}, ...]}
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from ..solver.base.fileio import atomic_write_text, note, read_json
from ..solver.base.rules import NimmtError
from .records import FORMAT, REQUIRED, VERSION, Puzzle, PuzzleSet

__all__ = ["FORMAT", "VERSION", "REQUIRED", "validate", "shipped_sets", "load_set", "save_set",
           "find_puzzle", "parse_difficulty", "select_puzzles", "set_themes"]


def validate(data: object, source: str) -> PuzzleSet:
    """The set in ``data`` (parsed JSON), checked: one line naming the puzzle and field."""
    return PuzzleSet.from_json(data, source)


def shipped_sets() -> dict[str, str]:
    """Name -> text of each puzzle set shipped under puzzles/sets (works from a wheel)."""
    folder = resources.files("nimmt.puzzles").joinpath("sets")
    return {entry.name.removesuffix(".json"): entry.read_text(encoding="utf-8")
            for entry in sorted(folder.iterdir(), key=lambda e: e.name)
            if entry.name.endswith(".json")}


SET_FILE_LIMIT = 64 * 2**20  # bytes; a puzzle takes about 1.5 KB


def load_set(name_or_path: str) -> PuzzleSet:
    """A puzzle set: a shipped set by its name, else a file path.

    A bare shipped name (``two-player-endgames``) is always the shipped set, even when a
    file of that name (or that name plus .json) is in the current folder; a note on stderr
    says so once. Any other argument (``./two-player-endgames``, ``mine.json``) is a file."""
    shipped = shipped_sets()
    if name_or_path in shipped:
        local = [f for f in (name_or_path, name_or_path + ".json") if os.path.lexists(f)]
        if local:
            note(f"{name_or_path} is the shipped puzzle set; write ./{local[0]} to read the "
                 "file in this folder")
        return validate(json.loads(shipped[name_or_path]), name_or_path)
    if os.path.lexists(name_or_path):
        return validate(read_json(name_or_path, "puzzle set", SET_FILE_LIMIT), name_or_path)
    raise NimmtError(f"no puzzle set {name_or_path!r}: give a file or one of the shipped sets "
                     f"({', '.join(shipped)})")


def save_set(puzzle_set: PuzzleSet | Mapping[str, Any], path: str) -> None:
    """Write atomically (a temporary file in the same folder, then rename). The set is
    checked first, as it will be read (parsed JSON is accepted too, and checked)."""
    if not isinstance(puzzle_set, PuzzleSet):
        puzzle_set = validate(puzzle_set, path)
    data = puzzle_set.to_json()
    validate(data, path)
    atomic_write_text(path, json.dumps(data, indent=1) + "\n")


def find_puzzle(puzzle_set: PuzzleSet, ident: str) -> Puzzle:
    for puzzle in puzzle_set.puzzles:
        if puzzle.id == ident:
            return puzzle
    if ident.isdigit() and 1 <= int(ident) <= len(puzzle_set.puzzles):
        return puzzle_set.puzzles[int(ident) - 1]
    raise NimmtError(f"no puzzle {ident!r} in this set; give an id or a number 1.."
                     f"{len(puzzle_set.puzzles)}")


def set_themes(puzzle_set: PuzzleSet) -> list[str]:
    """The themes the set's puzzles carry, sorted."""
    return sorted({t for p in puzzle_set.puzzles for t in p.themes})


def parse_difficulty(text: str) -> tuple[int | None, int | None]:
    """A difficulty range: ``3`` (exactly), ``2..5``, ``4..`` (4 or more), ``..3``.

    >>> parse_difficulty("2..5"), parse_difficulty("4.."), parse_difficulty("3")
    ((2, 5), (4, None), (3, 3))
    """
    low, dots, high = text.strip().partition("..")
    bounds = []
    for part in (low, high if dots else low):
        part = part.strip()
        if part and not part.isdigit():
            raise NimmtError(f"difficulty {text!r} is not a range; give a number (3), a range "
                             "(2..5) or an open one (4.., ..3)")
        bounds.append(int(part) if part else None)
    if bounds == [None, None]:
        raise NimmtError(f"difficulty {text!r} is empty; give a number (3) or a range (2..5)")
    if bounds[0] is not None and bounds[1] is not None and bounds[0] > bounds[1]:
        raise NimmtError(f"difficulty {text!r} runs backwards; give the lower bound first")
    return bounds[0], bounds[1]


def select_puzzles(puzzle_set: PuzzleSet, themes: Sequence[str] = (),
                   difficulty: tuple[int | None, int | None] = (None, None)) -> list[Puzzle]:
    """The set's puzzles, in order, that carry any of ``themes`` (none given: every theme)
    and whose difficulty is inside ``difficulty`` (low, high; None: open). A theme no puzzle
    of the set carries is refused with the set's themes."""
    known = set_themes(puzzle_set)
    unknown = [t for t in themes if t not in known]
    if unknown:
        raise NimmtError(f"no puzzle of this set has theme {unknown[0]!r}; its themes are "
                         f"{', '.join(known) or 'none'}")
    low, high = difficulty
    return [p for p in puzzle_set.puzzles
            if (not themes or set(themes) & set(p.themes))
            and (low is None or p.difficulty >= low) and (high is None or p.difficulty <= high)]
