"""What the command line shows: pictures of a position (the text board of ``nimmt show``,
an SVG of the rows) and the reports of analyses, draft analyses, row choices, simulations
and arenas, as text tables (tabulate's ``simple``) or Markdown (``github``).

Render options (``show_p2``, ``verified``, the table format) are arguments of the
renderers, never fields of a result. No renderer spells a command-line flag.
"""
from __future__ import annotations

import math
from html import escape
from typing import Any

from tabulate import tabulate

from ..base.intervals import Z95
from ..base.names import Method, Model, Variant
from ..base.rules import Rules, card_cows, plural
from ..positions.position import Position
from ..search.deals import is_pure, support

__all__ = ["deal_plan_table", "deals_report", "render_analysis", "render_arena",
           "render_draft_analysis", "render_position", "render_simulation", "render_turn",
           "render_unfinished", "rows_svg", "simulation_json"]

SAME = 1e-9  # figures closer than this are equal (tied cards, a zero regret)


def render_position(position: Position) -> str:
    """The rows with cows and room, the known hands, the unknown pool, gone and scores."""
    k = position.cards_left
    head = (f"{position.variant}, {position.players} players, {position.placement} placement — "
            f"turn {11 - k} of 10, {k} card{'s' if k != 1 else ''} left each")
    table = [[f"row {i}", " ".join(map(str, row)), sum(card_cows(c) for c in row),
              5 - len(row)] for i, row in enumerate(position.rows, 1)]
    lines = [head, "", tabulate(table, headers=["row", "cards", "cows", "room before the sixth"],
                                tablefmt="simple"), ""]
    for i, hand in enumerate(position.hands):
        who = "hand (you)" if i == 0 else f"p{i + 1}"
        lines.append(f"{who}: " + ("hidden" if hand is None else " ".join(map(str, hand))))
    if position.hidden_players:
        listed = " ".join(map(str, position.pool)) if position.variant != Variant.STANDARD else \
            "(not listed for the standard deck)"
        lines.append(f"unknown pool: {plural(len(position.pool), 'card')} {listed}")
    lines.append("gone: " + (" ".join(map(str, position.gone)) or "none")
                 + f" ({plural(sum(card_cows(c) for c in position.gone), 'cow')})")
    if position.taken is not None:
        lines.append("taken this round: " + ", ".join(
            f"{'you' if i == 1 else f'p{i}'}={plural(t, 'cow')}"
            for i, t in enumerate(position.taken, 1)))
    if any(position.scores):
        lines.append("scores before this round: " + ", ".join(
            f"p{i}={s}" for i, s in enumerate(position.scores, 1)))
    if position.in_game:
        lines.append(f"game: to {position.game_threshold} cows"
                     + ("" if position.threshold is not None else " (the rules' threshold)"))
    return "\n".join(lines)


COW_COLOURS = {1: "#ffffff", 2: "#dbeafe", 3: "#fde68a", 5: "#fca5a5", 7: "#c084fc"}


def rows_svg(position: Position, hand: bool = True) -> str:
    """An SVG picture of the four rows (and player 1's hand): one box per card, shaded by
    its cows; empty places are dotted and the sixth place, which takes the row, is red."""
    w, h, gap = 44, 56, 8
    lines_y = [10 + r * (h + gap) for r in range(4)]
    height = 10 + 4 * (h + gap) + (h + 30 if hand else 0)
    width = 70 + max(6, len(position.hand) if hand else 0) * (w + gap)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif">']

    def place(x, y, sixth):
        colour, dash = ("#dc2626", "6 3") if sixth else ("#bbb", "2 3")
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="none" '
                   f'stroke="{colour}" stroke-dasharray="{dash}"/>')

    def card(x, y, c):
        cows = card_cows(c)
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" '
                   f'fill="{COW_COLOURS[cows]}" stroke="#333"/>')
        out.append(f'<text x="{x + w / 2}" y="{y + 26}" font-size="18" text-anchor="middle">'
                   f'{c}</text>')
        out.append(f'<text x="{x + w / 2}" y="{y + 46}" font-size="11" text-anchor="middle">'
                   f'{"●" * cows}</text>')

    for r, row in enumerate(position.rows):
        y = lines_y[r]
        out.append(f'<text x="6" y="{y + 33}" font-size="13">row {r + 1}</text>')
        for i in range(6):
            x = 60 + i * (w + gap)
            if i < len(row):
                card(x, y, row[i])
            else:
                place(x, y, sixth=i == 5)
    if hand:
        y = 10 + 4 * (h + gap) + 20
        out.append(f'<text x="6" y="{y + 33}" font-size="13">hand</text>')
        for i, c in enumerate(position.hand):
            card(60 + i * (w + gap), y, c)
    out.append(f"<title>{escape(' / '.join(','.join(map(str, r)) for r in position.rows))}"
               "</title></svg>")
    return "\n".join(out)


# ---------------------------------------------------------------- shared pieces

def _assemble(lines: list[str], table: str, verdict: str, tablefmt: str) -> str:
    """The head lines, the table and the verdict: Markdown (``github``) puts the first line
    in bold and breaks the others with two spaces; text separates them by blank lines."""
    if tablefmt == "github":
        return "\n\n".join(["**" + lines[0] + "**", "  \n".join(lines[1:]), table, verdict])
    return "\n".join(lines + ["", table, "", verdict])


def _table(rows: list[list[str]], headers: list[str], tablefmt: str) -> str:
    """A table of preformatted figures: the first column left, the others right."""
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                    colalign=["left"] + ["right"] * (len(headers) - 1))


def _interval_cells(c: Any) -> list[str]:
    """A sampled card's standard error and 95% interval."""
    return [f"{c.stderr:.3f}", f"[{c.ci95[0]:.3f}, {c.ci95[1]:.3f}]"]


def _stopped_line(stopped: str | None, samples: int | None) -> str:
    """Why a sampled analysis has fewer samples than asked (``stopped``: 'interrupted' or
    'time limit'), and how many its figures use."""
    why = {"interrupted": "interrupted (Ctrl-C)",
           "time limit": "stopped by the time limit"}.get(stopped or "", "stopped early")
    return f"{why} after {samples or 0:,} samples per card: the figures use those"


def _best_of(cards: Any, label: str) -> tuple[str, list[Any]]:
    """The verdict's start, ``best: CARDS (LABEL VALUE)`` over the tied best cards, and the
    cards that cost more, best first."""
    tied = [c.card for c in cards if c.regret <= SAME]
    verdict = f"best: {', '.join(map(str, tied))} ({label} {cards[0].value:.3f})"
    return verdict, [c for c in cards if c.regret > SAME]


def _next_best(rest: list[Any], sampled: bool) -> str:
    """The verdict's clause on the next best card (none when every card ties)."""
    if not rest:
        return ""
    if sampled:
        return (f"; the next best, {rest[0].card}, costs {rest[0].regret:.3f} ± "
                f"{Z95 * rest[0].regret_stderr:.3f} more")
    return f"; the next best, {rest[0].card}, costs {rest[0].regret:.3f} more"


def _with_interval(verdict: str, best: Any) -> str:
    """The verdict's value with its 95% interval: the interval, not "± half-width", as it
    stays inside the value's range (cows >= 0, a probability in [0, 1]) where a symmetric
    one would not."""
    return verdict[:-1] + f", 95% [{best.ci95[0]:.3f}, {best.ci95[1]:.3f}])"


# ---------------------------------------------------------------- analyses

def _group_cards(analysis: Any) -> list[tuple[list[int], Any]]:
    """Cards whose every figure is equal share a table line (exact results only)."""
    groups: list[tuple[list[int], Any]] = []
    for c in analysis.cards:
        if groups and analysis.method == "exact":
            last = groups[-1][1]
            if all(abs(a - b) <= SAME for a, b in ((c.value, last.value),
                                                   (c.cows_now, last.cows_now),
                                                   (c.take_probability, last.take_probability))):
                groups[-1][0].append(c.card)
                continue
        groups.append(([c.card], c))
    return groups


def _analysis_title(analysis: Any) -> str:
    """The first line: the position's rules, the opponents, the unit and the objective."""
    pos = analysis.position
    objective = analysis.extra.get("objective", "cows")
    return (f"{pos.variant}, {pos.players} players, {pos.placement} placement, "
            f"{pos.cards_left} card{'s' if pos.cards_left != 1 else ''} left each; "
            f"opponents: {analysis.opponents} ({analysis.unit} to the end of the round)"
            + (f"; objective: {objective}" if objective != "cows" else ""))


def _method_line(analysis: Any) -> str:
    """The method, why, and its work (nodes and seconds; Monte Carlo: the seed)."""
    work = (f"{analysis.nodes:,} nodes in {analysis.seconds:.3f} s"
            if analysis.method == Method.EXACT else f"{analysis.seconds:.3f} s")
    seed = f"; seed {analysis.extra['seed']}" if analysis.method == Method.MONTECARLO else ""
    return f"method: {analysis.method} ({analysis.reason}); {work}{seed}"


def _nash_line(extra: dict[str, Any], value: float) -> str:
    """The equilibrium's value, both players' expected cows and how its states were
    decided (LP, double oracle, saddle points, best replies, bounds)."""
    oracle = (f" ({extra['oracle_games']:,} of them by a double oracle)"
              if extra.get("oracle_games") else "")
    bounds = (f", {extra['bound_cutoffs']:,} by a bound (alpha-beta)"
              if extra["bound_cutoffs"] else "")
    return (f"game value {value:.4f} (your cows minus player 2's); under the equilibrium you "
            f"expect {extra['p1_expected_cows']:.3f} cows, player 2 "
            f"{extra['p2_expected_cows']:.3f}; states decided: {extra['matrix_games']:,} by LP"
            f"{oracle}, {extra['saddle_points']:,} by a saddle point of the whole matrix, "
            f"{extra['best_reply_saddles']:,} by best replies{bounds}")


def _analysis_head(analysis: Any) -> list[str]:
    """The lines above an analysis's table."""
    lines = [_analysis_title(analysis), _method_line(analysis)]
    if analysis.later_play:
        lines.append(f"samples: {analysis.cards[0].samples:,} per card; {analysis.later_play}")
    if analysis.method == Method.MONTECARLO and "quantity" in analysis.extra:
        lines.append(f"the figures estimate: {analysis.extra['quantity']}")
    if not analysis.complete:
        lines.append(_stopped_line(analysis.extra.get("stopped"), analysis.cards[0].samples))
    if analysis.opponents == Model.NASH:
        lines.append(_nash_line(analysis.extra, analysis.value))
    return lines


def _analysis_headers(analysis: Any) -> list[str]:
    """The table's columns: the card, its value and regret, the interval (Monte Carlo),
    then the equilibrium's frequency (nash) or the cows taken now and later."""
    nash = analysis.opponents == Model.NASH
    headers = ["card", "EV vs p2's equilibrium" if nash else analysis.unit, "regret"]
    if analysis.method == Method.MONTECARLO:
        headers += ["± stderr", "95% interval"]
    if nash:
        return headers + ["frequency"]
    now_label = "cows now" if analysis.opponents != Model.WORST else "cows now (line)"
    later = ["later"] if analysis.extra.get("objective", "cows") == "cows" else []
    return headers + ["P(take now)", now_label] + later


def _analysis_row(analysis: Any, cards: list[int], c: Any) -> list[str]:
    """One table line: the cards sharing the figures of ``c``, in the columns of
    ``_analysis_headers``."""
    row = [", ".join(map(str, cards)), f"{c.value:.3f}", f"{c.regret:.3f}"]
    if analysis.method == Method.MONTECARLO:
        row += _interval_cells(c)
    if analysis.opponents == Model.NASH:
        return row + [f"{c.frequency:.3f}"]
    row += [f"{c.take_probability:.3f}", f"{c.cows_now:.3f}"]
    if analysis.extra.get("objective", "cows") == "cows":
        row.append(f"{c.cows_later:.3f}")
    return row


def _nash_extras(analysis: Any, tablefmt: str, show_p2: bool, verified: bool) -> str:
    """What follows a nash table: player 2's side (``show_p2``) and the verification
    (``verified``)."""
    text = ""
    if show_p2:
        p2 = sorted(analysis.extra["p2_strategy"], key=lambda c: (-c["value"], c["card"]))
        text += "\n\nplayer 2's side (EV against your equilibrium strategy; player 2 maximises)\n"
        text += tabulate([[c["card"], f"{c['value']:.3f}", f"{c['frequency']:.3f}"] for c in p2],
                         headers=["p2 card", "EV vs your equilibrium", "frequency"],
                         tablefmt=tablefmt, disable_numparse=True)
    if verified:
        text += (f"\n\nverify: best responses at the root give back the value within "
                 f"{analysis.extra['exploitability']:.1e} (exploitability)")
    return text


def _noise_clause(noisy: list[Any]) -> str:
    """The verdict's clause on the cards whose difference from the best has a 95% interval
    holding 0: each named with its difference."""
    names = ", ".join(str(c.card) for c in noisy[:-1])
    names = f"{names} and {noisy[-1].card}" if names else str(noisy[0].card)
    diffs = ", ".join(f"{c.regret:.3f} ± {Z95 * c.regret_stderr:.3f}" for c in noisy)
    return (f"; {names} {'is' if len(noisy) == 1 else 'are'} within the noise "
            f"(difference{'s' if len(noisy) > 1 else ''} {diffs}; 95%)")


def _analysis_verdict(analysis: Any) -> str:
    """The last line: the best cards, and how much the next best costs (Monte Carlo: with
    its 95% interval, or the cards within the noise)."""
    verdict, rest = _best_of(analysis.cards, analysis.unit)
    if analysis.method != Method.MONTECARLO:
        return verdict + _next_best(rest, sampled=False)
    verdict = _with_interval(verdict, analysis.cards[0])
    noisy = [c for c in rest if c.regret_stderr is not None
             and c.regret <= Z95 * c.regret_stderr]  # the difference's 95% interval holds 0
    return verdict + (_noise_clause(noisy) if noisy else _next_best(rest, sampled=True))


def render_analysis(analysis: Any, tablefmt: str, show_p2: bool = False,
                    verified: bool = False) -> str:
    """The analysis as a table (``tablefmt``: a tabulate format). nash only: ``show_p2``
    adds player 2's side; ``verified`` says the strategies passed the best-response check
    (options of the rendering, never stored in the result)."""
    headers = _analysis_headers(analysis)
    table = _table([_analysis_row(analysis, cards, c) for cards, c in _group_cards(analysis)],
                   headers, tablefmt)
    if analysis.opponents == Model.NASH:
        table += _nash_extras(analysis, tablefmt, show_p2, verified)
    return _assemble(_analysis_head(analysis), table, _analysis_verdict(analysis), tablefmt)


def render_turn(answer: Any, tablefmt: str) -> str:
    """A row choice's answer (``queries.AnalyseAnswer`` of kind ``turn``): every row choice
    of your card in that turn, best first."""
    from ..search.analysis import UNITS

    position, cards, opponents, choices = (answer.position, answer.turn, answer.opponents,
                                           answer.result)
    unit = UNITS[opponents]
    now = "your cows - p2's now" if opponents == Model.NASH else "cows now"
    head = (f"{position.variant}, {position.players} players, {position.placement} "
            f"placement; turn {','.join(map(str, cards))}: your {cards[0]} has a choice; "
            f"opponents: {opponents} ({unit} to the end of the round)")
    rows = [[c.label + (" (rule-following)" if c.rule else ""), f"{c.cows_now:.3f}",
             f"{c.later:.3f}", f"{c.value:.3f}", f"{c.regret:.3f}"] for c in choices]
    table = tabulate(rows, headers=["choice", now, "later (best card after)", unit, "regret"],
                     tablefmt=tablefmt, disable_numparse=True)
    best = choices[0]
    return "\n".join([head, table, f"\nbest: {best.label} ({unit} {best.value:.3f})"])


def render_unfinished(stopped: Any, opponents: str, tablefmt: str) -> tuple[str, str]:
    """The cards a stopped exact search finished, marked incomplete: the head line and the
    table. Cards are solved in hand order, so no best card is claimed."""
    from ..search.analysis import UNITS

    unit = UNITS[opponents]
    head = (f"incomplete: exact search ({opponents}) stopped ({stopped.reason}) after "
            f"{stopped.nodes:,} nodes in {stopped.seconds:.1f} s; {len(stopped.finished)} of "
            f"{stopped.cards_total} cards solved, the others unknown")
    rows = [[c.card, f"{c.value:.3f}", f"{c.take_probability:.3f}", f"{c.cows_now:.3f}",
             f"{c.value - c.cows_now:.3f}"] for c in stopped.finished]
    return head, tabulate(rows, headers=["card", unit, "P(take now)", "cows now", "later"],
                          tablefmt=tablefmt, disable_numparse=True,
                          colalign=["left"] + ["right"] * 4)


# ---------------------------------------------------------------- the logic draft

def _seat_list(names: tuple[str, ...]) -> str:
    """Bots by seat, or one for every seat."""
    if len(set(names)) == 1:
        return f"{names[0]} (every seat)"
    return ", ".join(f"p{i} {b}" for i, b in enumerate(names, 1))


def _draft_head(result: Any) -> list[str]:
    """The lines above a draft analysis's table: the draft, its bots, the method."""
    d = result.draft
    mc = result.method == "montecarlo"
    lines = [f"logic draft, {d.players} players, {d.placement} placement, pick "
             f"{d.picks_done + 1} of {10 * d.players} ({d.order} from player {d.start}), "
             f"{plural(len(d.pool), 'card')} open; expected cows in the round after the draft",
             f"drafters: {_seat_list(result.drafters)}; round: {_seat_list(result.round_bots)}",
             f"method: {result.method} ({result.reason}); {result.seconds:.3f} s"
             + (f"; seed {result.seed}" if mc else "")]
    if mc:
        lines.append(f"samples: {result.cards[0].samples:,} per card")
    lines.append(f"the figures: {result.quantity}")
    if not result.complete:
        lines.append(_stopped_line(result.extra.get("stopped"), result.cards[0].samples))
    return lines


def _draft_table(result: Any, tablefmt: str) -> str:
    """One line per card to draft: its cows, the expected cows, the regret (Monte Carlo:
    the interval) and the others' cows."""
    mc = result.method == "montecarlo"
    headers = ["card", "cows on it", "expected cows", "regret"]
    headers += ["± stderr", "95% interval"] if mc else []
    headers += ["others' cows"]
    rows = []
    for c in result.cards:
        row = [str(c.card), str(card_cows(c.card)), f"{c.value:.3f}", f"{c.regret:.3f}"]
        if mc:
            row += _interval_cells(c)
        rows.append(row + [f"{c.others:.3f}"])
    return _table(rows, headers, tablefmt)


def _draft_verdict(result: Any) -> str:
    """The last line: the best cards to draft, and the next best (Monte Carlo: with its
    interval, or up to 8 cards within the noise)."""
    mc = result.method == "montecarlo"
    verdict, rest = _best_of(result.cards, "expected cows")
    if not mc:
        return verdict + _next_best(rest, sampled=False)
    verdict = _with_interval(verdict, result.cards[0])
    noisy = [c for c in rest if c.regret <= Z95 * c.regret_stderr]
    if not noisy:
        return verdict + _next_best(rest, sampled=True)
    shown = ", ".join(str(c.card) for c in noisy[:8]) + (", ..." if len(noisy) > 8 else "")
    return verdict + f"; within the noise (95% interval of the difference holds 0): {shown}"


def render_draft_analysis(result: Any, tablefmt: str) -> str:
    """A draft analysis as a table (``tablefmt``: a tabulate format), best card first."""
    return _assemble(_draft_head(result), _draft_table(result, tablefmt),
                     _draft_verdict(result), tablefmt)


# ---------------------------------------------------------------- simulations and arenas

def _interval(e: Any) -> str:
    """A mean with its 95% interval (the mean alone where there is none)."""
    if math.isnan(e.low):
        return f"{e.mean:.3f}"
    return f"{e.mean:.3f} [{e.low:.3f}, {e.high:.3f}]"


def render_simulation(result: Any, rules: Rules, one_round: bool, threshold: int) -> str:
    """``nimmt simulate``'s table: per seat, cows per round, final total and win rate."""
    lines = []
    rows = [[s.seat, s.bot, _interval(s.cows_per_round), _interval(s.final_total),
             _interval(s.win_rate)] for s in result.seats]
    lines.append(f"{plural(result.games, 'game')} ({rules.variant}, {rules.players} players, "
                 f"{rules.placement}, " + ("one round" if one_round else f"to {threshold}")
                 + f"), seed {result.seed}, {result.mean_rounds:.2f} rounds a game"
                 + (f"; drafters: {', '.join(result.drafters)}" if result.drafters else ""))
    if not result.complete:
        lines.append(f"stopped early: {result.games:,} of "
                     f"{plural(result.games_asked, 'game')}")
    lines.append(tabulate(rows, headers=["seat", "bot", "cows/round [95%]",
                                         "final total [95%]", "win rate [95%]"],
                          tablefmt="simple"))
    lines.append(f"{result.games_per_second:,.0f} games per second "
                 f"({result.games_per_second * result.mean_rounds:,.0f} rounds per second)")
    return "\n".join(lines)


def simulation_json(result: Any) -> dict[str, Any]:
    """``nimmt simulate --format json``: the rules, the run and every seat's estimates."""
    def est(e: Any) -> dict[str, Any]:
        return {"mean": e.mean, "ci95": [e.low, e.high]}

    return {"variant": result.rules.variant, "players": result.rules.players,
            "placement": result.rules.placement, "threshold": result.rules.threshold,
            "one_round": result.rules.one_round, "seed": result.seed, "games": result.games,
            **({"drafters": list(result.drafters)} if result.drafters else {}),
            "games_asked": result.games_asked, "complete": result.complete,
            "seconds": result.seconds,
            "games_per_second": result.games_per_second, "mean_rounds": result.mean_rounds,
            "seats": [{"seat": s.seat, "bot": s.bot, "cows_per_round": est(s.cows_per_round),
                       "final_total": est(s.final_total), "win_rate": est(s.win_rate)}
                      for s in result.seats]}


def render_arena(result: Any, tablefmt: str) -> str:
    """The arena's report as text tables (tabulate's ``simple`` or ``github``)."""
    rules = result.rules
    head = (f"{plural(result.deals, 'deal')}" + (" (duplicate: each replayed in every seat "
            "rotation)" if result.duplicate else "") + f", {len(result.games):,} games; "
            f"{rules.variant}, {rules.players} players, {rules.placement}, "
            + ("one round" if rules.one_round else f"to {rules.threshold}")
            + f"; seed {result.seed}; {result.seconds:.1f} s")
    if result.drafters:
        head += "\ndrafters: " + ", ".join(f"{b} drafts {d}"
                                          for b, d in zip(result.bots, result.drafters))
    if not result.complete:
        head += f"\nstopped early: {result.deals} of {plural(result.deals_asked, 'deal')}"
    rows = [[s.bot, _interval(s.cows_per_round), _interval(s.win_rate),
             f"{s.rating:+.0f} [{s.rating_low:+.0f}, {s.rating_high:+.0f}]"
             if s.bot != result.anchor else "0 (anchor)",
             f"{s.mean_seconds:.4f}", f"{s.p95_seconds:.4f}"] for s in result.summaries]
    table = tabulate(rows, headers=["bot", "cows/round [95%]", "win rate [95%]",
                                    "rating [95%]", "s/decision", "p95 s"],
                     tablefmt=tablefmt, disable_numparse=True)
    pair = tabulate([[a] + ["" if e is None else f"{e.mean:.3f}" for e in result.pairwise[i]]
                     for i, a in enumerate(result.bots)] if result.pairwise else [],
                    headers=["row beats column", *result.bots], tablefmt=tablefmt,
                    disable_numparse=True)
    note = ("rating: Bradley-Terry on the Elo scale, anchor " + result.anchor
            + "; pairwise: share of games the row bot ended with fewer cows (ties half)")
    return "\n\n".join([head, table, pair, note])


# ---------------------------------------------------------------- solved deals

def deal_plan_table(plan: list[dict[str, Any]]) -> str:
    """``solve-deal``'s plan: per cards left, the states stored, their memory, whether
    they fit."""
    return tabulate([[p["cards_left"], f"{p['states']:,}", f"{p['bytes'] / 2**30:,.2f} GiB",
                      "yes" if p["fits"] else "no"] for p in plan],
                    headers=["cards left", "states stored (estimate)", "memory", "fits"],
                    tablefmt="simple")


def deals_report(finished: list[dict[str, Any]], summary: dict[str, Any], seed: int) -> str:
    """``solve-deal --deals``: one line per deal solved (its value, each player's first
    card(s) in the equilibrium, whether it is a pure saddle point), then what they say
    (``deals.deal_summary``)."""
    def opens(strategy: list[dict[str, Any]]) -> str:
        cards = support(strategy)
        return " ".join(f"{c}" if len(cards) == 1 else f"{c}:{f:.2f}" for c, f in cards)

    text = tabulate([[u["index"], u["solved_from"], f"{u['value']:.4f}",
                      opens(u["p1_strategy"]), opens(u["p2_strategy"]),
                      "yes" if is_pure(u) else "no", f"{u['solve']['stored']:,}",
                      f"{u['solve']['seconds']:.1f}", u["deal"]] for u in finished],
                    headers=["deal", "solved from k", "value", "p1 opens", "p2 opens", "pure",
                             "states stored", "s", "position dealt"], tablefmt="simple")
    if finished:
        lo, hi = summary["mean_interval"]
        plo, phi = summary["pure_interval"]
        ranks = " / ".join(
            f"player {side[1]}: " + ", ".join(f"{share:.0%}" for share in
                                              summary["first_card_rank"][side])
            for side in ("p1", "p2"))
        text += (f"\n\n{len(finished)} deals (seed {seed}): value (player 1's cows minus "
                 f"player 2's) mean {summary['mean']:.3f}, 95% interval [{lo:.3f}, {hi:.3f}] "
                 f"(standard error {summary['stderr']:.3f}), sd {summary['sd']:.3f}, min "
                 f"{summary['min']:.3f}, quartiles {summary['q1']:.3f} / "
                 f"{summary['median']:.3f} / {summary['q3']:.3f}, max {summary['max']:.3f}; "
                 f"player 1 better in {summary['player_1_better']}, even in "
                 f"{summary['even']}, player 2 better in {summary['player_2_better']}\n"
                 f"pure saddle points: {summary['pure']} of {len(finished)} "
                 f"({summary['pure_share']:.0%}, 95% interval {plo:.0%}-{phi:.0%})\n"
                 f"first card by its rank in the hand (lowest first): {ranks}")
    return text
