"""The win objective over a game (solver/positions/objective.py): the continuation's
dynamic programme against a plain recursion, the exact search against a brute force
written here on solver/base/reference.py (scores that do and do not end the game), Monte Carlo
inside its 99% interval, the bots, the ``threshold`` key (round trip, bad input), and no
scores = the round's win as before."""
from __future__ import annotations

import functools
import itertools
import json
import sys

import numpy as np
import pytest
from helpers import in_game, taken_of

from nimmt.solver.base import reference
from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import Rules, card_cows
from nimmt.solver.kernels.objective import G_SCORES, GOAL_SLOTS
from nimmt.solver.positions import objective as goals
from nimmt.solver.positions.objective import goal_array
from nimmt.solver.positions.position import Position, format_position, parse_position
from nimmt.solver.search import exact, montecarlo
from nimmt.solver.search.analysis import analyse
from nimmt.solver.search.game import deal_position

from cli_checks import assert_ok, assert_one_line_error, invoke

TOL = 1e-9


# ---------------------------------------------------------------- the continuation

def plain_continuation(dist: np.ndarray, threshold: int):
    """V(a, b) by plain memoised recursion over the totals: a round adds (x, y) with
    probability dist[x, y]; a total at the threshold ends the game (fewest wins, ties
    half); a round of no cows (dist[0, 0]) leaves the state as it was."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * threshold + 1000))
    support = [(x, y, float(dist[x, y])) for x in range(dist.shape[0])
               for y in range(dist.shape[1]) if dist[x, y] > 0 and (x, y) != (0, 0)]
    stay = float(dist[0, 0])

    @functools.cache
    def value(a: int, b: int) -> float:
        if max(a, b) >= threshold:
            return 1.0 if a < b else 0.5 if a == b else 0.0
        return sum(p * value(a + x, b + y) for x, y, p in support) / (1.0 - stay)

    return value


def test_continuation_matches_a_plain_recursion():
    rng = np.random.default_rng(3)
    for threshold in (1, 2, 7):
        dist = rng.random((3, 4))
        dist /= dist.sum()  # not symmetric, with rounds of no cows
        got = goals.continuation(dist, threshold)
        want = plain_continuation(dist, threshold)
        assert got.shape == (threshold, threshold)
        for a, b in itertools.product(range(threshold), repeat=2):
            assert got[a, b] == pytest.approx(want(a, b), abs=TOL)
    measured = goals.round_cows("tactical", "normal")
    got = goals.continuation(measured, 25)
    want = plain_continuation(measured, 25)
    for a, b in itertools.product(range(0, 25, 3), repeat=2):
        assert got[a, b] == pytest.approx(want(a, b), abs=TOL)


def test_continuation_of_a_symmetric_round_is_zero_sum_and_monotone():
    dist = goals.round_cows("tactical", "normal")
    assert np.allclose(dist, dist.T) and dist.sum() == pytest.approx(1.0)
    v = goals.continuation(dist, 66)
    assert np.allclose(v + v.T, 1.0)  # seats alike: P(1 wins) + P(2 wins) = 1
    assert v[0, 0] == pytest.approx(0.5)
    assert np.all(np.diff(v, axis=0) <= TOL)   # more cows of your own: never better
    assert np.all(np.diff(v, axis=1) >= -TOL)  # more for the other: never worse
    assert 0.5 < v[0, 20] < 1.0  # 20 cows ahead is not yet a certain win


def test_round_cows_is_reproducible():
    a = goals.round_cows("tactical", "normal", rounds=300, seed=4)
    b = goals.round_cows.__wrapped__("tactical", "normal", rounds=300, seed=4)
    assert np.array_equal(a, b)


# ---------------------------------------------------------------- the brute force

def game_share(position: Position, taken) -> float:
    """Player 1's share at the end of the round (written here from the rules): totals are
    scores + taken; at the threshold the game ends (fewest wins, ties shared); else two
    players continue (plain recursion over the measured round), more players the lead."""
    totals = [s + t for s, t in zip(position.scores, taken)]
    fewest = min(totals)
    lead = 1.0 / totals.count(fewest) if totals[0] == fewest else 0.0
    if max(totals) >= position.game_threshold or position.players > 2:
        return lead
    return later(position.variant, position.placement, position.game_threshold)(*totals)


@functools.cache
def later(variant: str, placement: str, threshold: int):
    """The plain recursion over the round measured for this variant and placement."""
    return plain_continuation(goals.round_cows(variant, placement), threshold)


def brute_game_win(position: Position, model: str) -> dict[int, float]:
    """Every card's probability of winning (``game_share``) by plain recursion over the
    rest of the round: player 1 maximises at every card and row choice; opponents' cards
    are every card of each known hand and every card of the pool for the one hidden hand
    (averaged: random; the worst for player 1: worst); a random opponent's row choice is
    rule-following, the worst adversary's the worst for player 1. Two players, or every
    hand known."""
    assert position.players == 2 or position.all_known
    n = position.players
    taken0 = position.taken_so_far
    assert taken0 is not None
    hidden = bool(position.hidden_players)  # two players: the hidden hand is player 2

    def place(rows, turn, i, hands, pool, cows):
        if i == len(turn):
            return state(rows, hands, pool, cows)
        card, seat = turn[i]
        opts = reference.options(rows, card, position.professional)
        if len(opts) > 1 and seat and model == "random":
            opts = [reference.rule_following(rows, opts)]
        values = []
        for o in opts:
            new, got = reference.apply_option(rows, card, o)
            more = list(cows)
            more[seat] += got
            values.append(place(new, turn, i + 1, hands, pool, more))
        return max(values) if seat == 0 else min(values)

    def card_value(rows, c, hands, pool, cows):
        outcomes = []
        for combo in itertools.product(*hands[1:], *([pool] if hidden else [])):
            plays = [c, *combo]  # seat s = player s + 1
            turn = sorted((x, s) for s, x in enumerate(plays))
            after = [tuple(x for x in h if x != plays[s]) for s, h in enumerate(hands)]
            rest = tuple(x for x in pool if x not in combo) if hidden else ()
            outcomes.append(place(rows, turn, 0, after, rest, cows))
        return sum(outcomes) / len(outcomes) if model == "random" else min(outcomes)

    def state(rows, hands, pool, cows):
        if not hands[0]:
            return game_share(position, cows)
        return max(card_value(rows, c, hands, pool, cows) for c in hands[0])

    hands = [tuple(h) for h in position.hands if h is not None]
    pool = tuple(position.pool) if hidden else ()
    assert len(hands) + hidden == n
    rows = [list(r) for r in position.rows]
    return {c: card_value(rows, c, hands, pool, list(taken0)) for c in position.hand}


def round_end_reach(position: Position) -> int:
    """The most cows anyone can still take this round (every card on the rows and in the
    hands)."""
    return sum(card_cows(c) for r in position.rows for c in r) + sum(
        card_cows(c) for h in position.hands if h for c in h) + sum(
        card_cows(c) for c in position.pool if not position.all_known)


SMALL = [  # (rules, cards left, seed): small enough for the brute force
    (Rules("tactical", 2), 3, 1), (Rules("tactical", 2), 3, 4),
    (Rules("tactical", 2, placement="professional"), 3, 2),
    (Rules("logic", 3), 2, 3), (Rules("standard", 2), 2, 3),
]


def scored(position: Position, case: str) -> Position:
    """The position in a game: ``open`` — low scores, the default threshold (the game goes
    on: the continuation or the lead); ``ends`` — player 2 one cow short of the threshold
    (any cow it takes ends the game); ``mixed`` — totals near the threshold, so some ends
    of the round end the game and some do not."""
    n = position.players
    taken = taken_of(position)
    if case == "open":
        return in_game(position, [3 + 2 * i for i in range(n)])
    threshold = 30
    if case == "ends":  # player 2's total is one short of the threshold
        return in_game(position, [12, threshold - 1 - taken[1]] + [10] * (n - 2), threshold)
    short = [6] + [5] * (n - 1)  # totals this far from the threshold
    scores = [threshold - short[s] - taken[s] for s in range(n)]
    return in_game(position, scores, threshold)


# The standard game's case (index 4, a pool of 90-odd hidden cards) is the slowest: the
# default run takes it with the random model, `pytest -m slow` with worst too
@pytest.mark.parametrize("case,model,rules,k,seed", [
    pytest.param(case, model, *small, id=f"{case}-{model}-rules{i}-{small[1]}-{small[2]}",
                 marks=[pytest.mark.slow] if (i, model) == (4, "worst") else [])
    for case in ("open", "ends", "mixed") for model in ("random", "worst")
    for i, small in enumerate(SMALL)])
def test_exact_game_win_matches_the_brute_force(rules, k, seed, model, case):
    position = scored(deal_position(rules, k, seed=seed), case)
    assert position.in_game
    got = {c.card: c.value for c in exact.solve_exact(position, model, objective="win").cards}
    assert got == pytest.approx(brute_game_win(position, model), abs=TOL)


@pytest.mark.parametrize("seed,case", [(14, "ends"), (19, "mixed"), (26, "ends")])
def test_the_game_changes_the_best_card(seed, case):
    """Not a relabelled round objective: on these deals (found by a search over seeds 1-29)
    the card that best wins the round is not the one that best wins the game, and it
    gives up more than half a percent of the game."""
    game = scored(deal_position(Rules("tactical", 2), 3, seed=seed), case)
    bare = Position.make(players=2, rows=game.rows, hand=game.hand, gone=game.gone,
                         taken=game.taken)
    a = {c.card: c.value for c in exact.solve_exact(game, objective="win").cards}
    b = {c.card: c.value for c in exact.solve_exact(bare, objective="win").cards}
    game_best = max(a, key=lambda c: (a[c], -c))
    round_best = max(b, key=lambda c: (b[c], -c))
    assert game_best != round_best and a[game_best] - a[round_best] > 0.005


@pytest.mark.parametrize("case,rules", [("mixed", Rules("tactical", 2)),
                                        ("open", Rules("tactical", 2)),
                                        ("mixed", Rules("logic", 3))])
def test_montecarlo_lands_inside_its_interval_of_the_exact_value(case, rules):
    position = scored(deal_position(rules, 4, seed=9), case)
    want = {c.card: c.value for c in exact.solve_exact(position, objective="win").cards}
    mc = montecarlo.run_montecarlo(position, samples=300, seed=3, exact_depth=3,
                                   objective="win")
    assert mc.later_exact and mc.win_word == goals.win_word(position)
    for c in mc.cards:
        assert abs(c.value - want[c.card]) <= montecarlo.Z99 * c.stderr + TOL, (c, want)


# ---------------------------------------------------------------- no scores: the round

def test_no_scores_is_the_round_win_as_before():
    p = deal_position(Rules("tactical", 2), 3, seed=4)
    total = sum(card_cows(c) for c in p.gone)
    p = parse_position(format_position(p) + f" taken={total},0")
    assert not p.in_game and goals.game_kind(p) == goals.ROUND
    goal = goal_array(p, "win")
    assert goal.shape == (GOAL_SLOTS,) and not goal[G_SCORES:].any()
    values = {c.card: c.value for c in exact.solve_exact(p, objective="win").cards}
    # the round's win: the brute force's share of the fewest cows this round
    zero = Position.make(players=2, rows=p.rows, hand=p.hand, gone=p.gone, taken=p.taken,
                         scores=(0, 0), threshold=10**6)  # a game that cannot end: the lead
    lead = {c.card: c.value for c in exact.solve_exact(zero, objective="win").cards}
    assert goals.game_kind(zero) == goals.LEAD and values == pytest.approx(lead, abs=TOL)
    data = analyse(p, objective="win").to_json()
    assert data["unit"] == "P(win round)" and "game" not in data


def test_analyse_says_what_it_values():
    p = scored(deal_position(Rules("tactical", 2), 3, seed=1), "open")
    data = analyse(p, objective="win").to_json()
    assert data["unit"] == "P(win game)"
    assert data["game"]["after_round"] == "continuation" and data["game"]["threshold"] == 66
    p3 = scored(deal_position(Rules("logic", 3), 3, seed=3), "open")
    data = analyse(p3, objective="win").to_json()
    assert data["unit"] == "P(lead game)" and data["game"]["after_round"] == "lead"
    assert "proxy" in data["game"]["continuation"]
    mc = analyse(p3, objective="win", method="montecarlo", samples=20, seed=1).to_json()
    assert "lead game" in mc["unit"]


# ---------------------------------------------------------------- bots

def test_expecti_and_paranoid_play_the_games_best_card():
    from nimmt.solver.players.bots import make_policy

    for seed in (1, 4):
        p = scored(deal_position(Rules("tactical", 2), 4, seed=seed), "mixed")
        for bot, model in (("expecti", "random"), ("paranoid", "worst")):
            a = analyse(p, model, method="exact", objective="win")
            best = {c.card for c in a.cards if c.regret <= 1e-9}
            assert make_policy(f"{bot}:objective=win", seed=1).choose(p).card in best


@pytest.mark.parametrize("case", ["mixed", "open"])
def test_mcs_game_values_are_the_game_win_probability(case):
    """Two cards left: player 1's last card is forced, so flat Monte Carlo's costs are
    1 - the random model's probability of winning the game (within sampling noise)."""
    from nimmt.solver.players.bots import make_policy

    p = scored(deal_position(Rules("tactical", 2), 2, seed=5), case)
    want = {c.card: c.value for c in exact.solve_exact(p, objective="win").cards}
    got = make_policy("mcs:playouts=20000,objective=win", seed=1).values(p)
    assert got == pytest.approx({c: 1 - v for c, v in want.items()}, abs=0.02)


def test_mcs_lead_in_three_players_is_the_lead_probability():
    from nimmt.solver.players.bots import make_policy

    p = scored(deal_position(Rules("logic", 3), 2, seed=3), "mixed")
    want = {c.card: c.value for c in exact.solve_exact(p, objective="win").cards}
    got = make_policy("mcs:playouts=20000,objective=win", seed=1).values(p)
    assert got == pytest.approx({c: 1 - v for c, v in want.items()}, abs=0.02)


def test_ismcts_with_the_game_is_deterministic():
    from nimmt.solver.players.bots import make_policy

    p = scored(deal_position(Rules("tactical", 2), 7, seed=6), "open")
    cards = [make_policy("ismcts:iterations=300,objective=win", seed=9).choose(p).card
             for _ in range(2)]
    assert cards[0] == cards[1] and cards[0] in p.hand


def test_whole_games_give_the_bots_the_threshold(monkeypatch):
    """The arena's whole-game loop shows the bots the game (scores and threshold); one
    round shows none; game records and reviews carry the threshold."""
    from nimmt.solver.players import arena, review
    from nimmt.solver.players.bots import parse_bots
    from nimmt.solver.players.records import replay

    seen: list[Position] = []
    original = arena.Table.view

    def spy(self, seat):
        position = original(self, seat)
        seen.append(position)
        return position

    monkeypatch.setattr(arena.Table, "view", spy)
    specs = parse_bots("closest,lowkeeper", 2)
    game = arena.play_game(Rules("tactical", 2, threshold=20), specs, 1, 0, 0, [0, 1],
                           keep=True)
    assert game.rounds > 1 and seen and all(p.threshold == 20 for p in seen)
    assert any(any(p.scores) for p in seen)
    assert game.record is not None
    rounds = replay(game.record)
    assert all(t.before.threshold == 20 for r in rounds for t in r.turns)
    assert review.seat_view(rounds[1].turns[0], 1).threshold == 20
    seen.clear()
    arena.play_game(Rules("tactical", 2, one_round=True), specs, 1, 0, 0, [0, 1])
    assert seen and all(p.threshold is None and not p.in_game for p in seen)


# ---------------------------------------------------------------- the notation

BASE = ("variant=tactical players=2 rows=3,6/5,10/8,11,21/16,19,23 hand=4,14,15,18,20 "
        "p2=2,13,17,22,24 gone=1,7,9,12")


def test_threshold_round_trip_apply_turn_and_show(runner):
    text = BASE + " scores=12,40 threshold=50 taken=3,1"
    p = parse_position(text)
    assert p.threshold == 50 and p.game_threshold == 50 and p.in_game
    assert format_position(p) == text and parse_position(format_position(p)) == p
    after, _ = p.apply_turn([4, 13])
    assert after.threshold == 50 and after.scores == (12, 40)
    bare = parse_position(BASE)
    assert bare.threshold is None and bare.game_threshold == 66 and not bare.in_game
    assert parse_position(BASE + " threshold=66") != bare  # given: a game, at its start
    assert parse_position(BASE + " threshold=66").in_game
    assert parse_position(BASE + " scores=1,0").in_game
    from nimmt.solver.positions.position import position_from_mapping

    mapped = position_from_mapping({"players": 2, "rows": [[3, 6], [5, 10], [8, 11, 21],
                                                          [16, 19, 23]],
                                    "hand": [4, 14, 15, 18, 20], "gone": [1, 7, 9, 12],
                                    "threshold": 40})
    assert mapped.threshold == 40
    result = invoke(runner, "show", text)
    assert_ok(result)
    assert "game: to 50 cows" in result.stdout
    result = invoke(runner, "show", BASE + " scores=3,0")
    assert "game: to 66 cows (the rules' threshold)" in result.stdout


@pytest.mark.parametrize("bad,message", [
    (" threshold=0", "threshold='0' must be a whole number of cows, at least 1"),
    (" threshold=x", "threshold='x' is not a whole number"),
    (" threshold=-5", "threshold="),
    (" threshold=1_0", "threshold="),
    (" threshold=99999999999", "far too large"),
])
def test_bad_thresholds_are_one_line(runner, bad, message):
    with pytest.raises(NimmtError, match=message):
        parse_position(BASE + bad)
    line = assert_one_line_error(invoke(runner, "show", BASE + bad))
    assert "threshold" in line


@pytest.mark.parametrize("value", [1.5, True, "a", None, [66]])
def test_bad_json_thresholds(value):
    from nimmt.solver.positions.position import position_from_mapping

    fields = {"players": 2, "rows": [[3, 6], [5, 10], [8, 11, 21], [16, 19, 23]],
              "hand": [4, 14, 15, 18, 20], "gone": [1, 7, 9, 12], "threshold": value}
    with pytest.raises(NimmtError, match="threshold"):
        position_from_mapping(fields)


def test_a_finished_game_is_refused_by_win(runner):
    text = BASE + " scores=70,3 taken=3,1"
    with pytest.raises(NimmtError, match="already reach"):
        parse_position(text)  # the game is over, whatever the objective
    line = assert_one_line_error(invoke(runner, "analyse", text, "--objective", "win"))
    assert "already reach the rules' threshold 66" in line
    line = assert_one_line_error(invoke(runner, "analyse", BASE + " scores=20,3 threshold=20 "
                                        "taken=3,1", "--objective", "win"))
    assert "threshold=20" in line
    result = invoke(runner, "analyse", BASE + " scores=20,3 threshold=30 taken=3,1",
                    "--objective", "win", "--format", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert data["unit"] == "P(win game)" and data["game"]["scores"] == [20, 3]
