"""The questions both faces answer, the command line and the engine protocol.

``analyse_answer`` is ``nimmt analyse`` without its rendering: the options by name, checked
together (the same messages for both faces), run, and the result whose ``to_json`` is
exactly what ``nimmt analyse --format json`` prints. ``bot_answer`` is a named bot's
decision for a position, ``review_answer`` one decision judged as ``nimmt review`` judges
it. ``solver/faces/protocol.py`` (``nimmt engine``) and ``cli.py`` both call these; neither
builds the JSON itself.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..base.defaults import DEFAULT_MAX_NODES, DEFAULT_MEMORY, DEFAULT_SAMPLES
from ..base.errors import NimmtError, SearchStopped, param
from ..base.names import Method, Model, Variant
from ..base.rules import Rules, cut
from ..players.botmodel import analyse_bots, is_model, opponent_spec
from ..players.bots import Decision, make_policy, moment_of, parse_bot, parse_bots, row_choices
from ..players.review import review_card
from ..positions.draft import DraftPosition
from ..positions.position import Position, format_position
from ..search.analysis import UNITS, analyse

__all__ = ["DRAFT_ONLY", "AnalyseAnswer", "OptionError", "ProgressStep", "analyse_answer",
           "analyse_reporting", "stopped_json", "bot_answer",
           "fresh_seed", "with_turn", "review_answer", "unfinished_json"]

# options of nimmt analyse that a draft position does not take
DRAFT_ONLY = ("opponents", "objective", "memory", "both_sides", "verify")


class OptionError(NimmtError):
    """Options that do not go together (the command line adds its --help hint)."""


def fresh_seed(seed: int | None) -> int:
    """``seed``, or a fresh one when none is given (reported by whoever asked)."""
    return secrets.randbelow(2**31) if seed is None else int(seed)


def with_turn(position: Position, turn: str) -> Position:
    """``--turn 4,13`` (this turn's cards, player 1's first): the position with its turn=
    key set, checked like the key; a different turn= already in the position is refused."""
    cards = []
    for item in str(turn).split(","):
        if not (item.isascii() and item.isdigit()):
            raise NimmtError(f"{param('turn')} takes cards as ASCII digits separated by "
                             f"commas, yours first (e.g. 4,13); got {cut(turn)!r}")
        cards.append(int(item))
    if position.turn and tuple(cards) != position.turn:
        raise OptionError(f"{param('turn')} {cut(turn)} differs from the position's turn="
                          f"{','.join(map(str, position.turn))}; give one of them")
    try:
        return replace(position, turn=tuple(cards))
    except NimmtError as e:
        raise NimmtError(f"{param('turn')} {cut(turn)}: {e}") from None


@dataclass(frozen=True)
class AnalyseAnswer:
    """What ``nimmt analyse`` found: an ``Analysis`` (kind ``position``), a draft analysis
    (``draft``) or the row choices of ``--turn`` (``turn``: ``result`` is the tuple of
    ``bots.RowOption``, best first)."""

    kind: str
    position: Position | DraftPosition
    opponents: str
    result: Any
    turn: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON object ``nimmt analyse --format json`` prints."""
        if self.kind != "turn":
            return self.result.to_json()
        assert isinstance(self.position, Position)
        choices = self.result
        return {"position": format_position(self.position), "turn": list(self.turn),
                "opponents": self.opponents, "unit": UNITS[self.opponents],
                "value": choices[0].value,
                "choices": [{"choice": c.label, "take_row": c.take_row,
                             "tie_side": c.tie_side, "cows_now": c.cows_now,
                             "later": c.later, "value": c.value, "regret": c.regret,
                             "rule_following": c.rule} for c in choices]}


def _flags(names: Sequence[str]) -> str:
    return " and ".join(param(name) for name in names)


def _check_position_options(opponents: str, method: str, both_sides: bool, verify: bool,
                            turn: str | None, drafters: str | None,
                            round_bots: str | None) -> None:
    """The options of a position in a round that do not go together (one line each)."""
    if drafters is not None or round_bots is not None:
        raise OptionError(f"{_flags(['drafters', 'round'])} apply to draft positions "
                          f"(phase=draft); drop them")
    if opponents == Model.NASH and method == Method.MONTECARLO:
        raise OptionError(f"{param('method', 'montecarlo')} does not apply to "
                          f"{param('opponents', 'nash')} (the equilibrium is solved exactly); "
                          f"drop {param('method')}, or use "
                          f"{param('opponents', 'random')}")
    nash_only = [name for name, on in (("both_sides", both_sides), ("verify", verify)) if on]
    if nash_only and opponents != Model.NASH:
        raise OptionError(f"{_flags(nash_only)} appl{'ies' if len(nash_only) == 1 else 'y'} "
                          f"only to {param('opponents', 'nash')}; add "
                          f"{param('opponents', 'nash')} or drop {_flags(nash_only)}")


def analyse_answer(position: Position | DraftPosition, *, opponents: str = Model.RANDOM,
                   method: str = Method.AUTO, samples: int = DEFAULT_SAMPLES,
                   seed: int | None = None,
                   time_limit: float | None = None, max_nodes: int | None = None,
                   memory: int = DEFAULT_MEMORY, workers: int | None = None,
                   both_sides: bool = False, verify: bool = False, turn: str | None = None,
                   drafters: str | None = None, round_bots: str | None = None,
                   given: Collection[str] = (), objective: str = "cows",
                   solution: str | None = None,
                   progress: Callable[[int], None] | None = None,
                   exact_progress: Callable[[int], None] | None = None) -> AnalyseAnswer:
    """``nimmt analyse POSITION`` with its options by name (``given``: the options the
    caller set, for those a draft position refuses). Raises ``OptionError`` for options
    that do not go together, other ``NimmtError``s for bad input; a stopped exact search
    raises ``SearchStopped`` (``unfinished_json`` holds what it finished). ``progress(n)``:
    n more samples per card (nash: root cells; drafts: samples); ``exact_progress(n)``: n
    more cards solved (drafts: enumerated)."""
    used_seed = fresh_seed(seed)
    if solution is not None:
        return _from_solution(position, solution, opponents, turn, given)
    if isinstance(position, DraftPosition):
        return _analyse_draft(position, method, samples, used_seed, time_limit, max_nodes,
                              workers, turn, drafters, round_bots, given, progress,
                              exact_progress)
    _check_position_options(opponents, method, both_sides, verify, turn, drafters, round_bots)
    nodes = DEFAULT_MAX_NODES if max_nodes is None else max_nodes
    if turn is not None:  # --turn: an alias of the position's turn= key
        position = with_turn(position, turn)
    bot = None
    if not is_model(opponents):
        try:
            bot = opponent_spec(opponents)
        except NimmtError as e:  # a bad bot name or parameter: a usage line
            raise OptionError(str(e)) from None
    if bot is not None and objective != "cows":
        raise OptionError(f"{param('objective')} applies to the models random, worst and "
                          f"nash, not yet to a bot's; drop one")
    if position.turn:
        if both_sides or verify:
            raise OptionError(f"{_flags(['both_sides', 'verify'])} do not apply to "
                              f"{param('turn')} (a row choice)")
        if objective != "cows":
            raise OptionError(f"{param('objective')} applies to the card analysis, not yet to "
                              f"a row choice ({param('turn')}); drop one")
        if bot is not None:
            raise OptionError(f"{param('turn')} values row choices under the models random, "
                              f"worst and nash; drop {param('turn')} or use one of them")
        choices = row_choices(position, None, opponents, max_nodes=nodes, samples=samples,
                              seed=used_seed)
        return AnalyseAnswer("turn", position, str(opponents), choices, tuple(position.turn))
    if bot is not None:
        found = analyse_bots(position, bot, method=method, samples=samples, seed=used_seed,
                             time_limit=time_limit, progress=progress, max_nodes=nodes)
        return AnalyseAnswer("position", position, str(bot), found)
    result = analyse(position, opponents=opponents, method=method, samples=samples,
                     seed=used_seed, time_limit=time_limit, max_nodes=nodes,
                     progress=progress, memory=memory, workers=workers,
                     exact_progress=exact_progress, objective=objective)
    if verify and result.extra["exploitability"] > 1e-9:  # (verify: nash only, checked)
        raise NimmtError(f"verification failed: exploitability "
                         f"{result.extra['exploitability']:.3e}")
    return AnalyseAnswer("position", position, str(opponents), result)


def _from_solution(position: Position | DraftPosition, path: str, opponents: str,
                   turn: str | None, given: Collection[str]) -> AnalyseAnswer:
    """``analyse --solution FILE``: the equilibrium read from a solution file (it must be
    this position's; ``deals.load_solution`` checks it), as a solve would give it."""
    from ..search.analysis import from_nash
    from ..search.deals import load_solution

    if opponents != Model.NASH and "opponents" in given:
        raise OptionError(f"{param('solution')} holds an equilibrium: it goes with "
                          f"{param('opponents', 'nash')} (or none)")
    if isinstance(position, DraftPosition) or turn is not None:
        raise OptionError(f"{param('solution')} answers a round position's cards; drop "
                          f"{param('turn')} or {param('solution')}")
    return AnalyseAnswer("position", position, str(Model.NASH),
                         from_nash(position, load_solution(path, position)))


def _analyse_draft(draft: DraftPosition, method: str, samples: int, seed: int,
                   time_limit: float | None, max_nodes: int | None, workers: int | None,
                   turn: str | None, drafters: str | None, round_bots: str | None,
                   given: Collection[str], progress: Callable[[int], None] | None,
                   exact_progress: Callable[[int], None] | None) -> AnalyseAnswer:
    """``nimmt analyse DRAFT-POSITION``."""
    from ..players.arena import round_player
    from ..search.draftsearch import DEFAULT_MAX_ROUNDS, analyse_draft

    if turn is not None:
        raise OptionError(f"{param('turn')} applies to positions in a round, not "
                          f"to draft positions; drop it")
    refused = [name for name in DRAFT_ONLY if name in given]
    if refused:
        raise OptionError(f"{_flags(refused)} appl{'ies' if len(refused) == 1 else 'y'} to "
                          f"positions after the draft; a draft position is analysed with "
                          f"{_flags(['drafters', 'round'])}")
    play_round, round_names = None, round_bots  # type: tuple[Any, str | list[str] | None]
    if round_bots is not None:  # search-backed bots play the round through the game loop
        specs = parse_bots(round_bots)
        if any(s.searches for s in specs):
            specs = specs * draft.players if len(specs) == 1 else specs
            if len(specs) != draft.players:
                raise OptionError(f"{param('round')} names {len(specs)} bots for "
                                  f"{draft.players} players; name one per seat (or one for "
                                  f"every seat)")
            if method == Method.EXACT:
                raise OptionError(f"{param('method', 'exact')} does not apply when "
                                  f"search-backed bots play the round; drop "
                                  f"{param('method')}")
            play_round = round_player(Rules(Variant.LOGIC, draft.players, draft.placement,
                                            one_round=True), specs)
            round_names = [str(s) for s in specs]
    result = analyse_draft(draft, drafters=drafters, round_bots=round_names, method=method,
                           samples=samples, seed=seed, time_limit=time_limit,
                           max_rounds=DEFAULT_MAX_ROUNDS if max_nodes is None else max_nodes,
                           progress=progress, workers=workers or 1,
                           exact_progress=exact_progress, play_round=play_round)
    return AnalyseAnswer("draft", draft, "bots", result)


ProgressStep = Callable[[str, int], "Callable[[int], None] | None"]


def analyse_reporting(arguments: dict[str, Any], step: ProgressStep) -> AnalyseAnswer:
    """``analyse_answer(**arguments)`` with its two progress callbacks made by
    ``step(what, total)``: samples per card (nash: root cells, ``total`` the cards left
    squared) and cards solved exactly; for a draft position, samples per card and cards
    enumerated. The one reading of the counters for every face that reports progress (the
    engine protocol, the board). A stopped search raises ``SearchStopped``: ``stopped_json``
    says what it finished."""
    position = arguments["position"]
    samples = arguments.get("samples", DEFAULT_SAMPLES)
    if isinstance(position, DraftPosition):
        progress = step("samples per card", samples)
        exact = step("cards enumerated", len(position.pool))
    else:
        cards = position.cards_left
        nash = arguments.get("opponents") == Model.NASH
        progress = step("root cells" if nash else "samples per card",
                        cards ** 2 if nash else samples)
        exact = step("cards solved exactly", cards)
    return analyse_answer(**arguments, progress=progress, exact_progress=exact)


def stopped_json(stopped: SearchStopped, position: Position | DraftPosition,
                 opponents: str) -> dict[str, Any] | None:
    """``unfinished_json`` of a search that ran before it stopped (it finished a card or
    visited a node); None for one refused before it began (bad parameters)."""
    if not (stopped.finished or stopped.nodes) or not isinstance(position, Position):
        return None
    return unfinished_json(stopped, position, opponents)


def unfinished_json(stopped: Any, position: Position, opponents: str) -> dict[str, Any]:
    """The cards a stopped exact search finished, marked incomplete (what ``nimmt analyse
    --format json`` prints before its error line)."""
    return {"position": format_position(position), "opponents": opponents, "method": "exact",
            "unit": UNITS[opponents], "complete": False, "stopped": stopped.reason,
            "cards_total": stopped.cards_total, "nodes": stopped.nodes,
            "seconds": stopped.seconds,
            "cards": [{"card": c.card, "value": c.value, "cows_now": c.cows_now,
                       "cows_later": c.value - c.cows_now,
                       "take_probability": c.take_probability} for c in stopped.finished]}


# ---------------------------------------------------------------- bots and review

def bot_answer(position: Position, bot: str, seed: int | None = None, decisions: int = 0,
               turn: Sequence[int] | None = None, take_rows: Sequence[int] | None = None,
               tie_sides: Sequence[int] | None = None) -> dict[str, Any]:
    """Bot ``bot``'s decision from player 1's seat of ``position``, as the arena asks it:
    its bot made with ``seed`` after ``decisions`` decisions (``Bot.next_seed``; the reply's
    ``decisions`` is the count to send with the next request for the same bot). Without
    ``turn``: the card and the row choices it would make for it on the rows as they are.
    With ``turn`` (this turn's cards, player 1's first; ``take_rows``/``tie_sides``: the
    choices of the cards placed before player 1's, -1 elsewhere): the row option its card
    takes now (``bots.Moment``; -1 the rule-following one)."""
    spec = parse_bot(bot)
    used = fresh_seed(seed)
    if decisions < 0:
        raise NimmtError("decisions must be at least 0")
    policy = make_policy(spec, used)
    policy.decisions = int(decisions)
    out: dict[str, Any] = {"bot": str(spec), "seed": used}
    if turn is None:
        if take_rows is not None or tie_sides is not None:
            raise OptionError(f"take_rows and tie_sides go with "
                              f"{param('turn')} (a row choice)")
        see = getattr(policy, "see", None)
        if see is not None:  # as a table tells a bot, before its decision (Bot.see)
            see(())
        decision: Decision = policy.choose(position)
        out.update(card=int(decision.card), take_row=int(decision.take_row),
                   tie_side=int(decision.tie_side))
    else:
        moment = moment_of(position, list(turn), take_rows, tie_sides)
        option = int(policy.choose_option(moment))
        take, tie = moment.options[option] if option >= 0 else (-1, -1)
        out.update(turn=[int(c) for c in turn], option=option, take_row=int(take),
                   tie_side=int(tie), options=[list(o) for o in moment.options])
    out["decisions"] = policy.decisions
    return out


def review_answer(position: Position, card: int, opponents: str = Model.RANDOM,
                  samples: int = DEFAULT_SAMPLES, seed: int | None = None,
                  time_limit: float | None = None,
                  max_nodes: int = DEFAULT_MAX_NODES) -> dict[str, Any]:
    """One decision judged as ``nimmt review`` judges it: player 1 of ``position`` played
    ``card``; the best card, both values, the regret and its label (``review.label_of``)."""
    used = fresh_seed(seed)
    decision = review_card(position, card, opponents, samples=samples, seed=used,
                           time_limit=time_limit, max_nodes=max_nodes)
    data = decision.to_json()
    for key in ("round", "turn", "player"):
        data.pop(key)
    data.update(opponents=str(opponents), seed=used)
    return data
