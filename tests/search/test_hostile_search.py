"""Budgets and interrupts in every search: exact search honours a time limit,
Ctrl-C and a memory budget and says what it finished; auto tries exact search before
Monte Carlo; tree refuses a hopeless tree at once; the nash plan and time limit count
what they should. Each case: one line (or the cards finished, then one line) and the
documented exit status."""
from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nimmt import cli
from nimmt.solver.base.errors import (
    BudgetExceeded,
    MemoryExceeded,
    SearchInterrupted,
    SearchStopped,
)
from nimmt.solver.base.rules import NimmtError, Rules
from nimmt.solver.positions import owners
from nimmt.solver.positions.position import format_position, parse_position
from nimmt.solver.search import exact, nash
from nimmt.solver.search.analysis import HOPELESS, analyse
from nimmt.solver.search.exact import solve_exact
from nimmt.solver.search.game import deal_position

from cli_checks import assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

ROOT = Path(__file__).resolve().parents[2]


# Logic, 4 players, 5 cards each (nimmt deal --variant logic --players 4 --cards-left 5
# --seed 1): estimated 70 million nodes, several minutes of exact search.
@functools.cache
def big() -> str:
    """Dealt on first use, not at import (collection would compile the game kernels)."""
    return format_position(deal_position(Rules("logic", 4), 5, seed=1))


# The 3-player position: estimated 8.4 million nodes, exact in 2.6 million.
THREE = ("variant=tactical players=3 rows=34/2,5,6,11,16/13,14,21,28/3 hand=8,12,22,26,30 "
         "gone=4,7,15,20,27,29,31,33")
SLACK = 1.5  # seconds a stop may take past its limit on a loaded machine


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Load (or compile) the kernels first: the limits below are the searches' own."""
    small = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
                           "gone=1,2,4,5,6,8,9,10,11")
    for model in ("random", "worst"):
        analyse(small, opponents=model)
    analyse(small, method="montecarlo", samples=10)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def three_exact():
    """The 3-player position under auto: exact search, well inside its time budget."""
    return analyse(parse_position(THREE), method="auto")


def test_error_types():
    for cls in (SearchStopped, BudgetExceeded, MemoryExceeded, nash.NashStopped):
        assert issubclass(cls, NimmtError)
    assert issubclass(SearchInterrupted, KeyboardInterrupt)
    assert not issubclass(SearchInterrupted, NimmtError)  # `except NimmtError` never eats Ctrl-C


# ---------------------------------------------------------------- time limit

# A second each: the default run stops each model once (random here, worst on the command
# line below); `pytest -m slow` both models in both
@pytest.mark.parametrize("model", ["random", pytest.param("worst", marks=pytest.mark.slow)])
def test_exact_search_stops_at_its_time_limit(model):
    start = time.perf_counter()
    with pytest.raises(SearchStopped) as info:
        solve_exact(parse_position(big()), model, max_nodes=10**9, time_limit=1.0)
    assert time.perf_counter() - start < 1.0 + SLACK
    stopped = info.value
    assert stopped.reason == "time limit" and stopped.cards_total == 5 and stopped.nodes > 0
    message = str(stopped)
    assert "\n" not in message and "time_limit" in message and "--time-limit" not in message
    assert "--time-limit" in cli.cli_message(stopped)  # the CLI names the flag


@pytest.mark.parametrize("model", [pytest.param("random", marks=pytest.mark.slow), "worst"])
def test_cli_exact_time_limit_is_one_line(runner, model):
    start = time.perf_counter()
    result = invoke(runner, "analyse", big(), "--opponents", model, "--method", "exact",
                    "--max-nodes", 100_000_000, "--time-limit", 1)
    assert time.perf_counter() - start < 1.0 + SLACK
    line = assert_one_line_error(result)  # no card finished: nothing on stdout
    assert "time limit" in line and "0 of 5 cards" in line and "--time-limit" in line


def test_exact_search_without_a_limit_is_whole(three_exact):
    assert three_exact.method == "exact" and three_exact.complete
    assert len(three_exact.cards) == 5


# ---------------------------------------------------------------- memory

def test_memory_guard_keeps_the_cards_finished(three_exact):
    """The memo's largest table (the memory counted in its real bytes) fills at the same
    node every run: card 8 (solved first) is finished and exact; the others are not
    claimed. (16 MiB: the table holds twice the entries 50 MiB held as a typed dict.)"""
    with pytest.raises(MemoryExceeded) as info:
        solve_exact(parse_position(THREE), "random", max_nodes=10**9, memory=16 * 2**20)
    stopped = info.value
    assert stopped.reason == "memory"
    assert [c.card for c in stopped.finished] == [8]
    best = {c.card: c.value for c in three_exact.cards}
    assert stopped.finished[0].value == pytest.approx(best[8], abs=1e-12)
    message = str(stopped)
    assert "\n" not in message and "16 MiB" in message and "memory" in message
    assert "--memory" in cli.cli_message(stopped)  # the CLI names the flag


def test_cli_memory_guard(runner, three_exact):
    result = invoke(runner, "analyse", THREE, "--method", "exact", "--max-nodes", 10_000_000,
                    "--memory", "16M")
    assert result.exit_code == 2
    err = lines(result.stderr)
    assert len(err) == 1 and err[0].startswith("nimmt: error: ") and "memory" in err[0]
    out = lines(result.stdout)
    assert out[0].startswith("incomplete:") and "1 of 5 cards" in out[0]
    assert out[-1].split()[0] == "8" and len(out) == 4  # head, header, rule, card 8
    data = json.loads(invoke(runner, "analyse", THREE, "--method", "exact", "--max-nodes",
                             10_000_000, "--memory", "16M", "--format", "json").stdout)
    assert data["complete"] is False and data["stopped"] == "memory"
    assert [c["card"] for c in data["cards"]] == [8]


# ---------------------------------------------------------------- Ctrl-C

def test_interrupt_keeps_the_cards_finished(three_exact):
    """Ctrl-C once the first card is solved (raised where the signal would land: in the
    caller's thread, which watches the search)."""
    def progress(n):
        raise KeyboardInterrupt

    with pytest.raises(SearchInterrupted) as info:
        solve_exact(parse_position(THREE), "random", max_nodes=10**9, progress=progress)
    assert [c.card for c in info.value.finished] == [8]
    assert info.value.finished[0].value == pytest.approx(
        {c.card: c.value for c in three_exact.cards}[8], abs=1e-12)


def test_ctrl_c_as_the_search_finishes_still_stops_the_caller(monkeypatch):
    """Ctrl-C that lands while a short search is finishing: the search ends complete, and
    the interrupt still reaches the caller (it was lost, and a loop of short searches such
    as puzzle generation went on)."""
    import threading


    class LateCtrlC(threading.Event):
        calls = 0

        def wait(self, timeout=None):
            finished = super().wait()  # the search has ended
            LateCtrlC.calls += 1
            if LateCtrlC.calls == 1:
                raise KeyboardInterrupt
            return finished

    from types import SimpleNamespace

    # exact's own view of threading changed, not the module (Thread.start waits on an Event)
    monkeypatch.setattr(exact, "threading", SimpleNamespace(**{**vars(threading),
                                                               "Event": LateCtrlC}))
    with pytest.raises(KeyboardInterrupt):
        solve_exact(parse_position(THREE), "random", max_nodes=10**9, time_limit=600)
    assert LateCtrlC.calls == 2  # interrupted once, then waited for the worker


def test_cli_interrupt_prints_the_cards_finished(runner, monkeypatch):
    class CtrlC(cli.LazyProgress):
        def __call__(self, step):
            if self.label == "cards solved exactly":
                raise KeyboardInterrupt
            super().__call__(step)

    monkeypatch.setattr(cli, "LazyProgress", CtrlC)
    result = invoke(runner, "analyse", THREE, "--method", "exact", "--max-nodes", 10_000_000)
    assert result.exit_code == 130
    assert lines(result.stderr)[-1] == "nimmt: interrupted"
    out = lines(result.stdout)
    assert out[0].startswith("incomplete:") and "(interrupted)" in out[0]
    assert out[-1].split()[0] == "8"


def threads_of(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def start_searching(*args: str) -> subprocess.Popen:
    """``nimmt ARGS`` in a subprocess, returned once its search's worker thread runs (a
    signal before that would land in the imports). BLAS thread pools are kept to the
    main thread, so the second thread is the search's."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "nimmt.cli", *args], cwd=ROOT, text=True,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while threads_of(proc.pid) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(0.3)
    return proc


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_sigint_stops_exact_search_with_exit_130():
    proc = start_searching("analyse", big(), "--method", "exact", "--max-nodes", "100000000")
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == 130, err
    assert "Traceback" not in err and lines(err)[-1] == "nimmt: interrupted"
    assert out == "" or out.startswith("incomplete:")


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_sigint_stops_tree_and_writes_nothing(tmp_path):
    target = tmp_path / "tree.graphml"
    proc = start_searching("tree", THREE, "--depth", "1", "--output", str(target))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and lines(err)[-1] == "nimmt: interrupted"
    assert out == "" and os.listdir(tmp_path) == []


# ---------------------------------------------------------------- auto

def test_auto_runs_exact_on_the_three_player_position(three_exact):
    estimate = owners.estimate_nodes(parse_position(THREE))
    assert 5_000_000 < estimate < HOPELESS * 5_000_000  # over the budget, not hopeless
    assert three_exact.method == "exact"
    assert three_exact.reason.startswith("auto: exact search finished")
    assert three_exact.best.card == 8


def test_auto_falls_back_with_the_time_left():
    start = time.perf_counter()
    result = analyse(parse_position(big()), method="auto", samples=10**7, seed=1, time_limit=2.0)
    assert time.perf_counter() - start < 2.0 + SLACK
    assert result.method == "montecarlo"
    assert result.reason.startswith("auto: exact search did not finish in ")
    assert "time budget of 1 s" in result.reason and result.reason.endswith("Monte Carlo")


def test_auto_does_not_try_a_hopeless_search():
    start = time.perf_counter()
    result = analyse(parse_position(nimmt_deal("standard", 4, 2)), method="auto", samples=20,
                     seed=1)
    assert time.perf_counter() - start < 10
    assert result.method == "montecarlo" and f"over {HOPELESS}x the budget" in result.reason


def test_auto_worst_falls_back_from_a_hopeless_search(runner):
    """auto falls back to the random model, saying why; exact refuses."""
    r = invoke(runner, "analyse", nimmt_deal("standard", 4, 2), "--opponents", "worst",
               "--samples", "20", "--seed", "1")
    assert r.exit_code == 0 and "fell back to the random model" in r.output
    line = assert_one_line_error(invoke(runner, "analyse", nimmt_deal("standard", 4, 2),
                                        "--opponents", "worst", "--method", "exact"))
    assert "--max-nodes" in line


# ---------------------------------------------------------------- tree

def nimmt_deal(variant: str, players: int, cards_left: int, seed: int = 1) -> str:
    """What ``nimmt deal`` prints for these options."""
    return format_position(deal_position(Rules(variant, players), cards_left, seed))


@pytest.mark.parametrize("max_nodes", [20_000, 50_000])
def test_tree_refuses_a_huge_first_turn_at_once(runner, max_nodes):
    """91,523 nodes in the first turn (2 cards, 45,760 sets of 3 hidden cards each):
    --best-only is named only where it would bring the first turn under --max-nodes."""
    start = time.perf_counter()
    line = assert_one_line_error(invoke(runner, "tree", nimmt_deal("standard", 4, 2),
                                        "--depth", 1, "--format", "text", "--max-nodes",
                                        max_nodes))
    assert time.perf_counter() - start < 5
    assert "91,523" in line and "--min-probability" in line and "--max-nodes" in line
    assert ("--best-only" in line) == (max_nodes == 50_000)
    assert "--method" not in line


def test_tree_refuses_a_hopeless_search_at_once(runner):
    start = time.perf_counter()
    line = assert_one_line_error(invoke(runner, "tree", nimmt_deal("standard", 4, 2),
                                        "--depth", 1, "--format", "text", "--best-only",
                                        "--min-probability", "0.01"))
    assert time.perf_counter() - start < 5
    assert "exact search" in line and "fewer cards left" in line


def test_tree_refuses_a_nash_tree_that_does_not_fit(runner):
    line = assert_one_line_error(invoke(runner, "tree", nimmt_deal("tactical", 2, 10),
                                        "--opponents", "nash", "--depth", 1, "--best-only",
                                        "--format", "text"))
    assert "at most 9 cards left" in line and "--memory" not in line


# ---------------------------------------------------------------- nash

def test_nash_plan_fits_k8_in_4g():
    position = deal_position(Rules("tactical", 2), 8, seed=4)
    assert nash.estimate_bytes(position) <= 4 * 2**30
    assert nash.largest_fitting_k(position, 4 * 2**30) == 8
    # the solve starts (and stops at its time limit) instead of refusing on memory
    with pytest.raises(nash.NashStopped):
        nash.solve_nash(position, memory=4 * 2**30, time_limit=0.01, workers=1)


def test_nash_plan_still_refuses_what_cannot_fit(runner):
    # --method exact refuses; auto falls back to the random model (tests/search/test_budgets.py)
    line = assert_one_line_error(invoke(runner, "analyse", nimmt_deal("tactical", 2, 8, 4),
                                        "--opponents", "nash", "--memory", "256M",
                                        "--method", "exact"))
    assert "--memory" in line and "largest k that fits is 7" in line
    with pytest.raises(MemoryExceeded):
        nash.solve_nash(deal_position(Rules("tactical", 2), 8, seed=4), memory=256 * 2**20)


def test_nash_time_limit_counts_finished_cells():
    seen = []
    with pytest.raises(nash.NashStopped) as info:
        nash.solve_nash(deal_position(Rules("tactical", 2), 7, seed=45), time_limit=0.3,
                        progress=seen.append)
    assert f"with {len(seen)} of 49 root cells solved" in str(info.value)
    assert len(seen) < 49


def test_nash_time_limit_after_the_last_cell_is_a_result():
    """A solve that ends before the clock is looked at is whole, not 'stopped with 25 of
    25 cells solved'."""
    seen = []
    position = deal_position(Rules("tactical", 2), 5, seed=45)
    try:
        r = nash.solve_nash(position, time_limit=0.01, progress=seen.append)
    except nash.NashStopped as stopped:  # a loaded machine: then it says what finished
        assert f"with {len(seen)} of 25" in str(stopped) and len(seen) < 25
    else:
        assert len(seen) == 25 and r.exploitability < 1e-9
