"""Opponent models from bots: ``analyse --opponents BOT``.

The exact enumeration is held against a brute force written here from docs/RULES.md on
``solver/base/reference.py``: a pure-Python ``closest`` bot, every split of the pool as a
full-knowledge world, and player 1's information sets as the worlds that agree on
everything player 1 has seen.
"""
from __future__ import annotations

import itertools

import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import ROW_LIMIT, Rules, card_cows
from nimmt.solver.players.botmodel import analyse_any, analyse_bots, split_count, splits
from nimmt.solver.players.training import load_weights
from nimmt.solver.positions.position import Position, load_position, parse_position
from nimmt.solver.search.analysis import analyse
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.montecarlo import Z95

import naive
from cli_checks import assert_ok, assert_one_line_error, invoke

# ---------------------------------------------------------------- the brute force

def closest_card(hand, rows) -> int:
    """docs/README's closest bot, normal placement: the card landing closest behind a row
    end without taking a row (a sixth card takes one: it costs that row's cows); if every
    card takes, the cheapest take (the rule-following row); ties: lowest card."""
    def cost(card):
        opts = reference.options(rows, card, False)
        o = reference.rule_following(rows, opts) if opts[0].kind == "take" else opts[0]
        gap = 0 if o.kind == "take" else card - rows[o.row_index][-1]
        return (reference.option_cows(rows, o), gap, card)
    return min(hand, key=cost)


def brute_values(position: Position, pick) -> dict[int, float]:
    """Every card's expected cows: worlds = every way to deal the pool into the hidden
    hands (equally likely); opponents play ``pick(hand, rows)``; player 1 minimises over
    its card and its row options given only what it has seen (the worlds grouped by the
    opponents' revealed cards), never the world itself."""
    k = position.cards_left
    hidden = [i for i, h in enumerate(position.other_hands) if h is None]
    worlds = []
    for combo in itertools.permutations(position.pool):  # deliberately naive: dedupe below
        hands = [tuple(sorted(combo[j * k:(j + 1) * k])) for j in range(len(hidden))]
        world = list(position.other_hands)
        for j, i in enumerate(hidden):
            world[i] = hands[j]
        worlds.append(tuple(world))
    worlds = sorted(set(worlds))

    def value(rows, hand, ws):
        if not hand:
            return 0.0
        return min(card(rows, hand, ws, c) for c in hand)

    def card(rows, hand, ws, c):
        seen: dict[tuple, list] = {}
        for w in ws:
            seen.setdefault(tuple(pick(list(h), rows) for h in w), []).append(w)
        total = 0.0
        for played, group in seen.items():
            cards = [c, *played]
            rest = [w for w in group]
            after = [tuple(tuple(x for x in h if x != p) for h, p in zip(w, played)) for w in rest]
            outcomes = []
            # player 1's choice: every option of its card when placed, the lower cards first
            lower = sorted(x for x in cards if x < c)
            at = reference.resolve_turn(rows, lower, False)[0] if lower else rows
            for o in range(len(reference.options(at, c, False))):
                def chooser(pl, r, cd, opts, o=o):
                    return opts[o] if pl == 0 else reference.rule_following(r, opts)
                new_rows, cows = reference.resolve_turn(rows, cards, False, chooser)
                new_rows = tuple(tuple(r) for r in new_rows)
                outcomes.append(cows[0] + value(new_rows, tuple(x for x in hand if x != c),
                                                after))
            total += len(group) * min(outcomes)
        return total / len(ws)

    rows = tuple(tuple(r) for r in position.rows)
    return {c: card(rows, position.hand, worlds, c) for c in position.hand}


def positions(players: int, cards_left: int, seeds) -> list[Position]:
    return [deal_position(Rules("tactical", players), cards_left, seed=s) for s in seeds]


# ---------------------------------------------------------------- exact against brute force

@pytest.mark.parametrize("players,cards_left,seed", [(3, 2, s) for s in range(4)]
                         + [(3, 3, s) for s in range(3)] + [(2, 3, 1), (2, 4, 2), (4, 2, 5)])
def test_exact_matches_brute_force(players, cards_left, seed):
    p = deal_position(Rules("tactical", players), cards_left, seed=seed)
    got = analyse_bots(p, "closest", method="exact")
    assert got.method == "exact"
    want = brute_values(p, closest_card)
    for c in got.cards:
        assert c.value == pytest.approx(want[c.card], abs=1e-9), (c.card, want)
    assert got.extra["opponent_model"]["splits"] == split_count(p)


def test_splits_are_every_consistent_deal():
    p = deal_position(Rules("tactical", 4), 2, seed=3)
    every = list(splits(p))
    assert len(every) == len(set(every)) == split_count(p) == 90  # 6!/(2!2!2!)
    for w in every:
        assert sorted(c for h in w for c in h) == sorted(p.pool)


def test_information_matters_in_between_clairvoyant_and_a_fixed_policy():
    """The value of playing on what you see lies between the mean of the per-split
    optima (seeing the hidden hands) and the closest policy's mean (Monte Carlo)."""
    for seed in range(6):
        p = deal_position(Rules("tactical", 3), 3, seed=seed)
        info = analyse_bots(p, "closest", method="exact")
        for c in info.cards:
            per_world = []
            for w in splits(p):
                q = Position.make(players=3, rows=p.rows, hand=p.hand, gone=p.gone,
                                  others={2: w[0], 3: w[1]})
                per_world.append(brute_values(q, closest_card)[c.card])
            assert sum(per_world) / len(per_world) <= c.value + 1e-9


def test_two_players_known_hand_is_a_plain_minimum():
    p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
                       "gone=1,2,4,5,6,8,9,10,11")
    got = {c.card: c.value for c in analyse_bots(p, "lowkeeper", method="exact").cards}

    def pick(hand, rows):
        from nimmt.solver.kernels.engine import bot_card
        return bot_card("lowkeeper", hand, rows, players=p.players, deck_size=p.deck_size)
    assert got == pytest.approx(brute_values(p, pick))


# ---------------------------------------------------------------- Monte Carlo

def _no_choice_positions(players, count):
    """k = 2, every card of player 1 above the lowest row end: its first card always has
    a legal end (lower cards only lower the ends it may join) and its second is its last,
    where the rule-following row is the cheapest: Monte Carlo's later play is optimal."""
    found = []
    for seed in range(200):
        p = deal_position(Rules("tactical", players), 2, seed=seed)
        if min(p.hand) > min(r[-1] for r in p.rows):
            found.append(p)
        if len(found) == count:
            return found
    raise AssertionError("no such positions")


@pytest.mark.parametrize("players,cards_left,seed", [(3, 2, 1), (3, 3, 2), (2, 4, 3), (4, 2, 4)])
def test_exact_against_the_learned_policy_matches_brute_force(players, cards_left, seed):
    """``learned`` (greedy: deterministic) is enumerated exactly like the rules of thumb,
    and agrees with the brute force over the pure-Python learned policy."""
    p = deal_position(Rules("tactical", players), cards_left, seed=seed)
    got = analyse_bots(p, "learned", method="exact")
    assert got.method == "exact" and got.extra["opponent_model"]["deterministic"]
    weights = load_weights()

    def pick(hand, rows):
        return naive.learned_card(weights, hand, [list(r) for r in rows], p.players,
                                  p.deck_size, False)

    want = brute_values(p, pick)
    for c in got.cards:
        assert c.value == pytest.approx(want[c.card], abs=1e-9), (c.card, want)


def test_the_sampled_learned_policy_is_sampled_inside_its_kernel():
    p = deal_position(Rules("standard", 4), 6, seed=2)
    a = analyse_bots(p, "learned:play=sampled", samples=300, seed=4)
    assert a.method == "montecarlo" and "not deterministic" in a.reason
    assert "default time budget" not in a.reason  # no search: no default budget
    assert a.cards[0].samples == 300
    with pytest.raises(NimmtError, match="deterministic bot"):
        analyse_bots(p, "learned:play=sampled", method="exact")


@pytest.mark.parametrize("players", [3, 4])
def test_montecarlo_inside_the_exact_interval(players):
    for p in _no_choice_positions(players, 3):
        exact = {c.card: c.value for c in analyse_bots(p, "closest", method="exact").cards}
        mc = analyse_bots(p, "closest", method="montecarlo", samples=400, seed=7)
        assert mc.method == "montecarlo" and mc.cards[0].samples == 400
        for c in mc.cards:
            half = max(Z95 * c.stderr, 1e-9)
            assert abs(c.value - exact[c.card]) <= 1.5 * half + 1e-9, (c, exact)


def test_montecarlo_random_bot_is_the_random_model():
    """The random bot is the random model: with no later choice the sampled figures lie
    in the 95% interval of the exact search's (model random)."""
    for p in _no_choice_positions(3, 2):
        exact = {c.card: c.value for c in analyse(p, "random", method="exact").cards}
        mc = analyse_bots(p, "random", samples=600, seed=3)
        assert mc.method == "montecarlo" and "not deterministic" in mc.reason
        for c in mc.cards:
            assert abs(c.value - exact[c.card]) <= 1.5 * Z95 * c.stderr + 1e-9, (c, exact)


def test_montecarlo_is_an_upper_bound_and_reproducible():
    p = deal_position(Rules("tactical", 3), 4, seed=2)
    exact = {c.card: c.value for c in analyse_bots(p, "closest", method="exact",
                                                   max_nodes=50_000_000).cards}
    a = analyse_bots(p, "closest", method="montecarlo", samples=300, seed=5)
    b = analyse_bots(p, "closest", method="montecarlo", samples=300, seed=5)
    assert [(c.card, c.value) for c in a.cards] == [(c.card, c.value) for c in b.cards]
    assert a.unit == "upper bound on expected cows"
    for c in a.cards:
        assert c.value >= exact[c.card] - 3 * c.stderr - 1e-9


@pytest.mark.parametrize("bot", ["closest", "mcs:playouts=5"])
def test_samples_are_a_bound_not_an_allocation(bot):
    """--samples 1000000000 with a time limit: the samples taken, not a memory error
    (the arrays used to be allocated for every sample asked)."""
    a = analyse_bots(load_position("example"), bot, method="montecarlo", samples=10**9,
                     seed=1, time_limit=0.3)
    assert not a.complete and 2 <= a.cards[0].samples < 10**9


def test_search_bot_opponents_through_the_game_loop():
    p = deal_position(Rules("tactical", 3), 2, seed=4)
    a = analyse_bots(p, "expecti:nodes=20000", samples=4, seed=1)
    assert a.method == "montecarlo" and a.opponents == "expecti:nodes=20000"
    assert a.cards[0].samples == 4
    js = a.to_json()
    assert js["opponent_model"] == {"kind": "bot", "bot": "expecti:nodes=20000",
                                    "deterministic": False, "splits": split_count(p)}


def test_auto_says_which_and_why():
    small = load_position("example")
    assert "deterministic and the enumeration fits" in analyse_bots(small, "dumper").reason
    big = deal_position(Rules("tactical", 4), 6, seed=1)
    a = analyse_bots(big, "closest", samples=20, seed=1)
    assert a.method == "montecarlo" and "over the budget" in a.reason
    with pytest.raises(NimmtError, match="deterministic"):
        analyse_bots(small, "random", method="exact")


def test_models_still_dispatch():
    p = load_position("example")
    assert analyse_any(p, "random").value == pytest.approx(analyse(p, "random").value)
    assert analyse_any(p, "closest").opponents == "closest"


# ---------------------------------------------------------------- command line

def test_cli_table_json_markdown_name_the_model(runner):
    r = invoke(runner, "analyse", "example", "--opponents", "closest")
    assert_ok(r)
    assert "opponents: closest" in r.output and "method: exact" in r.output
    r = invoke(runner, "analyse", "example", "--opponents", "closest", "--format", "json")
    assert_ok(r)
    import json
    data = json.loads(r.output)
    assert data["opponents"] == "closest" and data["opponent_model"]["kind"] == "bot"
    assert data["unit"] == "expected cows"
    r = invoke(runner, "analyse", "example", "--opponents", "random", "--method",
               "montecarlo", "--samples", "50", "--seed", "1", "--format", "markdown")
    assert_ok(r)
    assert "**" in r.output


@pytest.mark.parametrize("name", ["closet", "expecti:foo=1", "mcs:playouts=0", "", "nash:"])
def test_cli_bad_bot_one_line(runner, name):
    line = assert_one_line_error(invoke(runner, "analyse", "example", "--opponents", name))
    assert "opponents" in line or "bot" in line


def test_cows_table_is_the_rules():
    assert card_cows(55) == 7 and ROW_LIMIT == 5  # the brute force's assumptions


# ---------------------------------------------------------------- review --opponents BOT

def test_review_against_a_bot_equals_analyse(tmp_path, runner):
    import json

    from nimmt.solver.players.records import load_record, replay
    from nimmt.solver.players.review import review_game, seat_view

    r = invoke(runner, "simulate", "--players", "3", "--bots", "closest,random,lowkeeper",
               "--games", "1", "--one-round", "--save-games", tmp_path, "--seed", "3")
    assert_ok(r)
    path = next(tmp_path.glob("*.json"))
    record = load_record(str(path))
    review = review_game(record, [0], "closest", first_turn=8, samples=50)
    cards = [d for d in review.decisions if d.kind == "card"]
    assert len(cards) == 2 and review.opponents == "closest"
    turns = replay(record)[0].turns
    for d in cards:
        a = analyse_bots(seat_view(turns[d.turn - 1], 0), "closest")
        assert d.method == a.method == "exact"
        assert d.value_best == pytest.approx(a.best.value)
        played = next(c for c in a.cards if str(c.card) == d.played)
        assert d.regret == pytest.approx(played.regret)
    r = invoke(runner, "review", path, "--player", "1", "--opponents", "lowkeeper",
               "--from-turn", "8", "--format", "json")
    assert_ok(r)
    assert json.loads(r.output)["opponents"] == "lowkeeper"
    assert_one_line_error(invoke(runner, "review", path, "--opponents", "closer"))
    assert_one_line_error(invoke(runner, "review", path, "--opponents", "nash"))
