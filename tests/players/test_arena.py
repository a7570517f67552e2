"""`nimmt arena` and the game loop behind it: duplicate rotation, the
bookkeeping against hand-computed games, legality checks, determinism across workers,
bad bot names on the command line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nimmt.solver.base.rules import Rules
from nimmt.solver.players import arena
from nimmt.solver.players.arena import ArenaResult, GameRecord, run_arena, simulate_bots, summarise
from nimmt.solver.players.bots import Bot, Decision, make_policy, parse_bot, parse_bots
from nimmt.solver.players.seats import ArenaError, Table, deal_cards
from nimmt.solver.positions.position import Position

from cli_checks import assert_ok, assert_one_line_error, invoke

ONE_ROUND_2P = Rules("tactical", 2, one_round=True)
ONE_ROUND_3P = Rules("tactical", 3, one_round=True)


class Lowest(Bot):
    """A scripted bot: its lowest card, rule-following rows."""

    def choose(self, position: Position) -> Decision:
        return Decision(min(position.hand))


def test_a_table_plays_what_apply_turn_plays():
    """Hand-computed: the same cards through Position.apply_turn give the same cows."""
    rules = ONE_ROUND_3P
    rows, hands = deal_cards(rules, 5, 0, 0)
    spec = parse_bot("closest")
    table = Table(rules, rows, hands, [Lowest(spec), Lowest(spec), Lowest(spec)])
    cows = table.play()
    position = Position.make(players=3, rows=[[c] for c in rows], hand=hands[0],
                             others={2: hands[1], 3: hands[2]})
    want = [0, 0, 0]
    for _ in range(10):
        position, outcome = position.apply_turn([min(h) for h in position.hands])
        want = [a + b for a, b in zip(want, outcome.cows)]
    assert cows == want


def test_views_are_what_each_seat_sees():
    rows, hands = deal_cards(ONE_ROUND_3P, 1, 0, 0)
    spec = parse_bot("closest")
    table = Table(ONE_ROUND_3P, rows, hands, [Lowest(spec)] * 3, scores=[4, 5, 6])
    view = table.view(1)
    assert view.hand == tuple(hands[1]) and view.hidden_players == (1, 2)
    assert view.scores == (5, 6, 4) and set(view.pool) == set(hands[0]) | set(hands[2])
    logic = Rules("logic", 3, one_round=True)
    table = Table(logic, rows, hands, [Lowest(spec)] * 3)
    assert table.view(2).hands == (tuple(hands[2]), tuple(hands[0]), tuple(hands[1]))


def test_duplicate_deals_rotate_every_bot_through_every_hand():
    result = run_arena(ONE_ROUND_3P, parse_bots("closest,random,dumper"), 2, seed=3)
    assert len(result.games) == 6 and result.deals == 2 and result.complete
    for deal in (0, 1):
        games = [g for g in result.games if g.deal == deal]
        for b in range(3):
            assert sorted(g.seat_of[b] for g in games) == [0, 1, 2]
    # the same deal, so the same cards: every rotation's totals add up to the same cows
    # only when the bots are the same; with one bot everywhere they are a rotation
    same = run_arena(ONE_ROUND_3P, parse_bots("closest,closest,closest"), 1, seed=3)
    totals = {tuple(sorted(g.totals)) for g in same.games}
    assert len(totals) == 1
    single = run_arena(ONE_ROUND_3P, parse_bots("closest,random,dumper"), 4, seed=3,
                       duplicate=False)
    assert [g.rotation for g in single.games] == [0, 1, 2, 0]


def record(deal, totals, rounds=1, rotation=0):
    n = len(totals)
    return GameRecord(deal, rotation, tuple(range(n)), tuple(totals), rounds,
                      tuple((0.01,) * 9 for _ in range(n)))


def test_bookkeeping_against_hand_computed_games():
    """Deal 0: a beats b; deal 1: a tie (the win is shared); deal 2: b wins, 2 rounds."""
    games = [record(0, (3, 7)), record(1, (5, 5)), record(2, (12, 4), rounds=2)]
    result = summarise(ArenaResult(ONE_ROUND_2P, ("a", "b"), 0, 3, False, games, 1.0))
    a, b = result.summaries
    assert a.cows_per_round.mean == pytest.approx((3 + 5 + 6) / 3)
    assert b.cows_per_round.mean == pytest.approx((7 + 5 + 2) / 3)
    assert a.win_rate.mean == pytest.approx((1 + 0.5 + 0) / 3)
    assert b.win_rate.mean == pytest.approx((0 + 0.5 + 1) / 3)
    assert result.pairwise[0][1].mean == pytest.approx(0.5)
    assert result.anchor == "b" and b.rating == 0.0
    assert a.rating == pytest.approx(0.0, abs=1e-3)  # 1.5 wins each: equal strength
    assert a.decisions == 27 and a.mean_seconds == pytest.approx(0.01)


def test_ratings_order_the_bots_and_anchor_random():
    games = [record(d, (1, 5, 9)) for d in range(20)] + [record(20, (5, 1, 9))]
    result = summarise(ArenaResult(ONE_ROUND_3P, ("x", "random", "y"), 0, 21, False, games,
                                   1.0))
    x, r, y = result.summaries
    assert result.anchor == "random" and r.rating == 0.0
    assert x.rating > 0 > y.rating and x.rating_low <= x.rating <= x.rating_high


def test_a_tie_in_a_three_player_game_shares_the_win():
    result = summarise(ArenaResult(ONE_ROUND_3P, ("a", "b", "c"), 0, 1, False,
                                   [record(0, (2, 2, 9))], 1.0))
    assert [s.win_rate.mean for s in result.summaries] == [0.5, 0.5, 0.0]


class Cheat(Bot):
    def choose(self, position: Position) -> Decision:
        return Decision(max(position.pool or position.hand) + 100)


class Broken(Bot):
    def choose(self, position: Position) -> Decision:
        raise RuntimeError("out of ideas")


class BadRow(Bot):
    def choose(self, position: Position) -> Decision:
        return Decision(min(position.hand))

    def choose_option(self, moment) -> int:
        return 7


@pytest.mark.parametrize("bot, words", [(Cheat, "which is not in its hand"),
                                        (Broken, "failed: RuntimeError: out of ideas"),
                                        (BadRow, "chose row option 7")])
def test_an_illegal_move_or_a_failing_bot_is_reported_with_the_position(bot, words):
    rules = ONE_ROUND_2P
    spec = parse_bot("closest")
    for seed in range(20):  # BadRow needs a low card to be asked for a row
        rows, hands = deal_cards(rules, seed, 0, 0)
        table = Table(rules, rows, hands, [make_policy("closest"), bot(spec)],
                      labels=["closest", "scripted"])
        try:
            table.play()
        except ArenaError as e:
            message = str(e)
            assert "bot scripted (seat 2)" in message and words in message
            assert "position: variant=tactical players=2 rows=" in message
            return
    pytest.fail("no error")


def strip_times(result):
    return [(g.deal, g.rotation, g.seat_of, g.totals, g.rounds) for g in result.games]


def test_results_do_not_depend_on_workers():
    specs = parse_bots("mcs:playouts=20,random,closest")
    one = run_arena(ONE_ROUND_3P, specs, 4, seed=11, workers=1)
    two = run_arena(ONE_ROUND_3P, specs, 4, seed=11, workers=2)
    assert strip_times(one) == strip_times(two)
    assert [s.rating for s in one.summaries] == [s.rating for s in two.summaries]


def test_ctrl_c_keeps_the_deals_finished(monkeypatch):
    real = arena.play_deal

    def stop_at_two(args):
        if args[3] == 2:
            raise KeyboardInterrupt
        return real(args)

    monkeypatch.setattr(arena, "play_deal", stop_at_two)
    result = run_arena(ONE_ROUND_2P, parse_bots("closest,random"), 5, seed=1)
    assert result.deals == 2 and not result.complete and len(result.games) == 4


def test_simulate_with_search_bots_goes_through_the_game_loop():
    result = simulate_bots(ONE_ROUND_2P, parse_bots("mcs:playouts=20,closest"), 3, seed=2)
    assert result.games == 3 and result.seats[0].bot == "mcs:playouts=20"
    assert np.isfinite(result.seats[0].cows_per_round.mean)


# ---------------------------------------------------------------- the command line

def test_arena_reports_in_every_format(runner, tmp_path):
    args = ["arena", "--players", "2", "--bots", "closest,random", "--deals", "3",
            "--one-round", "--seed", "1"]
    table = invoke(runner, *args)
    assert_ok(table)
    assert "rating" in table.stdout and "0 (anchor)" in table.stdout
    md = invoke(runner, *args, "--format", "markdown")
    assert "| bot" in md.stdout
    out = tmp_path / "arena.json"
    result = invoke(runner, *args, "--format", "json", "--output", out)
    assert_ok(result)
    data = json.loads(out.read_text())
    assert data["deals"] == 3 and data["games"] == 6 and data["duplicate"] is True
    assert [b["bot"] for b in data["bots"]] == ["closest", "random"]
    assert data["rating"]["anchor"] == "random"


@pytest.mark.parametrize("command", [
    ["arena", "--players", "2", "--deals", "1", "--bots"],
    ["simulate", "--players", "2", "--games", "1", "--bots"],
    ["deal", "--players", "2", "--cards-left", "5", "--bots"],
])
@pytest.mark.parametrize("bots", ["foo,closest", "expecti:sample=5,closest",
                                  "mcs:playouts=x,closest", "closest,nash:k=11"])
def test_bad_bot_names_are_one_line_and_exit_2(runner, command, bots):
    line = assert_one_line_error(invoke(runner, *command, bots))
    assert "bot" in line


def test_arena_needs_one_bot_per_seat(runner):
    line = assert_one_line_error(invoke(runner, "arena", "--players", "3", "--bots",
                                        "closest,random"))
    assert "one per seat" in line


def test_arena_output_is_checked_before_the_work(runner, tmp_path):
    line = assert_one_line_error(invoke(runner, "arena", "--players", "2", "--bots",
                                        "closest,random", "--output", tmp_path / "no" / "x"))
    assert "cannot write" in line


def test_arena_ctrl_c_exits_130_with_the_report(runner, monkeypatch):
    real = arena.play_deal

    def stop_at_one(args):
        if args[3] == 1:
            raise KeyboardInterrupt
        return real(args)

    monkeypatch.setattr(arena, "play_deal", stop_at_one)
    result = invoke(runner, "arena", "--players", "2", "--bots", "closest,random", "--deals",
                    "4", "--one-round", "--seed", "1")
    assert result.exit_code == 130
    assert "stopped early: 1 of 4 deals" in result.stdout
    assert "1 of 4 deals finished" in result.stderr


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_arena_ctrl_c_before_any_deal_reports_no_deal(runner, monkeypatch, fmt):
    def stop(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena, "play_deal", stop)
    result = invoke(runner, "arena", "--players", "2", "--bots", "closest,random", "--deals",
                    "4", "--one-round", "--seed", "1", "--format", fmt)
    assert result.exit_code == 130, result.output
    assert result.stderr.splitlines()[-1].startswith("nimmt: interrupted: 0 of 4 deals")
    if fmt == "json":
        data = json.loads(result.stdout)
        assert data["deals"] == 0 and data["complete"] is False
        assert data["pairwise"] == {"closest": {"random": None}, "random": {"closest": None}}
    else:
        assert "stopped early: 0 of 4 deals" in result.stdout


@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("finished", [0, 1])
def test_simulate_ctrl_c_exits_130_with_the_games_finished(runner, monkeypatch, fmt, finished):
    real = arena.play_seated

    def stop(args):
        if args[3] == finished:
            raise KeyboardInterrupt
        return real(args)

    monkeypatch.setattr(arena, "play_seated", stop)
    result = invoke(runner, "simulate", "--players", "2", "--bots", "mcs:playouts=5,closest",
                    "--games", "3", "--one-round", "--seed", "1", "--format", fmt)
    assert result.exit_code == 130, result.output
    assert result.stderr.splitlines()[-1] == (f"nimmt: interrupted: {finished} of 3 games "
                                              "finished (reported)")
    if fmt == "json":
        data = json.loads(result.stdout)
        assert data["games"] == finished and data["complete"] is False
    else:
        assert f"stopped early: {finished} of 3 games" in result.stdout


def test_deal_and_simulate_take_search_bots(runner):
    result = invoke(runner, "deal", "--players", "2", "--cards-left", "8", "--bots",
                    "mcs:playouts=10", "--seed", "3")
    assert_ok(result)
    assert "hand=" in result.stdout and len(result.stdout.split("hand=")[1].split()[0]
                                            .split(",")) == 8
    before = invoke(runner, "deal", "--players", "3", "--cards-left", "6", "--seed", "3")
    named = invoke(runner, "deal", "--players", "3", "--cards-left", "6", "--seed", "3",
                   "--bots", "random")
    assert before.stdout == named.stdout  # the rule-of-thumb path is as before
    sim = invoke(runner, "simulate", "--players", "2", "--bots", "mcs:playouts=10,closest",
                 "--games", "2", "--one-round", "--seed", "1")
    assert_ok(sim)
    assert "mcs:playouts=10" in sim.stdout


def test_games_to_a_threshold_play_rounds_until_a_total_reaches_it():
    rules = Rules("tactical", 2, threshold=25)
    result = run_arena(rules, parse_bots("closest,random"), 2, seed=4)
    for g in result.games:
        assert max(g.totals) >= 25 and g.rounds >= 1
    assert any(g.rounds > 1 for g in result.games)
    a = result.summaries[0]
    want = np.mean([np.mean([g.totals[0] / g.rounds for g in result.games if g.deal == d])
                    for d in (0, 1)])
    assert a.cows_per_round.mean == pytest.approx(want)
