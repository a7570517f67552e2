"""The policy interface: names, the rule-of-thumb bots through the
engine's kernels, and the search-backed bots against the analysis they stand for."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import ROW_COUNT, Rules
from nimmt.solver.kernels import engine, turns
from nimmt.solver.kernels.learned import FEATURE_NAMES, FEATURES
from nimmt.solver.players.bots import (
    BOT_NAMES,
    PARAMETERS,
    ExpectiBot,
    Moment,
    make_policy,
    moment_of,
    parse_bot,
    parse_bots,
    row_choices,
    split_bot_list,
)
from nimmt.solver.players.training import load_weights
from nimmt.solver.positions.owners import estimate_nodes
from nimmt.solver.positions.position import load_position
from nimmt.solver.search.analysis import analyse
from nimmt.solver.search.game import deal_position
from nimmt.solver.search.nash import solve_nash

import naive
from cli_checks import assert_ok, assert_one_line_error, invoke

# ---------------------------------------------------------------- names


def test_a_name_carries_parameters():
    spec = parse_bot("expecti:samples=500,time=0.2")
    assert spec.name == "expecti" and spec.params["samples"] == 500
    assert spec.params["time"] == 0.2 and spec.params["nodes"] == 200_000  # default kept
    assert str(spec) == "expecti:samples=500,time=0.2" and str(parse_bot("mcs")) == "mcs"
    assert spec.searches and not parse_bot("closest").searches


def test_a_presets_name_is_its_bot_with_the_presets_parameters():
    """``sharp`` is ``ismcts:playout=learned,temperature=0.1``: the same spec, so the same
    bot, named so in tables; ismcts's other parameters apply; the fixed ones are one clear
    error saying how to change them."""
    assert parse_bot("sharp") == parse_bot("ismcts:playout=learned,temperature=0.1")
    timed = parse_bot("sharp:time=0.25,iterations=1000000")
    assert timed == parse_bot("ismcts:time=0.25,iterations=1000000,playout=learned,"
                              "temperature=0.1")
    assert parse_bot(str(timed)) == timed and str(parse_bot("sharp")).startswith("ismcts:")
    assert "sharp" in BOT_NAMES and set(PARAMETERS["sharp"]) == (
        set(PARAMETERS["ismcts"]) - {"playout", "temperature"})
    for text in ("sharp:temperature=0.5", "sharp:playout=random"):
        with pytest.raises(NimmtError) as info:
            parse_bot(text)
        message = str(info.value)
        assert "sharp is ismcts:playout=learned,temperature=0.1" in message
        assert "write ismcts:" in message and "\n" not in message
    p = deal_position(Rules("standard", 4), 8, seed=3)
    assert (make_policy("sharp:iterations=300", seed=2).visits(p)
            == make_policy("ismcts:iterations=300,playout=learned,temperature=0.1",
                           seed=2).visits(p))


def test_a_bot_list_keeps_parameters_with_their_bot():
    assert split_bot_list("expecti:samples=500,time=0.2,mcs, closest") == [
        "expecti:samples=500,time=0.2", "mcs", "closest"]
    assert [s.name for s in parse_bots("closest", 3)] == ["closest"] * 3


@pytest.mark.parametrize("text, words", [
    ("foo", "unknown bot 'foo'; use one of random, closest"),
    ("expecti:sample=5",
     "has no parameter 'sample' (its parameters: nodes, samples, time, objective)"),
    ("closest:samples=5", "its parameters: none"),
    ("mcs:playouts=abc", "playouts='abc' is not a whole number"),
    ("mcs:playouts=0", "playouts must be 1..1e+09"),
    ("expecti:time=nan", "time must be"),
    ("expecti:samples", "give a value"),
    ("mcs:playouts=1_000", "not a whole number"),
])
def test_bad_names_and_parameters_are_one_clear_error(text, words):
    with pytest.raises(NimmtError) as info:
        parse_bot(text)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_bot_list_must_fit_the_seats():
    with pytest.raises(NimmtError, match="2 bots for 3 players"):
        parse_bots("closest,random", 3)


# ---------------------------------------------------------------- every bot

POSITIONS = ["example", "example-3p", "example-pro", "example-logic", "example-standard"]


@pytest.mark.parametrize("name", BOT_NAMES)
@pytest.mark.parametrize("position", POSITIONS)
def test_every_bot_plays_a_card_of_its_hand(name, position):
    p = load_position(position)
    budget = {"expecti": ":samples=20", "paranoid": ":samples=20", "nash": ":samples=20",
              "mcs": ":playouts=50", "ismcts": ":iterations=200"}.get(name, "")
    d = make_policy(name + budget, seed=3).choose(p)
    assert d.card in p.hand
    assert -1 <= d.take_row < ROW_COUNT and -1 <= d.tie_side <= 1


@pytest.mark.parametrize("name", ["closest", "lowkeeper", "dumper", "random"])
def test_rule_bots_are_the_engines_kernels(name):
    p = load_position("example-3p")
    bot = make_policy(name, seed=5)
    seed = make_policy(name, seed=5).next_seed()
    assert bot.choose(p).card == engine.bot_card(name, p.hand, p.rows, p.professional, seed,
                                                    players=p.players, deck_size=p.deck_size)


def test_a_low_card_decision_names_its_row():
    p = load_position("example-3p")  # 2 and 3 are below every row end
    d = make_policy("closest").choose(p)
    outcome = engine.resolve_turn(p.rows, [d.card])
    if turns.options_of(p.rows, d.card, False) == ROW_COUNT:
        assert d.take_row == outcome.steps[0].row_index
    d2 = make_policy("random").choose(p)
    assert d2.tie_side == -1


# ---------------------------------------------------------------- search-backed bots

def small_positions():
    found = []
    for players, k in ((2, 4), (2, 5), (3, 3)):
        for seed in range(3):
            p = deal_position(Rules("tactical", players), k, seed=seed)
            if estimate_nodes(p) <= 200_000:
                found.append(p)
    assert len(found) >= 6
    return found


@pytest.mark.parametrize("index", range(6))
def test_expecti_plays_analyses_best_card_where_it_is_exact(index):
    p = small_positions()[index]
    best = analyse(p, "random", method="exact").best.card
    assert make_policy("expecti", seed=1).choose(p).card == best


@pytest.mark.parametrize("index", range(6))
def test_paranoid_plays_the_worst_models_best_card_where_it_fits(index):
    p = small_positions()[index]
    best = analyse(p, "worst", method="exact").best.card
    assert make_policy("paranoid", seed=1).choose(p).card == best


def test_paranoid_is_expecti_before_it_fits():
    p = load_position("example-standard")
    a = make_policy("paranoid:samples=50", seed=2).choose(p).card
    b = make_policy("expecti:samples=50", seed=2).choose(p).card
    assert a == b


def test_nash_draws_from_the_equilibrium():
    p = deal_position(Rules("tactical", 2), 5, seed=4)
    r = solve_nash(p, workers=1)
    support = {c for c, f in zip(r.p1_cards, r.p1_frequency) if f > 1e-9}
    seen = {make_policy("nash", seed=s).choose(p).card for s in range(12)}
    assert seen <= support
    big = deal_position(Rules("tactical", 2), 9, seed=4)  # over k=7: expecti
    assert (make_policy("nash:samples=40", seed=1).choose(big).card
            == make_policy("expecti:samples=40", seed=1).choose(big).card)


def test_mcs_values_are_random_playouts():
    """With two cards left player 1's last card is forced, so flat Monte Carlo's values
    are the random model's expected cows."""
    for seed in range(3):
        p = deal_position(Rules("tactical", 3), 2, seed=seed)
        exact = {c.card: c.value for c in analyse(p, "random", method="exact").cards}
        bot = make_policy("mcs:playouts=20000", seed=1)
        values = bot.values(p)
        for card, value in exact.items():
            assert values[card] == pytest.approx(value, abs=0.15)


@pytest.mark.parametrize("name", ["mcs:playouts=200", "expecti:samples=30",
                                  "ismcts:iterations=300"])
def test_bots_are_deterministic_for_a_seed(name):
    p = load_position("example-standard")
    first = [make_policy(name, seed=9).choose(p).card for _ in range(2)]
    assert first[0] == first[1]


def low_card_moments():
    """Moments from dealt 2-player positions where player 1's card must take a row."""
    for seed in range(8):
        p = deal_position(Rules("tactical", 2), 3, seed=seed)
        for mine in p.hand:
            for theirs in p.hands[1]:
                first = mine < theirs
                rows = p.rows if first else engine.resolve_turn(p.rows, [theirs]).rows
                options = turns.option_choices(rows, mine, False)
                if len(options) > 1:
                    yield Moment(p, (mine, theirs), (-1, -1), (-1, -1), rows, options)


def test_expectis_row_choice_minimises_cows_now_plus_the_value_after():
    moments = list(low_card_moments())[:6]
    assert moments
    for moment in moments:
        bot = ExpectiBot(parse_bot("expecti"), seed=0)
        want = {}
        for o in range(len(moment.options)):
            after, cows = moment.after(o)
            later = analyse(after, "random", method="exact").best.value if after.cards_left \
                else 0.0
            want[o] = cows[0] + later
        best = min(want.values())
        assert want[bot.choose_option(moment)] == pytest.approx(best)
        assert make_policy("closest").choose_option(moment) == -1  # rule-following


def test_a_moment_plays_the_turn_with_the_choice():
    moment = next(low_card_moments())
    for o, (take, _) in enumerate(moment.options):
        after, cows = moment.after(o)
        assert moment.cards[0] in after.rows[take]


# ---------------------------------------------------------------- row choices (item 6)

def test_row_choices_value_every_row_and_agree_with_the_bots():
    p = load_position("example")
    choices = row_choices(p, [4, 13], "worst")
    assert [c.label for c in choices] == ["take row 4", "take row 1", "take row 3", "take row 2"]
    assert [c.value for c in choices] == [3.0, 5.0, 7.0, 8.0]
    assert [c.rule for c in choices] == [False, True, False, False]  # the rule costs 2 more
    for c in choices:
        assert c.value == pytest.approx(c.cows_now + c.later)
    moment = moment_of(p, [4, 13])
    assert moment.options[make_policy("paranoid").choose_option(moment)] == (3, -1)
    best_random = row_choices(p, [4, 13], "random")[0]
    assert moment.options[make_policy("expecti").choose_option(moment)] == (
        best_random.take_row, best_random.tie_side)
    nash = row_choices(p, [4, 13], "nash")
    assert moment.options[make_policy("nash").choose_option(moment)] == (nash[0].take_row, -1)


def test_a_card_with_one_place_has_no_row_choice():
    with pytest.raises(NimmtError, match="no row to choose"):
        row_choices(load_position("example"), [14, 13])
    with pytest.raises(NimmtError, match="one card per player"):
        row_choices(load_position("example"), [4])
    with pytest.raises(NimmtError, match="cannot play 5"):
        row_choices(load_position("example"), [4, 5])


def test_analyse_turn_on_the_command_line(runner):
    from cli_checks import assert_ok, assert_one_line_error, invoke

    result = invoke(runner, "analyse", "example", "--turn", "4,13", "--opponents", "worst")
    assert_ok(result)
    assert "take row 1 (rule-following)" in result.stdout
    assert "best: take row 4 (guaranteed cows 3.000)" in result.stdout
    data = json.loads(invoke(runner, "analyse", "example", "--turn", "4,13", "--format",
                             "json").stdout)
    assert data["turn"] == [4, 13] and data["choices"][0]["regret"] == 0.0
    for bad in ("4,x", "14,13", "4", "4,5"):
        line = assert_one_line_error(invoke(runner, "analyse", "example", "--turn", bad))
        assert "--turn" in line or "cannot play" in line or "one card per player" in line


def test_ismcts_counts_its_iterations_at_the_root():
    p = load_position("example-3p")
    bot = make_policy("ismcts:iterations=500", seed=1)
    visits = bot.visits(p)
    assert set(visits) == set(p.hand) and sum(visits.values()) == 500
    best = max(visits, key=lambda c: (visits[c], -c))
    assert make_policy("ismcts:iterations=500", seed=1).choose(p).card == best



# ---------------------------------------------------------------- the learned policy

def test_the_learned_bot_plays_the_policys_greedy_card():
    """``learned`` from its seat's view: the greedy card of the pure-Python policy
    (tests/naive.py) on the rows and the hand, at every player count and deck."""
    weights = load_weights()
    for variant, players, k, seed in [("tactical", 2, 9, 1), ("standard", 4, 10, 2),
                                      ("standard", 10, 6, 3), ("tactical", 5, 4, 4)]:
        position = deal_position(Rules(variant, players), k, seed=seed)
        rows = [list(r) for r in position.rows]
        want = naive.learned_card(weights, list(position.hand), rows, players,
                                  position.deck_size, False)
        assert make_policy("learned").choose(position).card == want


def test_the_sampled_learned_bot_is_reproducible_and_varies():
    varied = 0
    for deal in range(10):
        position = deal_position(Rules("standard", 4), 10, seed=deal)
        cards = [make_policy("learned:play=sampled", seed=s).choose(position).card
                 for s in range(30)]
        again = [make_policy("learned:play=sampled", seed=s).choose(position).card
                 for s in range(30)]
        assert cards == again
        varied += len(set(cards)) > 1
    assert varied >= 1  # a confident policy, but not a deterministic one
    assert parse_bot("learned").searches  # the Python game loop plays it, not the engine
    assert str(parse_bot("learned:play=greedy")) == "learned"


def test_an_arena_with_the_learned_bot_and_learned_playouts(runner):
    result = invoke(runner, "arena", "-n", "3", "--bots",
                 "learned,mcs:playouts=20,playout=learned,ismcts:iterations=30,playout=learned",
                 "--deals", "1", "--one-round", "--seed", "1", "--format", "json")
    assert_ok(result)
    names = {b["bot"] for b in json.loads(result.output)["bots"]}
    assert names == {"learned", "mcs:playouts=20,playout=learned",
                     "ismcts:iterations=30,playout=learned"}
    result = invoke(runner, "arena", "-n", "2", "--bots", "sharp:iterations=30,closest",
                    "--deals", "1", "--one-round", "--seed", "1", "--format", "json")
    assert_ok(result)
    assert {b["bot"] for b in json.loads(result.output)["bots"]} == {
        "ismcts:iterations=30,playout=learned,temperature=0.1", "closest"}


def network_file(tmp_path, units: int = 4, seed: int = 1) -> str:
    """A weights file of a small network (random weights, ``card_score``'s layout)."""
    rng = np.random.default_rng(seed)
    weights = rng.normal(0, 2, FEATURES + units * (FEATURES + 2))
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"features": list(FEATURE_NAMES), "hidden_units": units,
                                "weights": weights.tolist()}))
    return str(path)


def test_a_weights_file_plays_the_learned_bot_and_the_playouts(tmp_path):
    """``weights=FILE``: the learned bot plays the reference's greedy card of that
    network; mcs's playouts and beliefs take it too (its values change)."""
    path = network_file(tmp_path)
    weights = load_weights(path)
    for variant, players, k, seed in [("tactical", 3, 9, 1), ("standard", 4, 10, 2)]:
        position = deal_position(Rules(variant, players), k, seed=seed)
        rows = [list(r) for r in position.rows]
        want = naive.learned_card(list(weights), list(position.hand), rows, players,
                                  position.deck_size, False)
        assert make_policy(f"learned:weights={path}").choose(position).card == want
    position = deal_position(Rules("standard", 4), 8, seed=3)
    shipped = make_policy("mcs:playouts=50,playout=learned", seed=2).values(position)
    net = make_policy(f"mcs:playouts=50,playout=learned,weights={path}", seed=2)
    assert net.values(position) != shipped
    assert str(parse_bot(f"learned:weights={path}")) == f"learned:weights={path}"


def test_a_bad_weights_parameter_is_one_clear_error(tmp_path, runner):
    missing = tmp_path / "none.json"
    with pytest.raises(NimmtError, match="none.json"):
        parse_bot(f"learned:weights={missing}")
    with pytest.raises(NimmtError, match="weights= applies with playout=learned or "
                                         "belief=learned only"):
        parse_bot(f"mcs:weights={network_file(tmp_path)}")
    line = assert_one_line_error(invoke(runner, "arena", "-n", "2", "--bots",
                                        f"learned:weights={missing},careful", "--deals", "1"))
    assert "none.json" in line
