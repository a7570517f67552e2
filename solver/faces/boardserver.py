"""The board's server parts that every view shares: its guard, its jobs, its views.

``Guard``: the checks every request passes (the Host and Origin headers, the run's token,
the body's size). ``Jobs``: long work (an analysis, a review) run off the request path by a
few worker threads, with progress and cancelling (the work's progress step raises
``Cancelled``). ``Board`` and ``View``: a view of the board (the position, a game, puzzles)
declares its API routes through ``Board.api`` (the guard's checks, the body read as a JSON
object, a ``NimmtError`` answered with its one line, never a traceback) and what the page is
told about it. ``board.board_app`` puts them together.
"""
from __future__ import annotations

import secrets
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..base.deck import card_cows
from ..base.defaults import BOARD_ORPHAN_SECONDS
from ..base.errors import NimmtError, SearchStopped
from ..base.fileio import loads_strict
from ..positions.position import Position, format_position

__all__ = ["BODY_LIMIT", "Board", "Cancelled", "Guard", "Handler", "Job", "Jobs", "NotFound",
           "SECURITY_HEADERS", "View", "ViewMaker", "Work", "cards_json", "error_response",
           "new_token", "one_line", "position_json", "static_file"]

BODY_LIMIT = 64 * 1024   # bytes a request body may have
KEEP_JOBS = 256          # finished analyses kept for the page to fetch; the oldest go first

TOKEN_HEADER = "x-nimmt-token"

class Cancelled(Exception):
    """An analysis cancelled from the page (raised inside the search's progress step)."""


def new_token() -> str:
    """A run's secret: the page's address carries it and every API request sends it back."""
    return secrets.token_urlsafe(24)



def cards_json(cards: Any) -> list[dict[str, int]]:
    """Cards as the page draws them: each with its cows."""
    return [{"card": c, "cows": card_cows(c)} for c in cards]


def position_json(position: Position) -> dict[str, Any]:
    """What the page draws: rows and hands as cards with their cows, the notation, and the
    deck's cards (for editing by clicking)."""
    return {"notation": format_position(position), "variant": str(position.variant),
            "deck": cards_json(range(1, position.deck_size + 1)),
            "players": position.players, "placement": str(position.placement),
            "cards_left": position.cards_left, "rows": [cards_json(r) for r in position.rows],
            "hand": cards_json(position.hand),
            "others": [None if h is None else cards_json(h) for h in position.hands[1:]],
            "gone": cards_json(position.gone), "turn": list(position.turn)}



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
    value: Any = None   # the work's Python answer (a game review), for later requests
    seen: float = field(default_factory=time.monotonic)   # when a page last asked after it

    def to_json(self) -> dict[str, Any]:
        """The page's view of the job."""
        return {"id": self.id, "state": self.state,
                "progress": {"what": self.what, "done": self.done, "total": self.total},
                "result": self.result, "error": self.error, "seconds": round(self.seconds, 3)}

    def check(self, n: int = 0) -> None:
        """Raise ``Cancelled`` when the job is cancelled or no page asks after it any more
        (a progress callback that counts nothing: for work inside a counted step)."""
        if self.cancel.is_set():
            raise Cancelled
        if time.monotonic() - self.seen > BOARD_ORPHAN_SECONDS:   # its tab was closed
            self.cancel.set()
            raise Cancelled

    def step(self, what: str, total: int) -> Callable[[int], None]:
        """A progress callback for the search: counts, and stops the search when the job
        is cancelled."""
        def advance(n: int) -> None:
            self.check()
            self.what, self.total = what, total
            self.done += n
        return advance


Work = Callable[[Job], "dict[str, Any] | None"]


class Jobs:
    """Long work (analyses, reviews) run by ``workers`` threads; more waits in a queue. A
    job no page has asked after for ``BOARD_ORPHAN_SECONDS`` (its tab closed) stops at its
    next progress step, so closed tabs do not hold the threads.
    Finished jobs are kept (at most KEEP_JOBS) for the page to fetch."""

    def __init__(self, workers: int = 2) -> None:
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="board")
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.lock = threading.Lock()

    def submit(self, params: Mapping[str, Any], work: Work) -> Job:
        """Queue ``work(job)``, whose return value is the job's result (JSON). It reports
        progress by ``job.step``; ``Cancelled``, ``SearchStopped`` and ``NimmtError`` end it
        with one line (a stopped search may leave a partial ``job.result``)."""
        job = Job(uuid.uuid4().hex, dict(params))
        with self.lock:
            self.jobs[job.id] = job
            while len(self.jobs) > KEEP_JOBS:
                oldest = next(iter(self.jobs))
                self.jobs.pop(oldest).cancel.set()
        self.pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Work) -> None:
        if job.cancel.is_set():
            job.state = "cancelled"
            return
        job.state = "running"
        start = time.perf_counter()
        try:
            job.result = work(job)
            job.state = "done"
        except Cancelled:
            job.state = "cancelled"
        except SearchStopped as e:
            job.error, job.state = one_line(str(e)), "stopped"
        except NimmtError as e:
            job.error, job.state = one_line(str(e)), "failed"
        except Exception as e:  # never a traceback on the page: one line, and the server goes on
            job.error, job.state = f"internal error: {type(e).__name__}: {one_line(str(e))}", \
                "failed"
        finally:
            job.seconds = time.perf_counter() - start

    def get(self, job_id: str) -> Job | None:
        """The job of this id, if it is kept (a page asking after it: it is still wanted)."""
        with self.lock:
            found = self.jobs.get(job_id)
        if found is not None:
            found.seen = time.monotonic()
        return found

    def shutdown(self) -> None:
        """Cancel every job and stop the threads (each stops at its search's next step)."""
        with self.lock:
            for job in self.jobs.values():
                job.cancel.set()
        self.pool.shutdown(wait=False, cancel_futures=True)



def one_line(text: str) -> str:
    """``text`` on one line, at most 500 characters (a message for the page)."""
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
            return error_response(403, "this board answers only to its own address (Host header)")
        origin = request.headers.get("origin")
        if origin is not None and origin.removeprefix("http://") not in self.hosts:
            return error_response(403, "requests from other sites are refused (Origin header)")
        if token:
            given = request.headers.get(TOKEN_HEADER) or request.query_params.get("token", "")
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                return error_response(403, "the run's token is missing or wrong: open the address "
                                   "nimmt board printed")
        return None


def error_response(status: int, message: str) -> JSONResponse:
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



def static_file(name: str) -> bytes:
    """A file of the page (``board_static/``), from the installed package."""
    return resources.files(__package__).joinpath("board_static", name).read_bytes()


Handler = Callable[[Request, "dict[str, Any]"], Any]


class NotFound(NimmtError):
    """A request for something the board does not hold (a 404 with this line)."""


@dataclass
class Board:
    """What a view of the board is built with: the guard every request passes, the jobs
    long work runs on, and ``shared``, where one view leaves what another uses (the game
    view's last review, which the puzzles view makes puzzles of)."""

    guard: Guard
    jobs: Jobs
    shared: dict[str, Any] = field(default_factory=dict)

    def api(self, path: str, handler: Handler, methods: tuple[str, ...] = ("GET",)) -> Route:
        """An API route: the guard's checks, the body read as a JSON object (POST), the
        handler's answer as JSON; a ``NimmtError`` is a 400 (``NotFound`` a 404) with its
        one line, never a traceback."""
        async def endpoint(request: Request) -> Response:
            refused = self.guard.refusal(request)
            if refused is not None:
                return refused
            try:
                body = await _body(request) if request.method == "POST" else {}
                # off the event loop: a handler may solve a little (a puzzle's line)
                return JSONResponse(await run_in_threadpool(handler, request, body))
            except _TooLarge:
                return error_response(413, f"a request body may have at most {BODY_LIMIT:,} bytes")
            except NotFound as e:
                return error_response(404, one_line(str(e)))
            except NimmtError as e:
                return error_response(400, one_line(str(e)))
        return Route(path, endpoint, methods=list(methods))

    def job(self, job_id: Any) -> Job:
        """A kept job by its id (``NotFound`` otherwise)."""
        found = self.jobs.get(job_id) if isinstance(job_id, str) else None
        if found is None:
            raise NotFound("no such job (finished ones are kept for a while)")
        return found


@dataclass(frozen=True)
class View:
    """A part of the board beside the position: its tab's ``name``, its API ``routes``, and
    ``info``, what ``/api/info`` tells the page about it (under ``views``)."""

    name: str
    routes: tuple[Route, ...]
    info: Mapping[str, Any]


ViewMaker = Callable[[Board], View]



SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
