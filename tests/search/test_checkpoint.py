"""Deal checkpoints: the root cells of a two-player equilibrium kept in a file as
they are solved, so that a solve stopped by Ctrl-C or a time limit goes on from them; and
the root cells solved apart, each a unit of the batch layer (solve-deal --by-cell).

A resumed solve must give the same value, strategies and root cells, to the bit, as a solve
that was never stopped; a checkpoint of another position, or not a checkpoint, is refused
with one line."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from helpers import COWS_TOL, assert_same_equilibrium

from nimmt import cli
from nimmt.solver.base.batch import Backend
from nimmt.solver.base.rules import NimmtError, Rules
from nimmt.solver.positions.position import format_position
from nimmt.solver.search.deals import (
    CHECKPOINT_FORMAT,
    CellsStopped,
    Checkpoint,
    solve_by_cells,
    solve_cell_unit,
)
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import SEARCH_VERSION, nash_from_cells, solve_nash, solve_root_cells

from cli_checks import assert_ok, assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")


def dealt(k: int, seed: int, placement: str = "normal"):
    return deal_position(Rules("tactical", 2, placement), k, seed=seed)


def assert_identical(new, old) -> None:
    """The same equilibrium to the bit, player 1's cows included (a cell's cows are kept)."""
    assert_same_equilibrium(new, old)
    assert new.p1_cows == old.p1_cows


class Interrupt(Exception):
    """Stands for Ctrl-C inside a worker: solve_nash stops and re-raises it."""


def interrupted_after(book: Checkpoint, cells: int):
    """An on_cell that records, then stops the solve once ``cells`` are kept."""
    def on_cell(i: int, j: int, value: float, cows: float) -> None:
        book.record(i, j, value, cows)
        if len(book.cells) >= cells:
            raise Interrupt
    return on_cell


@pytest.mark.parametrize("placement,k,seed,workers",
                         [("normal", 5, 7, 1), ("professional", 5, 3, 2), ("normal", 6, 2, 2)])
def test_a_stopped_solve_resumed_gives_the_same_equilibrium(tmp_path, placement, k, seed,
                                                            workers):
    position = dealt(k, seed, placement)
    whole = solve_nash(position, workers=workers)
    path = str(tmp_path / "deal.ckpt.json")
    book = Checkpoint(path, position)
    assert book.cells == {}
    with pytest.raises(Interrupt):
        solve_nash(position, workers=workers, known=book.cells,
                   on_cell=interrupted_after(book, 3))
    kept = Checkpoint(path, position)  # what the file holds, read back
    assert len(kept.cells) >= 3 and kept.cells == book.cells
    for (i, j), (value, _) in kept.cells.items():
        assert value == whole.matrix[i, j]  # each kept cell is the cell, to the bit
    resumed = solve_nash(position, workers=workers, known=kept.cells, on_cell=kept.record)
    assert_identical(resumed, whole)
    assert resumed.resumed == len(book.cells) and whole.resumed == 0
    assert len(Checkpoint(path, position).cells) == k * k
    again = solve_nash(position, workers=workers, known=Checkpoint(path, position).cells)
    assert_identical(again, whole)  # every cell given: nothing searched
    assert again.resumed == k * k and again.states == 0 and again.table_bytes < 2**12


def test_checkpoint_file_is_exact_json_with_cards_named(tmp_path):
    position = dealt(4, 5)
    path = tmp_path / "c.json"
    book = Checkpoint(str(path), position)
    solve_nash(position, workers=1, on_cell=book.record)
    data = json.loads(path.read_text())
    assert data["format"] == CHECKPOINT_FORMAT and data["position"] == format_position(position)
    assert len(data["cells"]) == 16
    hands = set(position.hand), set(position.hands[1] or ())
    assert {c["p1_card"] for c in data["cells"]} == hands[0]
    assert {c["p2_card"] for c in data["cells"]} == hands[1]
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]  # no temporary left behind


def test_checkpoint_refuses_other_positions_and_bad_files(tmp_path):
    position = dealt(4, 5)
    path = tmp_path / "c.json"
    book = Checkpoint(str(path), position)
    solve_nash(position, workers=1, on_cell=book.record)
    with pytest.raises(NimmtError, match="another position"):
        Checkpoint(str(path), dealt(4, 6))
    data = json.loads(path.read_text())
    for broken, why in [({"format": "nimmt-deal-solution/1"}, "not a deal checkpoint"),
                        ([1, 2], "not a deal checkpoint"),
                        ({**data, "cells": [{"p1_card": 200, "p2_card": 1, "value": 0,
                                              "p1_cows": 0}]}, "missing or malformed"),
                        ({**data, "cells": [{**data["cells"][0], "value": "NaN"}]},
                         "missing or malformed"),
                        ({**data, "cells": [{"value": 1.0}]}, "missing or malformed"),
                        ({**data, "cells": [{**data["cells"][0], "search": "3"}]},
                         "search version"),
                        ({**data, "cells": [{**data["cells"][0], "search": True}]},
                         "search version"),
                        ({**data, "cells": [{**data["cells"][0], "search": 0}]},
                         "search version"),
                        ({**data, "cells": [{**data["cells"][0], "search": None}]},
                         "search version"),
                        ({**data, "cells": ["cell"]}, "missing or malformed")]:
        path.write_text(json.dumps(broken))
        with pytest.raises(NimmtError, match=why) as error:
            Checkpoint(str(path), position)
        assert "\n" not in str(error.value) and "c.json" in str(error.value)
    path.write_text("{ not json")
    with pytest.raises(NimmtError):
        Checkpoint(str(path), position)


def test_each_cell_names_the_search_that_solved_it(runner, tmp_path):
    """Cells recorded now carry SEARCH_VERSION; a file's cells of another version (or of
    none: files before versions) are kept as they are, counted in ``older``, and said in
    one line of solve-deal's; the new cells of a resumed run get this version."""
    position = dealt(4, 5)
    path = tmp_path / "c.json"
    book = Checkpoint(str(path), position)
    solve_nash(position, workers=1, on_cell=book.record)
    data = json.loads(path.read_text())
    assert {c["search"] for c in data["cells"]} == {SEARCH_VERSION} and book.older == 0
    assert Checkpoint(str(path), position).older == 0
    cells = data["cells"][:5]
    del cells[0]["search"]  # a cell of a file before versions
    cells[1]["search"] = SEARCH_VERSION - 1
    path.write_text(json.dumps({**data, "cells": cells}))
    old = Checkpoint(str(path), position)
    assert old.older == 2 and len(old.cells) == 5
    result = invoke(runner, "solve-deal", format_position(position), "--checkpoint", str(path))
    assert result.exit_code == 0, (result.output, result.stderr, result.exception)
    assert len(result.stderr.splitlines()) == 1  # the note, nothing else
    assert ("note: 2 of the 5 root cells in" in result.stderr
            and "another version of the search" in result.stderr)
    kept = json.loads(path.read_text())["cells"]
    assert len(kept) == 16
    versions = {(c["p1_card"], c["p2_card"]): c.get("search") for c in kept}
    assert versions[cells[0]["p1_card"], cells[0]["p2_card"]] is None
    assert versions[cells[1]["p1_card"], cells[1]["p2_card"]] == SEARCH_VERSION - 1
    assert sum(v == SEARCH_VERSION for v in versions.values()) == 14
    assert Checkpoint(str(path), position).older == 2


def test_cli_time_limit_then_resume_gives_the_whole_solve(runner, tmp_path):
    path = str(tmp_path / "deal.ckpt.json")
    fresh = invoke(runner, "solve-deal", "--seed", 4, "-k", 6, "--format", "json")
    assert_ok(fresh)
    stopped = invoke(runner, "solve-deal", "--seed", 4, "-k", 6, "--checkpoint", path,
                     "--time-limit", "0.001")
    if stopped.exit_code:  # the limit came first (a fast machine may finish before it)
        line = assert_one_line_error(stopped)
        assert "stopped at the time limit" in line and path in line
        assert ("run the same command again" in line) == os.path.exists(path)
    resumed = invoke(runner, "solve-deal", "--seed", 4, "-k", 6, "--checkpoint", path,
                     "--format", "json")
    assert_ok(resumed)
    a, b = json.loads(fresh.output)["solution"], json.loads(resumed.output)["solution"]
    assert a["value"] == b["value"] and a["matrix"] == b["matrix"]
    assert a["p1_strategy"] == b["p1_strategy"] and a["p2_strategy"] == b["p2_strategy"]
    assert len(json.loads(open(path).read())["cells"]) == 36
    table = invoke(runner, "solve-deal", "--seed", 4, "-k", 6, "--checkpoint", path)
    assert_ok(table)
    assert f"36 of 36 root cells were in {path}" in table.output


def test_cli_checkpoint_refusals_are_one_line(runner, tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"format": CHECKPOINT_FORMAT, "position": "other",
                                "cells": []}))
    line = assert_one_line_error(invoke(runner, "solve-deal", "--seed", 4, "-k", 4,
                                        "--checkpoint", str(path)))
    assert "another position" in line and "c.json" in line
    line = assert_one_line_error(invoke(runner, "solve-deal", "--deals", 2, "-k", 4,
                                        "--checkpoint", str(tmp_path / "d.json")))
    assert "--checkpoint" in line and "--deals" in line
    line = assert_one_line_error(invoke(runner, "solve-deal", "-k", 4, "--checkpoint", "-"))
    assert "--checkpoint -" in line
    line = assert_one_line_error(invoke(runner, "solve-deal", "-k", 4, "--checkpoint",
                                        str(tmp_path / "no" / "such" / "c.json")))
    assert "c.json" in line or "no" in line


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="posix signals")
def test_ctrl_c_keeps_the_cells_solved_and_says_so(tmp_path):
    path = tmp_path / "deal.ckpt.json"
    proc = subprocess.Popen([sys.executable, "-m", "nimmt.cli", "solve-deal", "--seed", "4",
                             "-k", "7", "--workers", "1", "--checkpoint", str(path)],
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300  # a cold numba cache compiles first
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and last.startswith("nimmt: interrupted with ")
    kept = Checkpoint(str(path), dealt(7, 4))
    assert f"{len(kept.cells)} of 49 root cells solved, kept in {path}" in last
    assert 1 <= len(kept.cells) < 49
    assert [p.name for p in tmp_path.iterdir()] == ["deal.ckpt.json"]


# ---------------------------------------------------------------- root cells as units

@pytest.mark.parametrize("placement,k,seed", [("normal", 5, 7), ("professional", 5, 3),
                                              pytest.param("normal", 6, 2,  # 1-4 s: -m slow
                                                           marks=pytest.mark.slow)])
def test_root_cells_apart_are_the_shared_solves_cells(placement, k, seed):
    position = dealt(k, seed, placement)
    whole = solve_nash(position, workers=2)
    some = [(0, 0), (k - 1, 0), (1, k - 1), (k - 1, k - 1)]
    apart = solve_root_cells(position, some, workers=1)
    assert sorted(apart) == sorted(some)
    for (i, j), (value, cows) in apart.items():
        assert value == whole.matrix[i, j]  # to the bit: each cell in a table of its own
        alone = solve_cell_unit(format_position(position), (i, j))  # in a table of one cell
        assert alone[0] == value and alone[1] == pytest.approx(cows, abs=COWS_TOL)
    assert_same_equilibrium(solve_by_cells(position), whole)


def test_by_cells_in_processes_with_a_checkpoint(tmp_path):
    position = dealt(5, 7)
    whole = solve_nash(position, workers=1)
    path = str(tmp_path / "c.json")
    book = Checkpoint(path, position)
    with pytest.raises(Interrupt):
        solve_nash(position, workers=1, known=book.cells, on_cell=interrupted_after(book, 7))
    kept = Checkpoint(path, position)
    r = solve_by_cells(position, Backend(2), kept)
    assert_same_equilibrium(r, whole)
    assert r.resumed == 7 and len(Checkpoint(path, position).cells) == 25
    with pytest.raises(ValueError, match="missing"):
        nash_from_cells(position, {(0, 0): (1.0, 1.0)})


def test_cli_by_cell_matches_the_shared_solve_and_refuses_what_does_not_apply(runner,
                                                                               tmp_path):
    fresh = invoke(runner, "solve-deal", "--seed", 4, "-k", 5, "--format", "json")
    path = str(tmp_path / "c.json")
    split = invoke(runner, "solve-deal", "--seed", 4, "-k", 5, "--by-cell", "--jobs", 2,
                   "--checkpoint", path, "--format", "json")
    assert_ok(fresh)
    assert_ok(split)
    a, b = json.loads(fresh.output)["solution"], json.loads(split.output)["solution"]
    assert a["value"] == b["value"] and a["matrix"] == b["matrix"]
    assert a["p1_strategy"] == b["p1_strategy"] and a["p2_strategy"] == b["p2_strategy"]
    assert len(json.loads(open(path).read())["cells"]) == 25
    table = invoke(runner, "solve-deal", "--seed", 4, "-k", 5, "--by-cell")
    assert_ok(table)
    assert "solved cell by cell: 25 root cells as units (in process)" in table.output
    for args, words in [(("--by-cell", "--spill", str(tmp_path)), "--spill"),
                        (("--by-cell", "--deals", 2), "--deals"),
                        (("--jobs", 2), "--by-cell")]:
        line = assert_one_line_error(invoke(runner, "solve-deal", "-k", 4, *args))
        assert words in line


@pytest.mark.parametrize("jobs", [1, 2])
def test_by_cell_time_limit_stops_inside_a_cell_and_keeps_the_cells(tmp_path, jobs):
    position = dealt(9, 3)  # a cell takes minutes: far longer than the limit
    book = Checkpoint(str(tmp_path / "c.json"), position)
    start = time.perf_counter()
    with pytest.raises(CellsStopped) as stopped:
        solve_by_cells(position, Backend(jobs), book, time_limit=0.5)
    assert time.perf_counter() - start < 20  # not a whole cell's time
    assert stopped.value.reason == "time limit" and stopped.value.total == 81
    assert stopped.value.solved == len(book.cells) == 0


def test_a_ticking_bar_shows_the_time_while_no_cell_finishes(monkeypatch):
    """A root cell of a whole deal takes tens of minutes: solve-deal's bar appears and
    counts the time before the first one finishes."""
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    bar = cli.LazyProgress(4, "root cells", delay=0.05, ticking=True, tick=0.05)
    time.sleep(0.5)
    assert "root cells" in screen.getvalue() and "0:00:00 elapsed" in screen.getvalue()
    bar(2)
    assert "50%" in screen.getvalue()
    bar.close()
    shown = len(screen.getvalue())
    time.sleep(0.2)
    assert len(screen.getvalue()) == shown  # closed: no more ticks


@pytest.mark.parametrize("placement,k,seed", [("normal", 6, 2), ("professional", 6, 5)])
def test_a_cells_cows_do_not_depend_on_what_the_table_held(placement, k, seed):
    """A cell solved beside its row's neighbours (their states in the table) or without
    them (each state solved afresh) has the same cows to the bit: a stored state's cows
    are rounded as the compact table keeps them, read or fresh (one worker: the cells in
    one order, so the difference is the table's contents alone)."""
    position = dealt(k, seed, placement)
    cells: dict = {}
    whole = solve_nash(position, workers=1, on_cell=lambda i, j, value, cows:
                       cells.__setitem__((i, j), (value, cows)))
    known = {cell: answer for cell, answer in cells.items() if cell[0] == 0}
    again: dict = {}
    resumed = solve_nash(position, workers=1, known=known, on_cell=lambda i, j, value, cows:
                         again.__setitem__((i, j), (value, cows)))
    assert len(again) == k * k - k  # the rows after the first, solved without its states
    assert resumed.stored < whole.stored  # ... whose states the table lacked
    assert again == {cell: answer for cell, answer in cells.items() if cell[0] != 0}
    assert_identical(resumed, whole)
