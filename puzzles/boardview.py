"""The board's puzzles view: a puzzle set solved by clicking, and a game's mistakes as one.

``nimmt board SET`` (a shipped set's name or a set file) opens the view on that set; the
page may switch to any shipped set. The page asks for the puzzles of some themes (any of
them) and a difficulty range (``files.select_puzzles``, the quiz's choice too), draws each
as a position (``position_json``) and sends the card clicked; the answer is the quiz's: right
when the card is worth no more than the solution, with every card's value, the
explanation, the themes and the refutation line of the card clicked (the stored one for
the tempting card, else ``core.refutation``). A puzzle's solution never reaches the page
before it answers.

With a game on the board, its last review's mistakes and blunders become a set
(``mistakes.mistake_puzzles``, a board job), which the view then shows, and which the
page can save as a puzzle set file.
"""
from __future__ import annotations

from typing import Any

from starlette.requests import Request

from ..solver.base.errors import NimmtError
from ..solver.faces.boardserver import Board, Job, NotFound, View, ViewMaker, position_json
from ..solver.faces.options import request_int, take_params
from ..solver.players.review import GameReview
from ..solver.positions.position import parse_position
from . import core, render
from .files import load_set, parse_difficulty, select_puzzles, set_themes, shipped_sets
from .mistakes import mistake_puzzles, mistakes_of
from .records import Puzzle, PuzzleSet

__all__ = ["MISTAKES", "answer_json", "puzzle_view", "puzzles_json"]

MISTAKES = "mistakes"   # the name of the set made from the game's review
TIE = 1e-9              # a card worth no more than the solution is right


def _puzzle_json(number: int, puzzle: Puzzle) -> dict[str, Any]:
    """What the page draws before an answer (no solution, no values)."""
    return {"number": number, "id": puzzle.id, "model": puzzle.model,
            "difficulty": puzzle.difficulty, "themes": list(puzzle.themes),
            "position": position_json(parse_position(puzzle.position)),
            "from_game": puzzle.extra.get("from_game")}


def puzzles_json(name: str, puzzle_set: PuzzleSet, themes: list[str] | None = None,
                 difficulty: str | None = None) -> dict[str, Any]:
    """The set's puzzles of any of ``themes`` inside ``difficulty`` (``select_puzzles``),
    numbered as in the set (1-based), with the set's themes and difficulties."""
    chosen = select_puzzles(puzzle_set, themes or (),
                            parse_difficulty(difficulty) if difficulty else (None, None))
    number = {id(p): i for i, p in enumerate(puzzle_set.puzzles, 1)}
    levels = [p.difficulty for p in puzzle_set.puzzles]
    return {"set": name, "size": len(puzzle_set.puzzles), "themes": set_themes(puzzle_set),
            "difficulty": [min(levels), max(levels)] if levels else None,
            "puzzles": [_puzzle_json(number[id(p)], p) for p in chosen]}


def answer_json(puzzle: Puzzle, card: int) -> dict[str, Any]:
    """The quiz's answer to ``card``: right or not, the loss, every card's value, the
    solution, its explanation and themes, and the refutation line of ``card``."""
    if card not in puzzle.values:
        raise NimmtError(f"card {card} is not in this puzzle's hand "
                         f"({', '.join(map(str, puzzle.cards))})")
    loss = puzzle.values[card] - puzzle.values[puzzle.solution]
    if card == puzzle.tempting and puzzle.refutation is not None:
        line = puzzle.refutation
    elif loss > TIE:
        line = core.refutation(parse_position(puzzle.position), card, puzzle.model)
    else:
        line = ()
    return {"card": card, "correct": loss <= TIE, "loss": loss, "solution": puzzle.solution,
            "unit": render.unit(puzzle), "margin": puzzle.margin,
            "values": [{"card": c, "value": v} for c, v in puzzle.values.items()],
            "explanation": puzzle.explanation, "themes": list(puzzle.themes),
            "line": render.line_text(puzzle, line) if line else "",
            "line_turns": [t.to_json() for t in line]}


def puzzle_view(name: str | None = None) -> ViewMaker:
    """The puzzles view, opening on the set ``name`` (a shipped set or a file; default the
    first shipped set). The page may open shipped sets by name, never files. Every request
    names its set, so two tabs on two sets never mix their puzzles."""
    shipped = list(shipped_sets())
    start = name or shipped[0]
    loaded: dict[str, PuzzleSet] = {start: load_set(start)}
    made: dict[str, PuzzleSet] = {}

    def lookup(wanted: Any) -> PuzzleSet:
        """A set the board holds: one made here, the one it opened on, or a shipped one."""
        if wanted in made:
            return made[wanted]
        if isinstance(wanted, str) and (wanted == start or wanted in shipped):
            if wanted not in loaded:
                loaded[wanted] = load_set(wanted)
            return loaded[wanted]
        raise NimmtError(f"no puzzle set {str(wanted)[:40]!r} on this board; the shipped "
                         f"sets are {', '.join(shipped)}")

    def make(board: Board) -> View:
        def listing(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            p = take_params(body, ("set", "themes", "difficulty"), "puzzles")
            wanted = p.get("set", start)
            themes = p.get("themes") or []
            difficulty = p.get("difficulty") or None
            if not isinstance(themes, list) or not all(isinstance(t, str) for t in themes):
                raise NimmtError("themes is a list of theme names")
            if difficulty is not None and not isinstance(difficulty, str):
                raise NimmtError("difficulty is a range: 3, 2..5, 4.. or ..3")
            out = puzzles_json(wanted, lookup(wanted), themes, difficulty)
            out["sets"] = shipped + [n for n in made if n not in shipped] + (
                [start] if start not in shipped and start not in made else [])
            return out

        def answer(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            p = take_params(body, ("set", "number", "card"), "answer")
            puzzles = lookup(p.get("set", start)).puzzles
            number = request_int(p, "number", 1, max(1, len(puzzles)), None)
            card = request_int(p, "card", 1, 10_000, None)
            if number is None or card is None:
                raise NimmtError("an answer names the puzzle (number) and the card")
            return answer_json(puzzles[number - 1], card)

        def from_review(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            p = take_params(body, ("job",), "mistakes")
            job_id = p.get("job", board.shared.get("review"))
            review = board.job(job_id).value if job_id is not None else None
            if not isinstance(review, GameReview):
                raise NotFound("no finished review of this game: review it first")
            if review.opponents not in ("random", "worst"):
                raise NimmtError(f"puzzles come from a review against random or worst; this "
                                 f"one judged against {review.opponents}")
            count = len(mistakes_of(review))

            def work(job: Job) -> dict[str, Any]:
                found = mistake_puzzles(review, progress=job.step("mistakes solved", count))
                data = found.puzzle_set("nimmt board: the mistakes of a reviewed game")
                made[MISTAKES] = data
                return {"set": MISTAKES, "count": len(found.puzzles),
                        "skipped": found.skipped, "file": data.to_json()}
            return board.jobs.submit({"job": job_id}, work).to_json()

        return View("puzzles", (board.api("/api/puzzles", listing, ("POST",)),
                                board.api("/api/puzzles/answer", answer, ("POST",)),
                                board.api("/api/puzzles/from-review", from_review,
                                          ("POST",))),
                    {"set": start, "sets": shipped})
    return make

