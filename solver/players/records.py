"""Game records: one JSON format for whole games (docs/DESIGN.md, "Game records").

A record holds the rules, the seats' names, and per round the starting rows, every hand
(and, for a logic round drafted by bots, the draft's picks in order), every turn's cards
and row choices and the cows; ``load_record`` replays each turn with
the engine (``Position.apply_turn``) and raises one ``NimmtError`` line naming the first
illegal move (round, turn, player) or the first figure that does not match the replay.

``GameRecorder`` builds a record while a game is played: the arena's ``Table`` calls its
``turn`` after each resolved turn (``Table.recorder``).
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base.errors import NimmtError
from ..base.fileio import atomic_write_text, read_json
from ..base.names import Placement, Variant, values
from ..base.rules import (
    DEFAULT_THRESHOLD,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    deck_size,
    game_over,
)
from ..positions.draft import ORDERS, ROUND_ROBIN, picker
from ..positions.position import Position

__all__ = ["FORMAT", "RECORD_LIMIT", "VERSION", "GameRecorder", "RecordTurn", "ReplayedRound",
           "build_record", "game_file_name", "load_record", "replay", "replay_draft", "save_record",
           "validate_record"]

FORMAT = "nimmt-game"
VERSION = 1
RECORD_LIMIT = 16 * 2**20  # bytes a record file may have


class GameRecorder:
    """Collects a game as it is played: ``start_round`` with each round's deal, ``turn``
    after each resolved turn (cards, row choices and cows per seat), ``finish`` at the end;
    ``record`` is then the JSON-ready dict."""

    def __init__(self, variant: str, players: int, placement: str, threshold: int,
                 one_round: bool, names: Sequence[str], **extra: Any) -> None:
        self.record: dict[str, Any] = {
            "format": FORMAT, "version": VERSION, "variant": str(variant),
            "players": int(players), "placement": str(placement),
            "threshold": int(threshold), "one_round": bool(one_round),
            "names": [str(n) for n in names], **extra, "rounds": [], "scores": None}

    def start_round(self, rows: Sequence[int], hands: Sequence[Sequence[int]],
                    draft: Mapping[str, Any] | None = None) -> None:
        """A new round: its rows and hands, and (logic, drafted) the draft: ``start`` (the
        seat that picked first, 1-based), ``order`` and ``picks`` (the cards in order)."""
        this: dict[str, Any] = {"rows": [int(c) for c in rows],
                                "hands": [sorted(int(c) for c in h) for h in hands]}
        if draft is not None:
            this["draft"] = {"start": int(draft.get("start", 1)),
                             "order": str(draft.get("order", ROUND_ROBIN)),
                             "picks": [int(c) for c in draft["picks"]]}
        self.record["rounds"].append({**this, "turns": [], "cows": None})

    def turn(self, cards: Sequence[int], take_rows: Sequence[int], tie_sides: Sequence[int],
             cows: Sequence[int]) -> None:
        item: dict[str, Any] = {"cards": [int(c) for c in cards]}
        if any(t != -1 for t in take_rows):
            item["take_rows"] = [int(t) for t in take_rows]
        if any(t != -1 for t in tie_sides):
            item["tie_sides"] = [int(t) for t in tie_sides]
        item["cows"] = [int(c) for c in cows]
        self.record["rounds"][-1]["turns"].append(item)

    def end_round(self) -> None:
        this = self.record["rounds"][-1]
        n = self.record["players"]
        this["cows"] = [sum(t["cows"][s] for t in this["turns"]) for s in range(n)]

    def finish(self) -> dict[str, Any]:
        n = self.record["players"]
        if self.record["rounds"] and self.record["rounds"][-1]["cows"] is None:
            self.end_round()
        self.record["scores"] = [sum(r["cows"][s] for r in self.record["rounds"])
                                 for s in range(n)]
        return self.record


def build_record(variant: str, players: int, placement: str, names: Sequence[str],
                 rounds: Sequence[Mapping[str, Any]], threshold: int = DEFAULT_THRESHOLD,
                 one_round: bool = False, **extra: Any) -> dict[str, Any]:
    """A record from its rounds (each ``{"rows", "hands", "turns": [{"cards", optional
    "take_rows"/"tie_sides"}]}``); the cows and scores come from replaying it, so a
    hand-written game needs no arithmetic. Raises NimmtError on the first illegal move."""
    recorder = GameRecorder(variant, players, placement, threshold, one_round, names, **extra)
    for r in rounds:
        recorder.start_round(r["rows"], r["hands"], r.get("draft"))
        recorder.record["rounds"][-1]["turns"] = [
            {k: list(v) for k, v in t.items() if k != "cows"} for t in r["turns"]]
    record = recorder.record
    for i, replayed in enumerate(replay(record, check_cows=False)):
        this = record["rounds"][i]
        for t, outcome in zip(this["turns"], replayed.turns):
            t["cows"] = list(outcome.cows)
        this["cows"] = list(replayed.cows)
    record["scores"] = [sum(r["cows"][s] for r in record["rounds"]) for s in range(players)]
    return validate_record(record)


# ---------------------------------------------------------------- replay

@dataclass(frozen=True)
class RecordTurn:
    """One replayed turn: the position before it from seat 1's view with every hand
    known, the cards and row choices (per seat, -1 none) and each seat's cows."""

    before: Position
    cards: tuple[int, ...]
    take_rows: tuple[int, ...]
    tie_sides: tuple[int, ...]
    cows: tuple[int, ...]
    after: Position


@dataclass(frozen=True)
class ReplayedRound:
    index: int                       # 0-based
    scores_before: tuple[int, ...]   # per seat
    turns: tuple[RecordTurn, ...]
    cows: tuple[int, ...]
    pickers: tuple[int, ...] = ()    # logic, drafted: the seat (0-based) of each pick
    picks: tuple[int, ...] = ()      # the cards in pick order


def _fail(where: str, message: str) -> NimmtError:
    return NimmtError(f"game record: {where}: {message}")


def _ints(value: Any, where: str, what: str, count: int | None = None) -> list[int]:
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise _fail(where, f"{what} must be a list of whole numbers")
    if count is not None and len(value) != count:
        raise _fail(where, f"{what} lists {len(value)} entries; give one per "
                    + ("row" if count == ROW_COUNT else "player") + f" ({count})")
    return value


def _check_header(record: Any) -> None:
    if not isinstance(record, dict):
        raise NimmtError("game record: not a JSON object; a record starts "
                         f'{{"format": "{FORMAT}", "version": {VERSION}, ...}}')
    if record.get("format") != FORMAT:
        raise NimmtError(f"game record: format is {str(record.get('format'))[:40]!r}, not "
                         f"{FORMAT!r}; is it a game record?")
    if record.get("version") != VERSION:
        raise NimmtError(f"game record: version {str(record.get('version'))[:20]} is not "
                         f"supported; this nimmt reads version {VERSION}")
    if record.get("variant") not in values(Variant):
        raise NimmtError(f"game record: variant must be one of {', '.join(values(Variant))}")
    if record.get("placement", Placement.NORMAL.value) not in values(Placement):
        raise NimmtError(f"game record: placement must be one of "
                         f"{', '.join(values(Placement))}")
    n = record.get("players")
    if type(n) is not int or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise NimmtError(f"game record: players must be a whole number "
                         f"{MIN_PLAYERS}..{MAX_PLAYERS}")
    names = record.get("names")
    if (not isinstance(names, list) or len(names) != n
            or not all(isinstance(x, str) for x in names)):
        raise NimmtError(f"game record: names must list one name per player ({n})")
    threshold = record.get("threshold", DEFAULT_THRESHOLD)
    if type(threshold) is not int or threshold < 1:
        raise NimmtError("game record: threshold must be a whole number, at least 1")
    if type(record.get("one_round", False)) is not bool:
        raise NimmtError("game record: one_round must be true or false")
    if type(record.get("complete", True)) is not bool:
        raise NimmtError("game record: complete must be true or false")
    if not isinstance(record.get("rounds"), list) or not record["rounds"]:
        raise NimmtError("game record: rounds must be a non-empty list")


def replay_draft(draft: Any, rows: list[int], hands: list[list[int]], variant: str,
                 where: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A round's draft (logic) replayed pick by pick: each card must be in the open pool
    when picked; the picks must give every hand of the round and leave its rows
    (ascending). Returns (pickers, picks); NimmtError (one line) at the first fault."""
    n = len(hands)
    if variant != Variant.LOGIC:
        raise _fail(where, "a draft belongs to the logic variant; drop the round's draft")
    if not isinstance(draft, dict):
        raise _fail(where, "draft must be a JSON object with start, order and picks")
    start, order = draft.get("start", 1), draft.get("order", ROUND_ROBIN)
    if type(start) is not int or not 1 <= start <= n:
        raise _fail(where, f"the draft's start must be a player 1..{n}")
    if order not in ORDERS:
        raise _fail(where, f"the draft's order must be {' or '.join(ORDERS)}")
    picks = _ints(draft.get("picks"), where, "the draft's picks")
    if len(picks) != HAND_SIZE * n:
        raise _fail(where, f"the draft lists {len(picks)} picks; a draft of {n} players has "
                    f"{HAND_SIZE * n}")
    deck = deck_size(variant, n)
    when: dict[int, int] = {}
    held: list[list[int]] = [[] for _ in range(n)]
    pickers = []
    for i, card in enumerate(picks):
        p = picker(i, n, start, order)
        at = f"{where}, draft pick {i + 1}"
        if not 1 <= card <= deck:
            raise _fail(at, f"player {p + 1} cannot pick {card}: the deck is 1..{deck}")
        if card in when:
            raise _fail(at, f"player {p + 1} cannot pick {card}: player "
                        f"{picker(when[card], n, start, order) + 1} picked it at pick "
                        f"{when[card] + 1}")
        when[card] = i
        held[p].append(card)
        pickers.append(p)
    for p in range(n):
        if sorted(held[p]) != sorted(hands[p]):
            raise _fail(where, f"the draft's picks give player {p + 1} "
                        f"{','.join(map(str, sorted(held[p])))[:60]}, not the hand listed")
    left = sorted(set(range(1, deck + 1)) - set(when))
    if rows != left:
        raise _fail(where, f"the draft leaves {','.join(map(str, left))} for the rows "
                    f"(ascending), not {','.join(map(str, rows))}")
    return tuple(pickers), tuple(picks)


def replay(record: Mapping[str, Any], check_cows: bool = True) -> list[ReplayedRound]:
    """Every round and turn of ``record`` replayed by the engine; NimmtError (one line) at
    the first illegal move or, with ``check_cows``, the first figure that differs."""
    _check_header(record)
    n = record["players"]
    scores = [0] * n
    out = []
    partial = record.get("complete", True) is False  # a game stopped early (nimmt play)
    for i, this in enumerate(record["rounds"]):
        last = i == len(record["rounds"]) - 1
        replayed = _replay_round(record, i, this, scores, last and partial, check_cows)
        out.append(replayed)
        scores = [a + b for a, b in zip(scores, replayed.cows)]
        if not last:
            _check_game_goes_on(record, i, scores)
    if check_cows and record.get("scores") != scores:
        raise NimmtError(f"game record: scores {str(record.get('scores'))[:60]} differ from "
                         f"the replay's {scores}")
    return out


def _replay_round(record: Mapping[str, Any], i: int, this: Any, scores: list[int],
                  short: bool, check_cows: bool) -> ReplayedRound:
    """Round ``i`` (``this``) replayed from the totals ``scores``: its deal, its draft, its
    turns (fewer than a round's only when ``short``) and, with ``check_cows``, its cows."""
    where = f"round {i + 1}"
    n, variant = record["players"], record["variant"]
    if not isinstance(this, dict):
        raise _fail(where, "a round must be a JSON object with rows, hands and turns")
    rows, hands = _round_deal(this, where, n)
    position = _round_position(record, where, rows, hands, scores)
    pickers, picks = ((), ()) if "draft" not in this else replay_draft(
        this["draft"], rows, hands, variant, where)
    played = this.get("turns")
    if not isinstance(played, list) or not (
            len(played) == HAND_SIZE or short and len(played) < HAND_SIZE):
        raise _fail(where, f"turns must list the round's {HAND_SIZE} turns (fewer only in "
                    'the last round of a record marked "complete": false)')
    turns = _replay_turns(position, played, where, n, check_cows)
    cows = tuple(sum(t.cows[s] for t in turns) for s in range(n))
    if check_cows and this.get("cows") != list(cows):
        raise _fail(where, f"cows {str(this.get('cows'))[:60]} differ from the replay's "
                    f"{list(cows)}")
    return ReplayedRound(i, tuple(scores), tuple(turns), cows, pickers, picks)


def _round_deal(this: dict, where: str, n: int) -> tuple[list[int], list[list[int]]]:
    """A round's starting rows and its ``n`` hands of HAND_SIZE cards."""
    rows = _ints(this.get("rows"), where, "rows", ROW_COUNT)
    hands = this.get("hands")
    if not isinstance(hands, list) or len(hands) != n:
        raise _fail(where, f"hands must list one hand per player ({n})")
    hands = [_ints(h, where, f"player {s + 1}'s hand") for s, h in enumerate(hands)]
    if any(len(h) != HAND_SIZE for h in hands):
        raise _fail(where, f"every hand holds {HAND_SIZE} cards at the start of a round")
    return rows, hands


def _round_position(record: Mapping[str, Any], where: str, rows: list[int],
                    hands: list[list[int]], scores: list[int]) -> Position:
    """The position a round starts from (player 1's view, every hand known); the deal must
    be legal and, outside the standard variant, use the whole deck."""
    n, variant = record["players"], record["variant"]
    placement = record.get("placement", Placement.NORMAL.value)
    threshold = record.get("threshold", DEFAULT_THRESHOLD)
    one_round = record.get("one_round", False)
    try:
        position = Position.make(players=n, rows=[[c] for c in rows], hand=hands[0],
                                 variant=variant, placement=placement,
                                 others={s + 1: hands[s] for s in range(1, n)},
                                 scores=scores,
                                 threshold=None if one_round else threshold)
    except NimmtError as e:
        raise _fail(where, f"the deal is not legal: {e}") from None
    if variant != Variant.STANDARD and len(rows) + sum(map(len, hands)) \
            != deck_size(variant, n):
        raise _fail(where, "the deal does not use the whole deck")
    return position


def _replay_turns(position: Position, played: list, where: str, n: int,
                  check_cows: bool) -> list[RecordTurn]:
    """A round's turns, each applied by the engine; with ``check_cows`` each turn's cows
    must be the replay's."""
    turns = []
    for t, item in enumerate(played):
        at = f"{where}, turn {t + 1}"
        if not isinstance(item, dict):
            raise _fail(at, "a turn must be a JSON object with cards")
        cards = _ints(item.get("cards"), at, "cards", n)
        take = _ints(item.get("take_rows", [-1] * n), at, "take_rows", n)
        tie = _ints(item.get("tie_sides", [-1] * n), at, "tie_sides", n)
        try:
            after, outcome = position.apply_turn(cards, take, tie)
        except NimmtError as e:
            raise _fail(at, str(e)) from None
        if check_cows and item.get("cows") != list(outcome.cows):
            raise _fail(at, f"cows {str(item.get('cows'))[:60]} differ from the replay's "
                        f"{list(outcome.cows)}")
        turns.append(RecordTurn(position, tuple(cards), tuple(take), tuple(tie),
                                outcome.cows, after))
        position = after
    return turns


def _check_game_goes_on(record: Mapping[str, Any], i: int, scores: list[int]) -> None:
    """Refuse a round after round ``i`` when the game had ended there (one round, or a
    total at the threshold)."""
    if (record.get("one_round") is True
            or game_over(scores, record.get("threshold", DEFAULT_THRESHOLD))):
        raise _fail(f"round {i + 2}", "the game had ended (" + (
            "one round" if record.get("one_round") is True else
            f"a total reached {record.get('threshold', DEFAULT_THRESHOLD)}") + ")")


def validate_record(record: Any) -> dict[str, Any]:
    """``record`` itself when every move is legal and every figure matches the replay."""
    replay(record)
    return record


# ---------------------------------------------------------------- files

def save_record(path: str, record: Mapping[str, Any]) -> None:
    """Write one record as JSON, atomically."""
    atomic_write_text(path, json.dumps(record, indent=1) + "\n")


def load_record(path: str) -> dict[str, Any]:
    """Read and validate one record file (NimmtError, one line, naming the file)."""
    data = read_json(path, "game record", RECORD_LIMIT)
    try:
        return validate_record(data)
    except NimmtError as e:
        raise NimmtError(f"{os.path.basename(path)}: {e}") from None


def game_file_name(index: int, deal: int | None = None, rotation: int | None = None) -> str:
    """The file name of a saved game: ``game-000012.json`` (simulate's game 12),
    ``deal-000012-r1.json`` (the arena's deal 12, rotation 1)."""
    if deal is None:
        return f"game-{index:06d}.json"
    return f"deal-{deal:06d}-r{rotation}.json"
