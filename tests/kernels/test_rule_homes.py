"""One home for each rule, and the kernels' forms held against it.

- the objective: the kernels' encoding (the goal array, ``solver/kernels/objective.py``)
  and the Python rules agree, for the round, a two-player game (its table) and a game of
  three players (the lead), whoever's cost is asked;
- the win share (``rules.win_shares``) and the game's end (``rules.game_over``), against
  the kernels' ``win_share`` and ``engine.game_ends``;
- the turn walk (``turns.walk_turn``): the rows each card meets and the choices it has, as
  the pure-Python reference engine places the same turn."""
from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.solver.base import reference
from nimmt.solver.base.rules import COWS, Rules, game_over, win_shares
from nimmt.solver.kernels import engine
from nimmt.solver.kernels.objective import (
    G_SCORES,
    G_SEATS,
    GOAL_SLOTS,
    end_cost,
    playout_cost,
    win_share,
)
from nimmt.solver.kernels.turns import walk_turn
from nimmt.solver.positions import objective as goals
from nimmt.solver.positions.objective import (
    cow_weights,
    goal_array,
    playout_goal,
    turn_cost,
)
from nimmt.solver.positions.position import Position
from nimmt.solver.search.game import deal_position


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=2, max_size=10), st.data())
def test_the_kernels_win_share_is_the_rule(cows, data):
    """win_share over cows plus scores is rules.win_shares over the totals, every seat."""
    n = len(cows)
    scores = data.draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    goal = np.zeros(GOAL_SLOTS)
    goal[G_SEATS] = n
    goal[G_SCORES:G_SCORES + n] = scores
    held = np.array(cows, np.int64)
    want = win_shares(np.add(cows, scores))
    for p in range(n):
        assert win_share(goal, held, p) == want[p]
    assert end_cost(goal, held) == 0.0  # no win in the goal: nothing at the end


def after_playout(position: Position, seed: int) -> np.ndarray:
    """Every player's cows at the end of the round after some random playout: the cows
    taken so far plus a random split of cows still in play."""
    rng = np.random.default_rng(seed)
    taken = np.array(position.taken_so_far or (0,) * position.players, np.int64)
    in_play = [c for c in range(1, position.deck_size + 1) if c not in position.gone]
    extra = np.zeros(position.players, np.int64)
    for c in rng.choice(in_play, size=min(12, len(in_play)), replace=False):
        extra[rng.integers(position.players)] += COWS[c]
    return taken + extra


def positions() -> list[tuple[str, Position]]:
    two = deal_position(Rules("tactical", 2), 10, seed=1)
    four = deal_position(Rules("standard", 4), 10, seed=2)
    three = deal_position(Rules("tactical", 3), 10, seed=3)
    return [("round 2p", two), ("round 4p", four),
            ("game 2p", replace(two, scores=(20, 30), threshold=66)),
            ("game 3p", replace(three, scores=(20, 30, 10), threshold=66))]


@pytest.mark.parametrize("name,position,objective", [
    (name, position, objective) for name, position in positions()
    for objective in (("win",) if name.startswith("game") else ("cows", "margin", "win"))])
def test_playout_cost_is_the_python_objective(name, position, objective):
    """Player 1's playout cost is the Python cost of the same end: the cows' weights for
    cows and margin, 1 - goals.share_at_end for win (round, game table, lead)."""
    goal = playout_goal(position, objective)
    taken = np.array(position.taken_so_far, np.int64)
    for seed in range(20):
        got = after_playout(position, seed)
        cost = playout_cost(goal, got, 0)
        if objective == "win":
            assert cost == pytest.approx(1.0 - goals.share_at_end(position, got.tolist()),
                                         abs=1e-12)
        else:
            assert cost == pytest.approx(turn_cost(objective, (got - taken).tolist()),
                                         abs=1e-12)


@pytest.mark.parametrize("name,position", positions())
def test_every_player_s_playout_cost_is_its_own(name, position):
    """Seen from player p the cost is player p's: cows its own, the win its share."""
    n = position.players
    cows_goal, win_goal = playout_goal(position, "cows"), playout_goal(position, "win")
    for seed in range(10):
        got = after_playout(position, seed)
        scores = np.array(position.scores)
        shares = win_shares(got + scores)
        if goals.game_kind(position) == goals.GAME:
            first = goals.share_at_end(position, got.tolist())
            shares = np.array([first, 1.0 - first])
        for p in range(n):
            assert playout_cost(cows_goal, got, p) == got[p]
            assert playout_cost(win_goal, got, p) == pytest.approx(1.0 - shares[p], abs=1e-12)


def test_exact_search_and_the_playouts_weigh_cows_alike():
    """goal_array (exact search, Monte Carlo) and playout_goal carry the same weights,
    and turn_cost reads them too."""
    position = deal_position(Rules("tactical", 4), 10, seed=5)
    for objective in ("cows", "margin", "win"):
        weights = cow_weights(objective, 4)
        assert tuple(goal_array(position, objective)[:3]) == weights
        assert tuple(playout_goal(position, objective)[:3]) == weights
    assert turn_cost("margin", [3, 1, 2, 0]) == pytest.approx(3 - 1.0)
    assert turn_cost("cows", [3, 1, 2, 0]) == 3.0 and turn_cost("win", [3, 1, 2, 0]) == 0.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 80), min_size=2, max_size=10), st.integers(1, 80),
       st.booleans())
def test_the_kernels_game_end_is_the_rule(totals, threshold, one_round):
    want = one_round or game_over(totals, threshold)
    assert engine.game_ends(np.array(totals, np.int64), threshold, one_round) == want
    assert Rules("tactical", 2, threshold=threshold, one_round=one_round).game_over(totals) \
        == want


def random_turn(rng: random.Random) -> tuple[list[list[int]], list[int], bool]:
    """Rows of one to five cards and one card per player, all distinct, from 1..104."""
    n = rng.randint(2, 10)
    deck = rng.sample(range(1, 105), 4 * 5 + n)
    rows = [sorted(deck[5 * r:5 * r + rng.randint(1, 5)]) for r in range(4)]
    return rows, deck[20:20 + n], rng.random() < 0.5


def test_the_turn_walk_meets_the_rows_the_reference_engine_meets():
    """Choices drawn at random as the walk asks: the same players asked in the same order
    with the same rows and the same options as the reference engine, and the same turn."""
    rng = random.Random(7)
    asked = 0
    for _ in range(400):
        rows, cards, professional = random_turn(rng)
        take, tie = [-1] * len(cards), [-1] * len(cards)
        walked = []
        for player, met, options in walk_turn(rows, cards, professional, take, tie):
            take[player], tie[player] = options[rng.randrange(len(options))]
            walked.append((player, [list(r) for r in met], len(options)))
        seen = []

        def chooser(player, now, card, opts, seen=seen, take=take, tie=tie):
            seen.append((player, [list(r) for r in now], len(opts)))
            if take[player] >= 0:
                return next(o for o in opts if o.row_index == take[player])
            return next(o for o in opts if o.side == ("left" if tie[player] else "right"))

        want_rows, want_cows = reference.resolve_turn(rows, cards, professional, chooser)
        assert walked == seen
        got = engine.resolve_turn(rows, cards, professional, take, tie)
        assert [list(r) for r in got.rows] == want_rows and list(got.cows) == want_cows
        asked += len(walked)
    assert asked > 100  # the walk met many choices
