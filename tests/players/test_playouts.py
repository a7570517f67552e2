"""The playouts' policy of ``mcs`` and ``ismcts`` (``playout=``): every player plays a rule
bot's cards in the playouts instead of uniformly random ones. Held against the reference
engine: with every hand known and a rule bot for everyone, a playout is one deterministic
round, walked here turn by turn by ``solver/base/reference.py`` with the engine's
``bot_card`` choosing each card."""
from __future__ import annotations

import numpy as np
import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import Rules
from nimmt.solver.kernels.engine import bot_card
from nimmt.solver.kernels.learned import FEATURE_NAMES
from nimmt.solver.players import bots
from nimmt.solver.players.bots import make_policy, parse_bot
from nimmt.solver.positions.objective import playout_goal
from nimmt.solver.search.game import deal_position

import naive

RULE_POLICIES = ["closest", "lowkeeper", "dumper", "careful"]


def reference_playout(position, first: int, policy: str) -> int:
    """Player 1's cows over the rest of the round: ``first`` now, then every player (player
    1 too) plays ``policy``'s card, rows rule-following."""

    def pick(player: int, hand: list, rows: list) -> int:
        if player == 0 and len(hand) == position.cards_left:
            return first
        return bot_card(policy, hand, rows, position.professional, players=position.players,
                        deck_size=position.deck_size)

    rows = [list(r) for r in position.rows]
    _, cows = reference.play_round(rows, position.hands, position.professional, pick)
    return cows[0]


@pytest.mark.parametrize("policy", RULE_POLICIES)
@pytest.mark.parametrize("players,k,seed,placement", [
    (2, 6, 1, "normal"), (3, 5, 2, "normal"), (4, 4, 3, "professional"), (5, 6, 4, "normal")])
def test_a_rule_playout_is_the_round_the_reference_plays(policy, players, k, seed, placement):
    position = deal_position(Rules("logic", players, placement), k, seed=seed)
    assert position.all_known
    bot = make_policy(f"mcs:playouts=3,playout={policy}", seed=seed)
    assert isinstance(bot, bots.MonteCarloBot)
    values = bot.values(position)
    for card in position.hand:
        assert values[card] == reference_playout(position, card, policy), card


@pytest.mark.parametrize("spec", ["mcs:playouts=300,playout=mix",
                                  "ismcts:iterations=400,playout=closest",
                                  "ismcts:iterations=400,playout=mix"])
def test_policy_playouts_are_deterministic_for_a_seed(spec):
    position = deal_position(Rules("standard", 4), 8, seed=5)
    score = "values" if spec.startswith("mcs") else "visits"
    first = getattr(make_policy(spec, seed=3), score)(position)
    again = getattr(make_policy(spec, seed=3), score)(position)
    assert first == again


def test_random_playouts_are_todays_playouts():
    """``playout=random`` (the default) draws no number for the policy: the same values as
    the bot without the parameter."""
    position = deal_position(Rules("tactical", 3), 7, seed=2)
    plain = make_policy("mcs:playouts=200", seed=4).values(position)
    named = make_policy("mcs:playouts=200,playout=random", seed=4).values(position)
    assert plain == named


def test_the_policy_changes_what_the_playouts_see():
    position = deal_position(Rules("standard", 4), 8, seed=6)
    random_values = make_policy("mcs:playouts=400", seed=1).values(position)
    closest_values = make_policy("mcs:playouts=400,playout=closest", seed=1).values(position)
    assert random_values != closest_values


@pytest.mark.parametrize("text, words", [
    ("mcs:playout=smart",
     "playout='smart' is not one of random, closest, lowkeeper, dumper, careful, mix"),
    ("ismcts:playout=", "give a value"),
    ("expecti:playout=closest", "has no parameter 'playout'"),
    # a parameter that would do nothing
    ("mcs:temperature=0.5", "temperature= applies with playout=learned only"),
    ("ismcts:playout=careful,temperature=2", "temperature= applies with playout=learned"),
    ("mcs:trust=0.9", "trust= applies with belief=learned only"),
    ("ismcts:expand=policy", "expand= applies with playout=learned only"),
    ("ismcts:playout=learned,expand=greedy", "expand='greedy' is not one of random, policy"),
    ("mcs:playout=learned,expand=policy", "has no parameter 'expand'"),
    ("mcs:playout=learned,temperature=0", "temperature must be 0.001..1000"),
    ("ismcts:others=random", "others='random' is not one of search, playout"),
    ("mcs:others=playout", "has no parameter 'others'"),
    ("ismcts:loop=half", "loop='half' is not one of closed, open"),
])
def test_a_bad_playout_is_one_clear_error(text, words):
    with pytest.raises(NimmtError) as info:
        parse_bot(text)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_the_spec_names_its_playout():
    assert str(parse_bot("ismcts:playout=closest,time=0.25")) == \
        "ismcts:time=0.25,playout=closest"
    assert str(parse_bot("mcs:playout=random")) == "mcs"


def greedy_learned_playout(position, first: int) -> int:
    """Player 1's cows over the rest of the round: ``first`` now, then every player plays
    the reference policy's likeliest card (``naive.learned_probs``), rows rule-following."""
    weights = bots.shipped_weights()

    def pick(player: int, hand: list, rows: list) -> int:
        if player == 0 and len(hand) == position.cards_left:
            return first
        probs = naive.learned_probs(weights, list(hand), rows, position.players,
                                    position.deck_size, position.professional)
        return hand[max(range(len(hand)), key=probs.__getitem__)]

    rows = [list(r) for r in position.rows]
    _, cows = reference.play_round(rows, position.hands, position.professional, pick)
    return cows[0]


@pytest.mark.parametrize("players,k,seed", [(2, 6, 1), (3, 5, 2), (4, 4, 3)])
def test_a_cold_learned_playout_is_the_reference_policy_s_greedy_round(players, k, seed):
    """``temperature`` reaches the playouts: near 0 every playout is the greedy round."""
    position = deal_position(Rules("logic", players), k, seed=seed)
    bot = make_policy("mcs:playouts=3,playout=learned,temperature=0.001", seed=seed)
    values = bot.values(position)
    for card in position.hand:
        assert values[card] == greedy_learned_playout(position, card), card
    warm = make_policy("mcs:playouts=3,playout=learned", seed=seed).values(position)
    again = make_policy("mcs:playouts=3,playout=learned,temperature=1", seed=seed)
    assert again.values(position) == warm


@pytest.mark.parametrize("players,k,seed", [(2, 6, 1), (3, 5, 2), (4, 4, 3)])
def test_the_bot_s_own_row_of_weights_and_the_others_row(players, k, seed):
    """``mcs_playouts`` plays player 1's later cards by row 0 of its weights and every other
    player's by row 1: row 0 the shipped policy made cold (its likeliest card), row 1 a
    policy of one weight, on the card's height, so large that it always plays its lowest
    card. Every playout is then the reference round with those two players."""
    position = deal_position(Rules("logic", players), k, seed=seed)
    own = bots.shipped_weights() * 1000.0
    lowest = np.zeros_like(own)
    lowest[FEATURE_NAMES.index("card height")] = -1e5
    hands, hidden, pool, table = bots.playout_arrays(position)
    sums = np.zeros(k)
    bots.mcs_playouts(table, hands, hidden, pool, players, k, position.deck_size,
                      position.professional, seed, 0, 3, sums, playout_goal(position, "cows"),
                      bots.PLAYOUT_CODES["learned"], np.stack([own, lowest]), bots.NO_DEALS)
    weights = bots.shipped_weights()
    for i, first in enumerate(position.hand):

        def pick(player: int, hand: list, rows: list, first: int = first) -> int:
            if player > 0:
                return min(hand)
            if len(hand) == position.cards_left:
                return first
            probs = naive.learned_probs(weights, list(hand), rows, players,
                                        position.deck_size, position.professional)
            return hand[max(range(len(hand)), key=probs.__getitem__)]

        _, cows = reference.play_round([list(r) for r in position.rows], position.hands,
                                       position.professional, pick)
        assert sums[i] == 3 * cows[0], first


def test_others_temperature_is_the_others_row_only():
    """Given as ``temperature`` it changes nothing; given apart it changes the playouts."""
    position = deal_position(Rules("tactical", 4), 6, seed=5)
    base = make_policy("mcs:playouts=200,playout=learned,temperature=0.5", seed=2)
    same = make_policy("mcs:playouts=200,playout=learned,temperature=0.5,"
                       "others_temperature=0.5", seed=2)
    other = make_policy("mcs:playouts=200,playout=learned,temperature=0.5,"
                        "others_temperature=3", seed=2)
    assert same.values(position) == base.values(position) != other.values(position)


def likeliest(position, m: int) -> set[int]:
    """The ``m`` cards of player 1's hand the reference policy finds likeliest."""
    probs = naive.learned_probs(bots.shipped_weights(), list(position.hand),
                                [list(r) for r in position.rows], position.players,
                                position.deck_size, position.professional)
    order = sorted(range(len(probs)), key=lambda i: -probs[i])
    return {position.hand[i] for i in order[:m]}


@pytest.mark.parametrize("seed", range(4))
def test_a_tree_node_tries_the_policy_s_likeliest_cards_first(seed):
    """With ``expand=policy`` (and a cold policy) the root's first m visits go to the m
    cards the reference policy finds likeliest; with ``expand=random``, to any."""
    position = deal_position(Rules("logic", 3), 7, seed=seed)
    m = 3
    spec = "ismcts:iterations={},playout=learned,temperature=0.001,expand={}"
    visits = make_policy(spec.format(m, "policy"), seed=seed).visits(position)
    assert {c for c, v in visits.items() if v} == likeliest(position, m)
    assert sum(visits.values()) == m


def test_random_expansion_is_not_the_policy_s_order():
    """The test above could not pass by chance: uniform expansion tries other cards."""
    spec = "ismcts:iterations=3,playout=learned,temperature=0.001"
    differ = 0
    for seed in range(4):
        position = deal_position(Rules("logic", 3), 7, seed=seed)
        visits = make_policy(spec, seed=seed).visits(position)
        differ += {c for c, v in visits.items() if v} != likeliest(position, 3)
    assert differ >= 2



def best_response(position, policy: str) -> dict[int, int]:
    """Player 1's fewest cows over the rest of the round after each first card, when the
    other players play rule bot ``policy``'s card every turn (every hand known), walked by
    the reference engine: the brute-force best reply to that policy."""

    def value(rows, hands) -> int:
        if not hands[0]:
            return 0
        return min(after(rows, hands, card) for card in hands[0])

    def after(rows, hands, card) -> int:
        cards = [card] + [bot_card(policy, hand, rows, position.professional,
                                   players=position.players, deck_size=position.deck_size)
                          for hand in hands[1:]]
        rest = [[c for c in hand if c != played] for hand, played in zip(hands, cards)]
        rows, cows = reference.resolve_turn(rows, cards, position.professional)
        return cows[0] + value(rows, rest)

    rows = [list(r) for r in position.rows]
    hands = [list(h) for h in position.hands]
    return {card: after(rows, hands, card) for card in position.hand}


@pytest.mark.parametrize("loop", ["closed", "open"])
@pytest.mark.parametrize("players,k,seed,policy", [
    (2, 4, 1, "careful"), (3, 4, 2, "closest"), (4, 3, 3, "lowkeeper"), (3, 4, 7, "careful")])
def test_with_others_from_the_playout_the_tree_finds_the_best_reply(players, k, seed, policy,
                                                                    loop):
    """``others=playout``: the tree searches player 1's cards only, the others playing
    their playout policy in it. With every hand known and a rule bot for the others, the
    tree is player 1's whole game against that bot, so the card it visits most is a best
    reply (brute force by the reference engine), and its mean reward is that reply's cows.
    So in an open loop (``loop=open``), where a node is player 1's cards so far: against
    a rule bot whose replies those cards decide, it is the same game."""
    position = deal_position(Rules("logic", players), k, seed=seed)
    assert position.all_known
    exact = best_response(position, policy)
    bot = make_policy(f"ismcts:iterations=6000,playout={policy},others=playout,loop={loop}",
                      seed=seed)
    visits = bot.visits(position)
    played = max(visits, key=visits.__getitem__)
    assert exact[played] == min(exact.values()), (visits, exact)
    stats = bot.tree(1, players, position.deck_size + 1, keep=1)[0]
    mean = stats[0, 0, played, 1] / stats[0, 0, played, 0] * -bots.REWARD_SCALE
    assert abs(mean - exact[played]) < 0.05 * (1 + exact[played])
    assert not stats[0, 1:].any()  # the others' statistics are not kept


def test_the_others_searching_is_todays_tree():
    """``others=search`` (the default) is the tree as it was: the same visits."""
    position = deal_position(Rules("standard", 4), 6, seed=4)
    plain = make_policy("ismcts:iterations=500", seed=2).visits(position)
    named = make_policy("ismcts:iterations=500,others=search", seed=2).visits(position)
    assert plain == named
    other = make_policy("ismcts:iterations=500,others=playout", seed=2).visits(position)
    assert other != plain
    assert other == make_policy("ismcts:iterations=500,others=playout", seed=2).visits(position)


def test_an_open_loop_tells_children_by_the_bots_own_card():
    """``loop=open``: the root has a child for each card of the bot's hand it played (at
    most k), whatever the others played; the closed loop, a child for each joint turn."""
    position = deal_position(Rules("standard", 4), 8, seed=5)
    n, deck = position.players, position.deck_size + 1
    for loop, most in (("open", position.cards_left), ("closed", None)):
        bot = make_policy(f"sharp:iterations=3000,loop={loop}", seed=1)
        visits = bot.visits(position)
        assert sum(visits.values()) == 3000
        _, links, actions = bot.tree(3001, n, deck, keep=3001)
        children = []
        for b in range(bots.CHILD_BUCKETS):
            child = links[0, b]
            while child >= 0:
                children.append(int(child))
                child = links[child, bots.CHILD_BUCKETS]
        own = [int(actions[c, 0]) for c in children]
        if most is not None:
            assert len(children) == len(set(own)) <= most
            assert set(own) <= set(position.hand)
        else:
            assert len(children) > 10 * position.cards_left  # many joint turns
