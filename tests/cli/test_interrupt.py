"""Ctrl-C has one design (solver/base/errors.py): it stops the whole command, exit status 130,
with what finished reported and files whole. No search below a command returns normally
once it came, nor turns it into an error: each raises SearchInterrupted (a
KeyboardInterrupt) carrying what it finished.

The first part interrupts searches from inside (a kernel call or a progress callback
raising KeyboardInterrupt, where SIGINT lands between two of them); the second sends
SIGINT to real commands at random moments and checks the status, the report and the files.
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nimmt.solver.base.errors import NimmtError, SearchInterrupted
from nimmt.solver.base.rules import Rules
from nimmt.solver.players import arena, botmodel, seats
from nimmt.solver.players.arena import run_arena
from nimmt.solver.players.botmodel import analyse_bots
from nimmt.solver.players.bots import parse_bots
from nimmt.solver.positions.position import load_position
from nimmt.solver.search import montecarlo
from nimmt.solver.search.analysis import analyse
from nimmt.solver.search.deals import CHECKPOINT_FORMAT

from cli_checks import invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")


class InterruptedKernel:
    """Monte Carlo's batch kernel, with Ctrl-C arriving during the first batch that starts
    at sample ``at`` or later (SIGINT raises once the kernel returns)."""

    def __init__(self, at: int) -> None:
        self.real, self.at, self.hits = montecarlo._montecarlo_batch, at, 0

    def __getattr__(self, name):
        """Everything else (the compiled overloads, typeof_pyval) is the real kernel's."""
        return getattr(self.real, name)

    def __call__(self, *args):
        done, size = args[7], args[8]
        result = self.real(*args)
        if size > 0 and done >= self.at:
            self.hits += 1
            raise KeyboardInterrupt
        return result


def interrupt_montecarlo(monkeypatch, at: int) -> InterruptedKernel:
    kernel = InterruptedKernel(at)
    monkeypatch.setattr(montecarlo, "_montecarlo_batch", kernel)
    return kernel


def stop_at(call: int):
    """A progress callback that raises KeyboardInterrupt on its ``call``-th call."""
    calls = []

    def progress(step: int) -> None:
        calls.append(step)
        if len(calls) == call:
            raise KeyboardInterrupt

    return progress


# ---------------------------------------------------------------- searches, from inside

def test_montecarlo_ctrl_c_raises_with_the_samples_taken():
    with pytest.raises(SearchInterrupted) as stop:
        analyse(load_position("example-standard"), method="montecarlo", samples=10**7, seed=1,
                progress=stop_at(3))
    partial = stop.value.partial
    assert partial is not None and not partial.complete
    assert partial.extra["stopped"] == "interrupted"
    done = partial.cards[0].samples
    assert 2 <= done < 10**7 and all(c.samples == done for c in partial.cards)
    data = partial.to_json()
    assert data["complete"] is False and data["stopped"] == "interrupted"
    assert data["samples"] == done


def test_montecarlo_ctrl_c_before_two_samples_is_an_interrupt_not_an_error(monkeypatch):
    interrupt_montecarlo(monkeypatch, at=0)
    with pytest.raises(SearchInterrupted) as stop:
        analyse(load_position("example-standard"), method="montecarlo", samples=1000, seed=1)
    assert stop.value.partial is None
    assert not isinstance(stop.value, NimmtError)


def test_a_bot_s_monte_carlo_interrupted_mid_game_stops_the_arena(monkeypatch):
    """Ctrl-C during an expecti bot's Monte Carlo: neither swallowed (the deals went on)
    nor a failure of the bot (exit 2): the arena stops with nothing finished."""
    kernel = interrupt_montecarlo(monkeypatch, at=64)  # after a batch: samples to return
    rules = Rules("tactical", 2, one_round=True)
    result = run_arena(rules, parse_bots("expecti:nodes=1,samples=200,closest"), 3, seed=1)
    assert kernel.hits == 1
    assert not result.complete and result.deals == 0


def test_a_bot_interrupted_before_two_samples_is_not_its_failure(monkeypatch):
    interrupt_montecarlo(monkeypatch, at=0)
    table = seats.Table(Rules("tactical", 2, one_round=True), [1, 2, 3, 4],
                        [list(range(5, 15)), list(range(15, 25))],
                        [arena.make_policy(s) for s in parse_bots("expecti:nodes=1,closest")])
    with pytest.raises(SearchInterrupted):
        table.play()


@pytest.mark.parametrize("bot", ["closest", "mcs:playouts=5"])
def test_a_bot_model_s_sampling_raises_with_the_samples_taken(bot):
    """Rule-of-thumb opponents (the kernel in chunks) and search-backed ones (the game
    loop, one sample at a time)."""
    with pytest.raises(SearchInterrupted) as stop:
        analyse_bots(load_position("example-standard"), bot, method="montecarlo",
                     samples=10**7, seed=1, time_limit=600, progress=stop_at(3))
    partial = stop.value.partial
    assert not partial.complete and partial.extra["stopped"] == "interrupted"
    assert partial.to_json()["samples"] >= 2


# ---------------------------------------------------------------- search-backed opponents

def test_search_backed_opponents_get_a_default_time_budget(monkeypatch):
    monkeypatch.setattr(botmodel, "SEARCH_SECONDS", 0.5)
    start = time.perf_counter()
    result = analyse_bots(load_position("example"), "expecti", samples=10**6, seed=1)
    assert time.perf_counter() - start < 0.5 + 20  # bounded (the last samples finish)
    assert "default time budget of 0.5 s" in result.reason
    assert not result.complete and result.extra["stopped"] == "time limit"
    given = analyse_bots(load_position("example"), "expecti", samples=4, seed=1,
                         time_limit=600)  # a time limit of one's own replaces it
    assert given.complete and "default time budget" not in given.reason


def test_analyse_says_the_default_budget_of_search_backed_opponents(runner, monkeypatch):
    monkeypatch.setattr(botmodel, "SEARCH_SECONDS", 0.5)
    result = invoke(runner, "analyse", "example", "--opponents", "expecti", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "default time budget of 0.5 s for a search-backed opponent" in result.stdout
    assert "stopped by the time limit after " in result.stdout


# ---------------------------------------------------------------- the command line, inside

def test_analyse_montecarlo_ctrl_c_exits_130_and_says_after_how_many_samples(runner,
                                                                            monkeypatch):
    interrupt_montecarlo(monkeypatch, at=128)
    result = invoke(runner, "analyse", "example-standard", "--samples", "10000000",
                    "--seed", "1")
    assert result.exit_code == 130, result.output
    found = re.search(r"^interrupted \(Ctrl-C\) after ([\d,]+) samples per card: the figures "
                      r"use those$", result.stdout, re.M)
    assert found and int(found[1].replace(",", "")) >= 128, result.stdout
    assert result.stderr.splitlines()[-1] == (f"nimmt: interrupted after {found[1]} samples "
                                              "per card (the figures above use them)")
    as_json = invoke(runner, "analyse", "example-standard", "--samples", "10000000",
                     "--seed", "1", "--format", "json")
    assert as_json.exit_code == 130
    data = json.loads(as_json.stdout)
    assert data["complete"] is False and data["stopped"] == "interrupted"
    assert data["samples"] >= 128


# ---------------------------------------------------------------- SIGINT to real commands

# Positions whose searches take minutes: four players of the logic variant with five cards
# each (exact search, about 10^8 nodes), two with eight (the equilibrium), and three
# players whose tree of one turn has about 10^5 nodes.
FOUR = ("variant=logic players=4 rows=11,24,25,37,39/26,28,30,34/32,38,40,43/15,19,33 "
        "hand=4,13,14,21,35 p2=1,9,23,29,42 p3=7,12,16,27,41 p4=2,10,20,22,36 "
        "gone=3,5,6,8,17,18,31,44")
TWO = ("variant=logic players=2 rows=4/11,12/14/17,21 hand=3,8,9,15,18,22,23,24 "
       "p2=1,2,5,10,13,16,19,20 gone=6,7")
THREE = ("variant=tactical players=3 rows=34/2,5,6,11,16/13,14,21,28/3 hand=8,12,22,26,30 "
         "gone=4,7,15,20,27,29,31,33")

HANG_SECONDS = 60  # a command still running this long after SIGINT ignored it

WRAPPER = """
import pathlib, sys
from nimmt import cli

pathlib.Path(sys.argv[1]).touch()  # imports done: the command starts
sys.argv = ["nimmt", *sys.argv[2:]]
cli.main()
"""



def commands(tmp: Path, game: str = "") -> dict[str, tuple[list[str], list[Path]]]:
    """Each long command, sized never to finish within the moments tried: (its
    arguments, the files it may write); ``game``: a game record to review."""
    out = tmp / "out.json"
    return {
        "analyse exact": (["analyse", FOUR, "--method", "exact", "--max-nodes", "100000000"],
                          []),
        "analyse montecarlo": (["analyse", "example-standard", "--samples", "1000000000",
                                "--seed", "1", "--format", "json"], []),
        "analyse auto": (["analyse", "example-standard", "--samples", "1000000000",
                          "--seed", "1"], []),
        "analyse worst": (["analyse", FOUR, "--opponents", "worst", "--method", "exact",
                           "--max-nodes", "100000000"], []),
        "analyse nash": (["analyse", TWO, "--opponents", "nash", "--workers", "1",
                          "--memory", "1G"], []),
        "analyse expecti": (["analyse", "example", "--opponents", "expecti",
                             "--samples", "1000000000", "--time-limit", "600", "--seed", "1"],
                            []),
        "analyse draft": (["analyse", "example-draft-start", "--samples", "1000000000",
                           "--seed", "1"], []),
        "tree": (["tree", THREE, "--depth", "1", "--output", str(tmp / "tree.graphml")],
                 [tmp / "tree.graphml"]),
        "arena": (["arena", "-n", "2", "--bots", "expecti,mcs", "--deals", "100000",
                   "--one-round", "--seed", "1", "--format", "json", "--output", str(out)],
                  [out]),
        "simulate": (["simulate", "-n", "2", "--bots", "expecti,closest", "--games",
                      "100000", "--seed", "1", "--format", "json"], []),
        "review": (["review", game, "--opponents", "expecti", "--time-limit", "600",
                    "--seed", "1", "--format", "json", "--output", str(out)], [out]),
        "study": (["study", "-n", "2", "-k", "5", "--positions", "100000", "--seed", "1",
                   "--output", str(tmp / "study.json")], [tmp / "study.json"]),
        "puzzles generate": (["puzzles", "generate", "-n", "2", "-k", "5", "--count", "10000",
                              "--seed", "1", "--output", str(out)], [out]),
        "solve-deal": (["solve-deal", "--deals", "100000", "-k", "6", "--seed", "1",
                        "--format", "json", "--output", str(out), "--table",
                        str(tmp / "table.json")], [out, tmp / "table.json"]),
        "draft arena": (["arena", "--variant", "logic", "-n", "2", "--bots", "closest,random",
                         "--drafters", "evaluate,fewest", "--deals", "10000000", "--seed", "1",
                         "--format", "json"], []),
        "play": (["play", "-n", "2", "--bots", "expecti", "--seed", "1", "--record",
                  str(tmp / "game.json")], [tmp / "game.json"]),
    }


# What the player of `play` types (its hand of seed 1, played in order; the input stays
# open, so the game waits at the next prompt rather than ending).
PLAY_INPUT = "".join(f"{card}\n" for card in (2, 8, 12, 16, 17, 18, 21, 22, 23, 24))


def interrupt(name: str, moment: float, tmp: Path, game: str
              ) -> tuple[int, str, str, list[Path]]:
    """Run command ``name``, send SIGINT to its process group (as Ctrl-C in a terminal)
    ``moment`` seconds after its imports finished, and return its status, its output and
    the files it may write."""
    args, files = commands(tmp, game)[name]
    started = tmp / "started"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}  # SIGABRT: where it hangs
    proc = subprocess.Popen([sys.executable, "-c", WRAPPER, str(started), *args], cwd=tmp,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    if name == "play":  # while expecti thinks about its cards, or at a prompt
        proc.stdin.write(PLAY_INPUT)
        proc.stdin.flush()
    try:
        deadline = time.monotonic() + 240  # a cold numba cache compiles first
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(moment)
        assert proc.poll() is None, (name, proc.communicate(timeout=30))  # still working
        os.killpg(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        try:
            out, err = proc.communicate(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:  # every thread's stack, for the failure
            os.kill(proc.pid, signal.SIGABRT)
            out, err = proc.communicate(timeout=30)
            pytest.fail(f"{name}: still running {HANG_SECONDS} s after SIGINT:\n{err[-6000:]}")
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert took < HANG_SECONDS, f"{name}: {took:.0f} s after SIGINT"
    return proc.returncode, out, err, files


def check_interrupted(name: str, code: int, out: str, err: str, files: list[Path],
                      tmp: Path) -> None:
    """Status 130, no traceback, the last line says so; a JSON report (stdout or file)
    parses and says it is incomplete; no file half-written (no temporary left over)."""
    assert code == 130, (name, code, out[-2000:], err[-2000:])
    assert "Traceback" not in err, (name, err[-2000:])
    assert err.splitlines()[-1:] and err.splitlines()[-1].startswith("nimmt: interrupted"), \
        (name, err[-2000:])
    if out.lstrip().startswith("{"):
        data = json.loads(out)
        assert data.get("complete") is False, (name, out[:500])
    for path in files:
        if path.exists() and path.suffix == ".json":
            data = json.loads(path.read_text())
            assert data.get("complete") is not True, (name, path)
    kept_cells = [p for p in tmp.iterdir() if re.fullmatch(r".+\.deal\d+\.cells\.json", p.name)]
    for path in kept_cells:  # a deal table's deal in progress: its root cells, whole
        assert json.loads(path.read_text())["format"] == CHECKPOINT_FORMAT, (name, path)
    leftovers = [p.name for p in tmp.iterdir()
                 if p.name not in ("started", *(f.name for f in files + kept_cells))]
    assert leftovers == [], (name, leftovers)


NAMES = list(commands(Path("/")))
# One moment per command (within the first 1.5 s, where bots, samplers and searches are
# under way); `pytest -m slow` sweeps several more per command, up to 8 s. The default run
# sends SIGINT here to the commands of DEFAULT only (Monte Carlo, the equilibrium's
# threads, search-backed bots with a file written, a prompt). The others' Ctrl-C is checked
# by other default tests: a real SIGINT to analyse's exact search and to tree
# (test_hostile_search), to solve-deal (the deal table's test below), to puzzles generate
# (test_hostile_files); in process to simulate (test_arena), review, study, a draft's Monte
# Carlo (test_draft) and search-backed opponents (the bot model's tests above).
DEFAULT = {"analyse montecarlo", "analyse nash", "arena", "play"}
QUICK = [pytest.param(name, random.Random(f"{name} 0").uniform(0.2, 1.5), id=name,
                      marks=[] if name in DEFAULT else [pytest.mark.slow])
         for name in NAMES]
SWEEP = [(name, random.Random(f"{name} {seed}").uniform(0.05, 8.0))
         for name in NAMES for seed in range(1, 6)]


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> str:
    """A two-player game record (one round by bots), for review."""
    from click.testing import CliRunner

    folder = tmp_path_factory.mktemp("games")
    made = invoke(CliRunner(), "simulate", "-n", "2", "--bots", "closest,random", "--games",
                  "1", "--one-round", "--seed", "1", "--save-games", folder)
    assert made.exit_code == 0, made.output
    (record,) = folder.iterdir()
    return str(record)


@pytest.mark.skipif(os.name != "posix", reason="posix signals and process groups")
@pytest.mark.parametrize("name,moment", QUICK)
def test_sigint_stops_every_long_command(name, moment, tmp_path, game):
    check_interrupted(name, *interrupt(name, moment, tmp_path, game), tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="posix signals and process groups")
def test_a_deal_table_kept_through_ctrl_c_goes_on_with_the_same_deals(tmp_path, game):
    """Ctrl-C in ``solve-deal --deals --table``: the table keeps every deal finished, the
    last line says so, and a rerun asks only for the others (each the deal alone gives)."""
    from nimmt.solver.search.deals import DealTable, solve_deal_unit

    code, out, err, _ = interrupt("solve-deal", 2.5, tmp_path, game)
    assert code == 130 and "table.json keeps them: run the same command to go on" in err
    table = DealTable(str(tmp_path / "table.json"), 1, "tactical", "normal", 6)
    assert table.deals and table.missing(len(table.deals)) == []  # deals 0..n-1, in order
    reported = json.loads(out)["solutions"]
    assert [d["index"] for d in reported] == sorted(table.deals)
    for i in (0, len(table.deals) - 1):
        assert table.deals[i]["value"] == solve_deal_unit(1, i, cards_left=6)["value"]


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="posix signals and process groups")
@pytest.mark.parametrize("name,moment", SWEEP, ids=[f"{n}-{m:.2f}" for n, m in SWEEP])
def test_sigint_sweep(name, moment, tmp_path, game):
    check_interrupted(name, *interrupt(name, moment, tmp_path, game), tmp_path)



def test_ctrl_c_while_the_equilibrium_s_workers_start_stops_those_started(monkeypatch):
    """A KeyboardInterrupt inside Thread.start (after the thread was created) used to leave
    the workers started so far running with no stop flag: they are stopped and waited for."""
    import threading

    from nimmt.solver.search import nash

    started: list[threading.Thread] = []

    class Interrupted(threading.Thread):
        def start(self) -> None:
            super().start()
            started.append(self)
            raise KeyboardInterrupt

    position = load_position("variant=logic players=2 rows=4/11,12/14/17,21 "
                             "hand=3,8,9,15,18,22 p2=1,2,5,10,13,16 gone=6,7,19,20,23,24")
    nash.solve_nash(position, workers=1)  # load the kernels first
    monkeypatch.setattr(nash.threading, "Thread", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        nash.solve_nash(position, workers=2)
    assert len(started) == 1 and not started[0].is_alive()
