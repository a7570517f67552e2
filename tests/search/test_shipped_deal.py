"""The whole deal the project solved (seed 10, ten cards each, from the first turn),
shipped in benchmarks/results/: its solution file is the dealt position's, loads (which
checks that its strategies give back its value from its own cells), agrees with the
checkpoint its cells came from, and its equilibrium is a saddle point that the cells
prove on their own, without the solver."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from nimmt.solver.base.rules import Rules
from nimmt.solver.search.deals import Checkpoint, load_solution
from nimmt.solver.search.game import deal_position

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
SOLUTION = RESULTS / "k10-seed10.solution.json"
CHECKPOINT = RESULTS / "k10-seed10.checkpoint.json"


def the_deal():
    """The position benchmarks/nash.py --goal 10 --seed 10 solves."""
    return deal_position(Rules("tactical", 2), 10, seed=10)


def test_the_solution_is_the_dealt_positions_and_gives_back_its_value():
    r = load_solution(str(SOLUTION), the_deal())
    assert r.exploitability <= 1e-12
    assert r.matrix.shape == (10, 10)
    solved = np.isfinite(r.matrix)
    assert 10 <= solved.sum() < 100  # only the cells the root's double oracle needed


def test_the_solutions_cells_are_the_checkpoints():
    position = the_deal()
    r = load_solution(str(SOLUTION), position)
    book = Checkpoint(str(CHECKPOINT), position)
    p1, p2 = list(position.hand), list(position.hands[1])
    for (i, j), (value, _cows) in book.cells.items():
        assert math.isnan(r.matrix[i, j]) or r.matrix[i, j] == value, (p1[i], p2[j])
    for i, j in zip(*np.nonzero(np.isfinite(r.matrix))):
        assert (i, j) in book.cells, (p1[i], p2[j])


def test_the_equilibrium_is_a_saddle_point_of_the_cells():
    """Player 1 (rows, minimising his cows minus player 2's) plays one card, player 2 one
    card; their cell is the least of its column and the greatest of its row, so neither
    gains by another card: read straight off the file, not through the solver."""
    data = json.loads(SOLUTION.read_text(encoding="utf-8"))
    x = [s["frequency"] for s in data["p1_strategy"]]
    y = [s["frequency"] for s in data["p2_strategy"]]
    assert sorted(x)[-1] == 1.0 and sorted(y)[-1] == 1.0, "pure strategies"
    row, column = x.index(1.0), y.index(1.0)
    cells = data["matrix"]
    value = cells[row][column]
    assert value == data["value"]
    assert all(v is not None and v <= value for v in cells[row])
    assert all(cells[i][column] is not None and cells[i][column] >= value
               for i in range(len(cells)))


TABLE = RESULTS / "k8-seed1.table.json"
REPORT = Path(__file__).resolve().parents[2] / "docs" / "deals" / "k8-seed1.md"


def test_the_shipped_deal_table_answers_each_deal_and_its_report_is_its_own():
    from nimmt.puzzles.dealreport import summary_lines
    from nimmt.solver.positions.position import format_position, parse_position
    from nimmt.solver.search.deals import DealTable, deal_seed, deal_summary

    table = DealTable(str(TABLE), 1, "tactical", "normal", 8)
    assert table.missing(20) == []
    for i, deal in table.deals.items():
        dealt = deal_position(Rules("tactical", 2, "normal"), 8, deal_seed(1, i))
        assert deal["deal"] == deal["position"] == format_position(dealt)
        position = parse_position(deal["position"])
        r = load_solution(str(TABLE), position)  # its strategies give back its value
        assert r.value == deal["value"]
    deals = [table.deals[i] for i in range(20)]
    batch = {"seed": 1, "deals": 20, "finished": 20, "complete": True, "variant": "tactical",
             "placement": "normal", "cards_left": 8, "summary": deal_summary(deals),
             "solutions": deals}
    shipped = REPORT.read_text()
    for line in summary_lines(batch, []):  # the report's summary, from the table
        assert line in shipped
