"""The learned card policy (solver/kernels/learned.py) held against a pure-Python policy built
on the reference engine: the features of every card, the probabilities, the greedy choice and
whole rounds played by it; and the sampled choice against its probabilities."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.solver.base import reference
from nimmt.solver.kernels import engine
from nimmt.solver.kernels.learned import (
    FEATURES,
    POLICY_GREEDY,
    POLICY_LEARNED,
    card_features,
    card_score,
    hidden_units,
    linear_score,
    play_probs,
    policy_card,
    policy_card_untried,
    policy_probs,
    policy_rounds,
    policy_scratch,
)
from nimmt.solver.players.training import load_weights

import naive


def random_table(rng: random.Random, players: int, deck: int, k: int, professional: bool):
    """Rows of 1-5 cards and a hand of k, all distinct, cards 1..deck."""
    lengths = [rng.randint(1, 5) for _ in range(4)]
    while sum(lengths) + k > deck:
        lengths[lengths.index(max(lengths))] -= 1
    cards = rng.sample(range(1, deck + 1), sum(lengths) + k)
    rows, at = [], 0
    for length in lengths:
        rows.append(sorted(cards[at:at + length]))
        at += length
    rows.sort(key=lambda row: row[-1])
    hand = sorted(cards[at:])
    return rows, hand


def kernel_probs(weights, hand, rows, players, deck, professional):
    feats, probs = np.zeros((10, FEATURES)), np.zeros(10)
    policy_probs(weights, engine.row_table(rows), np.asarray(hand, np.int64), len(hand),
                 players, deck, professional, feats, probs)
    return feats, probs[:len(hand)]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**9), st.integers(2, 10), st.integers(1, 10), st.booleans(),
       st.sampled_from([0, 0, 1, 5]))
def test_features_and_probabilities_match_the_reference(seed, players, k, professional,
                                                        units):
    """Linear policies and networks of ``units`` hidden units (``card_score``)."""
    rng = random.Random(seed)
    deck = rng.choice([10 * players + 4, 104])
    rows, hand = random_table(rng, players, deck, k, professional)
    size = FEATURES + units * (FEATURES + 2)
    assert hidden_units(size) == units and hidden_units(size + 1) == -1
    weights = np.asarray([rng.uniform(-5, 5) for _ in range(size)])
    feats, probs = kernel_probs(weights, hand, rows, players, deck, professional)
    for i, card in enumerate(hand):
        assert feats[i] == pytest.approx(naive.learned_features(card, hand, rows, players, deck,
                                                         professional), abs=1e-12), card
    assert probs == pytest.approx(naive.learned_probs(weights, hand, rows, players, deck,
                                               professional), abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**9), st.integers(2, 10), st.integers(1, 10), st.booleans(),
       st.sampled_from([1.0, 10.0, 30.0]))
def test_a_linear_score_without_features_is_the_score_of_the_features_to_the_bit(
        seed, players, k, professional, sharp):
    """``linear_score`` (the playouts' path) against ``card_score`` of ``card_features``:
    equal to the last bit, for random weights and the shipped ones made sharp; and
    ``play_probs`` gives ``policy_probs``'s probabilities exactly, a network's too."""
    rng = random.Random(seed)
    deck = rng.choice([10 * players + 4, 104])
    rows, hand = random_table(rng, players, deck, k, professional)
    table, cards = engine.row_table(rows), np.asarray(hand, np.int64)
    for weights in (np.asarray([rng.uniform(-5, 5) for _ in range(FEATURES)]),
                    load_weights() * sharp):
        f = np.zeros(FEATURES)
        for i in range(k):
            card_features(table, cards, k, i, players, deck, professional, f)
            assert linear_score(weights, table, cards, k, i, players, deck,
                                professional) == card_score(weights, f)
    for size in (FEATURES, FEATURES + 3 * (FEATURES + 2)):
        weights = np.asarray([rng.uniform(-5, 5) for _ in range(size)])
        _, want = kernel_probs(weights, hand, rows, players, deck, professional)
        got = np.zeros(10)
        play_probs(weights, table, cards, k, players, deck, professional,
                   np.zeros((10, FEATURES)), got)
        assert np.array_equal(got[:k], want)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.integers(2, 10), st.integers(2, 10),
       st.sampled_from([1.0, 10.0, 30.0]), st.sampled_from([0, 0, 3]))
def test_a_playout_card_is_the_card_drawn_from_the_normalised_probabilities(seed, players, k,
                                                                            sharp, units):
    """``policy_card`` draws from unnormalised scores: on the same random stream it plays
    the card that a draw from ``policy_probs``'s probabilities plays (the stream's number
    u against their running sum), draw after draw, and the stream moves on alike. The
    shipped linear policy, and networks of ``units`` hidden units (scored by a call of
    their own, ``_network_score``, not the linear policy's inlined score)."""
    rng = random.Random(seed)
    deck = rng.choice([10 * players + 4, 104])
    rows, hand = random_table(rng, players, deck, k, False)
    weights = load_weights() * sharp
    if units:
        weights = np.concatenate([weights, [rng.uniform(-2, 2)
                                            for _ in range(units * (FEATURES + 2))]])
        assert hidden_units(weights.size) == units
    _, probs = kernel_probs(weights, hand, rows, players, deck, False)
    table, cards = engine.row_table(rows), np.asarray(hand, np.int64)
    state = np.asarray([engine.rng_seed(seed, 2)], np.uint64)
    twin = state.copy()
    scratch = policy_scratch()
    for _ in range(200):
        got = policy_card(POLICY_LEARNED, weights, cards, k, table, False, state, players,
                          deck, scratch)
        u = (engine.rng_below(twin, 1 << 30) + 0.5) / (1 << 30)
        want = next((i for i in range(k - 1) if u < probs[:i + 1].sum()), k - 1)
        assert got == want
    assert state[0] == twin[0]


def test_one_feature_alone_by_name():
    """card_features in isolation: a card that takes a row says so, with the row's cows."""
    rows = [[10], [20, 21], [30], [40, 41, 42, 43, 44]]
    table = engine.row_table(rows)
    f = np.zeros(FEATURES)
    card_features(table, np.asarray([5, 45], np.int64), 2, 0, 4, 104, False, f)
    assert f[0] == 1.0 and f[1] == pytest.approx(0.3)  # row 1 (10: 3 cows) is the cheapest
    card_features(table, np.asarray([5, 45], np.int64), 2, 1, 4, 104, False, f)
    assert f[0] == 0.0 and f[7] == 1.0 and f[2] == pytest.approx(
        reference.row_cows(rows[3]) / 10)


def test_the_greedy_card_is_the_most_likely_and_sampling_follows_the_probabilities():
    weights = load_weights()
    rows, hand = [[3], [27, 28], [51, 52, 53, 55, 60], [80]], [1, 29, 33, 61, 79, 90, 104]
    _, probs = kernel_probs(weights, hand, rows, 4, 104, False)
    table, cards = engine.row_table(rows), np.asarray(hand, np.int64)
    rng = np.asarray([engine.rng_seed(7, 0)], np.uint64)
    greedy = policy_card(POLICY_GREEDY, weights, cards, len(hand), table, False, rng, 4, 104,
                         policy_scratch())
    assert greedy == int(np.argmax(probs))
    draws = 20_000
    counts = np.zeros(len(hand))
    scratch = policy_scratch()
    for _ in range(draws):
        counts[policy_card(POLICY_LEARNED, weights, cards, len(hand), table, False, rng, 4,
                           104, scratch)] += 1
    # every card's share within 5 standard errors of its probability
    se = np.sqrt(probs * (1 - probs) / draws)
    assert np.all(np.abs(counts / draws - probs) <= 5 * se + 1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9), st.integers(2, 6), st.integers(2, 10))
def test_an_untried_card_follows_the_probabilities_of_the_cards_not_tried(seed, players, k):
    """``policy_card_untried`` never gives a tried card, and draws the others in proportion
    to the reference policy's probabilities, renormalised over them (a sharp policy too:
    weights times 30, where the tried favourite would underflow a plain softmax)."""
    rng = random.Random(seed)
    deck = rng.choice([10 * players + 4, 104])
    rows, hand = random_table(rng, players, deck, k, False)
    weights = load_weights() * rng.choice([1.0, 30.0])
    tried = np.zeros(deck + 1)
    for card in rng.sample(hand, rng.randint(0, k - 1)):
        tried[card] = rng.randint(1, 5)
    free = np.asarray([tried[c] == 0 for c in hand])
    assert free.any()
    scores = np.asarray([naive.learned_score(weights, naive.learned_features(
        c, hand, rows, players, deck, False)) for c in hand])
    want = np.exp(np.where(free, scores - scores[free].max(), -np.inf))
    want = want / want.sum()
    table, cards = engine.row_table(rows), np.asarray(hand, np.int64)
    state = np.asarray([engine.rng_seed(seed, 1)], np.uint64)
    scratch = policy_scratch()
    draws = 3000
    counts = np.zeros(k)
    for _ in range(draws):
        counts[policy_card_untried(weights, cards, k, table, False, state, players, deck,
                                   scratch, tried)] += 1
    assert counts[~free].sum() == 0
    se = np.sqrt(want * (1 - want) / draws)
    assert np.all(np.abs(counts / draws - want) <= 5 * se + 2e-3)


def test_a_rule_code_is_the_rule_bot():
    rows, hand = [[3], [27, 28], [51, 52], [80]], [1, 29, 33, 61]
    cards = np.asarray(hand, np.int64)
    for name, code in engine.BOT_CODES.items():
        if name == "random":
            continue
        rng = np.asarray([engine.rng_seed(1, 0)], np.uint64)
        got = policy_card(code, load_weights(), cards, 4, engine.row_table(rows), False, rng,
                          4, 104, policy_scratch())
        assert hand[got] == engine.bot_card(name, hand, rows, players=4, deck_size=104)


@pytest.mark.parametrize("players,deck,professional", [(2, 24, False), (4, 104, False),
                                                       (5, 54, True), (10, 104, False)])
def test_greedy_rounds_are_the_reference_rounds(players, deck, professional):
    """Rounds with every seat on the greedy policy: the cows of each seat are those of the
    reference engine's round with the Python policy choosing."""
    weights = load_weights()
    for seed in range(4):
        cows = np.zeros(players, np.int64)
        codes = np.full(players, POLICY_GREEDY, np.int64)
        policy_rounds(codes, weights, 1, players, deck, professional, seed, cows)
        # the same deal, from the engine's dealer with the same stream
        table, hands = np.zeros((4, 4), np.int64), np.zeros((players, 10), np.int64)
        rng = np.asarray([engine.rng_seed(seed, 0)], np.uint64)
        engine.deal_round(players, deck, False, 0, codes, table, hands,
                          np.zeros(deck, np.int64), rng)
        rows = [[int(table[r, engine.FIRST])] for r in range(4)]

        def pick(player, hand, rows_now):
            probs = naive.learned_probs(weights, hand, rows_now, players, deck, professional)
            best = max(range(len(hand)), key=lambda i: (probs[i], -i))
            return hand[best]

        expected = naive_round(rows, [list(h) for h in hands], professional, pick)
        assert list(cows) == expected, seed


def naive_round(rows, hands, professional, pick) -> list[int]:
    """A round on the reference engine, each player's card from ``pick`` over the hand in
    the kernel's order (the played card's place taken by the hand's last card)."""
    cows = [0] * len(hands)
    for _ in range(10):
        turn = []
        for p, hand in enumerate(hands):
            card = pick(p, hand, rows)
            i = hand.index(card)
            hand[i] = hand[-1]
            hand.pop()
            turn.append(card)
        rows, took = reference.resolve_turn(rows, turn, professional)
        cows = [a + b for a, b in zip(cows, took)]
    return cows
