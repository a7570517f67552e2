"""Every error the library raises on purpose, and how its messages name parameters.

``NimmtError`` (a ValueError) is bad input or a refused or stopped search: its message is
one line naming the problem and the fix. The searches' stops carry what they finished:

    NimmtError
    └── SearchStopped            reason 'time limit', 'memory' or 'nodes'; finished cards
        ├── BudgetExceeded       over max_nodes (reason 'nodes')
        ├── MemoryExceeded       over memory (reason 'memory')
        └── NashStopped          the equilibrium stopped at its time limit
    KeyboardInterrupt
    └── SearchInterrupted        Ctrl-C, with what finished (never a NimmtError)

Ctrl-C has one design: no search, sampler, bot or analysis returns normally once it came.
Each lets it propagate as SearchInterrupted (a plain KeyboardInterrupt is one too, for code
that keeps nothing), with ``partial``, the result it would have returned for the work
finished (None when there is none), so that the command -- and only the command, or the
batch layer on its behalf (``batch.Batch.stopped``) -- reports what finished and exits
with status 130. A search called inside a loop (a bot's decision, a review's judgement)
thus stops the whole command, never one decision.

A message names the parameter a caller can change through ``param``: a Python caller reads
the parameter (``raise max_nodes``, ``method='montecarlo'``), the command line its flag
(``raise --max-nodes``, ``--method montecarlo``). The library never spells a flag; the
command line turns the names into flags in one place (``cli.cli_message``):

>>> e = NimmtError(f"{param('depth')} must be at least 1; or use {param('method', 'exact')}")
>>> str(e)
"depth must be at least 1; or use method='exact'"
>>> e.message_for(lambda name: "--" + name.replace("_", "-"))
'--depth must be at least 1; or use --method exact'
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["BudgetExceeded", "MemoryExceeded", "NashStopped", "NimmtError", "SearchInterrupted",
           "SearchStopped", "command", "param"]

MARK = "\x1f"  # brackets a parameter inside a message template (never shown)
_NAMED = re.compile(f"{MARK}(?P<kind>[+!]?)(?P<name>[a-z_]+)(?:=(?P<value>[^{MARK}]*))?{MARK}")
_OPTION = re.compile(r"(?P<name>[a-z_]+)=(?P<value>'[^']*'|(?:[^,]|,(?! ))*)")


def param(name: str, value: object = None, *, beside: bool = False) -> str:
    """``name`` (with ``value``: ``name=value``) marked as a parameter inside a message.

    A Python caller (and a JSON request to the engine, whose params are these names) reads
    ``name`` or ``name='value'``; the command line reads the flag, ``--flag`` or ``--flag
    value``, and only the flag: a message names each parameter once, as its reader spells
    it. ``beside`` is accepted and changes nothing (callers once asked for both spellings).
    A tuple ``value`` lists alternatives: ``opponents='random' or 'worst'``.

    >>> str(NimmtError(f"raise {param('max_nodes', beside=True)} (about 1 s each)"))
    'raise max_nodes (about 1 s each)'
    >>> spell = lambda name: "--" + name.replace("_", "-")
    >>> e = NimmtError(f"raise {param('max_nodes', beside=True)} (about 1 s each)")
    >>> e.message_for(spell)
    'raise --max-nodes (about 1 s each)'
    >>> NimmtError(f"more time ({param('time_limit', beside=True)})").message_for(spell)
    'more time (--time-limit)'
    >>> use = param('opponents', ('random', 'worst'))
    >>> NimmtError(f"over {param('max_nodes', 20000)}; use {use}").message_for(spell)
    'over --max-nodes 20,000; use --opponents random or worst'
    """
    text = f"{MARK}{'+' if beside else ''}{name}"
    if value is not None:
        shown = value if isinstance(value, tuple) else (value,)
        text += "=" + " or ".join(f"{v:,}" if isinstance(v, int) else repr(str(v))
                                  for v in shown)
    return text + MARK


def command(name: str, **options: object) -> str:
    """The library function ``name`` called with ``options``, marked inside a message: a
    Python caller reads ``analyse(method='montecarlo')``, the command line its command,
    ``nimmt analyse --method montecarlo``.

    >>> str(NimmtError(f"try {command('analyse', method='montecarlo')}"))
    "try analyse(method='montecarlo')"
    """
    given = ", ".join(param(key, value)[1:-1] for key, value in options.items())
    return f"{MARK}!{name}={given}{MARK}"


def _python(match: re.Match) -> str:
    name, value = match["name"], match["value"]
    if match["kind"] == "!":
        return f"{name}({value})"
    return name if value is None else f"{name}={value}"


def plain(template: str) -> str:
    """The message as a Python caller reads it: parameters by their names."""
    return _NAMED.sub(_python, template)


def with_flags(template: str, flag: Callable[[str], str], program: str = "nimmt") -> str:
    """The message as the command line prints it: ``flag(name)`` spells each parameter,
    ``program name`` each command."""
    def option(name: str, value: str | None) -> str:
        return flag(name) if value is None else f"{flag(name)} {value.replace(chr(39), '')}"

    def spelled(match: re.Match) -> str:
        if match["kind"] == "!":
            return " ".join([program, match["name"].replace("_", "-")]
                            + [option(o["name"], o["value"])
                               for o in _OPTION.finditer(match["value"])])
        return option(match["name"], match["value"])

    return _NAMED.sub(spelled, template)


class NimmtError(ValueError):
    """Bad input: the message names the problem and how to fix it (one line).

    Built from a template whose parameters are marked by ``param``: ``str(error)`` names
    them as a Python caller writes them, ``message_for`` as another interface spells them.
    """

    def __init__(self, message: object = "", *args: object) -> None:
        self.template = str(message)
        super().__init__(plain(self.template), *args)

    def message_for(self, flag: Callable[[str], str]) -> str:
        """The message with each parameter spelled by ``flag`` (the CLI: its option)."""
        return with_flags(getattr(self, "template", str(self)), flag)


class SearchStopped(NimmtError):
    """An exact search stopped before it finished, or was refused before it began.

    ``reason``: 'time limit', 'memory' or 'nodes'; ``finished``: the root cards solved
    before it stopped (CardLine, in hand order; the cards are solved one after another),
    ``cards_total`` how many were asked, ``nodes`` and ``seconds`` what it had spent.
    """

    def __init__(self, message: str = "", reason: str = "", finished: tuple = (),
                 cards_total: int = 0, nodes: int = 0, seconds: float = 0.0) -> None:
        super().__init__(message)
        self.reason, self.finished, self.cards_total = reason, tuple(finished), cards_total
        self.nodes, self.seconds = nodes, seconds


class BudgetExceeded(SearchStopped):
    """The exact search would take, or took, more nodes than allowed (``max_nodes``)."""

    def __init__(self, message: str = "", *args, **kwargs) -> None:
        super().__init__(message, *(args or ("nodes",)), **kwargs)


class MemoryExceeded(SearchStopped):
    """A search would need, or came to need, more memory than allowed (``memory``)."""

    def __init__(self, message: str = "", *args, **kwargs) -> None:
        super().__init__(message, *(args or ("memory",)), **kwargs)


class NashStopped(SearchStopped):
    """A time limit stopped the solve (reason 'time limit'): an equilibrium needs every
    root cell."""


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a search (exact, Monte Carlo, a bot model's or a draft's sampling, a
    review). A KeyboardInterrupt, not a NimmtError, so that code which handles bad input
    never swallows it. ``partial``: what the interrupted call would have returned for the
    work finished, marked incomplete (an ``Analysis`` of the samples taken, a
    ``GameReview`` of the decisions judged...), None when nothing finished; an exact
    search's ``finished``, ``cards_total``, ``nodes`` and ``seconds`` as in SearchStopped."""

    reason = "interrupted"

    def __init__(self, message: str = "", finished: tuple = (), cards_total: int = 0,
                 nodes: int = 0, seconds: float = 0.0, partial: Any = None) -> None:
        super().__init__(message)
        self.finished, self.cards_total = tuple(finished), cards_total
        self.nodes, self.seconds = nodes, seconds
        self.partial: Any = partial  # its type is the interrupted call's result
