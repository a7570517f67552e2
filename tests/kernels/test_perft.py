"""Perft: count every way the rest of a round can go, two independent ways.

Three pinned small positions with all hands known (``data/perft.json``). From a
position, every player plays any card of its hand each turn; a card with several
options (a take: 4 rows; a professional tie: 2 sides) branches once per option.
We count the joint-action histories to the end of the round, the distinct
end-of-round row states, and how many placements in the tree were takes, ties and
sixth cards. One count walks the tree with ``reference.options``/``apply_option``,
the other with the kernels' ``turns.option_count``/``engine.place_card`` on a row table; both
must equal the stored numbers.

Run ``python tests/kernels/test_perft.py`` to print the counts of the stored positions.
"""
from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from nimmt.solver.base.rules import COWS
from nimmt.solver.kernels import engine, turns

from naive import after_turn
from naive import perft as reference_perft

DATA = Path(__file__).resolve().parents[1] / "data" / "perft.json"
COUNTED = ("histories", "states", "takes", "ties", "sixths")


# ---------------------------------------------------------------- on the reference
# naive.perft, imported as reference_perft


# ---------------------------------------------------------------- on the kernels

def kernel_perft(rows, hands, professional):
    """The same counts from the kernels' row table; card lists kept beside it from what
    ``engine.place_card`` reports (row, side, cows taken)."""
    events = Counter()
    states = set()

    def place(table, rows, cards):
        if not cards:
            yield table, rows
            return
        card = cards[0]
        count = turns.option_count(table, card, professional)
        assert count in (1, 2, 4)
        if count == 4:
            choices = [(r, -1) for r in range(4)]
        elif count == 2:
            choices = [(-1, side) for side in (engine.SIDE_RIGHT, engine.SIDE_LEFT)]
        else:
            choices = [(-1, -1)]
        for take_row, tie_side in choices:
            new = table.copy()
            r, side, taken = engine.place_card(new, card, professional, take_row, tie_side)
            if count == 4:
                assert r == take_row and taken == sum(COWS[c] for c in rows[r])
                events["takes"] += 1
            elif count == 2:
                assert side == tie_side
                events["ties"] += 1
            if count != 4 and taken:
                assert len(rows[r]) == 5 and taken == sum(COWS[c] for c in rows[r])
                events["sixths"] += 1
            row = ((card,) if taken else
                   rows[r] + (card,) if side == engine.SIDE_RIGHT else (card,) + rows[r])
            yield from place(new, rows[:r] + (row,) + rows[r + 1:], cards[1:])

    def walk(table, rows, hands):
        if not hands[0]:
            assert (table == engine.row_table(rows)).all()  # the table kept up with the cards
            states.add(rows)
            return 1
        total = 0
        for combo in itertools.product(*hands):
            for new_table, new_rows in place(table, rows, sorted(combo)):
                total += walk(new_table, new_rows, after_turn(hands, combo))
        return total

    rows = tuple(tuple(r) for r in rows)
    histories = walk(engine.row_table(rows), rows, [list(h) for h in hands])
    return histories, states, events


def counts(result):
    histories, states, events = result
    return {"histories": histories, "states": len(states),
            **{k: events[k] for k in ("takes", "ties", "sixths")}}


# ---------------------------------------------------------------- the pinned positions

def positions():
    return json.loads(DATA.read_text())["positions"]


def check_position_is_legal(pos):
    deck = pos["deck_size"]
    rows, hands = pos["rows"], pos["hands"]
    cards = [c for r in rows for c in r] + [c for h in hands for c in h]
    assert len(cards) == len(set(cards)) and all(1 <= c <= deck for c in cards)
    assert len(rows) == 4 and all(1 <= len(r) <= 5 and r == sorted(r) for r in rows)
    assert len(hands) == pos["players"] and len({len(h) for h in hands}) == 1
    assert deck == 10 * pos["players"] + 4  # tactical


@pytest.mark.parametrize("pos", positions(), ids=lambda p: p["name"])
def test_perft(pos):
    check_position_is_legal(pos)
    professional = pos["placement"] == "professional"
    expected = {k: pos[k] for k in COUNTED}
    ref = reference_perft(pos["rows"], pos["hands"], professional)
    ker = kernel_perft(pos["rows"], pos["hands"], professional)
    assert ref[2] == ker[2] and ref[1] == {tuple(r) for r in ker[1]}  # the same states
    assert counts(ref) == expected
    assert counts(ker) == expected
    assert 0 < expected["states"] < expected["histories"]
    # the positions were picked so that every rule happens inside the tree
    assert expected["takes"] > 0 and expected["sixths"] > 0
    assert (expected["ties"] > 0) == professional


if __name__ == "__main__":
    for pos in positions():
        prof = pos["placement"] == "professional"
        print(pos["name"], counts(reference_perft(pos["rows"], pos["hands"], prof)),
              counts(kernel_perft(pos["rows"], pos["hands"], prof)))


def test_counting_by_hand():
    """Tiny trees counted on paper, to pin what a history is."""
    rows = [[10], [20], [30], [40]]
    for perft in (reference_perft, kernel_perft):
        # 5 is below every row: 4 takes; 6 then follows 5 wherever it went
        assert counts(perft(rows, [[5], [6]], False))["histories"] == 4
        assert counts(perft(rows, [[5], [6]], False))["states"] == 4
        # two turns: (5,6) 4 then 1; (5,60) 4 then 1; (50,6) 1 then 5 is low again: 4 x 4;
        # (50,60) 1 then 4
        assert counts(perft(rows, [[5, 50], [6, 60]], False))["histories"] == 4 + 4 + 16 + 4
        # professional: 15 ties (10 | 20) and so does 25 (20 | 30) on either result
        got = counts(perft(rows, [[15], [25]], True))
        assert got == {"histories": 4, "states": 4, "takes": 0, "ties": 6, "sixths": 0}
