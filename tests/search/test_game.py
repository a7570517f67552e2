"""Whole games: simulate(), the game loop in engine.play_games, win shares, ranks,
estimates, and the logic draft."""
from __future__ import annotations

import math

import numpy as np
import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.rules import NimmtError, Rules, deck_size, ranks, win_shares
from nimmt.solver.kernels import engine
from nimmt.solver.search.game import Estimate, simulate


def play(players, *, variant="tactical", bots=None, first=0, count=100, seed=7,
         threshold=66, one_round=False, professional=False, record_rounds=0):
    codes = engine.bot_codes(bots or ["random"] * players)
    return engine.play_games(first, count, players, deck_size(variant, players),
                             variant == "logic", professional, threshold, one_round, codes, seed,
                             record_rounds=record_rounds)


# ---------------------------------------------------------------- determinism and chunking

def test_simulate_is_deterministic_for_a_seed():
    rules = Rules("tactical", 3)
    bots = ["random", "closest", "lowkeeper"]
    a = simulate(rules, bots, 400, seed=5)
    b = simulate(rules, bots, 400, seed=5)
    assert a.seats == b.seats and a.mean_rounds == b.mean_rounds
    assert (a.games, a.games_asked, a.seed, a.bots) == (400, 400, 5, tuple(bots))
    assert a.complete
    c = simulate(rules, bots, 400, seed=6)
    assert c.seats != a.seats


@pytest.mark.parametrize("variant,players,one_round", [
    ("tactical", 2, False), ("logic", 4, False), ("standard", 5, True)])
def test_play_games_is_independent_of_chunking(variant, players, one_round):
    bots = (["random", "closest", "lowkeeper", "dumper"] * 3)[:players]
    whole_totals, whole_rounds = play(players, variant=variant, bots=bots, count=120,
                                      one_round=one_round)
    parts = [play(players, variant=variant, bots=bots, first=a, count=b - a, one_round=one_round)
             for a, b in ((0, 1), (1, 50), (50, 51), (51, 120))]
    assert np.array_equal(np.concatenate([t for t, _ in parts]), whole_totals)
    assert np.array_equal(np.concatenate([r for _, r in parts]), whole_rounds)
    # game g uses stream (seed, g): a single game played alone is the same game
    alone_totals, alone_rounds = play(players, variant=variant, bots=bots, first=77, count=1,
                                      one_round=one_round)
    assert np.array_equal(alone_totals[0], whole_totals[77])
    assert alone_rounds[0] == whole_rounds[77]


def test_different_games_differ():
    totals, _ = play(3, count=50)
    assert len({tuple(t) for t in totals}) > 10


def test_simulate_matches_play_games_whatever_its_unit_size():
    rules = Rules("tactical", 2)
    bots = ["random", "closest"]
    games = 2600  # more than one unit of simulate's default 1024 games
    totals, rounds = play(2, bots=bots, count=games, seed=21)
    shares = win_shares(totals)
    for unit_games in (1000, None, 10**9):  # units of 1000 games / the default / one unit
        result = simulate(rules, bots, games, seed=21, unit_games=unit_games)
        assert result.games == games
        assert result.mean_rounds == pytest.approx(rounds.mean(), rel=1e-12)
        for p, seat in enumerate(result.seats):
            assert seat.seat == p + 1 and seat.bot == bots[p]
            assert seat.final_total.mean == pytest.approx(totals[:, p].mean(), rel=1e-12)
            assert seat.win_rate.mean == pytest.approx(shares[:, p].mean(), rel=1e-12)
            assert seat.cows_per_round.mean == pytest.approx(
                (totals[:, p] / rounds).mean(), rel=1e-12)


def test_simulate_reports_progress():
    seen = []
    result = simulate(Rules("tactical", 2, one_round=True), ["random", "random"], 3000, seed=1,
                      progress=seen.append)
    assert sum(seen) == result.games == 3000


# ---------------------------------------------------------------- rounds and the end of a game

def test_one_round_games_have_one_round():
    _, rounds = play(4, count=200, one_round=True)
    assert (rounds == 1).all()
    result = simulate(Rules("standard", 6, one_round=True), ["random"] * 6, 300, seed=2)
    assert result.mean_rounds == 1.0
    for seat in result.seats:
        assert seat.cows_per_round.mean == pytest.approx(seat.final_total.mean)


@pytest.mark.parametrize("variant,players,threshold", [
    ("tactical", 2, 66), ("tactical", 5, 66), ("standard", 3, 30), ("logic", 4, 66)])
def test_full_games_end_when_a_total_reaches_the_threshold(variant, players, threshold):
    totals, rounds = play(players, variant=variant, count=200, threshold=threshold)
    assert (totals.max(axis=1) >= threshold).all()
    assert (rounds >= 1).all() and (rounds < 10_000).all()
    assert (rounds > 1).any()  # a round rarely reaches 66 cows on its own
    assert (totals >= 0).all()


def test_threshold_one_ends_every_game_after_a_round():
    # 10n cards cannot all fit in 4 rows without someone taking cows, so a threshold of 1
    # is reached in the first round
    for players in (2, 3, 10):
        totals, rounds = play(players, count=100, threshold=1)
        assert (rounds == 1).all()
        assert (totals.sum(axis=1) >= 1).all()


def test_logged_rounds_replay_to_the_totals_and_the_game_stops_at_the_threshold():
    """Replay each logged round with the pure-Python reference rules: the per-round cows
    add up to the totals, and the game ends exactly at the first round where a total
    reaches the threshold."""
    players, threshold, count = 3, 40, 15
    totals, rounds, log = play(players, count=count, seed=3, threshold=threshold,
                               bots=["random", "closest", "dumper"], record_rounds=40)
    assert rounds.max() <= 40
    for g in range(count):
        running = [0] * players
        for r in range(rounds[g]):
            assert max(running) < threshold  # the game was not over yet
            rows = [[int(c)] for c in log.rows[g, r]]
            for turn in range(10):
                cards = [int(c) for c in log.plays[g, r, turn]]
                rows, cows = reference.resolve_turn(rows, cards, False)
                running = [a + b for a, b in zip(running, cows)]
        assert running == totals[g].tolist()
        assert max(running) >= threshold


def test_simulate_rejects_bad_input():
    rules = Rules("tactical", 3)
    with pytest.raises(NimmtError, match="2 bots for 3 players"):
        simulate(rules, ["random", "random"], 10)
    with pytest.raises(NimmtError, match="unknown bot 'genius'"):
        simulate(rules, ["random", "genius", "random"], 10)
    with pytest.raises(NimmtError, match="at least 1"):
        simulate(rules, ["random"] * 3, 0)
    with pytest.raises(NimmtError):
        Rules("tactical", 3, threshold=0)


# ---------------------------------------------------------------- wins, ranks, estimates

def test_win_shares_split_ties():
    totals = np.array([[3, 3, 5], [1, 2, 3], [4, 4, 4], [9, 0, 9]])
    expected = np.array([[0.5, 0.5, 0], [1, 0, 0], [1 / 3, 1 / 3, 1 / 3], [0, 1, 0]])
    assert np.allclose(win_shares(totals), expected)


def test_win_shares_sum_to_one_per_game():
    totals, _ = play(4, count=300, seed=11)
    shares = win_shares(totals)
    assert np.allclose(shares.sum(axis=1), 1.0)
    assert ((shares >= 0) & (shares <= 1)).all()
    # the winners are exactly the players with the fewest cows
    assert ((shares > 0) == (totals == totals.min(axis=1, keepdims=True))).all()
    result = simulate(Rules("tactical", 4), ["random", "closest", "lowkeeper", "dumper"], 300,
                      seed=11)
    assert sum(s.win_rate.mean for s in result.seats) == pytest.approx(1.0)


def test_ranks_share_equal_totals():
    assert ranks([12, 7, 12, 30]) == [2, 1, 2, 4]
    assert ranks([5, 5, 5]) == [1, 1, 1]
    assert ranks([0, 66]) == [1, 2]
    assert ranks([30, 20, 10, 10, 40]) == [4, 3, 1, 1, 5]


def test_estimate_interval_contains_the_mean():
    rng = np.random.default_rng(0)
    for values in (rng.integers(0, 30, 50), rng.random(7), np.array([1.0, 2.0]),
                   np.array([4.0, 4.0, 4.0])):
        e = Estimate.of(np.asarray(values, float))
        assert e.low <= e.mean <= e.high
        assert e.mean == pytest.approx(float(np.mean(values)))
        assert e.high - e.mean == pytest.approx(e.mean - e.low)
    constant = Estimate.of(np.array([4.0, 4.0, 4.0]))
    assert constant.low == constant.mean == constant.high == 4.0
    single = Estimate.of(np.array([3.0]))
    assert single.mean == 3.0 and math.isnan(single.low) and math.isnan(single.high)


def test_simulated_estimates_contain_their_means():
    result = simulate(Rules("standard", 4), ["random"] * 4, 300, seed=4)
    for seat in result.seats:
        for e in (seat.cows_per_round, seat.final_total, seat.win_rate):
            assert e.low <= e.mean <= e.high


# ---------------------------------------------------------------- the logic draft

@pytest.mark.parametrize("players", [2, 3, 5, 10])
def test_logic_draft_rows_are_the_cards_not_drafted(players):
    count = 40
    _, _, log = play(players, variant="logic", count=count, seed=players, one_round=True,
                     record_rounds=1)
    deck = set(range(1, 10 * players + 5))
    for g in range(count):
        hands = log.hands[g, 0]
        drafted = set()
        for hand in hands.tolist():
            assert len(hand) == 10 and len(set(hand)) == 10
            assert not drafted & set(hand)
            drafted |= set(hand)
        rows = log.rows[g, 0].tolist()
        assert rows == sorted(deck - drafted)
        assert rows == sorted(rows) and len(set(rows)) == 4


def test_logic_draft_differs_between_games():
    _, _, log = play(3, variant="logic", count=10, one_round=True, record_rounds=1)
    assert len({tuple(log.rows[g, 0]) for g in range(10)}) > 1


def test_logic_draft_with_rule_following_bots_is_round_robin_from_the_first_player():
    """Non-random bots draft the card with the fewest cows (ties: lowest); picks go round
    robin from the starting player (player 1 in the first round)."""
    players = 3
    _, _, log = play(players, variant="logic", bots=["closest"] * players, count=2,
                     one_round=True, record_rounds=1)
    top = 10 * players + 4
    from nimmt.solver.base.rules import card_cows
    order = sorted(range(1, top + 1), key=lambda c: (card_cows(c), c))
    for g in range(2):
        for p in range(players):
            assert sorted(log.hands[g, 0, p].tolist()) == sorted(order[p:10 * players:players])
        assert log.rows[g, 0].tolist() == sorted(order[10 * players:])


def test_tactical_deal_uses_the_whole_deck():
    players = 4
    _, _, log = play(players, count=20, one_round=True, record_rounds=1)
    for g in range(20):
        cards = log.hands[g, 0].ravel().tolist() + log.rows[g, 0].tolist()
        assert sorted(cards) == list(range(1, 10 * players + 5))
