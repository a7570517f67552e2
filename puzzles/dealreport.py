"""The report of a batch of solved two-player deals (``nimmt solve-deal --deals N --report
FILE``): one row per deal, what the batch says (the mean value with its interval, the share
of pure saddle points, which card of the hand each player opens with), and the equilibrium's
first card beside the strongest two-player bot's, with three pictures.

The bot is ``ismcts`` (the rating list's strongest in two-player tactical, docs/PERFORMANCE.md)
for the objective the equilibrium solves, the margin (its own cows minus the other's: with
the default objective, its own cows alone, it can rightly prefer a card that costs it fewer
cows and the other player even fewer), at its default budget, seeded by each deal's own
seed, choosing from each player's own view (in the two-player tactical game every card is
in play, so both hands are known). Its
*loss* is what its first card costs against the other player's equilibrium strategy, in
cows of value: player 1's card's value minus the deal's value, the deal's value minus player
2's card's value (zero for a card in the equilibrium's support)."""
from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from ..solver.base.fileio import atomic_write_text
from ..solver.base.pictures import (
    NO_PICTURES,
    figure_bytes,
    have_pictures,
    matplotlib_figure,
    matplotlib_ticker,
    write_beside,
)
from ..solver.players.bots import make_policy
from ..solver.positions.position import Position, parse_position
from ..solver.search.deals import first_card_ranks, is_pure, support
from .studyreport import FORMATS as REPORT_FORMATS
from .studyreport import STYLE
from .studyreport import check_format as check_report_format

__all__ = ["BOT", "REPORT_FORMATS", "bot_first_cards", "check_report_format", "summary_lines",
           "write_deal_report"]

BOT = "ismcts:objective=margin"
PICTURES = ("values", "ranks", "bot")


def _seat_views(position: Position) -> tuple[Position, Position]:
    """Player 1's and player 2's own view of a two-player position with both hands known."""
    p1, p2 = tuple(position.hand), tuple(position.hands[1] or ())

    def view(own: tuple[int, ...], other: tuple[int, ...], scores: list[int]) -> Position:
        return Position.make(players=2, rows=position.rows, hand=own, variant=position.variant,
                             placement=position.placement, others={2: other},
                             gone=position.gone, scores=scores, threshold=position.threshold)

    scores = list(position.scores)
    return view(p1, p2, scores), view(p2, p1, scores[::-1])


def bot_first_cards(deals: Sequence[dict], bot: str = BOT,
                    on_deal: Callable[[], None] | None = None) -> list[dict]:
    """For each solved deal, ``bot``'s first card for each player (seeded by the deal's
    seed) and its loss against the other side's equilibrium strategy (module docstring)."""
    out = []
    for deal in deals:
        position = parse_position(deal["position"])
        row: dict[str, Any] = {"index": deal["index"], "bot": bot}
        for side, view in zip(("p1", "p2"), _seat_views(position)):
            card = make_policy(bot, seed=deal["deal_seed"]).choose(view).card
            value = next(s["value"] for s in deal[f"{side}_strategy"] if s["card"] == card)
            loss = value - deal["value"] if side == "p1" else deal["value"] - value
            row[f"{side}_card"] = card
            row[f"{side}_loss"] = max(0.0, loss)  # float noise below zero is no loss
            row[f"{side}_in_support"] = card in dict(support(deal[f"{side}_strategy"]))
        out.append(row)
        if on_deal:
            on_deal()
    return out


def _opens(strategy: Sequence[dict]) -> str:
    """A strategy's support: '16' for a pure one, '6 .62, 8 .38' for a mixed one."""
    cards = support(strategy)
    if len(cards) == 1:
        return str(cards[0][0])
    return ", ".join(f"{c} {f:.2f}".replace("0.", ".") for c, f in cards)


def deal_rows(batch: dict, compared: Sequence[dict]) -> tuple[list[str], list[list[str]]]:
    """The report's table: a row per deal."""
    bot = {c["index"]: c for c in compared}
    header = ["deal", "k", "value", "p1 opens", "p2 opens", "pure",
              "bot: p1 (loss)", "bot: p2 (loss)", "states stored", "s", "peak GiB"]
    rows = []
    for d in batch["solutions"]:
        b = bot.get(d["index"])
        peak = d.get("process_peak_bytes")
        rows.append([str(d["index"]), str(d["solved_from"]), f"{d['value']:.4f}",
                     _opens(d["p1_strategy"]), _opens(d["p2_strategy"]),
                     "yes" if is_pure(d) else "no",
                     f"{b['p1_card']} ({b['p1_loss']:.3f})" if b else "",
                     f"{b['p2_card']} ({b['p2_loss']:.3f})" if b else "",
                     f"{d['solve']['stored']:,}", f"{d['solve']['seconds']:.1f}",
                     f"{peak / 2**30:.2f}" if peak else ""])
    return header, rows


def summary_lines(batch: dict, compared: Sequence[dict]) -> list[str]:
    """The report's summary, a sentence a line: the batch, the values, the pure saddle
    points and (with ``compared``) the bot's first cards."""
    s = batch["summary"]
    n = s["deals"]
    before = ("" if batch["cards_left"] >= 10 else
              f" after {10 - batch['cards_left']} turns of random bots")
    lines = [f"{n} deals (seed {batch['seed']}, {batch['variant']}, {batch['placement']} "
             f"placement, solved from {batch['cards_left']} cards each{before})" +
             ("" if batch["complete"] else f", {batch['finished']} of {batch['deals']} "
              "finished")]
    if n:
        lo, hi = s["mean_interval"]
        plo, phi = s["pure_interval"]
        lines += [f"value (player 1's cows minus player 2's): mean {s['mean']:.3f}, 95% "
                  f"interval [{lo:.3f}, {hi:.3f}]; median {s['median']:.3f}; player 1 better "
                  f"in {s['player_1_better']}, player 2 in {s['player_2_better']}, even in "
                  f"{s['even']}",
                  f"pure saddle points: {s['pure']} of {n} ({s['pure_share']:.0%}, 95% "
                  f"interval {plo:.0%}-{phi:.0%})"]
    if compared:
        m = len(compared)
        for side, name in (("p1", "player 1"), ("p2", "player 2")):
            inside = sum(c[f"{side}_in_support"] for c in compared)
            loss = sum(c[f"{side}_loss"] for c in compared) / m
            lines.append(f"{BOT}'s first card for {name}: in the equilibrium's support in "
                         f"{inside} of {m} deals; mean loss {loss:.3f} cows")
    return lines


def _rank_rows(batch: dict) -> tuple[list[str], list[list[str]]]:
    ranks = {side: first_card_ranks(batch["solutions"], side) for side in ("p1", "p2")}
    width = max(len(ranks["p1"]), len(ranks["p2"]))
    header = ["card of the hand (1: lowest)", "player 1 opens with it", "player 2"]
    rows = [[str(r + 1)] + [f"{ranks[side][r]:.1%}" if r < len(ranks[side]) else ""
                            for side in ("p1", "p2")] for r in range(width)]
    return header, rows


def pictures(batch: dict, compared: Sequence[dict], fmt: str) -> dict[str, bytes]:
    """The three pictures as ``fmt`` ('svg' or 'png') bytes, by name: the values'
    distribution, the first card's rank for each player, and the bot's losses."""
    Figure = matplotlib_figure()
    deals = batch["solutions"]
    out: dict[str, bytes] = {}

    def save(fig: Any, name: str) -> None:
        out[name] = figure_bytes(fig, fmt)

    fig = Figure(figsize=(5.2, 3.2))
    ax = fig.add_subplot()
    values = [d["value"] for d in deals]
    ax.hist(values, bins=min(20, max(5, len(values) // 2)), color="#4a78b0", edgecolor="white")
    ax.axvline(batch["summary"]["mean"], color="#c0392b", linestyle="--", label="mean")
    ax.axvline(0, color="#555", linewidth=0.8)
    ax.set_xlabel("value: player 1's cows minus player 2's")
    ax.set_ylabel("deals")
    ax.legend(frameon=False)
    save(fig, "values")

    fig = Figure(figsize=(5.2, 3.2))
    ax = fig.add_subplot()
    ranks = {side: first_card_ranks(deals, side) for side in ("p1", "p2")}
    width = max(len(ranks["p1"]), len(ranks["p2"]))
    xs = range(1, width + 1)
    for shift, side, color in ((-0.2, "p1", "#4a78b0"), (0.2, "p2", "#e08a2c")):
        ax.bar([x + shift for x in xs][:len(ranks[side])], ranks[side], width=0.4,
               color=color, label=f"player {side[1]}")
    ax.set_xticks(list(xs))
    ax.set_xlabel("the equilibrium's first card: its rank in the hand (1: lowest)")
    ax.set_ylabel("share of deals")
    ax.legend(frameon=False)
    save(fig, "ranks")

    fig = Figure(figsize=(5.2, 3.2))
    ax = fig.add_subplot()
    for shift, side, color in ((-0.2, "p1", "#4a78b0"), (0.2, "p2", "#e08a2c")):
        ax.bar([c["index"] + shift for c in compared], [c[f"{side}_loss"] for c in compared],
               width=0.4, color=color, label=f"player {side[1]}")
    ax.set_xlabel("deal")
    ax.xaxis.set_major_locator(matplotlib_ticker().MaxNLocator(integer=True))
    ax.set_ylabel("its first card's loss (cows)")
    ax.set_title(BOT, fontsize=10)
    ax.legend(frameon=False)
    save(fig, "bot")
    return out


CAPTIONS = {"values": "The deals' values", "ranks": "Which card of the hand the equilibrium "
            "opens with", "bot": f"What {BOT}'s first card loses against the equilibrium"}


def _html(batch: dict, compared: Sequence[dict], svgs: dict[str, bytes]) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>nimmt: solved deals</title><style>{STYLE}</style></head><body>",
             "<h1>Solved deals</h1>"]
    parts += [f"<p>{e(line)}</p>" for line in summary_lines(batch, compared)]
    if not svgs:
        parts.append(f"<p><em>({e(NO_PICTURES)})</em></p>")
    for name in PICTURES:
        if name in svgs:
            svg = svgs[name].decode("utf-8")
            parts.append(f"<figure>{svg[svg.index('<svg'):]}<figcaption>{e(CAPTIONS[name])}"
                         "</figcaption></figure>")
    for caption, (header, rows) in (("Every deal", deal_rows(batch, compared)),
                                    ("First cards by rank", _rank_rows(batch))):
        parts.append(f"<h2>{e(caption)}</h2><table><tr>"
                     + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")
        parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows]
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _markdown(batch: dict, compared: Sequence[dict], pngs: dict[str, str]) -> str:
    lines = ["# Solved deals", ""]
    lines += [line for text in summary_lines(batch, compared) for line in (text, "")]
    if not pngs:
        lines += [f"*({NO_PICTURES})*", ""]
    lines += [f"![{CAPTIONS[name]}]({pngs[name]})\n" for name in PICTURES if name in pngs]
    for caption, (header, rows) in (("Every deal", deal_rows(batch, compared)),
                                    ("First cards by rank", _rank_rows(batch))):
        lines += [f"## {caption}", "", "| " + " | ".join(header) + " |",
                  "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines)


def write_deal_report(batch: dict, compared: Sequence[dict], path: str) -> list[str]:
    """Write the report of ``batch`` (``solve-deal --deals``'s JSON) and the bot's first
    cards ``compared`` to ``path`` (its suffix picks the format; Markdown puts
    NAME-values.png, NAME-ranks.png and NAME-bot.png beside it); returns the files
    written, each atomically."""
    suffix = check_report_format(path)
    if suffix == ".json":
        atomic_write_text(path, json.dumps({**batch, "bot_first_cards": list(compared)},
                                           indent=1) + "\n")
        return [path]
    drawn = have_pictures() and bool(batch["solutions"])
    if suffix == ".html":
        atomic_write_text(path, _html(batch, compared,
                                      pictures(batch, compared, "svg") if drawn else {}))
        return [path]
    names = write_beside(path, pictures(batch, compared, "png") if drawn else {})
    written = [os.path.join(os.path.dirname(path), n) for n in names.values()]
    atomic_write_text(path, _markdown(batch, compared, names))
    return [path, *written]
