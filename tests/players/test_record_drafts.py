"""Game records keep the logic draft's picks in order: arena and
simulate with --drafters save them; loading replays the picks (order, legality, the
hands and rows they make) and says, in one line, the first that is wrong."""
from __future__ import annotations

import copy
import json
import os

import pytest
from click.testing import CliRunner

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import Rules, card_cows
from nimmt.solver.players.arena import run_arena
from nimmt.solver.players.bots import parse_bots
from nimmt.solver.players.records import build_record, load_record, replay, validate_record
from nimmt.solver.players.seats import deal_cards, deal_round
from nimmt.solver.positions.draft import picker

from cli_checks import assert_ok, invoke


def fewest_draft(players: int, start: int) -> list[int]:
    """The picks of a draft by ``fewest`` drafters, in plain Python: every pick takes the
    pool's card with the fewest cows, the lowest of them."""
    pool = set(range(1, 10 * players + 5))
    picks = []
    for _ in range(10 * players):
        card = min(pool, key=lambda c: (card_cows(c), c))
        pool.remove(card)
        picks.append(card)
    return picks


def arena_records(rules: Rules, bots: str, drafters: str, deals: int = 2) -> list[dict]:
    games: list = []
    run_arena(rules, parse_bots(bots), deals, seed=5, drafters=drafters,
              on_game=lambda g: games.append(g.record))
    return games


def test_arena_records_hold_the_picks_and_they_make_the_deal():
    rules = Rules("logic", 3, threshold=30)
    records = arena_records(rules, "closest,lowkeeper,random", "fewest,cheap,random")
    assert records
    for record in records:
        rounds = replay(validate_record(json.loads(json.dumps(record))))
        for i, (this, replayed) in enumerate(zip(record["rounds"], rounds)):
            draft = this["draft"]
            assert draft["order"] == "round-robin" and draft["start"] == i % 3 + 1
            assert len(draft["picks"]) == 30 and len(set(draft["picks"])) == 30
            assert replayed.picks == tuple(draft["picks"])
            assert replayed.pickers == tuple(picker(k, 3, draft["start"]) for k in range(30))
            for seat in range(3):
                assert sorted(c for c, p in zip(replayed.picks, replayed.pickers)
                              if p == seat) == this["hands"][seat]
            assert this["rows"] == sorted(set(range(1, 35)) - set(draft["picks"]))


def test_the_picks_are_the_drafters_picks():
    """fewest drafters are deterministic: the picks equal a plain-Python draft's."""
    rules = Rules("logic", 2, one_round=True)
    for round_index in (0, 1):
        rows, hands, draft = deal_round(rules, 3, 0, round_index, ["fewest", "fewest"])
        assert draft is not None and draft["start"] == round_index + 1
        assert draft["picks"] == fewest_draft(2, round_index + 1)
        assert (rows, hands) == deal_cards(rules, 3, 0, round_index, ["fewest", "fewest"])
    assert deal_round(rules, 3, 0, 0)[2] is None  # dealt, not drafted: no picks


def test_simulate_save_games_round_trip(tmp_path):
    folder = tmp_path / "games"
    result = invoke(CliRunner(), "simulate", "--variant", "logic", "--players", 2, "--bots",
                    "closest,random", "--drafters", "cheap,evaluate", "--games", 3,
                    "--threshold", 25, "--seed", 9, "--save-games", folder, "--format", "json")
    assert_ok(result)
    summary = json.loads(result.stdout)
    files = sorted(os.listdir(folder))
    assert len(files) == 3
    totals = []
    for name in files:
        record = load_record(str(folder / name))  # replays the picks and every turn
        assert all(len(r["draft"]["picks"]) == 20 for r in record["rounds"])
        rounds = replay(record)
        scores = [sum(r.cows[s] for r in rounds) for s in range(2)]
        assert scores == record["scores"]
        totals.append(scores)
    means = [sum(t[s] for t in totals) / 3 for s in range(2)]
    assert means == pytest.approx([seat["final_total"]["mean"] for seat in summary["seats"]])


def test_build_record_keeps_a_hand_written_draft():
    picks = list(range(1, 21))
    hands = [picks[0::2], picks[1::2]]
    rounds = [{"rows": [21, 22, 23, 24], "hands": hands,
               "draft": {"start": 1, "order": "round-robin", "picks": picks},
               "turns": [{"cards": [hands[0][t], hands[1][t]]} for t in range(10)]}]
    record = build_record("logic", 2, "normal", ["a", "b"], rounds, one_round=True)
    assert record["rounds"][0]["draft"]["picks"] == picks
    assert validate_record(json.loads(json.dumps(record))) == record


@pytest.fixture(scope="module")
def drafted() -> dict:
    return arena_records(Rules("logic", 2, one_round=True), "closest,closest",
                         "cheap,fewest", deals=1)[0]


def broken(record: dict, change) -> str:
    bad = copy.deepcopy(record)
    change(bad["rounds"][0])
    with pytest.raises(NimmtError) as e:
        validate_record(bad)
    message = str(e.value)
    assert "\n" not in message and message.startswith("game record: round 1")
    return message


def _swap_across_players(r):
    picks = r["draft"]["picks"]
    picks[0], picks[1] = picks[1], picks[0]  # picks 1 and 2 are the two players'


def test_a_wrong_draft_is_one_line(drafted):
    first = drafted["rounds"][0]["draft"]["picks"][0]
    assert "the draft's picks give player 1" in broken(drafted, _swap_across_players)

    def twice(r):
        r["draft"]["picks"][2] = r["draft"]["picks"][0]
    assert (f"draft pick 3: player 1 cannot pick {first}: player 1 picked it at pick 1"
            in broken(drafted, twice))

    def outside(r):
        r["draft"]["picks"][5] = 99
    assert "draft pick 6: player 2 cannot pick 99: the deck is 1..24" in broken(drafted,
                                                                                outside)
    assert "lists 19 picks" in broken(drafted, lambda r: r["draft"]["picks"].pop())
    assert "start must be a player 1..2" in broken(
        drafted, lambda r: r["draft"].update(start=3))
    assert "order must be round-robin or snake" in broken(
        drafted, lambda r: r["draft"].update(order="zigzag"))
    snake = broken(drafted, lambda r: r["draft"].update(order="snake"))
    assert "the draft's picks give player" in snake  # the same cards, another order

    def rows_reversed(r):
        r["rows"] = r["rows"][::-1]
    assert "(ascending)" in broken(drafted, rows_reversed)
    assert "draft must be a JSON object" in broken(drafted, lambda r: r.update(draft=[1]))


def test_a_draft_outside_the_logic_variant_is_refused(drafted):
    tactical = arena_records(Rules("tactical", 2, one_round=True), "closest,closest",
                             None, deals=1)[0]
    assert "draft" not in tactical["rounds"][0]
    tactical["rounds"][0]["draft"] = drafted["rounds"][0]["draft"]
    with pytest.raises(NimmtError, match="a draft belongs to the logic variant"):
        validate_record(tactical)
