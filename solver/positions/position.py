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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base.rules import (
    DEFAULT_THRESHOLD,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLACEMENTS,
    ROW_COUNT,
    ROW_LIMIT,
    VARIANTS,
    NimmtError,
    card_cows,
    check_placement,
    check_players,
    check_variant,
    clip,
    cut,
    deck_size,
)

if TYPE_CHECKING:  # the engine (numba) loads only when a turn is played: `show` stays quick
    from ..kernels.engine import TurnOutcome

__all__ = ["EXAMPLES", "HAND_KEYS", "KEYS", "Position", "field_cards", "field_name",
           "field_number", "format_position", "load_fields", "load_position", "notation_fields",
           "parse_position", "position_from_mapping", "turn_problems"]

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

KEYS = ("variant", "players", "placement", "rows", "hand", "gone", "scores", "threshold", "taken",
        "turn")
HAND_KEYS = tuple(f"p{i}" for i in range(2, MAX_PLAYERS + 1))
Hand = tuple[int, ...]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON true is not 1


# ---------------------------------------------------------------- the checks
# One function per rule family, each returning its problems as one-line messages (empty
# when the family holds). They never raise: ``problems`` lists them all, construction
# raises the first. The order of the families (and of the messages in each) is the order
# in which a caller should fix them, so the first message is the one to show.


def _rule_problems(variant: Any, players: Any, placement: Any) -> list[str]:
    """The table's rules: a known variant and placement, 2 to 10 players (rules.py's
    messages). Nothing else can be judged without them: the deck depends on both."""
    if (variant in VARIANTS and placement in PLACEMENTS and type(players) is int
            and MIN_PLAYERS <= players <= MAX_PLAYERS):
        return []  # the usual case, quickly
    found = []
    for check, value in ((check_variant, variant), (check_players, players),
                         (check_placement, placement)):
        if check is check_players and not _is_int(players):
            found.append(f"players={clip(players)} is not a whole number; give e.g. players=3")
            continue
        try:
            check(value)
        except NimmtError as e:
            found.append(str(e))
    return found


def _input_problems(players: int, hand: Sequence[int], others: Mapping[int, Any]) -> list[str]:
    """What ``Position.make``'s caller gives: hands only for p2..pN, and a hand for player 1
    (a hand of 0 cards, the end of a round, is reached only by ``apply_turn``)."""
    found = [f"p{number} given but players={players}; give hands only for p2..p{players}"
             for number in others if not 2 <= number <= players]
    if not hand:
        found.append("hand is empty; give player 1's cards, e.g. hand=1,15,22")
    return found


def _row_problems(rows: tuple[Hand, ...]) -> list[str]:
    """The table: exactly 4 rows, each of 1 to 5 cards in ascending (table) order."""
    try:
        if len(rows) == ROW_COUNT and all(0 < len(r) <= ROW_LIMIT and r == tuple(sorted(set(r)))
                                          for r in rows):
            return []  # the usual case, quickly
    except TypeError:
        pass  # not all numbers: looked at row by row below
    found = []
    if len(rows) != ROW_COUNT:
        found.append(f"rows has {len(rows)} rows; give exactly 4 rows separated by '/'")
    for number, row in enumerate(rows, 1):
        if not row:
            found.append(f"row {number} is empty; every row holds 1 to 5 cards")
            continue
        if len(row) > ROW_LIMIT:
            found.append(f"row {number} holds {len(row)} cards; a row holds at most 5 "
                         "(the sixth card takes the row)")
        try:
            disordered = any(a >= b for a, b in zip(row, row[1:]))
        except TypeError:
            continue  # not all numbers: the card check names the card
        if disordered:
            found.append(f"row {number} ({','.join(map(str, row))}) is out of order; "
                         "list a row's cards in table order, ascending")
    return found


def _size_problems(players: int, hand: Hand, other_hands: tuple[Hand | None, ...]) -> list[str]:
    """The hands: one entry per other player (None where hidden), player 1 holding 0 to 10
    cards, every known hand as many as player 1's."""
    found = []
    if len(other_hands) != players - 1:
        found.append(f"other_hands lists {len(other_hands)} hands for p2..p{players}; give one "
                     "per other player, None where hidden")
    k = len(hand)
    if not 0 <= k <= HAND_SIZE:  # 0: the end of a round, reached by apply_turn
        found.append(f"hand holds {k} cards; give player 1's 1 to 10 cards")
    for i, h in enumerate(other_hands, 2):
        if h is not None and len(h) != k:
            found.append(f"p{i} holds {len(h)} cards but hand holds {k}; "
                         "every player holds the same number of cards")
    return found


def _score_problems(players: int, scores: tuple[int, ...]) -> list[str]:
    """The scores: one whole, non-negative total per player, player 1 first."""
    found = []
    if len(scores) != players:
        found.append(f"scores lists {len(scores)} totals for {players} players; "
                     "give one total per player, player 1 first")
    if not (set(map(type, scores)) <= {int} or all(_is_int(s) for s in scores)):
        found.append("scores must be whole numbers, player 1 first")
    elif any(s < 0 for s in scores):
        found.append("scores must not be negative; give each player's cows so far")
    return found


def _game_over_problems(scores: tuple[int, ...], threshold: int | None) -> list[str]:
    """Scores that already reach the game's threshold (given, else the rules' 66): the
    game ended before this round, so there is no round to play, whatever the objective."""
    limit = DEFAULT_THRESHOLD if threshold is None else threshold
    if not scores or max(scores) < limit:
        return []
    where = "the rules' threshold 66" if threshold is None else f"threshold={threshold}"
    return [f"scores={','.join(map(str, scores))} already reach {where}: the game ended "
            "before this round; give the scores before this round"
            + (" (or the game's threshold=..., if it is higher)" if threshold is None else
               " (each under the threshold)")]


def _threshold_problems(threshold: Any) -> list[str]:
    """The game's threshold (None: not given, the rules' 66): a whole number, at least 1."""
    if threshold is None or (_is_int(threshold) and threshold >= 1):
        return []
    return [f"threshold={clip(threshold)} must be a whole number of cows, at least 1 (the "
            f"rules' is {DEFAULT_THRESHOLD}); e.g. threshold={DEFAULT_THRESHOLD}"]


def _taken_problems(players: int, taken: tuple[int, ...] | None, gone: Hand) -> list[str]:
    """The cows taken so far this round (``taken``, player 1 first; None: not given): one
    whole, non-negative number per player, adding up to the cows of the cards gone (every
    card gone this round lies in someone's penalty pile)."""
    if taken is None:
        return []
    if len(taken) != players:
        return [f"taken lists {len(taken)} numbers for {players} players; give each player's "
                "cows taken so far this round, player 1 first, e.g. taken=3,0"]
    if not all(_is_int(t) for t in taken):
        return ["taken must be whole numbers (cows), player 1 first"]
    if any(t < 0 for t in taken):
        return ["taken must not be negative; give each player's cows taken this round"]
    try:
        gone_cows = sum(card_cows(c) for c in gone)
    except (TypeError, ValueError, IndexError):
        return []  # the card check names the bad card
    if sum(taken) != gone_cows:
        return [f"taken={','.join(map(str, taken))} adds up to {sum(taken)} cows but the cards "
                f"gone hold {gone_cows}; the cows taken this round are the cows of the cards "
                "gone"]
    return []


def _card_problems(variant: str, players: int, rows: tuple[Hand, ...], hand: Hand,
                   other_hands: tuple[Hand | None, ...], gone: Hand) -> tuple[list[str], Hand]:
    """The cards: whole numbers of the deck (1..deck size), each in one place (a row, gone,
    or a known hand). Returns the problems and the pool: the deck's other cards, those
    that may be in hidden hands."""
    top = deck_size(variant, players)
    everything = [c for r in rows for c in r]
    everything += gone
    everything += hand
    for h in other_hands:
        if h is not None:
            everything += h
    placed = set(everything)
    if (len(placed) == len(everything) and set(map(type, everything)) <= {int}
            and (not placed or 1 <= min(placed) and max(placed) <= top)):
        return [], tuple(sorted(set(range(1, top + 1)) - placed))  # the usual case, quickly
    return _card_faults(variant, players, top, rows, hand, other_hands, gone)


def _card_faults(variant: str, players: int, top: int, rows: tuple[Hand, ...], hand: Hand,
                 other_hands: tuple[Hand | None, ...], gone: Hand) -> tuple[list[str], Hand]:
    """``_card_problems`` card by card, where (rows, gone, hand, p2..) names each fault:
    not a whole number, outside the deck 1..``top``, or in two places."""
    found = []
    seen: dict[int, str] = {}
    for where, cards in (("rows", [c for r in rows for c in r]), ("gone", gone), ("hand", hand),
                         *((f"p{i}", h) for i, h in enumerate(other_hands, 2) if h is not None)):
        for card in cards:
            if not _is_int(card):
                found.append(f"card {clip(card)} in {where} is not a card number; give whole "
                             "numbers")
            elif not 1 <= card <= top:
                found.append(f"card {card} in {where} is outside the {variant} deck "
                             f"1..{top} for {players} players")
            elif card in seen:
                found.append(f"card {card} appears twice ({seen[card]} and {where}); "
                             "every card is in one place")
            else:
                seen[card] = where
    return found, tuple(c for c in range(1, top + 1) if c not in seen)


def _count_problems(variant: str, players: int, rows: tuple[Hand, ...], gone: Hand, k: int,
                    hidden: int, pool: Hand) -> list[str]:
    """Gone and the card count: every card played so far (4 to start, one per player per
    turn) is on a row or in gone, and the unseen cards fill the hidden hands — exactly in
    the tactical and logic decks (all in play), at least in the standard deck."""
    top = deck_size(variant, players)
    played = players * (HAND_SIZE - k) + ROW_COUNT
    on_table = sum(len(r) for r in rows) + len(gone)
    if variant != "standard":
        if len(pool) != k * hidden:
            return [f"the {variant} deck 1..{top} leaves {len(pool)} unplaced cards, but "
                    f"{hidden} hidden hand(s) of {k} need {k * hidden}; list every taken card "
                    "in gone (the deck is all in play)"]
        return []
    found = []
    if len(pool) < k * hidden:
        found.append(f"only {len(pool)} unseen cards for {hidden} hidden hands of {k}; "
                     "remove cards from rows/gone or give the hands")
    if on_table > played:
        found.append(f"rows and gone hold {on_table} cards, but with {k} cards in hand "
                     f"at most {played} can have been played; check hand and gone")
    if on_table < played:  # every card played is on a row or in a penalty pile
        found.append(
            f"rows and gone hold {on_table} cards, but at turn {HAND_SIZE + 1 - k} of 10 "
            f"({k} in hand) the {ROW_COUNT} starting cards and {players} players x "
            f"{HAND_SIZE - k} turns make {played}, each on a row or taken; list every "
            "taken card in gone")
    return found


def _hidden_hand_problems(variant: str, players: int, hidden: int) -> list[str]:
    """Hidden hands: the logic variant drafts face up, so at most one hand may be left out
    (it is then inferred)."""
    if variant == "logic" and hidden > 1:
        return [f"logic variant: every hand is drafted face up; give p2..p{players}"]
    return []


def _infer_hidden_hand(variant: str, other_hands: tuple[Hand | None, ...],
                       pool: Hand) -> tuple[tuple[Hand | None, ...], Hand]:
    """(other hands, pool) with the one hidden hand of a tactical or logic position filled
    in: the deck is all in play, so that hand is exactly the pool (which becomes empty)."""
    if variant == "standard" or other_hands.count(None) != 1:
        return other_hands, pool
    return tuple(pool if h is None else h for h in other_hands), ()


def _check(variant: Any, players: Any, placement: Any, rows: tuple[Hand, ...], hand: Hand,
           other_hands: tuple[Hand | None, ...], gone: Hand,
           scores: tuple[int, ...],
           taken: tuple[int, ...] | None = None,
           threshold: Any = None) -> tuple[list[str], Hand]:
    """Every problem of these (normalised) fields, in the order to fix them, and the pool.
    The card count is judged only when the sizes and cards are sound (otherwise it repeats
    their fault); nothing past the rules is judged when the rules are unknown."""
    found = _rule_problems(variant, players, placement)
    if found:
        return found, ()
    found = _row_problems(rows) + _size_problems(players, hand, other_hands)
    found += _score_problems(players, scores) + _threshold_problems(threshold)
    if not found:
        found += _game_over_problems(scores, threshold)
    cards, pool = _card_problems(variant, players, rows, hand, other_hands, gone)
    hidden = other_hands.count(None)
    if not found and not cards:
        found += _count_problems(variant, players, rows, gone, len(hand), hidden, pool)
        found += _taken_problems(players, taken, gone)
    else:
        found += cards
    return found + _hidden_hand_problems(variant, players, hidden), pool


def _sorted_cards(cards: Sequence[int]) -> Hand:
    """A hand or gone as a sorted tuple (as given when it holds something unsortable: the
    card check then names it)."""
    try:
        return tuple(sorted(cards))
    except TypeError:
        return tuple(cards)


@dataclass(frozen=True)
class Position:
    """A moment of a round from player 1's view: rows, hands (None where unknown), gone.

    ``hand`` is player 1's hand; ``other_hands[i]`` is player i+2's, or None when hidden;
    ``hands`` is both in one tuple, player 1 first. ``Position.make`` is the convenient
    way in (keyword arguments, defaults, hands by player number).

    Every Position is valid: the constructor itself checks (``__post_init__``), so there
    is no unchecked value to forget to validate — whether it comes from the notation,
    JSON, ``Position.make``, ``apply_turn`` or a direct call. ``problems`` lists every
    problem of candidate fields without raising (python-chess's ``Board.status()``); the
    constructor raises ``NimmtError`` with the first. Construction normalises (tuples,
    hands and gone sorted), derives ``pool`` (the cards that may be in hidden hands) and
    fills in a tactical or logic position's one hidden hand, which is the pool.
    Validation in the constructor rather than a checked factory beside a raw one: a
    frozen value has one way in, and ``dataclasses.replace`` is checked too.
    """

    variant: str
    players: int
    placement: str
    rows: tuple[Hand, ...]
    hand: Hand
    other_hands: tuple[Hand | None, ...]
    gone: Hand
    scores: tuple[int, ...]
    taken: tuple[int, ...] | None = None  # cows taken this round per player; None: not given
    pool: Hand = field(init=False, default=(), compare=False)  # derived
    # a half-revealed turn (key turn=): every player's card this turn, player 1 first, and
    # player 1's card must choose a row now (no legal end, or a professional tie); () none
    turn: Hand = ()
    # the game's threshold (key threshold=): None when not given (the rules' 66 applies)
    threshold: int | None = None

    def __post_init__(self) -> None:
        put = object.__setattr__  # frozen: the normalised fields are set once, here
        put(self, "rows", tuple(tuple(r) for r in self.rows))
        put(self, "hand", _sorted_cards(self.hand))
        put(self, "other_hands",
            tuple(None if h is None else _sorted_cards(h) for h in self.other_hands))
        put(self, "gone", _sorted_cards(self.gone))
        put(self, "scores", tuple(self.scores))
        if self.taken is not None:
            put(self, "taken", tuple(self.taken))
        found, pool = _check(self.variant, self.players, self.placement, self.rows, self.hand,
                             self.other_hands, self.gone, self.scores, self.taken,
                             self.threshold)
        if found:
            raise NimmtError(found[0])
        other_hands, pool = _infer_hidden_hand(self.variant, self.other_hands, pool)
        put(self, "other_hands", other_hands)
        put(self, "pool", pool)
        put(self, "turn", tuple(self.turn))
        if self.turn:
            found = turn_problems(self)
            if found:
                raise NimmtError(found[0])

    @classmethod
    def make(cls, *, players: int, rows: Sequence[Sequence[int]], hand: Sequence[int],
             variant: str = "tactical", placement: str = "normal",
             others: Mapping[int, Sequence[int]] | None = None,
             gone: Sequence[int] = (), scores: Sequence[int] | None = None,
             taken: Sequence[int] | None = None, turn: Sequence[int] = (),
             threshold: int | None = None) -> Position:
        """Validate and build. ``others`` maps player number (2..) to a known hand;
        ``taken``: each player's cows taken so far this round (None: not given);
        ``threshold``: the game's (None: not given; the rules' 66 applies);
        ``turn`` a half-revealed turn (every player's card, player 1 first).

        >>> p = Position.make(players=2, rows=[[3, 7, 12], [14, 16], [19, 20, 21], [23]],
        ...                   hand=[13, 18, 22], gone=[1, 2, 4, 5, 6, 8, 9, 10, 11])
        >>> p.hands[1]  # tactical, 2 players: the other hand is what is left of 1..24
        (15, 17, 24)
        """
        others = dict(others or {})
        found = _rule_problems(variant, players, placement)
        if not found:
            found = _input_problems(players, hand, others)
        if found:
            raise NimmtError(found[0])
        return cls(variant, players, placement, tuple(tuple(r) for r in rows), tuple(hand),
                   tuple(None if others.get(i) is None else tuple(others[i])
                         for i in range(2, players + 1)), tuple(gone),
                   tuple(scores) if scores is not None else (0,) * players,
                   tuple(taken) if taken is not None else None, turn=tuple(turn),
                   threshold=threshold)

    # ---- derived facts
    @property
    def hands(self) -> tuple[Hand | None, ...]:
        """Every hand, player 1 first (None where hidden)."""
        return (self.hand,) + self.other_hands

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
        return tuple(i for i, h in enumerate(self.other_hands, 1) if h is None)

    @property
    def all_known(self) -> bool:
        return None not in self.other_hands

    @property
    def in_game(self) -> bool:
        """True when the position says it is part of a game: some score is not zero, or
        the threshold is given (the win objective is then the game's, section 3)."""
        return self.threshold is not None or any(self.scores)

    @property
    def game_threshold(self) -> int:
        """The game's threshold: ``threshold`` when given, else the rules' 66."""
        return DEFAULT_THRESHOLD if self.threshold is None else self.threshold

    @property
    def taken_so_far(self) -> tuple[int, ...] | None:
        """Each player's cows taken so far this round: ``taken`` when given, all zero when
        no cow is gone (nothing can have been taken), else None (not known)."""
        if self.taken is not None:
            return self.taken
        if sum(card_cows(c) for c in self.gone) == 0:
            return (0,) * self.players
        return None

    # ---- turns
    def apply_turn(self, cards: Sequence[int], take_rows: Sequence[int] | None = None,
                   tie_sides: Sequence[int] | None = None) -> tuple[Position, TurnOutcome]:
        """Play ``cards[p]`` for every player p (0 = player 1); returns the new position
        and what happened. Row choices default to the rule-following choice.

        >>> p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
        ...                    "gone=1,2,4,5,6,8,9,10,11")
        >>> q, outcome = p.apply_turn([13, 15])
        >>> outcome.cows, q.rows[0], q.hand, q.hands[1]
        ((0, 0), (3, 7, 12, 13, 15), (18, 22), (17, 24))
        """
        self._check_turn_cards(cards)
        from ..kernels.engine import resolve_turn

        outcome = resolve_turn(self.rows, cards, self.professional, take_rows, tie_sides)
        return self._after_turn(cards, outcome), outcome

    def _check_turn_cards(self, cards: Sequence[int]) -> None:
        """Refuse a turn's cards unless each player plays one card of its own (a hidden
        hand: of the pool), no card twice."""
        if len(cards) != self.players:
            raise NimmtError(f"give one card per player ({self.players}), got {len(cards)}")
        if len(set(cards)) != len(cards):
            raise NimmtError("two players cannot play the same card")
        for i, (card, hand) in enumerate(zip(cards, self.hands)):
            if card not in (hand if hand is not None else self.pool):
                who = "player 1" if i == 0 else f"player {i + 1}"
                raise NimmtError(f"{who} cannot play {card}: not in its hand"
                                 + ("" if hand is not None else " nor in the pool"))

    def _after_turn(self, cards: Sequence[int], outcome: TurnOutcome) -> Position:
        """The position after ``cards`` were played with ``outcome``: the cards leave the
        hands, the rows taken go to gone, their cows to ``taken`` (when it is given)."""
        on_table = {c for r in outcome.rows for c in r}
        taken = [c for c in [*(c for r in self.rows for c in r), *cards] if c not in on_table]
        others = tuple(None if h is None else tuple(c for c in h if c != card)
                       for h, card in zip(self.other_hands, cards[1:]))
        before = self.taken  # carried when given (a position without it stays without)
        return Position(self.variant, self.players, self.placement, outcome.rows,
                        tuple(c for c in self.hand if c != cards[0]), others,
                        self.gone + tuple(taken), self.scores,
                        None if before is None else tuple(
                            t + c for t, c in zip(before, outcome.cows)),
                        threshold=self.threshold)


def turn_problems(position: Position) -> list[str]:
    """What is wrong with ``position.turn`` (a half-revealed turn: every player's card,
    player 1 first, player 1's card choosing a row now), as one-line messages; empty when
    it is valid. Pure Python (solver/base/reference.py): checking a position loads no kernel."""
    from ..base import reference

    turn = position.turn
    fix = "give turn=CARDS, one card per player, yours first (e.g. turn=4,13)"
    if len(turn) != position.players:
        return [f"turn={cut(','.join(map(str, turn)))} has {len(turn)} card(s) for "
                f"{position.players} players; {fix}"]
    if len(set(turn)) != len(turn):
        return [f"turn={','.join(map(str, turn))} repeats a card; {fix}"]
    for i, (card, hand) in enumerate(zip(turn, position.hands)):
        where = hand if hand is not None else position.pool
        if card not in where:
            where_text = "its hand" + ("" if hand is not None else " nor in the pool")
            return [f"turn: player {i + 1} cannot play {card}: not in {where_text}; {fix}"]
    mine = turn[0]
    lower = [c for c in turn if c < mine]
    rows = [list(r) for r in position.rows]
    if lower:
        rows, _ = reference.resolve_turn(rows, sorted(lower), position.professional)
    if len(reference.options(rows, mine, position.professional)) < 2:
        return [f"turn={','.join(map(str, turn))}: your card {mine} has one place to go, so "
                "there is no row to choose; a turn= position is player 1's row choice (a card "
                "below every row end, or a professional tie): drop turn= or give such a turn"]
    return []


def problems(*, players: Any, rows: Sequence[Sequence[Any]], hand: Sequence[Any],
             variant: Any = "tactical", placement: Any = "normal",
             others: Mapping[int, Sequence[Any]] | None = None, gone: Sequence[Any] = (),
             scores: Sequence[Any] | None = None,
             taken: Sequence[Any] | None = None, threshold: Any = None) -> list[str]:
    """Every problem of a would-be position (``Position.make``'s arguments) as one-line
    messages, in the order to fix them, without raising; empty when it is valid.
    ``Position.make`` raises ``NimmtError`` with the first.

    >>> for message in problems(players=2, rows=[[3], [20], [41]], hand=[1, 1], scores=[-1, 0]):
    ...     print(message[:40].strip())
    rows has 3 rows; give exactly 4 rows sep
    scores must not be negative; give each p
    card 41 in rows is outside the tactical
    card 1 appears twice (hand and hand); ev
    """
    others = dict(others or {})
    found = _rule_problems(variant, players, placement)
    if found:
        return found
    found = _input_problems(players, hand, others)
    other_hands = tuple(None if others.get(i) is None else _sorted_cards(others[i])
                        for i in range(2, players + 1))
    rest, _ = _check(variant, players, placement, tuple(tuple(r) for r in rows),
                     _sorted_cards(hand), other_hands, _sorted_cards(gone),
                     tuple(scores) if scores is not None else (0,) * players,
                     tuple(taken) if taken is not None else None, threshold)
    return found + rest


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


def field_cards(key: str, value: Any) -> Hand:
    """A card list of the notation (``1,15,22``) or of JSON (a list of whole numbers)."""
    if isinstance(value, str):
        return _cards(key, value)
    if isinstance(value, list) and all(_is_int(c) for c in value):
        return tuple(value)
    raise NimmtError(f"{key} must be a list of card numbers (whole numbers), "
                     f"got {cut(json.dumps(value))}")


def field_number(key: str, value: Any) -> int:
    """A whole number of the notation (ASCII digits) or of JSON (not true, not 2.5)."""
    if isinstance(value, str):
        return _whole(key, value, "is not a whole number; write it in digits 0-9, "
                                  "e.g. players=3")
    if _is_int(value):
        return value
    raise NimmtError(f"{key}={cut(json.dumps(value))} is not a whole number; "
                     "give e.g. players=3")


def field_name(key: str, value: Any, default: str) -> str:
    """A name (variant, placement, ...): a string."""
    if not isinstance(value, str):
        raise NimmtError(f"{key} must be a name, e.g. {key}={default}; got "
                         f"{cut(json.dumps(value))}")
    return value


def position_from_mapping(data: Mapping[str, Any]) -> Position:
    """Build from key -> value: strings as in the notation, or JSON values: whole numbers
    (not true/false, not 2.5), lists of card numbers, ``rows`` a list of 4 lists."""
    unknown = [k for k in data if k not in KEYS and k not in HAND_KEYS]
    if unknown:
        raise NimmtError(f"unknown key {clip(unknown[0])}; keys are {', '.join(KEYS)}, p2..p10")

    def cards(key):
        return field_cards(key, data[key])

    def number(key):
        return field_number(key, data[key])

    def name(key, default):
        return field_name(key, data.get(key, default), default)

    for key in ("players", "rows", "hand"):
        if key not in data:
            raise NimmtError(f"missing {key}=...; a position needs players, rows and hand, "
                             "for example: players=2 rows=3/20/41/50 hand=1,15,22")
    rows = _mapping_rows(data["rows"])
    players = number("players")
    check_players(players)
    others = {int(k[1:]): cards(k) for k in HAND_KEYS if k in data}
    scores = _mapping_whole_numbers(data, "scores",
                                    "scores must be whole numbers, player 1 first")
    taken = _mapping_whole_numbers(data, "taken",
                                   "taken must be whole numbers (cows taken this round), "
                                   "player 1 first, e.g. taken=3,0")
    return Position.make(players=players, rows=rows, hand=cards("hand"),
                         variant=name("variant", "tactical"),
                         placement=name("placement", "normal"), others=others,
                         gone=cards("gone") if "gone" in data else (), scores=scores,
                         taken=taken, turn=cards("turn") if "turn" in data else (),
                         threshold=number("threshold") if "threshold" in data else None)


def _mapping_rows(raw_rows: Any) -> list:
    """``rows`` of a mapping: the notation's rows split at '/', or a list of lists of
    whole numbers."""
    if isinstance(raw_rows, str):
        return [_cards("rows", r) for r in raw_rows.split("/")]
    if isinstance(raw_rows, list) and all(isinstance(r, list) for r in raw_rows):
        rows = [tuple(r) for r in raw_rows]
        if not all(_is_int(c) for r in rows for c in r):
            raise NimmtError("rows must be 4 lists of card numbers (whole numbers)")
        return rows
    raise NimmtError("rows must be 4 rows separated by '/', e.g. rows=3,7/20/41,44/50")


def _mapping_whole_numbers(data: Mapping[str, Any], key: str,
                           message: str) -> list | tuple | None:
    """``key`` of a mapping (scores, taken): the notation's list or a JSON list of whole
    numbers; None when absent; NimmtError(``message``) when not whole numbers."""
    if key not in data:
        return None
    value = field_cards(key, data[key]) if isinstance(data[key], str) else data[key]
    if not isinstance(value, (list, tuple)) or not all(_is_int(v) for v in value):
        raise NimmtError(message)
    return value


_LIST_CHARS = re.compile(r"[0-9,/]+", re.ASCII)
LIST_KEYS = ("rows", "hand", "gone", "scores", "taken", "turn") + HAND_KEYS


def parse_position(text: str) -> Position:
    """Parse the notation; raises NimmtError naming the problem and the fix."""
    return position_from_mapping(notation_fields(text))


def notation_fields(text: str) -> dict[str, str]:
    """The notation's tokens as key -> value (each key once); raises NimmtError naming the
    problem and the fix."""
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
    return data


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
    if position.threshold is not None:
        parts.append(f"threshold={position.threshold}")
    if position.taken is not None:
        parts.append(f"taken={cards(position.taken)}")
    if position.turn:
        parts.append(f"turn={cards(position.turn)}")
    return " ".join(parts)


POSITION_FILE_LIMIT = 2**20  # bytes: a position file is a few hundred


def load_position(argument: str) -> Position:
    """A POSITION argument: the notation, a built-in example's name, the path of a JSON
    file with the same keys, or ``-`` for the notation, an example's name or that JSON on
    standard input. An example's name wins over a file of that name (write ``./example``
    for the file; a note on stderr says so)."""
    return position_from_mapping(load_fields(argument))


def load_fields(argument: str, examples: Mapping[str, str] = EXAMPLES) -> dict[str, Any]:
    """A POSITION argument's keys and values (``load_position`` builds them): the notation,
    a built-in example's name (from ``examples``), a JSON file with the same keys, or ``-``:
    any of the notation, an example's name or that JSON on standard input."""
    from ..base.fileio import STDIN, note, parse_json, read_json, read_stdin

    if argument.strip() == STDIN:  # the notation or JSON, piped in
        text = read_stdin("position", POSITION_FILE_LIMIT).strip()
        if not text:
            raise NimmtError("standard input is empty; pipe a position in (the notation or "
                             "its JSON), e.g. echo example | nimmt analyse -")
        if text in examples:
            return dict(notation_fields(examples[text]))
        if text[0] not in "{[":
            return dict(notation_fields(" ".join(text.split())))  # lines joined by spaces
        data = parse_json(text, "the position on standard input")
        if not isinstance(data, dict):
            raise NimmtError("standard input must hold a JSON object with the position's keys")
        return data
    if argument.strip() in examples:
        if os.path.lexists(argument):
            note(f"{argument} is the built-in example; write ./{argument} to read the file "
                 "of that name")
        return dict(notation_fields(examples[argument.strip()]))
    if argument.strip().endswith(".json") or (os.path.lexists(argument) and "=" not in argument):
        data = read_json(argument, "position file", POSITION_FILE_LIMIT)
        if not isinstance(data, dict):
            raise NimmtError(f"{argument} must hold a JSON object with the position's keys")
        return data
    return dict(notation_fields(argument))
