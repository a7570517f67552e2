"""95% intervals stay inside the range of what they estimate (solver.base.intervals): shares in
[0, 1] by Wilson, cows and regrets never below 0, wherever a command shows them."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import binomtest

from nimmt.puzzles import study as st
from nimmt.solver.base.intervals import Z95, bounded_interval, mean_interval, share_interval, wilson
from nimmt.solver.base.rules import Rules
from nimmt.solver.faces import report
from nimmt.solver.players.arena import ArenaResult, GameRecord, summarise
from nimmt.solver.positions.position import load_position
from nimmt.solver.search import analysis, montecarlo
from nimmt.solver.search.game import Estimate

from cli_checks import assert_ok, invoke

# ---------------------------------------------------------------- the helpers


@pytest.mark.parametrize("hits,n", [(0, 1), (0, 10), (3, 10), (7, 8), (8, 8), (50, 97),
                                    (1, 1000)])
def test_share_interval_is_scipys_wilson(hits, n):
    ci = binomtest(hits, n).proportion_ci(method="wilson")
    assert share_interval(hits, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_of_nothing_is_the_whole_range():
    assert share_interval(0, 0) == (0.0, 1.0)
    assert wilson(0.5, 0) == (0.0, 1.0)


@pytest.mark.parametrize("values", [[1] * 7 + [0], [0] * 7 + [1], [0.5, 1, 1, 1, 0.5, 1],
                                    [0, 0, 0.25, 0, 0], [1.0] * 5, [0.0] * 5])
def test_bounded_means_stay_in_range(values):
    mean, (low, high) = mean_interval(values, 0.0, 1.0)
    assert 0.0 <= low <= mean <= high <= 1.0
    assert high > low or len(set(values)) == 1 and 0 < mean < 1


def test_bounded_interval_of_zero_one_values_is_wilson_with_n_minus_1():
    """0/1 values: the effective size p (1 - p) / stderr^2 is n - 1 (stderr with n - 1)."""
    values = [1] * 7 + [0]
    _, interval = mean_interval(values, 0.0, 1.0)
    assert interval == pytest.approx(wilson(7 / 8, 7))


def test_bounded_interval_agrees_with_the_normal_one_in_the_middle():
    rng = np.random.default_rng(3)
    values = rng.random(5000).tolist()
    mean, (low, high) = mean_interval(values, 0.0, 1.0)
    _, (a, b) = mean_interval(values)
    assert low == pytest.approx(a, abs=1e-4) and high == pytest.approx(b, abs=1e-4)


def test_a_floor_cuts_the_interval_and_nothing_else():
    assert bounded_interval(0.1, 0.1, 30, 0.0) == (0.0, pytest.approx(0.1 + Z95 * 0.1))
    assert bounded_interval(5.0, 0.1, 30, 0.0) == bounded_interval(5.0, 0.1, 30)
    assert bounded_interval(-0.5, 0.1, 30) == pytest.approx((-0.5 - Z95 * 0.1,
                                                             -0.5 + Z95 * 0.1))


# ---------------------------------------------------------------- arena, simulate


def _arena(wins_of_first: int, deals: int) -> ArenaResult:
    """Two bots, one game a deal: the first wins ``wins_of_first`` of them (0 cows
    against 5), loses the rest (5 against 0)."""
    games = [GameRecord(d, 0, (0, 1), (0, 5) if d < wins_of_first else (5, 0), 1,
                        ((0.01,), (0.01,))) for d in range(deals)]
    return summarise(ArenaResult(Rules("tactical", 2, one_round=True), ("closest", "random"),
                                 1, deals, False, games, 1.0))


def test_arena_win_rates_stay_in_zero_one():
    """7 wins of 8 deals: the normal interval was 0.875 [0.630, 1.120] and 0.125 [-0.120,
    0.370]; the win rates and the pairwise shares now stay in [0, 1], cows above 0."""
    result = _arena(7, 8)
    first, second = result.summaries
    assert first.win_rate.mean == 0.875 and second.win_rate.mean == 0.125
    for s in result.summaries:
        assert 0.0 <= s.win_rate.low < s.win_rate.mean < s.win_rate.high <= 1.0
        assert 0.0 <= s.cows_per_round.low <= s.cows_per_round.mean
    assert first.win_rate.high < 1.0 and second.win_rate.low > 0.0  # 1 of 8 is no proof
    for row in result.pairwise:
        for e in row:
            assert e is None or 0.0 <= e.low <= e.mean <= e.high <= 1.0
    data = result.to_json()
    for bot in data["bots"]:
        assert 0.0 <= bot["win_rate"]["ci95"][0] <= bot["win_rate"]["ci95"][1] <= 1.0


def test_arena_unbeaten_bot_reaches_one_but_not_beyond():
    first, second = _arena(8, 8).summaries
    assert first.win_rate.high == 1.0 and first.win_rate.low < 1.0
    assert second.win_rate.low == 0.0 and second.win_rate.high > 0.0


def test_estimates_of_cows_and_shares():
    cows = Estimate.of_cows(np.array([0.0, 0.0, 0.0, 3.0]))
    assert cows.low == 0.0 and cows.high > cows.mean
    shares = Estimate.of_shares(np.array([1.0, 1.0, 1.0, 0.5]))
    assert 0.0 < shares.low < shares.mean < shares.high < 1.0
    assert math.isnan(Estimate.of_cows(np.array([2.0])).low)


def test_simulate_table_and_json_stay_in_range():
    runner = CliRunner()
    args = ["simulate", "-n", "2", "--bots", "closest,random", "--games", "3",
            "--one-round", "--seed", "1"]
    result = invoke(runner, *args, "--format", "json")
    assert_ok(result)
    for seat in json.loads(result.output)["seats"]:
        for key in ("cows_per_round", "final_total", "win_rate"):
            low, high = seat[key]["ci95"]
            assert low >= 0.0, (key, seat)
            if key == "win_rate":
                assert high <= 1.0, seat
    table = invoke(runner, *args)
    assert_ok(table)
    numbers = [float(x) for x in re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", table.output)
               for x in x]
    assert numbers and min(numbers) >= 0.0


# ---------------------------------------------------------------- Monte Carlo, study


def _mc(values: dict[int, tuple[float, float]], objective: str = "cows"):
    cards = tuple(montecarlo.SampledCard(c, 40, v, se, 0.0, 0.0)
                  for c, (v, se) in values.items())
    return montecarlo.MonteCarloResult(cards, 4, 0.1, True, 0, 5, 0, objective)


def test_monte_carlo_interval_follows_the_objective():
    card = montecarlo.SampledCard(7, 40, 0.1, 0.1, 0.0, 0.0)
    assert card.interval(objective="cows")[0] == 0.0
    assert card.interval(objective="margin")[0] < 0.0
    win = montecarlo.SampledCard(7, 40, 0.95, 0.05, 0.0, 0.0)
    assert win.interval(objective="win")[1] < 1.0 < win.interval(objective="margin")[1]


def test_analyse_monte_carlo_table_and_verdict_stay_above_zero():
    """A best card near 0 cows: its interval, in JSON and in the table and the best-card
    line, starts at 0, never below."""
    position = load_position("example")
    mc = _mc({18: (0.05, 0.08), 20: (1.5, 0.1), 15: (2.0, 0.1), 4: (2.2, 0.1),
              14: (2.3, 0.1)})
    result = analysis.from_montecarlo(position, mc, "Monte Carlo as asked", 0, 1)
    best = result.cards[0]
    assert best.card == 18 and best.ci95[0] == 0.0
    assert result.to_json()["cards"][0]["ci95"][0] == 0.0
    text = report.render_analysis(result, "plain")
    verdict = text.splitlines()[-1]
    assert verdict.startswith("best: 18 (expected cows 0.050, 95% [0.000, ")
    numbers = re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", text)
    assert numbers and all(float(a) >= 0.0 for a, _ in numbers)


def test_study_regret_and_spread_intervals_stay_above_zero():
    """Regrets 0, 0, 0.5, 0: the normal interval went below 0 (also in the report's band)."""
    settings = st.StudySettings("tactical", 2, (2,), 4, 0, models=("random",),
                                bots=("closest",))

    def record(index, values, card):
        return {"k": 2, "index": index, "position": f"p{index}",
                "models": {"random": {"value": min(values.values()),
                                      "values": {str(c): v for c, v in values.items()},
                                      "best": st.best_cards(values)}},
                "bots": {"closest": card}, "themes": [], "tempting": None,
                "explanation": None}

    records = [record(0, {1: 0.0, 9: 2.0}, 1), record(1, {3: 1.0, 5: 1.0}, 3),
               record(2, {4: 0.5, 7: 0.0}, 4), record(3, {2: 3.0, 8: 0.0}, 8)]
    k = st.aggregate(settings, records)["2"]["models"]["random"]
    regret = k["bots"]["closest"]["regret"]
    assert regret["mean"] == pytest.approx(0.125)
    assert regret["ci95"][0] == 0.0 and regret["ci95"][1] > 0.125
    assert k["spread"]["ci95"][0] >= 0.0 and k["value"]["ci95"][0] >= 0.0


def test_a_mean_of_few_values_takes_students_t():
    """The standard error estimated from a few values: the interval is scipy's t interval
    (two deals: 12.7 standard errors each side, not 1.96); a floor still cuts it."""
    from scipy import stats

    for values in ([-2.287, -0.720], [1.0, -2.0, 4.0, 0.5], list(np.linspace(-3, 5, 10))):
        mean, interval = mean_interval(values)
        want = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values),
                                scale=stats.sem(values))
        assert mean == pytest.approx(np.mean(values))
        assert interval == pytest.approx(want, rel=1e-9)
    _, (low, high) = mean_interval([0.0, 0.5, 3.0], 0.0)
    assert low == 0.0 and high == pytest.approx(
        stats.t.interval(0.95, 2, loc=3.5 / 3, scale=stats.sem([0.0, 0.5, 3.0]))[1])
