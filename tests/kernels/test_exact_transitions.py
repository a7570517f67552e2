"""The exact search's transitions (solver.search.exact), each on one- and two-card states: a
boundary frame begun, its cards and opponent sets walked, a joint action dealt and taken
back, outcomes folded, forced cards placed, choices pushed, played and settled, a turn
ended into the memo and a state finished; and the whole search against tests/naive.py's
brute force."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.rules import HAND_SIZE, MAX_PLAYERS, ROW_COUNT, Rules
from nimmt.solver.kernels import exactsearch
from nimmt.solver.kernels.engine import row_table
from nimmt.solver.kernels.exactsearch import (
    ACC,
    ADDED,
    BEST,
    BOUNDARY,
    CHOICE,
    FRAME_COLUMNS,
    FRESH,
    HAND_AT,
    HANDS,
    KIND,
    MAX_FRAMES,
    MINE,
    MODEL_RANDOM,
    MODEL_WORST,
    OPTION,
    OPTION_COUNT,
    POOL,
    POOL_COUNT,
    SET_AT,
    SET_COUNT,
    SIZES,
    TURN_CARDS,
    TURN_OWNERS,
    VALUE,
)
from nimmt.solver.kernels.objective import G_MINE, GOAL_SLOTS
from nimmt.solver.kernels.statekey import OWNER_GONE, OWNER_P1, OWNER_POOL, key_width
from nimmt.solver.search import exact
from nimmt.solver.search.game import deal_position

from naive import card_values as brute_force

ROWS = [[10, 11], [13, 15], [17, 18, 20], [23]]
DECK = 34
GOAL = np.zeros(GOAL_SLOTS)  # the cows objective: player 1's own cows
GOAL[G_MINE] = 1.0


def stack(rows=ROWS):
    """Empty frame arrays as ``search_state`` makes them; frame 0's table ``rows``."""
    st = dict(frames=np.zeros((MAX_FRAMES, FRAME_COLUMNS), np.int64),
              sums=np.zeros((MAX_FRAMES, 3, 3)), work=row_table(rows),
              stats=np.zeros(exactsearch.STAT_SLOTS, np.int64))
    exactsearch.save_table(st["frames"], 0, st["work"])
    return st


def owners(hand, known_hands=(), pool=(), deck=DECK):
    owner = np.zeros(deck + 1, np.int64)
    for c in hand:
        owner[c] = OWNER_P1
    for j, h in enumerate(known_hands):
        for c in h:
            owner[c] = OWNER_P1 + 1 + j
    for c in pool:
        owner[c] = OWNER_POOL
    return owner


def turn_of(st, f, width):
    return (list(st["frames"][f, TURN_CARDS:TURN_CARDS + width]),
            list(st["frames"][f, TURN_OWNERS:TURN_OWNERS + width]))


def begin(st, owner, known, hidden, model=MODEL_RANDOM, root_card=-1):
    exactsearch.begin_state(st["frames"], st["sums"], 0, owner, DECK, known, hidden, st["stats"])
    return exactsearch.next_card(st["frames"], st["sums"], 0, known, hidden, model, root_card)


def test_tables_round_trip_through_a_frame():
    st = stack()
    work = np.zeros((ROW_COUNT, 4), np.int64)
    exactsearch.load_table(st["frames"], 0, work)
    assert (work == row_table(ROWS)).all()


@pytest.mark.parametrize("hand,known_hands,pool,hidden", [
    ((5,), ((30,),), (), 0), ((5, 25), ((2, 30),), (), 0), ((5,), (), (1, 2, 30), 1),
    ((5, 25), ((30, 31),), (1, 2, 3), 2)])
def test_begin_state_and_opponent_sets(hand, known_hands, pool, hidden):
    known = len(known_hands)
    width = 1 + known + hidden
    st = stack()
    owner = owners(hand, known_hands, pool)
    assert begin(st, owner, known, hidden)
    f = st["frames"]
    assert st["stats"][exactsearch.STATES] == 1 and f[0, HAND_AT] == 0 and f[0, SET_AT] == 0
    assert list(f[0, HANDS:HANDS + len(hand)]) == sorted(hand) and f[0, SIZES] == len(hand)
    for j, h in enumerate(known_hands):
        at = HANDS + (1 + j) * HAND_SIZE
        assert list(f[0, at:at + len(h)]) == sorted(h) and f[0, SIZES + 1 + j] == len(h)
    assert f[0, POOL_COUNT] == len(pool) and list(f[0, POOL:POOL + len(pool)]) == sorted(pool)
    expected = list(itertools.product(*[sorted(h) for h in known_hands],
                                      itertools.combinations(sorted(pool), hidden)))
    assert f[0, SET_COUNT] == len(expected) and st["sums"][0, BEST, VALUE] == math.inf
    seen = []
    for _ in range(len(expected)):
        exactsearch.deal_joint_action(f, 0, owner, known, hidden, width)
        cards, tags = turn_of(st, 0, width)
        assert cards == sorted(cards)
        assert all(owner[c] == OWNER_GONE for c in cards)
        by_owner = dict(zip(tags, cards))
        assert by_owner[OWNER_P1] == sorted(hand)[0]
        seen.append((tuple(by_owner[OWNER_P1 + 1 + j] for j in range(known)),
                     tuple(c for c, o in zip(cards, tags) if o == OWNER_POOL)))
        exactsearch.take_back_joint_action(f, 0, owner, width)
        assert (owner == owners(hand, known_hands, pool)).all()
        exactsearch.next_opponent_set(f, 0, known, hidden)
    assert sorted(seen) == sorted((tuple(ks[:known]), ks[known]) for ks in expected)


def test_sort_turn_columns_sorts_cards_with_their_owners():
    st = stack()
    f = st["frames"]
    f[0, TURN_CARDS:TURN_CARDS + 3] = [30, 4, 17]
    f[0, TURN_OWNERS:TURN_OWNERS + 3] = [OWNER_P1, OWNER_POOL, 2]
    exactsearch.sort_turn_columns(f, 0, 3)
    assert turn_of(st, 0, 3) == ([4, 17, 30], [OWNER_POOL, 2, OWNER_P1])


def test_next_card_walks_the_hand_and_the_root_card():
    st = stack()
    owner = owners((5, 25), (), (1, 30))
    assert begin(st, owner, 0, 1)
    assert exactsearch.next_card(st["frames"], st["sums"], 0, 0, 1, MODEL_RANDOM, -1)
    assert st["frames"][0, HAND_AT] == 1
    assert tuple(st["sums"][0, ACC]) == (0.0, 0.0, 0.0)
    assert not exactsearch.next_card(st["frames"], st["sums"], 0, 0, 1, MODEL_RANDOM, -1)
    st = stack()
    assert begin(st, owner, 0, 1, MODEL_WORST, root_card=25)
    assert st["frames"][0, HAND_AT] == 1 and st["sums"][0, ACC, VALUE] == -math.inf
    assert not exactsearch.next_card(st["frames"], st["sums"], 0, 0, 1, MODEL_WORST, 25)


def test_count_joint_action_stops_past_the_budget():
    stats = np.zeros(exactsearch.STAT_SLOTS, np.int64)
    assert exactsearch.count_joint_action(stats, 2) == 0
    assert exactsearch.count_joint_action(stats, 2) == 0
    assert exactsearch.count_joint_action(stats, 2) == exactsearch.STOPPED_NODES
    stats[exactsearch.STOP] = 1
    stats[exactsearch.RESOLVED] = exactsearch.CHECK_MASK
    assert exactsearch.count_joint_action(stats, 10**9) == exactsearch.STOPPED_FLAG


@pytest.mark.parametrize("model", [MODEL_RANDOM, MODEL_WORST])
def test_add_outcome_averages_or_keeps_the_worst(model):
    st = stack()
    owner = owners((5, 25), (), (1, 30))
    assert begin(st, owner, 0, 1, model)
    f, s = st["frames"], st["sums"]
    assert not exactsearch.add_outcome(f, s, 0, 2.0, 1.0, 1.0, model, st["stats"])
    assert exactsearch.add_outcome(f, s, 0, 4.0, 0.0, 0.0, model, st["stats"])
    assert tuple(s[0, BEST]) == ((3.0, 0.5, 0.5) if model == MODEL_RANDOM else (4.0, 0.0, 0.0))
    # the second card: worst prunes once a set is no better than the best card
    assert exactsearch.next_card(f, s, 0, 0, 1, model, -1)
    settled = exactsearch.add_outcome(f, s, 0, 5.0, 0.0, 0.0, model, st["stats"])
    assert settled == (model == MODEL_WORST)
    assert st["stats"][exactsearch.PRUNED] == (1 if model == MODEL_WORST else 0)


@pytest.mark.parametrize("turn,professional", [
    (((24, OWNER_P1),), False), (((2, OWNER_P1),), False),
    (((24, OWNER_P1), (21, OWNER_POOL)), False),
    (((16, OWNER_P1), (12, OWNER_POOL)), True), (((5, OWNER_POOL), (25, OWNER_P1)), False)])
@pytest.mark.parametrize("model", [MODEL_RANDOM, MODEL_WORST])
def test_place_forced_cards_stops_at_a_choice(turn, professional, model):
    width = len(turn)
    st = stack()
    f = st["frames"]
    turn = sorted(turn)
    f[0, TURN_CARDS:TURN_CARDS + width] = [c for c, _ in turn]
    f[0, TURN_OWNERS:TURN_OWNERS + width] = [o for _, o in turn]
    count, at, value, now, took = exactsearch.place_forced_cards(
        f, st["work"], 0, 0, 0.0, 0.0, 0.0, width, professional, model, GOAL,
        np.zeros(MAX_PLAYERS, np.int64), 0)
    rows = ROWS
    expected_value = 0
    for i, (card, who) in enumerate(turn):
        opts = reference.options(rows, card, professional)
        if len(opts) > 1 and (who == OWNER_P1 or model != MODEL_RANDOM):
            assert (count, at) == (len(opts), i)
            break
        rows, taken = reference.apply_option(rows, card, reference.rule_following(rows, opts))
        expected_value += taken if who == OWNER_P1 else 0
    else:
        assert (count, at) == (0, width)
    assert (st["work"] == row_table(rows)).all()
    assert value == now == expected_value and took == (1.0 if expected_value else 0.0)
    if count:  # push it, play every option, settle it
        f[0, KIND] = BOUNDARY
        exactsearch.push_choice(f, st["sums"], 1, count, 0, at, value, now, took, st["work"],
                          np.zeros(MAX_PLAYERS, np.int64), GOAL)
        assert f[1, KIND] == CHOICE and f[1, OPTION_COUNT] == count and f[1, OPTION] == 0
        assert f[1, MINE] == (turn[at][1] == OWNER_P1)
        assert tuple(st["sums"][1, ADDED]) == (value, now, took)
        card = turn[at][0]
        opts = reference.options(rows, card, professional)
        outcomes, tables, cows = [], [], []
        for o in range(count):
            tf, nxt, v, n, t = exactsearch.play_next_option(
                f, 1, st["work"], professional, GOAL, np.zeros(MAX_PLAYERS, np.int64), 0)
            assert (tf, nxt) == (0, at + 1)
            tables.append(st["work"].tolist())
            cows.append(v)
            mine = turn[at][1] == OWNER_P1
            assert (v, n, t) == ((v, v, float(v > 0)) if mine else (0.0, 0.0, 0.0))
            outcome = float(o)  # any outcome per option
            outcomes.append(outcome)
            exactsearch.return_to_choice(f, st["sums"], 1, outcome, outcome, 0.0)
        want = [reference.apply_option(rows, card, o) for o in opts]  # every option, once
        assert sorted(tables) == sorted(row_table(r).tolist() for r, _ in want)
        if turn[at][1] == OWNER_P1:
            assert sorted(cows) == sorted(float(c) for _, c in want)
        assert f[1, OPTION] == count
        best = min(outcomes) if f[1, MINE] else max(outcomes)
        assert exactsearch.return_from_choice(st["sums"], 1) == (best + value, best + now, took)


def test_end_turn_last_card_memo_hit_new_state_and_finish():
    st = stack()
    owner = owners((5, 25), (), (1, 30))
    layout = exactsearch.memo_layout(owner, False)
    memo = exactsearch.new_memo(key_width(layout), 16)
    entries = memo[0]
    words = np.zeros(key_width(layout), np.int64)
    order = np.zeros(ROW_COUNT, np.int64)
    f, s = st["frames"], st["sums"]

    def end_turn():
        return exactsearch.end_turn(f, s, 1, 0, 2.0, 1.0, 1.0, st["work"], owner, DECK, layout,
                              entries, entries.view(np.float64), st["stats"], words, order,
                              GOAL, np.zeros(MAX_PLAYERS, np.int64), np.int64(0))

    f[0, SIZES] = 1  # player 1's last card: known at once
    assert end_turn() == (True, 2.0, 1.0, 1.0)
    f[0, SIZES] = 2  # not in the memo: frame 1 becomes a fresh boundary
    assert end_turn()[0] is False
    assert f[1, KIND] == BOUNDARY and f[1, FRESH] == 1
    assert tuple(s[1, ADDED]) == (2.0, 1.0, 1.0)
    work = np.zeros((ROW_COUNT, 4), np.int64)
    exactsearch.load_table(f, 1, work)
    assert (work == st["work"]).all()
    s[1, BEST, VALUE] = 3.5
    got = exactsearch.finish_state(f, s, 1, memo, entries, entries.view(np.float64), layout,
                             st["stats"], words)
    assert got[0] is entries or got[0].shape == entries.shape
    assert got[1:] == (5.5, 1.0, 1.0) and st["stats"][exactsearch.ENTRIES] == 1
    assert end_turn() == (True, 5.5, 1.0, 1.0)  # a memo hit
    assert st["stats"][exactsearch.HITS] == 1


@pytest.mark.parametrize("players,placement", [(2, "normal"), (3, "normal"),
                                               (2, "professional"), (4, "normal")])
@pytest.mark.parametrize("cards_left", [1, 2])
@pytest.mark.parametrize("model", ["random", "worst"])
def test_search_state_against_brute_force(players, placement, cards_left, model):
    for seed in range(3):
        position = deal_position(Rules("tactical", players, placement), cards_left, seed=seed)
        got = {c.card: c.value for c in exact.solve_exact(position, model).cards}
        want = brute_force(position, model)
        assert got == pytest.approx(want)
