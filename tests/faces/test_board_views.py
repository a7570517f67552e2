"""The board's game and puzzles views through HTTP: the game's turns are the record's, its
review is `nimmt review --format json`'s, the puzzles are chosen as the quiz chooses them and
answered as it answers, and a review's mistakes become a puzzle set."""
import base64
import json
import sys
import time

import pytest
from click.testing import CliRunner
from helpers import row_choice_deal, wait_job
from starlette.testclient import TestClient

from nimmt import cli
from nimmt.puzzles import files
from nimmt.puzzles.boardview import puzzle_view
from nimmt.puzzles.records import PuzzleSet
from nimmt.solver.base.pictures import NO_PICTURES
from nimmt.solver.faces.board import board_app
from nimmt.solver.faces.boardgame import game_view
from nimmt.solver.faces.boardplay import play_view
from nimmt.solver.faces.boardserver import Guard, new_token
from nimmt.solver.players.records import load_record, replay
from nimmt.solver.players.review import seat_view
from nimmt.solver.positions.position import format_position

from cli_checks import assert_ok, assert_one_line_error, invoke

TOKEN = new_token()
SHIPPED = "two-player-endgames"


@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games")
    assert_ok(invoke(CliRunner(), "simulate", "--variant", "tactical", "--players", "2",
                     "--bots", "random,closest", "--games", "1", "--one-round", "--seed", "5",
                     "--save-games", str(folder)))
    return str(next(folder.glob("*.json")))


def make_client(views, start="position"):
    app = board_app(Guard.local(TOKEN, "127.0.0.1", 8000), views=views, start_view=start)
    client = TestClient(app, base_url="http://127.0.0.1:8000")
    client.headers["X-Nimmt-Token"] = TOKEN
    return client


@pytest.fixture
def client(game_file):
    with make_client((puzzle_view(SHIPPED), game_view(load_record(game_file), game_file),
                      play_view()), "game") as c:
        yield c


# ---------------------------------------------------------------- the game

def test_the_game_s_turns_are_the_record_s(client, game_file):
    info = client.get("/api/info").json()
    assert info["start"] == "game" and info["views"]["game"]["turns"] == 10
    assert info["views"]["puzzles"]["set"] == SHIPPED
    game = client.get("/api/game").json()
    turns = [t for r in replay(load_record(game_file)) for t in r.turns]
    assert len(game["steps"]) == len(turns) == 10
    for step, turn in zip(game["steps"], turns):
        assert step["cards"] == list(turn.cards) and step["cows"] == list(turn.cows)
        assert [[c["card"] for c in h] for h in step["hands"]] == \
            [list(h) for h in turn.before.hands]
        assert step["position"]["notation"] == format_position(turn.before)
        assert step["views"] == [format_position(seat_view(turn, s)) for s in range(2)]
        assert [[c["card"] for c in row] for row in step["after"]] == \
            [list(r) for r in turn.after.rows]


def test_the_review_is_nimmt_review_s(client, game_file):
    job = client.post("/api/game/review", json={"opponents": "worst", "from_turn": 6,
                                                "players": [1], "seed": 3}).json()
    job = wait_job(client, job)
    assert job["state"] == "done", job
    ours = job["result"]
    assert b"<svg" in base64.b64decode(ours.pop("picture"))
    result = invoke(CliRunner(), "review", game_file, "--player", "1", "--opponents", "worst",
                    "--from-turn", "6", "--seed", "3", "--format", "json")
    assert result.exit_code == 0, result.output
    theirs = json.loads(result.stdout)
    assert [(d["round"], d["turn"], d["player"], d["played"], d["best"], d["regret"],
             d["label"]) for d in ours["decisions"]] == \
        [(d["round"], d["turn"], d["player"], d["played"], d["best"], d["regret"], d["label"])
         for d in theirs["decisions"]]
    assert ours["summary"] == theirs["summary"]
    assert job["progress"]["what"] == "decisions reviewed"
    assert job["progress"]["done"] == job["progress"]["total"] == 4  # turns 6..9, one player


def test_the_review_s_picture_is_an_svg(client):
    job = wait_job(client, client.post("/api/game/review", json={"opponents": "worst",
                                                             "from_turn": 8}).json())
    svg = base64.b64decode(job["result"]["picture"]).decode()
    assert "<svg" in svg and "regret" in svg


def test_without_matplotlib_the_review_comes_with_a_note_for_its_picture(client, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    job = wait_job(client, client.post("/api/game/review", json={"opponents": "worst",
                                                             "from_turn": 8}).json())
    assert job["state"] == "done", job
    assert job["result"]["picture"] is None
    assert job["result"]["picture_note"] == NO_PICTURES
    assert job["result"]["decisions"]


@pytest.mark.parametrize("body,message", [
    ({"players": [3]}, "players lists this game's players, 1..2"),
    ({"opponents": "nash"}, "review judges against opponents random or worst"),
    ({"from_turn": 11}, "from_turn must be a whole number 1..10"),
    ({"depth": 2}, "review has no parameter 'depth'"),
    ({"time_limit": -1}, "time_limit must be a number of seconds above 0"),
])
def test_a_bad_review_request_is_one_line(client, body, message):
    response = client.post("/api/game/review", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_a_cancelled_review_stops_inside_a_decision(client):
    """Cancel stops a review inside the analysis of a decision (here one of 30 seconds)."""
    job = client.post("/api/game/review", json={"opponents": "random", "samples": 10**7,
                                                "time_limit": 30}).json()
    time.sleep(1.0)
    start = time.monotonic()
    client.delete(f"/api/jobs/{job['id']}")
    done = wait_job(client, job, seconds=60)
    assert done["state"] == "cancelled" and done["progress"]["done"] <= 1
    assert time.monotonic() - start < 25   # inside the decision's 30 s, not after it


# ---------------------------------------------------------------- puzzles

def test_the_listing_is_the_quiz_s_choice_without_the_answers(client):
    data = files.load_set(SHIPPED)
    theme = files.set_themes(data)[0]
    got = client.post("/api/puzzles", json={"themes": [theme], "difficulty": "2.."}).json()
    chosen = files.select_puzzles(data, [theme], (2, None))
    assert [p["id"] for p in got["puzzles"]] == [p.id for p in chosen]
    assert got["themes"] == files.set_themes(data) and got["size"] == len(data.puzzles)
    text = json.dumps(got["puzzles"])
    assert '"solution"' not in text and '"values"' not in text and '"explanation"' not in text
    first = got["puzzles"][0]
    assert first["position"]["notation"] == data.puzzles[first["number"] - 1].position


def test_an_answer_is_the_quiz_s(client):
    puzzle = files.load_set(SHIPPED).puzzles[0]
    right = client.post("/api/puzzles/answer", json={"number": 1,
                                                     "card": puzzle.solution}).json()
    assert right["correct"] and right["loss"] == 0 and right["line"] == ""
    assert right["explanation"] == puzzle.explanation
    wrong = next(c for c in puzzle.cards if puzzle.values[c] > puzzle.values[puzzle.solution])
    got = client.post("/api/puzzles/answer", json={"number": 1, "card": wrong}).json()
    assert not got["correct"]
    assert got["loss"] == pytest.approx(puzzle.values[wrong] - puzzle.values[puzzle.solution])
    assert got["line_turns"][0]["you"] == wrong and got["line"].startswith("turn ")
    assert {v["card"]: v["value"] for v in got["values"]} == dict(puzzle.values)


def test_two_tabs_on_two_sets_do_not_mix_their_puzzles(client):
    """Every request names its set: a listing of another set in between changes nothing."""
    other = next(n for n in files.shipped_sets() if n != SHIPPED)
    mine, theirs = files.load_set(SHIPPED).puzzles[0], files.load_set(other).puzzles[0]
    client.post("/api/puzzles", json={"set": other})   # another tab
    got = client.post("/api/puzzles/answer", json={"set": SHIPPED, "number": 1,
                                                   "card": mine.solution}).json()
    assert got["correct"] and got["explanation"] == mine.explanation
    got = client.post("/api/puzzles/answer", json={"set": other, "number": 1,
                                                   "card": theirs.solution}).json()
    assert got["correct"] and got["explanation"] == theirs.explanation


@pytest.mark.parametrize("path,body,status,message", [
    ("/api/puzzles/answer", {"number": 1, "card": 999}, 400, "not in this puzzle's hand"),
    ("/api/puzzles/answer", {"number": 10**6, "card": 3}, 400, "number must be"),
    ("/api/puzzles/answer", {"card": 3}, 400, "names the puzzle"),
    ("/api/puzzles", {"set": "/etc/passwd"}, 400, "no puzzle set"),
    ("/api/puzzles", {"themes": ["nope"]}, 400, "its themes are"),
    ("/api/puzzles", {"difficulty": "5..2"}, 400, "runs backwards"),
    ("/api/puzzles/from-review", {}, 404, "review it first"),
])
def test_bad_puzzle_requests_are_one_line(client, path, body, status, message):
    response = client.post(path, json=body)
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


def test_a_review_s_mistakes_become_the_puzzles_shown(client):
    review = wait_job(client, client.post("/api/game/review", json={
        "opponents": "worst", "from_turn": 5, "players": [1]}).json())
    mistakes = [d for d in review["result"]["decisions"]
                if d["kind"] == "card" and d["label"] in ("mistake", "blunder")]
    assert mistakes, "the fixture's random player made no mistake: pick another seed"
    job = wait_job(client, client.post("/api/puzzles/from-review",
                                       json={"job": review["id"]}).json())
    assert job["state"] == "done", job
    made = job["result"]
    assert made["count"] + len(made["skipped"]) == len(mistakes)
    data = PuzzleSet.from_json(made["file"], "board")
    shown = client.post("/api/puzzles", json={"set": "mistakes"}).json()
    assert [p["id"] for p in shown["puzzles"]] == [p.id for p in data.puzzles]
    assert "mistakes" in shown["sets"]
    first = data.puzzles[0]
    answer = client.post("/api/puzzles/answer", json={"set": "mistakes", "number": 1,
                                                      "card": first.tempting}).json()
    assert not answer["correct"] and answer["line_turns"][0]["you"] == first.tempting


# ---------------------------------------------------------------- what nimmt board opens

def test_the_source_decides_the_view(game_file, tmp_path):
    assert cli._board_source(None) == ("position", None)
    assert cli._board_source(SHIPPED) == ("puzzles", SHIPPED)
    kind, record = cli._board_source(game_file)
    assert kind == "game" and record == load_record(game_file)
    mine = tmp_path / "set.json"
    files.save_set(files.load_set(SHIPPED), str(mine))
    assert cli._board_source(str(mine)) == ("puzzles", str(mine))
    assert cli._board_source("example")[0] == "position"


def test_a_bad_board_file_is_one_line(tmp_path):
    bad = tmp_path / "game.json"
    record = json.loads(json.dumps({"format": "nimmt-game", "version": 1, "players": 2}))
    bad.write_text(json.dumps(record))
    assert "game record" in assert_one_line_error(invoke(CliRunner(), "board", str(bad),
                                                         "--no-browser"))


# ---------------------------------------------------------------- play

def test_a_game_played_on_the_board_is_nimmt_play_s(client, tmp_path):
    """The same deal and the same decisions (a card, undo, a row choice, the rest) give the
    record `nimmt play` gives at the terminal."""
    seed, hand = row_choice_deal()
    low, other = hand[0], hand[1]
    rest = [c for c in hand if c != low]
    state = client.post("/api/play/new", json={"variant": "tactical", "players": 2,
                                               "bots": "closest", "one_round": True,
                                               "seed": seed}).json()
    assert state["kind"] == "card" and [c["card"] for c in state["position"]["hand"]] == hand
    assert state["hint_model"] == "closest"
    state = client.post("/api/play/move", json={"answer": other}).json()
    if state["kind"] == "row":   # the terminal's empty line: the rule's choice
        state = client.post("/api/play/move", json={"answer": ""}).json()
    assert state["kind"] == "card" and len(state["position"]["hand"]) == 9
    state = client.post("/api/play/move", json={"answer": "undo"}).json()
    assert len(state["position"]["hand"]) == 10
    state = client.post("/api/play/move", json={"answer": low}).json()
    assert state["kind"] == "row" and [o["take_row"] for o in state["options"]] == [0, 1, 2, 3]
    assert state["notation"].endswith(f"turn={low},{state['cards'][1]}")
    state = client.post("/api/play/move", json={"answer": 1}).json()   # take row 2
    for card in list(reversed(rest))[:-1]:
        state = client.post("/api/play/move", json={"answer": card}).json()
        while state["kind"] == "row":
            state = client.post("/api/play/move", json={"answer": ""}).json()
    assert state["kind"] == "over" and state["finished"], state
    ours = client.get("/api/play/record").json()
    lines = [other, "", "undo", low, "2"] + [x for c in list(reversed(rest))[:-1] for x in (c, "")]
    path = tmp_path / "game.json"
    result = invoke(CliRunner(), "play", "--players", 2, "--bots", "closest", "--one-round",
                    "--seed", seed, "--record", path,
                    input="".join(f"{line}\n" for line in lines))
    assert result.exit_code == 0, result.output
    assert ours == load_record(str(path))
    opened = client.post("/api/game/open-play", json={}).json()   # reviewed on the Game tab
    assert len(opened["steps"]) == 10 and opened["names"] == ["you", "closest"]


def test_bad_play_requests_are_one_line(client):
    for body, message in [({"players": 3, "bots": "closest,random,dumper"}, "name one per"),
                          ({"bots": "nobody"}, "unknown bot"),
                          ({"variant": "chess"}, "variant"),
                          ({"speed": 2}, "play has no parameter 'speed'")]:
        response = client.post("/api/play/new", json=body)
        assert response.status_code == 400 and message in response.json()["error"], body
    assert client.get("/api/play").status_code == 400   # no game yet
    state = client.post("/api/play/new", json={"seed": 3}).json()
    bad = client.post("/api/play/move", json={"answer": 999}).json()
    assert bad["kind"] == "card" and "is not a card of your hand" in bad["log"][-1]
    assert client.post("/api/play/move", json={"answer": None}).status_code == 400
    stopped = client.post("/api/play/move", json={"answer": "quit"}).json()
    assert stopped["kind"] == "over" and not stopped["finished"]
    record = client.get("/api/play/record").json()
    assert record["complete"] is False and record["names"] == state["labels"]
    assert client.post("/api/play/move", json={"answer": 5}).status_code == 400
