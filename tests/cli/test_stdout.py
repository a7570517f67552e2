"""A standard output that cannot take the output: the ``nimmt`` console script (``cli.main``)
says so in one line on stderr and exits non-zero, for every command; a failing stderr never
stops a run whose output is fine. Run as real processes: the streams are the process's own."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAIN = "from nimmt import cli; cli.main()"
COMMANDS = [["deal", "-n", "2", "--seed", "1"], ["analyse", "example"], ["show", "example"],
            ["--help"]]


def commands(default: str) -> list:
    """COMMANDS as parameters: the default run takes command ``default`` (the streams are
    handled in cli.main, the same for every command); `pytest -m slow` all of them."""
    return [pytest.param(args, id=args[0],
                         marks=[] if args[0] == default else [pytest.mark.slow])
            for args in COMMANDS]


def nimmt(args: list[str], **streams) -> subprocess.CompletedProcess:
    streams.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-c", MAIN, *args], cwd=ROOT, timeout=600,
                          stdin=subprocess.DEVNULL, **streams)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    err = result.stderr.decode()
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("nimmt: error: "), err
    return lines[0]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", commands("analyse"))
def test_a_full_device_is_one_line_and_exit_1(args):
    with open("/dev/full", "w") as full:
        result = nimmt(args, stdout=full)
    line = one_error_line(result)
    assert result.returncode == 1, line
    assert "cannot write standard output" in line and "No space left" in line
    assert "> out.txt" in line  # the fix


@pytest.mark.parametrize("args", commands("--help"))
def test_a_closed_stdout_is_one_line_and_exit_1(args):
    result = nimmt(args, preexec_fn=lambda: os.close(1))
    line = one_error_line(result)
    assert result.returncode == 1, line
    assert "standard output is closed" in line


def test_a_reader_that_went_away_ends_the_run_quietly():
    read, write = os.pipe()
    os.close(read)  # every write now fails with EPIPE
    try:
        result = nimmt(COMMANDS[0], stdout=write)
    finally:
        os.close(write)
    assert result.returncode == 1
    assert result.stderr.decode() == ""


@pytest.mark.parametrize("stderr", ["closed", pytest.param("full", marks=pytest.mark.slow)])
def test_a_failing_stderr_does_not_stop_the_output(stderr):
    """deal without --seed reports its seed on stderr; the position still reaches stdout."""
    if stderr == "full" and not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    if stderr == "closed":
        result = nimmt(["deal", "-n", "2"], stdout=subprocess.PIPE, stderr=None,
                       preexec_fn=lambda: os.close(2))
    else:
        with open("/dev/full", "w") as full:
            result = nimmt(["deal", "-n", "2"], stdout=subprocess.PIPE, stderr=full)
    assert result.returncode == 0
    assert result.stdout.decode().startswith("variant=tactical players=2 rows=")


def test_an_error_with_a_failing_stderr_keeps_its_status():
    with open(os.devnull, "w") as sink:
        result = nimmt(["show", "rows=nonsense"], stdout=sink, stderr=None,
                       preexec_fn=lambda: os.close(2))
    assert result.returncode == 2
