"""Position: the immutable value every command works on, and its notation.

Notation (docs/DESIGN.md section 2)::

    variant=tactical players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 gone=1,2,4,5,6,8,9,10,11

``parse_position`` and ``format_position`` are a pair: ``format_position`` gives
the canonical string and ``parse_position(format_position(p)) == p``.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .rules import (HAND_SIZE, MAX_PLAYERS, ROW_COUNT, ROW_LIMIT, NimmtError, check_placement,
                    check_players, check_variant, clip, cut, deck_size)

if TYPE_CHECKING:  # the engine (numba) loads only when a turn is played: `show` stays quick
    from .engine import TurnOutcome

__all__ = ["EXAMPLES", "KEYS", "Position", "format_position", "load_position", "parse_position",
           "position_from_mapping"]

# Built-in positions, usable wherever a POSITION is asked for (dealt by `nimmt deal`).
EXAMPLES = {
    "example": "variant=tactical players=2 rows=3,6/5,10/8,11,21/16,19,23 hand=4,14,15,18,20 "
               "p2=2,13,17,22,24 gone=1,7,9,12",
    "example-3p": "variant=tactical players=3 rows=1,6,16/4,20,21/7,14,22,33/30,34 "
                  "hand=2,3,11,25 gone=5,12,13,15,17,18,24,26,27,28",
    "example-pro": "variant=tactical players=2 placement=professional "
                   "rows=24/13,18,20,21,22/2,3,5,9,10/7,11,14 hand=1,6,8,17,23 p2=4,12,15,16,19",
    "example-logic": "variant=logic players=3 rows=3,5,24,29,33/23/2/1,9,10,20 hand=6,11,13,25 "
                     "p2=15,21,27,32 p3=8,18,19,26 gone=4,7,12,14,16,17,22,28,30,31,34",
    "example-standard": "variant=standard players=4 rows=74,101/2,3,34/52/45,46 "
                        "hand=12,16,26,29,48,61,62,96,104",
}

KEYS = ("variant", "players", "placement", "rows", "hand", "gone", "scores")
HAND_KEYS = tuple(f"p{i}" for i in range(2, MAX_PLAYERS + 1))
Hand = tuple[int, ...]


@dataclass(frozen=True)
class Position:
    """A moment of a round from player 1's view: rows, hands (None where unknown), gone.

    ``hands[0]`` is player 1's hand; ``hands[i]`` is player i+1's, or None when hidden.
    Build it with ``parse_position`` or ``Position.make``; both validate.
    """

    variant: str
    players: int
    placement: str
    rows: tuple[Hand, ...]
    hands: tuple[Hand | None, ...]
    gone: Hand = ()
    scores: tuple[int, ...] = ()
    pool: Hand = field(default=(), compare=False)  # derived: cards that may be in hidden hands

    @classmethod
    def make(cls, *, players: int, rows: Sequence[Sequence[int]], hand: Sequence[int],
             variant: str = "tactical", placement: str = "normal",
             others: Mapping[int, Sequence[int]] | None = None,
             gone: Sequence[int] = (), scores: Sequence[int] | None = None) -> "Position":
        """Validate and build. ``others`` maps player number (2..) to a known hand.

        >>> p = Position.make(players=2, rows=[[3, 7, 12], [14, 16], [19, 20, 21], [23]],
        ...                   hand=[13, 18, 22], gone=[1, 2, 4, 5, 6, 8, 9, 10, 11])
        >>> p.hands[1]  # tactical, 2 players: the other hand is what is left of 1..24
        (15, 17, 24)
        """
        check_variant(variant)
        check_players(players)
        check_placement(placement)
        others = dict(others or {})
        for number in others:
            if not 2 <= number <= players:
                raise NimmtError(f"p{number} given but players={players}; "
                                 f"give hands only for p2..p{players}")
        hands = [tuple(sorted(hand))] + [
            tuple(sorted(others[i])) if i in others else None for i in range(2, players + 1)]
        if not hand:
            raise NimmtError("hand is empty; give player 1's cards, e.g. hand=1,15,22")
        scores = tuple(scores) if scores is not None else (0,) * players
        position = cls(variant, players, placement, tuple(tuple(r) for r in rows),
                       tuple(hands), tuple(sorted(gone)), scores)
        return position._validated()

    # ---- derived facts
    @property
    def hand(self) -> Hand:
        return self.hands[0]

    @property
    def cards_left(self) -> int:
        """k: the cards each player still holds."""
        return len(self.hand)

    @property
    def deck_size(self) -> int:
        return deck_size(self.variant, self.players)

    @property
    def professional(self) -> bool:
        return self.placement == "professional"

    @property
    def hidden_players(self) -> tuple[int, ...]:
        """Indices (0-based) of players whose hands are not known."""
        return tuple(i for i, h in enumerate(self.hands) if h is None)

    @property
    def all_known(self) -> bool:
        return not self.hidden_players

    def _validated(self) -> "Position":
        top = self.deck_size
        k = len(self.hand)
        if len(self.rows) != ROW_COUNT:
            raise NimmtError(f"rows has {len(self.rows)} rows; give exactly 4 rows separated by '/'")
        for number, row in enumerate(self.rows, 1):
            if not row:
                raise NimmtError(f"row {number} is empty; every row holds 1 to 5 cards")
            if len(row) > ROW_LIMIT:
                raise NimmtError(f"row {number} holds {len(row)} cards; a row holds at most 5 "
                                 "(the sixth card takes the row)")
            if any(a >= b for a, b in zip(row, row[1:])):
                raise NimmtError(f"row {number} ({','.join(map(str, row))}) is out of order; "
                                 "list a row's cards in table order, ascending")
        if not 0 <= k <= HAND_SIZE:  # 0: the end of a round, reached by apply_turn
            raise NimmtError(f"hand holds {k} cards; give player 1's 1 to 10 cards")
        for i, h in enumerate(self.hands[1:], 2):
            if h is not None and len(h) != k:
                raise NimmtError(f"p{i} holds {len(h)} cards but hand holds {k}; "
                                 "every player holds the same number of cards")
        if len(self.scores) != self.players:
            raise NimmtError(f"scores lists {len(self.scores)} totals for {self.players} players; "
                             "give one total per player, player 1 first")
        if any(s < 0 for s in self.scores):
            raise NimmtError("scores must not be negative; give each player's cows so far")
        places = [("rows", c) for r in self.rows for c in r] + [("gone", c) for c in self.gone]
        places += [("hand" if i == 0 else f"p{i + 1}", c)
                   for i, h in enumerate(self.hands) if h is not None for c in h]
        seen: dict[int, str] = {}
        for where, card in places:
            if not 1 <= card <= top:
                raise NimmtError(f"card {card} in {where} is outside the {self.variant} deck "
                                 f"1..{top} for {self.players} players")
            if card in seen:
                raise NimmtError(f"card {card} appears twice ({seen[card]} and {where}); "
                                 "every card is in one place")
            seen[card] = where
        pool = tuple(c for c in range(1, top + 1) if c not in seen)
        hidden = len(self.hidden_players)
        played = self.players * (HAND_SIZE - k) + ROW_COUNT
        on_table = sum(len(r) for r in self.rows) + len(self.gone)
        if self.variant == "standard":
            if len(pool) < k * hidden:
                raise NimmtError(f"only {len(pool)} unseen cards for {hidden} hidden hands of {k}; "
                                 "remove cards from rows/gone or give the hands")
            if on_table > played:
                raise NimmtError(f"rows and gone hold {on_table} cards, but with {k} cards in hand "
                                 f"at most {played} can have been played; check hand and gone")
            if on_table < played:  # every card played is on a row or in a penalty pile
                raise NimmtError(
                    f"rows and gone hold {on_table} cards, but at turn {HAND_SIZE + 1 - k} of 10 "
                    f"({k} in hand) the {ROW_COUNT} starting cards and {self.players} players x "
                    f"{HAND_SIZE - k} turns make {played}, each on a row or taken; list every "
                    "taken card in gone")
        else:
            if len(pool) != k * hidden:
                raise NimmtError(
                    f"the {self.variant} deck 1..{top} leaves {len(pool)} unplaced cards, but "
                    f"{hidden} hidden hand(s) of {k} need {k * hidden}; list every taken card "
                    "in gone (the deck is all in play)")
            if hidden == 1:  # the one hidden hand is exactly the pool
                hands = tuple(pool if h is None else h for h in self.hands)
                return replace(self, hands=hands, pool=())
            if self.variant == "logic" and hidden:
                raise NimmtError("logic variant: every hand is drafted face up; give p2.."
                                 f"p{self.players}")
        return replace(self, pool=pool) if pool != self.pool else self

    # ---- turns
    def apply_turn(self, cards: Sequence[int], take_rows: Sequence[int] | None = None,
                   tie_sides: Sequence[int] | None = None) -> tuple["Position", "TurnOutcome"]:
        """Play ``cards[p]`` for every player p (0 = player 1); returns the new position
        and what happened. Row choices default to the rule-following choice.

        >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
        ...                    "gone=1,2,4,5,6,8,9,10,11")
        >>> q, outcome = p.apply_turn([13, 15])
        >>> outcome.cows, q.rows[0], q.hand, q.hands[1]
        ((0, 0), (3, 7, 12, 13, 15), (18, 22), (17, 24))
        """
        if len(cards) != self.players:
            raise NimmtError(f"give one card per player ({self.players}), got {len(cards)}")
        if len(set(cards)) != len(cards):
            raise NimmtError("two players cannot play the same card")
        for i, card in enumerate(cards):
            holding = self.hands[i] if self.hands[i] is not None else self.pool
            if card not in holding:
                who = "player 1" if i == 0 else f"player {i + 1}"
                raise NimmtError(f"{who} cannot play {card}: not in its hand"
                                 + ("" if self.hands[i] is not None else " nor in the pool"))
        from .engine import resolve_turn

        outcome = resolve_turn(self.rows, cards, self.professional, take_rows, tie_sides)
        on_table = {c for r in outcome.rows for c in r}
        taken = [c for c in [*(c for r in self.rows for c in r), *cards] if c not in on_table]
        hands = tuple(None if h is None else tuple(c for c in h if c != cards[i])
                      for i, h in enumerate(self.hands))
        after = Position(self.variant, self.players, self.placement, outcome.rows, hands,
                         tuple(sorted(self.gone + tuple(taken))), self.scores)
        return after._validated(), outcome


_NUMBER = re.compile(r"-?[0-9]+", re.ASCII)  # ASCII digits only; a minus sign is refused later
_LONGEST = 9  # digits: no card, player count or score is longer


def _whole(key: str, text: str, what: str) -> int:
    """One number of the notation: ASCII digits only (no '_', '+', spaces or other scripts'
    digits, which ``int`` would accept)."""
    if not _NUMBER.fullmatch(text):
        raise NimmtError(f"{key}={clip(text)} {what}")
    if len(text.lstrip("-").lstrip("0")) > _LONGEST:
        raise NimmtError(f"{key}={clip(text)} is far too large; give a card, count or score")
    return int(text)


def _cards(key: str, text: str) -> Hand:
    if text == "":
        return ()
    what = ": cards are numbers (digits 0-9) separated by commas, for example hand=1,15,22"
    items = text.split(",")
    if "" in items:
        raise NimmtError(f"{key}={clip(text)}: cards are numbers with one comma between two "
                         "cards (a space splits tokens: write lists without spaces, e.g. "
                         "hand=1,15,22)")
    if not all(_NUMBER.fullmatch(c) for c in items):
        raise NimmtError(f"{key}={clip(text)}{what}")
    return tuple(_whole(key, c, what) for c in items)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON true is not 1


def position_from_mapping(data: Mapping[str, Any]) -> Position:
    """Build from key -> value: strings as in the notation, or JSON values: whole numbers
    (not true/false, not 2.5), lists of card numbers, ``rows`` a list of 4 lists."""
    unknown = [k for k in data if k not in KEYS and k not in HAND_KEYS]
    if unknown:
        raise NimmtError(f"unknown key {clip(unknown[0])}; keys are {', '.join(KEYS)}, p2..p10")

    def cards(key):
        value = data[key]
        if isinstance(value, str):
            return _cards(key, value)
        if isinstance(value, list) and all(_is_int(c) for c in value):
            return tuple(value)
        raise NimmtError(f"{key} must be a list of card numbers (whole numbers), "
                         f"got {cut(json.dumps(value))}")

    def number(key):
        value = data[key]
        if isinstance(value, str):
            return _whole(key, value, "is not a whole number; write it in digits 0-9, "
                                      "e.g. players=3")
        if _is_int(value):
            return value
        raise NimmtError(f"{key}={cut(json.dumps(value))} is not a whole number; "
                         "give e.g. players=3")

    def name(key, default):
        value = data.get(key, default)
        if not isinstance(value, str):
            raise NimmtError(f"{key} must be a name, e.g. {key}={default}; got "
                             f"{cut(json.dumps(value))}")
        return value

    for key in ("players", "rows", "hand"):
        if key not in data:
            raise NimmtError(f"missing {key}=...; a position needs players, rows and hand, "
                             "for example: players=2 rows=3/20/41/50 hand=1,15,22")
    raw_rows = data["rows"]
    if isinstance(raw_rows, str):
        rows = [_cards("rows", r) for r in raw_rows.split("/")]
    elif isinstance(raw_rows, list) and all(isinstance(r, list) for r in raw_rows):
        rows = [tuple(r) for r in raw_rows]
        if not all(_is_int(c) for r in rows for c in r):
            raise NimmtError("rows must be 4 lists of card numbers (whole numbers)")
    else:
        raise NimmtError("rows must be 4 rows separated by '/', e.g. rows=3,7/20/41,44/50")
    players = number("players")
    check_players(players)
    others = {int(k[1:]): cards(k) for k in HAND_KEYS if k in data}
    scores = None
    if "scores" in data:
        scores = cards("scores") if isinstance(data["scores"], str) else data["scores"]
        if not isinstance(scores, (list, tuple)) or not all(_is_int(s) for s in scores):
            raise NimmtError("scores must be whole numbers, player 1 first")
    return Position.make(players=players, rows=rows, hand=cards("hand"),
                         variant=name("variant", "tactical"),
                         placement=name("placement", "normal"), others=others,
                         gone=cards("gone") if "gone" in data else (), scores=scores)


_LIST_CHARS = re.compile(r"[0-9,/]+", re.ASCII)
LIST_KEYS = ("rows", "hand", "gone", "scores") + HAND_KEYS


def parse_position(text: str) -> Position:
    """Parse the notation; raises NimmtError naming the problem and the fix."""
    data: dict[str, str] = {}
    last = ""
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep or not key:
            if last in LIST_KEYS and _LIST_CHARS.fullmatch(token):  # "rows=3, 6/..."
                raise NimmtError(f"{clip(token)} after {last}=... is not key=value: a space "
                                 f"splits tokens; write {last} without spaces, e.g. "
                                 f"{cut(last + '=' + data[last] + token)}")
            raise NimmtError(f"{clip(token)} is not key=value; write for example players=2 "
                             "rows=3/20/41/50 hand=1,15,22")
        if key in data:
            raise NimmtError(f"{cut(key)} is given twice; give each key once")
        data[key] = value
        last = key
    if not data:
        raise NimmtError("empty position; write for example players=2 rows=3/20/41/50 "
                         "hand=1,15,22")
    return position_from_mapping(data)


def format_position(position: Position) -> str:
    """The canonical notation: defaults left out, hands and gone ascending."""
    def cards(cs):
        return ",".join(map(str, cs))

    parts = [f"variant={position.variant}", f"players={position.players}"]
    if position.placement != "normal":
        parts.append(f"placement={position.placement}")
    parts.append("rows=" + "/".join(cards(r) for r in position.rows))
    parts.append(f"hand={cards(position.hand)}")
    parts += [f"p{i}={cards(h)}" for i, h in enumerate(position.hands[1:], 2) if h is not None]
    if position.gone:
        parts.append(f"gone={cards(position.gone)}")
    if any(position.scores):
        parts.append(f"scores={cards(position.scores)}")
    return " ".join(parts)


POSITION_FILE_LIMIT = 2**20  # bytes: a position file is a few hundred


def load_position(argument: str) -> Position:
    """A POSITION argument: the notation, a built-in example's name, or the path of a
    JSON file with the same keys. An example's name wins over a file of that name (write
    ``./example`` for the file; a note on stderr says so)."""
    from .fileio import note, read_json

    if argument.strip() in EXAMPLES:
        if os.path.lexists(argument):
            note(f"{argument} is the built-in example; write ./{argument} to read the file "
                 "of that name")
        return parse_position(EXAMPLES[argument.strip()])
    if argument.strip().endswith(".json") or (os.path.lexists(argument) and "=" not in argument):
        data = read_json(argument, "position file", POSITION_FILE_LIMIT)
        if not isinstance(data, dict):
            raise NimmtError(f"{argument} must hold a JSON object with the position's keys")
        return position_from_mapping(data)
    return parse_position(argument)
