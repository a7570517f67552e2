"""``nimmt compile``: each engine's small command in its own process, side by side; a table
of what is ready; failures, the time limit and Ctrl-C reported. The jobs here are cheap
commands put in place of the real ones (those compile for minutes on an empty cache); that
the real ones are valid commands is checked by parsing them."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from nimmt import cli

from cli_checks import assert_one_line_error, invoke

CHEAP = {"deal": ("deal", "-n", "2", "--seed", "1"), "show": ("show", "example")}
SLOW = ("simulate", "-n", "2", "--games", "100000000", "--seed", "1")


def test_every_job_is_a_valid_command():
    for name, args in cli.COMPILE_JOBS.items():
        command = cli.cli.get_command(None, args[0])  # type: ignore[arg-type]
        assert command is not None, name
        command.make_context(args[0], list(args[1:]), resilient_parsing=False).close()


def test_the_batch_guide_names_every_engine():
    """docs/guide/batch.md lists the engines ``nimmt compile`` compiles: all of them."""
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "batch.md").read_text()
    section = guide[guide.index("## Compiling ahead"):]
    missing = [name for name in cli.COMPILE_JOBS if f"`{name}`" not in section]
    assert missing == [], f"docs/guide/batch.md does not name the engines {missing}"


def test_the_jobs_run_side_by_side_and_are_reported(runner, monkeypatch):
    monkeypatch.setattr(cli, "COMPILE_JOBS", CHEAP)
    result = invoke(runner, "compile", "--workers", "2")
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:4]}
    assert rows["deal"][-1] == "ready" and rows["show"][-1] == "ready"
    assert float(rows["deal"][1]) > 0
    assert "2 of 2 engines ready" in result.stdout and "(2 at once)" in result.stdout


def test_a_failing_job_is_one_line_and_a_non_zero_exit(runner, monkeypatch):
    monkeypatch.setattr(cli, "COMPILE_JOBS", {**CHEAP, "bad": ("deal", "-n", "99")})
    result = invoke(runner, "compile")
    assert result.exit_code == 1
    bad = [line for line in result.stdout.splitlines() if line.startswith("bad")]
    assert len(bad) == 1 and "failed: nimmt: error:" in bad[0] and "--players" in bad[0]
    assert "2 of 3 engines ready" in result.stdout


def test_the_time_limit_stops_the_jobs_still_running(runner, monkeypatch):
    monkeypatch.setattr(cli, "COMPILE_JOBS", {"slow": SLOW})
    start = time.perf_counter()
    result = invoke(runner, "compile", "--time-limit", "1")
    assert time.perf_counter() - start < 15
    assert result.exit_code == 0, result.output
    assert "not compiled" in result.stdout and "stopped: time limit" in result.stdout
    assert "0 of 1 engines ready" in result.stdout


@pytest.mark.parametrize("args,message", [
    (("--only", "nope"), "'nope' is not one of"),
    (("--workers", "0"), "--workers"),
    (("--time-limit", "-1"), "--time-limit"),
])
def test_bad_options_are_one_line(runner, args, message):
    line = assert_one_line_error(invoke(runner, "compile", *args))
    assert message in line


def test_ctrl_c_stops_every_job_and_exits_130():
    code = ("import nimmt.cli as c; "
            f"c.COMPILE_JOBS = {{'slow': {SLOW!r}, 'deal': {CHEAP['deal']!r}}}; c.main()")
    child = subprocess.Popen([sys.executable, "-c", code, "compile", "--workers", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                             env={**os.environ, "COLUMNS": "200"})
    time.sleep(3)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130, (out, err)
    assert "stopped: interrupted" in out and "0 of 2 engines ready" in out
    assert "Traceback" not in err
