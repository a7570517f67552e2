"""Pictures of a position: the text board of `nimmt show` and an SVG of the rows."""
from __future__ import annotations

from html import escape

from tabulate import tabulate

from ..base.names import Variant
from ..base.rules import card_cows, plural
from ..positions.position import Position

__all__ = ["render_position", "rows_svg"]


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
