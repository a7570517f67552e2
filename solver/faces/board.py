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

from ..base.defaults import BOARD_TIME_LIMIT
from ..base.errors import NimmtError, SearchStopped
from ..base.names import Method, Model, values
from ..players.bots import BOT_NAMES
from ..positions.position import EXAMPLES, Position, format_position, parse_position
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
from .options import AnalyseOptions
from .queries import analyse_reporting, stopped_json

__all__ = ["ANALYSE_PARAMS", "STATIC_FILES", "analysis", "board_app", "board_position"]

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

    def job(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        found = board.job(request.path_params["job"])
        if request.method == "DELETE":
            found.cancel.set()
        return found.to_json()

    routes = [Route("/", page), Route("/static/{name}", static),
              board.api("/api/info", info),
              board.api("/api/position", position, ("POST",)),
              board.api("/api/analyse", analyse, ("POST",)),
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


