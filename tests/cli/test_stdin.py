"""A POSITION of ``-`` is read from standard input: the notation, its JSON or an example's
name, with a position file's size limit and messages; the engine refuses it (its standard
input carries the requests)."""
from __future__ import annotations

import io
import json
import sys

import pytest

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.faces.protocol import INVALID_PARAMS, Engine
from nimmt.solver.positions.position import (
    EXAMPLES,
    POSITION_FILE_LIMIT,
    load_position,
    parse_position,
)

from cli_checks import assert_ok, assert_one_line_error, invoke

NOTATION = EXAMPLES["example"]
FIELDS = {"players": 2, "rows": [[3, 6], [5, 10], [8, 11, 21], [16, 19, 23]],
          "hand": [4, 14, 15, 18, 20], "p2": [2, 13, 17, 22, 24], "gone": [1, 7, 9, 12]}


def _same_analysis(a: str, b: str) -> None:
    x, y = json.loads(a), json.loads(b)
    for data in (x, y):
        data.pop("seconds", None)
    assert x == y


@pytest.mark.parametrize("text", [NOTATION, NOTATION.replace(" hand", "\n  hand") + "\n",
                                  json.dumps(FIELDS), "example\n", "\ufeff" + NOTATION])
def test_analyse_reads_the_position_from_standard_input(runner, text):
    piped = invoke(runner, "analyse", "-", "--format", "json", input=text)
    assert_ok(piped)
    given = invoke(runner, "analyse", NOTATION, "--format", "json")
    _same_analysis(piped.stdout, given.stdout)


def test_show_and_tree_read_standard_input(runner):
    shown = invoke(runner, "show", "-", input=json.dumps(FIELDS))
    assert_ok(shown)
    assert shown.stdout == invoke(runner, "show", "example").stdout
    tree = invoke(runner, "tree", "-", "--format", "text", "--depth", "1", input=NOTATION)
    assert_ok(tree)
    assert tree.stdout == invoke(runner, "tree", "example", "--format", "text",
                                 "--depth", "1").stdout


def test_show_reads_a_draft_position_from_standard_input(runner):
    shown = invoke(runner, "show", "-", input="example-draft-start")
    assert_ok(shown)
    assert "draft" in shown.stdout


@pytest.mark.parametrize("command", ["show", "analyse", "tree"])
@pytest.mark.parametrize("text,message", [
    ("", "standard input is empty"),
    ("   \n", "standard input is empty"),
    ("x" * (POSITION_FILE_LIMIT + 1), "more than the 1 MiB"),
    ('{"players": 2, "players": 3}', 'key "players" appears twice'),
    ('{"players": 2,', "not valid JSON"),
    ("[1, 2]", "must hold a JSON object"),
    ("players=2 rows=3/20/41/50 hand=1", "41"),  # the position's own problem
])
def test_bad_standard_input_is_one_line(runner, command, text, message):
    line = assert_one_line_error(invoke(runner, command, "-", input=text))
    assert message in line


def test_not_utf8_on_standard_input(runner):
    line = assert_one_line_error(invoke(runner, "show", "-", input=b"players=2 \xff"))
    assert "not UTF-8" in line and "standard input" in line


def test_closed_standard_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(NimmtError, match="standard input: it is closed"):
        load_position("-")


def test_read_once_a_stream(monkeypatch):
    """A command may read the argument twice (a bad position is checked for a draft one):
    the second read gets the same text, not an empty stream."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(NOTATION.encode())))
    assert load_position("-") == load_position("-") == parse_position(NOTATION)


def test_engine_refuses_a_position_on_its_own_standard_input():
    out = io.StringIO()
    engine = Engine(out)
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "analyse",
                       "params": {"position": "-"}})
    engine.serve(io.BytesIO(line.encode() + b"\n"))
    reply = json.loads(out.getvalue().splitlines()[-1])
    assert reply["error"]["code"] == INVALID_PARAMS
    assert "request stream" in reply["error"]["message"]
