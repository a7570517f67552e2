"""AnalyseOptions: nimmt analyse's options, checked once, built by the command line from its
click parameters and by the engine from a JSON request."""
from __future__ import annotations

import dataclasses

import pytest

from nimmt import cli
from nimmt.solver.base.errors import NimmtError
from nimmt.solver.faces.options import AnalyseOptions, BadValue, default_memory, parse_size
from nimmt.solver.positions.position import load_position


def test_defaults_and_the_arguments_of_analyse_answer():
    options = AnalyseOptions(load_position("example"))
    arguments = options.arguments()
    assert arguments["samples"] == 2000 and arguments["method"] == "auto"
    assert arguments["memory"] == default_memory() and arguments["given"] == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.samples = 3  # type: ignore[misc]


@pytest.mark.parametrize("field,value,reason", [
    ("samples", 1, "1 is not in the range 2<=x<=1000000000."),
    ("workers", 65, "65 is not in the range 1<=x<=64."),
    ("time_limit", 0.0, "0.0 is not in the range x>0."),
    ("time_limit", float("nan"), "'nan' is not a finite number"),
    ("method", "fast", "'fast' is not one of 'auto', 'exact', 'montecarlo'."),
    ("objective", "fun", "'fun' is not one of 'cows', 'margin', 'win'."),
    ("verify", "yes", "'yes' is not true or false."),
    ("memory", "1K", "'1K' is too small; give at least 1M"),
])
def test_a_bad_field_is_one_line_naming_it(field, value, reason):
    with pytest.raises(NimmtError) as e:
        AnalyseOptions(load_position("example"), **{field: value})
    assert str(e.value) == f"Invalid value for '{field}': {reason}"
    flag = "--" + field.replace("_", "-")
    assert cli.cli_message(e.value) == f"Invalid value for '{flag}': {reason}"


def test_sizes():
    assert parse_size("512M") == 512 * 2**20 and parse_size(3 * 2**20) == 3 * 2**20
    with pytest.raises(BadValue, match="has no unit"):
        parse_size("12")


def test_a_request_is_read_as_the_command_line_reads_its_text():
    options = AnalyseOptions.from_request({"position": "example", "samples": "12", "w": 2,
                                           "time-limit": 3, "turn": [4, 13],
                                           "both_sides": False, "seed": None})
    assert (options.samples, options.workers, options.time_limit, options.turn) == (
        12, 2, 3.0, "4,13")
    assert set(options.given) == {"position", "samples", "workers", "time_limit", "turn"}
    assert not options.both_sides and options.seed is None


@pytest.mark.parametrize("params,message", [
    ({"position": "example", "w": 0}, "Invalid value for 'w': 0 is not in the range 1<=x<=64."),
    ({"position": "example", "samples": "many"},
     "Invalid value for 'samples': 'many' is not a whole number."),
    ({"position": "example", "verify": "yes"}, 'verify is true or false; got "yes"'),
    ({"position": "example", "seed": [1, True]},
     "seed takes a value (a string or a number); got [1, true]"),
    ({"samples": 1, "position": "hand=1,2"},
     "Invalid value for 'samples': 1 is not in the range 2<=x<=1000000000."),
    ({"opponents": "worst"}, "position is required"),
    ({"position": "example", "format": "json"}, "analyse has no parameter 'format'"),
])
def test_a_bad_request_is_one_line_naming_its_key(params, message):
    with pytest.raises(NimmtError) as e:
        AnalyseOptions.from_request(params)
    assert str(e.value).startswith(message)
    assert "--" not in str(e.value)
