"""Solving whole deals: the compact table and the levels solved again give the
table's values and strategies; the table spilled to a file gives the in-memory results;
solution files (solve-deal --output, analyse --solution) and batches of deals.

The reference is the search as it was before the compact table, still selectable: every state of
at least two cards each kept in full slots (``memo_from=2, compact=False``: three float64
values a state). Values and strategies must be identical to the bit; player 1's expected
cows within COWS_TOL (the compact slot keeps them in fixed point, solver.kernels.table).
"""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from helpers import FLOAT, assert_same_equilibrium

from nimmt.solver.base.intervals import mean_interval, share_interval
from nimmt.solver.base.rules import NimmtError, Rules
from nimmt.solver.kernels.table import COWS_SCALE, Table
from nimmt.solver.positions.position import format_position, parse_position
from nimmt.solver.search import deals
from nimmt.solver.search.deals import (
    Checkpoint,
    DealTable,
    deal_cells_path,
    deal_seed,
    deal_summary,
    load_solution,
    solution_json,
    solve_deal_unit,
    solve_deals,
    value_summary,
    write_solution,
)
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import MEMO_FROM, solve_nash

from cli_checks import assert_ok, assert_one_line_error, invoke

DEALS = [(placement, k, seed) for placement in ("normal", "professional")
         for k in (4, 5, 6) for seed in (1, 2)] + [
    pytest.param("normal", 7, 1, marks=pytest.mark.slow)]  # 18-30 s: run with -m slow
SLOW_DEALS = [("normal", 3, 3), ("professional", 3, 3), ("normal", 6, 3), ("normal", 7, 2),
              ("normal", 7, 3), ("professional", 7, 1), ("normal", 8, 1)]


def dealt(placement: str, k: int, seed: int):
    return deal_position(Rules("tactical", 2, placement), k, seed=seed)


def check_against_full_table(placement: str, k: int, seed: int) -> None:
    position = dealt(placement, k, seed)
    old = solve_nash(position, memo_from=2, compact=False, workers=1)
    new = solve_nash(position, workers=1)
    assert_same_equilibrium(new, old)
    assert MEMO_FROM == 3 and new.levels[2] == 0 and old.levels[2] > 0
    assert new.levels[3:] == old.levels[3:]     # the same states above, each stored once
    assert new.stored == sum(new.levels) < old.stored


@pytest.mark.parametrize("placement,k,seed", DEALS)
def test_compact_table_and_recomputed_level_give_the_same_equilibrium(placement, k, seed):
    check_against_full_table(placement, k, seed)


@pytest.mark.slow
@pytest.mark.parametrize("placement,k,seed", SLOW_DEALS)
def test_compact_table_same_equilibrium_slow(placement, k, seed):
    check_against_full_table(placement, k, seed)


def test_levels_kept_and_solved_again_agree():
    """Keeping fewer levels (states of three cards solved again too) or more changes how
    much is stored, never the equilibrium."""
    position = dealt("normal", 6, 4)
    runs = [solve_nash(position, memo_from=m, workers=1) for m in (2, 3, 4)]
    for r in runs[1:]:
        assert_same_equilibrium(r, runs[0])
    assert runs[0].stored > runs[1].stored > runs[2].stored


# ---------------------------------------------------------------- the compact slot

def test_compact_slots_store_probe_and_double():
    table = Table(64, 2, compact=True)
    rng = np.random.default_rng(5)
    stored = {}
    for i in range(30):
        key = tuple(int(w) for w in rng.integers(1, 2**62, size=2))
        value, cows = (i - 15) / 7, i * 1.37
        assert table.put(key, value, cows) >= 0
        stored[key] = (value, cows)
    bigger = table.doubled()
    for key, (value, cows) in stored.items():
        got = bigger.get(key)
        assert got[0] == value                                # the value to the bit
        assert abs(got[1] - cows) <= 0.5 / COWS_SCALE         # cows in fixed point
    assert bigger.slots == 128 and Table.slot_bytes(2, compact=True) == 32


def test_torn_compact_entry_is_never_read():
    table = Table(16, 2, compact=True)
    key = (11, 12)
    s = table.put(key, 2.5, 3.0)
    assert table.find(key) == (s, True)
    table.values[s, 2] = 9.0  # the value changed, the check not
    t, found = table.find(key)
    assert not found and t != s


def test_memory_mapped_table_doubles_and_is_removed(tmp_path):
    path = str(tmp_path / "t.npy")
    table = Table(16, 3, 3, path=path)
    table.put((1, 2, 3), 1.0, 2.0, 3.0)
    bigger = table.doubled(str(tmp_path / "u.npy"))
    assert not os.path.exists(path) and bigger.get((1, 2, 3)) == (1.0, 2.0, 3.0)
    bigger.close()
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- spilling to disk

@pytest.mark.parametrize("placement,k,seed", [("normal", 6, 2), ("professional", 6, 1)])
def test_spilled_table_gives_the_in_memory_results(tmp_path, placement, k, seed):
    position = dealt(placement, k, seed)
    memory = 64 * 2**10  # a table of 1,024 slots at most: the rest goes to files
    with pytest.raises(NimmtError, match="memory"):
        solve_nash(position, memory=memory)
    spilled = solve_nash(position, memory=memory, spill=str(tmp_path), workers=1)
    in_memory = solve_nash(position, workers=1)
    assert spilled.on_disk and not in_memory.on_disk
    assert_same_equilibrium(spilled, in_memory)
    # one worker: the same states stored (two workers may both store a state they
    # finished at the same moment, so their counts vary by a few)
    assert spilled.levels == in_memory.levels
    assert os.listdir(tmp_path) == []  # the table's files are removed


# ---------------------------------------------------------------- solution files

@pytest.fixture(scope="module")
def solved():
    position = dealt("normal", 5, 7)
    return position, solve_nash(position, workers=1)


def test_solution_round_trip(tmp_path, solved):
    position, r = solved
    path = str(tmp_path / "s.json")
    write_solution(path, solution_json(position, r, seed=7))
    back = load_solution(path, position)
    assert back.value == r.value and back.p1_frequency == r.p1_frequency
    assert back.p2_frequency == r.p2_frequency and back.p1_cards == r.p1_cards
    np.testing.assert_array_equal(back.matrix, r.matrix)
    assert back.p1_ev == pytest.approx(r.p1_ev, abs=FLOAT)
    assert back.exploitability < FLOAT and back.levels == r.levels


def test_solution_refuses_another_position_and_bad_files(tmp_path, solved):
    position, r = solved
    path = str(tmp_path / "s.json")
    data = solution_json(position, r)
    write_solution(path, data)
    with pytest.raises(NimmtError, match="another position"):
        load_solution(path, dealt("normal", 5, 8))
    cheated = json.loads(json.dumps(data))
    best = max(range(len(r.p1_ev)), key=lambda i: r.p1_ev[i])
    for i, c in enumerate(cheated["p1_strategy"]):
        c["frequency"] = 1.0 if i == best else 0.0
    if r.p1_ev[best] - r.value > 1e-6:  # a pure strategy that is not optimal
        write_solution(path, cheated)
        with pytest.raises(NimmtError, match="do not give back its value"):
            load_solution(path, position)
    write_solution(path, {"format": "something else"})
    with pytest.raises(NimmtError, match="not a deal solution"):
        load_solution(path, position)
    del data["matrix"]
    write_solution(path, data)
    with pytest.raises(NimmtError, match="missing or malformed"):
        load_solution(path, position)


def test_cli_solve_deal_output_then_analyse_solution(runner, tmp_path):
    path = str(tmp_path / "deal.json")
    assert_ok(invoke(runner, "solve-deal", "--seed", 3, "-k", 5, "--output", path))
    data = json.loads(open(path).read())
    position = data["position"]
    assert data["deal"] == format_position(dealt("normal", 5, 3))
    fast = invoke(runner, "analyse", position, "--solution", path, "--format", "json")
    slow = invoke(runner, "analyse", position, "--opponents", "nash", "--format", "json")
    assert_ok(fast)
    assert_ok(slow)
    a, b = json.loads(fast.output), json.loads(slow.output)
    assert [c["card"] for c in a["cards"]] == [c["card"] for c in b["cards"]]
    assert a["value"] == b["value"]
    assert [c["frequency"] for c in a["cards"]] == [c["frequency"] for c in b["cards"]]


def test_cli_analyse_solution_mismatch_is_one_line(runner, tmp_path, solved):
    position, r = solved
    path = str(tmp_path / "s.json")
    write_solution(path, solution_json(position, r))
    other = format_position(dealt("normal", 5, 8))
    line = assert_one_line_error(invoke(runner, "analyse", other, "--solution", path))
    assert "another position" in line
    line = assert_one_line_error(invoke(runner, "analyse", format_position(position),
                                        "--solution", str(tmp_path / "none.json")))
    assert "none.json" in line
    line = assert_one_line_error(invoke(runner, "analyse", format_position(position),
                                        "--solution", path, "--opponents", "worst"))
    assert "--opponents nash" in line


# ---------------------------------------------------------------- batches of deals

def test_deal_i_depends_only_on_seed_and_i():
    batch = solve_deals(5, 3, cards_left=4, workers=1)
    alone = solve_deal_unit(5, 2, cards_left=4, workers=1)
    assert [u["index"] for u in batch] == [0, 1, 2]
    assert batch[2]["deal"] == alone["deal"] and batch[2]["value"] == alone["value"]
    assert deal_seed(5, 2) == alone["deal_seed"] != deal_seed(6, 2)
    assert len({u["deal"] for u in batch}) == 3
    for u in batch:  # each is a solution of its position
        position = parse_position(u["position"])
        assert u["solved_from"] == position.cards_left == 4
        r = solve_nash(position, workers=1)
        assert u["value"] == r.value


def test_deals_in_processes_match_in_process():
    one = solve_deals(9, 4, jobs=1, cards_left=3, workers=1)
    two = solve_deals(9, 4, jobs=2, cards_left=3, workers=1)
    assert [(u["deal"], u["value"]) for u in one] == [(u["deal"], u["value"]) for u in two]


def test_value_summary():
    s = value_summary([-2.0, 0.0, 1.0, 3.0])
    assert s["deals"] == 4 and s["mean"] == 0.5 and s["min"] == -2.0 and s["max"] == 3.0
    assert s["player_1_better"] == 1 and s["even"] == 1 and s["player_2_better"] == 2
    assert s["stderr"] == pytest.approx(np.std([-2, 0, 1, 3], ddof=1) / 2)
    assert math.isclose(s["median"], 0.5)
    assert value_summary([]) == {"deals": 0}


def test_cli_deals_reports_the_distribution(runner, tmp_path):
    path = str(tmp_path / "batch.json")
    result = invoke(runner, "solve-deal", "--deals", 3, "--seed", 2, "-k", 4, "--output", path,
                    "--format", "json")
    assert_ok(result)
    batch = json.loads(result.output)
    assert json.loads(open(path).read()) == batch
    assert batch["complete"] and batch["finished"] == 3
    values = [u["value"] for u in batch["solutions"]]
    assert batch["summary"]["mean"] == pytest.approx(sum(values) / 3)
    assert values == [solve_deal_unit(2, i, cards_left=4)["value"] for i in range(3)]
    assert_one_line_error(invoke(runner, "solve-deal", "example", "--deals", 2))


def _table_cli(runner, table, *extra):
    return invoke(runner, "solve-deal", "--seed", 4, "-k", 4, "--table", table, "--format",
                  "json", *extra)


def test_the_deal_table_keeps_each_deal_and_a_rerun_solves_only_the_missing(runner, tmp_path):
    table = str(tmp_path / "deals.json")
    first = json.loads(_table_cli(runner, table, "--deals", 3).stdout)
    kept = json.loads(open(table).read())
    assert kept["format"] == "nimmt-deal-table/1" and kept["seed"] == 4
    assert kept["deals"] == first["solutions"]
    # a run stopped after deals 0 and 2: deal 1 missing from the table
    kept["deals"] = [d for d in kept["deals"] if d["index"] != 1]
    with open(table, "w") as f:
        json.dump(kept, f)
    result = _table_cli(runner, table, "--deals", 4)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("nimmt: 2 of 4 deals already in ")
    batch = json.loads(result.stdout)
    assert [d["index"] for d in batch["solutions"]] == [0, 1, 2, 3]
    # deals 0 and 2 come from the table (the same solve record), 1 and 3 are solved now
    assert batch["solutions"][0] == first["solutions"][0]
    assert batch["solutions"][2] == first["solutions"][2]
    assert [d["value"] for d in batch["solutions"]] == \
        [solve_deal_unit(4, i, cards_left=4, workers=1)["value"] for i in range(4)]
    assert [d["index"] for d in json.loads(open(table).read())["deals"]] == [0, 1, 2, 3]
    # everything in the table: nothing solved, the same figures
    again = _table_cli(runner, table, "--deals", 4)
    assert json.loads(again.stdout)["solutions"] == batch["solutions"]


class Stop(Exception):
    """Stands for Ctrl-C, or a lost machine, in the middle of a deal."""


@pytest.mark.parametrize("root", ["all", "needed"])
def test_a_batch_deal_goes_on_from_the_root_cells_kept_beside_the_table(runner, tmp_path,
                                                                        monkeypatch, root):
    """A deal of a batch solved with a deal table keeps its root cells beside it as they
    are solved; stopped after three, the same batch goes on from them (resumed, not
    solved again) to the deal a fresh solve gives, and once the deal is in the table the
    cells' file is gone."""
    table = str(tmp_path / "deals.json")
    fresh = solve_deal_unit(6, 0, cards_left=5, workers=1, root=root)
    record = Checkpoint.record

    def stop_after_three(self, i, j, value, cows):
        record(self, i, j, value, cows)
        if len(self.cells) >= 3:
            raise Stop

    monkeypatch.setattr(deals.Checkpoint, "record", stop_after_three)
    with pytest.raises(Stop):
        solve_deal_unit(6, 0, cards_left=5, workers=1, root=root, cells_beside=table)
    monkeypatch.undo()
    cells = deal_cells_path(table, 0)
    kept = Checkpoint(cells, parse_position(fresh["position"]))
    assert len(kept.cells) == 3 and not os.path.exists(table)
    result = invoke(runner, "solve-deal", "--seed", 6, "-k", 5, "--deals", 1, "--table",
                    table, "--root-cells", root, "--format", "json", "--workers", 1)
    assert_ok(result)
    again = json.loads(result.output)["solutions"][0]
    assert again["solve"]["resumed_cells"] == 3 and fresh["solve"]["resumed_cells"] == 0
    for key in ("position", "value", "p1_strategy", "p2_strategy", "matrix"):
        assert again[key] == fresh[key], key
    assert not os.path.exists(cells)  # in the table now: the cells are done with
    assert json.loads(open(table).read())["deals"][0]["value"] == fresh["value"]
    # a cells file left by a run lost after the deal reached the table: removed on rerun
    open(cells, "w").write("{}")
    rerun = invoke(runner, "solve-deal", "--seed", 6, "-k", 5, "--deals", 1, "--table", table,
                   "--root-cells", root, "--workers", 1)
    assert rerun.exit_code == 0 and "nothing left to solve" in rerun.stderr
    assert not os.path.exists(cells)


def test_a_batch_deals_cells_of_another_position_are_one_clear_error(tmp_path):
    """Root cells beside the table that belong to another position of the deal (solved
    with other memory options) stop that deal with one line saying what to do."""
    table = str(tmp_path / "deals.json")
    other = parse_position(solve_deal_unit(7, 0, cards_left=4, workers=1)["position"])
    book = Checkpoint(deal_cells_path(table, 0), other)
    book.record(0, 0, 1.0, 2.0)
    with pytest.raises(NimmtError) as info:
        solve_deal_unit(6, 0, cards_left=4, workers=1, cells_beside=table)
    message = str(info.value)
    assert "deal 0" in message and "delete it" in message and "\n" not in message


def test_the_deal_table_refuses_another_batch_and_bad_files(runner, tmp_path):
    table = str(tmp_path / "deals.json")
    assert_ok(_table_cli(runner, table, "--deals", 1))
    other = invoke(runner, "solve-deal", "--seed", 5, "-k", 4, "--deals", 1, "--table", table)
    assert_one_line_error(other)
    assert "another batch" in other.output
    data = json.loads(open(table).read())
    for bad in ([], {"format": "x"}, {**data, "deals": [{**data["deals"][0], "index": "0"}]},
                {**data, "deals": [{**data["deals"][0], "deal_seed": 1}]}):
        with open(table, "w") as f:
            json.dump(bad, f)
        result = _table_cli(runner, table, "--deals", 1)
        assert_one_line_error(result)
        assert "deal table" in result.output
    fresh = str(tmp_path / "t2.json")
    DealTable(fresh, 1, "tactical", "normal", 4).record(solve_deal_unit(1, 0, cards_left=4))
    assert DealTable(fresh, 1, "tactical", "normal", 4).missing(3) == [1, 2]
    with pytest.raises(NimmtError, match="another batch"):
        DealTable(fresh, 1, "tactical", "normal", 5)
    assert_one_line_error(invoke(runner, "solve-deal", "--seed", 1, "--table", fresh))


def test_analyse_solution_finds_the_deal_in_a_table_or_a_batch(runner, tmp_path):
    table, batch = str(tmp_path / "deals.json"), str(tmp_path / "batch.json")
    assert_ok(_table_cli(runner, table, "--deals", 2, "--output", batch))
    for deal in json.loads(open(table).read())["deals"]:
        one = str(tmp_path / f"one{deal['index']}.json")
        write_solution(one, deal)
        answers = [invoke(runner, "analyse", deal["position"], "--opponents", "nash",
                          "--solution", path) for path in (one, table, batch)]
        for answer in answers:
            assert_ok(answer)
        assert answers[0].stdout == answers[1].stdout == answers[2].stdout
    elsewhere = solve_deal_unit(4, 7, cards_left=4)["position"]
    result = invoke(runner, "analyse", elsewhere, "--opponents", "nash", "--solution", table)
    assert_one_line_error(result)
    assert "none of its 2 deals is this position" in result.output


def _deal(value, p1, p2):
    """A solved deal's fields that the summary reads: (card, frequency) per side."""
    return {"value": value,
            "p1_strategy": [{"card": c, "frequency": f, "value": 0.0} for c, f in p1],
            "p2_strategy": [{"card": c, "frequency": f, "value": 0.0} for c, f in p2]}


def test_deal_summary_counts_pure_saddles_and_first_card_ranks():
    deals = [_deal(1.0, [(3, 1.0), (7, 0.0), (9, 0.0)], [(2, 0.0), (5, 1.0), (8, 0.0)]),
             _deal(-2.0, [(9, 0.25), (3, 0.75), (7, 0.0)], [(8, 1.0), (2, 0.0), (5, 0.0)]),
             _deal(4.0, [(7, 1.0), (3, 0.0), (9, 0.0)], [(2, 1.0), (5, 0.0), (8, 0.0)])]
    s = deal_summary(deals)
    assert s["pure"] == 2 and s["pure_share"] == pytest.approx(2 / 3)
    assert tuple(s["pure_interval"]) == share_interval(2, 3)
    assert tuple(s["mean_interval"]) == mean_interval([1.0, -2.0, 4.0])[1]
    assert s["mean"] == 1.0
    # player 1 opens with its lowest card (3) 1 + 0.75 times, the middle (7) once, the
    # highest (9) 0.25 times, of 3 deals; player 2: 8 (highest) once, 5 once, 2 once
    assert s["first_card_rank"]["p1"] == pytest.approx([1.75 / 3, 1 / 3, 0.25 / 3])
    assert s["first_card_rank"]["p2"] == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert deal_summary([]) == {"deals": 0}
