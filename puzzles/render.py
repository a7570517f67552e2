"""Puzzles as text (show, quiz), Markdown and HTML (export, with an SVG of the rows)."""
from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape

from tabulate import tabulate

from ..solver.base.names import Model
from ..solver.base.rules import HAND_SIZE, plural
from ..solver.faces.report import render_position, rows_svg
from ..solver.positions.position import parse_position
from ..solver.search.analysis import UNITS
from .records import Puzzle, PuzzleSet, RefutationTurn

__all__ = ["board", "export_html", "export_markdown", "line_text", "solution", "unit",
           "values_headers", "values_rows"]

QUESTION: dict[str, str] = {
    Model.WORST: "Which card keeps your guaranteed cows lowest (the others play to hurt you)?",
    Model.RANDOM: "Which card costs you the fewest expected cows (the others play at random)?",
    Model.NASH: "Which card should you play against a perfect opponent (the equilibrium)?"}


def board(puzzle: Puzzle) -> str:
    position = parse_position(puzzle.position)
    return "\n".join([f"puzzle {puzzle.id} — difficulty {puzzle.difficulty}",
                      render_position(position), "", QUESTION[puzzle.model]])


def values_rows(puzzle: Puzzle) -> list[list]:
    best = min(puzzle.values.values())
    return [[c, f"{v:.3f}", f"{v - best:.3f}", "solution" if c == puzzle.solution else ""]
            for c, v in sorted(puzzle.values.items(), key=lambda cv: (cv[1], cv[0]))]


VALUES_HEADERS = ["card", None, "regret", "note"]  # None: the model's unit


def unit(puzzle: Puzzle) -> str:
    """What a value means in the puzzle's model (column header)."""
    return "EV" if puzzle.model == Model.NASH else UNITS[puzzle.model]


def values_headers(puzzle: Puzzle) -> list[str]:
    return [unit(puzzle) if h is None else h for h in VALUES_HEADERS]


def line_text(puzzle: Puzzle, line: Sequence[RefutationTurn] | None = None) -> str:
    """A refutation line (default: the stored one), its turns numbered as in the round:
    the puzzle's board is turn 11 - k of 10."""
    first = HAND_SIZE + 1 - len(puzzle.values)
    turns = [f"turn {i}: you {t.you}, {t.opponents}"
             + (f" — you take {plural(t.cows, 'cow')}" if t.cows else "")
             for i, t in enumerate((puzzle.refutation or ()) if line is None else line, first)]
    return "; ".join(turns)


def solution(puzzle: Puzzle, refuted: int | None = None,
             line: Sequence[RefutationTurn] | None = None) -> str:
    """The solution, every card's value, themes and a refutation line: of ``refuted`` (the
    card the solver chose) with ``line`` when given, else of the most tempting wrong card."""
    parts = [f"solution: {puzzle.solution} (margin {puzzle.margin:.3g})",
             puzzle.explanation,
             tabulate(values_rows(puzzle), headers=values_headers(puzzle), tablefmt="simple"),
             f"themes: {', '.join(puzzle.themes) or 'none'}"]
    if refuted is not None and line:
        parts.append(f"refutation of your {refuted}: {line_text(puzzle, line)}")
    elif puzzle.refutation:
        parts.append(f"refutation of {puzzle.tempting}: {line_text(puzzle)}")
    return "\n".join(parts)


def _command(puzzle_set: PuzzleSet) -> str:
    return "nimmt puzzles generate" if puzzle_set.command is None else puzzle_set.command


def _svg_data_uri(puzzle: Puzzle) -> str:
    svg = rows_svg(parse_position(puzzle.position))
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def export_markdown(puzzle_set: PuzzleSet) -> str:
    out = [f"# nimmt puzzles ({len(puzzle_set.puzzles)})", "",
           f"Made by `{_command(puzzle_set)}`.", ""]
    for n, puzzle in enumerate(puzzle_set.puzzles, 1):
        position = parse_position(puzzle.position)
        out += [f"## {n}. Puzzle {puzzle.id} (difficulty {puzzle.difficulty})", "",
                f"![rows]({_svg_data_uri(puzzle)})", "",
                "```", render_position(position), "```", "",
                QUESTION[puzzle.model], "",
                "<details><summary>Solution</summary>", "",
                f"**{puzzle.solution}** — {puzzle.explanation}", "",
                tabulate(values_rows(puzzle), headers=values_headers(puzzle),
                         tablefmt="github"), "",
                f"Themes: {', '.join(puzzle.themes) or 'none'}.", "",
                "</details>", ""]
    return "\n".join(out)


def export_html(puzzle_set: PuzzleSet) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>nimmt puzzles ({len(puzzle_set.puzzles)})</title>",
           "<style>body{font-family:sans-serif;max-width:50em;margin:auto}"
           "section{break-inside:avoid;margin-bottom:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 8px}pre{background:#f6f6f6}</style>",
           "</head>", "<body>", f"<h1>nimmt puzzles ({len(puzzle_set.puzzles)})</h1>",
           f"<p>Made by <code>{escape(_command(puzzle_set))}</code>.</p>"]
    for n, puzzle in enumerate(puzzle_set.puzzles, 1):
        position = parse_position(puzzle.position)
        rows = "".join(f"<tr><td>{c}</td><td>{v}</td><td>{r}</td><td>{s}</td></tr>"
                       for c, v, r, s in values_rows(puzzle))
        out += ["<section>",
                f"<h2>{n}. Puzzle {escape(puzzle.id)} (difficulty {puzzle.difficulty})</h2>",
                rows_svg(position),
                f"<pre>{escape(render_position(position))}</pre>",
                f"<p>{escape(QUESTION[puzzle.model])}</p>",
                "<details><summary>Solution</summary>",
                f"<p><strong>{puzzle.solution}</strong> — {escape(puzzle.explanation)}</p>",
                f"<table><tr><th>card</th><th>{escape(unit(puzzle))}</th><th>regret</th>"
                f"<th>note</th></tr>{rows}</table>",
                f"<p>Themes: {escape(', '.join(puzzle.themes) or 'none')}.</p>",
                "</details>", "</section>"]
    out += ["</body>", "</html>"]
    return "\n".join(out)
