"""README's Quickstart holds the two commands, and CI runs exactly the test one; README's
output blocks that are cheap to run print what the command prints."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cli_checks import invoke

ROOT = Path(__file__).resolve().parent.parent


def quickstart_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quickstart", 1)[1]
    block = re.search(r"```[a-z]*\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_quickstart_has_the_two_commands():
    lines = quickstart_lines()
    assert len(lines) == 2
    assert "nimmt analyse example" in lines[0]
    assert lines[1].endswith("pytest")


def test_ci_runs_exactly_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert quickstart_lines()[1] in ci


# README blocks ```\n$ COMMAND\nOUTPUT``` kept true: the command run here prints OUTPUT, but
# for the seconds it took (seeded and quick; Monte Carlo with a seed gives the same figures)
CHECKED_OUTPUTS = ["nimmt analyse example-standard --seed 1"]


def readme_output(command: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"```\n\$ " + re.escape(command) + r"\n(.*?)```", text, re.S)
    assert found, f"README has no output block for {command}"
    return found.group(1)


def untimed(text: str) -> str:
    return re.sub(r"\b\d+\.\d+ s\b", "N s", text)


@pytest.mark.parametrize("command", CHECKED_OUTPUTS)
def test_readme_output_blocks_are_what_the_command_prints(runner, command):
    result = invoke(runner, *shlex.split(command)[1:])
    assert result.exit_code == 0, (result.output, result.stderr)
    assert untimed(result.stdout) == untimed(readme_output(command))
