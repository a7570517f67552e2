"""README's Quickstart holds the two commands, and CI runs exactly the test one; the output
blocks of README and the guides that are cheap to run print what the command prints."""
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


# Output blocks ```\n$ COMMAND\nOUTPUT``` of README and the guides kept true: the command run
# here prints OUTPUT, but for the seconds it took (seeded and quick: exact searches, and Monte
# Carlo with a seed, give the same figures every run)
CHECKED_OUTPUTS = [
    ("README.md", "nimmt analyse example"),
    ("README.md", "nimmt analyse example --opponents worst"),
    ("README.md", "nimmt analyse example-standard --seed 1"),
    ("README.md", "nimmt tree example --opponents worst --depth 1 --best-only --format text"),
    ("README.md", "nimmt puzzles show two-player-endgames 3 --solution"),
    ("docs/guide/player.md", "nimmt show example-3p"),
    ("docs/guide/player.md", "nimmt analyse \"variant=tactical players=2 rows=3,6/5,10/8,11,21/"
                             "16,19,23 hand=4,14,15,18,20 p2=2,13,17,22,24 gone=1,7,9,12 "
                             "turn=4,13\" --opponents worst"),
    ("docs/guide/logic-draft.md", "nimmt analyse example-draft"),
]


def document_output(document: str, command: str) -> str:
    text = (ROOT / document).read_text(encoding="utf-8")
    found = re.search(r"```\n\$ " + re.escape(command) + r"\n(.*?)```", text, re.S)
    assert found, f"{document} has no output block for {command}"
    return found.group(1)


def untimed(text: str) -> str:
    return re.sub(r"\b\d+\.\d+ s\b", "N s", text)


@pytest.mark.parametrize("document, command", CHECKED_OUTPUTS,
                         ids=[f"{d}: {c[:60]}" for d, c in CHECKED_OUTPUTS])
def test_output_blocks_are_what_the_command_prints(runner, document, command):
    result = invoke(runner, *shlex.split(command)[1:])
    assert result.exit_code == 0, (result.output, result.stderr)
    assert untimed(result.stdout) == untimed(document_output(document, command))
