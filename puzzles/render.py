"""Puzzles as text (show, quiz), Markdown and HTML (export, with an SVG of the rows)."""
from __future__ import annotations

import base64
from html import escape

from tabulate import tabulate

from solver.analysis import UNITS
from solver.position import parse_position
from solver.render import render_position, rows_svg
from solver.rules import HAND_SIZE, plural

QUESTION = {"worst": "Which card keeps your guaranteed cows lowest (the others play to hurt you)?",
            "random": "Which card costs you the fewest expected cows (the others play at random)?",
            "nash": "Which card should you play against a perfect opponent (the equilibrium)?"}


def board(puzzle: dict) -> str:
    position = parse_position(puzzle["position"])
    return "\n".join([f"puzzle {puzzle['id']} — difficulty {puzzle['difficulty']}",
                      render_position(position), "", QUESTION[puzzle["model"]]])


def values_rows(puzzle: dict) -> list[list]:
    values = {int(c): v for c, v in puzzle["values"].items()}
    best = min(values.values())
    return [[c, f"{v:.3f}", f"{v - best:.3f}", "solution" if c == puzzle["solution"] else ""]
            for c, v in sorted(values.items(), key=lambda cv: (cv[1], cv[0]))]


VALUES_HEADERS = ["card", None, "regret", "note"]  # None: the model's unit


def values_headers(puzzle: dict) -> list[str]:
    unit = "EV" if puzzle["model"] == "nash" else UNITS[puzzle["model"]]
    return [unit if h is None else h for h in VALUES_HEADERS]


def line_text(puzzle: dict, line: list[dict] | None = None) -> str:
    """A refutation line (default: the stored one), its turns numbered as in the round:
    the puzzle's board is turn 11 - k of 10."""
    first = HAND_SIZE + 1 - len(puzzle["values"])
    turns = [f"turn {i}: you {t['you']}, {t['opponents']}"
             + (f" — you take {plural(t['cows'], 'cow')}" if t["cows"] else "")
             for i, t in enumerate(puzzle.get("refutation", []) if line is None else line, first)]
    return "; ".join(turns)


def solution(puzzle: dict, refuted: int | None = None, line: list[dict] | None = None) -> str:
    """The solution, every card's value, themes and a refutation line: of ``refuted`` (the
    card the solver chose) with ``line`` when given, else of the most tempting wrong card."""
    parts = [f"solution: {puzzle['solution']} (margin {puzzle['margin']:.3g})",
             puzzle["explanation"],
             tabulate(values_rows(puzzle), headers=values_headers(puzzle), tablefmt="simple"),
             f"themes: {', '.join(puzzle['themes']) or 'none'}"]
    if refuted is not None and line:
        parts.append(f"refutation of your {refuted}: {line_text(puzzle, line)}")
    elif puzzle.get("refutation"):
        parts.append(f"refutation of {puzzle.get('tempting')}: {line_text(puzzle)}")
    return "\n".join(parts)


def _svg_data_uri(puzzle: dict) -> str:
    svg = rows_svg(parse_position(puzzle["position"]))
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def export_markdown(data: dict) -> str:
    out = [f"# nimmt puzzles ({len(data['puzzles'])})", "",
           f"Made by `{data.get('command', 'nimmt puzzles generate')}`.", ""]
    for n, puzzle in enumerate(data["puzzles"], 1):
        position = parse_position(puzzle["position"])
        out += [f"## {n}. Puzzle {puzzle['id']} (difficulty {puzzle['difficulty']})", "",
                f"![rows]({_svg_data_uri(puzzle)})", "",
                "```", render_position(position), "```", "",
                QUESTION[puzzle["model"]], "",
                "<details><summary>Solution</summary>", "",
                f"**{puzzle['solution']}** — {puzzle['explanation']}", "",
                tabulate(values_rows(puzzle), headers=values_headers(puzzle),
                         tablefmt="github"), "",
                f"Themes: {', '.join(puzzle['themes']) or 'none'}.", "",
                "</details>", ""]
    return "\n".join(out)


def export_html(data: dict) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>nimmt puzzles ({len(data['puzzles'])})</title>",
           "<style>body{font-family:sans-serif;max-width:50em;margin:auto}"
           "section{break-inside:avoid;margin-bottom:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 8px}pre{background:#f6f6f6}</style>",
           "</head>", "<body>", f"<h1>nimmt puzzles ({len(data['puzzles'])})</h1>",
           f"<p>Made by <code>{escape(data.get('command', 'nimmt puzzles generate'))}</code>.</p>"]
    for n, puzzle in enumerate(data["puzzles"], 1):
        position = parse_position(puzzle["position"])
        unit = "EV" if puzzle["model"] == "nash" else UNITS[puzzle["model"]]
        rows = "".join(f"<tr><td>{c}</td><td>{v}</td><td>{r}</td><td>{s}</td></tr>"
                       for c, v, r, s in values_rows(puzzle))
        out += ["<section>",
                f"<h2>{n}. Puzzle {escape(puzzle['id'])} (difficulty {puzzle['difficulty']})</h2>",
                rows_svg(position),
                f"<pre>{escape(render_position(position))}</pre>",
                f"<p>{escape(QUESTION[puzzle['model']])}</p>",
                "<details><summary>Solution</summary>",
                f"<p><strong>{puzzle['solution']}</strong> — {escape(puzzle['explanation'])}</p>",
                f"<table><tr><th>card</th><th>{escape(unit)}</th><th>regret</th><th>note</th></tr>"
                f"{rows}</table>",
                f"<p>Themes: {escape(', '.join(puzzle['themes']) or 'none')}.</p>",
                "</details>", "</section>"]
    out += ["</body>", "</html>"]
    return "\n".join(out)
