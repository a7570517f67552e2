"""The logic draft in whole games between bots: `draft_round`, the arena's
and the Python game loop's drafted deals, `--drafters` on `arena` and `simulate`."""
from __future__ import annotations

import json

import pytest

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import Rules, card_cows
from nimmt.solver.players.arena import play_game, run_arena, simulate_bots
from nimmt.solver.players.bots import parse_bots
from nimmt.solver.players.seats import bot_seed, deal_cards
from nimmt.solver.search.draftsearch import draft_round

from cli_checks import assert_ok, assert_one_line_error, invoke

LOGIC_2P = Rules("logic", 2, one_round=True)
LOGIC_3P = Rules("logic", 3, one_round=True)


def fewest_draft(players: int, start: int) -> tuple[list[int], list[list[int]]]:
    """By hand: everyone takes the card with the fewest cows (ties: the lowest), round robin
    from ``start``; the 4 cards left start the rows."""
    pool = sorted(range(1, 10 * players + 5), key=lambda c: (card_cows(c), c))
    hands: list[list[int]] = [[] for _ in range(players)]
    for pick in range(10 * players):
        hands[(start + pick) % players].append(pool.pop(0))
    return sorted(pool), [sorted(h) for h in hands]


@pytest.mark.parametrize("players,start", [(2, 0), (2, 1), (3, 2), (4, 1)])
def test_a_fewest_draft_is_the_hand_computed_one(players, start):
    rules = Rules("logic", players)
    assert draft_round(rules, "fewest", start, seed=5) == fewest_draft(players, start)


@pytest.mark.parametrize("drafters", ["random", "cheap", "evaluate", ("fewest", "random", "cheap")])
def test_a_draft_deals_the_whole_deck_and_repeats_for_a_seed(drafters):
    rows, hands = draft_round(LOGIC_3P, drafters, 1, seed=9)
    assert len(rows) == 4 and [len(h) for h in hands] == [10, 10, 10]
    assert sorted(rows + [c for h in hands for c in h]) == list(range(1, 35))
    assert draft_round(LOGIC_3P, drafters, 1, seed=9) == (rows, hands)


def test_draft_round_refuses_what_it_cannot_do():
    with pytest.raises(NimmtError, match="optimal"):
        draft_round(LOGIC_2P, "optimal")
    with pytest.raises(NimmtError, match="logic"):
        draft_round(Rules("tactical", 2), "fewest")
    with pytest.raises(NimmtError, match="start"):
        draft_round(LOGIC_2P, "fewest", start=2)


def test_the_arena_drafts_round_r_from_seat_r_with_the_deals_seed():
    drafters = ["cheap", "random"]
    for round_index in range(3):
        assert deal_cards(LOGIC_2P, 7, 4, round_index, drafters) == draft_round(
            LOGIC_2P, drafters, round_index % 2, bot_seed(7, 4, round_index))


def test_each_bot_keeps_its_drafter_when_the_seats_rotate():
    """Two `closest` bots, one drafting by evaluation, one at random: whichever seat it
    holds, the evaluating drafter takes fewer cows (the draft decides these games)."""
    specs = parse_bots("closest,closest")
    for rotation, seat_of in enumerate([[0, 1], [1, 0]]):
        games = [play_game(LOGIC_2P, specs, 3, deal, rotation, seat_of, ("evaluate", "random"))
                 for deal in range(6)]
        evaluating = sum(g.totals[0] for g in games)
        drafting_at_random = sum(g.totals[1] for g in games)
        assert evaluating < drafting_at_random, (rotation, evaluating, drafting_at_random)


def test_a_drafted_arena_does_not_depend_on_workers():
    specs = parse_bots("closest,lowkeeper")

    def numbers(workers):
        result = run_arena(LOGIC_2P, specs, 4, seed=2, workers=workers,
                           drafters=["evaluate", "fewest"])
        data = result.to_json()
        del data["seconds"]
        for bot in data["bots"]:
            for key in ("mean_seconds", "median_seconds", "p95_seconds"):
                del bot[key]
        return data

    one = numbers(1)
    assert one["drafters"] == ("evaluate", "fewest")
    assert one == numbers(2)


def test_search_backed_bots_play_drafted_logic_games():
    result = simulate_bots(LOGIC_2P, parse_bots("expecti:nodes=20000,closest"), 2, seed=1,
                           drafters="cheap")
    assert result.games == 2 and result.drafters == ("cheap", "cheap")
    assert all(s.cows_per_round.mean >= 0 for s in result.seats)


def test_arena_drafters_on_the_command_line(runner):
    out = invoke(runner, "arena", "--variant", "logic", "--players", "2", "--bots",
                 "closest,random", "--drafters", "fewest,random", "--deals", "2", "--one-round",
                 "--seed", "1", "--format", "json")
    assert_ok(out)
    assert json.loads(out.output)["drafters"] == ["fewest", "random"]


@pytest.mark.parametrize("args,words", [
    (["--variant", "tactical", "--drafters", "fewest"], "--drafters apply to the logic"),
    (["--variant", "logic", "--drafters", "optimal"], "--drafters optimal only enumerates"),
    (["--variant", "logic", "--drafters", "bogus"], "unknown drafters bot 'bogus'"),
])
def test_bad_arena_drafters_give_one_line(runner, args, words):
    line = assert_one_line_error(invoke(runner, "arena", "--players", "2", "--bots",
                                        "closest,random", "--deals", "1", "--seed", "1", *args))
    assert words in line


def test_deal_drafts_for_search_backed_bots(runner):
    out = invoke(runner, "deal", "--variant", "logic", "--players", "2", "--cards-left", "9",
                 "--bots", "expecti:nodes=20000,closest", "--drafters", "fewest", "--seed", "2")
    assert_ok(out)
    rows, hands = draft_round(LOGIC_2P, "fewest", 0, bot_seed(2, 0, 0))
    dealt = set(rows) | {c for h in hands for c in h}
    assert dealt == set(range(1, 25))
    fields = dict(item.split("=") for item in out.output.split())
    first_hand = {int(c) for c in fields["hand"].split(",")}
    assert len(first_hand) == 9 and first_hand < set(hands[0])


# ---------------------------------------------------------------- analyse DRAFT --round BOTS

DRAFT_2P = ("variant=logic players=2 phase=draft hand=1,2,3,4,6,7,8,9,12 "
            "p2=13,14,16,17,18,19,21,23,24")


def test_a_round_played_by_the_game_loop_gives_the_kernels_values():
    """Deterministic drafters and round bots: every sample of the game-loop path is the one
    round the exact enumeration plays (the kernels), so the means are the exact values."""
    from nimmt.solver.players.arena import round_player
    from nimmt.solver.positions.draft import parse_draft
    from nimmt.solver.search.draftsearch import analyse_draft

    draft = parse_draft(DRAFT_2P)
    exact = analyse_draft(draft, drafters="fewest", round_bots="closest", method="exact")
    played = analyse_draft(draft, drafters="fewest", round_bots="closest", samples=2, seed=4,
                           play_round=round_player(LOGIC_2P, parse_bots("closest,closest")))
    assert played.method == "montecarlo" and "search-backed" in played.reason
    assert {c.card: c.value for c in played.cards} == {c.card: c.value for c in exact.cards}
    assert {c.card: c.others for c in played.cards} == {c.card: c.others for c in exact.cards}


def test_search_backed_round_bots_analyse_a_draft_reproducibly(runner):
    args = ["analyse", "example-draft", "--round", "expecti:nodes=20000,closest", "--samples",
            "2", "--seed", "3", "--format", "json"]
    first = invoke(runner, *args)
    assert_ok(first)
    data = json.loads(first.output)
    assert data["round"] == ["expecti:nodes=20000", "closest"] and data["method"] == "montecarlo"
    assert all(c["samples"] == 2 for c in data["cards"])
    assert json.loads(invoke(runner, *args).output)["cards"] == data["cards"]


def test_exact_refused_when_search_backed_bots_play_the_round(runner):
    line = assert_one_line_error(invoke(runner, "analyse", "example-draft", "--round", "expecti",
                                        "--method", "exact"))
    assert "--method exact does not apply" in line


def test_search_backed_round_bots_one_per_seat(runner):
    line = assert_one_line_error(invoke(runner, "analyse", "example-draft", "--round",
                                        "expecti,closest,random"))
    assert "--round names 3 bots for 2 players" in line
