"""DraftPosition: the logic variant's draft under way, its notation and its order.

In the logic variant the whole deck 1..10n+4 lies face up and the players draft it one
card at a time until each holds 10; the 4 cards left start the rows (RULES.md). A draft
position is written like a position, with ``phase=draft`` and no ``rows``::

    variant=logic players=2 phase=draft hand=3,17,21 p2=6,12,24

(a logic position without ``rows`` is read as a draft too). ``start=P`` (default 1) is the
player who picked first, ``order=round-robin`` (default) or ``order=snake`` the order; the
open pool is every card of the deck not in a hand. The hand sizes must be those of a draft
in that order, with player 1 to pick: positions are analysed from player 1's view.

>>> d = parse_draft("variant=logic players=2 phase=draft hand=3,17 p2=6,12")
>>> d.picks_done, len(d.pool), d.next_pickers[:4]
(4, 20, (0, 1, 0, 1))
>>> format_draft(d)
'variant=logic players=2 phase=draft hand=3,17 p2=6,12'
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from ..base.names import Variant
from ..base.rules import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLACEMENTS,
    ROW_COUNT,
    NimmtError,
    card_cows,
    check_placement,
    check_players,
    clip,
    deck_size,
    plural,
)
from .position import (
    HAND_KEYS,
    Position,
    field_cards,
    field_name,
    field_number,
    load_fields,
    position_from_mapping,
)

__all__ = ["DRAFT_EXAMPLES", "DRAFT_KEYS", "DraftPosition", "ORDERS", "ROUND_ROBIN",
           "draft_from_mapping", "draft_problems", "format_draft", "hand_sizes_after", "is_draft",
           "load_any", "parse_draft", "pick_order", "picker", "render_draft"]

ROUND_ROBIN, SNAKE = "round-robin", "snake"
ORDERS = (ROUND_ROBIN, SNAKE)
PHASE = "draft"
DRAFT_KEYS = ("variant", "players", "placement", "phase", "start", "order", "hand", "scores")
Hand = tuple[int, ...]

# Built-in draft positions (usable wherever a draft position is asked for).
DRAFT_EXAMPLES = {
    # nimmt deal --variant logic --players 2 --phase draft --picks-done 14 --drafters cheap
    # --seed 4
    "example-draft": "variant=logic players=2 phase=draft hand=2,3,4,7,13,14,21 "
                     "p2=6,8,9,12,16,18,19",
    "example-draft-start": "variant=logic players=2 phase=draft",
}


# ---------------------------------------------------------------- the order

def picker(pick: int, players: int, start: int = 1, order: str = ROUND_ROBIN) -> int:
    """The player (0-based: 0 is player 1) who makes pick number ``pick`` (0-based).

    Round robin: start, start+1, ..., then again from start. Snake: forth, then back
    (start, ..., start-1, start-1, ..., start), and so on.

    >>> [picker(i, 3, start=2) for i in range(6)]
    [1, 2, 0, 1, 2, 0]
    >>> [picker(i, 3, start=2, order="snake") for i in range(6)]
    [1, 2, 0, 0, 2, 1]
    """
    turn, seat = divmod(pick, players)
    if order == SNAKE and turn % 2:
        seat = players - 1 - seat
    return (start - 1 + seat) % players


def pick_order(players: int, start: int = 1, order: str = ROUND_ROBIN,
               first: int = 0) -> tuple[int, ...]:
    """The pickers (0-based) of picks ``first`` .. the last (10 per player)."""
    return tuple(picker(i, players, start, order) for i in range(first, HAND_SIZE * players))


def hand_sizes_after(picks: int, players: int, start: int = 1,
                     order: str = ROUND_ROBIN) -> tuple[int, ...]:
    """How many cards each player holds after ``picks`` picks (player 1 first).

    >>> hand_sizes_after(4, 3, start=3)
    (1, 1, 2)
    """
    sizes = [0] * players
    for i in range(picks):
        sizes[picker(i, players, start, order)] += 1
    return tuple(sizes)


# ---------------------------------------------------------------- the checks
# As position.py's: one small function per family, each returning one-line messages; the
# constructor raises the first, ``draft_problems`` lists them all.

def _rule_problems(variant: Any, players: Any, placement: Any, start: Any,
                   order: Any) -> list[str]:
    found = []
    if variant != Variant.LOGIC:
        found.append(f"variant={clip(variant)}: only the logic variant is drafted; give "
                     "variant=logic (or rows=... for a position after the deal)")
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        found.append(f"players={clip(players)} is outside 2..10; give a player count from 2 "
                     "to 10")
        return found
    if placement not in PLACEMENTS:
        found.append(f"unknown placement {clip(placement)}; use one of {', '.join(PLACEMENTS)}")
    if type(start) is not int or not 1 <= start <= players:
        shown = start if type(start) is int else clip(start)
        found.append(f"start={shown} is not a player; give the player who picked first, "
                     f"1..{players}")
    if order not in ORDERS:
        found.append(f"unknown order {clip(order)}; use one of {', '.join(ORDERS)}")
    return found


def _card_problems(players: int, hands: tuple[Hand, ...]) -> list[str]:
    top = deck_size(Variant.LOGIC, players)
    found = []
    seen: dict[int, str] = {}
    for i, hand in enumerate(hands):
        where = "hand" if i == 0 else f"p{i + 1}"
        for card in hand:
            if type(card) is not int:
                found.append(f"card {clip(card)} in {where} is not a card number")
            elif not 1 <= card <= top:
                found.append(f"card {card} in {where} is outside the logic deck 1..{top} for "
                             f"{players} players")
            elif card in seen:
                found.append(f"card {card} appears twice ({seen[card]} and {where}); every "
                             "card is drafted once")
            else:
                seen[card] = where
    return found


def _size_text(sizes: Sequence[int]) -> str:
    return ", ".join(f"{'hand' if i == 0 else f'p{i + 1}'} {s}" for i, s in enumerate(sizes))


def _order_problems(players: int, hands: tuple[Hand, ...], start: int, order: str,
                    pool: Hand) -> list[str]:
    """The hand sizes: those of a draft in this order after as many picks as the hands
    hold, with player 1 to pick (and the draft not over)."""
    sizes = tuple(len(h) for h in hands)
    done = sum(sizes)
    if len(hands) != players:
        return [f"{len(hands)} hands for {players} players; give hand and p2..p{players}"]
    if any(s > HAND_SIZE for s in sizes):
        return ["a hand holds more than 10 cards; the draft ends when every hand holds 10"]
    if done == HAND_SIZE * players:
        rows = "/".join(map(str, pool))
        return [f"every hand holds 10 cards: the draft is over; give the position after it, "
                f"with rows={rows} (the {ROW_COUNT} cards left) and without phase=draft"]
    how = f"a {order} draft from player {start}"
    expected = hand_sizes_after(done, players, start, order)
    if sizes != expected:
        return [f"hand sizes ({_size_text(sizes)}) do not fit {how}: after {done} picks "
                f"they are {_size_text(expected)}; check the hands, start and order"]
    who = picker(done, players, start, order)
    if who != 0:
        return [f"it is player {who + 1}'s pick (pick {done + 1} of {how}), not player 1's; "
                f"a draft is analysed from the view of the player to pick: number the "
                f"players so that it is player 1 (and set start)"]
    return []


def _score_problems(players: int, scores: tuple[Any, ...]) -> list[str]:
    if len(scores) != players:
        return [f"scores lists {len(scores)} totals for {players} players; give one total per "
                "player, player 1 first"]
    if not all(type(s) is int and s >= 0 for s in scores):
        return ["scores must be whole numbers, not negative, player 1 first"]
    return []


def _check(variant: Any, players: Any, placement: Any, hands: tuple[Hand, ...], start: Any,
           order: Any, scores: tuple[Any, ...]) -> tuple[list[str], Hand]:
    found = _rule_problems(variant, players, placement, start, order)
    if found:
        return found, ()
    cards = _card_problems(players, hands)
    found = cards + _score_problems(players, scores)
    held = {c for h in hands for c in h if type(c) is int}
    pool = tuple(c for c in range(1, deck_size(Variant.LOGIC, players) + 1) if c not in held)
    if not cards:
        found = _order_problems(players, hands, start, order, pool) + found
    return found, pool


def _sorted(cards: Sequence[Any]) -> Hand:
    try:
        return tuple(sorted(cards))
    except TypeError:
        return tuple(cards)


@dataclass(frozen=True)
class DraftPosition:
    """The logic variant's draft with player 1 to pick: every hand (face up), the order.

    ``hands[0]`` is player 1's; ``pool`` (derived) is the open pool, every card of the
    deck in no hand. Checked when built, like ``Position``: the constructor raises
    ``NimmtError`` with the first of ``draft_problems``.
    """

    players: int
    hands: tuple[Hand, ...]
    start: int = 1
    order: str = ROUND_ROBIN
    placement: str = "normal"
    scores: tuple[int, ...] = ()
    variant: str = Variant.LOGIC.value
    pool: Hand = field(init=False, default=(), compare=False)  # derived

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "hands", tuple(_sorted(h) for h in self.hands))
        put(self, "scores", tuple(self.scores) or (0,) * (self.players
                                                           if type(self.players) is int else 0))
        found, pool = _check(self.variant, self.players, self.placement, self.hands,
                             self.start, self.order, self.scores)
        if found:
            raise NimmtError(found[0])
        put(self, "pool", pool)

    # ---- derived facts
    @property
    def hand(self) -> Hand:
        return self.hands[0]

    @property
    def picks_done(self) -> int:
        return sum(len(h) for h in self.hands)

    @property
    def picks_left(self) -> int:
        return HAND_SIZE * self.players - self.picks_done

    @property
    def next_pickers(self) -> tuple[int, ...]:
        """The pickers (0-based) of every pick left, player 1's first."""
        return pick_order(self.players, self.start, self.order, self.picks_done)

    @property
    def deck_size(self) -> int:
        return deck_size(self.variant, self.players)

    @property
    def professional(self) -> bool:
        return self.placement == "professional"

    @property
    def picks_until_own(self) -> int:
        """Picks of the others between player 1's pick now and its next (0: none left)."""
        rest = self.next_pickers[1:]
        return rest.index(0) if 0 in rest else len(rest)

    # ---- picks
    def after(self, cards: Sequence[int]) -> DraftPosition | Position:
        """The draft after ``cards``, the next picks in order (player 1's first), up to
        player 1's next pick (a DraftPosition) or the end of the draft (the Position of
        the round's first turn: the 4 cards left start the rows, ascending)."""
        pickers = self.next_pickers
        if not 1 <= len(cards) <= len(pickers):
            raise NimmtError(f"give 1 to {len(pickers)} picks")
        hands = [list(h) for h in self.hands]
        pool = set(self.pool)
        for card, who in zip(cards, pickers):
            if card not in pool:
                raise NimmtError(f"card {card} is not in the open pool")
            pool.remove(card)
            hands[who].append(card)
        if len(cards) == len(pickers):
            return Position.make(players=self.players, rows=[[c] for c in sorted(pool)],
                                 hand=hands[0], variant=self.variant, placement=self.placement,
                                 others={i + 1: h for i, h in enumerate(hands[1:], 1)},
                                 scores=self.scores)
        if pickers[len(cards)] != 0:
            raise NimmtError(f"after these {len(cards)} picks it is player "
                             f"{pickers[len(cards)] + 1}'s pick; give the picks up to player "
                             "1's next")
        return DraftPosition(self.players, tuple(map(tuple, hands)), self.start, self.order,
                             self.placement, self.scores)

    @classmethod
    def make(cls, *, players: int, hands: Sequence[Sequence[int]] = (), start: int = 1,
             order: str = ROUND_ROBIN, placement: str = "normal",
             scores: Sequence[int] | None = None) -> DraftPosition:
        """Validate and build; ``hands`` player 1 first (missing hands are empty).

        >>> DraftPosition.make(players=3, hands=[[], [], [30]], start=3).next_pickers[:3]
        (0, 1, 2)
        """
        check_players(players)
        check_placement(placement)
        given = [tuple(h) for h in hands]
        if len(given) > players:
            raise NimmtError(f"{len(given)} hands for {players} players")
        given += [()] * (players - len(given))
        return cls(players, tuple(given), start, order, placement,
                   tuple(scores) if scores is not None else ())


def draft_problems(*, players: Any, hands: Sequence[Sequence[Any]] = (), start: Any = 1,
                   order: Any = ROUND_ROBIN, placement: Any = "normal", variant: Any = "logic",
                   scores: Sequence[Any] | None = None) -> list[str]:
    """Every problem of a would-be draft position, one line each, without raising.

    >>> draft_problems(players=2, hands=[[1, 2], [2]])
    ['card 2 appears twice (hand and p2); every card is drafted once']
    """
    given = [_sorted(h) for h in hands]
    if type(players) is int and len(given) < players:
        given += [()] * (players - len(given))
    n = players if type(players) is int else 0
    return _check(variant, players, placement, tuple(given), start, order,
                  tuple(scores) if scores is not None else (0,) * n)[0]


# ---------------------------------------------------------------- the notation

def is_draft(data: Mapping[str, Any]) -> bool:
    """Do these keys describe a draft: ``phase=draft``, or the logic variant without rows?"""
    return "phase" in data or (data.get("variant") == Variant.LOGIC and "rows" not in data)


def draft_from_mapping(data: Mapping[str, Any]) -> DraftPosition:
    """Build a draft position from key -> value (the notation's strings or JSON values).
    Without ``phase``, a message also says that a logic position without rows is read as
    a draft."""
    try:
        return _draft_from_mapping(data)
    except NimmtError as e:
        if "phase" in data:
            raise
        raise NimmtError(f"{e} (a logic position without rows is read as a draft; give rows=... "
                         "for a position of the round)") from None


def _draft_from_mapping(data: Mapping[str, Any]) -> DraftPosition:
    phase = field_name("phase", data.get("phase", PHASE), PHASE)
    if phase != PHASE:
        raise NimmtError(f"phase={clip(phase)}: the only phase to give is phase=draft (a "
                         "position with rows is the round after the draft)")
    if "rows" in data:
        raise NimmtError("rows given mid-draft: the rows start with the 4 cards left when "
                         "the draft is over; drop rows (or drop phase=draft)")
    if "gone" in data:
        raise NimmtError("gone given mid-draft: no card is taken before the round; drop gone")
    unknown = [k for k in data if k not in DRAFT_KEYS and k not in HAND_KEYS]
    if unknown:
        raise NimmtError(f"unknown key {clip(unknown[0])} in a draft position; keys are "
                         f"{', '.join(DRAFT_KEYS)}, p2..p10")
    if "players" not in data:
        raise NimmtError("missing players=...; a draft position needs players, for example "
                         "variant=logic players=2 phase=draft hand=3 p2=17")
    players = field_number("players", data["players"])
    check_players(players)
    variant = field_name("variant", data.get("variant", Variant.LOGIC.value), "logic")
    if variant != Variant.LOGIC:
        raise NimmtError(f"variant={clip(variant)}: only the logic variant is drafted; give "
                         "variant=logic (or rows=... for a position after the deal)")
    extra = [k for k in HAND_KEYS if k in data and int(k[1:]) > players]
    if extra:
        raise NimmtError(f"{extra[0]} given but players={players}; give hands only for "
                         f"p2..p{players}")
    hands = [field_cards("hand", data["hand"]) if "hand" in data else ()]
    hands += [field_cards(f"p{i}", data[f"p{i}"]) if f"p{i}" in data else ()
              for i in range(2, players + 1)]
    scores = field_cards("scores", data["scores"]) if "scores" in data else None
    start = field_number("start", data["start"]) if "start" in data else 1
    return DraftPosition.make(players=players, hands=hands, start=start,
                              order=field_name("order", data.get("order", ROUND_ROBIN),
                                               ROUND_ROBIN),
                              placement=field_name("placement", data.get("placement", "normal"),
                                                   "normal"),
                              scores=scores)


def parse_draft(text: str) -> DraftPosition:
    """Parse a draft position's notation."""
    from .position import notation_fields

    return draft_from_mapping(notation_fields(text))


def format_draft(draft: DraftPosition) -> str:
    """The canonical notation: defaults and empty hands left out, hands ascending."""
    parts = [f"variant={draft.variant}", f"players={draft.players}", f"phase={PHASE}"]
    if draft.placement != "normal":
        parts.append(f"placement={draft.placement}")
    if draft.start != 1:
        parts.append(f"start={draft.start}")
    if draft.order != ROUND_ROBIN:
        parts.append(f"order={draft.order}")
    for i, hand in enumerate(draft.hands):
        if hand:
            parts.append(f"{'hand' if i == 0 else f'p{i + 1}'}={','.join(map(str, hand))}")
    if any(draft.scores):
        parts.append(f"scores={','.join(map(str, draft.scores))}")
    return " ".join(parts)


def load_any(argument: str) -> Position | DraftPosition:
    """A POSITION argument that may also be a draft position: the notation, a built-in
    example's name, or a JSON file with the same keys."""
    from .position import EXAMPLES

    data = load_fields(argument, {**EXAMPLES, **DRAFT_EXAMPLES})
    if is_draft(data):
        return draft_from_mapping(data)
    return position_from_mapping(data)


# ---------------------------------------------------------------- drawing

def render_draft(draft: DraftPosition) -> str:
    """The open pool (with cows), the hands and whose picks come next."""
    n = draft.players
    head = (f"logic, {n} players, {draft.placement} placement — draft, pick "
            f"{draft.picks_done + 1} of {HAND_SIZE * n} ({draft.order} from player "
            f"{draft.start}); your pick")
    by_cows: dict[int, list[int]] = {}
    for c in draft.pool:
        by_cows.setdefault(card_cows(c), []).append(c)
    table = [[plural(cows, "cow"), " ".join(map(str, cards)), len(cards)]
             for cows, cards in sorted(by_cows.items())]
    lines = [head, "", f"open pool: {plural(len(draft.pool), 'card')} "
             f"({plural(sum(map(card_cows, draft.pool)), 'cow')})",
             tabulate(table, headers=["cows", "cards", "count"], tablefmt="simple"), ""]
    for i, hand in enumerate(draft.hands):
        who = "hand (you)" if i == 0 else f"p{i + 1}"
        lines.append(f"{who}: " + (" ".join(map(str, hand)) or "(none yet)")
                     + f"  [{plural(len(hand), 'card')}, "
                     f"{plural(sum(map(card_cows, hand)), 'cow')}]")
    upcoming = draft.next_pickers[:2 * n]
    lines.append("next picks: " + ", ".join("you" if p == 0 else f"p{p + 1}" for p in upcoming)
                 + (", ..." if len(draft.next_pickers) > len(upcoming) else ""))
    lines.append(f"the last {ROW_COUNT} cards of the pool start the rows")
    if any(draft.scores):
        lines.append("scores before this round: " + ", ".join(
            f"p{i}={s}" for i, s in enumerate(draft.scores, 1)))
    return "\n".join(lines)
