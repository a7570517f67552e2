"""Hostile input: a strict position parser, options that do not go together,
solve-deal on positions nash cannot solve, seeds reported, the quiz (refutation of your
card, turn numbers, Ctrl-C), --help hints, plurals, the compile notice.

Every bad input gets ONE line on stderr starting with "nimmt: error:" and exit status 2;
an interrupt exits with status 130 after "nimmt: interrupted"."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import click
import pytest

from nimmt import cli
from nimmt.puzzles.files import load_set
from nimmt.puzzles.records import Puzzle
from nimmt.solver.base import notice
from nimmt.solver.base.rules import NimmtError, plural
from nimmt.solver.faces.options import physical_memory
from nimmt.solver.positions.position import EXAMPLES, parse_position

from cli_checks import assert_ok, assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

ROOT = Path(__file__).resolve().parents[2]
ROWS = "rows=3,6/5,10/8,11,21/16,19,23"
GONE = "gone=1,7,9,12"
BASE = f"players=2 {ROWS} hand=4,14,15,18,20 {GONE}"  # example, p2 derived


# ---------------------------------------------------------------- the position parser

BAD_POSITIONS = [
    # (name, text, what the one line must say)
    ("underscore in a card", f"players=2 {ROWS} hand=4_0,14,15,18,20 {GONE}", "hand='4_0"),
    ("full-width digit", f"players=2 {ROWS} hand=\uff14,14,15,18,20 {GONE}", "digits 0-9"),
    ("Arabic-Indic digit", f"players=2 {ROWS} hand=\u0664,14,15,18,20 {GONE}", "digits 0-9"),
    ("plus sign", f"players=2 {ROWS} hand=+4,14,15,18,20 {GONE}", "hand='+4"),
    ("a no-break space in a list", f"players=2 {ROWS} hand=4,\u00a014,15,18,20 {GONE}",
     "a space splits tokens"),
    ("underscore in players", f"players=2_0 {ROWS} hand=4,14,15,18,20 {GONE}",
     "players='2_0' is not a whole number"),
    ("plus in players", f"players=+2 {ROWS} hand=4,14,15,18,20 {GONE}", "players='+2'"),
    ("full-width players", f"players=\uff12 {ROWS} hand=4,14,15,18,20 {GONE}", "digits 0-9"),
    ("underscore in a score", BASE + " scores=1_0,0", "scores='1_0,0'"),
    ("a space after a comma in rows", f"players=2 rows=3, 6/5,10/8,11,21/16,19,23 hand=4,14,15,"
     f"18,20 {GONE}", "a space splits tokens; write rows without spaces, e.g. rows=3,6/5,10/"),
    ("a space before a slash in rows", f"players=2 rows=3,6 /5,10/8,11,21/16,19,23 hand=4,14,15,"
     f"18,20 {GONE}", "write rows without spaces, e.g. rows=3,6/5,10/8"),
    ("a space in hand", f"players=2 {ROWS} hand=4, 14,15,18,20 {GONE}",
     "write hand without spaces, e.g. hand=4,14,15,18,20"),
    ("a trailing comma before a space", f"players=2 {ROWS} hand=4,14,15,18,20, {GONE}",
     "one comma between two cards"),
    ("standard, turn 10 and nothing gone", "variant=standard players=4 rows=1/2/3/4 hand=5",
     r"rows and gone hold 4 cards, but at turn 10 of 10 .* make 40.*list every taken card"),
    ("standard, turn 5 and too little gone",
     "variant=standard players=2 rows=1,5/2/3/4 hand=50,51,52,53,54,55 gone=60",
     r"hold 6 cards, but at turn 5 of 10 .* make 12"),
    ("standard, more on the table than played",
     "variant=standard players=2 rows=1,5/2/3/4 hand=50,51,52,53,54,55,56,57,58,59",
     "at most 4 can have been played"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in BAD_POSITIONS],
                         ids=[n for n, _, _ in BAD_POSITIONS])
def test_bad_positions(runner, text, message):
    line = assert_one_line_error(invoke(runner, "show", text))
    assert re.search(message, line) or message in line, line


def test_int_would_accept_them():
    """The cases above are not moot: Python's int() takes each of them."""
    assert [int(t) for t in ("4_0", "\uff14", "\u0664", "+4", "\uff12")] == [40, 4, 4, 4, 2]


@pytest.mark.parametrize("text", [
    "x" * 10_000,                                             # not key=value
    BASE + " colour=" + "red" * 3000,                         # unknown value of a known shape
    BASE.replace("hand=4", "hand=" + "4" * 10_000),           # a card of 10,000 digits
    "variant=" + "q" * 10_000 + " " + BASE,                   # unknown variant
    "placement=" + "q" * 10_000 + " " + BASE,
    BASE + " " + "k" * 10_000 + "=1",                         # unknown key
    f"players=2 {ROWS} hand=4,14,15,18,20 gone=" + "1," * 5_000,
])
def test_a_huge_argument_is_not_echoed_whole(runner, text):
    line = assert_one_line_error(invoke(runner, "show", text))
    assert len(line) < 300, line[:400]


def test_valid_positions_still_parse():
    assert parse_position("players=2 rows=03,6/5,10/8,11,21/16,19,23 hand=4,14,15,18,20 "
                          "gone=1,7,9,12") == parse_position(BASE)  # leading zeros are digits
    for text in EXAMPLES.values():
        parse_position(text)


def _json_file(tmp_path, **changes) -> str:
    data = {"players": 2, "rows": [[3, 6], [5, 10], [8, 11, 21], [16, 19, 23]],
            "hand": [4, 14, 15, 18, 20], "gone": [1, 7, 9, 12]}
    data.update(changes)
    path = tmp_path / "position.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


BAD_JSON = [
    ("players 2.5", {"players": 2.5}, "players=2.5 is not a whole number"),
    ("players 2.0", {"players": 2.0}, "players=2.0 is not a whole number"),
    ("players true", {"players": True}, "players=true is not a whole number"),
    ("players null", {"players": None}, "players=null is not a whole number"),
    ("players '2_0'", {"players": "2_0"}, "players='2_0' is not a whole number"),
    ("a card true", {"hand": [True, 14, 15, 18, 20]}, "hand must be a list of card numbers"),
    ("a card 4.0", {"hand": [4.0, 14, 15, 18, 20]}, "hand must be a list of card numbers"),
    ("a row card true", {"rows": [[3, 6], [5, 10], [8, 11, 21], [16, 19, True]]},
     "rows must be 4 lists of card numbers"),
    ("a row card 23.5", {"rows": [[3, 6], [5, 10], [8, 11, 21], [16, 19, 23.5]]},
     "rows must be 4 lists of card numbers"),
    ("gone an object", {"gone": {"1": 1}}, "gone must be a list of card numbers"),
    ("hand a number", {"hand": 4}, "hand must be a list of card numbers"),
    ("hand a string '4_0,...'", {"hand": "4_0,14,15,18,20"}, "hand='4_0"),
    ("variant a number", {"variant": 1}, "variant must be a name"),
    ("placement a list", {"placement": ["normal"]}, "placement must be a name"),
    ("scores true", {"scores": [True, 0]}, "scores must be whole numbers"),
    ("scores 1.5", {"scores": [1.5, 0]}, "scores must be whole numbers"),
]


@pytest.mark.parametrize("changes,message", [(c, m) for _, c, m in BAD_JSON],
                         ids=[n for n, _, _ in BAD_JSON])
def test_bad_json_values(runner, tmp_path, changes, message):
    line = assert_one_line_error(invoke(runner, "show", _json_file(tmp_path, **changes)))
    assert message in line, line


def test_json_with_good_values_still_loads(runner, tmp_path):
    assert_ok(invoke(runner, "show", _json_file(tmp_path)))
    assert_ok(invoke(runner, "show", _json_file(tmp_path, players="2", hand="4,14,15,18,20")))


# ---------------------------------------------------------------- options

BAD_OPTIONS = [
    (("analyse", "example", "--opponents", "nash", "--method", "montecarlo"),
     "--method montecarlo does not apply to --opponents nash"),
    (("analyse", "example", "--both-sides"), "--both-sides applies only to --opponents nash"),
    (("analyse", "example", "--verify"), "--verify applies only to --opponents nash"),
    (("analyse", "example", "--opponents", "worst", "--verify", "--both-sides"),
     "--both-sides and --verify apply only to --opponents nash"),
    (("analyse", "example", "--time-limit", "nan"), "'nan' is not a finite number"),
    (("analyse", "example", "--time-limit", "inf"), "'inf' is not a finite number"),
    (("analyse", "example", "--time-limit", "-inf"), "--time-limit"),
    (("analyse", "example", "--opponents", "nash", "--memory", "1"), "'1' has no unit"),
    (("analyse", "example", "--opponents", "nash", "--memory", "512"), "has no unit"),
    (("solve-deal", "--memory", "4"), "'4' has no unit"),
    (("tree", "example", "--format", "text", "--min-probability", "nan"),
     "'nan' is not a finite number"),
    (("analyse", "example", "--opponents", "x" * 10_000), "unknown opponents"),
    (("analyse", "example", "y" * 10_000), "unexpected extra argument"),
    (("deal", "--players", "9" * 10_000), "is not a whole number"),
]


@pytest.mark.parametrize("args,message", BAD_OPTIONS,
                         ids=[" ".join(a)[:60] for a, _ in BAD_OPTIONS])
def test_options_that_do_not_go(runner, args, message):
    line = assert_one_line_error(invoke(runner, *args))
    assert message in line, line
    assert len(line) < 300
    assert f"(see: nimmt {args[0]} --help)" in line


@pytest.mark.parametrize("margin", ["nan", "inf", "-inf", "-1", "-0.5"])
def test_min_margin_must_be_finite_and_not_negative(runner, tmp_path, margin):
    out = tmp_path / "set.json"
    line = assert_one_line_error(invoke(runner, "puzzles", "generate", "--players", "2",
                                        "--count", "1", "--min-margin", margin, "--output", out))
    assert "--min-margin" in line
    assert not out.exists()


def test_memory_above_the_machines_ram(runner):
    ram = physical_memory()
    if not ram or ram >= 2**40:
        pytest.skip("the machine does not say its RAM, or has a terabyte")
    line = assert_one_line_error(invoke(runner, "analyse", "example", "--opponents", "nash",
                                        "--memory", "1T"))
    assert f"more than this machine's memory ({ram / 2**30:.1f} GiB)" in line, line
    assert f"give at most {ram // 2**30}G" in line


def test_memory_sizes_with_units():
    size = cli.SizeType()
    assert size.convert("4G", None, None) == 4 * 2**30
    assert size.convert("512M", None, None) == 512 * 2**20
    assert size.convert("1.5GiB", None, None) == int(1.5 * 2**30)
    assert size.convert("2048k", None, None) == 2 * 2**20
    with pytest.raises(click.BadParameter, match="no unit"):
        size.convert("1", None, None)


def test_the_memory_default_fits_the_machine():
    """The default 8G is lowered to the RAM of a smaller machine instead of refused."""
    command = cli.analyse
    ctx = click.Context(command)
    param = next(p for p in command.params if p.name == "memory")
    from click.core import ParameterSource

    ctx.set_parameter_source("memory", ParameterSource.DEFAULT)
    ram = physical_memory()
    value = param.type.convert("8T", param, ctx)
    assert value == (ram or 8 * 2**40)


# ---------------------------------------------------------------- solve-deal

DEAL_3P = "variant=tactical players=3 rows=34/29/27/31 hand=4,9,10,11,12,19,20,25,28,32"


@pytest.mark.parametrize("position,message", [
    ("example-standard", "this position has 4 players, 3 hands hidden"),
    (DEAL_3P, "this position has 3 players, 2 hands hidden"),  # nimmt deal --players 3 --seed 2
    ("example-3p", "this position has 3 players"),
    ("variant=standard players=2 rows=1/2/3/4 hand=5,6,7,8,9,10,11,12,13,14",
     "this position has 2 players, 1 hand hidden"),
])
def test_solve_deal_refuses_what_nash_cannot_solve(runner, position, message):
    line = assert_one_line_error(invoke(runner, "solve-deal", position))
    assert "solve-deal needs 2 players with both hands known" in line
    assert message in line, line
    assert "nimmt analyse" in line


# ---------------------------------------------------------------- seeds

def test_deal_reports_the_seed_it_drew(runner):
    first = invoke(runner, "deal", "--players", "3", "--cards-left", "7")
    assert first.exit_code == 0, first.output
    match = re.fullmatch(r"nimmt: seed (\d+) \(give --seed \1 to deal this again\)\n",
                         first.stderr)
    assert match, first.stderr
    again = invoke(runner, "deal", "--players", "3", "--cards-left", "7", "--seed", match[1])
    assert_ok(again)
    assert again.stdout == first.stdout


def _order(stdout: str) -> list[str]:
    return re.findall(r"^puzzle (\S+) ", stdout, re.M)


def test_quiz_shuffle_reports_the_seed(runner):
    first = invoke(runner, "puzzles", "quiz", "two-player-endgames", "--shuffle", input="")
    assert_ok(first)
    match = re.match(r"shuffled with seed (\d+) \(give --shuffle --seed \1 to repeat the order\)",
                     first.stdout)
    assert match, first.stdout[:200]
    again = invoke(runner, "puzzles", "quiz", "two-player-endgames", "--shuffle", "--seed",
                   match[1], input="")
    assert_ok(again)
    assert again.stdout == first.stdout  # the same first puzzle, the same line
    seeded = [invoke(runner, "puzzles", "quiz", "two-player-endgames", "--shuffle", "--seed",
                     s, input="\n" * 0).stdout for s in ("1", "2")]
    assert seeded[0].splitlines()[0] != seeded[1].splitlines()[0]


# ---------------------------------------------------------------- the quiz

def _first_puzzle() -> Puzzle:
    return load_set("two-player-endgames").puzzles[0]


def test_a_wrong_answer_shows_the_refutation_of_your_card(runner):
    puzzle = _first_puzzle()
    tempting = puzzle.tempting
    mine = next(c for c in map(int, puzzle.values) if c not in (puzzle.solution, tempting))
    result = invoke(runner, "puzzles", "quiz", "two-player-endgames", "--count", "1",
                    input=f"{mine}\n")
    assert_ok(result)
    line = next(x for x in result.stdout.splitlines() if x.startswith("refutation of"))
    first_turn = 11 - len(puzzle.values)  # the board says "turn 6 of 10" at k = 5
    assert f"turn {first_turn} of 10" in result.stdout
    assert line.startswith(f"refutation of your {mine}: turn {first_turn}: you {mine}, "), line
    assert f"you {tempting}, " not in line.split(";")[0]


def test_the_tempting_cards_line_is_numbered_as_in_the_round(runner):
    puzzle = _first_puzzle()
    result = invoke(runner, "puzzles", "show", "two-player-endgames", "1", "--solution")
    assert_ok(result)
    first_turn = 11 - len(puzzle.values)
    line = next(x for x in result.stdout.splitlines() if x.startswith("refutation of"))
    turns = [int(t) for t in re.findall(r"turn (\d+):", line)]
    assert turns == list(range(first_turn, first_turn + len(turns))), line
    assert turns[-1] <= 10


def test_explanations_name_the_round_turn():
    for name in ("two-player-endgames", "professional", "three-player-tactical",
                 "two-player-equilibrium"):
        for puzzle in load_set(name).puzzles:
            k = len(puzzle.values)
            match = re.search(r"on turn (\d+)\.$", puzzle.explanation)
            if match:
                assert int(match[1]) == 10 - k + puzzle.refutation_depth, puzzle.id
            assert "take 1 cows" not in puzzle.explanation


def test_no_empty_column_header(runner):
    shown = invoke(runner, "puzzles", "show", "two-player-endgames", "1", "--solution")
    assert_ok(shown)
    lines = shown.stdout.splitlines()
    for i, text in enumerate(lines[1:], 1):  # a header is the line above a rule of dashes
        if text and set(text.replace(" ", "")) == {"-"}:
            rules = [m.span() for m in re.finditer(r"-+", text)]
            header = lines[i - 1].ljust(len(text))
            assert all(header[a:b].strip() for a, b in rules), lines[i - 1]
    assert re.search(r"^row\s+cards\s+cows", shown.stdout, re.M)
    assert re.search(r"^\s*card\s+guaranteed cows\s+regret\s+note$", shown.stdout, re.M)


def test_quiz_ctrl_c_exits_130(runner, monkeypatch):
    def interrupt(prompt=""):
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupt)
    result = invoke(runner, "puzzles", "quiz", "two-player-endgames")
    assert result.exit_code == 130, (result.output, result.exception)
    assert result.stderr == "nimmt: interrupted\n"
    assert result.stdout.rstrip().endswith("final score: 0/0")


def test_quiz_sigint_in_a_subprocess_exits_130():
    proc = subprocess.Popen([sys.executable, "-c", "from nimmt import cli; cli.main()",
                             "puzzles", "quiz",
                             "two-player-endgames"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    seen = b""
    while b"your card (" not in seen:  # the board is drawn and the prompt is waiting
        chunk = proc.stdout.read1(4096)
        assert chunk, (seen, proc.stderr.read())
        seen += chunk
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert err.decode() == "nimmt: interrupted\n"
    assert (seen + out).decode().rstrip().endswith("final score: 0/0")


def test_quiz_refuses_other_digits(runner):
    puzzle = _first_puzzle()
    card = puzzle.solution
    wide = "".join(chr(0xFF10 + int(d)) for d in str(card))  # full-width digits
    result = invoke(runner, "puzzles", "quiz", "two-player-endgames", "--count", "1",
                    input=f"{wide}\n{card}\n")
    assert_ok(result)
    assert f"{wide!r} is not in your hand" in result.stdout
    assert "final score: 1/1" in result.stdout


# ---------------------------------------------------------------- hints, plurals, notice

@pytest.mark.parametrize("args,command", [
    (("puzzles", "show"), "nimmt puzzles show"),
    (("puzzles", "quiz", "two-player-endgames", "--count", "0"), "nimmt puzzles quiz"),
    (("puzzles", "generate", "--count", "3", "--output", "x.json"), "nimmt puzzles generate"),
    (("puzzles", "nosuch"), "nimmt puzzles"),
    (("show",), "nimmt show"),
    (("nosuch",), "nimmt"),
])
def test_usage_hints_name_the_full_command(runner, args, command):
    line = assert_one_line_error(invoke(runner, *args))
    assert line.endswith(f"(see: {command} --help)"), line


def test_plural():
    assert plural(1, "cow") == "1 cow" and plural(0, "cow") == "0 cows"
    assert plural(12_345, "game") == "12,345 games"
    assert plural(1, "puzzle") == "1 puzzle"


def test_show_says_one_cow(runner):
    text = ("players=2 rows=3,4/10/15/20 hand=2,5,6,7,8,9,11,12,13 gone=1")
    result = invoke(runner, "show", text)
    assert_ok(result)
    assert "gone: 1 (1 cow)" in result.stdout


def test_simulate_says_one_game(runner):
    result = invoke(runner, "simulate", "--players", "2", "--games", "1", "--seed", "1")
    assert_ok(result)
    assert result.stdout.startswith("1 game (")


def test_the_compile_notice_fires_once(monkeypatch):
    from numba import njit

    import nimmt.solver.kernels.engine  # noqa: F401  (installs the listener)

    calls = []
    monkeypatch.setattr(notice, "on_compile", lambda: calls.append(1))
    monkeypatch.setitem(notice._state, "fired", False)
    assert njit(lambda x: x + 1)(1) == 2  # a compile: cache=False, never cached
    assert njit(lambda x: x * 3)(2) == 6
    assert calls == [1]


def test_the_compile_notice_is_one_line():
    assert "\n" not in cli.COMPILE_NOTICE and cli.COMPILE_NOTICE.startswith("nimmt: ")


def test_library_errors_stay_nimmt_errors():
    with pytest.raises(NimmtError, match="far too large"):
        parse_position(BASE.replace("hand=4", "hand=" + "9" * 50))
