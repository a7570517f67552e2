"""Messages that say what is wrong and how to fix it: sizes, numbers, and the names of
parameters (a flag on the command line, the JSON key in an engine request, never both)."""
from __future__ import annotations

import inspect
import io
import json
import os

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
    from nimmt.solver.faces.protocol import Engine

    return Engine(out)


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


# ---------------------------------------------------------------- solve-deal's stops

def _stop_at_once(monkeypatch, error: BaseException) -> None:
    from nimmt.solver.search import nash

    def stopped(*args, **kwargs):
        raise error

    monkeypatch.setattr(nash, "solve_nash", stopped)


def test_ctrl_c_before_any_cell_names_no_file_it_did_not_write(runner, tmp_path, monkeypatch):
    path = tmp_path / "deal.ckpt.json"
    _stop_at_once(monkeypatch, KeyboardInterrupt())
    result = invoke(runner, "solve-deal", "--seed", 4, "-k", 4, "--checkpoint", path)
    assert result.exit_code == 130, (result.output, result.stderr)
    assert not path.exists()
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("nimmt: interrupted before any of the 16 root cells was solved")
    assert f"{path} was not written" in line
    assert "kept in" not in line and "go on from them" not in line


def test_time_limit_before_any_cell_names_no_file_it_did_not_write(runner, tmp_path,
                                                                   monkeypatch):
    from nimmt.solver.base.errors import NashStopped

    path = tmp_path / "deal.ckpt.json"
    _stop_at_once(monkeypatch, NashStopped("stopped by the time limit"))
    line = assert_one_line_error(invoke(runner, "solve-deal", "--seed", 4, "-k", 4,
                                        "--checkpoint", path, "--time-limit", "1"))
    assert not path.exists()
    assert "stopped at the time limit before any of the 16 root cells was solved" in line
    assert f"{path} was not written" in line and "kept in" not in line


def test_a_stop_after_cells_says_where_they_are_kept(capsys, tmp_path):
    from nimmt.solver.base.rules import Rules
    from nimmt.solver.search.deals import Checkpoint
    from nimmt.solver.search.game import deal_position

    path = str(tmp_path / "deal.ckpt.json")
    kept = Checkpoint(path, deal_position(Rules("tactical", 2, "normal"), 4, 4))
    kept.record(0, 0, 1.5, 2.0)
    with pytest.raises(SystemExit) as stop:
        cli._checkpoint_stop(True, kept, 16)
    assert stop.value.code == 130
    line = capsys.readouterr().err.strip()
    assert line == (f"nimmt: interrupted with 1 of 16 root cells solved, kept in {path}; "
                    "run the same command again to go on from them")


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_estimate_below_four_cards_is_the_states_stored_none(k):
    from nimmt.solver.base.rules import Rules
    from nimmt.solver.search.game import deal_position
    from nimmt.solver.search.nash import estimate_states, solve_nash

    position = deal_position(Rules("tactical", 2, "normal"), k, 4)
    assert estimate_states(position) == 0 == solve_nash(position, workers=1).stored


def test_solve_deal_plan_shows_no_states_stored_below_four_cards(runner):
    data = json.loads(invoke(runner, "solve-deal", "--seed", 4, "-k", 4, "--format",
                             "json").stdout)
    assert [(p["cards_left"], p["states"] > 0) for p in data["plan"]] == [
        (4, True), (3, False), (2, False), (1, False)]
    assert all(p["states"] == 0 for p in data["plan"][1:])
    table = invoke(runner, "solve-deal", "--seed", 4, "-k", 4).stdout.splitlines()
    assert "states stored (estimate)" in table[1]
    rows = {line.split()[0]: line.split()[1] for line in table[3:7]}
    assert rows == {"4": "46", "3": "0", "2": "0", "1": "0"}


# ---------------------------------------------------------------- help texts

def _commands(group: click.Group, path: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


COMMANDS = dict(_commands(cli.cli))


def test_every_command_is_checked():
    names = {" ".join(path) for path in COMMANDS}
    assert {"analyse", "arena", "simulate", "solve-deal", "tree", "puzzles"} <= names
    assert any(len(path) == 2 for path in COMMANDS)  # the subcommands too


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_help_has_no_run_of_spaces_inside_a_line(runner, path):
    """A run of spaces inside a line of --help's description is a slip (a docstring line
    joined to the next by a backslash, or two spaces typed in prose). A line of a \\b
    block may line things up on purpose: then it is a line of the source as written.
    Options' help texts are checked as given (click lays out their columns itself)."""
    result = invoke(runner, *path, "--help")
    assert result.exit_code == 0, result.output
    description = result.output.split("\nOptions:\n")[0].split("\n", 1)[1]
    command = COMMANDS[path]
    source = set()
    if command.callback is not None:
        source = {line.strip() for line in inspect.getsource(command.callback).splitlines()}
    slips = [line for line in description.splitlines()
             if "  " in line.strip() and line.strip() not in source]
    assert slips == [], f"nimmt {' '.join(path)} --help"
    assert [p.name for p in command.params if "  " in (getattr(p, "help", None) or "")] == []


# ---------------------------------------------------------------- the cache-fallback note

def _unwritable_package(tmp_path, monkeypatch):
    """A package folder whose __pycache__ is a file and a home under /proc: numba can write
    no cache folder of its own (even as root)."""
    import numba.core.config

    monkeypatch.setattr(numba.core.config, "CACHE_DIR", numba.core.config.CACHE_DIR)  # restored
    source = tmp_path / "pkg"
    source.mkdir()
    (source / "__pycache__").write_text("not a folder", encoding="utf-8")
    root = tmp_path / "tmp"
    root.mkdir()
    return str(source), root


def _run(source: str, root, capsys) -> tuple[bool, dict, str]:
    from nimmt.solver.kernels import kernel_cache

    environ = {"HOME": "/proc/no-home"}  # a new run: nothing inherited
    cached = kernel_cache.configure(source, environ, str(root))
    return cached, environ, capsys.readouterr().err


def test_the_private_cache_folder_is_noted_once(tmp_path, monkeypatch, capsys):
    from nimmt.solver.kernels import kernel_cache

    source, root = _unwritable_package(tmp_path, monkeypatch)
    folder = root / f"nimmt-numba-cache-{os.geteuid()}"
    cached, environ, err = _run(source, root, capsys)
    assert cached and environ["NUMBA_CACHE_DIR"] == str(folder)
    assert err.startswith("nimmt: note: numba cannot write its cache") and str(folder) in err
    for _ in range(2):  # later runs use the same folder and stay quiet
        cached, environ, err = _run(source, root, capsys)
        assert cached and environ["NUMBA_CACHE_DIR"] == str(folder) and err == ""
    assert (folder / kernel_cache.NOTED_MARKER).is_file()
    (folder / kernel_cache.NOTED_MARKER).unlink()  # e.g. the folder was cleared: said again
    assert str(folder) in _run(source, root, capsys)[2]


def test_compiling_on_every_run_is_said_on_every_run(tmp_path, monkeypatch, capsys):
    source, root = _unwritable_package(tmp_path, monkeypatch)
    (root / f"nimmt-numba-cache-{os.geteuid()}").write_text("x", encoding="utf-8")  # no folder
    for _ in range(2):
        cached, environ, err = _run(source, root, capsys)
        assert not cached and "NUMBA_CACHE_DIR" not in environ
        assert err.count("\n") == 1 and "compiled on every run" in err
