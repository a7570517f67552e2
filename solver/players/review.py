"""Review a recorded game: every decision of the chosen seats against the model.

Each decision is judged from its player's view only (``seat_view``: its hand, the rows,
the cards gone, its score first; the other hands hidden except in logic) by ``analyse``:
the card played, the best card, the regret (value played - best value, in the model's
unit: expected cows for random, guaranteed cows for worst) and a label by ``LABELS``.
A row choice (a low card, a professional tie) is judged the same way once the turn's
cards are revealed: this turn's cows plus the best value after the turn
(``bots.row_choices``'s definition, with the earlier cards' actual choices).

Where ``analyse`` falls back to Monte Carlo the regret carries its 95% half-width, and a
regret inside it is labelled ``ok`` (indistinguishable from the best), never worse.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.defaults import DEFAULT_MAX_NODES, DEFAULT_SAMPLES
from ..base.errors import NimmtError, SearchInterrupted, SearchStopped
from ..base.intervals import Z95
from ..base.names import Model, Variant
from ..base.pictures import NO_PICTURES, matplotlib_figure, matplotlib_ticker
from ..kernels import turns
from ..positions.position import Position, format_position
from ..search.analysis import Analysis
from .botmodel import analyse_any, is_model, opponent_spec
from .bots import Moment
from .records import RecordTurn, replay

__all__ = ["LABELS", "Decision", "GameReview", "SeatSummary", "decisions_to_review",
           "judge_model", "label_of",
           "regret_figure", "regret_plot", "render_html", "render_text", "review_card",
           "review_game", "seat_view"]

# (lowest regret, label), most severe first; below the last: "ok"; no regret: "best"
LABELS = ((3.0, "blunder"), (1.0, "mistake"), (0.3, "inaccuracy"))
BEST_TOLERANCE = 1e-9


def label_of(regret: float, half_width: float | None = None) -> str:
    """``best`` (no regret), ``ok`` (under 0.3, or inside a Monte Carlo interval),
    ``inaccuracy`` (0.3..1), ``mistake`` (1..3), ``blunder`` (3 or more).

    >>> label_of(0.0), label_of(0.2), label_of(1.5), label_of(4.0), label_of(4.0, 5.0)
    ('best', 'ok', 'mistake', 'blunder', 'ok')
    """
    if regret <= BEST_TOLERANCE:
        return "best"
    if half_width is not None and regret <= half_width:
        return "ok"
    for low, name in LABELS:
        if regret >= low:
            return name
    return "ok"


@dataclass(frozen=True)
class Decision:
    """One reviewed decision of seat ``seat`` (0-based) in round/turn (1-based)."""

    round: int
    turn: int
    seat: int
    kind: str                 # "card" or "row"
    played: str               # "17" or "take row 2"
    best: str
    value_played: float | None
    value_best: float | None
    regret: float | None      # None: not reviewed (``note`` says why)
    half_width: float | None  # Monte Carlo: 95% half-width of the regret
    method: str
    label: str
    position: str             # the seat's view, in the notation
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "turn": self.turn, "player": self.seat + 1,
                "kind": self.kind, "played": self.played, "best": self.best,
                "value_played": self.value_played, "value_best": self.value_best,
                "regret": self.regret, "regret_ci95_half_width": self.half_width,
                "method": self.method, "label": self.label, "position": self.position,
                **({"note": self.note} if self.note else {})}


@dataclass(frozen=True)
class SeatSummary:
    seat: int
    name: str
    decisions: int
    total_regret: float
    mean_regret: float
    best_share: float
    labels: dict[str, int]
    costliest: tuple[Decision, ...]

    def to_json(self) -> dict[str, Any]:
        return {"player": self.seat + 1, "name": self.name, "decisions": self.decisions,
                "total_regret": self.total_regret, "mean_regret": self.mean_regret,
                "best_share": self.best_share, "labels": self.labels,
                "costliest": [d.to_json() for d in self.costliest]}


@dataclass
class GameReview:
    record: dict[str, Any]
    seats: tuple[int, ...]
    opponents: str
    decisions: list[Decision] = field(default_factory=list)
    complete: bool = True
    total: int = 0            # (turn, player) pairs to review
    done: int = 0             # (turn, player) pairs reviewed

    @property
    def names(self) -> list[str]:
        return list(self.record["names"])

    def summaries(self) -> list[SeatSummary]:
        out = []
        for s in self.seats:
            mine = [d for d in self.decisions if d.seat == s and d.regret is not None]
            regrets = [d.regret for d in mine if d.regret is not None]
            labels: dict[str, int] = {}
            for d in mine:
                labels[d.label] = labels.get(d.label, 0) + 1
            costly = sorted(mine, key=lambda d: -(d.regret or 0.0))[:3]
            out.append(SeatSummary(
                s, self.names[s], len(mine), float(sum(regrets)),
                float(sum(regrets) / len(regrets)) if regrets else math.nan,
                labels.get("best", 0) / len(mine) if mine else math.nan, labels,
                tuple(d for d in costly if (d.regret or 0.0) > BEST_TOLERANCE)))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"opponents": self.opponents, "players": [s + 1 for s in self.seats],
                "names": self.names, "complete": self.complete,
                "turns_reviewed": self.done, "turns_to_review": self.total,
                "thresholds": {name: low for low, name in LABELS},
                "decisions": [d.to_json() for d in self.decisions],
                "summary": [s.to_json() for s in self.summaries()]}


def seat_view(turn: RecordTurn, seat: int) -> Position:
    """The position before ``turn`` as ``seat`` (0-based) sees it: player 1 is that seat;
    the other hands are hidden except in logic (every hand known)."""
    before = turn.before
    n = before.players
    order = [(seat + j) % n for j in range(n)]
    known = before.variant == Variant.LOGIC
    hands = before.hands
    others = {j + 1: hands[order[j]] or () for j in range(1, n)} if known else None
    return Position.make(players=n, rows=before.rows, hand=hands[seat] or (),
                         variant=before.variant, placement=before.placement, others=others,
                         gone=before.gone, scores=[before.scores[s] for s in order],
                         threshold=before.threshold)


def _regret_of(analysis: Analysis, card: int) -> tuple[float, float, float, float | None]:
    """(value played, best value, regret, Monte Carlo 95% half-width of the regret)."""
    mine = next(c for c in analysis.cards if c.card == card)
    half = None if mine.regret_stderr is None else Z95 * mine.regret_stderr
    return mine.value, analysis.best.value, mine.regret, half


def _row_moment(turn: RecordTurn, seat: int, view: Position) -> Moment | None:
    """The moment ``seat``'s card reached the rows in ``turn`` (the earlier cards' actual
    choices), or None when it had one place to go."""
    n = view.players
    cards = turn.cards
    order = sorted(range(n), key=lambda s: cards[s])
    before = order[:order.index(seat)]
    rows = turns.rows_met(view.rows, cards, view.professional, turn.take_rows,
                          turn.tie_sides, seat)
    options = turns.option_choices(rows, cards[seat], view.professional)
    if len(options) < 2:
        return None
    seats = [(seat + j) % n for j in range(n)]
    return Moment(view, tuple(cards[q] for q in seats),
                  tuple(turn.take_rows[q] if q in before else -1 for q in seats),
                  tuple(turn.tie_sides[q] if q in before else -1 for q in seats),
                  rows, options)


def _option_label(moment: Moment, option: int) -> str:
    take, tie = moment.options[option]
    if take >= 0:
        return f"take row {take + 1}"
    return "right end" if tie == 0 else "left end"


def judge_model(opponents: str) -> str:
    """The opponent model a review judges against: random, worst, or a bot's name in its
    canonical form (a bad name or a model review does not take: one line)."""
    if is_model(opponents) and opponents not in (Model.RANDOM, Model.WORST):
        raise NimmtError(f"review judges against opponents random or worst, or a bot "
                         f"(closest, expecti, ...); got {opponents!r}")
    return opponents if is_model(opponents) else str(opponent_spec(opponents))


def _to_review(record: dict[str, Any], seats: Sequence[int] | None, first_turn: int
               ) -> tuple[tuple[int, ...], list]:
    """The seats reviewed and each (round, turn, seat) to judge: every turn from
    ``first_turn`` on but a forced last card."""
    n = record["players"]
    chosen = tuple(range(n)) if seats is None else tuple(seats)
    for s in chosen:
        if not 0 <= s < n:
            raise NimmtError(f"player {s + 1} is not in this game; give 1..{n}")
    todo = [(r, t, s) for r in replay(record) for t in r.turns[first_turn - 1:]
            for s in chosen if t.before.cards_left > 1]
    return chosen, todo


def decisions_to_review(record: dict[str, Any], seats: Sequence[int] | None = None,
                        first_turn: int = 1) -> int:
    """How many (turn, player) decisions ``review_game`` judges with these options: the
    total of its ``progress`` (a row choice rides on its turn's card)."""
    return len(_to_review(record, seats, first_turn)[1])


def review_game(record: dict[str, Any], seats: Sequence[int] | None = None,
                opponents: str = "random", samples: int = DEFAULT_SAMPLES, seed: int = 0,
                time_limit: float | None = None, max_nodes: int = DEFAULT_MAX_NODES,
                first_turn: int = 1, rows: bool = True,
                progress: Callable[[int], None] | None = None,
                working: Callable[[int], None] | None = None) -> GameReview:
    """Review every decision of ``seats`` (0-based; default all) from turn ``first_turn``
    of each round on (forced last cards skipped). Ctrl-C raises errors.SearchInterrupted
    whose ``partial`` is the review of the decisions judged (``complete`` False).
    ``time_limit``: seconds per analysis; ``progress(1)`` after each decision;
    ``working``: the analyses' own progress callback (a caller's chance to stop a review
    inside a decision: what it raises ends the review)."""
    opponents = judge_model(opponents)
    chosen, todo = _to_review(record, seats, first_turn)
    review = GameReview(record, chosen, str(opponents), total=len(todo))

    def judge(position: Position) -> Analysis:
        return analyse_any(position, opponents, samples=samples, seed=seed,
                           time_limit=time_limit, max_nodes=max_nodes, progress=working)

    try:
        for r, t, s in todo:
            round_no, turn_no = r.index + 1, r.turns.index(t) + 1
            view = seat_view(t, s)
            text = format_position(view)
            review.decisions.append(_judge_card(view, t.cards[s], judge, round_no, turn_no,
                                                s, text))
            moment = _row_moment(t, s, view) if rows else None
            if moment is not None:
                review.decisions.append(_review_row(moment, t, s, round_no, turn_no, text,
                                                    judge))
            review.done += 1
            if progress:
                progress(1)
    except KeyboardInterrupt:  # the decisions judged ride on the interrupt
        review.complete = False
        raise SearchInterrupted(f"review interrupted after {review.done} of {review.total} "
                                "decisions", partial=review) from None
    return review


def _judge_card(view: Position, card: int, judge: Callable[[Position], Analysis],
                round_no: int, turn_no: int, seat: int, text: str) -> Decision:
    """The card decision: the card played against the best card of ``judge(view)``."""
    try:
        a = judge(view)
        played, best, regret, half = _regret_of(a, card)
        return Decision(round_no, turn_no, seat, "card", str(card), str(a.best.card), played,
                        best, regret, half, a.method, label_of(regret, half), text,
                        note=("judged by the random model: " + a.reason.split(";")[0]
                              if a.extra.get("fallback_from") else ""))
    except SearchStopped as e:
        return Decision(round_no, turn_no, seat, "card", str(card), "", None, None, None, None,
                        "", "not reviewed", text, note=str(e).split(";")[0])


def review_card(position: Position, card: int, opponents: str = "random",
                samples: int = DEFAULT_SAMPLES, seed: int = 0, time_limit: float | None = None,
                max_nodes: int = DEFAULT_MAX_NODES) -> Decision:
    """One card decision judged as ``review_game`` judges it: player 1 of ``position``
    played ``card`` (round, turn and seat 0: a position alone)."""
    opponents = judge_model(opponents)
    if card not in position.hand:
        raise NimmtError(f"card {card} is not in player 1's hand "
                         f"({','.join(map(str, position.hand))})")
    return _judge_card(position, card,
                       lambda p: analyse_any(p, opponents, samples=samples, seed=seed,
                                             time_limit=time_limit, max_nodes=max_nodes),
                       0, 0, 0, format_position(position))


def _review_row(moment: Moment, t: RecordTurn, seat: int, round_no: int, turn_no: int,
                text: str, judge: Callable[[Position], Analysis]) -> Decision:
    """A row choice: each option's cows now plus the best value after the turn."""
    values = []
    methods = set()
    half = 0.0
    try:
        for o in range(len(moment.options)):
            after, cows = moment.after(o)
            later = 0.0
            if after.cards_left:
                a = judge(after)
                later = a.best.value
                methods.add(a.method)
                if a.best.stderr is not None:
                    half = max(half, Z95 * a.best.stderr * math.sqrt(2))
            values.append((cows[0] + later, o))
    except SearchStopped as e:
        return Decision(round_no, turn_no, seat, "row", "", "", None, None, None, None, "",
                        "not reviewed", text, note=str(e).split(";")[0])
    taken = (t.take_rows[seat], t.tie_sides[seat])
    if taken == (-1, -1):  # the rule-following choice: which option it is
        rule = moment.after(-1)[0]
        chosen = next(o for o in range(len(moment.options)) if moment.after(o)[0] == rule)
    else:
        chosen = moment.options.index(taken)
    best_value, best = min(values)
    played_value = dict((o, v) for v, o in values)[chosen]
    regret = played_value - best_value
    method = "exact" if methods <= {"exact"} else "montecarlo"
    width = half if method == "montecarlo" else None
    return Decision(round_no, turn_no, seat, "row", _option_label(moment, chosen),
                    _option_label(moment, best), played_value, best_value, regret, width,
                    method, label_of(regret, width), text,
                    note=f"card {t.cards[seat]} on rows "
                         + "/".join(",".join(map(str, r)) for r in moment.rows))


# ---------------------------------------------------------------- rendering

def _num(x: float | None) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _regret_text(d: Decision) -> str:
    if d.regret is None:
        return ""
    return _num(d.regret) + (f" ±{d.half_width:.3f}" if d.half_width is not None else "")


def render_text(review: GameReview, tablefmt: str = "simple") -> str:
    """The review as text tables (tabulate's ``simple`` or ``github``)."""
    from tabulate import tabulate

    rec = review.record
    head = (f"review of a {rec['variant']} game, {rec['players']} players, "
            f"{rec.get('placement', 'normal')}: "
            + ", ".join(f"{i + 1} {name}" for i, name in enumerate(review.names))
            + f"; opponents {review.opponents} (regret in "
            + ("guaranteed" if review.opponents == Model.WORST else "expected") + " cows)")
    if not review.complete:
        head += f"\nstopped early: {len(review.decisions)} decisions reviewed"
    rows = [[d.round, d.turn, d.seat + 1, d.kind, d.played, d.best, _regret_text(d),
             d.label, d.method or d.note] for d in review.decisions]
    table = tabulate(rows, headers=["round", "turn", "player", "decision", "played", "best",
                                    "regret", "label", "method"],
                     tablefmt=tablefmt, disable_numparse=True)
    summary = tabulate(
        [[s.seat + 1, s.name, s.decisions, _num(s.total_regret), _num(s.mean_regret),
          "" if math.isnan(s.best_share) else f"{100 * s.best_share:.0f}%",
          "; ".join(f"r{d.round}t{d.turn} {d.played} ({d.regret:.3f})" for d in s.costliest
                    if d.regret is not None)]
         for s in review.summaries()],
        headers=["player", "name", "decisions", "total regret", "mean regret", "best",
                 "costliest"], tablefmt=tablefmt, disable_numparse=True)
    note = ("labels: best (no regret), ok (under 0.3 or inside the Monte Carlo interval), "
            "inaccuracy (0.3 to 1), mistake (1 to 3), blunder (3 or more)")
    return "\n\n".join([head, table, summary, note])


TURNS_PER_ROUND = 10
LABEL_POINTS = 7  # font size of the threshold labels; they are kept this far and more apart


def regret_plot(review: GameReview) -> Any:
    """The matplotlib ``Figure`` of ``regret_figure``: regret per reviewed turn (a card and
    a row choice of the same turn added up), one line per reviewed player, broken between
    rounds and where a turn was not reviewed. The x axis spans the reviewed turns only: one
    round's reviewed turns by number; several rounds side by side, each the same span of
    turns (a review from turn 4 shows turns 4..10 of each), a grey line between them. The
    thresholds (``LABELS``) are dotted lines named just right of the plot, placed in axes
    coordinates so that they never widen it."""
    Figure = matplotlib_figure()

    rounds = sorted({d.round for d in review.decisions}) or [1]
    turns = [d.turn for d in review.decisions] or [1, TURNS_PER_ROUND]
    first, last = min(turns), max(turns)
    width = last - first + 2  # a round's turns and the gap before the next round
    block = {r: i for i, r in enumerate(rounds)}
    one_round = len(rounds) == 1

    def x_of(d: Decision) -> int:
        return d.turn if one_round else block[d.round] * width + d.turn - first

    fig = Figure(figsize=(8, 3.2))
    ax = fig.subplots()
    top = 0.0
    for s in review.seats:
        points = _seat_points(review, s, x_of)
        _plot_runs(ax, points, s, review.names)
        top = max([top, *points.values()])
    _turn_axis(ax, rounds, first, last, width)
    high = max(top, LABELS[0][0]) * 1.12  # the blunder line is always in view
    ax.set_ylim(-0.04 * high, high)
    _threshold_lines(fig, ax)
    ax.set_ylabel("regret (cows)")
    if review.seats:
        ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0),
                  ncols=len(review.seats), frameon=False)
    return fig


def _seat_points(review: GameReview, s: int, x_of: Callable[[Decision], int]
                 ) -> dict[tuple[int, int], float]:
    """Seat ``s``'s regret per (round, x) of the plot: a turn's card and row choice added
    up; turns without a regret are left out."""
    points: dict[tuple[int, int], float] = {}
    for d in review.decisions:
        if d.seat == s and d.regret is not None:
            key = (d.round, x_of(d))
            points[key] = points.get(key, 0.0) + d.regret
    return points


def _plot_runs(ax: Any, points: dict[tuple[int, int], float], s: int,
               names: Sequence[str]) -> None:
    """Seat ``s``'s points as lines of one colour, named in the legend once: a line joins
    consecutive reviewed turns of one round only, so no slope is drawn across an
    unreviewed turn or between rounds."""
    runs: list[list[tuple[int, int]]] = []
    for key in sorted(points):
        if runs and key == (runs[-1][-1][0], runs[-1][-1][1] + 1):
            runs[-1].append(key)
        else:
            runs.append([key])
    colour = None
    for run in runs:
        line = ax.plot([x for _, x in run], [points[k] for k in run], marker="o",
                       color=colour,
                       label=None if colour else f"{s + 1} {names[s]}")[0]
        colour = line.get_color()


def _turn_axis(ax: Any, rounds: list[int], first: int, last: int, width: int) -> None:
    """The x axis: one round's turns by number, or several rounds side by side (each
    ``width`` wide, a grey line between them, at most 16 round numbers shown)."""
    ticker = matplotlib_ticker()
    FixedLocator, MaxNLocator = ticker.FixedLocator, ticker.MaxNLocator

    span = f"turn {first}" if first == last else f"turns {first}-{last}"
    if len(rounds) == 1:
        ax.set_xlim(first - 0.6, last + 0.6)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(f"turn of round {rounds[0]}")
        return
    ax.set_xlim(-0.6, (len(rounds) - 1) * width + last - first + 0.6)
    for i in range(1, len(rounds)):
        ax.axvline(i * width - 1, color="grey", linewidth=0.6)
    step = max(1, math.ceil(len(rounds) / 16))  # at most 16 round numbers on the axis
    shown = range(0, len(rounds), step)
    ax.xaxis.set_major_locator(FixedLocator([i * width + (last - first) / 2
                                             for i in shown]))
    ax.set_xticklabels([str(rounds[i]) for i in shown])
    ax.tick_params(axis="x", length=0)
    ax.set_xlabel(f"round ({span} of each, left to right; a grey line between rounds)")


def _threshold_lines(fig: Any, ax: Any) -> None:
    """A dotted line per threshold and its name just right of the axes, at the line's
    height (axes x, data y); names closer than a line of text are pushed apart (upwards)."""
    per_point = fig.dpi / 72
    order = sorted(LABELS)  # lowest first
    heights = [ax.transData.transform((0.0, low))[1] / per_point for low, _ in order]
    placed: list[float] = []
    for h in heights:
        placed.append(h if not placed else max(h, placed[-1] + 1.3 * LABEL_POINTS))
    for (low, name), h, at in zip(order, heights, placed):
        ax.axhline(low, color="grey", linewidth=0.6, linestyle=":")
        ax.annotate(name, xy=(1.0, low), xycoords=ax.get_yaxis_transform(),
                    xytext=(4, at - h), textcoords="offset points", fontsize=LABEL_POINTS,
                    color="grey", va="center", ha="left", annotation_clip=False)


def regret_figure(review: GameReview, fmt: str) -> bytes:
    """A picture of regret per turn, one line per reviewed player (matplotlib, Agg;
    ``regret_plot``); ``fmt`` 'svg' or 'png'."""
    import io

    out = io.BytesIO()
    regret_plot(review).savefig(out, format=fmt, bbox_inches="tight", dpi=120)
    return out.getvalue()


def render_html(review: GameReview) -> str:
    """A standalone HTML page: the tables and the picture (SVG, inline)."""
    from html import escape

    from tabulate import tabulate

    text = render_text(review, "github")
    head, _, rest = text.partition("\n\n")
    rows = [[d.round, d.turn, d.seat + 1, d.kind, d.played, d.best, _regret_text(d),
             d.label, d.method or d.note] for d in review.decisions]
    table = tabulate(rows, headers=["round", "turn", "player", "decision", "played", "best",
                                    "regret", "label", "method"], tablefmt="html",
                     disable_numparse=True)
    try:
        svg = regret_figure(review, "svg").decode()
        svg = svg[svg.find("<svg"):]
    except ImportError:
        svg = f"<p>({NO_PICTURES})</p>"
    summary = rest.partition("\n\n")[2]
    return "\n".join(["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      "<title>nimmt review</title>", "</head>", "<body>",
                      f"<h1>Review</h1><p>{escape(head)}</p>", svg, table,
                      f"<pre>{escape(summary)}</pre>", "</body>", "</html>"]) + "\n"
