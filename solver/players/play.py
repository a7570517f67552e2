"""A game at the terminal: one human (seat 1) against bots, through the arena's ``Table``.

``HumanGame.run`` deals rounds (``seats.deal_cards`` from (seed, 0, round)), asks the human
through ``ask(prompt) -> str | None`` (None: end of input) and tells through ``say(text)``;
the bots are ``bots.make_policy`` policies seeded like the arena's rotation 0 of deal 0.
At a card prompt the human types a card, ``hint`` (the analysis of this decision), ``why
CARD`` (its value, what it risks this turn, and its worst-case line when that search fits),
``undo`` (back to the previous decision of this round) or ``quit``; the last card of a round
is played without asking. A row choice shows the cards revealed in the turn first (the
chooser sees them, as in the rules) and takes ``hint`` too: each option valued as ``nimmt
analyse`` values a turn= position. Hints value against the seated bots where nimmt has a
model of them (``hint_model``), the random model otherwise, and say which. Every game is recorded
(``records.GameRecorder``); a game stopped early is saved with ``"complete": false`` and its
last round's turns so far.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from ..base.defaults import LINE_NODES
from ..base.errors import NimmtError, param
from ..base.rules import MAX_PLAYERS, Rules, card_cows, plural
from ..kernels import engine
from ..positions.owners import estimate_nodes
from ..positions.position import Position
from ..search.line import principal_line
from .arena import bot_labels
from .botmodel import analyse_any
from .bots import (
    RULE_BOTS,
    Bot,
    BotSpec,
    Decision,
    Moment,
    make_policy,
    parse_bots,
    rank_row_options,
)
from .records import GameRecorder
from .seats import Table, bot_seed, deal_cards

__all__ = ["HumanGame", "Quit", "Undo", "hint_model", "option_labels", "other_seats",
           "rows_text"]



class Undo(BaseException):  # not an Exception: the game loop passes it through
    """The human asked to take back a decision (``back``: snapshots to go back)."""

    def __init__(self, back: int) -> None:
        super().__init__("undo")
        self.back = back


class Quit(BaseException):  # likewise
    """The human asked to stop (or the input ended)."""


def rows_text(rows: Sequence[Sequence[int]]) -> str:
    """The rows with their cows and room: ``row 1: 3 7 12   (3 cows, room 2)``."""
    out = []
    for i, row in enumerate(rows, 1):
        cows = sum(card_cows(c) for c in row)
        out.append(f"row {i}: {' '.join(f'{c:>3}' for c in row):<20} "
                   f"({plural(cows, 'cow')}, room {5 - len(row)})")
    return "\n".join(out)


def other_seats(bots: str, players: int) -> list[BotSpec]:
    """The bots of seats 2..``players`` from ``bots``: one name for every other seat, or
    one per seat, separated by commas (a bad name or count: one line)."""
    specs = parse_bots(bots, None)
    if len(specs) == 1 and players > 2:
        specs *= players - 1
    if len(specs) != players - 1:
        raise NimmtError(f"{param('bots')} names {len(specs)} bots for "
                         f"{param('players', players)}; name one per other seat "
                         f"({players - 1})")
    return specs


def option_labels(moment: Moment) -> list[str]:
    """Each row option of a row choice, as the player reads it: ``take row 2 (5 cows)``,
    ``right end``, ``left end``."""
    labels = []
    for take, tie in moment.options:
        if take >= 0:
            cows = sum(card_cows(c) for c in moment.rows[take])
            labels.append(f"take row {take + 1} ({plural(cows, 'cow')})")
        else:
            labels.append(f"{'right' if tie == 0 else 'left'} end")
    return labels


def hint_model(specs: Sequence[BotSpec]) -> tuple[str, str]:
    """The opponents' model hints value against (``analyse_any``'s ``opponents``), and a
    line saying which and why. The seated bot itself when every other seat has the same
    rule-of-thumb bot (the ``random`` bot is the random model); the random model otherwise:
    nimmt models one bot at every seat, and a search-backed bot as a model takes minutes,
    not a hint's seconds.

    >>> hint_model([BotSpec("closest"), BotSpec("closest")])[0]
    'closest'
    >>> hint_model([BotSpec("closest"), BotSpec("random")])[0]
    'random'
    """
    names = sorted({str(s) for s in specs})
    if len(names) == 1 and specs[0].name == "random":
        return "random", "hints assume your opponents play random cards (as they do)"
    if len(names) == 1 and specs[0].name in RULE_BOTS:
        return names[0], f"hints value your cards against the {names[0]} bot at every seat"
    why = (f"nimmt has no quick model of the {names[0]} bot" if len(names) == 1 else
           f"your opponents play different bots ({', '.join(names)}) and nimmt models one bot "
           "at every seat")
    return "random", f"hints assume random opponents: {why}"


class HumanSeat(Bot):
    """Seat 1's policy: asks the game's human."""

    def __init__(self, game: HumanGame) -> None:
        super().__init__(BotSpec("random"), 0)
        self.game = game

    def __deepcopy__(self, memo: dict) -> HumanSeat:
        return self  # a snapshot of the table shares the human

    def choose(self, position: Position) -> Decision:
        return Decision(self.game.ask_card(position))

    def choose_option(self, moment: Moment) -> int:
        return self.game.ask_row(moment)


class HumanGame:
    def __init__(self, rules: Rules, specs: Sequence[BotSpec], seed: int,
                 ask: Callable[[str], str | None], say: Callable[[str], None],
                 hint_seconds: float = 5.0) -> None:
        if len(specs) != rules.players - 1:
            raise NimmtError(f"{len(specs)} bots for {rules.players} players; name one bot per "
                             f"other seat ({rules.players - 1})")
        if rules.players > MAX_PLAYERS:
            raise NimmtError(f"players must be at most {MAX_PLAYERS}")
        self.rules, self.seed = rules, seed
        self.ask, self.say = ask, say
        self.hint_seconds = hint_seconds
        self.human = HumanSeat(self)
        self.model, self.model_note = hint_model(specs)
        self.labels = ["you", *bot_labels(specs)]
        self.policies: list[Bot] = [self.human] + [
            make_policy(s, bot_seed(seed, 0, 0, b)) for b, s in enumerate(specs, 1)]
        self.recorder = GameRecorder(rules.variant, rules.players, rules.placement,
                                     rules.threshold, rules.one_round, self.labels, seed=seed)
        self.totals = [0] * rules.players
        self.finished = False

    # ---- the record
    @property
    def record(self) -> dict[str, Any]:
        record = copy.deepcopy(self.recorder.record)
        rounds = record["rounds"]
        n = self.rules.players
        for r in rounds:
            r["cows"] = [sum(t["cows"][s] for t in r["turns"]) for s in range(n)]
        record["scores"] = [sum(r["cows"][s] for r in rounds) for s in range(n)]
        if not self.finished:
            record["complete"] = False
        return record

    # ---- the prompts
    def ask_card(self, position: Position) -> int:
        self.say("\n" + rows_text(position.rows))
        if len(position.hand) == 1:  # no decision: the rules play it
            self.say(f"your last card: {position.hand[0]}")
            return position.hand[0]
        self.say(f"your hand: {' '.join(map(str, position.hand))}")
        while True:
            line = self.ask("card (or hint, why CARD, undo, quit)")
            if line is None:
                raise Quit
            words = line.strip().lower().split()
            if not words:
                continue
            if words[0] == "quit":
                raise Quit
            if words[0] == "undo":
                raise Undo(2)
            if words[0] == "hint":
                self.say(self.hint(position))
                continue
            if words[0] == "why" and len(words) == 2 and words[1].isdigit():
                self.say(self.why(position, int(words[1])))
                continue
            if len(words) == 1 and words[0].isdigit() and int(words[0]) in position.hand:
                return int(words[0])
            self.say(f"type a card of your hand ({' '.join(map(str, position.hand))}), "
                     "hint, why CARD, undo or quit")

    def ask_row(self, moment: Moment) -> int:
        card = moment.cards[0]
        self.say(f"this turn: {self.revealed(moment)}")
        self.say(f"your {card} " + ("is lower than every row end: take a row"
                                     if moment.options[0][0] >= 0 else
                                     "fits two rows equally: choose the end"))
        self.say(rows_text(moment.rows))
        self.say("   ".join(f"{o}: {label}"
                               for o, label in enumerate(option_labels(moment), 1)))
        while True:
            line = self.ask(f"option 1..{len(moment.options)} (empty: the rule's choice; "
                            "hint, undo, quit)")
            if line is None:
                raise Quit
            word = line.strip().lower()
            if not word:
                return -1
            if word == "quit":
                raise Quit
            if word == "undo":  # a forced last card was no decision: back past it
                raise Undo(1 if len(moment.position.hand) > 1 else 2)
            if word == "hint":
                self.say(self.row_hint(moment))
                continue
            if word.isdigit() and 1 <= int(word) <= len(moment.options):
                return int(word) - 1
            self.say(f"type 1..{len(moment.options)}, hint, undo or quit")

    def revealed(self, moment: Moment) -> str:
        """This turn's cards, seat by seat; the lower ones are on the rows already."""
        mine = moment.cards[0]
        return ", ".join(f"{self.labels[s]} {c}" + (" (placed before yours)" if c < mine else "")
                         for s, c in enumerate(moment.cards))

    def _footer(self, analyses: Sequence[Any]) -> str:
        if not analyses:  # a row choice with the last card: nothing is left to value
            return "(the round ends with this turn: the cows now are all there is)"
        methods = sorted({a.method for a in analyses})
        units = sorted({a.unit for a in analyses})
        return f"({'/'.join(methods)}; {'; '.join(units)})\n({self.model_note})"

    def hint(self, position: Position) -> str:
        """The analysis of this decision: every card, best first, against ``self.model``."""
        from tabulate import tabulate

        a = analyse_any(position, self.model, time_limit=self.hint_seconds, seed=self.seed)
        rows = [[c.card, f"{c.value:.3f}", f"{c.regret:.3f}", f"{c.cows_now:.2f}",
                 f"{100 * c.take_probability:.0f}%"] for c in a.cards]
        return (tabulate(rows, headers=["card", "cows to the end", "regret", "cows now",
                                        "takes a row"], tablefmt="simple",
                         disable_numparse=True) + "\n" + self._footer([a]))

    def row_hint(self, moment: Moment) -> str:
        """Each row option of this turn, best first: the cows it takes now plus your best
        card's value after the turn against ``self.model`` (``nimmt analyse`` on a turn=
        position; the choices made before yours as they were), the hint's time shared
        between the options."""
        from tabulate import tabulate

        share = self.hint_seconds / len(moment.options)
        analyses = []

        def value_after(after: Position, cows: Sequence[int]) -> tuple[float, float]:
            if not after.cards_left:
                return float(cows[0]), 0.0
            a = analyse_any(after, self.model, time_limit=share, seed=self.seed)
            analyses.append(a)
            return float(cows[0]), a.best.value

        choices = rank_row_options(moment, value_after)
        rows = [[c.label + (" (the rule's choice)" if c.rule else ""), f"{c.cows_now:.0f}",
                 f"{c.later:.3f}", f"{c.value:.3f}", f"{c.regret:.3f}"] for c in choices]
        return (tabulate(rows, headers=["option", "cows now", "later (best card after)",
                                        "cows to the end", "regret"], tablefmt="simple",
                         disable_numparse=True) + "\n" + self._footer(analyses))

    def why(self, position: Position, card: int) -> str:
        """What ``card`` risks: its value and regret, this turn's risk, and (when the
        search fits) the line where the opponents do their worst."""
        if card not in position.hand:
            return f"{card} is not in your hand"
        a = analyse_any(position, self.model, time_limit=self.hint_seconds, seed=self.seed)
        mine = next(c for c in a.cards if c.card == card)
        text = (f"{card}: {mine.value:.3f} {a.unit} to the end of the round (regret "
                f"{mine.regret:.3f}); this turn it takes a row with probability "
                f"{100 * mine.take_probability:.0f}% ({mine.cows_now:.2f} cows expected)")
        if estimate_nodes(position) <= LINE_NODES:
            line = principal_line(position, card, "worst")
            steps = [f"you {t.card} vs {t.label}"
                     + (f" ({plural(t.cows, 'cow')})" if t.cows else "") for t in line]
            text += "\nworst case: " + "; ".join(steps) + \
                f" = {plural(sum(t.cows for t in line), 'cow')}"
        else:
            text += "\n(the worst-case line is searched from fewer cards left)"
        return text

    # ---- the game
    def _turn_report(self, rows: Sequence[Sequence[int]], turn: dict[str, Any]) -> str:
        n = self.rules.players
        cards = turn["cards"]
        outcome = engine.resolve_turn(rows, cards, self.rules.professional,
                                      turn.get("take_rows", [-1] * n),
                                      turn.get("tie_sides", [-1] * n))
        played = ", ".join(f"{self.labels[s]} {cards[s]}" for s in range(n))
        took = [f"{self.labels[st.player_index]} took row {st.row_index + 1} "
                f"({plural(st.cows, 'cow')})" for st in outcome.steps if st.took]
        return "played: " + played + ("; " + "; ".join(took) if took else "")

    def run(self) -> dict[str, Any]:
        """Play to the end (or until quit / end of input, ``Quit``; Ctrl-C propagates);
        returns the record. Undo goes back within the round."""
        rules, n = self.rules, self.rules.players
        round_index = 0
        try:
            while True:
                rows, hands = deal_cards(rules, self.seed, 0, round_index)
                table = Table(rules, rows, hands, self.policies, self.totals, self.labels)
                table.in_game = not rules.one_round
                self.recorder.start_round(rows, hands)
                table.recorder = self.recorder
                if round_index == 0:
                    self.say(f"({self.model_note}; type hint at a prompt)")
                self.say(f"\n=== round {round_index + 1} ===")
                history: list[Any] = []
                while table.hands[0]:
                    history.append(copy.deepcopy((table, self.recorder),
                                                 {id(self.human): self.human}))
                    before = table.rows
                    try:
                        table.play_turn()
                    except Undo as u:
                        if u.back == 2 and len(history) < 2:
                            self.say("nothing to undo in this round")
                        elif u.back == 2:
                            history.pop()
                            self.say("undone: your last card")
                        table, self.recorder = history.pop()
                        self.policies = table.policies
                        continue
                    self.say(self._turn_report(before,
                                               self.recorder.record["rounds"][-1]["turns"][-1]))
                self.recorder.end_round()
                for s in range(n):
                    self.totals[s] += table.cows[s]
                round_index += 1
                self.say("round " + str(round_index) + ": " + ", ".join(
                    f"{self.labels[s]} {table.cows[s]} (total {self.totals[s]})"
                    for s in range(n)))
                if rules.game_over(self.totals):
                    break
        except Quit:
            return self.record
        self.finished = True
        best = min(self.totals)
        winners = [self.labels[s] for s in range(n) if self.totals[s] == best]
        self.say(f"game over: {' and '.join(winners)} "
                 + ("win" if len(winners) > 1 or winners[0] == "you" else "wins")
                 + f" with {best} cows")
        return self.record
