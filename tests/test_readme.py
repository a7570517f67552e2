"""README's Quickstart holds the two commands, and CI runs exactly the test one."""
from __future__ import annotations

import re
from pathlib import Path

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
