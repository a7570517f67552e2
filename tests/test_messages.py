"""Messages that say what is wrong and how to fix it: sizes, numbers, and the names of
parameters (a flag on the command line, the JSON key in an engine request, never both)."""
from __future__ import annotations

import io
import json

import click
import pytest

from nimmt import cli

from cli_checks import assert_one_line_error, invoke


def _engine(params: dict) -> str:
    out = io.StringIO()
    engine = cli_engine(out)
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "analyse", "params": params})
    engine.serve(io.BytesIO(line.encode() + b"\n"))
    return json.loads(out.getvalue().splitlines()[-1])["error"]["message"]


def cli_engine(out):
    from nimmt.solver.protocol import Engine

    return Engine(out, analyse_options=lambda p: cli.command_options(cli.analyse, p))


@pytest.mark.parametrize("value", ["0", "-3", "0.0001"])
def test_memory_without_a_unit_suggests_only_sizes_that_are_taken(runner, value):
    line = assert_one_line_error(invoke(runner, "analyse", "example", "--memory", value))
    assert "has no unit" in line and f"{value}G" not in line and f"{value}M" not in line
    assert "at least 1M" in line


def test_memory_suggestions_are_accepted():
    size = cli.SizeType()
    with pytest.raises(click.BadParameter) as e:
        size.convert("0.5", None, None)
    assert "0.5G" in e.value.message and "0.5M" not in e.value.message  # 0.5M < 1M
    assert size.convert("0.5G", None, None) == 2**29
    with pytest.raises(click.BadParameter) as e:
        size.convert("2", None, None)
    assert "2G or 2M" in e.value.message
    assert size.convert("2M", None, None) == 2 * 2**20


@pytest.mark.parametrize("args", [["deal", "-n", "2", "--seed", "abc"],
                                  ["analyse", "example", "--samples", "many"],
                                  ["analyse", "example", "--time-limit", "soon"]])
def test_a_number_that_does_not_parse_is_named_plainly(runner, args):
    line = assert_one_line_error(invoke(runner, *args))
    assert "valid integer range" not in line and "valid float range" not in line
    assert "is not a whole number" in line or "is not a number" in line


@pytest.mark.parametrize("params,key,reason", [
    ({"position": "example", "samples": "many"}, "samples", "'many' is not a whole number"),
    ({"position": "example", "samples": 1}, "samples", "1 is not in the range"),
    ({"position": "example", "time-limit": -1}, "time-limit", "is not in the range x>0"),
    ({"position": "example", "memory": "0"}, "memory", "has no unit"),
])
def test_engine_names_the_json_param_not_the_flag(params, key, reason):
    message = _engine(params)
    assert message.startswith(f"Invalid value for '{key}': ") and reason in message
    assert "--" not in message


def test_engine_library_messages_name_params_not_flags():
    message = _engine({"position": "example", "method": "exact", "max_nodes": 10})
    assert "raise max_nodes" in message and "method='montecarlo'" in message
    assert "--" not in message
    assert _engine({"opponents": "worst"}).startswith("position is required")


def test_command_line_names_the_flag_alone(runner):
    line = assert_one_line_error(invoke(runner, "analyse", "example", "--method", "exact",
                                        "--max-nodes", "10"))
    assert "raise --max-nodes (about" in line and "max_nodes" not in line
