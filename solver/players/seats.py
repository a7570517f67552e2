"""A round at a table: the deal of a round and the checked game loop every bot plays in.

``Table`` plays rounds with one policy (``solver.players.bots``) per seat. Every decision is
asked from the seat's own view (a ``Position`` whose player 1 is that seat: its hand, the
rows, the cards gone, its score first; hidden hands form the pool except in logic) and
checked by the engine: a card not in the hand, a row option that does not exist or a bot
that raises is an ``ArenaError`` naming the bot, the seat and the position, never replaced.
A card with more than one option (a low card, a professional tie) is settled when it
reaches the rows, by its owner's ``choose_option`` (``kernels.turns.walk_turn``).

Deals come from (seed, deal, round) alone (``deal_cards``, ``deal_round``) and bots are
seeded from words of it (``bot_seed``), so a result never depends on how many processes
play it. The arena, the bot model and the human game all play at this table.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from ..base.errors import NimmtError
from ..base.names import Variant
from ..base.notice import work_clock
from ..base.rules import HAND_SIZE, ROW_COUNT, Rules
from ..kernels import engine
from ..kernels.turns import walk_turn
from ..positions.draft import ROUND_ROBIN
from ..positions.position import Position, format_position
from ..search.draftsearch import draft_round, drafted_round
from .policy import Bot, Moment, Seen
from .records import GameRecorder

__all__ = ["ArenaError", "Table", "bot_seed", "deal_cards", "deal_round"]


class ArenaError(NimmtError):
    """A bot broke the rules or failed: which bot, which seat, which position."""


def deal_cards(rules: Rules, seed: int, deal: int, round_index: int,
               drafters: Sequence[str] | None = None) -> tuple[list[int], list[list[int]]]:
    """The 4 starting row cards and the hands of round ``round_index`` of deal ``deal``,
    from (seed, deal, round) alone. The logic variant's hands are dealt the same way (an
    open draft by players picking at random gives every split with the same chance) unless
    ``drafters`` names a drafter per seat: then they draft, round robin from seat
    round_index mod n, as the engine's games do."""
    if drafters is not None:
        return draft_round(rules, drafters, round_index % rules.players,
                           bot_seed(seed, deal, round_index))
    rng = np.random.default_rng([seed, deal, round_index])
    cards = (rng.permutation(rules.deck_size) + 1).tolist()
    n = rules.players
    hands = [sorted(cards[HAND_SIZE * p:HAND_SIZE * (p + 1)]) for p in range(n)]
    return cards[HAND_SIZE * n:HAND_SIZE * n + ROW_COUNT], hands


def deal_round(rules: Rules, seed: int, deal: int, round_index: int,
               drafters: Sequence[str] | None = None
               ) -> tuple[list[int], list[list[int]], dict | None]:
    """``deal_cards``, with the draft as a game record keeps it when ``drafters`` draft
    (``{"start": seat 1-based, "order": "round-robin", "picks": cards in pick order}``),
    else None."""
    if drafters is None:
        return (*deal_cards(rules, seed, deal, round_index), None)
    start = round_index % rules.players
    rows, hands, picks = drafted_round(rules, drafters, start,
                                       bot_seed(seed, deal, round_index))
    return rows, hands, {"start": start + 1, "order": ROUND_ROBIN, "picks": picks}


def bot_seed(*words: int) -> int:
    """A bot's or a draft's seed from words (seed, deal, round or rotation, bot): the same
    words give the same seed in any process."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0] >> 1)


class Table:
    """A round in play: rows, every hand, the cards gone, the scores before it."""

    # ---- game records: when set, told every resolved turn
    recorder: GameRecorder | None = None
    # ---- end game records

    def __init__(self, rules: Rules, rows: Sequence[int], hands: Sequence[Sequence[int]],
                 policies: Sequence[Bot], scores: Sequence[int] | None = None,
                 labels: Sequence[str] | None = None) -> None:
        self.rules = rules
        self.rows: tuple[tuple[int, ...], ...] = tuple((int(c),) for c in rows)
        self.hands = [sorted(int(c) for c in h) for h in hands]
        self.policies = list(policies)
        self.labels = list(labels) if labels else [str(p.spec) for p in policies]
        self.scores = list(scores) if scores is not None else [0] * rules.players
        self.gone: list[int] = []
        self.cows = [0] * rules.players
        # False for a table set up mid-round whose cows taken before are unknown: the views
        # then carry no taken= (the win objective refuses them)
        self.taken_known = True
        # True in a whole game (not one round): the views carry the threshold, so that a
        # bot with the win objective plays for the game (docs/DESIGN.md section 3)
        self.in_game = False
        self.times: list[list[float]] = [[] for _ in range(rules.players)]
        # the turns played at this table: the rows before each and every seat's card
        self.history: list[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]] = []

    def view(self, seat: int) -> Position:
        """The position as ``seat`` sees it (that seat is player 1)."""
        n = self.rules.players
        order = [(seat + j) % n for j in range(n)]
        known = self.rules.variant == Variant.LOGIC
        others = {j + 1: self.hands[order[j]] for j in range(1, n)} if known else None
        return Position.make(players=n, rows=self.rows, hand=self.hands[seat],
                             variant=self.rules.variant, placement=self.rules.placement,
                             others=others, gone=self.gone,
                             scores=[self.scores[s] for s in order],
                             taken=([self.cows[s] for s in order] if self.taken_known
                                    else None),
                             threshold=self.rules.threshold if self.in_game else None)

    def seen(self, seat: int) -> tuple[Seen, ...]:
        """The turns played at this table as ``seat`` saw them (its card first)."""
        n = self.rules.players
        return tuple(Seen(rows, tuple(cards[(seat + j) % n] for j in range(n)))
                     for rows, cards in self.history)

    def _fail(self, seat: int, position: Position, what: str) -> ArenaError:
        return ArenaError(f"bot {self.labels[seat]} (seat {seat + 1}) {what}; position: "
                          f"{format_position(position)}")

    def _ask(self, seat: int, position: Position, ask: Callable[[], object]) -> object:
        try:
            return ask()
        except KeyboardInterrupt:
            raise
        except Exception as e:  # a bot's failure is reported, never replaced
            detail = str(e) or type(e).__name__
            raise self._fail(seat, position, f"failed: {type(e).__name__}: {detail}") from e

    def play_turn(self) -> None:
        """One turn: every seat's card, then the row choices as the cards reach the rows."""
        views = [self.view(s) for s in range(self.rules.players)]
        forced = len(self.hands[0]) == 1
        cards = [self._card(s, views[s], forced) for s in range(self.rules.players)]
        take, tie = self._row_choices(views, cards, forced)
        self._settle(cards, take, tie)

    def _card(self, seat: int, view: Position, forced: bool) -> int:
        """``seat``'s card for this turn, asked from its policy and checked; its time kept
        unless the card is forced."""
        see = getattr(self.policies[seat], "see", None)  # a program's bot has no see
        if see is not None:
            see(self.seen(seat))
        t0 = work_clock()
        decision = self._ask(seat, view, partial(self.policies[seat].choose, view))
        if not forced:
            self.times[seat].append(work_clock() - t0)
        card = getattr(decision, "card", None)
        if card not in self.hands[seat]:
            raise self._fail(seat, view, f"played {card!r}, which is not in its hand")
        return int(card)

    def _row_choices(self, views: list[Position], cards: list[int], forced: bool
                     ) -> tuple[list[int], list[int]]:
        """Every seat's row choice (take_rows, tie_sides; -1 rule-following), asked from its
        policy as its card reaches the rows (turns.walk_turn)."""
        n = self.rules.players
        take, tie = [-1] * n, [-1] * n
        for s, rows, options in walk_turn(self.rows, cards, self.rules.professional, take, tie):
            seats = [(s + j) % n for j in range(n)]
            moment = Moment(views[s], tuple(cards[q] for q in seats),
                            tuple(take[q] for q in seats), tuple(tie[q] for q in seats),
                            rows, options)
            t0 = work_clock()
            option = self._ask(s, views[s], partial(self.policies[s].choose_option, moment))
            if self.times[s] and not forced:
                self.times[s][-1] += work_clock() - t0
            if not isinstance(option, (int, np.integer)) or not -1 <= option < len(options):
                raise self._fail(s, views[s], f"chose row option {option!r} for {cards[s]}; "
                                 f"it has options 0..{len(options) - 1} (or -1)")
            if option >= 0:
                take[s], tie[s] = options[int(option)]
        return take, tie

    def _settle(self, cards: list[int], take: list[int], tie: list[int]) -> None:
        """Resolve the turn: the rows, the cards gone, the cows, the hands."""
        outcome = engine.resolve_turn(self.rows, cards, self.rules.professional, take, tie)
        if self.recorder is not None:  # ---- game records
            self.recorder.turn(cards, take, tie, outcome.cows)
        self.history.append((self.rows, tuple(cards)))
        on_table = {c for r in outcome.rows for c in r}
        self.gone += [c for c in [*(c for r in self.rows for c in r), *cards]
                      if c not in on_table]
        self.rows = outcome.rows
        for s in range(self.rules.players):
            self.cows[s] += outcome.cows[s]
            self.hands[s].remove(cards[s])

    def play(self, turns_to_play: int | None = None) -> list[int]:
        """Play the round out (or that many turns); returns each seat's cows."""
        for _ in range(turns_to_play if turns_to_play is not None else len(self.hands[0])):
            self.play_turn()
        return self.cows
