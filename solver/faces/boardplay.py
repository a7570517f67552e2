"""The board's play view: a game against bots from the browser, as ``nimmt play`` plays it.

The game is ``players.play.HumanGame`` itself (the deal, the bots, the table, the record, undo
within a round), run in a thread of its own: where the terminal's game asks a question,
``BoardGame`` publishes the decision (the position, or the row choice with its options) and
waits for the page's answer (``answer``: a card, an option, ``undo`` or ``quit``). A hint is
the board's analysis of the published position against the game's hint model (the same
model ``nimmt play``'s hint uses, ``play.hint_model``), run as any analysis on the board.
The record is fetched at any time (a game not finished is marked ``"complete": false``) and
can be opened in the game view for review.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from ..base.deck import DEFAULT_THRESHOLD
from ..base.errors import NimmtError
from ..base.names import Placement, Variant, values
from ..base.rules import Rules, card_cows
from ..players.bots import Moment
from ..players.play import HumanGame, Quit, Undo, option_labels, other_seats
from ..positions.position import Position, format_position
from .boardserver import Board, View, ViewMaker, position_json
from .options import request_int, take_params

__all__ = ["ANSWER_WAIT", "BoardGame", "PLAY_PARAMS", "play_view"]

PLAY_PARAMS = ("variant", "players", "placement", "bots", "seed", "one_round", "threshold")
ANSWER_WAIT = 600.0   # seconds a move request waits for the bots to play up to the next decision


class BoardGame(HumanGame):
    """A ``HumanGame`` whose human is the page: each decision is published in ``state`` and
    answered through ``answer`` (from the server's threads); the game runs in ``thread``."""

    def __init__(self, rules: Rules, specs: list[Any], seed: int) -> None:
        self.log: list[str] = []
        super().__init__(rules, specs, seed, ask=self._no_prompt, say=self._say)
        self.answers: queue.Queue[str] = queue.Queue()
        self.changed = threading.Condition()
        self.version = 0
        self.state: dict[str, Any] = {"kind": "starting"}
        self.thread = threading.Thread(target=self._run, name="board-play", daemon=True)
        self.thread.start()

    def _say(self, text: str) -> None:
        """What the terminal's game says, kept for the page (the terminal's own words
        about prompts dropped: the page has buttons)."""
        self.log.append(text.replace("; type hint at a prompt", ""))

    @staticmethod
    def _no_prompt(prompt: str) -> str | None:
        raise AssertionError("the board's game asks through its state, never a prompt")

    def _publish(self, state: dict[str, Any]) -> None:
        with self.changed:
            self.state = state
            self.version += 1
            self.changed.notify_all()

    def _wait_answer(self, state: dict[str, Any]) -> str:
        self._publish(state)
        answer = self.answers.get()
        if answer == "quit":
            raise Quit
        return answer

    def ask_card(self, position: Position) -> int:
        if len(position.hand) == 1:   # no decision: the rules play it
            return position.hand[0]
        while True:
            answer = self._wait_answer({"kind": "card", "position": position_json(position),
                                        "notation": format_position(position)})
            if answer == "undo":
                raise Undo(2)
            if answer.isdigit() and int(answer) in position.hand:
                return int(answer)
            self.log.append(f"{answer[:20]!r} is not a card of your hand")

    def ask_row(self, moment: Moment) -> int:
        options = [{"option": o, "label": label, "take_row": take, "tie_side": tie}
                   for o, ((take, tie), label) in enumerate(zip(moment.options,
                                                                option_labels(moment)))]
        turn = ",".join(map(str, moment.cards))
        while True:
            answer = self._wait_answer({
                "kind": "row", "position": position_json(moment.position),
                "notation": f"{format_position(moment.position)} turn={turn}",
                "rows": [[{"card": c, "cows": card_cows(c)} for c in row]
                         for row in moment.rows],
                "cards": list(moment.cards), "revealed": self.revealed(moment),
                "options": options})
            if answer == "undo":
                raise Undo(1 if len(moment.position.hand) > 1 else 2)
            if answer == "":
                return -1
            if answer.isdigit() and int(answer) < len(options):
                return int(answer)
            self.log.append(f"{answer[:20]!r} is not an option")

    def _run(self) -> None:
        try:
            self.run()
            self._publish({"kind": "over", "totals": list(self.totals)})
        except Exception as e:  # never a dead game without a word on the page
            self._publish({"kind": "failed", "error": f"{type(e).__name__}: {e}"})

    def answer(self, text: str, wait: float = ANSWER_WAIT) -> dict[str, Any]:
        """Give the page's answer to the decision published, then wait until the game asks
        the next one (the bots play in between) or ends; the new state."""
        with self.changed:
            if self.state["kind"] not in ("card", "row"):
                raise NimmtError(f"the game is not waiting for a decision ({self.state['kind']})")
            seen = self.version
            self.answers.put(text)
            self.changed.wait_for(lambda: self.version != seen, timeout=wait)
        return self.view()

    def view(self) -> dict[str, Any]:
        """What the page shows: the decision asked, the totals, the players, the turns told."""
        with self.changed:
            state = dict(self.state)
        return {**state, "labels": list(self.labels), "totals": list(self.totals),
                "log": self.log[-40:], "hint_model": self.model, "hint_note": self.model_note,
                "finished": self.finished}

    def stop(self) -> None:
        """End the game's thread (a new game, or the server stopping)."""
        if self.state["kind"] in ("card", "row", "starting"):
            self.answers.put("quit")


def _new_game(body: Mapping[str, Any]) -> BoardGame:
    """A game from the page's options, checked now (a 400 for a bad one)."""
    p = take_params(body, PLAY_PARAMS, "play")
    variant = p.get("variant", Variant.TACTICAL.value)
    placement = p.get("placement", Placement.NORMAL.value)
    players = request_int(p, "players", 2, 10, 2)
    bots = p.get("bots", "closest")
    if not isinstance(bots, str):
        raise NimmtError("bots names the other seats' bots, separated by commas")
    specs = other_seats(bots, players)
    one_round = p.get("one_round", False)
    if not isinstance(one_round, bool):
        raise NimmtError("one_round is true or false")
    rules = Rules(variant, players, placement,
                  request_int(p, "threshold", 1, 10_000, DEFAULT_THRESHOLD), one_round)
    return BoardGame(rules, specs, request_int(p, "seed", 0, 2**63 - 1, 0))


def play_view() -> ViewMaker:
    """The play view; the game's record is ``board.shared["play_record"]()`` for the game
    view to open."""
    games: dict[str, BoardGame] = {}

    def make(board: Board) -> View:
        def current() -> BoardGame:
            game = games.get("game")
            if game is None:
                raise NimmtError("no game under way: start one")
            return game

        def new(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            game = _new_game(body)
            old = games.get("game")
            if old is not None:
                old.stop()
            games["game"] = game
            with game.changed:
                game.changed.wait_for(lambda: game.version > 0, timeout=ANSWER_WAIT)
            return game.view()

        def state(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            return current().view()

        def move(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            p = take_params(body, ("answer",), "move")
            answer = p.get("answer")
            if not isinstance(answer, (str, int)) or isinstance(answer, bool):
                raise NimmtError("answer is a card, an option's number, undo or quit")
            return current().answer(str(answer).strip().lower())

        def record(request: Request, body: dict[str, Any]) -> dict[str, Any]:
            return current().record

        board.shared["play_record"] = lambda: current().record
        return View("play", (board.api("/api/play/new", new, ("POST",)),
                             board.api("/api/play", state),
                             board.api("/api/play/move", move, ("POST",)),
                             board.api("/api/play/record", record)),
                    {"variants": values(Variant), "placements": values(Placement)})
    return make
