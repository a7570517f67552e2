"""The logic variant's draft: draft positions, their analysis, draft bots and
whole logic rounds."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from nimmt.solver.base.errors import NimmtError, SearchInterrupted
from nimmt.solver.base.rules import Rules, card_cows
from nimmt.solver.kernels.engine import bot_card
from nimmt.solver.positions.draft import (
    DraftPosition,
    draft_problems,
    format_draft,
    hand_sizes_after,
    load_any,
    parse_draft,
    pick_order,
    picker,
    render_draft,
)
from nimmt.solver.positions.position import Position
from nimmt.solver.search.draftsearch import (
    analyse_draft,
    deal_draft,
    deal_logic_position,
    estimate_rounds,
    exact_applies,
    play_logic_games,
    play_logic_round,
)
from nimmt.solver.search.game import deal_position, simulate

from cli_checks import assert_ok, assert_one_line_error, invoke

# ---------------------------------------------------------------- the order

# Hand-written pick sequences (players numbered from 1), the first two turns of the draft.
ORDERS = [
    (2, 1, "round-robin", [1, 2, 1, 2]),
    (2, 2, "round-robin", [2, 1, 2, 1]),
    (3, 1, "round-robin", [1, 2, 3, 1, 2, 3]),
    (3, 2, "round-robin", [2, 3, 1, 2, 3, 1]),
    (4, 4, "round-robin", [4, 1, 2, 3, 4, 1, 2, 3]),
    (2, 1, "snake", [1, 2, 2, 1]),
    (3, 1, "snake", [1, 2, 3, 3, 2, 1]),
    (3, 3, "snake", [3, 1, 2, 2, 1, 3]),
    (4, 2, "snake", [2, 3, 4, 1, 1, 4, 3, 2]),
]


@pytest.mark.parametrize("players, start, order, expected", ORDERS)
def test_pick_order_against_hand_written_sequences(players, start, order, expected):
    got = [p + 1 for p in pick_order(players, start, order)]
    assert len(got) == 10 * players
    assert got[:len(expected)] == expected
    assert got == expected * (10 * players // len(expected))  # it repeats turn pair by pair
    assert all(got.count(p) == 10 for p in range(1, players + 1))
    for i, p in enumerate(got):
        assert picker(i, players, start, order) == p - 1


def test_hand_sizes_after_picks():
    assert hand_sizes_after(0, 3) == (0, 0, 0)
    assert hand_sizes_after(4, 3) == (2, 1, 1)
    assert hand_sizes_after(4, 3, start=3) == (1, 1, 2)
    assert hand_sizes_after(4, 3, order="snake") == (1, 1, 2)
    assert hand_sizes_after(5, 3, start=2, order="snake") == (2, 1, 2)  # 2,3,1,1,3
    assert hand_sizes_after(30, 3, start=2, order="snake") == (10, 10, 10)


def test_a_draft_position_knows_whose_picks_come():
    d = parse_draft("variant=logic players=3 phase=draft start=2 order=snake hand=1 p2=2 p3=3")
    assert d.picks_done == 3 and d.next_pickers[:6] == (0, 2, 1, 1, 2, 0)
    assert len(d.pool) == 31 and d.picks_until_own == 4
    assert d == DraftPosition.make(players=3, hands=[[1], [2], [3]], start=2, order="snake")


# ---------------------------------------------------------------- the notation

@pytest.mark.parametrize("text", [
    "variant=logic players=2 phase=draft",
    "variant=logic players=2 phase=draft hand=3,17 p2=6,12",
    "variant=logic players=3 phase=draft start=2 order=snake hand=1 p2=2 p3=3",
    "variant=logic players=2 phase=draft placement=professional start=2 p2=5 scores=3,12",
])
def test_format_parse_round_trip(text):
    d = parse_draft(text)
    assert format_draft(d) == text
    assert load_any(text) == d


def test_a_logic_position_without_rows_is_a_draft():
    d = load_any("variant=logic players=2 hand=3 p2=17")
    assert isinstance(d, DraftPosition) and format_draft(d).count("phase=draft") == 1
    assert isinstance(load_any("example-logic"), Position)
    assert isinstance(load_any("example-draft"), DraftPosition)


def test_draft_problems_lists_every_problem():
    assert draft_problems(players=2, hands=[[1], [2]]) == []
    found = draft_problems(players=2, hands=[[1, 99], [1]], scores=[-1, 0])
    assert len(found) == 3 and "outside" in found[0] and "twice" in found[1]


def test_json_file_draft_position(tmp_path):
    path = tmp_path / "draft.json"
    path.write_text(json.dumps({"variant": "logic", "players": 2, "phase": "draft",
                                "hand": [3, 17], "p2": [6, 12]}))
    assert load_any(str(path)) == parse_draft("variant=logic players=2 hand=3,17 p2=6,12")


MALFORMED = [
    # wrong hand sizes for the order
    ("variant=logic players=3 phase=draft hand=1,2 p2=3", "do not fit a round-robin draft"),
    ("variant=logic players=2 phase=draft hand=1,2,3 p2=4", "do not fit"),
    ("variant=logic players=3 phase=draft order=snake hand=1,2 p2=3 p3=4", "do not fit a snake"),
    ("variant=logic players=2 phase=draft hand=1", "player 2's pick"),
    ("variant=logic players=3 phase=draft start=2 p2=2", "player 3's pick"),
    ("variant=logic players=3 phase=draft start=2 hand=1 p2=2", "do not fit"),
    ("variant=logic players=2 phase=draft hand=1,2,3,4,5,6,7,8,9,10,11 p2=12",
     "more than 10 cards"),
    ("variant=logic players=2 phase=draft hand=1,2,3,4,5,6,7,8,9,10 "
     "p2=11,12,13,14,15,16,17,18,19,20", "the draft is over"),
    # cards twice, outside the deck
    ("variant=logic players=2 phase=draft hand=1,2 p2=2,3", "appears twice"),
    ("variant=logic players=2 phase=draft hand=1,1 p2=2,3", "appears twice"),
    ("variant=logic players=2 phase=draft hand=25 p2=3", "outside the logic deck"),
    # rows, gone, and other keys that have no place mid-draft
    ("variant=logic players=2 phase=draft rows=1/2/3/4 hand=5 p2=6", "rows given mid-draft"),
    ("variant=logic players=2 hand=5 p2=6 gone=7", "gone given mid-draft"),
    ("variant=logic players=2 phase=play hand=5 p2=6", "phase="),
    ("variant=tactical players=2 phase=draft hand=5 p2=6", "only the logic variant"),
    ("variant=logic players=2 phase=draft hand=5 p3=6", "p3 given but players=2"),
    ("variant=logic players=2 phase=draft start=3", "start=3 is not a player"),
    ("variant=logic players=2 phase=draft order=zigzag", "unknown order"),
    ("variant=logic players=2 phase=draft turn=1", "unknown key"),
    ("variant=logic players=11 phase=draft", "players=11"),
    ("variant=logic phase=draft hand=1", "missing players"),
    ("variant=logic players=2 phase=draft hand=1,x p2=2", "hand="),
]


@pytest.mark.parametrize("text, needle", MALFORMED)
def test_malformed_draft_positions_are_one_line_and_exit_2(runner, text, needle):
    with pytest.raises(NimmtError, match=needle.replace("(", r"\(")):
        load_any(text)
    for command in ("show", "analyse"):
        line = assert_one_line_error(invoke(runner, command, text))
        assert needle in line


def test_a_logic_position_missing_its_rows_is_told_so(runner):
    line = assert_one_line_error(invoke(runner, "analyse", "variant=logic players=2 hand=5,6 "
                                        "p2=7,8 gone=1,2"))
    assert "gone given mid-draft" in line and "read as a draft; give rows=" in line


@pytest.mark.parametrize("command", [("tree", "--format", "text"), ("solve-deal",)])
@pytest.mark.parametrize("argument", ["example-draft", "variant=logic players=2 phase=draft"])
def test_commands_of_the_round_refuse_a_draft_position(runner, command, argument):
    line = assert_one_line_error(invoke(runner, command[0], argument, *command[1:]))
    assert "this is a draft position" in line and "nimmt analyse" in line


def test_show_draws_the_pool_and_the_hands(runner):
    result = invoke(runner, "show", "example-draft")
    assert_ok(result)
    text = result.stdout
    assert "open pool: 10 cards" in text and "hand (you): 2 3 4 7 13 14 21" in text
    assert "next picks: you, p2" in text
    assert render_draft(load_any("example-draft")) == text.rstrip("\n")


# ---------------------------------------------------------------- whole rounds, deals

def replay(picks, players, order="round-robin"):
    """The picks of a whole draft replayed through draft positions, player 1's pick to
    player 1's next: the position after the draft."""
    state: DraftPosition | Position = DraftPosition.make(players=players, order=order)
    done = 0
    while isinstance(state, DraftPosition):
        step = 1 + state.picks_until_own
        state = state.after(picks[done:done + step])
        done += step
    assert done == len(picks)
    return state


@pytest.mark.parametrize("players, drafters, seed", [
    (2, "random", 1), (3, "cheap", 2), (4, "fewest,random,cheap,random", 3),
    (2, "evaluate,cheap", 4)])
def test_a_completed_draft_gives_exactly_the_bots_deal(players, drafters, seed):
    played = play_logic_round(Rules("logic", players), drafters, "closest", seed=seed)
    assert replay(played.picks, players) == played.position
    assert [p for p in played.pickers] == list(pick_order(players))
    assert sum(played.cows) >= 0 and len(played.plays) == 10


@pytest.mark.parametrize("players, bots", [(2, ["random"] * 2), (3, ["closest", "random",
                                                                     "dumper"])])
def test_the_engines_drafters_give_the_engines_deal(players, bots):
    rules = Rules("logic", players)
    for seed in range(3):
        assert play_logic_round(rules, None, bots, seed).position == \
            deal_position(rules, 10, seed, bots=bots)
    assert deal_logic_position(rules, 4, 7, drafters="random", bots="random") == \
        deal_position(rules, 4, 7)


def test_dealt_draft_positions_continue_into_the_deal():
    rules = Rules("logic", 3)
    full = play_logic_round(rules, "random", "closest", seed=5).position
    for picks in (0, 3, 12, 27):
        d = deal_draft(rules, picks, seed=5)
        assert d.picks_done == picks and d.start == 1
        for dealt, drafted in zip(full.hands, d.hands):
            assert set(drafted) <= set(dealt)
    d = deal_draft(rules, 4, seed=5)  # the seat to pick is numbered player 1
    assert d.start == 3 and tuple(map(len, d.hands)) == (1, 1, 2)
    snake = deal_draft(rules, 7, seed=5, order="snake")
    assert snake.order == "snake" and snake.picks_done == 7
    with pytest.raises(NimmtError, match="picks_done must be 0..29"):
        deal_draft(rules, 30)


def test_logic_games_with_the_engines_drafters_are_the_engines():
    rules = Rules("logic", 3)
    bots = ["closest", "random", "lowkeeper"]
    ours = simulate(rules, bots, 300, seed=4, drafters=["fewest", "random", "fewest"])
    theirs = simulate(rules, bots, 300, seed=4)
    assert [s.final_total for s in ours.seats] == [s.final_total for s in theirs.seats]
    assert ours.drafters == ("fewest", "random", "fewest") and theirs.drafters is None
    totals, rounds = play_logic_games(rules, "cheap", bots, 10, 20, seed=1)
    again, _ = play_logic_games(rules, "cheap", bots, 0, 30, seed=1)
    assert (totals == again[10:]).all() and (rounds >= 1).all()


# ---------------------------------------------------------------- exact against naive

def naive_round(position: Position, bots) -> tuple[int, ...]:
    """The round played turn by turn through Position.apply_turn and bot_card."""
    cows = [0] * position.players
    while position.cards_left:
        cards = [bot_card(b, h, position.rows, position.professional,
                          players=position.players, deck_size=position.deck_size)
                 for b, h in zip(bots, position.hands)]
        position, outcome = position.apply_turn(cards)
        cows = [a + b for a, b in zip(cows, outcome.cows)]
    return tuple(cows)


def naive_value(draft: DraftPosition, picks, drafters, bots) -> np.ndarray:
    """Expected cows per player after ``picks`` (player 1's first): every sequence of the
    remaining picks, weighted as the drafters draw them (random: uniform; cheap: uniform
    among the fewest cows; optimal: the picker's best, ties to the lowest card)."""
    state = draft
    pickers = draft.next_pickers
    held = {c for h in draft.hands for c in h} | set(picks)
    if len(picks) == len(pickers):
        after = draft.after(list(picks))
        assert isinstance(after, Position)
        return np.array(naive_round(after, bots), float)
    pool = [c for c in state.pool if c not in held]
    who = pickers[len(picks)]
    kind = drafters[who]
    if kind == "cheap":
        least = min(map(card_cows, pool))
        pool = [c for c in pool if card_cows(c) == least]
    values = [naive_value(draft, picks + (c,), drafters, bots) for c in pool]
    if kind == "optimal":
        return min(values, key=lambda v: v[who])
    return sum(values) / len(values)


TINY = [
    # 2 players, the last 2 picks (pool of 6)
    "variant=logic players=2 phase=draft hand=1,3,5,7,9,11,13,15,17 p2=2,4,6,8,10,12,14,16,18",
    # 3 players, the last 3 picks (pool of 7)
    "variant=logic players=3 phase=draft hand=1,4,7,10,13,16,19,22,25 "
    "p2=2,5,8,11,14,17,20,23,26 p3=3,6,9,12,15,18,21,24,27",
    # 2 players, the last 4 picks, snake order
    "variant=logic players=2 phase=draft order=snake hand=2,3,6,7,10,11,14,15 "
    "p2=1,4,5,8,9,12,13,16",
]


# The naive enumeration of the snake draft takes 2-3 s for each pair of drafters: the
# default run takes it with the cheap drafters and with random and optimal ones together
# (the others on the smaller drafts); `pytest -m slow` with each pair.
ENUMERATED = [pytest.param(text, drafters, bots, id=f"{drafters}-{bots}-{name}",
                           marks=[pytest.mark.slow] if name == "snake"
                           and drafters in ("random", "optimal") else [])
              for drafters, bots in [("random", "closest"), ("cheap", "dumper"),
                                     ("optimal", "closest"),
                                     ("random,optimal", "lowkeeper,closest")]
              for name, text in zip(("2p", "3p", "snake"), TINY)]


@pytest.mark.parametrize("text, drafters, bots", ENUMERATED)
def test_exact_enumeration_against_a_naive_one(text, drafters, bots):
    draft = parse_draft(text)
    n = draft.players
    names = (drafters.split(",") * n)[:n] if "," in drafters else [drafters] * n
    play = (bots.split(",") * n)[:n] if "," in bots else [bots] * n
    result = analyse_draft(draft, names, play, method="exact")
    assert result.method == "exact" and len(result.cards) == len(draft.pool)
    for c in result.cards:
        want = naive_value(draft, (c.card,), names, play)
        assert c.value == pytest.approx(want[0], abs=1e-9)
        assert c.others == pytest.approx((want.sum() - want[0]) / (n - 1), abs=1e-9)
    assert [c.value for c in result.cards] == sorted(c.value for c in result.cards)


@pytest.mark.parametrize("text", TINY)
@pytest.mark.parametrize("drafters", ["random", "cheap"])
def test_montecarlo_against_exact_enumeration(text, drafters):
    draft = parse_draft(text)
    exact = {c.card: c.value for c in analyse_draft(draft, drafters, "closest",
                                                     method="exact").cards}
    mc = analyse_draft(draft, drafters, "closest", method="montecarlo", samples=3000, seed=5)
    assert mc.method == "montecarlo" and mc.cards[0].samples == 3000
    for c in mc.cards:  # within 3.29 standard errors (99.9%; the 95% intervals' coverage
        # is measured over 200 seeds in test_montecarlo_intervals_are_calibrated)
        assert abs(c.value - exact[c.card]) <= 3.29 * c.stderr + 1e-9, (c, exact[c.card])
        if c.stderr == 0:  # every sample alike: the exact value itself
            assert c.value == pytest.approx(exact[c.card], abs=1e-9)


@pytest.mark.slow
def test_montecarlo_intervals_are_calibrated():
    """Over 200 seeds, the exact values fall outside the 95% intervals about 5% of the time
    and the errors in standard errors have mean 0 and spread 1."""
    draft = parse_draft(TINY[0])
    exact = {c.card: c.value for c in analyse_draft(draft, "cheap", "closest",
                                                     method="exact").cards}
    z = np.array([(c.value - exact[c.card]) / c.stderr for seed in range(200)
                  for c in analyse_draft(draft, "cheap", "closest", method="montecarlo",
                                         samples=3000, seed=seed).cards if c.stderr > 0])
    assert abs(z.mean()) < 0.1 and 0.9 < z.std() < 1.1
    assert 0.03 < (abs(z) > 1.96).mean() < 0.075


def test_montecarlo_is_reproducible_and_independent_of_workers_and_stops():
    draft = load_any("example-draft-start")
    one = analyse_draft(draft, samples=300, seed=3)
    assert one.method == "montecarlo" and "does not apply" in one.reason
    two = analyse_draft(draft, samples=300, seed=3, workers=2)
    assert one.cards == two.cards
    shorter = analyse_draft(draft, samples=128, seed=3)
    assert analyse_draft(draft, samples=300, seed=3, time_limit=1e-9).complete is False
    stopped = analyse_draft(draft, samples=10**6, seed=3, time_limit=1e-9)
    done = stopped.cards[0].samples
    again = analyse_draft(draft, samples=done, seed=3)
    assert stopped.cards == again.cards and shorter.cards != one.cards


def test_ctrl_c_stops_montecarlo_with_what_it_has():
    """Ctrl-C is raised on (a caller looping over analyses stops too), carrying the
    analysis of the samples taken."""
    draft = load_any("example-draft-start")
    calls = []

    def progress(n):
        calls.append(n)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(SearchInterrupted) as interrupt:
        analyse_draft(draft, samples=10**6, seed=3, progress=progress)
    stopped = interrupt.value.partial
    assert stopped.complete is False and stopped.cards[0].samples == sum(calls)
    assert stopped.to_json()["stopped"] == "interrupted"
    assert stopped.cards == analyse_draft(draft, samples=sum(calls), seed=3).cards
    enumerated = []
    analyse_draft(load_any("example-draft"), exact_progress=enumerated.append)
    assert enumerated == [1] * 10


def test_exact_applies_only_where_it_can():
    draft = load_any("example-draft")
    assert exact_applies(draft, ["cheap"] * 2, ["closest"] * 2) is None
    assert "not deterministic" in exact_applies(draft, ["cheap"] * 2, ["random"] * 2)
    assert "evaluate" in exact_applies(draft, ["evaluate"] * 2, ["closest"] * 2)
    start = load_any("example-draft-start")
    assert estimate_rounds(start, ["fewest"] * 2) == 24  # one sequence per card
    assert analyse_draft(start, "fewest", method="auto").method == "exact"
    with pytest.raises(NimmtError, match="over the budget"):
        analyse_draft(start, "cheap", method="exact")
    with pytest.raises(NimmtError, match="optimal drafter"):
        analyse_draft(start, "optimal")


# ---------------------------------------------------------------- the command line

def test_analyse_a_draft_table_json_markdown(runner):
    table = invoke(runner, "analyse", "example-draft")
    assert_ok(table)
    assert "method: exact" in table.stdout and "drafters: cheap (every seat)" in table.stdout
    assert "best: 24" in table.stdout
    result = invoke(runner, "analyse", "example-draft", "--method", "montecarlo", "--samples",
                    "500", "--seed", "2", "--format", "json", "--drafters", "cheap,random",
                    "--round", "closest")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert data["position"] == format_draft(load_any("example-draft"))
    assert data["drafters"] == ["cheap", "random"] and data["round"] == ["closest", "closest"]
    assert data["method"] == "montecarlo" and data["seed"] == 2 and data["samples"] == 500
    assert len(data["cards"]) == 10 and data["value"] == data["cards"][0]["value"]
    assert {"card", "value", "regret", "stderr", "ci95", "others_cows"} <= set(data["cards"][0])
    markdown = invoke(runner, "analyse", "example-draft", "--format", "markdown")
    assert_ok(markdown)
    assert "| card" in markdown.stdout


@pytest.mark.parametrize("args, needle", [
    (("example-draft", "--opponents", "worst"), "--opponents applies to positions after"),
    (("example-draft", "--drafters", "greedy"), "unknown drafters bot 'greedy'"),
    (("example-draft", "--round", "closest,closest,closest"), "--round names 3 bots"),
    (("example-draft-start", "--method", "exact"), "--max-nodes"),
    (("example", "--drafters", "cheap"), "--drafters and --round apply to draft positions"),
    (("example-draft", "--drafters", "optimal", "--round", "random"), "optimal drafter"),
])
def test_analyse_draft_refusals(runner, args, needle):
    assert needle in assert_one_line_error(invoke(runner, "analyse", *args))


def test_deal_a_draft_position(runner):
    result = invoke(runner, "deal", "--variant", "logic", "--players", "3", "--phase", "draft",
                    "--picks-done", "6", "--seed", "5")
    assert_ok(result)
    d = load_any(result.stdout.strip())
    assert isinstance(d, DraftPosition) and d.picks_done == 6
    assert d == deal_draft(Rules("logic", 3), 6, seed=5)
    for args, needle in [(("--variant", "tactical", "--phase", "draft"), "--variant logic"),
                         (("--variant", "logic", "--picks-done", "2"), "--phase draft"),
                         (("--variant", "logic", "--phase", "draft", "--picks-done", "20"),
                          "--picks-done must be 0..19")]:
        line = assert_one_line_error(invoke(runner, "deal", "--players", "2", *args))
        assert needle in line


def test_simulate_logic_with_drafters(runner):
    result = invoke(runner, "simulate", "--variant", "logic", "--players", "2", "--bots",
                    "closest", "--drafters", "cheap,random", "--games", "200", "--seed", "1",
                    "--format", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert data["drafters"] == ["cheap", "random"] and data["games"] == 200
    line = assert_one_line_error(invoke(runner, "simulate", "--players", "2", "--drafters",
                                        "cheap"))
    assert "--drafters applies to --variant logic" in line


def test_the_evaluate_drafter_beats_the_cheap_one():
    totals, _ = play_logic_games(Rules("logic", 2, one_round=True), ["evaluate", "cheap"],
                                 ["closest"] * 2, 0, 40, seed=2)
    assert totals[:, 0].mean() + 3 < totals[:, 1].mean()


def test_every_sequence_of_tiny_draft_is_counted():
    """estimate_rounds bounds what exact enumeration plays."""
    for text in TINY:
        draft = parse_draft(text)
        result = analyse_draft(draft, "random", "closest", method="exact")
        assert result.rounds <= estimate_rounds(draft, ["random"] * draft.players)
        k = len(draft.pool)
        assert estimate_rounds(draft, ["random"] * draft.players) <= \
            k * len(list(itertools.permutations(range(k - 1), draft.picks_left - 1)))
