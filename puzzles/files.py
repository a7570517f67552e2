"""The puzzle-set file: JSON, versioned, written atomically; shipped sets as package data.

    {"format": "nimmt-puzzles", "version": 1, "command": "nimmt puzzles generate ...",
     "settings": {...}, "stats": {"candidates": N, "kept": M, "seconds": S},
     "puzzles": [{"id", "position", "model", "solution", "values", "margin", "themes",
                  "difficulty", "explanation", "refutation", ...}, ...]}
"""
from __future__ import annotations

import json
import os
from importlib import resources

from solver.fileio import atomic_write_text, note, read_json
from solver.rules import NimmtError

FORMAT, VERSION = "nimmt-puzzles", 1
MODELS = ("worst", "random", "nash")
REQUIRED = ("id", "position", "model", "solution", "values", "margin", "themes", "difficulty",
            "explanation")


def validate(data: object, source: str) -> dict:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise NimmtError(f"{source} is not a nimmt puzzle set (format {FORMAT!r} expected)")
    if data.get("version") != VERSION:
        raise NimmtError(f"{source} has puzzle-set version {data.get('version')!r}; this nimmt "
                         f"reads version {VERSION}")
    puzzles = data.get("puzzles")
    if not isinstance(puzzles, list):
        raise NimmtError(f"{source} has no puzzle list")
    for i, puzzle in enumerate(puzzles):
        missing = [k for k in REQUIRED if not isinstance(puzzle, dict) or k not in puzzle]
        if missing:
            raise NimmtError(f"{source}: puzzle {i + 1} lacks {', '.join(missing)}")
        if puzzle["model"] not in MODELS:
            raise NimmtError(f"{source}: puzzle {i + 1} has unknown model "
                             f"{puzzle['model']!r}; models are {', '.join(MODELS)}")
        values = puzzle["values"]
        if (not isinstance(values, dict) or not values
                or not all(isinstance(c, str) and c.isdigit() for c in values)
                or not all(isinstance(v, (int, float)) for v in values.values())):
            raise NimmtError(f"{source}: puzzle {i + 1} needs values as card -> number")
        if not isinstance(puzzle["solution"], int) or str(puzzle["solution"]) not in values:
            raise NimmtError(f"{source}: puzzle {i + 1}'s solution is not one of its cards")
    return data


def shipped_sets() -> dict[str, str]:
    """Name -> text of each puzzle set shipped under puzzles/sets (works from a wheel)."""
    folder = resources.files("puzzles").joinpath("sets")
    return {entry.name.removesuffix(".json"): entry.read_text(encoding="utf-8")
            for entry in sorted(folder.iterdir(), key=lambda e: e.name)
            if entry.name.endswith(".json")}


SET_FILE_LIMIT = 64 * 2**20  # bytes; a puzzle takes about 1.5 KB


def load_set(name_or_path: str) -> dict:
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


def save_set(data: dict, path: str) -> None:
    """Write atomically (a temporary file in the same folder, then rename)."""
    validate(data, path)
    atomic_write_text(path, json.dumps(data, indent=1) + "\n")


def find_puzzle(data: dict, ident: str) -> dict:
    for puzzle in data["puzzles"]:
        if puzzle["id"] == ident:
            return puzzle
    if ident.isdigit() and 1 <= int(ident) <= len(data["puzzles"]):
        return data["puzzles"][int(ident) - 1]
    raise NimmtError(f"no puzzle {ident!r} in this set; give an id or a number 1.."
                     f"{len(data['puzzles'])}")
