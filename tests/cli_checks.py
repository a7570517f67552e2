"""Shared checks for the CLI tests: commands run through click's CliRunner."""
from __future__ import annotations

from nimmt import cli


def invoke(runner, *args, input=None):
    """Run ``nimmt ARGS`` (arguments may be numbers or paths)."""
    return runner.invoke(cli.cli, [str(a) for a in args], input=input)


FIRST_COMPILE = "nimmt: compiling the search kernels once"  # a cold cache's one notice


def assert_ok(result) -> None:
    """Exit 0, no traceback, nothing on stderr (but the first compile's notice, which a
    test meets when it is the first of its process to need a kernel on a cold cache)."""
    assert result.exit_code == 0, (result.output, result.stderr, result.exception)
    assert "Traceback" not in result.output
    said = [line for line in result.stderr.splitlines() if not line.startswith(FIRST_COMPILE)]
    assert said == [], result.stderr


def assert_one_line_error(result) -> str:
    """Bad input: exit status 2, one line on stderr naming the problem, no traceback."""
    assert result.exit_code == 2, (result.output, result.stderr, result.exception)
    assert isinstance(result.exception, SystemExit), repr(result.exception)  # not uncaught
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("nimmt: error:") and len(lines[0]) > len("nimmt: error: ")
    assert result.stdout == ""
    return lines[0]
