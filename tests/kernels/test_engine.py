"""The numba kernels against the pure-Python reference (``solver/base/reference.py``).

Random but legal turns in bulk (traced card by card), the Python API with its
steps, whole bot games replayed by the reference, determinism, one hand-made
position per rule, and hypothesis properties over random sequences of turns.
"""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.solver.base import reference
from nimmt.solver.base.rules import COWS, card_cows, deck_size
from nimmt.solver.kernels import engine

from naive import logic_draft as draft
from naive import replay_cows as replay_game

SEED = 6_104_2024
BATCH = 20_000
PAD = 1 << 20  # sorts after every card
STANDARD = 104


def tactical(n: int) -> int:
    return 10 * n + 4


# Every (deck, players, professional) the turn tests cover: the standard deck and the
# tactical/logic deck 1..10n+4 (the two share it), 2..10 players, both placements.
COMBOS = [(deck, n, prof)
          for n in range(2, 11)
          for deck in (STANDARD, tactical(n))
          for prof in (False, True)]


# ---------------------------------------------------------------- random legal turns

def random_states(rng, count, n, deck, professional):
    """``count`` random legal tables: rows[count, 4, 5] (zero padded), lens[count, 4],
    played[count, n], all cards distinct and from 1..deck.

    Biased toward the interesting cases: full rows (sixth cards), cards below every
    row (takes, several per turn), and in professional placement cards exactly between
    one row's last card and another row's first card (ties)."""
    m = 20 + n
    subset = np.argsort(rng.random((count, deck)), axis=1)[:, :m] + 1  # random distinct cards
    keys = rng.random((count, m))
    low = rng.random(count) < 0.3
    k = rng.integers(1, n + 1, count)
    rank = np.argsort(np.argsort(subset, axis=1), axis=1)
    keys[low[:, None] & (rank < k[:, None])] -= 1.0  # the k lowest become played cards
    ordered = np.take_along_axis(subset, np.argsort(keys, axis=1), axis=1)
    played = np.take_along_axis(ordered[:, :n], np.argsort(rng.random((count, n)), axis=1), axis=1)
    pool = ordered[:, n:n + 20].reshape(count, 4, 5)
    lens = rng.integers(1, 6, (count, 4))
    full = rng.random(count) < 0.35
    lens[full] = np.where(rng.random((int(full.sum()), 4)) < 0.7, 5, lens[full])
    rows = np.sort(np.where(np.arange(5) < lens[..., None], pool, PAD), axis=2)
    rows[rows == PAD] = 0
    if professional:
        first = rows[:, :, 0]
        last = np.take_along_axis(rows, (lens - 1)[..., None], axis=2)[..., 0]
        x = np.arange(1, deck + 1)
        right = np.where(last[:, :, None] < x, x - last[:, :, None], PAD).min(axis=1)
        left = np.where(first[:, :, None] > x, first[:, :, None] - x, PAD).min(axis=1)
        tie = (right == left) & (right < PAD)
        used = np.zeros((count, deck + 1), bool)
        np.put_along_axis(used, rows.reshape(count, 20), True, axis=1)
        np.put_along_axis(used, played, True, axis=1)
        tie &= ~used[:, 1:]
        pick = np.where(tie, rng.random(tie.shape), -1.0).argmax(axis=1) + 1
        swap = (rng.random(count) < 0.4) & tie.any(axis=1)
        who = rng.integers(0, n, count)
        played[swap, who[swap]] = pick[swap]
    return rows.astype(np.int64), lens.astype(np.int64), played.astype(np.int64)


def random_batch(rng, size):
    """A batch of ``size`` turns spread over COMBOS, in the arrays
    ``engine._resolve_turns_traced`` takes; choices mix -1 and explicit ones."""
    parts = []
    share, extra = divmod(size, len(COMBOS))
    for i, (deck, n, prof) in enumerate(COMBOS):
        count = share + (i < extra)
        rows, lens, played = random_states(rng, count, n, deck, prof)
        cards = np.zeros((count, 10), np.int64)
        cards[:, :n] = played
        parts.append((rows, lens, cards, np.full(count, n, np.int64), np.full(count, prof)))
    rows, lens, cards, n_b, prof_b = (np.concatenate(p) for p in zip(*parts))
    take = np.where(rng.random((size, 10)) < 0.4, -1, rng.integers(0, 4, (size, 10)))
    tie = np.where(rng.random((size, 10)) < 0.4, -1, rng.integers(0, 2, (size, 10)))
    return rows, lens, cards, n_b, prof_b, take.astype(np.int64), tie.astype(np.int64)


def check_legal(rows, lens, cards, n_b, deck_of):
    for t in range(len(rows)):
        n = n_b[t]
        used = [int(c) for r in range(4) for c in rows[t, r, :lens[t, r]]] + list(cards[t, :n])
        assert len(set(used)) == len(used)
        assert all(1 <= c <= deck_of[t] for c in used)
        for r in range(4):
            row = list(rows[t, r, :lens[t, r]])
            assert 1 <= len(row) <= 5 and row == sorted(row)


class Chooser:
    """The reference's chooser that picks what the kernel was told: a take row 0..3
    or a tie side (0 right, 1 left); -1 is the rule-following choice."""

    def __init__(self, takes, ties, stats):
        self.takes, self.ties, self.stats = takes, ties, stats

    def __call__(self, player, rows, card, opts):
        if opts[0].kind == "take":
            assert [(o.row_index, o.kind) for o in opts] == [(r, "take") for r in range(4)], opts
            want = self.takes[player]
            self.stats["take explicit" if want >= 0 else "take rule"] += 1
            if want < 0:
                return reference.rule_following(rows, opts)
            return next(o for o in opts if o.row_index == want)
        assert len(opts) == 2 and {o.side for o in opts} == {"right", "left"}, opts
        want = self.ties[player]
        self.stats["tie explicit" if want >= 0 else "tie rule"] += 1
        if want < 0:
            return reference.rule_following(rows, opts)
        return next(o for o in opts if o.side == ("right", "left")[want])


def describe(rows, lens, cards, n, prof, take, tie):
    return (f"rows={[list(map(int, rows[r, :lens[r]])) for r in range(4)]} "
            f"cards={list(map(int, cards[:n]))} professional={bool(prof)} "
            f"take_rows={list(map(int, take[:n]))} tie_sides={list(map(int, tie[:n]))}")


def compare_batch(rng, size):
    """Run one random batch through the traced kernel and the reference; returns
    (list of mismatch descriptions, counts of interesting events)."""
    rows, lens, cards, n_b, prof_b, take, tie = random_batch(rng, size)
    k_rows, k_lens = rows.copy(), lens.copy()
    cows = np.zeros((size, 10), np.int64)
    trace_cards = np.zeros((size, 10, 4, 5), np.int64)
    trace_lens = np.zeros((size, 10, 4), np.int64)
    engine._resolve_turns_traced(k_rows, k_lens, cards, n_b, prof_b, take, tie, cows,
                                 trace_cards, trace_lens)
    # the reference, flattened: rows after every card, zero padded to 5, and cows
    in_rows, in_lens, in_cards = rows.tolist(), lens.tolist(), cards.tolist()
    takes, ties, profs, ns = take.tolist(), tie.tolist(), prof_b.tolist(), n_b.tolist()
    by_placement = [dict.fromkeys(["take explicit", "take rule", "tie explicit", "tie rule"], 0)
                    for _ in range(2)]
    ref_rows, ref_cows, refused = [], [], set()
    zeros = [[0] * k for k in range(6)]
    for t in range(size):
        n = ns[t]
        start = [in_rows[t][r][:in_lens[t][r]] for r in range(4)]
        trace = []
        try:
            end, got = reference.resolve_turn(start, in_cards[t][:n], profs[t],
                                              Chooser(takes[t], ties[t], by_placement[profs[t]]),
                                              trace)
        except AssertionError:  # the reference offered options the kernel cannot express
            refused.add(t)
            trace, got = [[[0] * 5] * 4] * n, [-1] * n
        for step in trace:
            for row in step:
                ref_rows += row
                ref_rows += zeros[5 - len(row)]
        ref_cows += got
    live = np.arange(10) < n_b[:, None]
    masked = np.where(np.arange(5) < trace_lens[..., None], trace_cards, 0)
    step_ok = (masked[live].reshape(-1, 20) == np.array(ref_rows).reshape(-1, 20)).all(axis=1)
    step_ok &= trace_lens[live].min(axis=1) >= 1
    ok = np.ones(size, bool)
    np.logical_and.at(ok, np.nonzero(live)[0], step_ok)
    # cows per player, and the final rows the kernel left in place equal its last trace step
    np.logical_and.at(ok, np.nonzero(live)[0], cows[live] == np.array(ref_cows))
    last = np.take_along_axis(masked, (n_b - 1)[:, None, None, None], axis=1)[:, 0]
    ok &= (np.where(np.arange(5) < k_lens[..., None], k_rows, 0) == last).all(axis=(1, 2))
    bad = []
    for t in sorted(set(np.flatnonzero(~ok).tolist()) | refused):
        n = ns[t]
        case = describe(rows[t], lens[t], cards[t], n, prof_b[t], take[t], tie[t])
        start = [in_rows[t][r][:in_lens[t][r]] for r in range(4)]
        trace = []
        try:
            end, got = reference.resolve_turn(start, in_cards[t][:n], profs[t],
                                              Chooser(takes[t], ties[t], Counter()), trace)
        except AssertionError as e:
            bad.append(f"reference options {e}: {case}")
            continue
        k_trace = [[list(map(int, masked[t, i, r, :trace_lens[t, i, r]])) for r in range(4)]
                   for i in range(n)]
        bad.append(case + f"\n  kernel trace={k_trace} cows={cows[t, :n].tolist()}"
                   + f"\n  reference trace={trace} cows={got}")
    stats = {f"{('normal', 'professional')[prof]} {key}": v
             for prof in (0, 1) for key, v in by_placement[prof].items()}
    # events, counted on the kernel's trace (equal to the reference's where nothing is bad)
    before = np.concatenate([lens[:, None, :], trace_lens[:, :-1, :]], axis=1)
    old_first = np.concatenate([rows[:, None, :, 0], trace_cards[:, :-1, :, 0]], axis=1)
    old_last = np.take_along_axis(
        np.concatenate([rows[:, None], trace_cards[:, :-1]], axis=1),
        np.maximum(before - 1, 0)[..., None], axis=3)[..., 0]
    placed = np.sort(np.where(live, cards, PAD), axis=1)
    restart = (before == 5) & (trace_lens == 1) & live[..., None]
    stats["sixth right"] = int((restart & (placed[..., None] > old_last)).sum())
    stats["sixth left"] = int((restart & (placed[..., None] < old_first)).sum())
    return bad, stats


def run_batches(turns, seed):
    rng = np.random.default_rng(seed)
    bad, totals = [], {}
    for _ in range(turns // BATCH):
        b, stats = compare_batch(rng, BATCH)
        bad += b
        for key, v in stats.items():
            totals[key] = totals.get(key, 0) + v
    assert not bad, f"{len(bad)} turns differ, first ones:\n" + "\n".join(bad[:5])
    return totals


def test_random_states_are_legal():
    rng = np.random.default_rng(SEED)
    rows, lens, cards, n_b, prof_b, take, tie = random_batch(rng, 2_000)
    deck_of = np.concatenate([np.full(2_000 // len(COMBOS) + (i < 2_000 % len(COMBOS)), d)
                              for i, (d, n, p) in enumerate(COMBOS)])
    check_legal(rows, lens, cards, n_b, deck_of)


def test_kernels_match_reference_random_turns():
    """One batch of 20,000 turns (the reference's Python takes most of the time);
    `pytest -m slow` compares 2,000,000 more."""
    stats = run_batches(20_000, SEED)
    # the bias works: every kind of choice and both sixth cards happen often
    for key, least in [("normal take explicit", 2_500), ("normal take rule", 1_500),
                       ("professional take explicit", 500), ("professional take rule", 400),
                       ("professional tie explicit", 250), ("professional tie rule", 200),
                       ("sixth right", 7_000), ("sixth left", 4_000)]:
        assert stats[key] >= least, stats


@pytest.mark.slow
def test_kernels_match_reference_many_random_turns():
    run_batches(2_000_000, SEED + 1)


# ---------------------------------------------------------------- the Python API

def reference_steps(start, cards, professional, takes, ties):
    """The reference's turn with the given choices, plus each card's (player, card, row,
    side, cows), lowest card first."""
    chosen = {}

    def chooser(player, rows, card, opts):
        option = Chooser(takes, ties, Counter())(player, rows, card, opts)
        chosen[player] = option
        return option

    trace = []
    end, cows = reference.resolve_turn(start, cards, professional, chooser, trace)
    steps = []
    rows = start
    for i, player in enumerate(sorted(range(len(cards)), key=lambda p: cards[p])):
        option = chosen.get(player) or reference.options(rows, cards[player], professional)[0]
        steps.append((player, cards[player], option.row_index, option.side,
                      reference.option_cows(rows, option)))
        rows = trace[i]
    return end, cows, steps


def test_resolve_turn_api_matches_reference():
    rng = np.random.default_rng(SEED + 2)
    for _ in range(2):
        rows, lens, cards, n_b, prof_b, take, tie = random_batch(rng, 1_800)
        for t in range(len(rows)):
            n = int(n_b[t])
            start = [[int(c) for c in rows[t, r, :lens[t, r]]] for r in range(4)]
            hand = [int(c) for c in cards[t, :n]]
            takes, ties = [int(v) for v in take[t, :n]], [int(v) for v in tie[t, :n]]
            prof = bool(prof_b[t])
            out = engine.resolve_turn(start, hand, prof, takes, ties)
            end, cows, steps = reference_steps(start, hand, prof, takes, ties)
            case = describe(rows[t], lens[t], cards[t], n, prof, take[t], tie[t])
            assert [list(r) for r in out.rows] == end, case
            assert list(out.cows) == cows, case
            got = [(s.player_index, s.card, s.row_index, s.side, s.cows) for s in out.steps]
            assert got == steps, case
            assert all(s.took == (s.cows > 0) for s in out.steps)
            if take[t, :n].max() < 0 and tie[t, :n].max() < 0:
                assert engine.resolve_turn(start, hand, prof) == out, case


# ---------------------------------------------------------------- whole games

BOTS = ("random", "closest", "lowkeeper", "dumper")
MAX_ROUNDS = 60



def check_deal(log, g, rnd, n, variant):
    deck = deck_size(variant, n)
    hands = log.hands[g, rnd]
    rows = [int(c) for c in log.rows[g, rnd]]
    dealt = [int(c) for c in hands.ravel()] + rows
    assert hands.shape == (n, 10)
    assert len(set(dealt)) == len(dealt) == 10 * n + 4
    assert all(1 <= c <= deck for c in dealt)
    if variant != "standard":
        assert sorted(dealt) == list(range(1, deck + 1))
    if variant == "logic":
        assert rows == sorted(rows)



GAME_CASES = [(v, p) for v in ("standard", "tactical", "logic") for p in ("normal", "professional")]


@pytest.mark.parametrize("variant,placement", GAME_CASES)
def test_games_replay_with_reference(variant, placement):
    professional = placement == "professional"
    case = 0
    for bot, n in itertools.product(BOTS + ("mixed",), (2, 3, 5, 10)):
        case += 1
        bots = (engine.bot_codes([BOTS[p % 4] for p in range(n)]) if bot == "mixed"
                else engine.bot_codes([bot] * n))
        one_round = case % 5 == 0
        threshold = (66, 30, 12)[case % 3]
        games = 3
        totals, rounds, log = engine.play_games(
            0, games, n, deck_size(variant, n), variant == "logic", professional, threshold,
            one_round, bots, seed=SEED + case, max_rounds=MAX_ROUNDS, record_rounds=MAX_ROUNDS)
        where = f"{variant} {placement} bot={bot} n={n} threshold={threshold} one_round={one_round}"
        for g in range(games):
            played = int(rounds[g])
            assert 1 <= played <= MAX_ROUNDS, where
            for rnd in range(played):
                check_deal(log, g, rnd, n, variant)
                if variant == "logic" and bot not in ("random", "mixed"):
                    hands = [sorted(int(c) for c in h) for h in log.hands[g, rnd]]
                    rows = [int(c) for c in log.rows[g, rnd]]
                    assert any((hands, rows) == draft(n, s, bots) for s in range(n)), where
            per_round = replay_game(log, g, played, professional)
            assert list(totals[g]) == [sum(c) for c in zip(*per_round)], where
            running = np.cumsum(per_round, axis=0).max(axis=1)
            if one_round:
                assert played == 1, where
            else:
                reached = np.flatnonzero(running >= threshold)
                assert (reached[0] + 1 if len(reached) else MAX_ROUNDS) == played, where
            assert log.rows[g, played:].max(initial=0) == 0  # nothing logged after the end


def test_games_reach_threshold_with_all_bots():
    """A sanity check on the bots: games with the usual threshold end by the threshold."""
    for bot in BOTS:
        totals, rounds = engine.play_games(0, 20, 4, 104, False, False, 66, False,
                                           engine.bot_codes([bot] * 4), seed=SEED)
        assert (totals.max(axis=1) >= 66).all() and (rounds < 10_000).all(), bot


# ---------------------------------------------------------------- determinism

def test_same_seed_same_results():
    bots = engine.bot_codes(["random", "closest", "lowkeeper"])
    a = engine.play_games(0, 40, 3, 34, False, True, 66, False, bots, seed=7, record_rounds=3)
    b = engine.play_games(0, 40, 3, 34, False, True, 66, False, bots, seed=7, record_rounds=3)
    c = engine.play_games(0, 40, 3, 34, False, True, 66, False, bots, seed=8)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    for field in ("rows", "hands", "plays"):
        assert (getattr(a[2], field) == getattr(b[2], field)).all()
    assert not (a[0] == c[0]).all()


@pytest.mark.parametrize("variant", ["standard", "logic"])
def test_chunking_does_not_change_results(variant):
    n = 4
    bots = engine.bot_codes(["dumper", "random", "closest", "random"])
    args = (n, deck_size(variant, n), variant == "logic", False, 66, False, bots)
    totals, rounds, log = engine.play_games(5, 30, *args, seed=11, record_rounds=2)
    pieces = [engine.play_games(first, count, *args, seed=11, record_rounds=2)
              for first, count in ((5, 1), (6, 12), (18, 17))]
    assert (np.concatenate([p[0] for p in pieces]) == totals).all()
    assert (np.concatenate([p[1] for p in pieces]) == rounds).all()
    for field in ("rows", "hands", "plays"):
        assert (np.concatenate([getattr(p[2], field) for p in pieces]) == getattr(log, field)).all()
    # and without a log the results are the same too
    plain = engine.play_games(5, 30, *args, seed=11)
    assert (plain[0] == totals).all() and (plain[1] == rounds).all()


# ---------------------------------------------------------------- one rule at a time

def both(rows, cards, professional=False, take_rows=None, tie_sides=None):
    """engine.resolve_turn and the reference on one turn; they must agree."""
    n = len(cards)
    takes = [-1] * n if take_rows is None else list(take_rows)
    ties = [-1] * n if tie_sides is None else list(tie_sides)
    out = engine.resolve_turn(rows, cards, professional, take_rows, tie_sides)
    end, cows, steps = reference_steps([list(r) for r in rows], list(cards), professional,
                                       takes, ties)
    assert [list(r) for r in out.rows] == end
    assert list(out.cows) == cows
    assert [(s.player_index, s.card, s.row_index, s.side, s.cows) for s in out.steps] == steps
    return out


def test_sixth_card_right_end():
    rows = [[10, 11, 12, 13, 55], [20], [30], [60]]
    for prof in (False, True):
        out = both(rows, [56], prof)
        assert out.rows == ((56,), (20,), (30,), (60,))
        assert out.cows == (3 + 5 + 1 + 1 + 7,)
        assert out.steps[0].row_index == 0 and out.steps[0].side == "right" and out.steps[0].took
    # the fifth card is no sixth
    out = both([[10, 11, 12, 13], [20], [30], [60]], [14])
    assert out.rows[0] == (10, 11, 12, 13, 14) and out.cows == (0,)


def test_sixth_card_left_end_professional():
    rows = [[20, 21, 22, 23, 24], [1], [2], [3]]
    out = both(rows, [19], True)
    assert out.rows == ((19,), (1,), (2,), (3,))
    assert out.cows == (3 + 1 + 5 + 1 + 1,)
    assert (out.steps[0].row_index, out.steps[0].side) == (0, "left")
    # normal placement: 19 just goes after 3
    out = both(rows, [19], False)
    assert out.rows == ((20, 21, 22, 23, 24), (1,), (2,), (3, 19)) and out.cows == (0,)
    # a left end with room: the card goes in front
    out = both([[20, 21], [1], [2], [3]], [19], True)
    assert out.rows[0] == (19, 20, 21) and out.steps[0].side == "left"


def test_low_card_choice_moves_the_next_card():
    rows = [[10], [20], [30], [40]]
    # player 0 plays 5 (below every row), player 1 plays 25: 25 follows 20 (row 1) unless
    # player 0 takes row 1, which leaves 10 as the highest last card below 25 (row 0)
    expected = {0: ((5,), (20, 25), (30,), (40,)),
                1: ((10, 25), (5,), (30,), (40,)),
                2: ((10,), (20, 25), (5,), (40,)),
                3: ((10,), (20, 25), (30,), (5,))}
    for take, want in expected.items():
        out = both(rows, [5, 25], False, take_rows=[take, -1])
        assert out.rows == want
        assert out.cows == (card_cows([10, 20, 30, 40][take]), 0)
        assert out.steps[0].row_index == take and out.steps[0].took
        assert out.steps[1].row_index == (0 if take == 1 else 1)
    # the rule-following take: all rows hold 3 cows, so the lowest last card (row 0)
    assert both(rows, [5, 25]).rows == expected[0]
    # a second low card: its own choice counts only if it is still low when its turn comes
    out = both(rows, [5, 8], False, take_rows=[0, 2])
    assert out.rows == ((5, 8), (20,), (30,), (40,)) and out.cows == (3, 0)
    out = both(rows, [7, 6], False, take_rows=[1, 3])
    assert out.rows == ((10,), (20,), (30,), (6, 7)) and out.cows == (0, 3)
    out = both(rows, [5, 3], False, take_rows=[2, 0])
    assert out.rows == ((3, 5), (20,), (30,), (40,)) and out.cows == (0, 3)
    # professional: a taken row's new first card can become a left end for the next card
    out = both([[1, 40], [2, 41], [3, 42], [4, 43]], [10, 12], True, take_rows=[2, 0])
    assert out.rows == ((1, 40), (2, 41), (10, 12), (4, 43))
    assert out.cows == (2, 0)
    out = both([[1, 40], [2, 41], [3, 42], [4, 43]], [12, 10], True, take_rows=[0, 1])
    assert out.rows == ((1, 40), (10, 12), (3, 42), (4, 43))


def test_professional_tie():
    rows = [[10], [20], [30], [40]]
    right = both(rows, [15], True, tie_sides=[0])
    assert right.rows == ((10, 15), (20,), (30,), (40,)) and right.steps[0].side == "right"
    left = both(rows, [15], True, tie_sides=[1])
    assert left.rows == ((10,), (15, 20), (30,), (40,)) and left.steps[0].side == "left"
    assert (left.steps[0].row_index, right.steps[0].row_index) == (1, 0)
    # rule-following: no cows either way, so the row whose last card is lowest (right end)
    assert both(rows, [15], True).rows == right.rows
    # rule-following: the right end would be a sixth card, so the left end
    full_right = [[6, 7, 8, 9, 10], [20], [30], [40]]
    out = both(full_right, [15], True)
    assert out.rows[1] == (15, 20) and out.cows == (0,)
    out = both(full_right, [15], True, tie_sides=[0])
    assert out.rows[0] == (15,) and out.cows == (1 + 1 + 1 + 1 + 3,)
    # the left row full: the right end
    out = both([[10], [20, 21, 22, 23, 24], [30], [40]], [15], True)
    assert out.rows[0] == (10, 15) and out.cows == (0,)
    out = both([[10], [20, 21, 22, 23, 24], [30], [40]], [15], True, tie_sides=[1])
    assert out.rows[1] == (15,) and out.cows == (11,) and out.steps[0].side == "left"
    # both full: fewest cows (the left row: 7 cows against 8)
    out = both([[5, 6, 7, 9, 10], [20, 21, 23, 24, 26], [30], [40]], [15], True)
    assert out.rows[1] == (15,) and out.cows == (3 + 1 + 1 + 1 + 1,)
    out = both([[5, 6, 7, 9, 10], [20, 21, 23, 24, 26], [30], [40]], [15], True, tie_sides=[0])
    assert out.rows[0] == (15,) and out.cows == (2 + 1 + 1 + 1 + 3,)
    # both full, equal cows (7 each): the row whose last card is lowest (the right end)
    out = both([[6, 7, 8, 9, 10], [20, 21, 23, 24, 26], [30], [40]], [15], True)
    assert out.rows[0] == (15,) and out.cows == (7,)
    # normal placement knows no tie
    assert both(rows, [15], False, tie_sides=[1]).rows == right.rows


def test_rule_following_take():
    # fewest cows: row 2 (31, one cow)
    out = both([[30], [12, 13], [31], [40]], [5])
    assert out.rows == ((30,), (12, 13), (5,), (40,)) and out.cows == (1,)
    # cows tie (rows 0 and 2, one cow each): the lowest last card, 12
    out = both([[17], [8, 9], [12], [13, 14]], [3])
    assert out.rows == ((17,), (8, 9), (3,), (13, 14)) and out.cows == (1,)
    # professional: no legal end; rows 1..3 hold 2 cows each, row 1 ends lowest
    out = both([[1, 30], [2, 31], [3, 32], [4, 33]], [10], True)
    assert out.rows == ((1, 30), (10,), (3, 32), (4, 33)) and out.cows == (2,)
    # an explicit choice overrides the rule
    out = both([[30], [12, 13], [31], [40]], [5], take_rows=[3])
    assert out.rows[3] == (5,) and out.cows == (3,)


def test_cow_table():
    assert [card_cows(c) for c in (55, 11, 10, 5, 1, 22, 77, 99, 100, 104, 65, 50)] == \
        [7, 5, 3, 2, 1, 5, 5, 5, 3, 1, 2, 3]
    assert [int(COWS[c]) for c in range(105)] == [0] + [card_cows(c) for c in range(1, 105)]
    assert sum(card_cows(c) for c in range(1, 105)) == 171
    assert [sum(card_cows(c) for c in range(1, tactical(n) + 1)) for n in (2, 3, 4)] == [38, 55, 72]
    assert reference.row_cows([10, 11, 55]) == 15
    assert engine.row_table([[10, 11, 55], [1], [2], [3]])[0].tolist() == [10, 55, 3, 15]


# ---------------------------------------------------------------- properties

@st.composite
def games_in_progress(draw):
    n = draw(st.integers(2, 10))
    variant = draw(st.sampled_from(["standard", "tactical"]))
    professional = draw(st.booleans())
    deck = deck_size(variant, n)
    order = draw(st.permutations(range(1, deck + 1)))
    hands = [list(order[10 * p:10 * p + 10]) for p in range(n)]
    rows = [[c] for c in order[10 * n:10 * n + 4]]
    aside = list(order[10 * n + 4:])
    turns = []
    for turn in range(draw(st.integers(1, 10))):
        turns.append([(draw(st.integers(0, 9 - turn)), draw(st.integers(-1, 3)),
                       draw(st.integers(-1, 1))) for _ in range(n)])
    return deck, professional, hands, rows, aside, turns


@settings(max_examples=100, deadline=None)
@given(games_in_progress())
def test_turn_sequences_keep_every_card(game):
    deck, professional, hands, rows, aside, turns = game
    n = len(hands)
    piles = [[] for _ in range(n)]
    cows_taken = [0] * n
    rows = [tuple(r) for r in rows]
    for choices in turns:
        cards = [hands[p].pop(i) for p, (i, _, _) in enumerate(choices)]
        out = engine.resolve_turn(rows, cards, professional,
                                  [c[1] for c in choices], [c[2] for c in choices])
        mine = [list(r) for r in rows]
        for step in out.steps:  # lowest card first
            r = step.row_index
            assert step.card == cards[step.player_index]
            if step.cows > 0:
                assert step.cows == reference.row_cows(mine[r])
                piles[step.player_index] += mine[r]
                mine[r] = [step.card]
            elif step.side == "right":
                assert mine[r][-1] < step.card
                mine[r].append(step.card)
            else:
                assert professional and step.card < mine[r][0]
                mine[r].insert(0, step.card)
            assert len(mine[r]) <= 5
        assert [tuple(r) for r in mine] == list(out.rows)
        rows = out.rows
        cows_taken = [a + b for a, b in zip(cows_taken, out.cows)]
        assert all(1 <= len(r) <= 5 and list(r) == sorted(r) for r in rows)
        places = [c for r in rows for c in r] + [c for h in hands for c in h] \
            + [c for p in piles for c in p] + aside
        assert sorted(places) == list(range(1, deck + 1))
        assert cows_taken == [reference.row_cows(p) for p in piles]
