"""``nimmt engine``: JSON-RPC 2.0 over standard input and output, one message per line.

A program (a GUI, a tournament manager, a script in any language) starts ``nimmt engine``
once and sends requests, one JSON object per line; the engine answers each request with
exactly one reply line, in the order the requests came, with the request's ``id``. The
kernels are compiled or loaded on first use and stay warm for the life of the process.
docs/ENGINE.md is the contract (every method, parameter, reply and error, with examples).

Methods (``METHODS``): ``analyse`` (``nimmt analyse``'s options by name, read by
``options.AnalyseOptions.from_request``; the result is the object ``nimmt analyse --format
json`` prints: ``queries.analyse_answer``), ``bot`` (a named bot's card and row choices:
``queries.bot_answer``), ``review`` (one decision judged as ``nimmt review`` judges it:
``queries.review_answer``), ``info`` and ``shutdown``.

Errors keep the engine running: a line that is not JSON gets a parse error with id null,
an unknown method -32601, bad params -32602 with the request's id and one line naming the
problem (the command line's own messages), a search stopped by its budget -32000 with what
it finished as ``data``. Notifications from the client (no ``id``) get no reply. Long
requests send ``progress`` notifications. End of input and ``shutdown`` end the engine
(status 0), Ctrl-C too (status 130; a request under way is answered first, with what it
has or with error -32001).

The envelope is a small dispatcher over ``json`` (no JSON-RPC library: see ENGINE.md).
"""
from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Mapping
from functools import partial
from importlib import metadata
from typing import IO, Any

from ..base.defaults import DEFAULT_MAX_NODES
from ..base.errors import NimmtError, SearchStopped
from ..base.fileio import loads_strict
from ..base.names import Method, Model, Placement, Variant, values
from ..base.notice import work_clock
from ..players.bots import BOT_NAMES, PARAMETERS, parse_bot
from ..positions.position import Position, load_position
from ..search.draftsearch import DRAFTERS
from .options import (
    AnalyseOptions,
    request_cards,
    request_int,
    request_seconds,
    take_params,
)
from .queries import analyse_reporting, bot_answer, review_answer, stopped_json

__all__ = ["INTERNAL_ERROR", "INTERRUPTED", "INVALID_PARAMS", "INVALID_REQUEST",
           "LINE_LIMIT", "METHODS", "METHOD_NOT_FOUND", "PARSE_ERROR", "SEARCH_STOPPED",
           "Engine", "ParamsError"]

# JSON-RPC 2.0's error codes, and the engine's own (-32000..-32099: "server errors")
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SEARCH_STOPPED = -32000   # an exact search stopped by its budget: data holds what it finished
INTERRUPTED = -32001      # Ctrl-C while the request ran; the engine then ends
LINE_LIMIT = 2**20        # bytes a request line may have
METHODS = ("analyse", "bot", "review", "info", "shutdown")
PROTOCOL = "JSON-RPC 2.0, one message per line (UTF-8, newline-terminated)"


class ParamsError(NimmtError):
    """A request's params are not what its method takes (-32602)."""


class _Reply(Exception):
    """An error reply: code, one-line message, optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# ---------------------------------------------------------------- params

_take = partial(take_params, error=ParamsError)
_int = partial(request_int, error=ParamsError)
_seconds = partial(request_seconds, error=ParamsError)
_cards = partial(request_cards, error=ParamsError)


def _position(params: Mapping[str, Any]) -> Position:
    value = params.get("position")
    if not isinstance(value, str):
        raise ParamsError("position is required: the notation, a built-in example's name "
                          "or a position file, as a string")
    _not_stdin(value)
    return load_position(value)


def _not_stdin(value: Any) -> None:
    """The engine's standard input carries its requests: a position is never read there."""
    if isinstance(value, str) and value.strip() == "-":
        raise ParamsError("position \"-\" (standard input) is the engine's request stream; "
                          "give the notation, a built-in example's name or a position file")


# ---------------------------------------------------------------- the engine

class Engine:
    """Reads requests from a byte stream and writes replies to a text stream, one line each.

    ``analyse`` reads its params as ``options.AnalyseOptions.from_request`` (the checks
    and messages of ``nimmt analyse``, the params named as the request names them, never
    as the command line's flags). ``default_bot`` plays ``bot`` requests that name none;
    ``time_limit`` is the seconds a request gets when it gives none; ``progress_interval``
    the seconds between two progress notifications."""

    def __init__(self, output: IO[str], *, default_bot: str | None = None,
                 time_limit: float | None = None, progress_interval: float = 0.5) -> None:
        if default_bot is not None:
            parse_bot(default_bot)  # a bad name is refused at the start
        self.output = output
        self.default_bot = default_bot
        self.time_limit = time_limit
        self.progress_interval = progress_interval
        self.stopping = False      # shutdown asked
        self.interrupted = False   # Ctrl-C
        self.handlers: dict[str, Callable[[dict[str, Any], Any], Any]] = {
            "analyse": self.analyse, "bot": self.bot, "review": self.review,
            "info": self.info, "shutdown": self.shutdown}

    # ---- the loop

    def serve(self, source: IO[bytes]) -> int:
        """Answer every line of ``source`` until its end, ``shutdown`` or Ctrl-C; returns the
        exit status (0, or 130 after Ctrl-C)."""
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            while not (self.stopping or self.interrupted):
                line = source.readline(LINE_LIMIT + 1)
                if not line:
                    break
                if len(line) > LINE_LIMIT and not line.endswith(b"\n"):
                    while (more := source.readline(LINE_LIMIT)) and not more.endswith(b"\n"):
                        pass
                    self._write(self._error(None, INVALID_REQUEST,
                                            f"a request line may have at most {LINE_LIMIT:,} "
                                            "bytes"))
                    continue
                self.handle(line)
        except KeyboardInterrupt:
            self.interrupted = True
        except BrokenPipeError:  # the client went away
            pass
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        return 130 if self.interrupted else 0

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self.interrupted = True
        raise KeyboardInterrupt

    def handle(self, line: bytes | str) -> None:
        """One line: a request, a notification or a batch; writes its reply (if any)."""
        try:
            text = line.decode("utf-8") if isinstance(line, bytes) else line
        except UnicodeDecodeError:
            self._write(self._error(None, PARSE_ERROR, "parse error: the line is not UTF-8"))
            return
        if not text.strip():
            return  # blank lines are ignored
        try:
            message = loads_strict(text)  # a key twice: refused, as in a position file
        except (ValueError, RecursionError) as e:
            self._write(self._error(None, PARSE_ERROR,
                                    f"parse error: {_one_line(str(e))[:120]}"))
            return
        if isinstance(message, list):
            if not message:
                self._write(self._error(None, INVALID_REQUEST, "invalid request: an empty batch"))
                return
            replies = [r for r in (self._one(m) for m in message) if r is not None]
            if replies:
                self._write(replies)
            return
        reply = self._one(message)
        if reply is not None:
            self._write(reply)

    def _one(self, message: Any) -> dict[str, Any] | None:
        """The reply to one request (None for a notification)."""
        if not isinstance(message, dict):
            return self._error(None, INVALID_REQUEST, "invalid request: not a JSON object")
        rid = message.get("id")
        valid_id = rid is None or isinstance(rid, str) or (
            isinstance(rid, (int, float)) and not isinstance(rid, bool))
        if not valid_id:
            return self._error(None, INVALID_REQUEST,
                               "invalid request: id must be a string, a number or null")
        notification = "id" not in message
        if message.get("jsonrpc") != "2.0":
            return None if notification else self._error(
                rid, INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"')
        method = message.get("method")
        if not isinstance(method, str):
            return None if notification else self._error(
                rid, INVALID_REQUEST, "invalid request: method must be a string")
        params = message.get("params", {})
        try:
            if method not in self.handlers:
                raise _Reply(METHOD_NOT_FOUND, f"method not found: {method[:40]!r}; methods: "
                                               f"{', '.join(METHODS)}")
            if not isinstance(params, dict):
                raise _Reply(INVALID_PARAMS, "params are given by name: a JSON object")
            result = self._call(method, params, None if notification else rid)
        except _Reply as e:
            return None if notification else self._error(rid, e.code, e.message, e.data)
        if notification:
            return None
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def _call(self, method: str, params: dict[str, Any], rid: Any) -> Any:
        try:
            return self.handlers[method](dict(params), rid)
        except _Reply:
            raise
        except NimmtError as e:
            # the library's names are the params' (max_nodes, time_limit): never a flag
            raise _Reply(INVALID_PARAMS, _one_line(str(e))) from None
        except KeyboardInterrupt:
            self.interrupted = True
            raise _Reply(INTERRUPTED, "interrupted (Ctrl-C); the engine ends") from None
        except Exception as e:  # a bug: reported, the engine keeps running
            raise _Reply(INTERNAL_ERROR, _one_line(f"internal error: {type(e).__name__}: {e}")
                         ) from None

    def _error(self, rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        return {"jsonrpc": "2.0", "id": rid, "error": error}

    def _write(self, message: Any) -> None:
        self.output.write(json.dumps(message) + "\n")
        self.output.flush()

    def _progress(self, rid: Any, what: str, total: int) -> Callable[[int], None] | None:
        """A progress callback sending ``progress`` notifications (none for notifications),
        at most one per ``progress_interval`` seconds."""
        if rid is None:
            return None
        state = {"done": 0, "last": work_clock()}

        def step(n: int) -> None:
            state["done"] += n
            now = work_clock()
            if now - state["last"] >= self.progress_interval:
                state["last"] = now
                self._write({"jsonrpc": "2.0", "method": "progress",
                             "params": {"id": rid, "what": what, "done": state["done"],
                                        "total": total}})
        return step

    # ---- methods

    def analyse(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        """``nimmt analyse``: the options by name; the result is its JSON."""
        if self.time_limit is not None and not {"time_limit", "time-limit"} & set(params):
            params["time_limit"] = self.time_limit
        _not_stdin(params.get("position"))
        options = AnalyseOptions.from_request(params)
        try:
            answer = analyse_reporting(options.arguments(),
                                       lambda what, total: self._progress(rid, what, total))
        except SearchStopped as e:  # a refusal before it began: bad params
            data = stopped_json(e, options.position, options.opponents)
            raise _Reply(INVALID_PARAMS if data is None else SEARCH_STOPPED, _one_line(str(e)),
                         data) from None
        return answer.to_json()

    def bot(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        """A bot's decision: ``queries.bot_answer``."""
        p = _take(params, ("position", "bot", "seed", "decisions", "turn", "take_rows",
                           "tie_sides", "time_limit"), "bot")
        name = p.get("bot", self.default_bot)
        if not isinstance(name, str):
            raise ParamsError("bot names the bot (e.g. closest or expecti:samples=500); this "
                              "engine was started without a default bot")
        seconds = _seconds(p) or self.time_limit
        spec = parse_bot(name)
        if seconds is not None and "time" in PARAMETERS[spec.name] \
                and spec.params.get("time") is None:
            name = f"{name}{',' if ':' in name else ':'}time={seconds:g}"
        return bot_answer(_position(p), name, seed=_int(p, "seed", 0, 2**63 - 1, None),
                          decisions=_int(p, "decisions", 0, 10**9, 0),
                          turn=_cards(p, "turn"), take_rows=_cards(p, "take_rows"),
                          tie_sides=_cards(p, "tie_sides"))

    def review(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        """One decision judged: ``queries.review_answer``."""
        p = _take(params, ("position", "card", "opponents", "samples", "seed", "time_limit",
                           "max_nodes"), "review")
        card = p.get("card")
        if type(card) is not int:
            raise ParamsError("card is required: the card player 1 played, a whole number")
        opponents = p.get("opponents", Model.RANDOM.value)
        if opponents not in (Model.RANDOM, Model.WORST):
            raise ParamsError(f"opponents must be random or worst; got "
                              f"{json.dumps(opponents)[:40]}")
        seconds = _seconds(p)
        return review_answer(_position(p), card, opponents,
                             samples=_int(p, "samples", 2, 10**9, 2000),
                             seed=_int(p, "seed", 0, 2**63 - 1, None),
                             time_limit=seconds if seconds is not None else self.time_limit,
                             max_nodes=_int(p, "max_nodes", 1, 10**13, DEFAULT_MAX_NODES))

    def info(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        """What this engine is and knows."""
        _take(params, (), "info")
        try:
            version = metadata.version("nimmt")
        except metadata.PackageNotFoundError:
            version = "unknown"
        return {"name": "nimmt", "version": version, "protocol": PROTOCOL,
                "methods": list(METHODS), "variants": values(Variant),
                "placements": values(Placement), "models": values(Model),
                "analysis_methods": values(Method), "drafters": list(DRAFTERS),
                "bots": [{"name": b, "parameters": {k: d for k, (_, d) in
                                                    PARAMETERS[b].items()}}
                         for b in BOT_NAMES],
                "default_bot": self.default_bot, "time_limit": self.time_limit}

    def shutdown(self, params: dict[str, Any], rid: Any) -> None:
        """Answer, then end (status 0)."""
        _take(params, (), "shutdown")
        self.stopping = True
        return None
