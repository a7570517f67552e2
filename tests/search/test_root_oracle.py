"""The root's double oracle (solve_nash(root="needed"), solve-deal --root-cells needed):
only the root cells that the equilibrium's proof needs are solved.

Held against the whole matrix: on random matrix games (cells revealed only as the oracle
asks for them, the others NaN, so a cell read before it is solved would show) the value
is the whole game's (scipy's HiGHS) and the oracle's strategies are optimal on every
cell; on dealt positions the value is the full solve's, the cells solved are its cells
to the bit, and the answer is the same with one worker or two, resumed from a checkpoint,
or solved cell by cell."""
from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_same_equilibrium
from scipy.optimize import linprog

from nimmt.solver.base.batch import Backend
from nimmt.solver.base.errors import NashStopped
from nimmt.solver.base.rules import NimmtError, Rules
from nimmt.solver.search.deals import (
    Checkpoint,
    load_solution,
    solution_json,
    solve_by_cells,
    solve_deal_unit,
    write_solution,
)
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import (
    ROOT_NEEDED,
    nash_from_cells,
    oracle_cells,
    replies,
    root_oracle,
    solve_nash,
)

from cli_checks import assert_ok, assert_one_line_error, invoke

FLOAT = 1e-9


def highs_value(game: np.ndarray) -> float:
    """The value of the game (row player minimising) by scipy's HiGHS."""
    m, n = game.shape
    bounds = [(0, None)] * m + [(None, None)]
    res = linprog(np.r_[np.zeros(m), 1.0], A_ub=np.c_[game.T, -np.ones(n)], b_ub=np.zeros(n),
                  A_eq=np.r_[np.ones(m), 0.0][None], b_eq=[1.0], bounds=bounds, method="highs")
    assert res.success
    return float(res.x[m])


def run_oracle(game: np.ndarray, known: np.ndarray | None = None, all_at_once: bool = True):
    """The oracle on ``game``, each cell revealed only when it is asked for (the others
    NaN); returns its answer and the cells revealed."""
    k = len(game)
    known = np.zeros((k, k), np.bool_) if known is None else known.copy()
    seen = np.where(known, game, np.nan)
    while (step := root_oracle(seen, known)).answer is None:
        assert step.cells and all(not known[c] for c in step.cells)
        for cell in step.cells if all_at_once else step.cells[:1]:
            known[cell], seen[cell] = True, game[cell]
    return step.answer, known


def random_game(rng: np.random.Generator, k: int) -> np.ndarray:
    """Games like the root's: small integers (ties, equal lines) or reals."""
    if rng.random() < 0.5:
        return rng.integers(-4, 5, size=(k, k)).astype(float)
    return rng.normal(size=(k, k)) * 5


@pytest.mark.parametrize("seed", range(6))
def test_oracle_gives_the_whole_games_value_and_optimal_strategies(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        k = int(rng.integers(1, 11))
        game = random_game(rng, k)
        (value, x, y), known = run_oracle(game, all_at_once=bool(rng.random() < 0.5))
        assert value == pytest.approx(highs_value(game), abs=FLOAT)
        assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
        assert (x >= 0).all() and (y >= 0).all()
        # optimal on the whole matrix: no card of either side does better against it
        assert (game @ y).min() >= value - FLOAT and (x @ game).max() <= value + FLOAT
        assert known[:, 0].all()  # where it starts


def test_oracle_skips_cells_on_games_with_a_clear_answer():
    rng = np.random.default_rng(7)
    fewer = 0
    for _ in range(40):
        game = rng.normal(size=(10, 10))
        game[3, :] = game.min() - 1 - rng.random(10)  # row 3 best against every column
        (value, x, y), known = run_oracle(game)
        assert x[3] == 1.0 and value == game[3].max()
        assert known.sum() <= 10 + 9 + 9  # column 0, row 3, the column of its maximum
        fewer += known.sum() < 100
    assert fewer == 40  # a pure answer never needs the whole matrix


@pytest.mark.parametrize("seed", range(3))
def test_oracle_answer_does_not_depend_on_other_cells_known(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(30):
        k = int(rng.integers(2, 11))
        game = random_game(rng, k)
        answer, _ = run_oracle(game)
        extra = rng.random((k, k)) < rng.random()  # cells solved by chance beforehand
        other, _ = run_oracle(game, extra, all_at_once=False)
        assert other[0] == answer[0]
        np.testing.assert_array_equal(other[1], answer[1])
        np.testing.assert_array_equal(other[2], answer[2])


def test_replies_read_only_the_lines_played():
    game = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, np.nan], [0.0, np.nan, 5.0]])
    x, y = np.array([0.5, 0.0, 0.5]), np.array([0.25, 0.0, 0.75])
    p1, p2 = replies(game, x, y)
    assert np.isnan(p1[1]) and p1[0] == 1.75 and p1[2] == 3.75
    assert np.isnan(p2[1]) and p2[0] == 0.5 and p2[2] == 3.5


def dealt(k: int, seed: int, placement: str = "normal"):
    return deal_position(Rules("tactical", 2, placement), k, seed=seed)


DEALS = [(placement, k, seed) for placement in ("normal", "professional")
         for k in (4, 5, 6) for seed in (1, 2)] + [
    pytest.param("normal", 7, 1, marks=pytest.mark.slow)]  # 18-30 s: run with -m slow


@pytest.mark.parametrize("placement,k,seed", DEALS)
def test_needed_cells_give_the_full_solves_equilibrium(placement, k, seed):
    position = dealt(k, seed, placement)
    full = solve_nash(position, workers=1)
    lean = solve_nash(position, workers=1, root=ROOT_NEEDED)
    assert lean.value == pytest.approx(full.value, abs=FLOAT)
    solved = np.isfinite(lean.matrix)
    np.testing.assert_array_equal(lean.matrix[solved], full.matrix[solved])  # to the bit
    assert solved[:, 0].all() and lean.nodes <= full.nodes
    x, y = np.array(lean.p1_frequency), np.array(lean.p2_frequency)
    whole = full.matrix
    assert (whole @ y).min() >= lean.value - FLOAT and (x @ whole).max() <= lean.value + FLOAT
    assert lean.exploitability < FLOAT
    assert lean.p1_ev == pytest.approx(tuple(whole @ y), abs=FLOAT)
    two = solve_nash(position, workers=2, root=ROOT_NEEDED)  # more cells may be solved,
    assert_same_equilibrium(two, lean)  # but the matrix holds the cells the oracle asked for alone


def test_needed_cells_resumed_from_a_checkpoint_and_by_cells(tmp_path):
    position = dealt(6, 2)
    whole = solve_nash(position, workers=1, root=ROOT_NEEDED)
    path = str(tmp_path / "deal.ckpt.json")
    book = Checkpoint(path, position)

    class Stop(Exception):
        pass

    def stop_after_two(i, j, value, cows):
        book.record(i, j, value, cows)
        if len(book.cells) >= 2:
            raise Stop
    with pytest.raises(Stop):
        solve_nash(position, workers=1, root=ROOT_NEEDED, known=book.cells,
                   on_cell=stop_after_two)
    kept = Checkpoint(path, position)
    resumed = solve_nash(position, workers=2, root=ROOT_NEEDED, known=kept.cells,
                         on_cell=kept.record)
    assert resumed.resumed == 2
    assert resumed.value == whole.value and resumed.p1_frequency == whole.p1_frequency
    assert resumed.p2_frequency == whole.p2_frequency
    apart = solve_by_cells(position, Backend(1), workers=1, root=ROOT_NEEDED)
    assert_same_equilibrium(apart, whole)
    cells = {(i, j): (float(whole.matrix[i, j]), 0.0) for i in range(6) for j in range(6)
             if np.isfinite(whole.matrix[i, j])}
    again = nash_from_cells(position, cells, root=ROOT_NEEDED)
    assert again.value == whole.value and again.p1_frequency == whole.p1_frequency
    with pytest.raises(ValueError, match="missing"):
        nash_from_cells(position, cells)  # the whole matrix is not there
    if len(cells) < 36:
        fewer = dict(list(cells.items())[1:])
        with pytest.raises(ValueError, match="more root cells are needed"):
            nash_from_cells(position, fewer, root=ROOT_NEEDED)


def test_solution_with_unsolved_cells_round_trips_and_refuses_holes(tmp_path):
    position = dealt(6, 1)
    r = solve_nash(position, workers=1, root=ROOT_NEEDED)
    assert not np.isfinite(r.matrix).all()  # this deal leaves cells unsolved
    path = str(tmp_path / "s.json")
    data = solution_json(position, r)
    write_solution(path, data)
    text = open(path).read()
    assert "NaN" not in text and "null" in text  # valid JSON
    back = load_solution(path, position)
    assert back.value == r.value and back.p1_frequency == r.p1_frequency
    assert back.exploitability < FLOAT
    played = next(j for j, f in enumerate(r.p2_frequency) if f > 0)
    for cell in ((0, played),  # a cell of a column player 2 plays
                 (next(i for i, f in enumerate(r.p1_frequency) if f > 0), 0)):  # a row of p1
        holed = json.loads(text)
        holed["matrix"][cell[0]][cell[1]] = None
        write_solution(path, holed)
        with pytest.raises(NimmtError, match="missing"):
            load_solution(path, position)


@pytest.mark.parametrize("change,message", [
    (lambda d: d["matrix"][0].__setitem__(0, 10**400), "malformed"),
    (lambda d: d["p1_strategy"][0].__setitem__("card", float("inf")), "malformed"),
    (lambda d: d.__setitem__("solve", []), "malformed"),
    (lambda d: d["solve"].__setitem__("states", "x"), "malformed"),
    (lambda d: d["solve"].__setitem__("levels", 5), "malformed"),
    (lambda d: d.__setitem__("p1_expected_cows", float("nan")), "not numbers"),
    (lambda d: d.__setitem__("value", float("inf")), "not numbers"),
])
def test_solution_bad_fields_are_one_error(tmp_path, change, message):
    position = dealt(4, 1)
    data = solution_json(position, solve_nash(position, workers=1))
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(NimmtError, match=message):
        load_solution(str(path), position)


def test_a_time_limit_says_how_many_more_cells_are_needed():
    position = dealt(7, 1)
    with pytest.raises(NashStopped, match=r"root cells solved, at least \d+ more needed"):
        solve_nash(position, workers=1, root=ROOT_NEEDED, time_limit=0.05)


def test_oracle_cells_are_those_it_asks_for():
    game = np.arange(16.0).reshape(4, 4) % 5
    known = np.ones((4, 4), np.bool_)
    asked = oracle_cells(game, known)
    _, revealed = run_oracle(game)
    np.testing.assert_array_equal(asked, revealed)
    with pytest.raises(ValueError, match="not solved"):
        oracle_cells(game, np.zeros((4, 4), np.bool_))


def test_cli_solve_deal_root_cells_needed(runner, tmp_path):
    path = str(tmp_path / "deal.json")
    result = invoke(runner, "solve-deal", "--seed", 1, "-k", 6, "--root-cells", "needed",
                    "--output", path)
    assert_ok(result)
    assert "root cells solved: the others are not needed" in result.output
    data = json.loads(open(path).read())
    fast = invoke(runner, "analyse", data["position"], "--solution", path, "--format", "json")
    slow = invoke(runner, "analyse", data["position"], "--opponents", "nash", "--format",
                  "json")
    assert_ok(fast)
    assert_ok(slow)
    a, b = json.loads(fast.output), json.loads(slow.output)
    assert a["value"] == pytest.approx(b["value"], abs=FLOAT)
    assert {c["card"]: c["value"] for c in a["cards"]} == pytest.approx(
        {c["card"]: c["value"] for c in b["cards"]}, abs=FLOAT)
    batch = invoke(runner, "solve-deal", "--deals", 2, "-k", 5, "--seed", 3,
                   "--root-cells", "needed", "--format", "json")  # for every deal
    assert_ok(batch)
    needed = json.loads(batch.output)["solutions"]
    assert all(any(v is None for row in u["matrix"] for v in row) for u in needed)
    assert [u["value"] for u in needed] == pytest.approx(
        [solve_deal_unit(3, i, cards_left=5, workers=1)["value"] for i in range(2)],
        abs=FLOAT)


def test_cli_root_cells_needed_checkpoint_resumed(runner, tmp_path):
    path = str(tmp_path / "deal.ckpt.json")
    args = ["solve-deal", "--seed", 4, "-k", 6, "--root-cells", "needed"]
    fresh = invoke(runner, *args, "--format", "json")
    assert_ok(fresh)
    stopped = invoke(runner, *args, "--checkpoint", path, "--time-limit", "0.001")
    if stopped.exit_code:  # the limit came first (a fast machine may finish before it)
        line = assert_one_line_error(stopped)
        assert "stopped at the time limit" in line and path in line
    resumed = invoke(runner, *args, "--checkpoint", path, "--format", "json")
    assert_ok(resumed)
    a, b = json.loads(fresh.output)["solution"], json.loads(resumed.output)["solution"]
    assert a["value"] == b["value"] and a["matrix"] == b["matrix"]
    assert a["p1_strategy"] == b["p1_strategy"] and a["p2_strategy"] == b["p2_strategy"]
    assert None in sum(a["matrix"], [])
    by_cell = invoke(runner, *args, "--by-cell", "--format", "json")
    assert_ok(by_cell)
    c = json.loads(by_cell.output)["solution"]
    assert c["value"] == a["value"] and c["matrix"] == a["matrix"]
