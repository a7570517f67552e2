"""Write docs/reference/commands.md from the commands' own ``--help``.

    python docs/reference/generate.py          # rewrite docs/reference/commands.md
    python docs/reference/generate.py --check  # exit status 1 when the file is stale

Every command and subcommand of ``nimmt.cli.cli`` (the click group behind the ``nimmt``
console script) gets its section, its text exactly what ``nimmt COMMAND --help`` prints at a
fixed width (``WIDTH``), so the file is the same on every machine and terminal. A command
registered under a second name (``analyze`` for ``analyse``) is listed as that alias, not
printed twice. ``tests/cli/test_command_reference.py`` regenerates the text in memory and fails
when the file differs.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

# The help's wrapping width, fixed whatever the terminal: what click uses on a terminal of 100
# columns or more (cli.py's max_content_width, 100, less click's margin of 2).
WIDTH = 98
OUTPUT = Path(__file__).resolve().parent / "commands.md"
ROOT_NAME = "nimmt"

HEADER = """\
# Command reference

Every `nimmt` command and subcommand with its options, exactly as its own `--help` prints
them. This file is generated: run `python docs/reference/generate.py` after changing a command
(`tests/cli/test_command_reference.py` fails while it is stale). What the commands are for, with
examples: [the guides](../guide/README.md); what positions and files look like:
[notation and files](notation.md); behaviour common to every command (errors, exit status,
Ctrl-C, output files, seeds): [conventions](conventions.md).
"""


def root_group() -> click.Group:
    from nimmt.cli import cli

    return cli


def context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    """A context as click makes one for ``--help``, with the width fixed."""
    settings = {**command.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    return click.Context(command, info_name=name, parent=parent, **settings)


def walk(command: click.Command, name: str = ROOT_NAME,
         parent: click.Context | None = None) -> Iterator[tuple[click.Context, list[str]]]:
    """(context, aliases) for the command and every command below it, depth first, each
    group's commands in click's listing order; a command object seen under an earlier name of
    the same group is reported as an alias of it instead."""
    ctx = context(command, name, parent)
    if not isinstance(command, click.Group):
        yield ctx, []
        return
    names = command.list_commands(ctx)
    aliases: dict[int, list[str]] = {}
    first: dict[int, str] = {}
    for sub in names:
        key = id(command.get_command(ctx, sub))
        if key in first:
            aliases.setdefault(key, []).append(sub)
        else:
            first[key] = sub
    yield ctx, []
    for sub in names:
        child = command.get_command(ctx, sub)
        if child is None or first[id(child)] != sub:
            continue
        for index, (child_ctx, child_aliases) in enumerate(walk(child, sub, ctx)):
            yield child_ctx, (aliases.get(id(child), []) if index == 0 else child_aliases)


def anchor(path: str) -> str:
    """GitHub's anchor of a heading ``path`` in backticks."""
    return path.lower().replace(" ", "-")


def render() -> str:
    sections = list(walk(root_group()))
    lines = [HEADER, "## Contents", ""]
    for ctx, aliases in sections:
        depth = ctx.command_path.count(" ")
        also = "".join(f" (also `{ctx.parent.command_path} {a}`)" for a in aliases
                       if ctx.parent is not None)
        lines.append(f"{'  ' * depth}- [`{ctx.command_path}`](#{anchor(ctx.command_path)}){also}")
    lines.append("")
    for ctx, aliases in sections:
        lines += [f"## `{ctx.command_path}`", ""]
        for alias in aliases:
            assert ctx.parent is not None
            lines += [f"`{ctx.parent.command_path} {alias}` is another name for this command.", ""]
        lines += ["```text", ctx.get_help().rstrip(), "```", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    text = render()
    if argv == ["--check"]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is stale: run python docs/reference/generate.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(sections_of(text))} commands)")
    return 0


def sections_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("## `")]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
