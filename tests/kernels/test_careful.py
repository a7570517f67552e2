"""The ``careful`` rule bot (the fewest expected cows this turn), held against its rule
written out on the reference engine (``naive.careful_risks``) over random tables and hands
of every variant, both placement rules and 2-10 players."""
from __future__ import annotations

import random

import pytest

from nimmt.solver.base.rules import Rules
from nimmt.solver.kernels.engine import bot_card
from nimmt.solver.search.game import deal_position

from naive import careful_risks

TOLERANCE = 1e-9  # the kernel's and the rule's floating point may differ in the last bits


def random_table(rng: random.Random, deck: int, players: int):
    """Four rows of 1-5 cards and a hand of 1-10 cards, all different, from 1..deck."""
    lengths = [rng.randint(1, 5) for _ in range(4)]
    k = rng.randint(1, min(10, deck - sum(lengths)))
    cards = rng.sample(range(1, deck + 1), sum(lengths) + k)
    rows, at = [], 0
    for length in lengths:
        rows.append(sorted(cards[at:at + length]))
        at += length
    return sorted(rows, key=lambda r: r[-1]), sorted(cards[at:])


@pytest.mark.parametrize("professional", [False, True])
@pytest.mark.parametrize("players,deck", [(2, 24), (4, 44), (4, 104), (10, 104)])
def test_careful_plays_a_card_of_fewest_expected_cows(professional, players, deck):
    rng = random.Random(f"{professional} {players} {deck}")
    unique_best = 0
    for _ in range(400):
        rows, hand = random_table(rng, deck, players)
        risks = careful_risks(hand, rows, professional, players, deck)
        card = bot_card("careful", hand, rows, professional, players=players, deck_size=deck)
        least = min(r for r, _ in risks.values())
        assert risks[card][0] <= least + TOLERANCE, (rows, hand, risks, card)
        near = [c for c in hand if risks[c][0] <= least + TOLERANCE]
        if len(near) == 1 or all(risks[c][0] == least for c in near):
            want = min(near, key=lambda c: (risks[c][1], c))  # ties: distance, then card
            assert card == want, (rows, hand, risks, card)
            unique_best += 1
    assert unique_best > 300  # the tie rule was checked on most tables


def test_careful_counts_the_players():
    """One card may be the sixth of its row only if enough others can land in between:
    with two players a row of four needs one card from the other player, with three of
    three it is safe for two players but not for ten."""
    rows = [[10, 11, 12], [30], [50], [70]]
    hand = [14, 31]  # 14: 2 cards needed before it; 31: gap 1, row of one card
    assert bot_card("careful", hand, rows, players=2, deck_size=104) in hand
    two = careful_risks(hand, rows, False, 2, 104)
    ten = careful_risks(hand, rows, False, 10, 104)
    assert two[14][0] == 0.0 < ten[14][0]


@pytest.mark.parametrize("variant", ["standard", "tactical"])
def test_careful_takes_fewer_cows_than_closest_in_play(variant):
    """Not a strength claim (benchmarks/ has those), a check that the rule does what it is
    for: over the same 200 dealt turns, its card's rule-estimated cows are never above
    closest's card's."""
    for seed in range(200):
        position = deal_position(Rules(variant, 4), 10, seed=seed)
        args = dict(players=4, deck_size=position.deck_size)
        risks = careful_risks(position.hand, position.rows, False, 4, position.deck_size)
        careful = bot_card("careful", position.hand, position.rows, **args)
        closest = bot_card("closest", position.hand, position.rows, **args)
        assert risks[careful][0] <= risks[closest][0] + TOLERANCE
