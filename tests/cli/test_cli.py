"""The command line (DESIGN.md section 4): help, show, deal, simulate, and the error contract:
every failure is ONE line on stderr starting with "nimmt: error:", exit status 2, no traceback."""
from __future__ import annotations

import json

import pytest

from nimmt import cli
from nimmt.solver.positions.position import format_position, parse_position

from cli_checks import assert_ok, assert_one_line_error, invoke

BASE = "players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 gone=1,2,4,5,6,8,9,10,11"

SHOW_CASES = {
    "tactical-2": BASE,
    "tactical-3-professional":
        "variant=tactical players=3 placement=professional rows=6,13,19,20,28/7,27,29,30,32/"
        "4,5,18,22,26/11 hand=8,9,23,34 gone=3,10,12,15,16,17 scores=0,5,61",
    "logic-3":
        "variant=logic players=3 rows=3,5,24,29/4,12,16,17,22/30,31/1,9,10,20 "
        "hand=6,11,13,23,25 p2=2,15,21,27,32 p3=8,18,19,26,33 gone=7,14,28,34",
    "standard-4":
        "variant=standard players=4 placement=professional rows=1,19,39,42/16,18,24,50,65/"
        "97,99,101/35,44,56,98 hand=17,23,38,46,75,88,92",
}


@pytest.mark.parametrize("name", sorted(cli.cli.commands))
def test_every_command_has_help_with_an_example(runner, name):
    result = invoke(runner, name, "--help")
    assert_ok(result)
    assert "Example" in result.stdout
    command = cli.cli.commands[name].name  # an alias (analyze) shows its command's examples
    assert f"nimmt {command}" in result.stdout  # the example is a command line for this command


def test_unknown_command_is_one_line(runner):
    assert_one_line_error(invoke(runner, "frobnicate"))


def test_unknown_option_is_one_line(runner):
    assert_one_line_error(invoke(runner, "deal", "--players", "2", "--colour", "red"))


def test_missing_position_is_one_line(runner):
    assert_one_line_error(invoke(runner, "show"))


# ---------------------------------------------------------------- show

@pytest.mark.parametrize("text", SHOW_CASES.values(), ids=SHOW_CASES.keys())
def test_show(runner, text):
    result = invoke(runner, "show", text)
    assert_ok(result)
    out = result.stdout
    position = parse_position(text)
    assert position.variant in out and f"{position.players} players" in out
    assert f"{position.placement} placement" in out
    for i, row in enumerate(position.rows, 1):
        assert f"row {i}" in out and " ".join(map(str, row)) in out
    assert "hand (you): " + " ".join(map(str, position.hand)) in out
    for i, hand in enumerate(position.hands[1:], 2):
        assert f"p{i}: " + ("hidden" if hand is None else " ".join(map(str, hand))) in out
    assert "gone: " in out


def test_show_details(runner):
    out = invoke(runner, "show", BASE).stdout
    assert "p2: 15 17 24" in out  # derived
    assert "unknown pool" not in out
    assert "turn 8 of 10, 3 cards left each" in out
    out = invoke(runner, "show", SHOW_CASES["tactical-3-professional"]).stdout
    assert "unknown pool: 8 cards 1 2 14 21 24 25 31 33" in out
    assert "scores before this round: p1=0, p2=5, p3=61" in out
    out = invoke(runner, "show", SHOW_CASES["standard-4"]).stdout
    assert "unknown pool: 81 cards (not listed for the standard deck)" in out
    assert "gone: none" in out


def test_show_json_file(runner, tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps({"players": 2, "rows": [[3, 7, 12], [14, 16], [19, 20, 21], [23]],
                                "hand": [13, 18, 22], "gone": [1, 2, 4, 5, 6, 8, 9, 10, 11]}))
    result = invoke(runner, "show", str(path))
    assert_ok(result)
    assert result.stdout == invoke(runner, "show", BASE).stdout


# ---------------------------------------------------------------- deal

DEALS = [
    ("tactical", 2, 10, "normal"),
    ("tactical", 3, 4, "professional"),
    ("tactical", 10, 1, "normal"),
    ("logic", 2, 10, "professional"),
    ("logic", 4, 5, "normal"),
    ("logic", 10, 7, "normal"),
    ("standard", 2, 3, "normal"),
    ("standard", 5, 10, "professional"),
    ("standard", 10, 6, "normal"),
]


@pytest.mark.parametrize("variant,players,cards_left,placement", DEALS)
def test_deal_output_feeds_show(runner, variant, players, cards_left, placement):
    result = invoke(runner, "deal", "--variant", variant, "--players", str(players),
                    "--cards-left", str(cards_left), "--placement", placement, "--seed", "11")
    assert_ok(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    text = lines[0]
    position = parse_position(text)
    assert (position.variant, position.players, position.placement, position.cards_left) == \
        (variant, players, placement, cards_left)
    assert format_position(position) == text  # deal prints the canonical form
    shown = invoke(runner, "show", text)
    assert_ok(shown)
    assert "hand (you): " + " ".join(map(str, position.hand)) in shown.stdout


def test_deal_defaults(runner):
    result = invoke(runner, "deal", "-n", "3", "--seed", "5")
    assert_ok(result)
    position = parse_position(result.stdout.strip())
    assert position.variant == "tactical" and position.cards_left == 10
    assert position.placement == "normal"


def test_deal_same_seed_same_position(runner):
    args = ("deal", "--variant", "tactical", "--players", "4", "--cards-left", "6")
    first = invoke(runner, *args, "--seed", "42").stdout
    assert first == invoke(runner, *args, "--seed", "42").stdout
    others = {invoke(runner, *args, "--seed", str(s)).stdout for s in (1, 2, 3)}
    assert first not in others and len(others) == 3


def test_deal_without_seed_works(runner):
    result = invoke(runner, "deal", "--players", "2")
    # the seed drawn is reported on stderr (stdout stays the position alone)
    assert result.exit_code == 0 and result.stderr.startswith("nimmt: seed "), result.stderr
    assert len(result.stderr.splitlines()) == 1
    parse_position(result.stdout.strip())


@pytest.mark.parametrize("args", [
    ("deal",),                                            # --players missing
    ("deal", "--players", "1"),
    ("deal", "--players", "11"),
    ("deal", "--players", "x"),
    ("deal", "--players", "2", "--variant", "classic"),
    ("deal", "--players", "2", "--placement", "left"),
    ("deal", "--players", "2", "--cards-left", "0"),
    ("deal", "--players", "2", "--cards-left", "11"),
    ("deal", "--players", "2", "--seed", "-1"),
])
def test_deal_bad_options(runner, args):
    assert_one_line_error(invoke(runner, *args))


# ---------------------------------------------------------------- simulate

def simulate_json(runner, *args):
    result = invoke(runner, "simulate", "--format", "json", *args)
    assert_ok(result)
    return json.loads(result.stdout)


def _check_seats(data, players):
    assert data["players"] == players
    assert len(data["seats"]) == players
    assert [s["seat"] for s in data["seats"]] == list(range(1, players + 1))
    rates = [s["win_rate"]["mean"] for s in data["seats"]]
    assert all(0 <= r <= 1 for r in rates)
    assert sum(rates) == pytest.approx(1.0, abs=1e-9)
    for seat in data["seats"]:
        for key in ("cows_per_round", "final_total", "win_rate"):
            low, high = seat[key]["ci95"]
            assert low <= seat[key]["mean"] <= high


@pytest.mark.parametrize("variant,players,placement", [
    ("tactical", 2, "normal"), ("logic", 3, "professional"), ("standard", 5, "normal")])
def test_simulate_json_one_round(runner, variant, players, placement):
    data = simulate_json(runner, "--variant", variant, "--players", str(players),
                         "--placement", placement, "--games", "300", "--one-round", "--seed", "3")
    _check_seats(data, players)
    assert data["one_round"] is True and data["mean_rounds"] == 1.0
    assert data["games"] == data["games_asked"] == 300
    assert (data["variant"], data["placement"]) == (variant, placement)
    for seat in data["seats"]:  # one round: cows per round is the final total
        assert seat["cows_per_round"]["mean"] == pytest.approx(seat["final_total"]["mean"])


@pytest.mark.parametrize("variant,players", [("tactical", 4), ("standard", 3)])
def test_simulate_json_full_games(runner, variant, players):
    data = simulate_json(runner, "--variant", variant, "--players", str(players),
                         "--bots", "random",
                         "--games", "200", "--seed", "9")
    _check_seats(data, players)
    assert data["one_round"] is False and data["threshold"] == 66
    assert data["mean_rounds"] >= 1
    # the loser of every game reached 66, so the mean of the highest seat is well above 0
    assert max(s["final_total"]["mean"] for s in data["seats"]) > 30


def test_simulate_json_mixed_bots_and_threshold(runner):
    data = simulate_json(runner, "--players", "4", "--bots", "closest,random,lowkeeper,dumper",
                         "--threshold", "20", "--games", "200", "--seed", "1")
    _check_seats(data, 4)
    assert [s["bot"] for s in data["seats"]] == ["closest", "random", "lowkeeper", "dumper"]
    assert data["threshold"] == 20


def test_simulate_same_seed_same_numbers(runner):
    args = ("--players", "3", "--bots", "closest,random,dumper", "--games", "300", "--seed", "17")
    a, b = simulate_json(runner, *args), simulate_json(runner, *args)
    for volatile in ("seconds", "games_per_second"):
        a.pop(volatile), b.pop(volatile)
    assert a == b
    c = simulate_json(runner, "--players", "3", "--bots", "closest,random,dumper", "--games",
                      "300", "--seed", "18")
    assert c["seats"] != a["seats"]


def test_simulate_one_bot_fills_every_seat(runner):
    data = simulate_json(runner, "--players", "5", "--bots", "lowkeeper", "--games", "50",
                         "--one-round", "--seed", "2")
    assert [s["bot"] for s in data["seats"]] == ["lowkeeper"] * 5


def test_simulate_table(runner):
    result = invoke(runner, "simulate", "--players", "3", "--games", "200", "--seed", "4",
                    "--bots", "random,closest,dumper")
    assert_ok(result)
    out = result.stdout
    assert out.startswith("200 games (tactical, 3 players, normal, to 66), seed 4")
    assert "win rate" in out and "cows/round" in out and "final total" in out
    for bot in ("random", "closest", "dumper"):
        assert bot in out
    assert "games per second" in out
    one = invoke(runner, "simulate", "--players", "2", "--games", "100", "--seed", "4",
                 "--one-round", "--format", "table")
    assert_ok(one)
    assert "one round" in one.stdout and "1.00 rounds a game" in one.stdout


@pytest.mark.parametrize("args", [
    ("--players", "3", "--bots", "random,closest"),           # too few bots
    ("--players", "2", "--bots", "random,closest,dumper"),    # too many bots
    ("--players", "2", "--bots", ","),                        # no bot at all
    ("--players", "2", "--bots", "genius"),                   # unknown bot
    ("--players", "2", "--bots", "random,genius"),
    ("--players", "2", "--games", "0"),
    ("--players", "2", "--games", "-5"),
    ("--players", "2", "--games", "many"),
    ("--players", "2", "--threshold", "0"),
    ("--players", "2", "--threshold", "x"),
    ("--players", "2", "--format", "xml"),
    ("--games", "10",),                                       # --players missing
])
def test_simulate_bad_input(runner, args):
    assert_one_line_error(invoke(runner, "simulate", *args, "--seed", "1"))


# ---------------------------------------------------------------- malformed positions

ROWS = "rows=3,7,12/14,16/19,20,21/23"
GONE = "gone=1,2,4,5,6,8,9,10,11"
MALFORMED = [
    BASE + " colour=red",                                          # unknown key
    BASE + " oops",                                                # token without '='
    BASE + " players=2",                                           # duplicate key
    BASE + ",13",                                                  # duplicate card
    f"players=2 {ROWS} hand=13,18,25 {GONE}",                      # outside the deck
    f"players=2 rows=3,7,12/14,16/19,20,21,23 hand=13,18,22 {GONE}",  # 3 rows
    f"players=2 rows=3,7,12/14,16/19,20/21/23 hand=13,18,22 {GONE}",  # 5 rows
    f"players=2 rows=3,7,12//19,20,21/23 hand=13,18,22 {GONE}",    # empty row
    "players=2 rows=1,2,3,4,5,6/10/15/20 hand=7,21 p2=8,22 gone=9,11,12,13,14,16,17,18,19,23,24",
    f"players=2 rows=3,12,7/14,16/19,20,21/23 hand=13,18,22 {GONE}",  # out of order
    BASE + " p2=15,17",                                            # hands of different sizes
    f"players=2 {ROWS} hand=13,18,22 gone=1,2,4,5,6,8,9,10",       # pool inconsistent
    "variant=standard players=10 rows=1/2/3/4 hand=5,6,7,8,9,10,11,12,13,14 "
    "gone=21,22,23,24,25,26,27,28,29,30",                          # too few unseen
    f"players=1 {ROWS} hand=13,18,22 {GONE}",
    f"players=11 {ROWS} hand=13,18,22 {GONE}",
    f"players=2 {ROWS} hand=13,x,22 {GONE}",                       # non-numeric
    f"players=2 hand=13,18,22 {GONE}",                             # missing rows
    f"players=2 {ROWS} {GONE}",                                    # missing hand
    f"{ROWS} hand=13,18,22",                                       # missing players
    "variant=tactical players=3 rows=6,13,19,20,28/7,27,29,30,32/4,5,18,22,26/11 "
    "hand=8,9,23,34 p5=1,2,14,21 gone=3,10,12,15,16,17",           # p5 with 3 players
    "variant=logic players=3 rows=3,5,24,29/4,12,16,17,22/30,31/1,9,10,20 "
    "hand=6,11,13,23,25 gone=7,14,28,34",                          # logic, hidden hands
    BASE + " scores=-1,0",
    BASE + " scores=1,2,3",
    "variant=classic " + BASE,
    "placement=left " + BASE,
    "",                                                            # empty
    "hello",                                                       # not a position at all
]


def test_enough_malformed_positions():
    assert len(MALFORMED) >= 15


@pytest.mark.parametrize("text", MALFORMED)
def test_show_malformed_position_is_one_line(runner, text):
    assert_one_line_error(invoke(runner, "show", text))


def test_show_nonexistent_json_file(runner, tmp_path):
    result = invoke(runner, "show", str(tmp_path / "missing.json"))
    assert_one_line_error(result)
    assert "missing.json" in result.stderr


def test_show_bad_json_file(runner, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"players": 2, "rows": [[3], [20], [41], [50]], "hand": [1], "scores": 7}')
    assert_one_line_error(invoke(runner, "show", str(path)))
    path.write_text("{not json")
    assert_one_line_error(invoke(runner, "show", str(path)))
    path.write_text("[1, 2]")
    assert_one_line_error(invoke(runner, "show", str(path)))
