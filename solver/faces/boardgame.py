"""The board's game view: a game record stepped through turn by turn, and its review.

``nimmt board GAME.json`` opens a record (``players.records``: ``--save-games``, ``nimmt
play --record``). The page steps through its turns: the rows before the turn, every hand,
the cards played, the row choices and the cows. A review (``players.review.review_game``,
the judge of ``nimmt review``) runs as a board job with progress and Cancel; each decision
is then marked on the page as ``nimmt review`` labels it (best, ok, inaccuracy, mistake,
blunder, with its loss), beside the review's picture of regret through the game.
"""
from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from ..base.defaults import DEFAULT_SAMPLES
from ..base.errors import NimmtError
from ..base.pictures import NO_PICTURES
from ..base.rules import HAND_SIZE
from ..players.records import replay, validate_record
from ..players.review import (
    GameReview,
    decisions_to_review,
    judge_model,
    regret_figure,
    review_game,
    seat_view,
)
from ..positions.position import format_position
from .boardserver import Board, Job, NotFound, View, ViewMaker, cards_json, position_json
from .options import request_cards, request_int, request_seconds, take_params

__all__ = ["REVIEW_PARAMS", "REVIEW_TIME_LIMIT", "game_steps", "game_view", "review_json"]

REVIEW_PARAMS = ("players", "opponents", "samples", "seed", "time_limit", "from_turn")
REVIEW_TIME_LIMIT = 5.0   # seconds per analysed decision when the page gives none


def game_steps(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every turn of the record, replayed (a bad record: one ``NimmtError`` line): the round
    and turn (1-based), the position before it (``position_json``, seat 1's view with every
    hand), each seat's hand, card, row choices and cows, the totals before the turn, and
    the rows after it, and each seat's view before it (``review.seat_view``: the position
    that seat decided from, in the notation)."""
    steps = []
    for r in replay(record):
        for t, turn in enumerate(r.turns):
            before = turn.before
            steps.append({
                "round": r.index + 1, "turn": t + 1, "position": position_json(before),
                "hands": [cards_json(h or ()) for h in before.hands],
                "cards": list(turn.cards), "take_rows": list(turn.take_rows),
                "tie_sides": list(turn.tie_sides), "cows": list(turn.cows),
                "scores": list(before.scores),
                "views": [format_position(seat_view(turn, s)) for s in range(before.players)],
                "after": position_json(turn.after)["rows"]})
    return steps


def review_json(review: GameReview) -> dict[str, Any]:
    """``nimmt review --format json``'s answer, and its picture (an SVG, base64; None, with
    ``picture_note`` saying why, without matplotlib)."""
    out = review.to_json()
    try:
        out["picture"] = base64.b64encode(regret_figure(review, "svg")).decode("ascii")
    except ImportError:
        out["picture"], out["picture_note"] = None, NO_PICTURES
    return out


def _review_request(body: Mapping[str, Any], players: int) -> dict[str, Any]:
    """The review's options from the page, checked now (a 400 for a bad one)."""
    p = take_params(body, REVIEW_PARAMS, "review")
    seats = request_cards(p, "players")
    if seats is not None:
        bad = [s for s in seats if not 1 <= s <= players]
        if bad or not seats:
            raise NimmtError(f"players lists this game's players, 1..{players}; got "
                             f"{bad[0] if bad else 'none'}")
    opponents = p.get("opponents", "random")
    if not isinstance(opponents, str):
        raise NimmtError("opponents is random, worst or a bot's name")
    judge_model(opponents)  # the review's own check, now, for a 400
    return {"seats": None if seats is None else sorted({s - 1 for s in seats}),
            "opponents": opponents,
            "samples": request_int(p, "samples", 2, 10**9, DEFAULT_SAMPLES),
            "seed": request_int(p, "seed", 0, 2**63 - 1, 0),
            "time_limit": request_seconds(p) or REVIEW_TIME_LIMIT,
            "first_turn": request_int(p, "from_turn", 1, HAND_SIZE, 1)}


def game_view(record: dict[str, Any] | None = None, source: str = "") -> ViewMaker:
    """The game view of ``record`` (read from ``source``, the name the page shows), or of
    none until the page opens the game played on the board (``/api/game/open-play``)."""
    shown: dict[str, Any] = {}

    def show(new: dict[str, Any], name: str) -> None:
        shown.update(record=new, source=name, steps=game_steps(new))

    if record is not None:
        show(record, source)

    def make(board: Board) -> View:
        def current() -> dict[str, Any]:
            if not shown:
                raise NotFound("no game on the board: open one (nimmt board GAME.json) or "
                               "play one on the Play tab")
            return shown

        def game(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            g = current()
            record = g["record"]
            return {"source": g["source"], "names": record["names"],
                    "players": record["players"], "variant": record["variant"],
                    "placement": record.get("placement"), "steps": g["steps"],
                    "complete": record.get("complete", True)}

        def open_play(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            take_params(body, (), "open-play")
            played = board.shared.get("play_record")
            if played is None:
                raise NotFound("no game played on this board")
            record = played()
            if not record["rounds"] or not record["rounds"][0]["turns"]:
                raise NimmtError("the game played has no turn yet")
            show(validate_record(record), "the game played on the board")
            return game(request, body)

        def review(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            g = current()
            record = g["record"]
            players = record["players"]
            options = _review_request(body, players)
            count = decisions_to_review(record, options["seats"], options["first_turn"])

            def work(job: Job) -> dict[str, Any]:
                done = review_game(record, progress=job.step("decisions reviewed", count),
                                   working=job.check, **options)
                job.value = done
                board.shared["review"] = job.id
                return review_json(done)
            return board.jobs.submit(options, work).to_json()

        return View("game", (board.api("/api/game", game),
                             board.api("/api/game/open-play", open_play, ("POST",)),
                             board.api("/api/game/review", review, ("POST",))),
                    {"source": source, "turns": len(shown.get("steps", ())),
                     "loaded": bool(shown)})
    return make
