"""Bots in another process: a program speaking the engine protocol plays a seat.

``nimmt arena --bot-command NAME="CMD ..."`` names an external bot the way chess
tournament managers name engines: the arena starts ``CMD`` once per worker process
(``engine_process``), asks it for every decision of bot NAME with the protocol's ``bot``
method (docs/ENGINE.md) and shuts it down at the end (``close_engines``; a worker that
ends closes the program's input, which ends it too). The arena checks its moves as it
checks every bot's: an illegal card or row option, a crash, an error reply or no reply
within ``timeout`` seconds stops the run with one line naming the bot, its seat and the
position.

The request carries the seat's view in the notation, the bot's seed (the arena's, per
game and bot) and the count of decisions it has made with it, so that a program running
nimmt's own bots (``nimmt engine --default-bot closest``) plays exactly as the bot in
process does.
"""
from __future__ import annotations

import json
import os
import re
import selectors
import shlex
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..base.errors import NimmtError, param
from ..positions.position import Position, format_position
from .bots import BOT_NAMES, Bot, BotSpec, Decision, Moment, make_policy, parse_bot, split_bot_list

__all__ = ["DEFAULT_TIMEOUT", "EngineProcess", "ExternalBot", "ExternalBotError", "ExternalSpec",
           "close_engines", "engine_process", "parse_arena_bots", "parse_bot_commands",
           "policy_for"]

DEFAULT_TIMEOUT = 60.0   # seconds a decision may take (start-up included)
SHUTDOWN_WAIT = 5.0      # seconds a program gets to end after shutdown
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")


class ExternalBotError(NimmtError):
    """An external bot crashed, answered with an error or not in time."""


@dataclass(frozen=True)
class ExternalSpec(BotSpec):
    """Bot ``name`` played by the program ``command`` (split as a shell would)."""

    command: str = ""
    timeout: float = DEFAULT_TIMEOUT

    def __str__(self) -> str:
        return self.name

    @property
    def searches(self) -> bool:
        return True  # played through the arena's game loop


def parse_bot_commands(items: list[str] | tuple[str, ...],
                       timeout: float = DEFAULT_TIMEOUT) -> dict[str, ExternalSpec]:
    """``NAME=CMD ...`` items (``--bot-command``) -> name -> spec; one line when bad."""
    out: dict[str, ExternalSpec] = {}
    for item in items:
        name, eq, command = str(item).partition("=")
        name = name.strip()
        flag = param("bot_command")
        if not eq or not NAME.fullmatch(name):
            raise NimmtError(f"{flag} takes NAME=\"CMD ...\" (NAME: a letter, then letters, "
                             f"digits, _ . -); got {str(item)[:40]!r}")
        if name in BOT_NAMES:
            raise NimmtError(f"{flag} {name}: {name} is a built-in bot; give the external one "
                             "another name")
        if name in out:
            raise NimmtError(f"{flag} {name} is given twice")
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise NimmtError(f"{flag} {name}: cannot split the command: {e}") from None
        if not argv:
            raise NimmtError(f"{flag} {name}: give the command to run after {name}=")
        out[name] = ExternalSpec(name, {}, command, timeout)
    return out


def parse_arena_bots(text: str, externals: Mapping[str, ExternalSpec]) -> list[BotSpec]:
    """A bot list whose items are built-in bots (``parse_bot``) or external bots' names."""
    specs: list[BotSpec] = []
    for item in split_bot_list(text):
        specs.append(externals[item] if item in externals else parse_bot(item))
    if not specs:
        raise NimmtError(f"name at least one bot: {', '.join(BOT_NAMES)}")
    return specs


# ---------------------------------------------------------------- the process

class EngineProcess:
    """A program speaking the engine protocol, started once; one request at a time."""

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT,
                 label: str = "") -> None:
        self.command, self.timeout, self.label = command, timeout, label or command
        self.errors = tempfile.TemporaryFile()  # its stderr, for the message if it crashes
        try:
            self.process = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self.errors,
                                            start_new_session=True)
        except OSError as e:
            raise ExternalBotError(f"cannot start {command[:60]!r}: {e.strerror or e}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stdout, selectors.EVENT_READ)
        self.buffer = b""
        self.next_id = 0
        self.owner = os.getpid()  # a forked worker starts its own
        self.silent = False  # a request went unanswered: close ends it at once

    def _stderr_tail(self) -> str:
        self.errors.seek(0)
        lines = self.errors.read().decode("utf-8", "replace").strip().splitlines()
        return f" (its last line on stderr: {lines[-1][:120]})" if lines else ""

    def _gone(self, what: str) -> ExternalBotError:
        try:  # its output closed: it is ending, or has ended
            code = self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        status = f"exited with status {code}" if code is not None else "closed its output"
        return ExternalBotError(f"{what}: the program {status}{self._stderr_tail()}")

    def _line(self, deadline: float) -> bytes:
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                self.silent = True
                raise ExternalBotError(f"no reply within {self.timeout:g} s")
            chunk = os.read(self.stdout.fileno(), 65536)
            if not chunk:
                raise self._gone("no reply")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send one request and wait for its reply (notifications are skipped); the
        result, or an ExternalBotError."""
        self.next_id += 1
        rid = self.next_id
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": dict(params)}
        try:
            self.stdin.write((json.dumps(message) + "\n").encode())
            self.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._gone("cannot send the request") from None
        deadline = time.monotonic() + self.timeout
        while True:
            line = self._line(deadline)
            try:
                reply = json.loads(line)
            except ValueError:
                raise ExternalBotError(f"replied with a line that is not JSON: "
                                       f"{line[:60]!r}") from None
            if not isinstance(reply, dict) or "id" not in reply:
                continue  # a notification (progress)
            if reply["id"] != rid:
                raise ExternalBotError(f"replied to id {str(reply['id'])[:20]}, not to {rid}")
            if "error" in reply:
                error = reply["error"] if isinstance(reply["error"], dict) else {}
                raise ExternalBotError(f"replied with error {error.get('code')}: "
                                       f"{str(error.get('message'))[:200]}")
            if "result" not in reply:
                raise ExternalBotError("replied without a result")
            return reply["result"]

    def close(self) -> None:
        """``shutdown``, then end the program if it does not end by itself; a program
        that already left a request unanswered is ended at once (it would not answer
        ``shutdown`` either, and waiting for it cost the caller ten seconds)."""
        if self.process.poll() is None and self.silent:
            self.process.kill()
            self.process.wait()
        elif self.process.poll() is None:
            try:
                self.timeout = SHUTDOWN_WAIT
                self.request("shutdown", {})
            except (NimmtError, OSError):
                pass
            try:
                self.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(SHUTDOWN_WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.selector.close()
        self.errors.close()


_ENGINES: dict[tuple[str, float], EngineProcess] = {}


def engine_process(spec: ExternalSpec) -> EngineProcess:
    """This process's running program for ``spec`` (started on first use, once)."""
    key = (spec.command, spec.timeout)
    running = _ENGINES.get(key)
    if running is not None and running.owner != os.getpid():
        running = None
    if running is None or running.process.poll() is not None:
        if running is not None:
            running.close()  # it crashed: the error was reported; a new game starts anew
        running = _ENGINES[key] = EngineProcess(spec.command, spec.timeout, spec.name)
        try:  # a worker process closes its programs when it ends
            from multiprocessing import util

            util.Finalize(None, close_engines, exitpriority=10)
        except ImportError:  # pragma: no cover
            pass
    return running


def close_engines() -> None:
    """Shut down every program this process started."""
    while _ENGINES:
        _, running = _ENGINES.popitem()
        if running.owner == os.getpid():
            running.close()


# ---------------------------------------------------------------- the bot

class ExternalBot(Bot):
    """A seat played by an external program: ``bot`` requests with the seat's view, the
    bot's seed and its decision count (the reply's ``decisions`` carried to the next)."""

    def __init__(self, spec: ExternalSpec, seed: int = 0) -> None:
        super().__init__(spec, seed)
        self.external = spec

    def _ask(self, position: Position, **more: Any) -> dict[str, Any]:
        reply = engine_process(self.external).request(
            "bot", {"position": format_position(position), "seed": self.seed,
                    "decisions": self.decisions, **more})
        if not isinstance(reply, dict):
            raise ExternalBotError(f"replied with {str(reply)[:60]}, not an object")
        decisions = reply.get("decisions", self.decisions + 1)
        self.decisions = decisions if type(decisions) is int else self.decisions + 1
        return reply

    def choose(self, position: Position) -> Decision:
        reply = self._ask(position)
        card = reply.get("card")
        if type(card) is not int:
            raise ExternalBotError(f"replied without a card: {json.dumps(reply)[:80]}")
        take, tie = reply.get("take_row", -1), reply.get("tie_side", -1)
        return Decision(card, take if type(take) is int else -1,
                        tie if type(tie) is int else -1)

    def choose_option(self, moment: Moment) -> int:
        reply = self._ask(moment.position, turn=list(moment.cards),
                          take_rows=list(moment.take_rows), tie_sides=list(moment.tie_sides))
        option = reply.get("option")
        if type(option) is not int:
            raise ExternalBotError(f"replied without an option: {json.dumps(reply)[:80]}")
        return option


def policy_for(spec: BotSpec, seed: int = 0) -> Bot:
    """``bots.make_policy``, and external bots (``ExternalSpec``) too."""
    if isinstance(spec, ExternalSpec):
        return ExternalBot(spec, seed)
    return make_policy(spec, seed)
