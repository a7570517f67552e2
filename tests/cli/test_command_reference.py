"""docs/reference/commands.md is the commands' own --help: regenerated here in memory, it must
equal the file (run `python docs/reference/generate.py` when it does not), and every command,
subcommand, argument and option of the click group must appear in its command's section."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference" / "commands.md"


def load_generator():
    spec = importlib.util.spec_from_file_location("nimmt_reference_generate",
                                                  ROOT / "docs" / "reference" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


generate = load_generator()


def reference_text() -> str:
    return REFERENCE.read_text(encoding="utf-8")


def sections(text: str) -> dict[str, str]:
    """Each '## `nimmt ...`' heading's text, up to the next heading."""
    found: dict[str, str] = {}
    parts = text.split("\n## `")
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        found[heading.rstrip("`")] = body
    return found


def every_command(group: click.Group, path: str = "nimmt", ctx: click.Context | None = None):
    """(path, command) for the group and every command below it, aliases included, walked
    independently of the generator (click's own listing)."""
    ctx = click.Context(group, info_name=path.split()[-1], parent=ctx)
    yield path, group
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            yield from every_command(command, f"{path} {name}", ctx)
        else:
            yield f"{path} {name}", command


def test_reference_is_current():
    assert generate.render() == reference_text(), (
        "docs/reference/commands.md is stale: run python docs/reference/generate.py")


def test_width_is_fixed(monkeypatch):
    """The text does not follow the terminal: a narrow or a wide one gives the same file."""
    expected = generate.render()
    for columns in ("40", "250"):
        monkeypatch.setenv("COLUMNS", columns)
        assert generate.render() == expected


COMMANDS = list(every_command(generate.root_group()))


def test_the_walk_finds_subcommands():
    paths = [path for path, _ in COMMANDS]
    assert "nimmt puzzles generate" in paths and "nimmt analyze" in paths
    assert len(paths) >= 20


@pytest.mark.parametrize("path, command", COMMANDS, ids=[path for path, _ in COMMANDS])
def test_every_command_and_option_appears(path, command):
    found = sections(reference_text())
    if path not in found:  # an alias: named under its command's section
        parent, _, alias = path.rpartition(" ")
        owners = [body for body in found.values()
                  if f"`{parent} {alias}` is another name for this command." in body]
        assert owners, f"{path} is neither a section nor a named alias in commands.md"
        body = owners[0]
    else:
        body = found[path]
        assert f"Usage: {path} " in body
    for param in command.params:
        if isinstance(param, click.Option):
            if param.hidden:
                continue
            for opt in [*param.opts, *param.secondary_opts]:
                assert opt in body, f"{path}: option {opt} missing from commands.md"
        elif isinstance(param, click.Argument):
            assert param.human_readable_name in body, (
                f"{path}: argument {param.name} missing from commands.md")
    if isinstance(command, click.Group):
        for name in command.commands:
            assert f"\n  {name} " in body, f"{path}: subcommand {name} missing from its listing"
