"""What a position may say: scores past the game's threshold are refused by every command
whatever the objective, and a JSON object naming a key twice is refused (the notation
refuses a repeated key), in position files and in the engine's requests."""
from __future__ import annotations

import io
import json

import pytest

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.faces.protocol import PARSE_ERROR, Engine
from nimmt.solver.positions.position import (
    Position,
    load_position,
    parse_position,
    position_from_mapping,
)

from cli_checks import assert_ok, assert_one_line_error, invoke

BASE = "players=2 rows=3,6/5,10/8,11,21/16,19,23 hand=4,14,15,18,20 gone=1,7,9,12"
FIELDS = {"players": 2, "rows": [[3, 6], [5, 10], [8, 11, 21], [16, 19, 23]],
          "hand": [4, 14, 15, 18, 20], "gone": [1, 7, 9, 12]}


@pytest.mark.parametrize("command", [["analyse"], ["analyse", "--objective", "cows"],
                                     ["analyse", "--objective", "margin"],
                                     ["analyse", "--objective", "win"], ["show"]])
def test_scores_past_the_default_threshold_are_refused(runner, command):
    line = assert_one_line_error(invoke(runner, *command, BASE + " scores=70,3 taken=3,1"))
    assert "scores=70,3 already reach the rules' threshold 66" in line
    assert "game ended" in line and "threshold=" in line  # what is wrong, how to fix


@pytest.mark.parametrize("extra", ["scores=20,3 threshold=20", "scores=3,66", "scores=66,0"])
def test_scores_at_the_threshold_are_refused_everywhere(runner, extra):
    with pytest.raises(NimmtError, match="already reach"):
        parse_position(f"{BASE} {extra}")
    with pytest.raises(NimmtError, match="already reach"):
        Position.make(players=2, rows=FIELDS["rows"], hand=FIELDS["hand"], gone=FIELDS["gone"],
                      scores=[int(x) for x in extra.split()[0][7:].split(",")],
                      threshold=int(extra.split("=")[-1]) if "threshold" in extra else None)
    assert_one_line_error(invoke(runner, "show", f"{BASE} {extra}"))


def test_scores_under_the_threshold_are_kept(runner):
    assert parse_position(BASE + " scores=65,3").scores == (65, 3)
    assert parse_position(BASE + " scores=70,3 threshold=100").scores == (70, 3)
    assert_ok(invoke(runner, "show", BASE + " scores=70,3 threshold=100"))


def test_a_json_position_with_a_key_twice_is_refused(runner, tmp_path):
    path = tmp_path / "dup.json"
    # the last hand would be a valid position: json alone keeps it silently
    path.write_text('{"players": 2, "hand": [1, 2], "rows": [[3, 6], [5, 10], [8, 11, 21], '
                    '[16, 19, 23]], "hand": [4, 14, 15, 18, 20], "gone": [1, 7, 9, 12]}')
    with pytest.raises(NimmtError, match='key "hand" appears twice'):
        load_position(str(path))
    for command in ("show", "analyse"):
        line = assert_one_line_error(invoke(runner, command, path))
        assert f"position file {path}" in line and 'key "hand" appears twice' in line


def test_a_key_twice_inside_a_nested_object_is_refused(tmp_path):
    path = tmp_path / "nested.json"
    path.write_text(json.dumps(FIELDS)[:-1] + ', "x": {"a": 1, "a": 2}}')
    with pytest.raises(NimmtError, match='key "a" appears twice'):
        load_position(str(path))


def test_a_json_position_with_unique_keys_still_loads(tmp_path):
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(FIELDS))
    assert load_position(str(path)) == position_from_mapping(FIELDS)


def test_engine_refuses_a_request_with_a_key_twice():
    out = io.StringIO()
    engine = Engine(out)
    line = ('{"jsonrpc": "2.0", "id": 1, "method": "analyse", "params": '
            '{"position": "example", "samples": 3, "samples": 400}}')
    engine.serve(io.BytesIO(line.encode() + b"\n"))
    reply = json.loads(out.getvalue().splitlines()[-1])
    assert reply["error"]["code"] == PARSE_ERROR
    assert 'key "samples" appears twice' in reply["error"]["message"]
