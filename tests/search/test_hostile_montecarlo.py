"""Monte Carlo held to what it says it is (an honest `auto`; the tie-break).

* A figure that is not the exact model's value is labelled as an upper bound in the table
  header, the heading, the JSON and Markdown; a figure whose later turns are all exact is
  labelled as the model's value, and the exact value lies in its 99% interval.
* The best-card line says when the gap between the top cards is within the noise.
* The seed is in the table's method line.
* Player 1's rule-following row choice inside the samples is the engine's (fewest cows,
  ties to the row whose last card is lowest, RULES.md), held against ``solver.base.reference``.
"""
from __future__ import annotations

import itertools
import json
import random
from statistics import NormalDist

import numpy as np
import pytest

from nimmt.solver.base import reference
from nimmt.solver.base.rules import MAX_PLAYERS, Rules
from nimmt.solver.faces.report import render_analysis
from nimmt.solver.kernels import exactsearch
from nimmt.solver.kernels.engine import row_table
from nimmt.solver.kernels.objective import G_MINE, GOAL_SLOTS
from nimmt.solver.kernels.statekey import OWNER_P1, OWNER_POOL, key_width
from nimmt.solver.positions.position import format_position, load_position, parse_position
from nimmt.solver.search import exact, montecarlo
from nimmt.solver.search.analysis import BOUND_UNIT, Analysis, CardAnalysis, analyse
from nimmt.solver.search.game import deal_position

from cli_checks import assert_ok, invoke

TOL = 1e-9
BOUND = "upper bound"


def exact_values(position):
    return {c.card: c.value for c in exact.solve_exact(position, "random").cards}


def outputs(runner, *args):
    """(table, markdown, json) of one `nimmt analyse` run."""
    texts = []
    for fmt in ("table", "markdown", "json"):
        result = invoke(runner, "analyse", *args, "--format", fmt)
        assert_ok(result)
        texts.append(result.stdout)
    return texts[0], texts[1], json.loads(texts[2])


# ---------------------------------------------------------------- labels

# example-3p with a budget that leaves its later turns to the closest bot; example: exact
# from the next turn
MC = ("--method", "montecarlo", "--samples", "40")
POLICY_ARGS = ("example-3p", *MC, "--seed", "3", "--max-nodes", "300")
EXACT_ARGS = ("example", *MC, "--seed", "3")


def test_policy_figures_are_labelled_an_upper_bound(runner):
    table, markdown, data = outputs(runner, *POLICY_ARGS)
    assert data["later_exact"] is False and data["exact_depth"] < 3
    assert BOUND in data["quantity"] and data["unit"] == BOUND_UNIT
    assert "later_play" in data and "your later cards" in data["later_play"]
    lines = table.splitlines()
    assert BOUND in lines[0]                                  # heading
    assert any(line.startswith("the figures estimate:") and BOUND in line for line in lines)
    header = next(line for line in lines if line.startswith("card"))
    assert BOUND_UNIT in header                               # table header
    assert "\n" + "best:" in table and f"({BOUND_UNIT} " in table  # verdict
    assert BOUND in markdown.splitlines()[0] and BOUND_UNIT in markdown


def test_exact_later_play_is_labelled_the_model_value(runner):
    table, markdown, data = outputs(runner, *EXACT_ARGS)
    assert data["later_exact"] is True and data["exact_depth"] >= 4
    assert data["unit"] == "expected cows" and "random model's value" in data["quantity"]
    for text in (table, markdown, json.dumps(data)):
        assert BOUND not in text
    header = next(line for line in table.splitlines() if line.startswith("card"))
    assert header.split()[1:3] == ["expected", "cows"]
    assert "optimal, by exact search" in data["later_play"]


def test_label_follows_the_plan_not_the_method_name():
    """The same position: exact later play with the default budget, an upper bound with a
    tiny one; the library result says which."""
    position = load_position("example-3p")
    full = analyse(position, method="montecarlo", samples=8, seed=1)
    tiny = analyse(position, method="montecarlo", samples=8, seed=1, max_nodes=300)
    assert full.extra["later_exact"] and full.unit == "expected cows"
    assert not tiny.extra["later_exact"] and tiny.unit == BOUND_UNIT
    assert tiny.to_json()["unit"] == BOUND_UNIT and "quantity" in tiny.to_json()


# ---------------------------------------------------------------- the seed

def test_seed_in_the_table_method_line(runner):
    for extra in (("--seed", "77"), ("--seed", "77", "--format", "markdown")):
        result = invoke(runner, "analyse", "example-3p", *MC, "--max-nodes", "300", *extra)
        assert_ok(result)
        method = next(line for line in result.stdout.splitlines() if "method:" in line)
        assert method.rstrip(" ").endswith("; seed 77")
    # without --seed a fresh one is drawn, shown, and reproduces the run
    fresh = invoke(runner, "analyse", "example-3p", *MC, "--max-nodes", "300")
    assert_ok(fresh)
    method = next(line for line in fresh.stdout.splitlines() if line.startswith("method:"))
    seed = method.rsplit("; seed ", 1)[1]
    again = invoke(runner, "analyse", "example-3p", *MC, "--max-nodes", "300", "--seed", seed)
    assert_ok(again)
    assert again.stdout.split("\n", 2)[2] == fresh.stdout.split("\n", 2)[2]


# ---------------------------------------------------------------- the verdict

def mc_analysis(values, stderrs, regret_stderrs):
    """A Monte Carlo result with these figures, best first."""
    position = load_position("example")
    cards = []
    best = min(values)
    for card, v, se, rse in zip(position.hand, values, stderrs, regret_stderrs):
        cards.append(CardAnalysis(card, v, v - best, 0.0, 0.0, se, (v - 1.96 * se, v + 1.96 * se),
                                  100, regret_stderr=rse))
    cards.sort(key=lambda c: c.value)
    return Analysis(position, "random", "montecarlo", "Monte Carlo as asked", tuple(cards), 0, 0,
                    0.1, later_play="x", extra={"seed": 5, "quantity": "q", "unit": BOUND_UNIT})


def verdict(analysis):
    return render_analysis(analysis, "simple").splitlines()[-1]


def test_verdict_says_when_the_top_cards_are_within_the_noise():
    a = mc_analysis([1.23, 1.25, 2.0, 2.5, 3.0], [0.025] * 5, [0.0, 0.035, 0.04, 0.04, 0.04])
    line = verdict(a)
    assert line.startswith("best: 4 (")                       # hand order: 4, 14, 15, 18, 20
    assert "1.230, 95% [1.181, 1.279]" in line  # the interval, not a symmetric ±
    assert "14 is within the noise (difference 0.020 ± 0.069; 95%)" in line
    assert "costs" not in line


def test_verdict_lists_every_card_within_the_noise():
    a = mc_analysis([1.0, 1.05, 1.08, 2.0, 3.0], [0.05] * 5, [0.0, 0.07, 0.07, 0.07, 0.07])
    assert "14 and 15 are within the noise (differences 0.050 ± 0.137, 0.080 ± 0.137; 95%)" \
        in verdict(a)


def test_verdict_outside_the_noise_gives_the_gap_with_its_error():
    a = mc_analysis([1.0, 1.5, 2.0, 2.5, 3.0], [0.02] * 5, [0.0, 0.03, 0.03, 0.03, 0.03])
    line = verdict(a)
    assert "within the noise" not in line
    assert "the next best, 14, costs 0.500 ± 0.059 more" in line


def test_regret_stderr_of_independent_cards():
    """Each card's samples come from its own streams: the regret's standard error is
    sqrt(se_best^2 + se_card^2), in the result and in the JSON."""
    result = analyse(load_position("example-3p"), method="montecarlo", samples=30, seed=2,
                     max_nodes=300)
    best = result.cards[0]
    assert best.regret_stderr == 0.0
    for c in result.cards[1:]:
        assert c.regret_stderr == pytest.approx(float(np.hypot(c.stderr, best.stderr)), abs=TOL)
    assert [c["regret_stderr"] for c in result.to_json()["cards"]] == \
        [c.regret_stderr for c in result.cards]


def test_noise_verdict_from_a_real_run(runner):
    """Few samples: the top cards of example-standard cannot be told apart."""
    result = invoke(runner, "analyse", "example-standard", "--method", "montecarlo",
                    "--samples", "12", "--seed", "2")
    assert_ok(result)
    assert "within the noise" in result.stdout.splitlines()[-1]


# ---------------------------------------------------------------- tie-break

# Player 1's 7 is below every row; rows 23, 9 and 21 (indexes 1..3) all hold one cow. The
# rule-following choice takes the row ending 9 (lowest last card, index 2); the drifted
# kernel took the row ending 23 (lowest index). Which one is taken decides where 13 goes.
TIE = ("players=2 rows=22/23/9/21 hand=7,13 p2=16,19 "
       "gone=1,2,3,4,5,6,8,10,11,12,14,15,17,18,20,24")


def turn_kernel(rows, cards, p1_card, professional=False, deck_size=104):
    """montecarlo._turn_with_choice, no exact child: (new row table, player 1's cows)."""
    table = row_table(rows)
    cards = sorted(cards)
    tags = np.array([OWNER_P1 if c == p1_card else OWNER_POOL for c in cards], np.int64)
    owner = np.zeros(deck_size + 1, np.int64)
    for c, t in zip(cards, tags):
        owner[c] = t
    layout = exactsearch.memo_layout(owner, professional)
    _, now = montecarlo._turn_with_choice(
        table, owner, np.array(cards, np.int64), tags, len(cards), deck_size, 0,
        len(cards) - 1, professional, False, montecarlo.new_run_memo(layout), layout,
        np.zeros(exactsearch.STAT_SLOTS, np.int64), 1 << 62, np.zeros(key_width(layout), np.int64),
        np.zeros(3), COWS_GOAL, np.zeros(MAX_PLAYERS, np.int64), None)
    return table, now


COWS_GOAL = np.zeros(GOAL_SLOTS)  # the cows objective (positions.objective.goal_array)
COWS_GOAL[G_MINE] = 1.0


def test_turn_kernel_takes_the_rule_following_row_on_a_tie():
    rows = [[22], [23], [9], [21]]
    table, now = turn_kernel(rows, [7, 16], 7)
    expected_rows, cows = reference.resolve_turn(rows, [7, 16], False)
    assert expected_rows == [[22], [23], [7, 16], [21]]  # the row ending 9 was taken
    assert np.array_equal(table, row_table(expected_rows)) and now == cows[0] == 1


@pytest.mark.parametrize("professional", [False, True])
def test_turn_kernel_matches_reference_on_random_turns(professional):
    """Every card rule-following (player 1's too, when no exact part follows)."""
    rng = random.Random(11 + professional)
    ties = []

    def chooser(player, rows, card, opts):  # rule-following; notes player 1's tied choices
        cows = [reference.option_cows(rows, o) for o in opts]
        if player == mine and cows.count(min(cows)) > 1:
            ties.append(card)
        return reference.rule_following(rows, opts)

    for _ in range(1500):
        deck = rng.sample(range(1, 105), 4 * 5 + 6)
        rows = [sorted(deck[5 * r: 5 * r + rng.randint(1, 5)]) for r in range(4)]
        cards = deck[20: 20 + rng.randint(1, 6)]
        p1 = rng.choice(cards)
        mine = cards.index(p1)
        table, now = turn_kernel(rows, cards, p1, professional)
        expected_rows, cows = reference.resolve_turn(rows, cards, professional, chooser)
        assert np.array_equal(table, row_table(expected_rows)), (rows, cards, p1)
        assert now == cows[mine]
    assert len(ties) > 20  # the case that drifted is exercised


def policy_value(position, first, row_choice):
    """Player 1's expected cows when it plays ``first``, then its last card, with its row
    choices made by ``row_choice`` (a random opponent: every order of its two cards)."""
    second = next(c for c in position.hand if c != first)
    total = []
    for order in itertools.permutations(position.hands[1]):
        rows, cows = [list(r) for r in position.rows], 0
        for mine, theirs in zip((first, second), order):
            def chooser(player, rows_now, card, opts):
                return (row_choice if player == 0 else reference.rule_following)(rows_now, opts)
            rows, taken = reference.resolve_turn(rows, [mine, theirs], False, chooser)
            cows += taken[0]
        total.append(cows)
    return sum(total) / len(total)


def lowest_index(rows, opts):
    return min(opts, key=lambda o: (reference.option_cows(rows, o), o.row_index))


def test_montecarlo_plays_rule_following_rows_where_no_exact_part_follows():
    """exact_depth 0 (no exact part): the sample's value for 7 is the rule-following
    line's value, not the lowest-index line's (the drift this test would have caught)."""
    position = parse_position(TIE)
    rule = policy_value(position, 7, reference.rule_following)
    drifted = policy_value(position, 7, lowest_index)
    assert (rule, drifted) == (2.0, 1.0)
    mc = montecarlo.run_montecarlo(position, samples=200, seed=4, exact_depth=0, rollouts=0)
    card = next(c for c in mc.cards if c.card == 7)
    assert card.value == pytest.approx(rule, abs=TOL) and card.stderr == 0.0
    assert not mc.later_exact and BOUND in mc.quantity


def test_montecarlo_with_exact_continuation_on_the_tie_is_exact():
    """With the exact part from the next turn, player 1 picks the better row itself."""
    position = parse_position(TIE)
    values = exact_values(position)
    mc = montecarlo.run_montecarlo(position, samples=200, seed=4)
    assert mc.later_exact and mc.exact_depth >= 1
    for c in mc.cards:
        low, high = c.interval(montecarlo.Z99)
        assert low - TOL <= values[c.card] <= high + TOL
    assert values[7] == 1.0  # better than the rule-following line: a choice, not a rule


# ---------------------------------------------------------------- values

PLANNED_EXACT = [("example", None), ("example-3p", None), ("example-pro", None),
                 ("example-logic", None), (None, ("tactical", 2, "normal", 5, 61)),
                 (None, ("logic", 3, "professional", 4, 62))]
INTERVALS = 27  # cards over PLANNED_EXACT: the intervals hold the values jointly with 99%
Z_JOINT = NormalDist().inv_cdf(1 - 0.01 / (2 * INTERVALS))  # 3.49 (Bonferroni)


@pytest.mark.parametrize("name,deal", PLANNED_EXACT)
def test_planned_exact_continuation_holds_the_exact_value(name, deal):
    """Where the plan covers every later turn exactly, the figures are the model's value:
    every card's interval holds the exact value (99% for the 27 intervals together)."""
    position = load_position(name) if name else deal_position(Rules(*deal[:3]), deal[3], deal[4])
    mc = montecarlo.run_montecarlo(position, samples=300, seed=7)
    assert mc.later_exact, (format_position(position), mc.exact_depth)
    values = exact_values(position)
    for c in mc.cards:
        low, high = c.interval(Z_JOINT)
        assert low - TOL <= values[c.card] <= high + TOL, (c.card, values[c.card], c.value)


def test_policy_figures_do_not_fall_below_the_exact_value():
    """An upper bound: with two turns left to the policy, no card's estimate lies more
    than 3 standard errors below its exact value."""
    position = load_position("example-3p")
    values = exact_values(position)
    for rollouts in (0, 8):
        mc = montecarlo.run_montecarlo(position, samples=300, seed=9, exact_depth=1,
                                       rollouts=rollouts)
        assert not mc.later_exact
        for c in mc.cards:
            assert c.value >= values[c.card] - 3 * c.stderr - TOL, (rollouts, c.card)


def test_rollouts_come_closer_to_the_exact_value_than_the_closest_bot():
    position = deal_position(Rules("tactical", 2), 6, seed=1)
    values = exact_values(position)
    excess = {}
    for rollouts in (0, 16):
        mc = montecarlo.run_montecarlo(position, samples=200, seed=5, exact_depth=3,
                                       rollouts=rollouts)
        excess[rollouts] = sum(c.value - values[c.card] for c in mc.cards) / len(mc.cards)
    assert excess[16] < excess[0] / 3, excess


def test_plan_depends_on_position_and_budget_only():
    """A time limit stops the sampling only: a stopped run equals a full run of as many
    samples, with rollouts in play too."""
    position = deal_position(Rules("standard", 2), 3, seed=1)
    stopped = montecarlo.run_montecarlo(position, samples=10**6, seed=3, time_limit=0.3)
    assert stopped.rollouts > 0 and not stopped.complete and not stopped.later_exact
    n = stopped.cards[0].samples
    again = montecarlo.run_montecarlo(position, samples=n, seed=3)
    assert (again.exact_depth, again.rollouts) == (stopped.exact_depth, stopped.rollouts)
    assert ([(c.value, c.stderr) for c in again.cards]
            == [(c.value, c.stderr) for c in stopped.cards])
