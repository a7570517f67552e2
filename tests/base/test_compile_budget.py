"""A kernel's compile is never charged to a time budget, and a first run says it compiles.

numba reports each compile (a cache miss) as a "numba:compile" event; ``notice`` keeps the
seconds inside those events out of ``work_clock``, the clock of every budget. The tests
raise that event around a sleep, the way numba raises it around a compile, so they need no
real (minutes-long) compile.
"""
from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time

import pytest
from click.testing import CliRunner
from numba.core import event

from nimmt import cli
from nimmt.solver.base import notice
from nimmt.solver.base.errors import SearchStopped
from nimmt.solver.base.rules import Rules
from nimmt.solver.kernels import exactsearch
from nimmt.solver.positions.position import EXAMPLES, parse_position
from nimmt.solver.search import analysis, exact
from nimmt.solver.search.game import deal_position

EXAMPLE = parse_position(EXAMPLES["example"])


class _Named:
    """What numba's event carries: the dispatcher, whose py_func names the kernel."""

    def __init__(self, name: str) -> None:
        self.py_func = type("f", (), {"__name__": name})


def fake_compile(seconds: float, name: str = "solve_cards") -> None:
    """Hold numba's compile event open for ``seconds``, as a compile would."""
    with event.trigger_event("numba:compile", data={"dispatcher": _Named(name)}):
        time.sleep(seconds)


@pytest.fixture
def listening():
    import nimmt.solver.kernels.engine  # noqa: F401  (installs the listener)

    assert notice._state["installed"]


def test_the_work_clock_stands_still_while_a_kernel_compiles(listening):
    wall, work, compiled = time.perf_counter(), notice.work_clock(), notice.compile_seconds()
    fake_compile(0.4)
    time.sleep(0.1)
    wall, work = time.perf_counter() - wall, notice.work_clock() - work
    assert notice.compile_seconds() - compiled == pytest.approx(0.4, abs=0.05)
    assert work == pytest.approx(wall - 0.4, abs=0.05)
    assert not notice.compiling()


def test_nested_compiles_count_once(listening):
    before = notice.compile_seconds()
    with event.trigger_event("numba:compile", data={"dispatcher": _Named("outer")}):
        fake_compile(0.2, "inner")  # a kernel compiling the kernel it calls
        assert notice.compiling()
    assert notice.compile_seconds() - before == pytest.approx(0.2, abs=0.05)


def dropped_interrupt() -> None:
    """SIGINT to this process, its KeyboardInterrupt dropped, as an LLVM callback drops it
    while a kernel compiles ("Exception ignored on calling ctypes callback function")."""
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # the handler runs here
    except KeyboardInterrupt:
        pass


def test_ctrl_c_dropped_inside_a_compile_stops_when_the_compile_ends(listening):
    """The interrupt is not lost: the compile's end raises it."""
    with pytest.raises(KeyboardInterrupt):
        with event.trigger_event("numba:compile", data={"dispatcher": _Named("k")}):
            dropped_interrupt()
            time.sleep(0.05)  # the compile goes on after the dropped interrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    fake_compile(0.01)  # a later compile without Ctrl-C ends quietly


def test_ctrl_c_that_propagates_from_a_compile_is_raised_once(listening):
    with pytest.raises(KeyboardInterrupt) as stop:
        with event.trigger_event("numba:compile", data={"dispatcher": _Named("k")}):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
    assert stop.value.__context__ is None  # not a second interrupt raised over the first
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    fake_compile(0.01)


def test_the_dropped_interrupt_leaves_no_traceback_on_stderr(listening, capsys, monkeypatch):
    """LLVM's callback reports the KeyboardInterrupt it drops ("Exception ignored ...",
    a traceback); while a kernel compiles that report is left out, other ones are not."""
    from types import SimpleNamespace

    seen: list = []
    monkeypatch.setitem(notice._state, "hook", seen.append)  # the hook before notice's
    assert sys.unraisablehook is notice._keep_interrupt
    with event.trigger_event("numba:compile", data={"dispatcher": _Named("k")}):
        sys.unraisablehook(SimpleNamespace(exc_value=KeyboardInterrupt()))
        sys.unraisablehook(SimpleNamespace(exc_value=ValueError("other")))
    assert [type(u.exc_value) for u in seen] == [ValueError]
    assert capsys.readouterr().err == ""


def test_ctrl_c_dropped_by_a_callback_outside_a_compile_is_raised_after_it(listening, capsys):
    """numba's runtime starts at the first kernel a process loads, cached or not, and
    LLVM calls back into Python then too: a Ctrl-C dropped there (here by a ctypes
    callback of the C library's qsort) is raised in the Python code after the callback,
    without a traceback on stderr."""
    import ctypes

    libc = ctypes.CDLL(None)
    compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    calls = []

    def interrupted(a, b):
        calls.append(1)
        raise KeyboardInterrupt

    numbers = (ctypes.c_int * 2)(2, 1)
    callback = compare(interrupted)
    with pytest.raises(KeyboardInterrupt):
        libc.qsort(numbers, 2, ctypes.sizeof(ctypes.c_int), callback)
        time.sleep(1.0)  # the Python code after the callback
    assert calls and capsys.readouterr().err == ""


def test_a_compile_seen_from_another_thread_is_not_work(listening):
    """The exact search compiles in its worker thread while this one watches the clock."""
    start = notice.work_clock()
    worker = threading.Thread(target=fake_compile, args=(0.5,))
    worker.start()
    time.sleep(0.3)
    assert notice.compiling() and notice.work_clock() - start < 0.15
    worker.join()


def compiling_first(monkeypatch, seconds: float) -> None:
    """The exact search's kernel, as if its first call compiled for ``seconds``."""
    kernel = exactsearch.solve_cards

    class FirstCallCompiles:
        # the real kernel's: compiled_for sees it loaded, so solve_exact skips its warm call
        overloads, typeof_pyval = kernel.overloads, kernel.typeof_pyval

        def __init__(self) -> None:
            self.calls = 0

        def __call__(self, *args):
            self.calls += 1
            if self.calls == 1:
                fake_compile(seconds)
            return kernel(*args)

    monkeypatch.setattr(exact, "solve_cards", FirstCallCompiles())


def test_a_time_limit_starts_when_the_kernel_is_loaded(listening, monkeypatch):
    exact.solve_exact(EXAMPLE, "random")  # the real kernel compiled or loaded
    compiling_first(monkeypatch, 1.5)
    result = exact.solve_exact(EXAMPLE, "random", time_limit=0.5)
    assert len(result.cards) == EXAMPLE.cards_left and result.seconds < 0.5


def test_a_real_time_limit_still_stops_the_search(listening, monkeypatch):
    """The clock is not stopped for good: a search that outlasts its limit stops."""
    position = deal_position(Rules("tactical", 3), 7, seed=1)  # minutes of search
    with pytest.raises(SearchStopped):
        exact.solve_exact(position, "random", time_limit=0.2)


def test_auto_answers_exactly_when_the_first_use_compiles(listening, monkeypatch):
    """auto gives exact search AUTO_SECONDS; a compile longer than that used to eat them
    and leave the answer to Monte Carlo."""
    exact.solve_exact(EXAMPLE, "random")
    compiling_first(monkeypatch, 1.2)
    monkeypatch.setattr(analysis, "AUTO_SECONDS", 1.0)
    result = analysis.analyse(EXAMPLE, "random", "auto", seed=1)
    assert result.method == "exact", result.reason


def test_the_first_compile_is_said_on_stderr_without_a_terminal(listening, monkeypatch):
    monkeypatch.setitem(notice._state, "fired", False)
    monkeypatch.setattr(notice, "on_compile", None)
    runner = CliRunner()

    original = exact.solve_exact

    def solve_compiling(*args, **kwargs):
        fake_compile(0.05)
        return original(*args, **kwargs)

    monkeypatch.setattr(exact, "solve_exact", solve_compiling)
    result = runner.invoke(cli.cli, ["analyse", "example", "--method", "exact"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "compiling" in line]
    assert lines == [cli.COMPILE_NOTICE.format(seconds=cli.FIRST_USE_SECONDS["analyse"])]
    assert re.fullmatch(r"nimmt: compiling the search kernels once, about \d+ s \(not counted "
                        r"in any time limit\); later runs start in about a second", lines[0])


def test_the_notice_names_the_running_command_s_figure():
    group = cli.cli
    with group.make_context("nimmt", ["simulate", "-n", "2"]) as outer:
        command = group.get_command(outer, "simulate")
        with command.make_context("simulate", ["-n", "2"], parent=outer):
            assert cli.first_use_seconds() == cli.FIRST_USE_SECONDS["simulate"]
    assert cli.first_use_seconds() == cli.FIRST_USE_DEFAULT
