"""The report of solved deals: the bot's first cards and their losses against the
equilibrium, and the report's files (with and without matplotlib)."""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

from nimmt.puzzles.dealreport import BOT, bot_first_cards, write_deal_report
from nimmt.solver.base.pictures import NO_PICTURES
from nimmt.solver.players.bots import make_policy
from nimmt.solver.positions.position import parse_position
from nimmt.solver.search.deals import deal_summary, solve_deals

from cli_checks import assert_one_line_error, invoke


@pytest.fixture(scope="module")
def batch():
    deals = solve_deals(3, 4, cards_left=4, workers=1)
    return {"seed": 3, "deals": 4, "finished": 4, "complete": True, "variant": "tactical",
            "placement": "normal", "cards_left": 4, "summary": deal_summary(deals),
            "solutions": deals}


def test_the_bot_s_first_cards_and_their_losses_from_the_deal_s_matrix(batch):
    compared = bot_first_cards(batch["solutions"])
    assert [c["index"] for c in compared] == [0, 1, 2, 3]
    for deal, c in zip(batch["solutions"], compared):
        position = parse_position(deal["position"])
        p1, p2 = list(position.hand), list(position.hands[1])
        assert c["bot"] == BOT and c["p1_card"] in p1 and c["p2_card"] in p2
        # the loss, recomputed from the stored matrix and the other side's strategy
        matrix = np.array(deal["matrix"], dtype=float)
        x = np.array([s["frequency"] for s in deal["p1_strategy"]])
        y = np.array([s["frequency"] for s in deal["p2_strategy"]])
        assert [s["card"] for s in deal["p1_strategy"]] == p1
        row = matrix[p1.index(c["p1_card"])] @ y
        column = x @ matrix[:, p2.index(c["p2_card"])]
        assert c["p1_loss"] == pytest.approx(max(0.0, row - deal["value"]), abs=1e-9)
        assert c["p2_loss"] == pytest.approx(max(0.0, deal["value"] - column), abs=1e-9)
        for side in ("p1", "p2"):
            if c[f"{side}_in_support"]:  # a card the equilibrium plays loses nothing
                assert c[f"{side}_loss"] == pytest.approx(0.0, abs=1e-9)
        # player 1's card is the bot's own choice from player 1's seat, with this seed
        assert c["p1_card"] == make_policy(BOT, seed=deal["deal_seed"]).choose(position).card


def test_the_report_s_files(batch, tmp_path, monkeypatch):
    compared = bot_first_cards(batch["solutions"])
    html = tmp_path / "r.html"
    assert write_deal_report(batch, compared, str(html)) == [str(html)]
    page = html.read_text()
    assert page.count("<svg") == 3 and page.count("<tr>") == 1 + 4 + 1 + 4
    md = tmp_path / "r.md"
    written = write_deal_report(batch, compared, str(md))
    assert sorted(os.path.basename(p) for p in written) == ["r-bot.png", "r-ranks.png",
                                                             "r-values.png", "r.md"]
    assert "![" in md.read_text() and "| 3 | 4 |" in md.read_text()
    data = tmp_path / "r.json"
    write_deal_report(batch, compared, str(data))
    assert json.loads(data.read_text())["bot_first_cards"] == compared
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    bare = tmp_path / "bare"
    bare.mkdir()
    write_deal_report(batch, compared, str(bare / "r.md"))
    write_deal_report(batch, compared, str(bare / "r.html"))
    assert sorted(os.listdir(bare)) == ["r.html", "r.md"]
    assert NO_PICTURES in (bare / "r.md").read_text()
    assert "<svg" not in (bare / "r.html").read_text()


def test_cli_report_of_a_batch(runner, tmp_path):
    report = tmp_path / "deals.md"
    result = invoke(runner, "solve-deal", "--deals", 2, "--seed", 3, "-k", 4, "--report", report)
    assert result.exit_code == 0, result.output
    assert sorted(os.listdir(tmp_path)) == ["deals-bot.png", "deals-ranks.png",
                                            "deals-values.png", "deals.md"]
    assert "pure saddle points:" in result.stdout and "2 deals (seed 3," in report.read_text()
    assert_one_line_error(invoke(runner, "solve-deal", "--deals", 2, "--report",
                                 tmp_path / "deals.txt"))
    assert_one_line_error(invoke(runner, "solve-deal", "--report", tmp_path / "x.html"))
