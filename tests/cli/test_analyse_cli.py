"""`nimmt analyse` (DESIGN.md section 4): table, JSON and Markdown output, the `analyze`
alias, Monte Carlo options, and the error contract: ONE line on stderr starting with
"nimmt: error:", exit status 2, no traceback."""
from __future__ import annotations

import json
import re

import pytest

from nimmt.solver.positions.owners import estimate_nodes
from nimmt.solver.positions.position import EXAMPLES, format_position, parse_position
from nimmt.solver.search.analysis import analyse

from cli_checks import assert_ok, assert_one_line_error, invoke

EXACT_EXAMPLES = ["example", "example-3p", "example-pro", "example-logic"]
MODELS = ["random", "worst"]
TOL = 1e-9


def run_json(runner, *args):
    result = invoke(runner, "analyse", *args, "--format", "json")
    assert_ok(result)
    return json.loads(result.stdout)


def table_cards(text):
    """The cards in the first column of the plain table (a line may list tied cards)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("card"))
    assert set(lines[start + 1].replace(" ", "")) == {"-"}  # the rule under the header
    cards = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        first = re.match(r"^(\d+(?:, \d+)*)\s", line)
        assert first, line
        cards += [int(c) for c in first.group(1).split(", ")]
    return cards


def markdown_cards(text):
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) >= 3
    assert re.match(r"^\|[-:|]+\|$", rows[1].replace(" ", ""))  # the separator row
    assert rows[0].split("|")[1].strip() == "card"
    cards = []
    for row in rows[2:]:
        cards += [int(c) for c in row.split("|")[1].strip().split(", ")]
    return cards


# ---------------------------------------------------------------- exact examples

@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("name", EXACT_EXAMPLES)
def test_table(runner, name, model):
    position = parse_position(EXAMPLES[name])
    result = invoke(runner, "analyse", name, "--opponents", model)
    assert_ok(result)
    out = result.stdout
    assert f"opponents: {model}" in out
    assert "method: exact" in out
    assert ("expected cows" if model == "random" else "guaranteed cows") in out
    cards = table_cards(out)
    assert sorted(cards) == sorted(position.hand)  # every card of the hand, once
    api = analyse(position, opponents=model)
    assert cards == [c.card for c in api.cards]  # best first, as the library ranks them
    assert re.search(r"^best: ", out, re.M)
    assert f"{api.value:.3f}" in out


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("name", EXACT_EXAMPLES)
def test_json_matches_api(runner, name, model):
    data = run_json(runner, name, "--opponents", model)
    position = parse_position(EXAMPLES[name])
    api = analyse(position, opponents=model)
    assert data["opponents"] == model and data["method"] == "exact"
    assert data["position"] == format_position(position)
    assert parse_position(data["position"]) == position
    assert data["value"] == pytest.approx(api.value, abs=TOL)
    assert [c["card"] for c in data["cards"]] == [c.card for c in api.cards]
    for item, c in zip(data["cards"], api.cards):
        assert item["value"] == pytest.approx(c.value, abs=TOL)
        assert item["regret"] == pytest.approx(c.regret, abs=TOL)
        assert item["regret"] >= 0
        assert "stderr" not in item and "ci95" not in item
    assert data["cards"][0]["regret"] == 0
    values = [c["value"] for c in data["cards"]]
    assert values == sorted(values)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("name", ["example", "example-logic"])
def test_markdown(runner, name, model):
    result = invoke(runner, "analyse", name, "--opponents", model, "--format", "markdown")
    assert_ok(result)
    position = parse_position(EXAMPLES[name])
    assert sorted(markdown_cards(result.stdout)) == sorted(position.hand)
    assert "best: " in result.stdout


def without_timing(data):
    return {k: v for k, v in data.items() if k != "seconds"}


def test_analyze_alias(runner):
    a = run_json(runner, "example-pro", "--opponents", "worst")
    result = invoke(runner, "analyze", "example-pro", "--opponents", "worst", "--format", "json")
    assert_ok(result)
    assert without_timing(json.loads(result.stdout)) == without_timing(a)
    table = invoke(runner, "analyze", "example")
    assert_ok(table)
    assert sorted(table_cards(table.stdout)) == sorted(parse_position(EXAMPLES["example"]).hand)


def test_position_in_notation_and_json_file(runner, tmp_path):
    text = "players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 gone=1,2,4,5,6,8,9,10,11"
    data = run_json(runner, text)
    assert data["position"] == format_position(parse_position(text))
    path = tmp_path / "pos.json"
    path.write_text(json.dumps({"players": 2, "rows": [[3, 7, 12], [14, 16], [19, 20, 21], [23]],
                                "hand": [13, 18, 22], "gone": [1, 2, 4, 5, 6, 8, 9, 10, 11]}))
    assert run_json(runner, str(path))["cards"] == data["cards"]


# ---------------------------------------------------------------- Monte Carlo

MC_ARGS = ("example-standard", "--method", "montecarlo", "--samples", "200", "--seed", "1")


def test_montecarlo_json(runner):
    data = run_json(runner, *MC_ARGS)
    position = parse_position(EXAMPLES["example-standard"])
    assert data["method"] == "montecarlo" and data["opponents"] == "random"
    assert data["complete"] is True
    assert sorted(c["card"] for c in data["cards"]) == sorted(position.hand)
    for item in data["cards"]:
        assert isinstance(item["stderr"], float) and item["stderr"] >= 0
        low, high = item["ci95"]
        assert low <= item["value"] <= high
        assert item["regret"] >= 0
    assert data["cards"][0]["regret"] == 0
    assert "later_play" in data  # says how player 1's later turns are played
    # matches the library with the same seed and samples
    api = analyse(position, method="montecarlo", samples=200, seed=1)
    assert [c["card"] for c in data["cards"]] == [c.card for c in api.cards]
    assert [c["value"] for c in data["cards"]] == pytest.approx([c.value for c in api.cards],
                                                                abs=TOL)


def test_montecarlo_same_seed_same_output(runner):
    first = run_json(runner, *MC_ARGS)
    assert without_timing(run_json(runner, *MC_ARGS)) == without_timing(first)
    table = [invoke(runner, "analyse", *MC_ARGS) for _ in range(2)]
    for t in table:
        assert_ok(t)
    strip = [re.sub(r"\d+\.\d+ s\b", "", t.stdout) for t in table]  # the timing
    assert strip[0] == strip[1]
    other = run_json(runner, *MC_ARGS[:-1], "2")
    assert [c["value"] for c in other["cards"]] != [c["value"] for c in first["cards"]]


def test_montecarlo_table(runner):
    result = invoke(runner, "analyse", *MC_ARGS)
    assert_ok(result)
    out = result.stdout
    assert "method: montecarlo" in out and "200" in out
    assert "stopped early" not in out
    position = parse_position(EXAMPLES["example-standard"])
    assert sorted(table_cards(out)) == sorted(position.hand)


def test_time_limit_stops_early_with_every_card(runner):
    args = ("analyse", "example-standard", "--method", "montecarlo", "--samples", "100000000",
            "--seed", "3", "--time-limit", "0.05")
    position = parse_position(EXAMPLES["example-standard"])
    result = invoke(runner, *args)
    assert_ok(result)
    assert re.search(r"^stopped by the time limit after [\d,]+ samples per card", result.stdout,
                     re.M)
    assert sorted(table_cards(result.stdout)) == sorted(position.hand)
    result = invoke(runner, *args, "--format", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert data["complete"] is False and data["stopped"] == "time limit"
    assert sorted(c["card"] for c in data["cards"]) == sorted(position.hand)
    for item in data["cards"]:
        assert 2 <= item["samples"] < 100_000_000
        assert len(item["ci95"]) == 2


def test_auto_falls_back_to_montecarlo(runner):
    data = run_json(runner, "example-standard", "--samples", "50", "--seed", "4")
    assert data["method"] == "montecarlo"
    assert "auto" in data["reason"]


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("args", [
    ("example", "--opponents", "best"),
    ("example", "--method", "fast"),
    ("example", "--samples", "1"),
    ("example", "--samples", "x"),
    ("example", "--samples", "0"),
    ("example", "--time-limit", "0"),
    ("example", "--time-limit", "-1"),
    ("example", "--time-limit", "soon"),
    ("example", "--max-nodes", "0"),
    ("example", "--max-nodes", "-5"),
    ("example", "--format", "xml"),
    ("example", "--seed", "-1"),
    ("example", "--colour", "red"),
    ("players=2 rows=3/20 hand=1",),                       # 2 rows, not 4
    ("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,x",),
    ("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 gone=1,2",),  # pool inconsistent
    ("players=2 rows=3/20/41/50 hand=1,3",),             # duplicate card
    ("hand",),
    ("no-such-example",),
    ("example", "example"),
    (),
])
def test_bad_options_one_line(runner, args):
    assert_one_line_error(invoke(runner, "analyse", *args))


def test_exact_over_budget_refuses_with_estimate(runner):
    line = assert_one_line_error(invoke(runner, "analyse", "example-standard", "--method",
                                        "exact", "--max-nodes", "10"))
    estimate = estimate_nodes(parse_position(EXAMPLES["example-standard"]))
    assert f"{estimate:,}" in line or f"{estimate:.1e}" in line
    assert "--max-nodes" in line and "montecarlo" in line


def test_worst_over_budget_refuses(runner):
    # --method exact refuses; auto falls back, saying why (tests/search/test_budgets.py)
    line = assert_one_line_error(invoke(runner, "analyse", "example-standard", "--opponents",
                                        "worst", "--method", "exact"))
    assert "--max-nodes" in line


def test_montecarlo_worst_refuses(runner):
    line = assert_one_line_error(invoke(runner, "analyse", "example", "--method", "montecarlo",
                                        "--opponents", "worst"))
    assert "random" in line


def test_alias_errors_too(runner):
    assert_one_line_error(invoke(runner, "analyze", "example", "--format", "xml"))
