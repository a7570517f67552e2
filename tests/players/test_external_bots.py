"""arena --bot-command: programs speaking the engine protocol play as bots: ``nimmt engine`` as
the external bot plays exactly as the bot in process; illegal moves, crashes and silence are
one line naming the bot, its seat and the position; the programs are started once per worker
and shut down at the end."""
from __future__ import annotations

import json
import shlex
import sys
import textwrap

import pytest
from click.testing import CliRunner

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.players.external import parse_arena_bots, parse_bot_commands

from cli_checks import assert_ok, assert_one_line_error, invoke

PYTHON = shlex.quote(sys.executable)
ENGINE = f"{PYTHON} -m nimmt.cli engine"

# A tiny external bot: plays the lowest card of its hand (or misbehaves, by MODE), logs
# every method it is asked to LOG.
SCRIPT = textwrap.dedent('''
    import json, sys, time
    mode, log = sys.argv[1], sys.argv[2]
    for line in sys.stdin:
        request = json.loads(line)
        with open(log, "a") as f:
            f.write(request["method"] + "\\n")
        if mode == "crash":
            print("dying", file=sys.stderr)
            sys.exit(3)
        if mode == "silent":
            time.sleep(60)
        if request["method"] == "shutdown":
            print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": None}),
                  flush=True)
            break
        params = request["params"]
        hand = [t for t in params["position"].split() if t.startswith("hand=")][0]
        cards = [int(c) for c in hand[5:].split(",")]
        if "turn" in params:
            result = {"option": -1, "decisions": params["decisions"] + 1}
        else:
            card = 99 if mode == "illegal" else min(cards)
            result = {"card": card, "decisions": params["decisions"] + 1}
        print(json.dumps({"jsonrpc": "2.0", "method": "progress", "params": {}}))
        print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}),
              flush=True)
''')


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "lowest.py"
    path.write_text(SCRIPT)

    def command(mode: str) -> tuple[str, str]:
        log = tmp_path / f"{mode}.log"
        return f"{PYTHON} {shlex.quote(str(path))} {mode} {shlex.quote(str(log))}", str(log)

    return command


def arena_json(*args) -> dict:
    result = invoke(CliRunner(), "arena", *args, "--format", "json")
    assert_ok(result)
    return json.loads(result.stdout)


def figures(report: dict) -> list:
    """What the games gave (names and timings aside)."""
    return [(b["cows_per_round"], b["win_rate"]) for b in report["bots"]] + [
        [[cell["mean"] for cell in row.values()] for row in report["pairwise"].values()]]


@pytest.mark.parametrize("bot,players,placement", [
    ("closest", 2, "normal"), ("mcs:playouts=30", 3, "professional")])
def test_nimmt_engine_as_an_external_bot_plays_as_the_bot_in_process(bot, players, placement):
    others = ["random", "lowkeeper"][:players - 1]
    common = ["--players", players, "--placement", placement, "--deals", 3, "--one-round",
              "--seed", 11]
    external = arena_json(*common, "--bots", ",".join(["ext", *others]), "--bot-command",
                          f"ext={ENGINE} --default-bot {bot}")
    inside = arena_json(*common, "--bots", ",".join([bot, *others]))
    assert external["bots"][0]["bot"] == "ext"
    assert figures(external) == figures(inside)


def test_a_whole_game_with_two_workers_gives_the_same_figures(script):
    command, log = script("lowest")
    common = ["--players", 2, "--deals", 4, "--threshold", 30, "--seed", 2, "--bots",
              "low,closest", "--bot-command", f"low={command}"]
    one = arena_json(*common)
    two = arena_json(*common, "--workers", 2)
    assert figures(one) == figures(two)
    with open(log) as f:
        asked = f.read().split()
    assert asked.count("shutdown") == 3  # one program per process (the run, two workers)
    assert set(asked) == {"bot", "shutdown"}


@pytest.mark.parametrize("mode,expected", [
    ("illegal", "played 99, which is not in its hand; position: "),
    ("crash", "failed: ExternalBotError: no reply: the program exited with status 3 (its "
              "last line on stderr: dying)"),
    ("silent", "failed: ExternalBotError: no reply within 0.5 s"),
])
def test_a_misbehaving_external_bot_is_one_line_with_the_position(script, mode, expected):
    command, _ = script(mode)
    result = invoke(CliRunner(), "arena", "--players", 2, "--bots", "random,ext", "--deals", 1,
                    "--one-round", "--seed", 1, "--bot-command", f"ext={command}",
                    "--bot-timeout", 0.5)
    line = assert_one_line_error(result)
    assert "bot ext (seat 2) " in line and expected in line, line
    assert "variant=tactical players=2 rows=" in line  # the position, in the notation


@pytest.mark.parametrize("items,message", [
    (["ext"], "takes NAME="),
    (["closest=nimmt engine"], "closest is a built-in bot"),
    (["ext="], "give the command to run"),
    (["ext=a", "ext=b"], "given twice"),
    (["ext='unclosed"], "cannot split the command"),
    (["9x=run"], "takes NAME="),
])
def test_bad_bot_commands_are_one_line(items, message):
    with pytest.raises(NimmtError, match=message):
        parse_bot_commands(items)
    args = [a for item in items for a in ("--bot-command", item)]
    result = invoke(CliRunner(), "arena", "--players", 2, "--bots", "random,random",
                    "--deals", 1, *args)
    line = assert_one_line_error(result)
    assert message in line and line.startswith("nimmt: error: --bot-command ")


def test_a_program_that_cannot_start_is_one_line():
    result = invoke(CliRunner(), "arena", "--players", 2, "--bots", "x,random", "--deals", 1,
                    "--bot-command", "x=/nonexistent/engine")
    line = assert_one_line_error(result)
    assert "bot x (seat 1) failed" in line and "cannot start" in line


def test_an_unknown_name_in_bots_still_names_the_valid_ones():
    specs = parse_arena_bots("ext,closest", parse_bot_commands(["ext=prog"]))
    assert [str(s) for s in specs] == ["ext", "closest"]
    with pytest.raises(NimmtError, match="unknown bot 'other'"):
        parse_arena_bots("other,closest", parse_bot_commands(["ext=prog"]))
