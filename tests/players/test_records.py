"""Game records: simulate / arena save their games, loading replays
every move with the engine, an illegal move is one line naming it."""
from __future__ import annotations

import json

import pytest

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import Rules
from nimmt.solver.players.arena import run_arena, simulate_bots
from nimmt.solver.players.bots import parse_bots
from nimmt.solver.players.records import FORMAT, build_record, load_record, replay, save_record

from cli_checks import assert_ok, assert_one_line_error, invoke


def test_simulate_games_round_trip(tmp_path):
    """Python game loop -> record -> file -> load -> replay: the same scores and rounds."""
    games = []
    result = simulate_bots(Rules("tactical", 3, threshold=30), parse_bots("closest,random,dumper"),
                           3, seed=5, on_game=games.append)
    assert result.games == 3 and len(games) == 3
    for i, game in enumerate(games):
        path = tmp_path / f"g{i}.json"
        save_record(str(path), game.record)
        loaded = load_record(str(path))
        assert loaded["format"] == FORMAT and loaded["version"] == 1
        rounds = replay(loaded)
        assert len(rounds) == game.rounds
        scores = [sum(r.cows[s] for r in rounds) for s in range(3)]
        assert tuple(scores) == game.totals  # seats are bots in simulate
        assert max(scores) >= 30


def test_arena_records_follow_the_seats(tmp_path):
    """A duplicate arena: each record's names and scores are per seat, rotated."""
    games = []
    run_arena(Rules("tactical", 2, "professional", one_round=True),
              parse_bots("closest,random"), 2, seed=1, on_game=games.append)
    assert len(games) == 4
    for g in games:
        scores = replay(g.record)[0].cows
        for b, seat in enumerate(g.seat_of):
            assert scores[seat] == g.totals[b]
            assert g.record["names"][seat] == ["closest", "random"][b]


def test_cli_save_games_then_load(runner, tmp_path):
    out = tmp_path / "games"
    result = invoke(runner, "simulate", "--players", 2, "--bots", "closest,lowkeeper",
                    "--games", 2, "--one-round", "--seed", 4, "--save-games", out,
                    "--format", "json")
    assert_ok(result)
    files = sorted(p.name for p in out.iterdir())
    assert files == ["game-000000.json", "game-000001.json"]
    seats = json.loads(result.output)["seats"]
    totals = [sum(load_record(str(out / f))["scores"][s] for f in files) for s in range(2)]
    assert [round(s["final_total"]["mean"] * 2) for s in seats] == totals
    result = invoke(runner, "arena", "--players", 2, "--bots", "closest,random", "--deals", 1,
                    "--one-round", "--seed", 2, "--save-games", tmp_path / "arena")
    assert_ok(result)
    assert sorted(p.name for p in (tmp_path / "arena").iterdir()) == [
        "deal-000000-r0.json", "deal-000000-r1.json"]


def _a_record() -> dict:
    games: list = []
    simulate_bots(Rules("tactical", 2, one_round=True), parse_bots("closest,random"), 1, seed=2,
                  on_game=games.append)
    return games[0].record


def test_an_illegal_move_is_one_line(runner, tmp_path):
    record = _a_record()
    row_card = record["rounds"][0]["rows"][2]
    record["rounds"][0]["turns"][3]["cards"][1] = row_card  # a starting row's card
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(NimmtError, match=f"round 1, turn 4: player 2 cannot play {row_card}"):
        load_record(str(path))
    line = assert_one_line_error(invoke(runner, "review", path))
    assert "bad.json: game record: round 1, turn 4: player 2" in line


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(format="other"), "is it a game record"),
    (lambda r: r.update(version=7), "version 7"),
    (lambda r: r["rounds"][0]["turns"][0].update(cows=[9, 9]), "turn 1: cows"),
    (lambda r: r.update(scores=[0, 0]), "scores"),
    (lambda r: r["rounds"][0]["turns"][0].update(take_rows=[7, -1]), "take_rows"),
    (lambda r: r["rounds"][0].update(hands=[[1]]), "one hand per player"),
    (lambda r: r["rounds"].append(r["rounds"][0]), "round 2: the game had ended"),
    (lambda r: r.update(threshold="66"), "threshold must be a whole number"),
    (lambda r: r.update(one_round=1), "one_round must be true or false"),
])
def test_bad_records_name_the_problem(change, message):
    record = _a_record()
    change(record)
    with pytest.raises(NimmtError, match=message):
        replay(record)


def test_build_record_fills_in_the_cows():
    record = _a_record()
    rounds = [{"rows": r["rows"], "hands": r["hands"],
               "turns": [{"cards": t["cards"]} for t in r["turns"]]}
              for r in record["rounds"]]
    built = build_record("tactical", 2, "normal", ["a", "b"], rounds, one_round=True)
    assert built["scores"] == record["scores"]
