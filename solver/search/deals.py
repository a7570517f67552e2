"""Solved two-player deals: the solution file, one deal as one unit of work,
and many deals' values.

A *solution* is a solved equilibrium (solver.search.nash) of one position written as JSON
(docs/DESIGN.md, "Deal solutions"): the position, the value, both players' root
strategies and every root cell, so that ``nimmt analyse POSITION --solution FILE``
answers that position's first-turn questions without solving again. ``load_solution``
refuses a file made for another position, and one whose strategies do not give back
its value (best responses against both, from its own cells).

A *checkpoint* (``Checkpoint``) keeps the root cells of one position's solve as they
are solved, so that a solve stopped by Ctrl-C or a time limit goes on where it stopped
when run again with the same file (docs/DESIGN.md, "Deal checkpoints").

A whole deal's root cells are independent: ``solve_by_cells`` hands each to the batch
layer as one unit (``solve_cell_unit``: one cell solved in a table of its own, in another
process or on a Dask worker), keeps them in a checkpoint as they arrive, and solves the
root's game from them.

``solve_deal_unit(seed, i, ...)`` is one deal of a batch: deal i is dealt from
``deal_seed(seed, i)`` alone, so a batch's deals do not depend on how (or on how many
processes) they are run; ``solve_deals`` runs units in-process or in local processes.
A deal of a batch kept in a deal table keeps its root cells in a checkpoint beside the
table while it is solved (``deal_cells_path``), so that a batch of whole deals, hours
each, goes on from the last root cell after a stop.
"""
from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..base.batch import Backend, run_units
from ..base.defaults import DEFAULT_MEMORY
from ..base.errors import NashStopped, NimmtError, param
from ..base.fileio import atomic_write_text, read_json
from ..base.intervals import mean_interval, share_interval
from ..base.rules import HAND_SIZE, Rules
from ..positions.position import Position, format_position, parse_position
from .game import deal_position, play_random_turns
from .nash import (
    ROOT_ALL,
    ROOT_CELLS,
    ROOT_NEEDED,
    SEARCH_VERSION,
    NashResult,
    largest_fitting_k,
    nash_from_cells,
    replies,
    root_oracle,
    solve_nash,
    solve_root_cells,
)

__all__ = ["CHECKPOINT_FORMAT", "SOLUTION_FORMAT", "TABLE_FORMAT", "CellsStopped", "Checkpoint",
           "DealTable", "deal_cells_path", "deal_seed", "deal_summary", "first_card_ranks",
           "is_pure",
           "load_solution", "solution_json", "solve_by_cells", "solve_cell_unit",
           "solve_deal_unit", "solve_deals", "support", "value_summary", "write_solution"]

SOLUTION_FORMAT = "nimmt-deal-solution/1"
SOLUTION_LIMIT = 16 * 2**20   # bytes: a solution is a few kilobytes
TABLE_FORMAT = "nimmt-deal-table/1"
TABLE_LIMIT = 256 * 2**20     # bytes: a table of deals, about 8 KB each
CHECKPOINT_FORMAT = "nimmt-deal-checkpoint/1"
CONSISTENT = 1e-9             # a file's strategies must give back its value this closely


def solution_json(position: Position, r: NashResult, **about: Any) -> dict:
    """The solution file's JSON for ``r``, the equilibrium of ``position`` (``about``:
    extra fields, e.g. the deal's seed)."""
    return {"format": SOLUTION_FORMAT, "position": format_position(position),
            "cards_left": position.cards_left, "value": r.value,
            "p1_expected_cows": r.p1_cows, "p2_expected_cows": r.p2_cows,
            "p1_strategy": [{"card": c, "frequency": f, "value": v}
                            for c, f, v in zip(r.p1_cards, r.p1_frequency, r.p1_ev)],
            "p2_strategy": [{"card": c, "frequency": f, "value": v}
                            for c, f, v in zip(r.p2_cards, r.p2_frequency, r.p2_ev)],
            "matrix": [[float(v) if math.isfinite(v) else None for v in row]
                       for row in r.matrix],  # None: a cell the root's oracle never needed
            "exploitability": r.exploitability,
            "solve": {"states": r.states, "stored": r.stored, "levels": list(r.levels),
                      "matrix_games": r.matrix_games, "oracle_games": r.oracle_games,
                      "saddle_points": r.saddle_points,
                      "best_reply_saddles": r.best_reply_saddles,
                      "bound_cutoffs": r.bound_cutoffs, "cells": r.nodes,
                      "seconds": r.seconds, "table_bytes": r.table_bytes,
                      "workers": r.workers, "on_disk": r.on_disk, "replaced": r.replaced,
                      "dropped": r.dropped, "resumed_cells": r.resumed},
            **about}


def write_solution(path: str, data: dict) -> None:
    """Write a solution (or a batch of them) atomically."""
    import json

    atomic_write_text(path, json.dumps(data, indent=2) + "\n")


def _fail(path: str, why: str) -> NimmtError:
    return NimmtError(f"solution {path}: {why}; give the solution file that nimmt solve-deal "
                      "wrote for this position")


def load_solution(path: str, position: Position) -> NashResult:
    """The equilibrium stored in the solution file ``path`` for ``position``. Raises
    NimmtError (one line) for an unreadable file, another format, another position, or
    strategies that do not give back the value from the file's own cells."""
    data = read_json(path, "solution", TABLE_LIMIT)
    if isinstance(data, dict) and (data.get("format") == TABLE_FORMAT or "solutions" in data):
        data = _deal_of(path, data, position)
    if not isinstance(data, dict) or data.get("format") != SOLUTION_FORMAT:
        raise _fail(path, f"not a deal solution (format {SOLUTION_FORMAT} expected)")
    try:
        solved, p1, p2, matrix, value, p1_cows = _solution_fields(data)
        stats = _solve_stats(data)
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError,
            NimmtError) as e:
        raise _fail(path, f"a field is missing or malformed ({type(e).__name__}: {e})") from None
    _check_solution_hands(path, position, solved, p1, p2, matrix)
    x, y = np.array([f for _, f in p1]), np.array([f for _, f in p2])
    if not (np.isfinite(x).all() and np.isfinite(y).all() and math.isfinite(value)
            and math.isfinite(p1_cows)):
        raise _fail(path, "its value, cows or strategies are not numbers")
    # every card against the other side's strategy: the cells it plays must be solved
    p1_ev, p2_ev = ((matrix @ y, x @ matrix) if np.isfinite(matrix).all()
                    else replies(matrix, x, y))
    if not (np.isfinite(p1_ev).all() and np.isfinite(p2_ev).all()):
        raise _fail(path, "a cell its strategies play is missing (null)")
    r = NashResult(value, tuple(c for c, _ in p1), tuple(c for c, _ in p2), tuple(map(float, x)),
                   tuple(map(float, y)), tuple(map(float, p1_ev)), tuple(map(float, p2_ev)),
                   p1_cows, p1_cows - value, stats["states"], stats["matrix_games"],
                   stats["saddle_points"], stats["best_reply_saddles"],
                   stats["bound_cutoffs"], stats["cells"], stats["seconds"], matrix,
                   stats["stored"], stats["table_bytes"], stats["workers"], stats["levels"],
                   stats["on_disk"], oracle_games=stats["oracle_games"])
    _check_consistent(path, x, y, r)
    return r


def _deal_of(path: str, data: dict, position: Position) -> Any:
    """The solution of ``position`` in a deal table (``DealTable``) or in the batch that
    ``solve-deal --deals --output`` writes: the one whose position is this one."""
    deals = data.get("deals") if data.get("format") == TABLE_FORMAT else data.get("solutions")
    if not isinstance(deals, list):
        raise _fail(path, "its list of deals is missing")
    wanted = format_position(position)
    for deal in deals:
        if isinstance(deal, dict) and deal.get("position") == wanted:
            return deal
    raise _fail(path, f"none of its {len(deals)} deals is this position (a table holds the "
                "positions solved, after any turns played before the solve)")


def _solution_fields(data: dict) -> tuple[Position, list[tuple[int, float]],
                                           list[tuple[int, float]], np.ndarray, float, float]:
    """A solution's position, strategies (card, frequency), cells (NaN: not solved), value
    and player 1's cows; raises what a missing or malformed field raises."""
    solved = parse_position(str(data["position"]))
    p1 = [(int(c["card"]), float(c["frequency"])) for c in data["p1_strategy"]]
    p2 = [(int(c["card"]), float(c["frequency"])) for c in data["p2_strategy"]]
    matrix = np.array([[math.nan if v is None else float(v) for v in row]
                       for row in data["matrix"]], dtype=np.float64)
    value = float(data["value"])
    p1_cows = float(data["p1_expected_cows"])
    return solved, p1, p2, matrix, value, p1_cows


def _solve_stats(data: dict) -> dict[str, Any]:
    """A solution's ``solve`` figures (counts, seconds, workers, levels, on_disk), with
    their defaults; raises what a malformed field raises."""
    solve = data.get("solve", {})
    if not isinstance(solve, dict):
        raise TypeError("solve is not an object")
    stats: dict[str, Any] = {name: int(solve.get(name, 0)) for name in
                             ("states", "matrix_games", "saddle_points", "best_reply_saddles",
                              "bound_cutoffs", "cells", "stored", "table_bytes",
                              "oracle_games")}
    stats["seconds"] = float(solve.get("seconds", 0.0))
    stats["workers"] = int(solve.get("workers", 1))
    stats["levels"] = tuple(int(n) for n in solve.get("levels", ()))
    stats["on_disk"] = bool(solve.get("on_disk", False))
    return stats


def _check_solution_hands(path: str, position: Position, solved: Position,
                          p1: list[tuple[int, float]], p2: list[tuple[int, float]],
                          matrix: np.ndarray) -> None:
    """Refuse a solution of another position, or whose strategies or cells do not match
    the position's hands."""
    if format_position(solved) != format_position(position):
        raise _fail(path, f"it solves another position ({format_position(solved)})")
    k = len(p1)
    if (matrix.shape != (k, k) or len(p2) != k or np.isinf(matrix).any()
            or [c for c, _ in p1] != list(position.hand)
            or [c for c, _ in p2] != list(position.hands[1] or ())):
        raise _fail(path, "its strategies or cells do not match the position's hands")


def _check_consistent(path: str, x: np.ndarray, y: np.ndarray, r: NashResult) -> None:
    """Refuse strategies that are not distributions or do not give back the value."""
    if (not math.isclose(x.sum(), 1.0, abs_tol=CONSISTENT)
            or not math.isclose(y.sum(), 1.0, abs_tol=CONSISTENT)
            or (x < -CONSISTENT).any() or (y < -CONSISTENT).any()
            or not r.exploitability <= CONSISTENT):
        raise _fail(path, f"its strategies do not give back its value (exploitability "
                          f"{r.exploitability:.1e})")


class Checkpoint:
    """The root cells solved so far of one position's equilibrium, kept in the JSON
    file ``path``: ``cells`` maps (i, j) (player 1's i-th card, player 2's j-th) to
    (value, player 1's cows), as solve_nash's ``known``; ``record`` (solve_nash's
    ``on_cell``) adds a cell and rewrites the file atomically. A missing file is an
    empty checkpoint; a file for another position, or not a checkpoint, is refused
    (NimmtError, one line). Floats go through JSON exactly, so a resumed solve gives the
    same value and strategies to the bit — when its cells come from this search: each cell
    carries the SEARCH_VERSION that solved it (``search``; none in files older than it), and
    ``older`` counts the cells another version solved (they agree with this search's to
    float precision, not always to the bit)."""

    def __init__(self, path: str, position: Position) -> None:
        self.path = path
        self.position = format_position(position)
        self.p1 = list(position.hand)
        self.p2 = list(position.hands[1] or ())
        self.cells: dict[tuple[int, int], tuple[float, float]] = {}
        self.versions: dict[tuple[int, int], int | None] = {}  # the search that solved each
        if os.path.exists(path):
            self._load()

    def _refuse(self, why: str) -> NimmtError:
        return NimmtError(f"checkpoint {self.path}: {why}; give the checkpoint of this "
                          "position, or a new file name to start one")

    def _load(self) -> None:
        data = read_json(self.path, "checkpoint", SOLUTION_LIMIT)
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise self._refuse(f"not a deal checkpoint (format {CHECKPOINT_FORMAT} expected)")
        if data.get("position") != self.position:
            raise self._refuse(f"it belongs to another position ({data.get('position')})")
        try:
            for cell in data["cells"]:
                i, j = self.p1.index(int(cell["p1_card"])), self.p2.index(int(cell["p2_card"]))
                value, cows = float(cell["value"]), float(cell["p1_cows"])
                if not (math.isfinite(value) and math.isfinite(cows)):
                    raise ValueError("a value is not finite")
                version = cell.get("search")
                if "search" in cell and (type(version) is not int or version < 1):
                    raise ValueError(f"search version {version!r} is not a positive integer")
                self.cells[i, j] = (value, cows)
                self.versions[i, j] = version
        except (KeyError, TypeError, ValueError) as e:
            raise self._refuse(f"a cell is missing or malformed ({type(e).__name__}: "
                               f"{e})") from None

    @property
    def older(self) -> int:
        """How many of the cells another version of the search solved (or one before
        versions were kept)."""
        return sum(version != SEARCH_VERSION for version in self.versions.values())

    def record(self, i: int, j: int, value: float, cows: float) -> None:
        """Add root cell (i, j), solved by this search, and rewrite the file
        (atomically)."""
        self.cells[i, j] = (value, cows)
        self.versions[i, j] = SEARCH_VERSION
        cells = [{"p1_card": self.p1[a], "p2_card": self.p2[b], "value": v, "p1_cows": c}
                 | ({} if self.versions[a, b] is None else {"search": self.versions[a, b]})
                 for (a, b), (v, c) in sorted(self.cells.items())]
        write_solution(self.path, {"format": CHECKPOINT_FORMAT, "position": self.position,
                                   "cells": cells})


class DealTable:
    """The deals of one batch (``solve_deals``) solved so far, kept in the JSON file
    ``path`` (docs/DESIGN.md, "Deal tables"): the batch's seed, variant, placement and cards
    left, and each deal's solution (``solve_deal_unit``'s JSON) by index. ``record`` adds
    a deal and rewrites the file atomically, so that a batch stopped anywhere (Ctrl-C, a
    time limit, a machine lost) goes on with the deals still ``missing`` when run again
    with the same file; ``nimmt analyse POSITION --solution FILE`` answers any deal in it.
    A missing file is an empty table; a file for another batch, or not a table, is refused
    (NimmtError, one line)."""

    def __init__(self, path: str, seed: int, variant: str, placement: str,
                 cards_left: int) -> None:
        self.path = path
        self.seed = seed
        self.batch: dict[str, Any] = {"seed": seed, "variant": variant,
                                      "placement": placement, "cards_left": cards_left}
        self.deals: dict[int, dict] = {}
        if os.path.exists(path):
            self._load()

    def _refuse(self, why: str) -> NimmtError:
        same = ", ".join(param(name) for name in ("seed", "variant", "placement", "cards_left"))
        return NimmtError(f"deal table {self.path}: {why}; give the table of this batch (the "
                          f"same {same}), or a new file name")

    def _load(self) -> None:
        data = read_json(self.path, "deal table", TABLE_LIMIT)
        if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT:
            raise self._refuse(f"not a deal table (format {TABLE_FORMAT} expected)")
        theirs = {key: data.get(key) for key in self.batch}
        if theirs != self.batch:
            raise self._refuse("it belongs to another batch (" + ", ".join(
                f"{key} {value}" for key, value in theirs.items()) + ")")
        try:
            for deal in data["deals"]:
                index = deal["index"]
                if type(index) is not int or index < 0 or deal["seed"] != self.seed:
                    raise ValueError(f"deal index {index!r} of seed {deal['seed']!r}")
                if deal["deal_seed"] != deal_seed(self.seed, index):
                    raise ValueError(f"deal {index} was dealt from another seed")
                if deal.get("format") != SOLUTION_FORMAT or not math.isfinite(deal["value"]):
                    raise ValueError(f"deal {index} is not a solution")
                self.deals[index] = deal
        except (KeyError, TypeError, ValueError) as e:
            raise self._refuse(f"a deal is missing or malformed ({type(e).__name__}: "
                               f"{e})") from None

    def missing(self, count: int) -> list[int]:
        """The deals 0..count-1 not in the table yet, in order."""
        return [i for i in range(count) if i not in self.deals]

    def record(self, deal: dict) -> None:
        """Add a solved deal (``solve_deal_unit``'s JSON) and rewrite the file
        (atomically)."""
        self.deals[deal["index"]] = deal
        write_solution(self.path, {"format": TABLE_FORMAT, **self.batch,
                                   "deals": [self.deals[i] for i in sorted(self.deals)]})


def solve_cell_unit(position_text: str, cell: tuple[int, int], memory: int = DEFAULT_MEMORY,
                    workers: int | None = None, replace: bool = False,
                    deadline: float | None = None) -> tuple[float, float]:
    """One root cell of the position written ``position_text`` (a unit of the batch layer:
    picklable arguments, any process or Dask worker): (value, player 1's cows), as
    solve_root_cells gives them; past ``deadline`` (``time.time()``) it raises NashStopped."""
    position = parse_position(position_text)
    limit = None if deadline is None else max(1e-3, deadline - time.time())
    return solve_root_cells(position, [cell], memory=memory, workers=workers,
                            replace=replace, time_limit=limit)[cell]


class CellsStopped(NimmtError):
    """solve_by_cells stopped (Ctrl-C or the time limit) before every root cell was
    solved; ``reason`` 'interrupted' or 'time limit', ``solved`` the cells finished."""

    def __init__(self, message: str, reason: str, solved: int, total: int) -> None:
        super().__init__(message)
        self.reason, self.solved, self.total = reason, solved, total


def solve_by_cells(position: Position, backend: Backend | None = None,
                   checkpoint: Checkpoint | None = None, memory: int = DEFAULT_MEMORY,
                   workers: int | None = None, replace: bool = False,
                   time_limit: float | None = None,
                   progress: Callable[[int], None] | None = None,
                   root: str = ROOT_ALL) -> NashResult:
    """The equilibrium of ``position`` with each root cell one unit of the batch layer
    (``backend``: local processes or a Dask cluster; default in process), each solved in a
    table of its own of ``memory`` with ``workers`` threads. The cells of ``checkpoint``
    are not solved again, and each cell solved is recorded there as it arrives. Every
    cell's value and cows are solve_nash's to the bit, so the equilibrium is too.
    ``root=ROOT_NEEDED``: only the cells the root's double oracle
    needs (solver.search.nash.root_oracle), in rounds: each round's batch is the cells it asks
    for next. Raises CellsStopped when Ctrl-C or ``time_limit`` stops it first."""
    if root not in ROOT_CELLS:
        raise ValueError(f"root cells: {root!r} is not one of {', '.join(ROOT_CELLS)}")
    k = position.cards_left
    cells: dict[tuple[int, int], tuple[float, float]] = dict(checkpoint.cells if checkpoint
                                                             else {})
    given = len(cells)
    text = format_position(position)
    start = time.time()
    deadline = None if time_limit is None else start + time_limit
    reason = ""
    while not reason:
        todo = _cells_wanted(k, cells, root)
        if not todo:
            break
        reason = _solve_batch(todo, cells, text, checkpoint, memory, workers, replace,
                              deadline, backend, progress)
    if reason:
        wanted = "the equilibrium needs more" if root == ROOT_NEEDED else "an equilibrium " \
            "needs them all"
        raise CellsStopped(f"nash by cells {reason} with {len(cells)} of {k * k} root cells "
                           f"solved; {wanted}", reason, len(cells), k * k)
    return nash_from_cells(position, cells, time.time() - start, resumed=given, root=root)


def _cells_wanted(k: int, cells: dict[tuple[int, int], tuple[float, float]],
                  root: str) -> list[tuple[int, int]]:
    """The root cells to solve next: every one not solved, or the oracle's next ones."""
    if root != ROOT_NEEDED:
        return [(i, j) for j in range(k) for i in range(k) if (i, j) not in cells]
    values, known = np.full((k, k), np.nan), np.zeros((k, k), np.bool_)
    for (i, j), (value, _) in cells.items():
        values[i, j], known[i, j] = value, True
    return root_oracle(values, known).cells


def _solve_batch(todo: list[tuple[int, int]],
                 cells: dict[tuple[int, int], tuple[float, float]], text: str,
                 checkpoint: Checkpoint | None, memory: int, workers: int | None,
                 replace: bool, deadline: float | None, backend: Backend | None,
                 progress: Callable[[int], None] | None) -> str:
    """The cells ``todo`` as units of the batch layer, each put in ``cells`` (and the
    checkpoint) as it arrives; "" when all arrived, else why it stopped."""
    def arrived(index: int, result: tuple[float, float]) -> None:
        i, j = todo[index]
        cells[i, j] = result
        if checkpoint is not None:
            checkpoint.record(i, j, *result)
        if progress:
            progress(1)

    limit = None if deadline is None else max(1e-3, deadline - time.time())
    try:
        batch = run_units(partial(_cell_of, text, memory, workers, replace, deadline), todo,
                          backend or Backend(), on_result=arrived, time_limit=limit)
    except NashStopped:  # a cell's own time limit (the same deadline)
        return "time limit"
    if all(cell in cells for cell in todo):
        return ""
    return batch.stopped or "stopped"


def _cell_of(text: str, memory: int, workers: int | None, replace: bool,
             deadline: float | None, cell: tuple[int, int]) -> tuple[float, float]:
    """solve_cell_unit with the cell last (the batch layer's task takes the unit alone)."""
    return solve_cell_unit(text, cell, memory, workers, replace, deadline)


def deal_seed(seed: int, i: int) -> int:
    """The seed of deal ``i`` of a batch seeded ``seed``: a function of both alone
    (numpy's SeedSequence of (seed, i), 32 bits)."""
    return int(np.random.SeedSequence([seed, i]).generate_state(1, np.uint32)[0])


def deal_cells_path(table: str, i: int) -> str:
    """Where a batch's deal i keeps its root cells while it is being solved: beside the
    deal table ``table`` (``solve_deal_unit``'s ``cells_beside``)."""
    return f"{table}.deal{i}.cells.json"


def solve_deal_unit(seed: int, i: int, variant: str = "tactical", placement: str = "normal",
                    cards_left: int = HAND_SIZE, memory: int = DEFAULT_MEMORY,
                    workers: int | None = None, spill: str | None = None,
                    replace: bool = False, root: str = ROOT_ALL,
                    cells_beside: str | None = None) -> dict:
    """Deal i of the batch ``seed``: a 2-player deal with ``cards_left`` cards each
    (random bots played the turns before, game.deal_position), then, when that does not
    fit ``memory``, random bots (seeded by the deal) play on to the largest k that
    fits (unless ``spill`` or ``replace``: solve_nash's); solved there, its ``root``
    cells (solve_nash's: all, or those the equilibrium's proof needs). Returns its
    solution JSON with ``deal``, ``seed``, ``index``, ``deal_seed`` and ``solved_from``
    (the cards left each where it was solved). With ``cells_beside`` (the deal table's
    path) the root cells are kept as they are solved in a ``Checkpoint`` beside it
    (``deal_cells_path``), and a deal stopped before its end goes on from them: a whole
    deal is hours of work. The caller removes that file once the deal is in the table."""
    own = deal_seed(seed, i)
    dealt = deal_position(Rules(variant, 2, placement), cards_left, own)
    fit = dealt.cards_left if spill is not None or replace else largest_fitting_k(dealt, memory)
    if fit == 0:
        raise NimmtError("not even one card fits the memory budget; raise memory")
    position = play_random_turns(dealt, dealt.cards_left - fit, own)
    kept = None
    if cells_beside:
        path = deal_cells_path(cells_beside, i)
        try:
            kept = Checkpoint(path, position)
        except NimmtError:
            raise NimmtError(
                f"deal {i}: {path} does not hold this deal's root cells (another position: "
                f"solved with another {param('memory')}, {param('spill')} or "
                f"{param('replace')}, or not a checkpoint); delete it to solve the deal from "
                "its first cell, or run with the options that made it") from None
    r = solve_nash(position, memory=memory, workers=workers, spill=spill, replace=replace,
                   root=root, known=kept.cells if kept else None,
                   on_cell=kept.record if kept else None)
    return solution_json(position, r, deal=format_position(dealt), seed=seed, index=i,
                         deal_seed=own, solved_from=position.cards_left,
                         process_peak_bytes=_peak_bytes())


def _peak_bytes() -> int:
    """This process's peak resident memory so far, in bytes (a process that solved
    several deals reports the largest so far)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _solve_indexed(seed: int, options: dict, i: int) -> dict:
    """One unit of a batch: deal i of the batch ``seed`` (picklable for any backend)."""
    return solve_deal_unit(seed, i, **options)


def solve_deals(seed: int, count: int, jobs: int = 1,
                progress: Callable[[dict], None] | None = None,
                backend: Backend | None = None, indices: Sequence[int] | None = None,
                **unit: Any) -> list[dict]:
    """Deals 0..count-1 of the batch ``seed`` (``unit``: solve_deal_unit's options), or
    only ``indices`` of them (a table's missing deals), in order of i, through the batch
    layer (``solver.base.batch``): ``backend``, else ``jobs`` local processes (1: this
    process). Each result is the same whichever way it is run. ``progress(result)`` after
    each deal; Ctrl-C returns the deals finished."""
    def told(index: int, result: dict) -> None:
        if progress:
            progress(result)

    run = run_units(partial(_solve_indexed, seed, unit),
                    range(count) if indices is None else list(indices),
                    backend or Backend(jobs), on_result=told)
    return run.ordered()


def value_summary(values: Sequence[float]) -> dict:
    """Mean, its standard error, spread and quartiles of deal values (player 1's cows
    minus player 2's: negative favours player 1)."""
    n = len(values)
    if n == 0:
        return {"deals": 0}
    ordered = sorted(values)
    quartiles = statistics.quantiles(ordered, n=4) if n > 1 else [ordered[0]] * 3
    sd = statistics.stdev(ordered) if n > 1 else 0.0
    return {"deals": n, "mean": statistics.fmean(ordered), "stderr": sd / math.sqrt(n),
            "sd": sd, "min": ordered[0], "q1": quartiles[0], "median": quartiles[1],
            "q3": quartiles[2], "max": ordered[-1],
            "player_1_better": sum(v < 0 for v in ordered),
            "even": sum(v == 0 for v in ordered),
            "player_2_better": sum(v > 0 for v in ordered)}



SUPPORT = 1e-9  # a card played with a frequency above this is in a strategy's support


def support(strategy: Sequence[dict]) -> list[tuple[int, float]]:
    """The cards a solution's strategy (``p1_strategy`` or ``p2_strategy``) plays, with
    their frequencies."""
    return [(int(s["card"]), float(s["frequency"])) for s in strategy
            if s["frequency"] > SUPPORT]


def is_pure(deal: dict) -> bool:
    """Whether a solved deal is a pure saddle point: each player opens with one card."""
    return len(support(deal["p1_strategy"])) == 1 and len(support(deal["p2_strategy"])) == 1


def first_card_ranks(deals: Sequence[dict], side: str) -> list[float]:
    """How often the equilibrium opens with each card of the hand by its rank (index 0: the
    lowest card), averaged over ``deals``; ``side`` 'p1' or 'p2'."""
    width = max((len(d[f"{side}_strategy"]) for d in deals), default=0)
    shares = [0.0] * width
    for deal in deals:
        cards = sorted(int(s["card"]) for s in deal[f"{side}_strategy"])
        for card, frequency in support(deal[f"{side}_strategy"]):
            shares[cards.index(card)] += frequency / len(deals)
    return shares


def deal_summary(deals: Sequence[dict]) -> dict:
    """What a batch of solved deals says: ``value_summary`` of their values with the 95%
    interval of the mean, the pure saddle points (count, share and Wilson interval), and
    how often each player opens with the hand's lowest, second lowest, ... card."""
    summary = value_summary([d["value"] for d in deals])
    if not deals:
        return summary
    _, interval = mean_interval([d["value"] for d in deals])
    pure = sum(is_pure(d) for d in deals)
    return summary | {"mean_interval": list(interval), "pure": pure,
                      "pure_share": pure / len(deals),
                      "pure_interval": list(share_interval(pure, len(deals))),
                      "first_card_rank": {side: first_card_ranks(deals, side)
                                          for side in ("p1", "p2")}}
