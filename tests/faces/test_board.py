"""The analysis board's server: the same figures as the CLI, its guard, its jobs."""
import json
import time

import pytest
from helpers import wait_job
from starlette.testclient import TestClient

from nimmt.solver.faces.board import board_app
from nimmt.solver.faces.boardserver import BODY_LIMIT, Guard, new_token

from cli_checks import invoke

TOKEN = new_token()


@pytest.fixture
def client():
    app = board_app(Guard.local(TOKEN, "127.0.0.1", 8000))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        c.headers["X-Nimmt-Token"] = TOKEN
        yield c


def cli_json(*args):
    from click.testing import CliRunner
    result = invoke(CliRunner(), "analyse", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("request_,args", [
    ({"position": "example", "seed": 1}, ["example", "--seed", "1"]),
    ({"position": "example-3p", "method": "montecarlo", "samples": 200, "seed": 5},
     ["example-3p", "--method", "montecarlo", "--samples", "200", "--seed", "5"]),
    ({"position": "example", "opponents": "nash"}, ["example", "--opponents", "nash"]),
])
def test_the_board_s_figures_are_the_cli_s(client, request_, args):
    job = wait_job(client, client.post("/api/analyse", json=request_).json())
    assert job["state"] == "done", job
    ours, theirs = job["result"], cli_json(*args)
    assert ours["method"] == theirs["method"] and ours["value"] == theirs["value"]
    assert [(c["card"], c["value"], c["regret"]) for c in ours["cards"]] == \
        [(c["card"], c["value"], c["regret"]) for c in theirs["cards"]]


def test_a_row_choice_is_valued_as_the_cli_values_it(client):
    assert client.post("/api/info").status_code == 405  # the info is read, never posted
    text = client.get("/api/info").json()["examples"]["example"] + " turn=4,13"
    job = wait_job(client, client.post("/api/analyse", json={"position": text,
                                                         "opponents": "worst"}).json())
    theirs = cli_json(text, "--opponents", "worst")
    assert job["state"] == "done"
    assert [(c["take_row"], c["value"]) for c in job["result"]["choices"]] == \
        [(c["take_row"], c["value"]) for c in theirs["choices"]]
    assert job["result"]["choices"][0]["choice"] == "take row 4"  # the guide's example


def test_a_position_is_drawn_with_its_cows(client):
    got = client.post("/api/position", json={"position": "example"}).json()
    assert [c["card"] for c in got["hand"]] == [4, 14, 15, 18, 20]
    assert got["rows"][2][1] == {"card": 11, "cows": 5}
    assert got["others"][0] is not None and got["cards_left"] == 5


@pytest.mark.parametrize("body,message", [
    ({"position": "variant=tactical players=2 rows=1/2/3 hand=9"}, "give exactly 4 rows"),
    ({"position": "/etc/passwd"}, "the board reads no files"),
    ({"position": ""}, "position is required"),
])
def test_a_bad_position_is_the_cli_s_one_line(client, body, message):
    response = client.post("/api/position", json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert message in error and "\n" not in error and "Traceback" not in error


@pytest.mark.parametrize("body,message", [
    ({"position": "example", "samples": -3}, "samples"),
    ({"position": "example", "shell": "rm"}, "unknown analysis option 'shell'"),
])
def test_bad_analysis_options_are_one_line(client, body, message):
    response = client.post("/api/analyse", json=body)
    assert response.status_code == 400 and message in response.json()["error"]


def test_a_bad_opponent_fails_its_analysis_with_one_line(client):
    job = wait_job(client, client.post("/api/analyse", json={"position": "example",
                                                         "opponents": "nobody"}).json())
    assert job["state"] == "failed" and "nobody" in job["error"] and "\n" not in job["error"]


def test_the_guard_refuses_other_sites_and_missing_tokens(client):
    assert client.get("/api/info").status_code == 200
    assert client.get("/api/info", headers={"X-Nimmt-Token": "wrong"}).status_code == 403
    assert client.get("/api/info", headers={"Host": "evil.example:8000"}).status_code == 403
    assert client.get("/api/info", headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.get("/api/info", headers={"Origin": "http://127.0.0.1:8000"}).status_code == 200
    assert client.get("/", headers={"X-Nimmt-Token": ""}).status_code == 403
    assert client.get(f"/?token={TOKEN}", headers={"X-Nimmt-Token": ""}).status_code == 200
    assert client.get("/static/board.js").status_code == 200
    assert client.get("/static/../board.py").status_code == 404


def test_bodies_are_limited_and_must_be_json_objects(client):
    big = client.post("/api/position", content=b"{" + b" " * (BODY_LIMIT + 10) + b"}")
    assert big.status_code == 413
    for content in (b"not json", b"[1, 2]", b'{"position": 1, "position": 2}', b"\xff"):
        response = client.post("/api/position", content=content)
        assert response.status_code == 400, content
    assert client.get("/api/jobs/nothing").status_code == 404


def test_an_analysis_is_cancelled_from_the_page(client):
    job = client.post("/api/analyse", json={"position": "example-standard", "method":
                                            "montecarlo", "samples": 10_000_000}).json()
    while job["state"] == "queued" or job["progress"]["done"] == 0:
        time.sleep(0.05)
        job = client.get(f"/api/jobs/{job['id']}").json()
    assert client.delete(f"/api/jobs/{job['id']}").status_code == 200
    assert wait_job(client, job, 60)["state"] == "cancelled"


def test_twenty_analyses_at_once_are_all_answered(client):
    jobs = [client.post("/api/analyse", json={"position": "example", "seed": i}).json()
            for i in range(20)]
    done = [wait_job(client, job) for job in jobs]
    assert {job["state"] for job in done} == {"done"}
    assert len({job["result"]["value"] for job in done}) == 1  # exact: every seed agrees


def test_nimmt_board_refuses_a_bad_position_and_a_busy_port_in_one_line():
    import socket

    from click.testing import CliRunner

    from cli_checks import assert_one_line_error
    line = assert_one_line_error(invoke(CliRunner(), "board", "nonsense", "--no-browser"))
    assert "'nonsense' is not key=value" in line
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        line = assert_one_line_error(invoke(CliRunner(), "board", "--no-browser", "--port",
                                            port))
    assert f"cannot listen on 127.0.0.1:{port}" in line and "give another --port" in line


def test_the_printed_address_answers_at_once():
    """The board listens before it prints its address: a browser opened the moment the
    line appears is answered, not refused while the server still starts."""
    import re
    import subprocess
    import sys
    import urllib.request

    process = subprocess.Popen([sys.executable, "-m", "nimmt.cli", "board", "example",
                                "--no-browser"], stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+", process.stdout.readline()).group(0)
        with urllib.request.urlopen(url, timeout=60) as page:   # no wait before it
            assert page.status == 200 and b"nimmt board" in page.read()
    finally:
        process.kill()
        process.wait()


# ---------------------------------------------------------------- a card played out, the tree

def test_a_card_played_out_is_the_principal_line(client):
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.line import principal_line

    job = wait_job(client, client.post("/api/line", json={"position": "example", "card": 14,
                                                      "opponents": "worst"}).json())
    assert job["state"] == "done", job
    line = principal_line(load_position("example"), 14, "worst")
    got = job["result"]
    assert [(t["you"], t["opponents"], t["cows"]) for t in got["turns"]] == \
        [(t.card, t.label, t.cows) for t in line]
    assert got["total"] == sum(t.cows for t in line)
    assert got["turns"][0]["turn"] == 6 and got["turns"][0]["you"] == 14  # 5 cards left
    worst = cli_json("example", "--opponents", "worst")
    assert got["total"] == next(c["value"] for c in worst["cards"] if c["card"] == 14)


def test_the_tree_is_the_decision_tree_of_nimmt_tree(client):
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.tree import build_tree

    job = wait_job(client, client.post("/api/tree", json={"position": "example", "depth": 2,
                                                      "opponents": "random"}).json())
    assert job["state"] == "done", job
    graph = build_tree(load_position("example"), "random", depth=2)
    root = job["result"]["tree"]
    assert job["result"]["nodes"] == graph.number_of_nodes()
    assert root["value"] == pytest.approx(cli_json("example", "--seed", "1")["value"])
    children = graph.successors(graph.graph["root"])
    assert [c["label"] for c in root["children"]] == \
        [graph.edges[graph.graph["root"], c]["label"] for c in children]

    def count(node):
        return 1 + sum(count(c["node"]) for c in node.get("children", []))
    assert count(root) == graph.number_of_nodes()   # no node merged: the JSON is the tree


@pytest.mark.parametrize("path,body,message", [
    ("/api/line", {"position": "example", "card": 99}, "card is one of player 1's cards"),
    ("/api/line", {"position": "example", "card": 14, "opponents": "closest"},
     "a bot's a line is not searched"),
    ("/api/line", {"position": "example-standard", "card": 0}, "card must be a whole number"),
    ("/api/tree", {"position": "example", "depth": 4}, "depth must be a whole number 1..3"),
    ("/api/tree", {"position": "example", "best_only": "yes"}, "best_only is true or false"),
    ("/api/tree", {"position": "example", "width": 2}, "tree has no parameter 'width'"),
])
def test_bad_line_and_tree_requests_are_one_line(client, path, body, message):
    response = client.post(path, json=body)
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]


def test_a_line_too_large_to_search_is_refused_at_once(client):
    from nimmt.solver.positions.position import load_position
    hand = load_position("example-standard").hand
    response = client.post("/api/line", json={"position": "example-standard", "card": hand[0]})
    assert response.status_code == 400 and "too large" in response.json()["error"]


# ---------------------------------------------------------------- editing by clicking

def test_an_edited_position_is_checked_and_drawn(client):
    body = {"variant": "tactical", "players": 2, "placement": "normal",
            "rows": [[3, 6], [5, 10], [8, 11, 21], [16, 19, 23]], "hand": [20, 14, 15, 18],
            "others": {"2": [13, 17, 22, 24]}, "gone": [1, 2, 4, 7, 9, 12]}
    got = client.post("/api/position/edit", json=body).json()
    assert got["notation"] == ("variant=tactical players=2 rows=3,6/5,10/8,11,21/16,19,23 "
                               "hand=14,15,18,20 p2=13,17,22,24 gone=1,2,4,7,9,12")
    assert [c["card"] for c in got["deck"]] == list(range(1, 25))
    assert got["deck"][10] == {"card": 11, "cows": 5}
    bad = dict(body, hand=[14, 15, 18])
    response = client.post("/api/position/edit", json=bad)
    assert response.status_code == 400
    assert response.json()["error"] == ("p2 holds 4 cards but hand holds 3; every player "
                                        "holds the same number of cards")
    for broken, message in [({"rows": "3,6"}, "rows is a list of rows"),
                            ({"others": {"two": [1]}}, "others maps a player's number"),
                            ({"hand": ["4"]}, "hand is a list of cards"),
                            ({"players": None}, "players is required")]:
        response = client.post("/api/position/edit", json={**body, **broken})
        assert response.status_code == 400 and message in response.json()["error"], broken


def test_a_job_nobody_asks_after_stops(client, monkeypatch):
    """A tab closed mid-search: its job stops once no page has asked after it for a while."""
    from nimmt.solver.faces import boardserver
    monkeypatch.setattr(boardserver, "BOARD_ORPHAN_SECONDS", 0.3)
    job = client.post("/api/analyse", json={"position": "example-standard", "seed": 1,
                                            "method": "montecarlo", "samples": 10**7,
                                            "time_limit": 60}).json()
    time.sleep(1.5)   # nobody polls
    app_jobs = client.app.state.jobs
    found = app_jobs.jobs[job["id"]]
    end = time.monotonic() + 30
    while found.state in ("queued", "running") and time.monotonic() < end:
        time.sleep(0.05)
    assert found.state == "cancelled"
    polled = wait_job(client, client.post("/api/analyse", json={"position": "example",
                                                            "seed": 1}).json())
    assert polled["state"] == "done"   # a job that is asked after runs to its end
