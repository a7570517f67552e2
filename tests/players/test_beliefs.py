"""Beliefs about the hidden hands (kernels/beliefs.py, ``bots.belief_sample``): the likelihood
of the round so far held against a pure-Python one built on the reference policy, the
resampled deals against the exact posterior found by enumerating every split of a small
pool, the history a table tells each seat against what was played, and the bots that use
them (``belief=learned``)."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from nimmt.solver.base.defaults import BELIEF_DEALS
from nimmt.solver.base.rules import HAND_SIZE, Rules
from nimmt.solver.kernels.beliefs import likelihood_work, player_log_likelihood
from nimmt.solver.players import bots
from nimmt.solver.players.bots import belief_sample, make_policy
from nimmt.solver.players.policy import Bot, Decision, Seen, parse_bot
from nimmt.solver.players.seats import Table, deal_cards

import naive


class Spy(Bot):
    """A random-card bot that keeps the history it was told at each decision."""

    def __init__(self, seed: int) -> None:
        super().__init__(parse_bot("random"), seed)
        self.told: list[tuple[Seen, ...]] = []
        self.rng = np.random.default_rng(seed)

    def choose(self, position):
        self.told.append(self.history)
        return Decision(int(self.rng.choice(position.hand)))


def table_after(variant: str, players: int, turns: int, seed: int) -> Table:
    """A table of ``players`` random-card spies with ``turns`` turns played."""
    rules = Rules(variant, players)
    rows, hands = deal_cards(rules, seed, 0, 0)
    table = Table(rules, rows, hands, [Spy(seed * 10 + s) for s in range(players)])
    table.play(turns)
    return table


def naive_log_likelihood(weights, position, history, dealt, trust=1.0, players=None) -> float:
    """The log-probability of the hidden players' cards seen (of ``players`` only when
    given), each played by the reference policy with probability ``trust``, else
    uniformly."""
    total, k, seen = 0.0, position.cards_left, len(history)
    for p, known in enumerate(position.hands):
        if known is not None or (players is not None and p not in players):
            continue
        for t, turn in enumerate(history):
            hand = [int(c) for c in dealt[p, :k]] + [history[u].cards[p] for u in range(t, seen)]
            probs = naive.learned_probs(weights, hand, [list(r) for r in turn.rows],
                                        position.players, position.deck_size,
                                        position.professional)
            total += math.log(trust * probs[k] + (1 - trust) / len(hand))
    return total


@pytest.mark.parametrize("variant,players,turns,seed,trust", [
    ("tactical", 3, 4, 1, 1.0), ("tactical", 4, 7, 2, 0.5), ("standard", 4, 5, 3, 1.0),
    ("standard", 5, 9, 4, 0.3), ("tactical", 3, 1, 5, 0.9)])
def test_the_likelihood_of_each_deal_is_the_reference_policy_s(variant, players, turns, seed,
                                                                trust):
    table = table_after(variant, players, turns, seed)
    position, history = table.view(1), table.seen(1)
    assert len(history) == turns
    weights, k = bots.shipped_weights(), position.cards_left
    deals, _ = belief_sample(position, history, 77, deals=8, trust=0.0)  # uniform deals
    tables = np.stack([bots.engine.row_table(s.rows) for s in history])
    cards = np.asarray([s.cards for s in history], np.int64)
    hidden = [p for p, h in enumerate(position.hands) if h is None]
    assert len(hidden) == players - 1
    for dealt in deals:
        assert sorted(dealt[0, :k]) == list(position.hand)
        held = sorted(int(c) for p in hidden for c in dealt[p, :k])
        assert len(set(held)) == len(held) and set(held) <= set(position.pool)
        for p in hidden:
            got = player_log_likelihood(weights, trust, dealt, p, players, k,
                                        position.deck_size, position.professional, tables,
                                        cards, len(history), *likelihood_work())
            assert got == pytest.approx(naive_log_likelihood(
                weights, position, history, dealt, trust, [p]), abs=1e-9)


def exact_posterior(position, history, trust) -> dict[tuple, float]:
    """Every split of the pool into the hidden hands, with its posterior probability."""
    weights, k = bots.shipped_weights(), position.cards_left
    hidden = [p for p, h in enumerate(position.hands) if h is None]
    pool = list(position.pool)
    out = {}

    def splits(cards, seats):
        if not seats:
            yield ()
            return
        for hand in itertools.combinations(cards, k):
            rest = [c for c in cards if c not in hand]
            for tail in splits(rest, seats[1:]):
                yield (hand, *tail)

    for split in splits(pool, hidden):
        dealt = np.zeros((position.players, HAND_SIZE), np.int64)
        for p, hand in zip(hidden, split):
            dealt[p, :k] = hand
        out[split] = math.exp(naive_log_likelihood(weights, position, history, dealt, trust))
    total = sum(out.values())
    return {split: w / total for split, w in out.items()}


@pytest.mark.parametrize("seed,trust", [(1, 1.0), (2, 0.5), (3, 1.0)])
def test_resampled_deals_follow_the_exact_posterior_of_a_small_pool(seed, trust):
    """Three players, tactical, two cards left: the pool's four cards split six ways; the
    deals drawn (40,000, from 16 chains of card swaps) against the posterior by
    enumeration."""
    table = table_after("tactical", 3, 8, seed)
    position, history = table.view(0), table.seen(0)
    posterior = exact_posterior(position, history, trust)
    assert len(posterior) == 6
    draws = 40_000
    deals, accepted = belief_sample(position, history, seed, deals=draws, trust=trust)
    assert deals.shape == (draws, 3, HAND_SIZE) and 0 < accepted <= 1
    counts = Counter(tuple(tuple(sorted(int(c) for c in d[p, :2])) for p in (1, 2))
                     for d in deals)
    assert set(counts) <= set(posterior)
    for split, prob in posterior.items():
        assert counts[split] / draws == pytest.approx(prob, abs=0.02), split
    # the beliefs are not the uniform deal: the posterior is not flat
    assert max(posterior.values()) - min(posterior.values()) > 0.01


def test_the_table_tells_each_seat_the_turns_played_in_its_own_order():
    table = table_after("standard", 4, 6, 9)
    for seat, spy in enumerate(table.policies):
        assert [len(h) for h in spy.told] == list(range(6))
        final = table.seen(seat)
        assert spy.told[-1] == final[:5]
        for t, turn in enumerate(final):
            rows, cards = table.history[t]
            assert turn.rows == rows
            assert turn.cards == tuple(cards[(seat + j) % 4] for j in range(4))


def test_no_hidden_hand_or_no_turn_seen_gives_no_deals():
    table = table_after("tactical", 4, 0, 3)
    deals, accepted = belief_sample(table.view(0), table.seen(0), 1)
    assert deals.shape[0] == 0 and accepted == 1.0
    logic = table_after("logic", 3, 3, 3)
    assert belief_sample(logic.view(0), logic.seen(0), 1)[0].shape[0] == 0


@pytest.mark.parametrize("name", ["mcs:playouts=300,playout=learned",
                                  "ismcts:iterations=300"])
def test_bots_with_beliefs(name):
    """At the round's first turn the beliefs change nothing; later they change the deals,
    the same ones for the same seed, and the bot plays a card of its hand."""
    first = table_after("standard", 4, 0, 5)
    plain, believing = make_policy(name, 3), make_policy(name + ",belief=learned", 3)
    believing.see(first.seen(0))
    assert plain.choose(first.view(0)) == believing.choose(first.view(0))
    later = table_after("standard", 4, 5, 5)
    position = later.view(2)
    choices = []
    for _ in range(2):
        bot = make_policy(name + ",belief=learned", 4)
        bot.see(later.seen(2))
        choices.append(bot.choose(position))
        assert choices[-1].card in position.hand
    assert choices[0] == choices[1]
    with_deals = make_policy(name + ",belief=learned", 4)
    with_deals.see(later.seen(2))
    assert with_deals.deals(position, 11).shape == (BELIEF_DEALS, 4, HAND_SIZE)
    assert make_policy(name, 4).deals(position, 11).shape[0] == 0
