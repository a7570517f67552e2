"""The win objective with two or more hidden hands: the exact search
(solver/kernels/exactsearch.py "hidden seats") and Monte Carlo against brute forces written here.

The model: every consistent split of the pool equally likely, every opponent playing a
uniformly random card of its hand (random) or the adversary choosing (worst); each player
sees who played what once a turn's cards are revealed. ``brute_win`` plays it turn by
turn: the hidden players' cards of a turn are every ordered tuple of distinct pool cards
(equally likely, or the adversary's pick). ``brute_splits`` plays it from the splits
themselves, grouping them by what player 1 has seen, and checks that turn-by-turn
reduction on positions whose pool holds more cards than the hidden hands."""
from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from helpers import in_game, split_gone, with_taken

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import Rules, card_cows
from nimmt.solver.kernels import exactsearch
from nimmt.solver.kernels.engine import row_table
from nimmt.solver.kernels.objective import G_HIDDEN_SEATS
from nimmt.solver.positions.objective import goal_array
from nimmt.solver.positions.owners import owner_array
from nimmt.solver.positions.position import Position, format_position, parse_position
from nimmt.solver.search import exact, montecarlo
from nimmt.solver.search.game import deal_position

from naive import brute_splits, brute_values, brute_win, place_win_turn, win_cost

TOL = 1e-9


def with_known(position: Position, player: int) -> Position:
    """The position with one hidden player's hand given (the pool's first cards)."""
    k = position.cards_left
    hand = sorted(position.pool)[:k]
    return parse_position(format_position(position) + f" p{player + 1}=" +
                          ",".join(map(str, hand)))


def taken_variants(position: Position, seed: int) -> list[tuple[int, ...]]:
    """Cows taken so far: hidden seats unequal (split_gone) and all equal but player 1's."""
    total = sum(card_cows(c) for c in position.gone)
    return [split_gone(position, seed), (total,) + (0,) * (position.players - 1)]


CASES = [  # (rules, cards left, seed, known hands given): two or three hidden hands
    (Rules("tactical", 3), 2, 1, 0), (Rules("tactical", 3), 3, 4, 0),
    (Rules("tactical", 3), 3, 7, 0),
    (Rules("tactical", 3, placement="professional"), 3, 2, 0),
    (Rules("tactical", 4), 2, 3, 0), (Rules("tactical", 4), 2, 8, 0),
    (Rules("tactical", 4), 3, 5, 1),
]


# the worst model's search of the two largest cases takes 15-20 s each, and cases 1 (case 2
# again, another seed) and 5 (case 4 again) 2-5 s: run with -m slow
SLOW_CASES = {"random": {1}, "worst": {1, 5, 6}}
MODEL_CASES = [pytest.param(model, *case, id=f"{model}-rules{i}-{case[1]}-{case[2]}-{case[3]}",
                            marks=[pytest.mark.slow] if i in SLOW_CASES[model] else [])
               for model in ("random", "worst") for i, case in enumerate(CASES)]


@pytest.mark.parametrize("model,rules,k,seed,known", MODEL_CASES)
def test_exact_win_with_hidden_hands_matches_the_brute_force(rules, k, seed, known, model):
    position = deal_position(rules, k, seed=seed)
    if known:
        position = with_known(position, 1)
    assert len(position.hidden_players) >= 2
    for taken in taken_variants(position, seed):
        p = with_taken(position, taken)
        got = {c.card: c.value for c in exact.solve_exact(p, model, objective="win").cards}
        assert got == pytest.approx(brute_win(p, model), abs=TOL), taken


def test_the_brute_forces_agree_on_one_hidden_hand():
    """With one hidden hand brute_win is test_objectives' brute force (a set is a tuple)."""
    position = deal_position(Rules("standard", 3), 2, seed=4)
    p = with_taken(with_known(position, 1), split_gone(position, 4))
    assert len(p.hidden_players) == 1
    assert brute_win(p, "random") == pytest.approx(brute_values(p, "random", "win"), abs=TOL)


@pytest.mark.parametrize("players,seed", [(3, 1), (3, 6), (4, 3)])
def test_the_turn_by_turn_model_is_the_splits_model(players, seed):
    """Uniform splits of the pool and uniformly random plays, player 1 choosing from
    what it saw: brute_splits = brute_win = exact."""
    position = deal_position(Rules("tactical", players), 2, seed=seed)
    p = with_taken(position, split_gone(position, seed))
    want = brute_splits(p)
    assert brute_win(p, "random") == pytest.approx(want, abs=TOL)
    got = {c.card: c.value for c in exact.solve_exact(p, objective="win").cards}
    assert got == pytest.approx(want, abs=TOL)


@pytest.mark.parametrize("pool,hidden,k", [(5, 2, 2), (6, 2, 2), (7, 3, 2), (7, 2, 3)])
def test_a_turns_hidden_cards_are_a_uniform_ordered_tuple(pool, hidden, k):
    """The reduction behind the search, on bare card numbers, with pool cards in no hand
    too (standard variant): over uniform splits and uniformly random plays, a turn's
    hidden cards are uniform over the ordered tuples of distinct pool cards, and given
    them the hands left are uniform over the splits of the pool left."""
    cards = tuple(range(pool))

    def splits(left, n, size):
        if n == 0:
            yield ()
            return
        for hand in itertools.combinations(left, size):
            rest = tuple(x for x in left if x not in hand)
            for more in splits(rest, n - 1, size):
                yield (hand, *more)

    seen: dict[tuple, dict[tuple, int]] = defaultdict(lambda: defaultdict(int))
    for split in splits(cards, hidden, k):
        for play in itertools.product(*split):  # each a 1/k^hidden chance
            left = tuple(tuple(x for x in h if x != c) for h, c in zip(split, play))
            seen[play][left] += 1
    tuples = list(itertools.permutations(cards, hidden))
    assert sorted(seen) == sorted(tuples)
    assert len({sum(v.values()) for v in seen.values()}) == 1
    for play, lefts in seen.items():
        rest = tuple(x for x in cards if x not in play)
        assert sorted(lefts) == sorted(splits(rest, hidden, k - 1))
        assert len(set(lefts.values())) == 1


def test_telling_hidden_seats_apart_matters():
    """Somewhere the hidden hands as one seat (the search before) would be wrong: the
    brute force with hidden seats told apart differs from lumping their cows together."""
    differ = False
    for seed in range(1, 7):
        position = deal_position(Rules("tactical", 3), 2, seed=seed)
        p = with_taken(position, split_gone(position, seed))
        exact_values = {c.card: c.value for c in exact.solve_exact(p, objective="win").cards}
        lumped = lumped_win(p)
        differ |= any(abs(exact_values[c] - lumped[c]) > 1e-6 for c in p.hand)
    assert differ


def lumped_win(position: Position) -> dict[int, float]:
    """Win probabilities if both hidden hands were one seat holding their cows together."""
    taken = position.taken_so_far
    assert taken is not None
    hidden = position.hidden_players
    merged = [taken[p] for p in range(position.players) if p not in hidden[1:]]
    merged[hidden[0]] = sum(taken[p] for p in hidden)

    def card_value(rows, c, pool, cows):
        outcomes = [place_win_turn(rows, sorted([(c, 0)] + [(x, 1) for x in combo]), 0, cows,
                          position.professional, "random",
                          lambda r, w, rest=tuple(x for x in pool if x not in combo):
                          last(r, rest, w, c))
                    for combo in itertools.combinations(pool, len(hidden))]
        return sum(outcomes) / len(outcomes)

    def last(rows, pool, cows, played):
        c = next(x for x in position.hand if x != played)
        return card_value_end(rows, c, pool, cows)

    def card_value_end(rows, c, pool, cows):
        outcomes = [place_win_turn(rows, sorted([(c, 0)] + [(x, 1) for x in combo]), 0, cows,
                          position.professional, "random", lambda r, w: win_cost(w))
                    for combo in itertools.combinations(pool, len(hidden))]
        return sum(outcomes) / len(outcomes)

    assert position.cards_left == 2
    rows = [list(r) for r in position.rows]
    return {c: 1.0 - card_value(rows, c, tuple(position.pool), merged) for c in position.hand}


@pytest.mark.parametrize("players,k,seed", [(3, 3, 4), (4, 3, 5)])
def test_montecarlo_win_lands_inside_its_interval_of_the_exact_value(players, k, seed):
    position = deal_position(Rules("tactical", players), k, seed=seed)
    p = with_taken(position, split_gone(position, seed))
    want = {c.card: c.value for c in exact.solve_exact(p, objective="win").cards}
    mc = montecarlo.run_montecarlo(p, samples=600, seed=2, exact_depth=k - 1, objective="win")
    assert mc.later_exact and mc.objective == "win"
    for c in mc.cards:
        assert abs(c.value - want[c.card]) <= montecarlo.Z99 * c.stderr + TOL, (c, want)


@pytest.mark.parametrize("players,seed", [(3, 2), (4, 3)])
def test_montecarlo_playouts_attribute_hidden_cards_by_seat(players, seed):
    """No exact part (exact_depth 0, two cards left): a sample is a playout with every row
    choice rule-following, its hidden cards drawn in order and the t-th given to hidden
    seat t; the estimate lands inside its 99% interval of that brute force, and is
    deterministic for a seed."""
    position = deal_position(Rules("tactical", players), 2, seed=seed)
    p = with_taken(position, split_gone(position, seed))
    runs = [montecarlo.run_montecarlo(p, samples=3000, seed=5, exact_depth=0, rollouts=0,
                                      objective="win") for _ in range(2)]
    assert [c.value for c in runs[0].cards] == [c.value for c in runs[1].cards]
    want = brute_win(p, "random", p1_rule=True)
    for c in runs[0].cards:
        assert abs(c.value - want[c.card]) <= montecarlo.Z99 * c.stderr + TOL, (c, want)


def test_goal_tells_hidden_seats_apart_only_for_win_with_two_or_more():
    three = with_taken(deal_position(Rules("tactical", 3), 3, seed=4),
                       split_gone(deal_position(Rules("tactical", 3), 3, seed=4), 4))
    assert goal_array(three, "win")[G_HIDDEN_SEATS] == 2
    for objective in ("cows", "margin"):
        assert goal_array(three, objective)[G_HIDDEN_SEATS] == 0
    assert goal_array(with_known(three, 1), "win")[G_HIDDEN_SEATS] == 0
    with pytest.raises(NimmtError, match="taken"):
        goal_array(deal_position(Rules("tactical", 3), 3, seed=4), "win")


@pytest.mark.parametrize("players", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_search_bots_play_win_with_hidden_hands(players):
    from nimmt.solver.players.bots import make_policy
    from nimmt.solver.search.analysis import analyse

    position = deal_position(Rules("tactical", players), 3, seed=players)
    p = with_taken(position, split_gone(position, players))
    a = analyse(p, method="exact", objective="win")
    best = {c.card for c in a.cards if c.regret <= 1e-9}
    assert make_policy("expecti:objective=win", seed=1).choose(p).card in best
    worst = analyse(p, "worst", method="exact", objective="win")
    best = {c.card for c in worst.cards if c.regret <= 1e-9}
    assert make_policy("paranoid:objective=win", seed=1).choose(p).card in best
    deeper = with_taken(deal_position(Rules("tactical", players), 7, seed=players),
                        split_gone(deal_position(Rules("tactical", players), 7, seed=players),
                                   players))
    card = make_policy("expecti:samples=20,nodes=2000,objective=win", seed=1).choose(deeper).card
    assert card in deeper.hand


def test_analyse_win_on_a_dealt_three_player_position(runner):
    from cli_checks import assert_ok, invoke

    position = deal_position(Rules("tactical", 3), 3, seed=4)
    text = format_position(with_taken(position, split_gone(position, 4)))
    result = invoke(runner, "analyse", text, "--objective", "win")
    assert_ok(result)
    assert "win" in result.output


class Totals:
    """A position whose cows taken so far are other numbers (the game's totals), for
    brute_win only (Position itself checks taken= against the cards gone)."""

    def __init__(self, position: Position, taken: tuple[int, ...]):
        self.position, self.taken_so_far = position, taken

    def __getattr__(self, name):
        return getattr(self.position, name)


@pytest.mark.parametrize("model,players,k,seed", [
    (model, *case) if case != (3, 3, 4)
    else pytest.param(model, *case, marks=pytest.mark.slow)  # 3-27 s: run with -m slow
    for model in ("random", "worst") for case in ((3, 2, 1), (3, 3, 4), (4, 2, 3))])
def test_game_win_with_hidden_hands_keeps_each_hidden_players_score(players, k, seed, model):
    """In a game of three or more the round's end is worth the share of the fewest totals
    (score + cows), which is the round's win from cows taken = score + taken: so brute_win
    on that position is the value. Hidden players' scores that differ (their totals equal
    or not, the game ending at this round or not) must stay with their players although
    the search sorts the hidden seats."""
    position = deal_position(Rules("tactical", players), k, seed=seed)
    taken = split_gone(position, seed)
    assert len(position.hidden_players) >= 2
    even = taken[1] - taken[2]  # player 3's score that makes its total player 2's
    for scores, threshold in [((5, 9, 2, 7)[:players], 66), ((5, 0, even, 4)[:players], 66),
                              ((5, 9, 2, 7)[:players], 12)]:
        p = in_game(with_taken(position, taken), scores, threshold)
        got = {c.card: c.value for c in exact.solve_exact(p, model, objective="win").cards}
        totals = Totals(p, tuple(t + s for t, s in zip(taken, scores)))
        assert got == pytest.approx(brute_win(totals, model), abs=TOL), (scores, threshold)


@pytest.mark.parametrize("players,k,seed,objective", [
    (3, 4, 1, "cows"), (4, 3, 2, "cows"), (2, 5, 3, "win"),
    pytest.param(2, 6, 4, "win", marks=pytest.mark.slow)])  # 2-3 s: run with -m slow
def test_the_kernel_without_attribution_frames_gives_the_same_values(players, k, seed,
                                                                     objective):
    """Where hidden seats are not told apart, the kernel compiled with its ATTRIBUTE frames
    (attribute=True) and the one numba pruned them from (attribute=None) agree exactly."""
    scores = [20 + 7 * s % 30 for s in range(players)]
    position = in_game(deal_position(Rules("tactical", players), k, seed=seed), scores)
    goal = goal_array(position, objective)
    assert goal[G_HIDDEN_SEATS] == 0.0
    owner, known, hidden = owner_array(position)
    layout = exactsearch.memo_layout(owner, position.professional,
                                     position.players if objective == "win" else 0)
    cards = np.asarray(position.hand, np.int64)
    values = []
    for attribute in (None, True):
        results = np.zeros((len(cards), 3))
        stats = np.zeros(exactsearch.STAT_SLOTS, np.int64)
        exactsearch.solve_cards(row_table(position.rows), owner, position.deck_size, known,
                                hidden, position.professional, exactsearch.MODEL_RANDOM,
                                cards, layout, goal, attribute, stats, 10**9, results)
        assert stats[exactsearch.ABORTED] == 0
        values.append(results)
    assert np.array_equal(values[0], values[1])
