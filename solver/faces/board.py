"""``nimmt board``: the analysis board, a local web page backed by the same answers as the CLI.

The server is Starlette (run by uvicorn, the optional extra ``nimmt[board]``); the page and
its script ship in ``board_static/`` and load nothing from the network. Every figure comes
from ``queries.analyse_answer`` with the options read by ``options.AnalyseOptions
.from_request``, the engine protocol's reading: a value on the board is the value ``nimmt
analyse --format json`` prints for the same position, model and seed, and a bad position or
option is the same one line.

Analyses run off the request path (``boardserver.Jobs``: a few worker threads), report
progress, can be cancelled from the page (the progress callback of the search raises
``Cancelled`` at its next step) and get ``BOARD_TIME_LIMIT`` seconds when the page gives no
time limit. The other views (a game: ``boardgame``; puzzles: ``puzzles.boardview``) are
``View``s the command line hands to ``board_app``.

Secure by default (``boardserver.Guard``): the server binds to 127.0.0.1; every API request
carries the run's token (header ``X-Nimmt-Token``; the page itself ``?token=``); the Host
header must name the server (DNS rebinding) and an Origin header, when sent, the server's own origin
(cross-site requests); request bodies are limited to ``BODY_LIMIT`` bytes and read as a JSON
object, and a position from the page is the notation or a built-in example's name, never a
file on this machine.
"""
from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..base.defaults import BOARD_TIME_LIMIT, BOARD_TREE_NODES, LINE_NODES
from ..base.errors import NimmtError, SearchStopped
from ..base.names import Method, Model, values
from ..base.rules import HAND_SIZE, MODELS
from ..players.bots import BOT_NAMES
from ..positions.owners import estimate_nodes
from ..positions.position import EXAMPLES, Position, format_position, parse_position
from ..search.line import RowChoice, principal_line
from ..search.tree import build_tree, tree_nested
from .boardserver import (
    SECURITY_HEADERS,
    Board,
    Guard,
    Job,
    Jobs,
    ViewMaker,
    Work,
    error_response,
    position_json,
    static_file,
)
from .options import AnalyseOptions, request_int, take_params
from .queries import analyse_reporting, stopped_json

__all__ = ["ANALYSE_PARAMS", "STATIC_FILES", "analysis", "board_app", "board_position",
           "edited_position", "line_request", "tree_request"]

STATIC_FILES = {"board.js": "text/javascript", "game.js": "text/javascript",
                "puzzles.js": "text/javascript", "play.js": "text/javascript",
                "board.css": "text/css"}
# the analysis options the page may set (the engine protocol's names)
ANALYSE_PARAMS = ("position", "opponents", "method", "samples", "seed", "time_limit",
                  "objective", "turn")


# ---------------------------------------------------------------- positions

def board_position(text: Any) -> Position:
    """A position sent by the page: the notation or a built-in example's name (a file
    path is refused: the page does not read this machine's files)."""
    if not isinstance(text, str) or not text.strip():
        raise NimmtError("position is required: the notation (variant=... rows=... hand=...) "
                         "or a built-in example's name")
    text = text.strip()
    if text in EXAMPLES:
        return parse_position(EXAMPLES[text])
    if "=" not in text:
        raise NimmtError(f"position {text[:40]!r} is neither the notation nor a built-in "
                         f"example ({', '.join(EXAMPLES)}); the board reads no files")
    return parse_position(text)


def edited_position(params: Mapping[str, Any]) -> Position:
    """A position edited on the page by clicking: the rules (variant, players, placement)
    and where each card is (rows, hand, the other players' known hands by number, gone),
    checked as any position is (``Position.make``: the CLI's one-line messages)."""
    p = take_params(params, ("variant", "players", "placement", "rows", "hand", "others",
                             "gone"), "edit")
    players = request_int(p, "players", 2, 10, None)
    if players is None:
        raise NimmtError("players is required (2..10)")

    def cards(value: Any, what: str) -> list[int]:
        if not isinstance(value, list) or not all(type(c) is int for c in value):
            raise NimmtError(f"{what} is a list of cards")
        return sorted(value)

    rows = p.get("rows")
    if not isinstance(rows, list):
        raise NimmtError("rows is a list of rows, each a list of cards")
    others = p.get("others") or {}
    if not isinstance(others, dict) or not all(
            isinstance(k, str) and k.isdigit() for k in others):
        raise NimmtError("others maps a player's number (2..) to that player's cards")
    return Position.make(players=players, rows=[cards(r, "a row") for r in rows],
                         hand=cards(p.get("hand", []), "hand"),
                         variant=str(p.get("variant", "tactical")),
                         placement=str(p.get("placement", "normal")),
                         others={int(k): cards(v, f"player {k}'s hand")
                                 for k, v in others.items() if v},
                         gone=cards(p.get("gone", []), "gone"))


# ---------------------------------------------------------------- analyses off the request path

def analysis(params: Mapping[str, Any]) -> tuple[dict[str, Any], Work]:
    """A request for ``nimmt analyse``, checked now (a bad one raises ``NimmtError``, for a
    400): the request as it will run and the work that runs it."""
    request = {k: v for k, v in params.items() if k in ANALYSE_PARAMS}
    unknown = sorted(set(params) - set(ANALYSE_PARAMS))
    if unknown:
        raise NimmtError(f"unknown analysis option {unknown[0]!r}; the board sends "
                         f"{', '.join(ANALYSE_PARAMS)}")
    request["position"] = format_position(board_position(params.get("position")))
    request.setdefault("time_limit", BOARD_TIME_LIMIT)
    options = AnalyseOptions.from_request(request)  # the CLI's checks and messages

    def work(job: Job) -> dict[str, Any]:
        try:
            return analyse_reporting(options.arguments(), job.step).to_json()
        except SearchStopped as e:
            job.result = stopped_json(e, options.position, options.opponents)
            raise
    return request, work


def _model(p: Mapping[str, Any], what: str) -> str:
    """The model a line or a tree is searched in: random, worst or nash."""
    model = p.get("opponents", Model.RANDOM.value)
    if model not in MODELS:
        raise NimmtError(f"{what} is searched against the models {', '.join(MODELS)}; got "
                         f"{str(model)[:40]!r} (a bot's {what} is not searched)")
    return str(model)


def line_request(params: Mapping[str, Any]) -> tuple[dict[str, Any], Work]:
    """The line after a card (``search.line.principal_line``: the opponents' most damaging
    replies the model allows and player 1's best answers, to the end of the round), checked
    now: a position whose exact search is estimated above ``LINE_NODES`` is refused."""
    p = take_params(params, ("position", "card", "opponents"), "line")
    position = board_position(p.get("position"))
    card = request_int(p, "card", 1, 10_000, None)
    if card is None or card not in position.hand:
        raise NimmtError(f"card is one of player 1's cards ({', '.join(map(str, position.hand))})")
    model = _model(p, "a line")
    if estimate_nodes(position) > LINE_NODES:
        raise NimmtError(f"the line is searched exactly, and this position is too large for "
                         f"that here (estimated over {LINE_NODES:,} nodes); try it with fewer "
                         "cards left")
    first = HAND_SIZE + 1 - position.cards_left

    def work(job: Job) -> dict[str, Any]:
        line = principal_line(position, card, model)
        return {"card": card, "opponents": model, "total": sum(t.cows for t in line),
                "turns": [{"turn": first + i, "you": t.card, "opponents": t.label,
                           "choices": [_choice_text(c) for c in t.choices], "cows": t.cows}
                          for i, t in enumerate(line)]}
    return {"position": format_position(position), "card": card, "opponents": model}, work


def _choice_text(choice: RowChoice) -> str:
    who = "you" if choice.player == 1 else f"p{choice.player}"
    if choice.take_row is not None:
        return f"{who} {choice.card} takes row {choice.take_row + 1}"
    return f"{who} {choice.card} goes to the {choice.tie_side} end"


def tree_request(params: Mapping[str, Any]) -> tuple[dict[str, Any], Work]:
    """The decision tree a few turns deep (``search.tree.build_tree``, at most
    ``BOARD_TREE_NODES`` nodes), checked now (a tree too large is refused with the
    command line's line: cut it with depth, best_only or min_probability)."""
    p = take_params(params, ("position", "opponents", "depth", "best_only",
                             "min_probability"), "tree")
    position = board_position(p.get("position"))
    model = _model(p, "a tree")
    depth = request_int(p, "depth", 1, 3, 1)
    best_only = p.get("best_only", False)
    if not isinstance(best_only, bool):
        raise NimmtError("best_only is true or false")
    low = p.get("min_probability", 0.0)
    if type(low) not in (int, float) or not 0 <= low <= 1:
        raise NimmtError("min_probability is a number from 0 to 1")

    def work(job: Job) -> dict[str, Any]:
        graph = build_tree(position, model, depth=depth, best_only=best_only,
                           min_probability=float(low), max_nodes=BOARD_TREE_NODES)
        return {"opponents": model, "depth": depth, "nodes": graph.number_of_nodes(),
                "tree": tree_nested(graph)}
    return {"position": format_position(position), "opponents": model, "depth": depth}, work


# ---------------------------------------------------------------- the application

def board_app(guard: Guard, initial: str | None = None, workers: int = 2,
              views: tuple[ViewMaker, ...] = (), start_view: str = "position") -> Starlette:
    """The board's web application. ``initial``: the position the page opens with (the
    notation or an example's name); ``views``: the other parts (a game, puzzles), made
    with the board's guard and jobs; ``start_view``: the tab the page opens on."""
    board = Board(guard, Jobs(workers))
    first = format_position(board_position(initial)) if initial else EXAMPLES["example"]
    made = [make(board) for make in views]

    async def page(request: Request) -> Response:
        refused = guard.refusal(request)
        if refused is not None:
            return Response(refused.body, status_code=refused.status_code,
                            media_type="application/json")
        return Response(static_file("index.html"), media_type="text/html",
                        headers=SECURITY_HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        refused = guard.refusal(request, token=False)
        if refused is not None:
            return refused
        if name not in STATIC_FILES:
            return error_response(404, "no such file")
        return Response(static_file(name), media_type=STATIC_FILES[name],
                        headers=SECURITY_HEADERS)

    def info(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return {"position": first, "examples": EXAMPLES,
                "models": values(Model), "bots": sorted(BOT_NAMES),
                "methods": values(Method), "time_limit": BOARD_TIME_LIMIT,
                "views": {view.name: dict(view.info) for view in made},
                "start": start_view if any(v.name == start_view for v in made) else "position"}

    def position(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return position_json(board_position(body.get("position")))

    def analyse(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return board.jobs.submit(*analysis(body)).to_json()

    def edit(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return position_json(edited_position(body))

    def line(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return board.jobs.submit(*line_request(body)).to_json()

    def tree(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return board.jobs.submit(*tree_request(body)).to_json()

    def job(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        found = board.job(request.path_params["job"])
        if request.method == "DELETE":
            found.cancel.set()
        return found.to_json()

    routes = [Route("/", page), Route("/static/{name}", static),
              board.api("/api/info", info),
              board.api("/api/position", position, ("POST",)),
              board.api("/api/position/edit", edit, ("POST",)),
              board.api("/api/analyse", analyse, ("POST",)),
              board.api("/api/line", line, ("POST",)),
              board.api("/api/tree", tree, ("POST",)),
              board.api("/api/jobs/{job}", job, ("GET", "DELETE"))]
    for view in made:
        routes.extend(view.routes)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        board.jobs.shutdown()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.jobs = board.jobs
    app.state.board = board
    return app


