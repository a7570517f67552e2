"""``nimmt board``: the analysis board, a local web page backed by the same answers as the CLI.

The server is Starlette (run by uvicorn, the optional extra ``nimmt[board]``); the page and
its script ship in ``board_static/`` and load nothing from the network. Every figure comes
from ``queries.analyse_answer`` with the options read by ``options.AnalyseOptions
.from_request``, the engine protocol's reading: a value on the board is the value ``nimmt
analyse --format json`` prints for the same position, model and seed, and a bad position or
option is the same one line.

Analyses run off the request path (``Jobs``: a few worker threads), report progress, can be
cancelled from the page (the progress callback of the search raises ``Cancelled`` at its
next step) and get ``BOARD_TIME_LIMIT`` seconds when the page gives no time limit.

Secure by default (``Guard``): the server binds to 127.0.0.1; every API request carries the
run's token (header ``X-Nimmt-Token``; the page itself ``?token=``); the Host header must
name the server (DNS rebinding) and an Origin header, when sent, the server's own origin
(cross-site requests); request bodies are limited to ``BODY_LIMIT`` bytes and read as a JSON
object, and a position from the page is the notation or a built-in example's name, never a
file on this machine.
"""
from __future__ import annotations

import contextlib
import secrets
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..base.deck import card_cows
from ..base.defaults import BOARD_TIME_LIMIT
from ..base.errors import NimmtError, SearchStopped
from ..base.fileio import loads_strict
from ..base.names import Method, Model, values
from ..players.bots import BOT_NAMES
from ..positions.position import EXAMPLES, Position, format_position, parse_position
from .options import AnalyseOptions
from .queries import analyse_reporting, stopped_json

__all__ = ["BODY_LIMIT", "Cancelled", "Guard", "Job", "Jobs", "STATIC_FILES", "board_app",
           "new_token", "position_json"]

BODY_LIMIT = 64 * 1024   # bytes a request body may have
KEEP_JOBS = 256          # finished analyses kept for the page to fetch; the oldest go first
STATIC_FILES = {"board.js": "text/javascript", "board.css": "text/css"}
TOKEN_HEADER = "x-nimmt-token"
# the analysis options the page may set (the engine protocol's names)
ANALYSE_PARAMS = ("position", "opponents", "method", "samples", "seed", "time_limit",
                  "objective", "turn")


class Cancelled(Exception):
    """An analysis cancelled from the page (raised inside the search's progress step)."""


def new_token() -> str:
    """A run's secret: the page's address carries it and every API request sends it back."""
    return secrets.token_urlsafe(24)


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


def _cards(cards: Any) -> list[dict[str, int]]:
    return [{"card": c, "cows": card_cows(c)} for c in cards]


def position_json(position: Position) -> dict[str, Any]:
    """What the page draws: rows and hands as cards with their cows, and the notation."""
    return {"notation": format_position(position), "variant": str(position.variant),
            "players": position.players, "placement": str(position.placement),
            "cards_left": position.cards_left, "rows": [_cards(r) for r in position.rows],
            "hand": _cards(position.hand),
            "others": [None if h is None else _cards(h) for h in position.hands[1:]],
            "gone": _cards(position.gone), "turn": list(position.turn)}


# ---------------------------------------------------------------- analyses off the request path

@dataclass
class Job:
    """One analysis: its state (queued, running, done, stopped, failed, cancelled), its
    progress and its answer (the JSON of ``nimmt analyse --format json``) or one line."""

    id: str
    params: dict[str, Any]
    state: str = "queued"
    what: str = ""
    done: int = 0
    total: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None
    seconds: float = 0.0
    cancel: threading.Event = field(default_factory=threading.Event)

    def to_json(self) -> dict[str, Any]:
        """The page's view of the job."""
        return {"id": self.id, "state": self.state,
                "progress": {"what": self.what, "done": self.done, "total": self.total},
                "result": self.result, "error": self.error, "seconds": round(self.seconds, 3)}

    def step(self, what: str, total: int) -> Callable[[int], None]:
        """A progress callback for the search: counts, and stops the search when the job
        is cancelled."""
        def advance(n: int) -> None:
            if self.cancel.is_set():
                raise Cancelled
            self.what, self.total = what, total
            self.done += n
        return advance


class Jobs:
    """Analyses run by ``workers`` threads; more wait in a queue. Finished jobs are kept
    (at most KEEP_JOBS) for the page to fetch."""

    def __init__(self, workers: int = 2) -> None:
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="board")
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.lock = threading.Lock()

    def submit(self, params: Mapping[str, Any]) -> Job:
        """Check the request now (a bad one raises ``NimmtError``, for a 400), then queue it."""
        request = {k: v for k, v in params.items() if k in ANALYSE_PARAMS}
        unknown = sorted(set(params) - set(ANALYSE_PARAMS))
        if unknown:
            raise NimmtError(f"unknown analysis option {unknown[0]!r}; the board sends "
                             f"{', '.join(ANALYSE_PARAMS)}")
        request["position"] = format_position(board_position(params.get("position")))
        request.setdefault("time_limit", BOARD_TIME_LIMIT)
        options = AnalyseOptions.from_request(request)  # the CLI's checks and messages
        job = Job(uuid.uuid4().hex, request)
        with self.lock:
            self.jobs[job.id] = job
            while len(self.jobs) > KEEP_JOBS:
                oldest = next(iter(self.jobs))
                self.jobs.pop(oldest).cancel.set()
        self.pool.submit(self._run, job, options)
        return job

    def _run(self, job: Job, options: AnalyseOptions) -> None:
        if job.cancel.is_set():
            job.state = "cancelled"
            return
        job.state = "running"
        start = time.perf_counter()
        try:
            job.result = analyse_reporting(options.arguments(), job.step).to_json()
            job.state = "done"
        except Cancelled:
            job.state = "cancelled"
        except SearchStopped as e:
            job.error, job.state = _one_line(str(e)), "stopped"
            job.result = stopped_json(e, options.position, options.opponents)
        except NimmtError as e:
            job.error, job.state = _one_line(str(e)), "failed"
        except Exception as e:  # never a traceback on the page: one line, and the server goes on
            job.error, job.state = f"internal error: {type(e).__name__}: {_one_line(str(e))}", \
                "failed"
        finally:
            job.seconds = time.perf_counter() - start

    def get(self, job_id: str) -> Job | None:
        """The job of this id, if it is kept."""
        with self.lock:
            return self.jobs.get(job_id)

    def shutdown(self) -> None:
        """Cancel every job and stop the threads (each stops at its search's next step)."""
        with self.lock:
            for job in self.jobs.values():
                job.cancel.set()
        self.pool.shutdown(wait=False, cancel_futures=True)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]


# ---------------------------------------------------------------- the guard

@dataclass
class Guard:
    """The checks every request passes: Host, Origin, token, body size."""

    token: str
    hosts: frozenset[str]   # host:port values the Host header may have

    @classmethod
    def local(cls, token: str, host: str, port: int) -> Guard:
        """The names this server answers to on ``host``:``port``."""
        names = {host, "127.0.0.1", "localhost"} if host in ("127.0.0.1", "localhost") \
            else {host}
        return cls(token, frozenset(f"{name}:{port}" for name in names))

    def refusal(self, request: Request, token: bool = True) -> Response | None:
        """None if the request may go on, else the response refusing it."""
        if request.headers.get("host", "") not in self.hosts:
            return _error(403, "this board answers only to its own address (Host header)")
        origin = request.headers.get("origin")
        if origin is not None and origin.removeprefix("http://") not in self.hosts:
            return _error(403, "requests from other sites are refused (Origin header)")
        if token:
            given = request.headers.get(TOKEN_HEADER) or request.query_params.get("token", "")
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                return _error(403, "the run's token is missing or wrong: open the address "
                                   "nimmt board printed")
        return None


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object, at most BODY_LIMIT bytes; NimmtError otherwise."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > BODY_LIMIT):
        raise _TooLarge
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > BODY_LIMIT:
            raise _TooLarge
    try:
        body = loads_strict(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise NimmtError("the request body is not a JSON object") from None
    if not isinstance(body, dict):
        raise NimmtError("the request body is not a JSON object")
    return body


class _TooLarge(Exception):
    pass


# ---------------------------------------------------------------- the application

def _static(name: str) -> bytes:
    return resources.files(__package__).joinpath("board_static", name).read_bytes()


def board_app(guard: Guard, initial: str | None = None, workers: int = 2) -> Starlette:
    """The board's web application. ``initial``: the position the page opens with (the
    notation or an example's name)."""
    jobs = Jobs(workers)
    first = format_position(board_position(initial)) if initial else EXAMPLES["example"]

    def api(handler: Callable[..., Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            refused = guard.refusal(request)
            if refused is not None:
                return refused
            try:
                body = await _body(request) if request.method == "POST" else {}
                return JSONResponse(handler(request, body))
            except _TooLarge:
                return _error(413, f"a request body may have at most {BODY_LIMIT:,} bytes")
            except _NotFound:
                return _error(404, "no such analysis (finished ones are kept for a while)")
            except NimmtError as e:
                return _error(400, _one_line(str(e)))
        return endpoint

    async def page(request: Request) -> Response:
        refused = guard.refusal(request)
        if refused is not None:
            return Response(refused.body, status_code=refused.status_code,
                            media_type="application/json")
        return Response(_static("index.html"), media_type="text/html",
                        headers=_SECURITY_HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        refused = guard.refusal(request, token=False)
        if refused is not None:
            return refused
        if name not in STATIC_FILES:
            return _error(404, "no such file")
        return Response(_static(name), media_type=STATIC_FILES[name],
                        headers=_SECURITY_HEADERS)

    def info(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return {"position": first, "examples": EXAMPLES,
                "models": values(Model), "bots": sorted(BOT_NAMES),
                "methods": values(Method), "time_limit": BOARD_TIME_LIMIT}

    def position(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return position_json(board_position(body.get("position")))

    def analyse(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        return jobs.submit(body).to_json()

    def job(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        found = jobs.get(request.path_params["job"])
        if found is None:
            raise _NotFound
        if request.method == "DELETE":
            found.cancel.set()
        return found.to_json()

    routes = [Route("/", page), Route("/static/{name}", static),
              Route("/api/info", api(info)),
              Route("/api/position", api(position), methods=["POST"]),
              Route("/api/analyse", api(analyse), methods=["POST"]),
              Route("/api/jobs/{job}", api(job), methods=["GET", "DELETE"])]
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        jobs.shutdown()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.jobs = jobs
    return app


class _NotFound(Exception):
    pass


# the page loads nothing from elsewhere, and is not framed by another site
_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
