"""The ``nimmt`` command line: parse, call the library, render. No game logic here."""
from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import click
from tabulate import tabulate

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

from .solver.base.defaults import DEFAULT_SAMPLES, memory_flag
from .solver.base.errors import NashStopped, NimmtError, SearchInterrupted, SearchStopped
from .solver.base.names import Method, Model, Placement, Variant
from .solver.base.pictures import NO_PICTURES, have_pictures
from .solver.base.rules import DEFAULT_THRESHOLD, Rules, cut, plural
from .solver.faces.options import BadValue, parse_size
from .solver.faces.report import (
    deal_plan_table,
    deals_report,
    render_analysis,
    render_arena,
    render_draft_analysis,
    render_simulation,
    render_turn,
    render_unfinished,
    simulation_json,
)
from .solver.positions.position import Position, format_position, load_position

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class NimmtGroup(click.Group):
    """Every failure is one line on stderr and exit status 2, never a traceback."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        from .solver.base import notice  # a first run compiles the kernels: say why it is slow

        notice.on_compile = _announce_compile
        try:
            result = super().main(*args, **kwargs)
        except NimmtError as e:
            _fail(cli_message(e))
        except click.UsageError as e:
            _fail(_short_quotes(e.format_message().replace("\n", " "))
                  + f" (see: {_command_path(e.ctx)} --help)")
        except click.ClickException as e:
            _fail(_short_quotes(e.format_message().replace("\n", " ")))
        except click.Abort:
            click.echo("nimmt: interrupted", err=True)
            sys.exit(130)
        sys.exit(result if isinstance(result, int) else 0)


# The library's messages name its parameters (max_nodes, time_limit, ...); here, and only
# here, they become this command line's flags: --max-nodes, --time-limit (click's own
# spelling of a parameter), except where an option is spelled otherwise (FLAGS).
FLAGS: dict[str, str] = {}


def flag_of(name: str) -> str:
    """The option that sets the library parameter ``name``: ``max_nodes`` -> ``--max-nodes``."""
    return FLAGS.get(name, "--" + name.replace("_", "-"))


def cli_message(error: NimmtError) -> str:
    """A library error as this command line prints it: parameters spelled as flags."""
    return error.message_for(flag_of)


def choice(*names: str) -> click.Choice:
    """A click choice among names of solver.base.names (plain strings: commands get strings)."""
    return click.Choice([str(name) for name in names])


COMPILE_NOTICE = ("nimmt: compiling the search kernels once, about {seconds} s (not counted in "
                  "any time limit); later runs start in about a second")


# About how long a command's first use compiles on a 2-core machine (CPU seconds of its
# kernels, benchmarks/compile.py); the notice names the figure of the running command.
FIRST_USE_SECONDS = {"analyse": 35, "analyze": 35, "tree": 35, "review": 35, "study": 35,
                     "puzzles": 35, "engine": 35, "play": 35, "solve-deal": 90, "arena": 30,
                     "simulate": 15, "deal": 15}
FIRST_USE_DEFAULT = 35


def first_use_seconds() -> int:
    """The running command's figure for FIRST_USE_SECONDS (the default outside a command)."""
    ctx = click.get_current_context(silent=True)
    names = []
    while ctx is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    for name in reversed(names):
        if name in FIRST_USE_SECONDS:
            return FIRST_USE_SECONDS[name]
    return FIRST_USE_DEFAULT


def _announce_compile() -> None:
    """The first compile's one line on stderr; on a terminal, a clock beside it while
    kernels compile (``nimmt compile`` does it ahead, for images and clusters)."""
    from .solver.base import notice

    click.echo(COMPILE_NOTICE.format(seconds=first_use_seconds()), err=True)
    if not sys.stderr.isatty():
        return

    def tick() -> None:  # for the life of the process: any later compile shows it too
        start, shown = 0.0, False
        while True:
            time.sleep(0.5)
            if notice.compiling():
                if not shown:
                    start, shown = time.perf_counter(), True
                click.echo(f"\rnimmt: compiling ... {time.perf_counter() - start:.0f} s ",
                           err=True, nl=False)
            elif shown:
                click.echo("\r\033[K", err=True, nl=False)
                shown = False

    threading.Thread(target=tick, daemon=True).start()


def _fail(message: str) -> NoReturn:
    click.echo(f"nimmt: error: {message}", err=True)
    sys.exit(2)


def _command_path(ctx: click.Context | None) -> str:
    """``nimmt puzzles show``: the command an error belongs to, for its --help hint."""
    names = []
    while ctx is not None and ctx.parent is not None:
        assert ctx.info_name is not None  # click names every subcommand's context
        names.append(ctx.info_name)
        ctx = ctx.parent
    return " ".join(["nimmt", *reversed(names)])


# click's words for a number that does not parse, as this program says them
_CLICK_NUMBERS = ((" is not a valid integer range.", " is not a whole number."),
                  (" is not a valid integer.", " is not a whole number."),
                  (" is not a valid float range.", " is not a number."),
                  (" is not a valid float.", " is not a number."))


def _short_quotes(message: str) -> str:
    """click's messages quote what the user typed ('...' or, for extra arguments, (...)):
    cut each quotation to 40 characters; "is not a valid integer range" (click's type
    name, not a fix) reads "is not a whole number"."""
    message = re.sub(r"'([^']{40})[^']+'", r"'\1...'", message)
    for words, plain in _CLICK_NUMBERS:
        message = message.replace(words, plain)
    return re.sub(r"\(([^()]{40})[^()]+\)", r"(\1...)", message)


def _usage(message: str) -> None:
    """Options that do not go together: one line with the command's --help hint."""
    raise click.UsageError(message, click.get_current_context())


class FiniteFloat(click.FloatRange):
    """A float range that also refuses nan and inf (nan compares as inside any range)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{cut(value)!r} is not a finite number", param, ctx)
        return number


class PositionType(click.ParamType):
    """POSITION: the notation, a JSON file with the same keys, a built-in example name, or
    ``-`` for any of these on standard input (fileio.read_stdin: the file's size limit)."""

    name = "POSITION"

    def convert(self, value, param, ctx):
        if isinstance(value, Position):
            return value
        try:
            return load_position(value)  # NimmtError -> one line, exit 2
        except NimmtError:
            if _is_draft_argument(value):
                raise NimmtError("this is a draft position (the logic variant's draft under "
                                 "way): only nimmt show and nimmt analyse read one; give a "
                                 "position of the round (with rows=...)") from None
            raise


def _is_draft_argument(value: str) -> bool:
    """Is POSITION a draft position (read by show and analyse only)?"""
    from .solver.positions.draft import DRAFT_EXAMPLES, is_draft
    from .solver.positions.position import EXAMPLES, load_fields

    try:
        return is_draft(load_fields(value, {**EXAMPLES, **DRAFT_EXAMPLES}))
    except NimmtError:
        return False


POSITION = click.argument("position", type=PositionType())


class AnyPositionType(PositionType):
    """POSITION or DRAFT-POSITION (the logic variant's draft under way: phase=draft)."""

    def convert(self, value, param, ctx):
        from .solver.positions.draft import DraftPosition, load_any

        if isinstance(value, (Position, DraftPosition)):
            return value
        return load_any(value)  # NimmtError -> one line, exit 2


ANY_POSITION = click.argument("position", type=AnyPositionType())


class OutputPath(click.ParamType):
    """An output file, checked when the command line is read, before any work: its folder
    must exist and take a new file; devices, FIFOs, sockets and folders are refused; a
    symbolic link is written through. ``-`` means standard output unless ``refuse_stdout``
    gives the reason this command cannot stream."""

    name = "FILE"

    def __init__(self, refuse_stdout: str | None = None) -> None:
        self.refuse_stdout = refuse_stdout

    def convert(self, value, param, ctx):
        from .solver.base.fileio import check_output_path

        if value == "-":
            if self.refuse_stdout is None:
                return value
            name = param.opts[0] if param is not None and param.opts else "--output"
            raise NimmtError(f"{name} - (standard output) is not supported here: "
                             f"{self.refuse_stdout}")
        check_output_path(value)  # NimmtError -> one line, exit 2
        return value


class SizeType(click.ParamType):
    """A memory size with its unit: 4G, 512M, 1.5G (K, M, G, T; powers of 1024). At most
    the machine's RAM; a default above it is lowered to it (``options.parse_size``)."""

    name = "SIZE"

    def convert(self, value, param, ctx):
        from click.core import ParameterSource

        default = (ctx is not None and param is not None
                   and ctx.get_parameter_source(param.name) is ParameterSource.DEFAULT)
        try:
            return parse_size(value, default=default)
        except BadValue as e:
            self.fail(str(e), param, ctx)


def seed_option(f):
    return click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
                        help="Seed for every random choice (default: a fresh one, reported).")(f)


def batch_options(f: Callable) -> Callable:
    """--workers, --scheduler, --dask-local: what runs a batch command's units
    (solver.base.batch); the command gets them as one argument, ``batch`` (a Backend)."""
    import functools

    @functools.wraps(f)
    def command(*args: Any, workers: int, scheduler: str | None, dask_local: int | None,
                **kwargs: Any) -> Any:
        from .solver.base.batch import Backend

        return f(*args, batch=Backend(workers, scheduler, dask_local), **kwargs)

    command = click.option(
        "--dask-local", type=click.IntRange(1, 256), default=None, metavar="N",
        help="Start a Dask LocalCluster of N worker processes for this run (needs "
             "nimmt[dask]).")(command)
    command = click.option(
        "--scheduler", default=None, metavar="ADDRESS",
        help="Run on a Dask cluster: its scheduler, e.g. tcp://HOST:8786 (needs nimmt[dask] "
             "and the same nimmt on every worker).")(command)
    return click.option(
        "--workers", "-w", type=click.IntRange(1, 64), default=1, show_default=True,
        help="Local worker processes (1: in this process). Results are the same for a seed "
             "whatever runs them.")(command)


def _fresh_seed(seed: int | None) -> int:
    return secrets.randbelow(2**31) if seed is None else seed


class LazyProgress:
    """A progress bar on stderr that appears only on a terminal and only once a run
    has taken more than ``delay`` seconds; quiet otherwise. ``ticking``: the bar also
    appears, and shows the time elapsed, while no step comes (steps that take minutes:
    a whole deal's root cells), redrawn every ``tick`` seconds by a daemon thread."""

    def __init__(self, total: int, label: str, delay: float = 1.0, ticking: bool = False,
                 tick: float = 1.0) -> None:
        self.total, self.label, self.delay = total, label, delay
        self.start = time.perf_counter()
        self.done = 0
        self.bar: ProgressBar[str] | None = None
        self.enabled = sys.stderr.isatty()
        self.lock = threading.Lock()  # steps come from worker threads, ticks from another
        self.closed = threading.Event()
        if self.enabled and ticking:
            threading.Thread(target=self._tick, args=(tick,), daemon=True).start()

    def _elapsed(self) -> str:
        seconds = int(time.perf_counter() - self.start)
        return f"{seconds // 3600}:{seconds // 60 % 60:02}:{seconds % 60:02} elapsed"

    def _show(self) -> bool:
        """Open the bar once the delay has passed (under the lock); whether it is open."""
        if self.bar is None and not self.closed.is_set() \
                and time.perf_counter() - self.start > self.delay:
            self.bar = click.progressbar(length=self.total, label=self.label, file=sys.stderr,
                                         item_show_func=lambda item: item)
            self.bar.__enter__()
            self.bar.update(self.done, self._elapsed())
        return self.bar is not None

    def _tick(self, tick: float) -> None:
        while not self.closed.wait(tick):
            with self.lock:
                if self._show() and self.bar is not None:
                    self.bar.current_item = self._elapsed()
                    self.bar.render_progress()

    def __call__(self, step: int) -> None:
        with self.lock:
            self.done += step
            if not self.enabled:
                return
            was_hidden = self.bar is None  # opening it shows self.done, this step included
            if self._show() and not was_hidden and self.bar is not None:
                self.bar.update(step, self._elapsed())

    def close(self) -> None:
        """End the bar (once: a second call does nothing)."""
        with self.lock:
            self.closed.set()
            if self.bar is not None:
                self.bar.__exit__(None, None, None)
                self.bar = None


@click.group(cls=NimmtGroup, context_settings=CONTEXT)
@click.version_option(package_name="nimmt")
def cli() -> None:
    """nimmt: a solver and analysis tool for 6 nimmt! (Take 5).

    A POSITION is written as key=value tokens, for example

      nimmt show "players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 gone=1,2,4,5,6,8,9,10,11"

    or given as a JSON file with the same keys, or as a built-in example name
    (example, example-3p, example-pro, example-logic, example-standard; draft positions of
    the logic variant: example-draft, example-draft-start), or as - to read any of these
    (the notation, the JSON, an example name) from standard input.

    \b
    Example:
      nimmt analyse example
    """


# ---------------------------------------------------------------- show

@cli.command(context_settings=CONTEXT)
@ANY_POSITION
def show(position: Any) -> None:
    """Draw the rows, the hands and the unknown pool of POSITION (or a draft position's
    open pool and hands).

    \b
    Examples:
      nimmt show "players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 gone=1,2,4,5,6,8,9,10,11"
      nimmt show "variant=logic players=2 phase=draft hand=3,17 p2=6,12"
    """
    from .solver.faces.report import render_position
    from .solver.positions.draft import DraftPosition, render_draft

    if isinstance(position, DraftPosition):
        click.echo(render_draft(position))
        return
    click.echo(render_position(position))


# ---------------------------------------------------------------- analyse

@cli.command(context_settings=CONTEXT)
@ANY_POSITION
@click.option("--opponents", default=Model.RANDOM.value, show_default=True, metavar="MODEL|BOT",
              help="random: expected cows against uniformly random opponents; worst: cows you "
                   "can guarantee against an adversary who sees your card; nash: two-player "
                   "equilibrium (known hands); or a bot (closest, lowkeeper, expecti, "
                   "expecti:samples=500, ...): expected cows when every opponent plays like it.")
@click.option("--method", type=choice(*Method), default=Method.AUTO.value,
              show_default=True,
              help="auto: exact search first, within a time budget (10 s, or half of "
                   "--time-limit); Monte Carlo if it does not finish (model random).")
@click.option("--objective", type=click.Choice(["cows", "margin", "win"]), default="cows",
              show_default=True,
              help="cows: your cows; margin: your cows minus the mean of the others' (lower "
                   "is better); win: the probability of ending the round with the fewest cows, "
                   "ties shared (needs taken=... once cows are gone; hidden hands each a "
                   "uniformly random split of the pool); with scores= or threshold= the "
                   "game's (two players: P(win game), more: the lead's share). nash is "
                   "always margin.")
@click.option("--samples", type=click.IntRange(2, 10**9), default=DEFAULT_SAMPLES,
              show_default=True,
              help="Monte Carlo samples per card.")
@click.option("--time-limit", type=FiniteFloat(0, min_open=True), default=None,
              help="Seconds, a bound on the whole analysis. Monte Carlo stops then and "
                   "reports what it has; auto gives exact search (or nash) half of it, the "
                   "fallback the rest; --method exact prints the cards it finished, then "
                   "fails (exit 2).")
@click.option("--max-nodes", type=click.IntRange(1, 10**13), default=None,
              help="Exact-search budget in nodes (default 5,000,000, about 5 s): --method "
                   "exact refuses an estimate over it, auto one over 32 times it; a search "
                   "stops at 4 times it. Draft positions: the rounds exact enumeration may "
                   "play (default 50,000).")
@click.option("--memory", type=SizeType(), default=memory_flag(), show_default=True,
              help="Memory for the search's table (exact search's memo, nash's "
                   "transposition table), with a unit: 8G, 512M (at most the machine's RAM): "
                   "exact search stops there, nash refuses.")
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=None,
              help="nash: threads sharing the search (default: one per core); draft "
                   "positions: Monte Carlo threads (default 1; the figures do not change).")
@click.option("--both-sides", is_flag=True, help="nash: also show player 2's strategy.")
@click.option("--verify", is_flag=True,
              help="nash: check the strategies by best responses (exploitability 0).")
@click.option("--turn", default=None, metavar="CARDS",
              help="A row choice to value: this turn's cards, yours first (e.g. 4,13), when "
                   "your card reaches the rows with no legal end (or a professional tie): "
                   "each row (end) with its cows now and the value after the turn.")
@click.option("--drafters", default=None,
              help="Draft positions: who makes the rest of the draft, one drafter per seat "
                   "or one for all: cheap (default), fewest, random, evaluate, optimal (exact "
                   "enumeration only).")
@click.option("--round", "round_bots", default=None,
              help="Draft positions: the bots that play the round after the draft, one per "
                   "seat or one for all: closest (default), lowkeeper, dumper, careful, random "
                   "(numba kernels), or any search-backed bot (a Python game loop, far slower).")
@click.option("--solution", default=None, metavar="FILE",
              help="nash: answer from this position's solution (nimmt solve-deal --output) "
                   "instead of solving again.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown"]),
              default="table", show_default=True)
@seed_option
def analyse(position: Any, opponents: str, method: str, objective: str, samples: int,
            time_limit: float | None, max_nodes: int | None, memory: int,
            workers: int | None, both_sides: bool, verify: bool, turn: str | None,
            drafters: str | None, round_bots: str | None, solution: str | None, fmt: str,
            seed: int | None) -> None:
    """For each card in hand: the cows it costs you to the end of the round.

    Exact search first (auto: within a time budget), Monte Carlo (model random) where
    it does not finish; the output says which and why. Cards are listed best first.

    A draft position (the logic variant's draft, phase=draft): for each card you may
    draft, your expected cows in the round after the draft, the rest of the draft by
    --drafters and the round by --round bots (exact enumeration where it applies).

    \b
    Examples:
      nimmt analyse example
      nimmt analyse example --opponents worst --format json
      nimmt analyse example-standard --samples 5000 --seed 1 --time-limit 10
      nimmt analyse example --opponents nash --both-sides --verify
      nimmt analyse example-draft-start --samples 10000 --seed 1
    """
    from click.core import ParameterSource

    from .solver.faces.options import AnalyseOptions
    from .solver.faces.queries import AnalyseAnswer, OptionError, analyse_answer
    from .solver.positions.draft import DraftPosition

    ctx = click.get_current_context()
    given = [name for name in ctx.params
             if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT]
    draft = isinstance(position, DraftPosition)
    if draft:
        progress = LazyProgress(samples, "samples per card")
        exact_bar = LazyProgress(len(position.pool), "cards enumerated")
    elif opponents == Model.NASH:
        progress = LazyProgress(position.cards_left ** 2, "root cells")
        exact_bar = LazyProgress(position.cards_left, "cards solved exactly")
    else:
        progress = LazyProgress(samples, "samples per card")
        exact_bar = LazyProgress(position.cards_left, "cards solved exactly")

    def close_exact() -> None:  # once: Monte Carlo may follow exact search
        if exact_bar.enabled:
            exact_bar.close()
            exact_bar.enabled, exact_bar.bar = False, None

    def sampled(step: int) -> None:
        close_exact()
        progress(step)

    options = AnalyseOptions(
        position, opponents=opponents, method=method, objective=objective, samples=samples,
        time_limit=time_limit, max_nodes=max_nodes, memory=memory, workers=workers,
        both_sides=both_sides, verify=verify, turn=turn, drafters=drafters,
        round_bots=round_bots, solution=solution, seed=seed, given=tuple(given))
    try:
        answer = analyse_answer(
            **options.arguments(),
            progress=sampled if not draft and opponents != Model.NASH else progress,
            exact_progress=exact_bar)
    except OptionError as e:
        _usage(cli_message(e))
    except SearchInterrupted as stopped:
        close_exact()
        progress.close()
        if stopped.partial is None:  # exact search: the cards it finished, then one line
            _echo_unfinished(stopped, position, opponents, fmt)
            raise
        # sampling: its figures so far, marked interrupted, then one line and status 130
        samples_done = stopped.partial.cards[0].samples
        _echo_answer(AnalyseAnswer("draft" if draft else "position", position, opponents,
                                   stopped.partial), fmt, both_sides, verify)
        click.echo(f"nimmt: interrupted after {samples_done:,} samples per card (the "
                   "figures above use them)", err=True)
        sys.exit(130)
    except SearchStopped as stopped:  # what finished, then one line
        close_exact()
        _echo_unfinished(stopped, position, opponents, fmt)
        raise
    finally:
        close_exact()
        progress.close()
    _echo_answer(answer, fmt, both_sides, verify)


def _echo_answer(answer: Any, fmt: str, both_sides: bool, verify: bool) -> None:
    """``nimmt analyse``'s answer in ``fmt`` (table, json or markdown) on stdout."""
    if fmt == "json":
        click.echo(json.dumps(answer.to_json(), indent=2))
        return
    tablefmt = "github" if fmt == "markdown" else "simple"
    if answer.kind == "draft":
        click.echo(render_draft_analysis(answer.result, tablefmt))
    elif answer.kind == "turn":
        click.echo(render_turn(answer, tablefmt))
    else:
        click.echo(render_analysis(answer.result, tablefmt, show_p2=both_sides,
                                   verified=verify))


cli.add_command(analyse, name="analyze")


def _echo_unfinished(stopped, position: Position, opponents: str, fmt: str) -> None:
    """The cards an exact search finished before it stopped, marked incomplete (nothing
    when it finished none). Cards are solved in hand order, so no best card is claimed."""
    if not stopped.finished:
        return
    if fmt == "json":
        from .solver.faces.queries import unfinished_json

        click.echo(json.dumps(unfinished_json(stopped, position, opponents), indent=2))
        return
    head, table = render_unfinished(stopped, opponents,
                                    "github" if fmt == "markdown" else "simple")
    click.echo(head + "\n")
    click.echo(table)


# ---------------------------------------------------------------- engine

@cli.command(context_settings=CONTEXT)
@click.option("--default-bot", default=None, metavar="BOT",
              help="The bot that plays bot requests naming none (e.g. closest, "
                   "expecti:samples=500).")
@click.option("--time-limit", type=FiniteFloat(0, min_open=True), default=None,
              help="Seconds a request gets when it gives no time_limit of its own.")
@click.option("--progress-interval", type=FiniteFloat(0), default=0.5, show_default=True,
              help="Seconds between two progress notifications of a long request.")
def engine(default_bot: str | None, time_limit: float | None,
           progress_interval: float) -> None:
    """Serve programs: JSON-RPC 2.0 over standard input/output, one message per line.

    Methods: analyse (nimmt analyse's options by name; the result is its --format json),
    bot (a bot's card and row choices), review (one decision), info, shutdown. Errors are
    JSON-RPC error objects and the engine keeps running; end of input, shutdown or Ctrl-C
    end it. The protocol: docs/ENGINE.md.

    \b
    Example:
      echo '{"jsonrpc": "2.0", "id": 1, "method": "info"}' | nimmt engine
    """
    from .solver.faces.protocol import Engine

    server = Engine(sys.stdout, default_bot=default_bot, time_limit=time_limit,
                    progress_interval=progress_interval)
    protocol_out = sys.stdout
    sys.stdout = sys.stderr  # whatever else prints cannot break the protocol's lines
    try:
        status = server.serve(sys.stdin.buffer)
    finally:
        sys.stdout = protocol_out
    if status:
        click.echo("nimmt: interrupted", err=True)
        sys.exit(status)


# ---------------------------------------------------------------- tree

@cli.command(context_settings=CONTEXT)
@POSITION
@click.option("--output", "-o", default=None,
              type=OutputPath("the format follows the file's suffix; give a file name, or use "
                              "--format text to print the tree"),
              help="File to write; the format follows the suffix: .graphml .gexf .json .dot "
                   ".svg .png (the last two need Graphviz).")
@click.option("--format", "fmt", type=click.Choice(["file", "text"]), default="file",
              show_default=True, help="text: print an indented tree instead of writing a file.")
@click.option("--opponents", type=choice(*Model), default=Model.RANDOM.value,
              show_default=True)
@click.option("--depth", type=click.IntRange(1, 10), default=None,
              help="Turns to expand (default: the rest of the round).")
@click.option("--min-probability", type=FiniteFloat(0, 1), default=0.0, show_default=True,
              help="Leave out opponent card sets less likely than this.")
@click.option("--best-only", is_flag=True, help="Only player 1's optimal cards and row choices.")
@click.option("--merge", is_flag=True, help="Join transpositions: a DAG keyed by state.")
@click.option("--max-nodes", type=click.IntRange(1, 10**8), default=20_000, show_default=True,
              help="Refuse a larger tree; the message says how many nodes it would have (or, "
                   "past 100 times this, that it has more).")
def tree(position: Position, output: str | None, fmt: str, opponents: str, depth: int | None,
         min_probability: float, best_only: bool, merge: bool, max_nodes: int) -> None:
    """Export the decision tree behind an analysis (networkx graph).

    Nodes: p1 (your card), chance / opponents (their cards), choice (a row choice inside
    a turn), leaf. Each carries its position, value and the cows taken on the way in;
    edges carry label, probability (where the model gives one), cows and best.

    \b
    Examples:
      nimmt tree example --depth 1 --output example.graphml
      nimmt tree example --depth 2 --best-only --format text
      nimmt tree example --opponents nash --depth 1 --output example.svg
    """
    from .solver.search.tree import build_tree, format_tree_text, write_tree

    if fmt == "file" and not output:
        _fail("give --output FILE (.graphml, .gexf, .json, .dot, .svg, .png) or --format text")
    if output and fmt == "file":
        import os

        suffix = os.path.splitext(output)[1].lower()
        if suffix not in (".graphml", ".gexf", ".json", ".dot", ".svg", ".png"):
            _fail(f"unknown output suffix {suffix or '(none)'!r}; use .graphml, .gexf, .json, "
                  ".dot, .svg or .png")
    graph = build_tree(position, opponents=opponents, depth=depth,
                       min_probability=min_probability, best_only=best_only, merge=merge,
                       max_nodes=max_nodes)
    if fmt == "text":
        click.echo(format_tree_text(graph))
        return
    assert output is not None  # fmt is "file" here, which needs --output (checked above)
    write_tree(graph, output)
    click.echo(f"wrote {output}: {graph.number_of_nodes():,} nodes, "
               f"{graph.number_of_edges():,} edges")


# ---------------------------------------------------------------- solve-deal

@cli.command("solve-deal", context_settings=CONTEXT)
@click.argument("position", type=PositionType(), required=False)
@click.option("--variant", type=choice(Variant.TACTICAL, Variant.LOGIC),
              default=Variant.TACTICAL.value, show_default=True,
              help="Deck of the dealt position (when none is given).")
@click.option("--placement", type=choice(*Placement), default=Placement.NORMAL.value,
              show_default=True)
@click.option("--cards-left", "-k", type=click.IntRange(1, 10), default=10, show_default=True,
              help="Dealt positions: cards in each hand (below 10, random bots played the "
                   "turns before).")
@click.option("--deals", type=click.IntRange(1, 10**6), default=None,
              help="Solve this many dealt positions (deal i from --seed and i alone) and "
                   "report the distribution of their values.")
@click.option("--by-cell", is_flag=True,
              help="Solve each root cell (one first card each) as a unit of its own, in its own "
                   "table: on --jobs local processes or a Dask cluster; no table is shared "
                   "between cells (more work in all), and --memory is each cell's.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
              help="--deals or --by-cell: local processes solving deals (cells) side by side.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="--deals on a Dask cluster: its scheduler, e.g. tcp://HOST:8786 (needs "
                   "nimmt[dask] and the same nimmt on every worker).")
@click.option("--dask-local", type=click.IntRange(1, 256), default=None, metavar="N",
              help="--deals on a Dask LocalCluster of N worker processes started for this "
                   "run (needs nimmt[dask]).")
@click.option("--memory", type=SizeType(), default=memory_flag(), show_default=True,
              help="Memory for the transposition table, with a unit: 8G, 512M (at most the "
                   "machine's RAM).")
@click.option("--spill", type=click.Path(exists=True, file_okay=False, writable=True),
              default=None,
              help="A folder where a table past --memory goes on in a memory-mapped file "
                   "(solves the whole round instead of the largest k that fits).")
@click.option("--replace", is_flag=True,
              help="Solve the whole round even when it does not fit --memory: a table of "
                   "--memory keeps the states of most cards and solves the others again when "
                   "needed (slower; the same equilibrium).")
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=None,
              help="Threads sharing one solve (default: one per core).")
@click.option("--time-limit", type=FiniteFloat(0, min_open=True), default=None,
              help="Seconds for one solve; past it the solve fails (an equilibrium needs "
                   "every root cell).")
@click.option("--output", "-o", type=OutputPath("the solution is a file for analyse "
                                                "--solution"), default=None,
              help="Write the solution (value and both players' root strategies, JSON; "
                   "with --deals every deal's) to FILE, atomically.")
@click.option("--checkpoint", type=OutputPath("a checkpoint is a file kept between runs"),
              default=None,
              help="Keep the root cells solved in FILE as they are solved; run again with "
                   "the same FILE to go on after Ctrl-C or --time-limit (one deal).")
@click.option("--table", "table_path",
              type=OutputPath("a deal table is a file kept between runs"), default=None,
              help="--deals: keep every deal solved in FILE as it is solved (the deal table), "
                   "and the root cells of the deal being solved beside it "
                   "(FILE.dealI.cells.json); run again with the same FILE to go on after "
                   "Ctrl-C or a lost machine, from the last root cell. nimmt analyse POSITION "
                   "--solution FILE answers any deal in it.")
@click.option("--report", "report_path", type=OutputPath("the report is a file"),
              default=None,
              help="--deals: write a report of every deal solved (the table's too) with "
                   "pictures: FILE.html (one file), FILE.md (PNG pictures beside it) or "
                   "FILE.json. It compares each equilibrium's first card with the strongest "
                   "2-player bot's (ismcts:objective=margin, seeded by the deal).")
@click.option("--root-cells", type=click.Choice(["all", "needed"]), default="all",
              show_default=True,
              help="The root cells (first cards) solved: all of them, or only those a double "
                   "oracle needs to prove the equilibrium (each side's best reply to the "
                   "other's strategy); the others are left unsolved (null in --output). With "
                   "--deals, for every deal.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@seed_option
def solve_deal(position: Position | None, variant: str, placement: str, cards_left: int,
               deals: int | None, by_cell: bool, jobs: int, scheduler: str | None,
               dask_local: int | None, memory: int, spill: str | None, replace: bool,
               workers: int | None, time_limit: float | None, checkpoint: str | None,
               table_path: str | None, report_path: str | None, root_cells: str,
               output: str | None, fmt: str, seed: int | None) -> None:
    """Solve a 2-player deal's equilibrium from its first turn, or say how far it can go.

    Without POSITION, deals a 2-player position with 10 cards each (--cards-left). If
    the whole round does not fit --memory (and neither --spill nor --replace is given), it
    prints the
    estimated size per cards left, lets random bots play until the largest solvable k,
    and solves from there. --output writes the solution for nimmt analyse --solution.
    --checkpoint FILE keeps the root cells as they are solved: a run stopped by Ctrl-C or
    --time-limit goes on from them when run again with the same FILE (and the same
    position or --seed). --root-cells needed solves only the root cells that the
    equilibrium's proof needs. --deals N solves N dealt positions and reports the
    distribution of their values; --table FILE keeps them as they are solved (run again
    to go on), and --report writes what they say, with pictures.

    \b
    Examples:
      nimmt solve-deal --seed 3 -k 7 --output deal3.json
      nimmt analyse "$(nimmt deal -n 2 -k 7 --seed 3)" --solution deal3.json
      nimmt solve-deal --deals 20 --seed 1 -k 7 --table deals.json --report deals.html
      nimmt solve-deal --seed 3 --replace --memory 20G --checkpoint deal3.ckpt.json \\
        --root-cells needed
    """
    used = _fresh_seed(seed)
    if deals is not None:
        _check_deals_options(position, checkpoint, by_cell, root_cells)
        from .solver.base.batch import Backend

        _solve_deals(used, deals, Backend(jobs, scheduler, dask_local), variant, placement,
                     cards_left, memory, spill, workers, output, fmt, replace,
                     table_path, report_path, root_cells)
        return
    if table_path is not None or report_path is not None:
        _usage("--table and --report are for --deals; add --deals N or drop them")
    _check_one_deal_options(jobs, scheduler, dask_local, by_cell, spill)
    dealt = position is None
    start = _deal_to_solve(position, variant, placement, cards_left, used)
    fit, plan = _deal_plan(start, memory, spill, replace, by_cell)
    from .solver.search.game import play_random_turns

    position = play_random_turns(start, start.cards_left - fit, used)  # what does not fit
    run = _DealRun(position, fit, memory, workers, time_limit, spill, replace, root_cells,
                   by_cell, (jobs, scheduler, dask_local), checkpoint)
    solved = _solve_root_cells(run)
    from .solver.search.analysis import from_nash
    from .solver.search.deals import solution_json, write_solution

    solution = solution_json(position, solved, deal=format_position(start), seed=used,
                             solved_from=fit)
    if output:
        write_solution(output, solution)
    if fmt == "json":
        click.echo(json.dumps({"deal": format_position(start), "seed": used, "plan": plan,
                               "solved_from": fit,
                               "analysis": from_nash(position, solved).to_json(),
                               "solution": solution}, indent=2))
        return
    click.echo(f"deal: {format_position(start)}" + (f" (seed {used})" if dealt else ""))
    click.echo(deal_plan_table(plan))
    if fit < start.cards_left:
        click.echo(f"\nthe whole round does not fit {memory / 2**30:.1f} GiB; random bots "
                   f"(seed {used}) played {plural(start.cards_left - fit, 'turn')}, solving "
                   f"from {plural(fit, 'card')} left:")
    click.echo("")
    click.echo(render_analysis(from_nash(position, solved), "simple", show_p2=True))
    _echo_solve_notes(run, solved)
    if output:
        click.echo(f"wrote the solution to {output}; nimmt analyse POSITION --solution "
                   f"{output} answers its first turn (POSITION: the position solved)")


def _check_deals_options(position: Position | None, checkpoint: str | None, by_cell: bool,
                         root_cells: str) -> None:
    """``solve-deal --deals``: the options that apply to one deal only are refused."""
    if position is not None:
        _usage("--deals deals its own positions; drop POSITION or --deals")
    if checkpoint is not None or by_cell:
        _usage("--checkpoint and --by-cell are for one deal's root cells (with --deals, "
               "--table keeps the root cells of the deal being solved); drop them or --deals")


def _check_one_deal_options(jobs: int, scheduler: str | None, dask_local: int | None,
                            by_cell: bool, spill: str | None) -> None:
    """``solve-deal`` of one deal: the batch options need --by-cell, which takes no
    --spill."""
    if (jobs != 1 or scheduler is not None or dask_local is not None) and not by_cell:
        _usage("--jobs, --scheduler and --dask-local apply to --deals and --by-cell (one "
               "solve uses --workers threads)")
    if by_cell and spill is not None:
        _usage("--by-cell solves each cell in a table of its own in memory; drop --spill "
               "(--replace keeps a cell within --memory)")


def _deal_to_solve(position: Position | None, variant: str, placement: str, cards_left: int,
                   seed: int) -> Position:
    """The position given, or one dealt from ``seed``; refused before any work unless it
    has 2 players with both hands known."""
    from .solver.search.game import deal_position
    from .solver.search.nash import check_nash_position

    if position is None:
        position = deal_position(Rules(variant, 2, placement), cards_left, seed)
    try:
        check_nash_position(position)
    except NimmtError:
        hidden = len(position.hidden_players)
        raise NimmtError(
            f"solve-deal needs 2 players with both hands known; this position has "
            f"{plural(position.players, 'player')}"
            + (f", {plural(hidden, 'hand')} hidden" if hidden else "")
            + "; analyse it with nimmt analyse POSITION --opponents random (or worst)") from None
    return position


def _deal_plan(position: Position, memory: int, spill: str | None, replace: bool,
               by_cell: bool) -> tuple[int, list[dict[str, Any]]]:
    """The cards left to solve from (the largest that fits ``memory``; all of them with
    --spill or --replace) and, per cards left, the states, bytes and whether they fit."""
    from .solver.search.nash import estimate_bytes, estimate_states, largest_fitting_k

    k = position.cards_left
    if spill is not None or replace:
        fit = k
    elif by_cell:  # each cell: a solve of a card fewer each
        fit = min(k, largest_fitting_k(position, memory) + 1)
    else:
        fit = largest_fitting_k(position, memory)
    plan = [{"cards_left": j, "states": estimate_states(position, j),
             "bytes": estimate_bytes(position, j),
             "fits": estimate_bytes(position, j) <= memory}
            for j in range(k, 0, -1)]
    if fit == 0:
        _fail("not even one card fits the memory budget; raise --memory")
    return fit, plan


@dataclass(frozen=True)
class _DealRun:
    """One deal's solve as ``solve-deal`` was asked for it (``backend``: --jobs,
    --scheduler and --dask-local, for --by-cell)."""

    position: Position
    fit: int
    memory: int
    workers: int | None
    time_limit: float | None
    spill: str | None
    replace: bool
    root_cells: str
    by_cell: bool
    backend: tuple[int, str | None, int | None]
    checkpoint: str | None

    def make_backend(self) -> Any:
        """The batch backend of --by-cell."""
        from .solver.base.batch import Backend

        return Backend(*self.backend)


def _open_checkpoint(path: str | None, position: Position) -> Any:
    """--checkpoint's root cells (None without it), with a note when some were solved by
    another version of the search."""
    if not path:
        return None
    from .solver.search.deals import Checkpoint

    kept = Checkpoint(path, position)
    if kept.older:
        click.echo(f"note: {kept.older} of the {len(kept.cells)} root cells in {path} "
                   "were solved by another version of the search: the equilibrium agrees "
                   "with a fresh solve to float precision, not always to the bit", err=True)
    return kept


def _solve_root_cells(run: _DealRun) -> Any:
    """Solve the deal's equilibrium, in one table or cell by cell; a stop (Ctrl-C, the time
    limit) with --checkpoint says what it kept."""
    from .solver.search.deals import CellsStopped, solve_by_cells
    from .solver.search.nash import solve_nash

    kept = _open_checkpoint(run.checkpoint, run.position)
    total = run.fit * run.fit
    progress = LazyProgress(total - len(kept.cells) if kept else total, "root cells",
                            ticking=True)
    try:
        if run.by_cell:
            return solve_by_cells(run.position, run.make_backend(), kept, run.memory, 1,
                                  run.replace, run.time_limit, progress, run.root_cells)
        return solve_nash(run.position, memory=run.memory, workers=run.workers,
                          time_limit=run.time_limit, progress=progress, spill=run.spill,
                          replace=run.replace, known=kept.cells if kept else None,
                          on_cell=kept.record if kept else None, root=run.root_cells)
    except (KeyboardInterrupt, NashStopped, CellsStopped) as stop:
        interrupted = (isinstance(stop, KeyboardInterrupt)
                       or isinstance(stop, CellsStopped) and stop.reason == "interrupted")
        if kept is not None:
            _checkpoint_stop(interrupted, kept, total)
        if isinstance(stop, CellsStopped) and interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        progress.close()


def _echo_solve_notes(run: _DealRun, solved: Any) -> None:
    """After the equilibrium's table: the root cells left unsolved (--root-cells needed),
    then how it was solved (cell by cell, or the table's states and memory)."""
    total = run.fit * run.fit
    have = sum(math.isfinite(v) for row in solved.matrix for v in row)
    if have < total:
        click.echo(f"\n{have} of {total} root cells solved: the others are not needed "
                   "to prove the equilibrium (--root-cells needed)")
    resumed = (f"; {solved.resumed} of {total} root cells were in {run.checkpoint}"
               if solved.resumed else "")
    if run.by_cell:
        click.echo(f"\nsolved cell by cell: {have - solved.resumed} root cells as units "
                   f"({run.make_backend().describe()}), each in a table of its own, in "
                   f"{solved.seconds:.1f} s; exploitability {solved.exploitability:.1e}"
                   + resumed)
        return
    click.echo(f"\nsolved: {solved.stored:,} states stored in {solved.seconds:.1f} s, "
               f"table {solved.table_bytes / 2**30:.2f} GiB"
               + (" (on disk)" if solved.on_disk else "")
               + (f" replacing ({solved.replaced:,} stores over another state, "
                  f"{solved.dropped:,} not stored)" if solved.replaced or solved.dropped
                  else "")
               + f"; exploitability {solved.exploitability:.1e}" + resumed)


def _checkpoint_stop(interrupted: bool, kept: Any, total: int) -> NoReturn:
    """A solve-deal with --checkpoint stopped: one line saying how many root cells the
    checkpoint keeps and how to go on (Ctrl-C: status 130; the time limit: an error, 2)."""
    if kept.cells:
        where = (f"with {len(kept.cells)} of {total} root cells solved, kept in {kept.path}; "
                 "run the same command again to go on from them")
    else:  # nothing to keep: the file was not written
        where = (f"before any of the {total} root cells was solved, so nothing was kept and "
                 f"{kept.path} was not written")
    if not interrupted:
        _fail(f"stopped at the time limit {where}")
    click.echo(f"nimmt: interrupted {where}", err=True)
    sys.exit(130)


def _solve_deals(seed: int, count: int, backend: Any, variant: str, placement: str,
                 cards_left: int, memory: int, spill: str | None, workers: int | None,
                 output: str | None, fmt: str, replace: bool = False,
                 table_path: str | None = None, report_path: str | None = None,
                 root_cells: str = "all") -> None:
    """``solve-deal --deals N``: N deals, one unit each (deals.solve_deal_unit), kept in
    the deal table as they finish (``--table``: the deals it holds are not solved again,
    and the deal being solved keeps its root cells beside it, removed once the deal is in
    the table); their values' distribution, and the report (``--report``). Ctrl-C stops
    and reports (and writes) the deals finished."""
    from .solver.search.deals import deal_summary, solve_deals, write_solution

    if report_path is not None:
        from .puzzles.dealreport import check_report_format

        check_report_format(report_path)
    table, cells_beside = _open_deal_table(table_path, seed, variant, placement, cards_left,
                                           backend)
    finished = _deals_in_table(table, table_path, count, cells_beside)
    bar = LazyProgress(count - len(finished), "deals")

    def done(unit: dict) -> None:
        finished.append(unit)
        if table is not None:
            table.record(unit)
        _drop_deal_cells(cells_beside, unit["index"])  # the deal is in the table
        bar(1)

    interrupted = False
    try:
        if len(finished) < count:
            solve_deals(seed, count, progress=done, backend=backend, variant=variant,
                        placement=placement, cards_left=cards_left, memory=memory,
                        workers=workers, spill=spill, replace=replace, root=root_cells,
                        cells_beside=cells_beside,
                        indices=table.missing(count) if table else None)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    finished.sort(key=lambda u: u["index"])  # finished in any order: reported in deal order
    interrupted = interrupted or len(finished) < count  # the batch layer stops on Ctrl-C
    summary = deal_summary(finished)
    batch = {"seed": seed, "deals": count, "finished": len(finished),
             "complete": len(finished) == count, "variant": variant, "placement": placement,
             "cards_left": cards_left, "summary": summary, "solutions": finished}
    if output:
        write_solution(output, batch)
    if report_path is not None and finished and not interrupted:
        _write_deal_report(batch, report_path)
    if fmt == "json":
        click.echo(json.dumps(batch, indent=2))
    else:
        click.echo(deals_report(finished, summary, seed))
        if output:
            click.echo(f"wrote {len(finished)} solutions to {output}")
    if interrupted:
        _deals_interrupted(len(finished), count, table, table_path, cells_beside)


def _open_deal_table(table_path: str | None, seed: int, variant: str, placement: str,
                     cards_left: int, backend: Any) -> tuple[Any, str | None]:
    """``--table``'s deal table (None without it) and the path its deals' root cells are
    kept beside: this machine's processes (and a local cluster's) can write them there,
    a remote cluster's cannot (None)."""
    from .solver.search.deals import DealTable

    if not table_path:
        return None, None
    table = DealTable(table_path, seed, variant, placement, cards_left)
    return table, (os.path.abspath(table_path) if backend.scheduler is None else None)


def _drop_deal_cells(cells_beside: str | None, index: int) -> None:
    """Remove the root cells kept beside the table of deal ``index``, once it is in it."""
    from .solver.search.deals import deal_cells_path

    if cells_beside is not None and os.path.exists(deal_cells_path(cells_beside, index)):
        os.remove(deal_cells_path(cells_beside, index))


def _deals_in_table(table: Any, table_path: str | None, count: int,
                    cells_beside: str | None) -> list[dict]:
    """The deals of the first ``count`` the table already holds (said in one line); the
    root cells left beside it of any deal it holds are removed."""
    if table is None:
        return []
    for i in table.deals:
        _drop_deal_cells(cells_beside, i)
    earlier = [table.deals[i] for i in sorted(table.deals) if i < count]
    if earlier:
        rest = (f"solving the other {count - len(earlier)}" if len(earlier) < count
                else "nothing left to solve")
        click.echo(f"nimmt: {len(earlier)} of {plural(count, 'deal')} already in "
                   f"{table_path}: {rest}", err=True)
    return earlier


def _deals_interrupted(finished: int, count: int, table: Any, table_path: str | None,
                       cells_beside: str | None) -> NoReturn:
    """A ``--deals`` batch stopped: one line saying what is finished and what the table
    (and the root cells beside it) keeps; status 130."""
    from .solver.search.deals import deal_cells_path

    kept = f"; {table_path} keeps them: run the same command to go on" if table else ""
    if cells_beside is not None and table is not None:
        started = [i for i in table.missing(count)
                   if os.path.exists(deal_cells_path(cells_beside, i))]
        if started:
            kept += (f" (and beside it the root cells solved of "
                     f"{plural(len(started), 'deal')} begun)")
    click.echo(f"nimmt: interrupted: {finished} of {plural(count, 'deal')} finished "
               f"(reported{kept})", err=True)
    sys.exit(130)


def _write_deal_report(batch: dict, path: str) -> None:
    """``solve-deal --deals --report``: the report of ``batch``'s deals, with the
    strongest 2-player bot's first cards beside the equilibrium's."""
    from .puzzles.dealreport import bot_first_cards, write_deal_report

    bar = LazyProgress(len(batch["solutions"]), "deals compared with the bot")
    try:
        compared = bot_first_cards(batch["solutions"], on_deal=lambda: bar(1))
    finally:
        bar.close()
    written = write_deal_report(batch, compared, path)
    click.echo(f"wrote {', '.join(written)}", err=True)


# ---------------------------------------------------------------- deal

def rules_options(f: Callable) -> Callable:
    f = click.option("--placement", type=choice(*Placement), default=Placement.NORMAL.value,
                     show_default=True, help="Placement rule.")(f)
    f = click.option("--players", "-n", type=click.IntRange(2, 10), required=True,
                     help="Number of players, 2..10.")(f)
    f = click.option("--variant", type=choice(*Variant), default=Variant.TACTICAL.value,
                     show_default=True, help="Deck: standard 1..104, tactical/logic 1..10n+4.")(f)
    return f


BOTS_HELP = ("rule-of-thumb: random, closest, lowkeeper, dumper, careful; the learned policy: "
             "learned; search-backed: expecti, paranoid, nash, mcs, ismcts, and sharp "
             "(ismcts:playout=learned,temperature=0.1, the strongest where hands are hidden); "
             "parameters after a colon, e.g. expecti:samples=500,time=0.2")


def _bot_specs(text: str, players: int | None) -> list:
    from .solver.players.bots import parse_bots

    return parse_bots(text, players)  # NimmtError -> one line, exit 2


@cli.command(context_settings=CONTEXT)
@rules_options
@click.option("--cards-left", "-k", type=click.IntRange(1, 10), default=10, show_default=True,
              help="Cards in each hand; below 10, bots play the turns before.")
@click.option("--bots", default="random", show_default=True,
              help="Bots that play the turns before, one per seat or one for all (" + BOTS_HELP
              + ").")
@click.option("--phase", type=click.Choice(["round", "draft"]), default="round",
              show_default=True,
              help="logic: draft deals a draft position (the draft under way) instead.")
@click.option("--picks-done", type=click.IntRange(0, 99), default=0, show_default=True,
              help="--phase draft: picks made before yours (the seats are numbered so that "
                   "you, player 1, pick next).")
@click.option("--order", type=click.Choice(["round-robin", "snake"]), default="round-robin",
              show_default=True, help="--phase draft: the draft order.")
@click.option("--drafters", default=None,
              help="logic: who drafts, one per seat or one for all: random (default), fewest, "
                   "cheap, evaluate.")
@seed_option
def deal(variant: str, players: int, placement: str, cards_left: int, bots: str, phase: str,
         picks_done: int, order: str, drafters: str | None, seed: int | None) -> None:
    """Print a random legal position in the notation.

    With --cards-left K < 10, bots (random by default; rule-following row choices for
    the rule-of-thumb ones) first play 10-K turns and the cards they took are listed in
    gone. The output goes straight into the other
    commands. Logic variant: --phase draft --picks-done N prints a draft position.

    \b
    Examples:
      nimmt deal --variant tactical --players 3 --cards-left 4 --seed 7
      nimmt deal --variant logic --players 2 --phase draft --picks-done 8 --seed 3
    """
    from click.core import ParameterSource

    from .solver.players.arena import deal_with_bots

    ctx = click.get_current_context()

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) is not ParameterSource.DEFAULT

    if variant != Variant.LOGIC and (phase == "draft" or drafters is not None):
        _usage("--phase draft and --drafters apply to --variant logic (the drafted variant)")
    if phase != "draft" and (given("picks_done") or given("order")):
        _usage("--picks-done and --order apply to --phase draft")
    if phase == "draft" and given("cards_left"):
        _usage("--cards-left applies to --phase round (a draft position has no turns played)")
    if phase == "draft" and given("bots"):
        _usage("--bots applies to --phase round (a draft position has no turns played)")
    specs = _bot_specs(bots, players)
    used = _fresh_seed(seed)
    rules = Rules(variant, players, placement)
    if phase == "draft":
        from .solver.positions.draft import format_draft
        from .solver.search.draftsearch import deal_draft

        text = format_draft(deal_draft(rules, picks_done, used, drafters, order))
    elif drafters is not None and all(not s.searches for s in specs):
        from .solver.search.draftsearch import deal_logic_position

        text = format_position(deal_logic_position(rules, cards_left, used, drafters,
                                                   [s.name for s in specs]))
    else:
        text = format_position(deal_with_bots(rules, cards_left, used, specs, drafters))
    if seed is None:  # stdout is the position alone: the seed drawn goes to stderr
        click.echo(f"nimmt: seed {used} (give --seed {used} to deal this again)", err=True)
    click.echo(text)


# ---------------------------------------------------------------- game records

SAVE_GAMES = click.option(
    "--save-games", default=None, metavar="DIR",
    help="Save every game as a game record (docs/DESIGN.md), one JSON file per game in DIR "
         "(created if needed): game-NNNNNN.json (simulate; the Python game loop plays) or "
         "deal-NNNNNN-rR.json (arena).")


def _game_saver(folder: str | None, arena: bool = False) -> Callable[[Any], None] | None:
    """A callback saving each finished game's record in ``folder`` (atomically)."""
    if folder is None:
        return None
    from .solver.players.records import game_file_name, save_record

    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise click.ClickException(f"cannot create {cut(folder)}: {e.strerror}") from None

    def save(game: Any) -> None:
        name = (game_file_name(game.deal, game.deal, game.rotation) if arena
                else game_file_name(game.deal))
        save_record(os.path.join(folder, name), game.record)

    return save


# ---------------------------------------------------------------- simulate

@cli.command(context_settings=CONTEXT)
@rules_options
@click.option("--bots", default="random", show_default=True,
              help="Comma-separated bot per seat; one name fills every seat (" + BOTS_HELP
              + "). Search-backed bots play through a Python game loop, far slower than "
              "the kernels of the rule-of-thumb bots.")
@click.option("--games", "-g", type=click.IntRange(1, 10**10), default=10_000, show_default=True)
@click.option("--threshold", type=click.IntRange(1, 10_000), default=DEFAULT_THRESHOLD,
              show_default=True, help="A game ends when a total reaches this.")
@click.option("--one-round", is_flag=True, help="Each game is a single round.")
@click.option("--drafters", default=None,
              help="logic: who drafts each round, one per seat or one for all: random, "
                   "fewest, cheap, evaluate (default: random for a random bot, else fewest).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@SAVE_GAMES
@batch_options
@seed_option
def simulate(variant: str, players: int, placement: str, bots: str, games: int, threshold: int,
             one_round: bool, drafters: str | None, fmt: str, save_games: str | None,
             batch: Any, seed: int | None) -> None:
    """Play many games between bots and report cows, totals and win rates.

    Intervals are 95% (normal approximation over games); a shared win counts
    1/(number of winners). Ctrl-C stops and reports the games played so far.
    The rule-of-thumb bots play in numba kernels (about a million rounds a second);
    with a search-backed bot every game goes through a Python game loop (each
    decision takes up to its budget), and game g is then the arena's deal g.

    \b
    Example:
      nimmt simulate --variant tactical --players 4 \\
        --bots closest,random,lowkeeper,dumper --games 20000 --seed 1
    """
    from .solver.players.arena import simulate_bots
    from .solver.search.game import simulate as run

    rules = Rules(variant, players, placement, threshold, one_round)
    specs = _bot_specs(bots, players)
    draft_names = None
    if drafters is not None:  # ---- the logic draft
        if variant != Variant.LOGIC:
            _usage("--drafters applies to --variant logic (the drafted variant)")
        from .solver.search.draftsearch import DEFAULT_DRAFTER, DRAFTERS, seat_names

        draft_names = list(seat_names(drafters, players, "drafters", DEFAULT_DRAFTER,
                                      DRAFTERS))
    saver = _game_saver(save_games)
    progress = LazyProgress(games, "games")
    try:
        if any(s.searches for s in specs) or saver:  # the Python game loop
            result = simulate_bots(rules, specs, games, _fresh_seed(seed), progress=progress,
                                   drafters=draft_names, on_game=saver, batch=batch)
        else:
            result = run(rules, [s.name for s in specs], games, _fresh_seed(seed),
                         progress=progress, drafters=draft_names, batch=batch)
    finally:
        progress.close()
    if fmt == "json":
        click.echo(json.dumps(simulation_json(result), indent=2))
    else:
        click.echo(render_simulation(result, rules, one_round, threshold))
    if not result.complete:  # only Ctrl-C stops a simulation early: the games so far
        click.echo(f"nimmt: interrupted: {result.games:,} of {plural(result.games_asked, 'game')}"
                   " finished (reported)", err=True)
        sys.exit(130)


# ---------------------------------------------------------------- arena

@cli.command(context_settings=CONTEXT)
@rules_options
@click.option("--bots", required=True, help="Comma-separated bots, one per seat (" + BOTS_HELP
              + ").")
@click.option("--deals", "-d", type=click.IntRange(1, 10**7), default=100, show_default=True,
              help="Deals to play (each replayed once per seat rotation unless --no-duplicate).")
@click.option("--threshold", type=click.IntRange(1, 10_000), default=DEFAULT_THRESHOLD,
              show_default=True, help="A game ends when a total reaches this.")
@click.option("--one-round", is_flag=True, help="Each game is a single round.")
@click.option("--no-duplicate", "no_duplicate", is_flag=True,
              help="Play each deal once (seats rotated by deal) instead of once per rotation.")
@batch_options
@click.option("--drafters", default=None,
              help="logic: the bots draft their hands, one drafter per bot (it follows the "
                   "bot's seat) or one for all: random, fewest, cheap, evaluate (default: the "
                   "hands are dealt at random).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json"]),
              default="table", show_default=True)
@click.option("--output", "-o", type=OutputPath(), default=None,
              help="Write the report to this file (atomically) instead of standard output.")
@click.option("--bot-command", "bot_commands", multiple=True, metavar='NAME="CMD ..."',
              help="An external bot: a program speaking the engine protocol (nimmt engine's "
                   "bot method, docs/ENGINE.md) plays as bot NAME in --bots; started once per "
                   "worker, shut down at the end. Repeat for more.")
@click.option("--bot-timeout", type=FiniteFloat(0, min_open=True), default=60.0,
              show_default=True, help="Seconds an external bot may take for one decision.")
@SAVE_GAMES
@seed_option
def arena(variant: str, players: int, placement: str, bots: str, deals: int, threshold: int,
          one_round: bool, no_duplicate: bool, batch: Any, drafters: str | None, fmt: str,
          output: str | None, bot_commands: tuple[str, ...], bot_timeout: float,
          save_games: str | None, seed: int | None) -> None:
    """Play bots against each other in duplicate deals and rate them.

    Each deal is replayed with the seats rotated so that each bot holds each hand.
    Reports per bot: cows per round and the duplicate-deal win rate (a shared win
    counts 1/winners) with 95% intervals over deals, the pairwise table (share of
    games with fewer cows than the other bot, ties half), a Bradley-Terry rating on
    the Elo scale (one bot anchored at 0; 95% bootstrap intervals over deals) and
    seconds per decision (mean and 95th percentile, forced last cards excluded).
    Ctrl-C stops and reports the deals finished (exit status 130). Logic variant:
    --drafters makes the bots draft their hands (each bot keeps its drafter).

    \b
    Examples:
      nimmt arena --players 4 --bots expecti,mcs,closest,random --deals 50 --one-round --seed 1
      nimmt arena --variant logic --players 2 --bots expecti,closest --drafters evaluate,fewest \\
        --deals 20 --one-round --seed 1
      nimmt arena --players 2 --bots ext,random \\
        --bot-command ext="nimmt engine --default-bot closest" --deals 20 --one-round --seed 1
    """
    from .solver.players.arena import run_arena
    from .solver.players.external import parse_arena_bots, parse_bot_commands

    specs = parse_arena_bots(bots, parse_bot_commands(bot_commands, bot_timeout))
    if len(specs) != players:
        _usage(f"--bots names {len(specs)} bots for --players {players}; name one per seat")
    rules = Rules(variant, players, placement, threshold, one_round)
    used = _fresh_seed(seed)
    progress = LazyProgress(deals, "deals")
    try:
        result = run_arena(rules, specs, deals, used, duplicate=not no_duplicate,
                           batch=batch, progress=progress, drafters=drafters,
                           on_game=_game_saver(save_games, arena=True))
    finally:
        progress.close()
    text = (json.dumps(result.to_json(), indent=2) if fmt == "json"
            else render_arena(result, "github" if fmt == "markdown" else "simple"))
    if output and output != "-":
        from .solver.base.fileio import atomic_write_text

        atomic_write_text(output, text + "\n")
    else:
        click.echo(text)
    if not result.complete:
        click.echo(f"nimmt: interrupted: {result.deals} of {plural(deals, 'deal')} finished "
                   "(reported)", err=True)
        sys.exit(130)


# ---------------------------------------------------------------- review

@cli.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--player", "-p", type=click.IntRange(1, 10), multiple=True,
              help="Review this player (1 = the record's first seat); repeat for more "
                   "(default: every player).")
@click.option("--opponents", default=Model.RANDOM.value, show_default=True,
              metavar="random|worst|BOT",
              help="The model judged against: random (expected cows), worst (guaranteed), "
                   "or a bot every opponent plays like (closest, expecti, ...; expected cows, "
                   "as nimmt analyse --opponents BOT).")
@click.option("--from-turn", type=click.IntRange(1, 10), default=1, show_default=True,
              help="Review each round from this turn on (early turns are the slowest).")
@click.option("--samples", type=click.IntRange(2, 10**9), default=DEFAULT_SAMPLES,
              show_default=True,
              help="Monte Carlo samples per card where exact search does not fit.")
@click.option("--time-limit", type=FiniteFloat(0, min_open=True), default=10.0,
              show_default=True, help="Seconds per analysed position.")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json", "html"]),
              default="table", show_default=True)
@click.option("--output", "-o", type=OutputPath(), default=None,
              help="Write the review to this file (atomically); with --format markdown the "
                   "picture of regret per turn goes beside it (FILE.png).")
@click.option("--puzzles", "puzzles_path", type=OutputPath(), default=None,
              help="Also write the mistakes and blunders reviewed as a puzzle set (each "
                   "solved again exactly; replay them with nimmt puzzles quiz FILE). "
                   "Needs --opponents random or worst.")
@seed_option
def review(game: str, player: tuple[int, ...], opponents: str, from_turn: int, samples: int,
           time_limit: float, fmt: str, output: str | None, puzzles_path: str | None,
           seed: int | None) -> None:
    """Review a recorded game: each decision's card, the best card, the regret and a label.

    Every decision is judged from its player's view (hidden hands stay hidden except
    in logic) by the analysis against the model; row choices likewise. Labels: best,
    ok (regret under 0.3, or inside the Monte Carlo interval), inaccuracy (0.3 to 1),
    mistake (1 to 3), blunder (3 or more). Ctrl-C stops and reports what was reviewed.

    \b
    Examples:
      nimmt simulate --players 2 --bots closest,random --games 1 --one-round --save-games g
      nimmt review g/game-000000.json --player 1 --format html --output review.html
      nimmt review g/game-000000.json --player 1 --puzzles mine.json
    """
    from .solver.players import review as reviewing
    from .solver.players.botmodel import is_model, opponent_spec
    from .solver.players.records import load_record

    if not is_model(opponents):
        try:
            opponent_spec(opponents)
        except NimmtError as e:  # a bad name or parameter: one line with the --help hint
            _usage(str(e))
    if puzzles_path == "-":
        _usage("--puzzles writes a puzzle set file; standard output holds the review: give a "
               "file name")
    if puzzles_path and opponents not in (Model.RANDOM, Model.WORST):
        _usage(f"--puzzles needs --opponents random or worst (the models a puzzle is solved "
               f"in); got --opponents {opponents}")
    record = load_record(game)
    n = record["players"]
    for p in player:
        if p > n:
            _usage(f"--player {p}: this game has players 1..{n}")
    seats = sorted({p - 1 for p in player}) if player else None
    progress = LazyProgress(reviewing.decisions_to_review(record, seats, from_turn), "decisions",
                            delay=0.5)
    try:
        result = reviewing.review_game(record, seats, opponents, samples=samples,
                                       seed=_fresh_seed(seed), time_limit=time_limit,
                                       first_turn=from_turn, progress=progress)
    except SearchInterrupted as stop:  # the decisions judged are reported, then status 130
        result = stop.partial
    finally:
        progress.close()
    if fmt == "json":
        text = json.dumps(result.to_json(), indent=2) + "\n"
    elif fmt == "html":
        text = reviewing.render_html(result)
    else:
        text = reviewing.render_text(result, "github" if fmt == "markdown" else "simple") + "\n"
    if output:
        from .solver.base.fileio import atomic_write, atomic_write_text

        if fmt == "markdown":
            picture = os.path.splitext(output)[0] + ".png"
            try:
                data = reviewing.regret_figure(result, "png")
            except ImportError:
                text += f"\n({NO_PICTURES})\n"
            else:
                def write(tmp: str) -> None:
                    with open(tmp, "wb") as f:
                        f.write(data)

                atomic_write(picture, write)
                text += f"\n![regret per turn]({os.path.basename(picture)})\n"
        atomic_write_text(output, text)
    else:
        click.echo(text, nl=False)
    if puzzles_path and result.complete:
        _write_mistakes(result, puzzles_path)
    if not result.complete:
        click.echo(f"nimmt: interrupted: {len(result.decisions)} decisions reviewed "
                   f"(reported){'; no puzzles written' if puzzles_path else ''}", err=True)
        sys.exit(130)


def _command_line() -> str:
    """The command as typed (for a file's ``command`` field)."""
    import shlex

    return " ".join(["nimmt", *map(shlex.quote, sys.argv[1:])])


def _write_mistakes(result: Any, path: str) -> None:
    """``review --puzzles``: the review's mistakes and blunders as a puzzle set at ``path``."""
    from .puzzles.files import save_set
    from .puzzles.mistakes import mistake_puzzles, mistakes_of

    count = len(mistakes_of(result))
    progress = LazyProgress(count, "mistakes solved", delay=0.5)
    try:
        made = mistake_puzzles(result, progress=progress)
    except KeyboardInterrupt:
        progress.close()
        click.echo(f"nimmt: interrupted while solving the mistakes; {path} not written",
                   err=True)
        sys.exit(130)
    progress.close()
    save_set(made.puzzle_set(command=_command_line()), path)
    click.echo(f"wrote {path}: {plural(len(made.puzzles), 'puzzle')} from "
               f"{plural(count, 'mistake or blunder', 'mistakes and blunders')}", err=True)
    for line in made.skipped:
        click.echo(f"  skipped: {line}", err=True)


# ---------------------------------------------------------------- play

@cli.command(context_settings=CONTEXT)
@rules_options
@click.option("--bots", required=True,
              help="Comma-separated bots for the other seats, 2..N (" + BOTS_HELP + ").")
@click.option("--threshold", type=click.IntRange(1, 10_000), default=DEFAULT_THRESHOLD,
              show_default=True, help="The game ends when a total reaches this.")
@click.option("--one-round", is_flag=True, help="Play a single round.")
@click.option("--record", "record_path", type=OutputPath(), default=None,
              help="Save the game record here (atomically) at the end, on quit, on Ctrl-C "
                   "and at the end of input.")
@click.option("--hint-time", type=FiniteFloat(0, min_open=True), default=5.0,
              show_default=True, help="Seconds a hint or why may think.")
@seed_option
def play(variant: str, players: int, placement: str, bots: str, threshold: int,
         one_round: bool, record_path: str | None, hint_time: float,
         seed: int | None) -> None:
    """Play a game at the terminal against bots (you are player 1).

    At each card type a card of your hand, hint (the analysis of this decision),
    why CARD (what it risks, and its worst-case line late in the round), undo (take
    back your last card of this round) or quit; the last card of a round is played for
    you. Row choices are asked when your card has more than one place, after the turn's
    cards are shown; hint there values each option. Hints value against the seated bots
    when every other seat has the same rule-of-thumb bot, else the random model (said).
    Ctrl-C or the end of input stops; the record is saved.

    \b
    Example:
      nimmt play --players 3 --bots expecti,closest --one-round --record game.json
    """
    from .solver.players.play import HumanGame, other_seats
    from .solver.players.records import save_record

    try:
        specs = other_seats(bots, players)
    except NimmtError as e:  # a bad name or count: one line with the --help hint
        _usage(cli_message(e))
    used = _fresh_seed(seed)

    def ask(prompt: str) -> str | None:
        click.echo(prompt + "> ", nl=False)
        line = sys.stdin.readline()
        if not line:
            click.echo()
            return None
        return line

    game = HumanGame(Rules(variant, players, placement, threshold, one_round), specs, used,
                     ask, click.echo, hint_time)
    click.echo(f"nimmt play: {variant}, {players} players, {placement}, "
               + ("one round" if one_round else f"to {threshold}")
               + f"; you are player 1 against {', '.join(game.labels[1:])}; seed {used}")
    interrupted = False
    try:
        record = game.run()
    except KeyboardInterrupt:
        interrupted = True
        record = game.record
        click.echo("\ninterrupted")
    if record_path:
        save_record(record_path, record)
        click.echo(f"saved the game record to {record_path}")
        click.echo(f"review it: nimmt review {record_path} --player 1")
    else:
        click.echo("(give --record FILE to keep the game and review it with nimmt review)")
    if interrupted:  # the last line on stderr, as every command's Ctrl-C
        click.echo("nimmt: interrupted", err=True)
        sys.exit(130)


# ---------------------------------------------------------------- board

@cli.command(context_settings=CONTEXT)
@click.argument("source", required=False)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="The port to listen on (0: a free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on. Another than 127.0.0.1 lets other machines "
                   "reach the board (with the token): only on a network you trust.")
@click.option("--no-browser", is_flag=True, help="Print the address; do not open a browser.")
def board(source: str | None, port: int, host: str, no_browser: bool) -> None:
    """Open the analysis board in the browser: a position, a game or puzzles.

    \b
    SOURCE is one of:
      a position (the notation, a built-in example's name or a position file; default:
        the example): its rows and hand as cards, each card in hand badged with its
        value and its loss against the best card as the search runs, against the
        opponents you choose (the figures of nimmt analyse --format json);
      a game record (--save-games, nimmt play --record): stepped turn by turn, and
        reviewed as nimmt review does, each decision marked, with the picture of regret;
        its mistakes become puzzles at a click;
      a puzzle set (a shipped set's name or a file): solved by clicking, chosen by theme
        and difficulty.
    The Play tab plays a game against bots, with hints (the analysis against the bots'
    model, as nimmt play's hint), and saves its record or opens it for review.

    The board answers on 127.0.0.1 only, at an address with a secret token for this run
    (printed). Needs the board extra: pip install "nimmt[board]". Ctrl-C stops the server.

    \b
    Examples:
      nimmt board example
      nimmt board g/game-000000.json
      nimmt board two-player-endgames
    """
    import socket
    import webbrowser

    try:
        import uvicorn

        from .puzzles.boardview import puzzle_view
        from .solver.faces import board as web
        from .solver.faces.boardgame import game_view
        from .solver.faces.boardplay import play_view
        from .solver.faces.boardserver import Guard, new_token
    except ImportError as e:
        _fail(f"nimmt board needs the board extra ({e.name} is missing): "
              "pip install \"nimmt[board]\"")
    kind, loaded = _board_source(source)
    notation = loaded if kind == "position" else None
    views = (puzzle_view(loaded if kind == "puzzles" else None),
             game_view(loaded if kind == "game" else None, source or ""), play_view())
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        # listening before the address is printed: a browser (or a test) that connects
        # while the server still starts waits in the backlog instead of being refused
        listener.listen(128)
    except (OSError, UnicodeError) as e:
        listener.close()
        _usage(f"cannot listen on {host}:{port} ({getattr(e, 'strerror', None) or e}); "
               "give another --port or --host")
    port = listener.getsockname()[1]
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"nimmt board: warning: listening on {host}, not only on this machine; "
                   "anyone with the address and its token can use the board", err=True)
    token = new_token()
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/?token={token}"
    app = web.board_app(Guard.local(token, shown, port), notation, views=views,
                        start_view=kind)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    click.echo(f"nimmt board: open {url}  (Ctrl-C stops)")
    if not no_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
    click.echo("nimmt: interrupted", err=True)  # the server ends only by a signal
    sys.exit(130)


def _board_source(source: str | None) -> tuple[str, Any]:
    """What ``nimmt board SOURCE`` opens: ("position", notation or None), ("game",
    record) or ("puzzles", the set's name or path); a bad one is one line (exit 2)."""
    from .puzzles.files import FORMAT as PUZZLES_FORMAT
    from .puzzles.files import load_set, shipped_sets
    from .solver.base.fileio import read_json
    from .solver.players.records import FORMAT as GAME_FORMAT
    from .solver.players.records import RECORD_LIMIT, load_record

    if source is None:
        return "position", None
    if source in shipped_sets():
        return "puzzles", source
    if os.path.isfile(source) and source.endswith(".json"):
        data = read_json(source, "board file", RECORD_LIMIT)
        kind = data.get("format") if isinstance(data, dict) else None
        if kind == GAME_FORMAT:
            return "game", load_record(source)
        if kind == PUZZLES_FORMAT:
            load_set(source)  # checked now: a bad set is one line before the server starts
            return "puzzles", source
    return "position", format_position(load_position(source))


# ---------------------------------------------------------------- puzzles

@cli.group(context_settings=CONTEXT)
def puzzles() -> None:
    """Puzzle sets: positions with exactly one clearly best card, solved and rated.

    \b
    Examples:
      nimmt puzzles list
      nimmt puzzles show two-player-endgames 1 --solution
      nimmt puzzles generate --players 2 --cards-left 5 --count 10 --seed 1 --output mine.json
    """


@puzzles.command("generate", context_settings=CONTEXT)
@click.option("--variant", type=choice(Variant.TACTICAL, Variant.LOGIC),
              default=Variant.TACTICAL.value, show_default=True)
@click.option("--players", "-n", type=click.IntRange(2, 4), required=True)
@click.option("--placement", type=choice(*Placement), default=Placement.NORMAL.value,
              show_default=True)
@click.option("--cards-left", "-k", type=click.IntRange(2, 6), default=4, show_default=True)
@click.option("--count", "-c", type=click.IntRange(1, 10_000), default=30, show_default=True)
@click.option("--model", type=choice(Model.WORST, Model.NASH, Model.RANDOM),
              default=Model.WORST.value,
              show_default=True, help="The sense of 'best' (see nimmt analyse --help).")
@click.option("--min-margin", type=FiniteFloat(0), default=None,
              help="How much better the solution must be than the next card, in the model's "
                   "unit (default: worst 1, random and nash 0.5).")
@click.option("--easy", is_flag=True, help="Keep puzzles that every simple bot solves.")
@batch_options
@click.option("--output", "-o", required=True,
              type=OutputPath("a puzzle set is written to a file (atomically); give a file "
                              "name"),
              help="File to write (checked before generating). An interrupted run writes what "
                   "it has, marked incomplete, beside an existing file as NAME.partial.json.")
@seed_option
def puzzles_generate(variant, players, placement, cards_left, count, model, min_margin, easy,
                     batch, output, seed) -> None:
    """Generate a puzzle set (written atomically; the same seed gives the same set).

    \b
    Example:
      nimmt puzzles generate --players 3 --cards-left 4 --count 30 --seed 1 --output p3.json
    """
    import os
    from dataclasses import replace

    from .puzzles.core import DEFAULT_MARGIN, Settings, generate
    from .puzzles.files import save_set
    from .puzzles.records import PuzzleSet, SetStats
    from .solver.base.fileio import output_target, partial_path

    used = _fresh_seed(seed)
    margin = DEFAULT_MARGIN[model] if min_margin is None else min_margin
    settings = Settings(variant, players, placement, cards_left, model, margin, easy, used)
    command = (f"nimmt puzzles generate --variant {variant} --players {players} --placement "
               f"{placement} --cards-left {cards_left} --count {count} --model {model} "
               f"--min-margin {margin:g}{' --easy' if easy else ''} --seed {used}")
    bar = LazyProgress(count, "puzzles kept")
    state = {"kept": 0}

    def progress(kept: int, tried: int) -> None:
        bar(kept - state["kept"])
        state["kept"] = kept

    start = time.perf_counter()
    report: dict = {}
    try:
        found, tried = generate(settings, count, batch=batch, progress=progress,
                                report=report)
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    interrupted = report.get("interrupted", False)
    if not found and interrupted:
        click.echo(f"nimmt: interrupted after {tried} candidates, before any puzzle was kept; "
                   f"nothing written", err=True)
        sys.exit(130)
    if not found:
        _fail(f"no puzzle found among {tried} candidates; lower --min-margin or try --easy")
    stats = SetStats(candidates=tried, kept=len(found), seconds=round(seconds, 2),
                     acceptance=round(len(found) / tried, 4),
                     kept_per_minute=round(60 * len(found) / max(seconds, 1e-9), 1))
    data = PuzzleSet(tuple(found), command=command, complete=not interrupted,
                     settings=settings, stats=stats)
    if interrupted:  # never replace a file with less: an existing one stays as it was
        data = replace(data, note=f"incomplete: interrupted after {tried} candidates with "
                                  f"{len(found)} of {count} puzzles; run the command again "
                                  "for the whole set")
        target = output_target(output)
        where = partial_path(target) if os.path.lexists(target) else output
        save_set(data, where)
        kept = f"; {output} was left as it was" if where != output else ""
        click.echo(f"nimmt: interrupted: wrote {where}: {len(found)} of {count} puzzles, "
                   f"marked incomplete{kept}", err=True)
        sys.exit(130)
    save_set(data, output)
    note = "" if len(found) == count else f" (asked for {count}; stopped or ran out)"
    click.echo(f"wrote {output}: {len(found)} puzzles from {tried} candidates{note}, "
               f"{seconds:.1f} s")


@puzzles.command("list", context_settings=CONTEXT)
@click.argument("file", required=False)
def puzzles_list(file: str | None) -> None:
    """List a set's puzzles, or, without FILE, the shipped sets.

    \b
    Example:
      nimmt puzzles list two-player-endgames
    """
    from .puzzles.files import load_set, shipped_sets

    if file is None:
        rows = []
        for name in shipped_sets():
            data = load_set(name)
            st = data.settings
            rows.append([name, len(data.puzzles)]
                        + ([st.variant, st.players, st.placement, st.cards_left, st.model]
                           if st else [None] * 5))
        click.echo(tabulate(rows, headers=["set", "puzzles", "variant", "players", "placement",
                                           "cards left", "model"], tablefmt="simple"))
        return
    data = load_set(file)
    click.echo(tabulate([[i, p.id, p.model, p.difficulty, ", ".join(p.themes)]
                         for i, p in enumerate(data.puzzles, 1)],
                        headers=["#", "id", "model", "difficulty", "themes"], tablefmt="simple"))


@puzzles.command("show", context_settings=CONTEXT)
@click.argument("file")
@click.argument("ident", required=False)
@click.option("--solution", is_flag=True, help="Show the solution too.")
def puzzles_show(file: str, ident: str | None, solution: bool) -> None:
    """Show a puzzle (the first, or ID: an id or a number) and, on request, its solution.

    \b
    Example:
      nimmt puzzles show two-player-endgames 3 --solution
    """
    from .puzzles import render
    from .puzzles.files import find_puzzle, load_set

    data = load_set(file)
    chosen = [find_puzzle(data, ident)] if ident else data.puzzles[:1]
    for puzzle in chosen:
        click.echo(render.board(puzzle))
        if solution:
            click.echo("")
            click.echo(render.solution(puzzle))


@puzzles.command("quiz", context_settings=CONTEXT)
@click.argument("file")
@click.option("--count", type=click.IntRange(1, 10_000), default=None,
              help="How many puzzles (default: all).")
@click.option("--shuffle", is_flag=True,
              help="Random order; the first line names its seed (give --seed to repeat it).")
@click.option("--theme", "themes", multiple=True, metavar="THEME",
              help="Only puzzles with this theme; repeat it (or give a comma list) for any "
                   "of several. `nimmt puzzles list FILE` shows the themes.")
@click.option("--difficulty", metavar="RANGE",
              help="Only puzzles of this difficulty: 3, 2..5, 4.. or ..3.")
@seed_option
def puzzles_quiz(file: str, count: int | None, shuffle: bool, themes: tuple[str, ...],
                 difficulty: str | None, seed: int | None) -> None:
    """Solve puzzles in the terminal: see the board, name a card, read the answer.

    Works with piped input too (one card per line). The end of input stops and shows
    the score; so does Ctrl-C, which then exits with status 130.

    \b
    Examples:
      nimmt puzzles quiz two-player-endgames --count 5
      nimmt puzzles quiz two-player-endgames --theme sixth-card-trap --difficulty 3..
    """
    import random

    from .puzzles import render
    from .puzzles.files import load_set, parse_difficulty, select_puzzles

    data = load_set(file)
    wanted = [t.strip() for group in themes for t in group.split(",") if t.strip()]
    chosen = select_puzzles(data, wanted, (None, None) if difficulty is None
                            else parse_difficulty(difficulty))
    if not chosen:
        _fail(f"no puzzle of {file} has {' or '.join(wanted) if wanted else 'any theme'}"
              f"{'' if difficulty is None else f' at difficulty {difficulty}'}; widen --theme "
              "or --difficulty")
    if shuffle:
        used = _fresh_seed(seed)
        random.Random(used).shuffle(chosen)
        click.echo(f"shuffled with seed {used} (give --shuffle --seed {used} to repeat the "
                   "order)\n")
    chosen = chosen[:count] if count else chosen
    score = asked = 0
    interrupted = False
    try:
        for puzzle in chosen:
            hand = list(puzzle.cards)
            click.echo(render.board(puzzle))
            while True:
                # the prompt written (and flushed) by click, not by input(): input() drops an
                # error raised while it flushes, and a Ctrl-C then would be lost
                click.echo(f"your card ({', '.join(map(str, hand))}): ", nl=False)
                answer = input().strip()
                if re.fullmatch(r"[0-9]+", answer, re.ASCII) and int(answer) in hand:
                    break
                click.echo(f"{cut(answer)!r} is not in your hand; answer with one of "
                           f"{', '.join(map(str, hand))}")
            asked += 1
            card = int(answer)
            if puzzle.values[card] - puzzle.values[puzzle.solution] <= 1e-9:  # a tie is right
                score += 1
                click.echo("correct!")
                click.echo(render.solution(puzzle))
            else:
                from .puzzles.core import refutation
                from .solver.positions.position import parse_position

                regret = puzzle.values[card] - puzzle.values[puzzle.solution]
                click.echo(f"not quite: {card} costs {regret:.3g} more than {puzzle.solution}.")
                line = puzzle.refutation if card == puzzle.tempting else \
                    refutation(parse_position(puzzle.position), card, puzzle.model)
                click.echo(render.solution(puzzle, refuted=card, line=line))
            click.echo(f"score: {score}/{asked}\n")
    except EOFError:
        click.echo("")
    except KeyboardInterrupt:  # the score so far, then "interrupted" and status 130
        click.echo("")
        interrupted = True
    click.echo(f"final score: {score}/{asked}")
    if interrupted:
        raise click.Abort()


@puzzles.command("check", context_settings=CONTEXT)
@click.argument("file")
def puzzles_check(file: str) -> None:
    """Re-solve every puzzle; report any whose stored solution no longer holds (exit 1).

    \b
    Example:
      nimmt puzzles check two-player-endgames
    """
    from .puzzles.core import check_puzzle
    from .puzzles.files import load_set

    data = load_set(file)
    failures = 0
    progress = LazyProgress(len(data.puzzles), "puzzles checked")
    try:
        for puzzle in data.puzzles:
            problems = check_puzzle(puzzle, cli_message)
            progress(1)
            if problems:
                failures += 1
                click.echo(f"{puzzle.id}: " + "; ".join(problems))
    finally:
        progress.close()
    click.echo(f"{len(data.puzzles) - failures} of {len(data.puzzles)} puzzles hold")
    if failures:
        sys.exit(1)


@puzzles.command("export", context_settings=CONTEXT)
@click.argument("file")
@click.option("--format", "fmt", type=click.Choice(["markdown", "html"]), required=True)
@click.option("--output", "-o", type=OutputPath(), default=None,
              help="File to write (default, or -: standard output).")
def puzzles_export(file: str, fmt: str, output: str | None) -> None:
    """Export a set for printing or sharing, with a picture of the rows (SVG).

    \b
    Example:
      nimmt puzzles export two-player-endgames --format html --output puzzles.html
    """
    from .puzzles import render
    from .puzzles.files import load_set
    from .solver.base.fileio import atomic_write_text

    data = load_set(file)
    text = render.export_markdown(data) if fmt == "markdown" else render.export_html(data)
    if output and output != "-":
        atomic_write_text(output, text)
        click.echo(f"wrote {output}: {len(data.puzzles)} puzzles")
    else:
        click.echo(text)


# ---------------------------------------------------------------- study

@cli.command("study", context_settings=CONTEXT)
@click.option("--variant", type=choice(Variant.TACTICAL, Variant.LOGIC),
              default=Variant.TACTICAL.value, show_default=True)
@click.option("--players", "-n", type=int, required=True, help="2..4.")
@click.option("--cards-left", "-k", default="2..6", show_default=True,
              help="The numbers of cards left: low..high, one number, or a list (2,4).")
@click.option("--positions", type=int, default=500, show_default=True, help="Per k.")
@click.option("--placement", type=choice(*Placement), default=Placement.NORMAL.value,
              show_default=True)
@click.option("--models", default="random,worst,nash", show_default=True,
              help="Models to solve each position in (nash: 2 players only); the first one "
                   "decides the themes and the instructive positions.")
@click.option("--bots", default="closest,lowkeeper,dumper,expecti", show_default=True,
              help="Bots whose picks are scored (any bot of nimmt simulate).")
@click.option("--dealt-by", default=None,
              help="Rule-of-thumb bots that play the deals forward, one per seat in rotation "
                   "(default: closest,lowkeeper,dumper,random, as puzzle candidates).")
@batch_options
@click.option("--time-limit", type=FiniteFloat(0.001), default=None,
              help="Seconds; then the positions finished are reported, marked incomplete.")
@click.option("--output", "-o", required=True,
              type=OutputPath("a study is written to a file (atomically); give a file name"),
              help="study.html (one file, pictures inline), study.md (PNG pictures beside "
                   "it) or study.json (every number and position).")
@seed_option
def study_command(variant, players, cards_left, positions, placement, models, bots, dealt_by,
                  batch, time_limit, output, seed) -> None:
    """Study endgames: many positions dealt like puzzle candidates, each solved exactly in
    every model; how often the card matters, what each bot loses, where models disagree.

    \b
    Example:
      nimmt study --players 2 --cards-left 2..5 --positions 200 --seed 1 --output study.html
    """
    from .puzzles.core import DEAL_BOTS
    from .puzzles.study import StudySettings, check_study, parse_cards_left, run_study
    from .puzzles.studyreport import check_format, report_data, write_report
    from .solver.base.fileio import output_target, partial_path
    from .solver.players.bots import split_bot_list

    check_format(output)
    used = _fresh_seed(seed)
    settings = StudySettings(
        variant, players, parse_cards_left(cards_left), positions, used, placement,
        tuple(m.strip() for m in models.split(",") if m.strip()),
        tuple(split_bot_list(bots)),
        tuple(split_bot_list(dealt_by)) if dealt_by else DEAL_BOTS)
    check_study(settings)
    command = (f"nimmt study --variant {variant} --players {players} --cards-left "
               f"{cards_left} --positions {positions} --placement {placement} --models "
               f"{','.join(settings.models)} --bots {','.join(settings.bots)} --dealt-by "
               f"{','.join(settings.dealt_by)} --seed {used}")
    bar = LazyProgress(positions * len(settings.cards_left), "positions")
    try:
        study = run_study(settings, batch=batch, time_limit=time_limit, progress=bar)
    finally:
        bar.close()
    data = report_data(study, command)
    where = output
    if study.stopped == "interrupted" and os.path.lexists(output_target(output)):
        where = partial_path(output_target(output))  # never replace a file with less
    written = write_report(data, where)
    if not where.lower().endswith(".json") and not have_pictures():
        click.echo(f"nimmt: {NO_PICTURES}", err=True)
    done = len(study.records)
    total = positions * len(settings.cards_left)
    if study.stopped == "interrupted":
        click.echo(f"nimmt: interrupted: wrote {', '.join(written)}: {done} of {total} "
                   "positions, marked incomplete", err=True)
        sys.exit(130)
    state = "" if study.complete else f", stopped by the time limit: {done} of {total}, " \
                                      "marked incomplete"
    click.echo(f"wrote {', '.join(written)}: {done} positions in {study.seconds:.1f} s"
               f"{state}; seed {used}")


# ---------------------------------------------------------------- the standard streams

class _StandardStream(io.RawIOBase):
    """File descriptor 1 or 2 under ``sys.stdout`` / ``sys.stderr``. A write to stdout that
    fails is marked with the stream's name (``nimmt_stream``), so that the entry point can
    tell a failing standard output from any other OSError; after that first failure writes
    are dropped, so that the interpreter's own flush at exit cannot fail a second time.
    stderr carries only notices and the error line: a failure there is dropped at once, so
    that a full or closed stderr never stops a run whose output is fine (the exit status
    still tells an error)."""

    def __init__(self, fd: int, name: str) -> None:
        super().__init__()
        self.fd, self.name = fd, name
        self.failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data: Any) -> int:
        if self.failed:
            return len(data)
        try:
            return os.write(self.fd, data)
        except OSError as e:
            self.failed = True
            if self.name == "stderr":
                return len(data)
            e.nimmt_stream = self.name  # type: ignore[attr-defined]
            raise


def _guard_streams() -> None:
    """Put ``_StandardStream`` under sys.stdout and sys.stderr (same encoding, errors and
    buffering as Python's own)."""
    for name in ("stdout", "stderr"):
        old = getattr(sys, name)
        try:
            fd = old.fileno()
            old.flush()
        except (AttributeError, ValueError, OSError):
            continue  # not a real file (an embedding replaced it): leave it alone
        new = io.TextIOWrapper(io.BufferedWriter(_StandardStream(fd, name)),
                               encoding=old.encoding, errors=old.errors,
                               line_buffering=old.line_buffering or name == "stderr",
                               write_through=name == "stderr")
        setattr(sys, name, new)


def _is_stdout_error(error: BaseException | None) -> bool:
    """Is ``error`` (or what it was raised from or while handling) a failed write to
    standard output?"""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if getattr(error, "nimmt_stream", None) == "stdout":
            return True
        error = error.__cause__ or error.__context__
    return False


def _stdout_failed(what: str) -> NoReturn:
    """The output cannot be written: say so in one line on stderr (if stderr takes it) and
    exit with status 1 (not 2: nothing was wrong with the command itself)."""
    try:
        sys.stderr.write(f"nimmt: error: {what}; the output is lost: send it to a file or "
                         "a device that takes it (e.g. > out.txt, or > /dev/null to drop "
                         "it)\n")
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass  # stderr fails too (closed, full): the exit status is all that is left
    sys.exit(1)


# What ``nimmt compile`` runs: one small command per engine, each compiling (or loading) the
# kernels that engine's commands use. Every one is a whole ``nimmt`` run in its own process,
# so that independent engines compile side by side; the longest first (measured cold, one at
# a time: nash 65 s, exact-win 50 s, montecarlo 41 s, exact 25 s, bots 21 s, games 12 s,
# draft 7 s), so that two processes end together.
COMPILE_JOBS: dict[str, tuple[str, ...]] = {
    "nash": ("solve-deal", "variant=tactical players=2 rows=3,6/5,10/8,11,21/16,19,23 "
             "hand=4,20 p2=15,22 gone=1,2,7,9,12,13,14,17,18,24", "--memory", "64M"),
    # the exact search's other kernel: win with two or more hidden hands told apart
    "exact-win": ("analyse", "players=3 rows=1,6,16/4,20,21/7,14,22,33/30,34 hand=2,3,11,25 "
                  "gone=5,12,13,15,17,18,24,26,27,28 taken=3,0,9", "--objective", "win",
                  "--method", "exact"),
    "montecarlo": ("analyse", "example-3p", "--method", "montecarlo", "--samples", "8",
                   "--seed", "1"),
    # the sampler's other kernel: its exact continuation telling hidden seats apart
    "montecarlo-win": ("analyse", "players=3 rows=1,6,16/4,20,21/7,14,22,33/30,34 "
                       "hand=2,3,11,25 gone=5,12,13,15,17,18,24,26,27,28 taken=3,0,9",
                       "--objective", "win", "--method", "montecarlo", "--samples", "8",
                       "--seed", "1"),
    "exact": ("analyse", "example", "--method", "exact"),
    "bots": ("arena", "-n", "3", "--bots", "expecti:samples=4,mcs:playouts=4,"
             "ismcts:iterations=8", "--deals", "1", "--one-round", "--seed", "1"),
    # the searches' beliefs about hidden hands (kernels/beliefs.py)
    "beliefs": ("arena", "-n", "3", "--bots", "mcs:playouts=4,belief=learned,random,random",
                "--deals", "1", "--one-round", "--seed", "1"),
    "games": ("simulate", "-n", "3", "--games", "1", "--one-round", "--seed", "1"),
    "draft": ("analyse", "example-draft", "--samples", "8", "--seed", "1"),
    # the draft's own samplers: a draft analysed from its first pick, and drafted arenas
    "draft-start": ("analyse", "example-draft-start", "--samples", "8", "--seed", "1"),
    "draft-arena": ("arena", "--variant", "logic", "-n", "2", "--bots", "closest,random",
                    "--drafters", "evaluate,fewest", "--deals", "1", "--seed", "1"),
}


@cli.command("compile", context_settings=CONTEXT)
@click.option("--only", "only", multiple=True, type=click.Choice(sorted(COMPILE_JOBS)),
              help="Only these engines (repeat the option); default: every one.")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Engines compiled at once, each in its own process (default: the cores).")
@click.option("--time-limit", type=FiniteFloat(0.001), default=None,
              help="Seconds; then the engines still compiling are stopped (they compile on "
                   "their first use instead).")
def compile_command(only: tuple[str, ...], workers: int | None,
                    time_limit: float | None) -> None:
    """Compile every numba kernel now, in parallel processes, into numba's cache, so that
    no later command waits for a first-use compile (for images, clusters and CI). A run
    with a warm cache only loads them (a few seconds).

    \b
    Example:
      nimmt compile
      nimmt compile --only exact --only montecarlo
    """
    names = list(only) or list(COMPILE_JOBS)
    workers = workers or os.cpu_count() or 1
    start = time.perf_counter()
    done, stopped = _compile_engines(names, workers, time_limit)
    click.echo(tabulate([_compile_row(name, done, stopped) for name in names],
                        headers=["engine", "seconds", "kernels"], tablefmt="simple"))
    ready = sum(1 for name in done if done[name][1] == 0)
    click.echo(f"{ready} of {len(names)} engines ready in {time.perf_counter() - start:.1f} s "
               f"({workers} at once)" + (f"; stopped: {stopped}" if stopped else ""))
    if stopped == "interrupted":
        sys.exit(130)
    if any(done[name][1] != 0 for name in done):
        sys.exit(1)


def _start_compile(name: str) -> Any:
    """A child ``nimmt`` running ``COMPILE_JOBS[name]`` in its own session, its stderr
    kept."""
    import subprocess

    return subprocess.Popen([sys.executable, "-m", "nimmt.cli", *COMPILE_JOBS[name]],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _reap_compiles(running: dict[str, tuple[Any, float]],
                   done: dict[str, tuple[float, int, str]], bar: Any) -> None:
    """Move the children that ended from ``running`` to ``done`` (seconds, exit status,
    stderr)."""
    for name, (child, began) in list(running.items()):
        if child.poll() is not None:
            error = child.stderr.read() if child.stderr else ""
            done[name] = (time.perf_counter() - began, child.returncode, error)
            del running[name]
            bar(1)


def _compile_engines(names: list[str], workers: int, time_limit: float | None
                     ) -> tuple[dict[str, tuple[float, int, str]], str | None]:
    """Compile ``names``, ``workers`` children at once, until all end, the time limit or
    Ctrl-C (the children still running are killed). Returns each ended child's seconds,
    exit status and stderr by name, and why it stopped early (None, 'time limit' or
    'interrupted')."""
    bar = LazyProgress(len(names), "engines compiled", delay=0.0)
    pending = list(names)
    running: dict[str, tuple[Any, float]] = {}  # name: (child process, its start)
    done: dict[str, tuple[float, int, str]] = {}
    start = time.perf_counter()
    stopped = None
    try:
        while pending or running:
            while pending and len(running) < workers:
                name = pending.pop(0)
                running[name] = (_start_compile(name), time.perf_counter())
            _reap_compiles(running, done, bar)
            if time_limit is not None and time.perf_counter() - start > time_limit:
                stopped = "time limit"
                break
            time.sleep(0.05)
    except KeyboardInterrupt:
        stopped = "interrupted"
    finally:
        for child, _ in running.values():
            child.kill()
            child.wait()
        bar.close()
    return done, stopped


def _compile_row(name: str, done: dict[str, tuple[float, int, str]],
                 stopped: str | None) -> list[str]:
    """``nimmt compile``'s line for one engine: its seconds and whether it is ready."""
    if name not in done:
        return [name, "", "not compiled" if stopped else ""]
    seconds, code, error = done[name]
    return [name, f"{seconds:.1f}", "ready" if code == 0 else f"failed: {_last_line(error)}"]


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return cut(lines[-1], 120) if lines else "no message"


def main() -> None:
    """The ``nimmt`` console script. Beyond ``cli()``: a standard output that cannot take
    the output (closed, a full disk, /dev/full) is one line on stderr and exit status 1,
    never a traceback nor exit 0 with the output lost; a reader that stops early (``|
    head``) ends the run quietly with status 1, as click does."""
    if sys.stdout is None:  # fd 1 closed at start: click.echo would drop every line
        _stdout_failed("standard output is closed")
    if sys.stderr is None:  # fd 2 closed: its notices are dropped, the run goes on
        sys.stderr = open(os.devnull, "w")  # open for the whole run
    _guard_streams()
    code: Any = 0
    try:
        cli()
    except SystemExit as e:
        code = e.code
    except OSError as e:
        if not _is_stdout_error(e):
            raise
        if e.errno != errno.EPIPE:
            _stdout_failed(f"cannot write standard output: {e.strerror or e}")
        sys.exit(1)  # the reader closed the pipe: nothing to say
    try:
        sys.stdout.flush()  # the last lines, while a failure can still be reported
    except OSError as e:
        if e.errno != errno.EPIPE:
            _stdout_failed(f"cannot write standard output: {e.strerror or e}")
        sys.exit(1)
    sys.exit(code)


if __name__ == "__main__":
    main()
