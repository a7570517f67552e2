"""The analysis contract (DESIGN.md section 3), held against a brute force.

The brute force (``naive.card_values``) is written from RULES.md and DESIGN.md only, on
``solver.base.reference`` (it uses nothing from nimmt.solver.search.exact, solver.kernels.engine or
solver.search.montecarlo; those are imported only for the Monte Carlo and budget tests).
It is a plain recursion over the rest of the round:

* at a turn boundary player 1 picks the card that minimises its cows;
* for a card of player 1, every opponent action is enumerated: one card from each
  known hand and every set of h cards from the pool (h = hidden players; only the
  set matters for player 1's cows, and by symmetry every set is equally likely);
  model ``random`` averages over them, model ``worst`` takes the maximum;
* inside a turn the cards are placed lowest first; an owner with several options
  chooses when its card is placed, having seen every revealed card: player 1
  minimises, the ``worst`` adversary maximises, a ``random`` opponent follows
  ``reference.rule_following``.
"""
from __future__ import annotations

import math
import random

import pytest

from nimmt.cli import cli_message  # the budget messages as the command line prints them
from nimmt.solver.base.errors import BudgetExceeded  # for the budget tests, not the brute force
from nimmt.solver.base.rules import NimmtError, Rules
from nimmt.solver.positions.owners import estimate_nodes
from nimmt.solver.positions.position import EXAMPLES, Position, format_position, parse_position
from nimmt.solver.search import analysis, montecarlo
from nimmt.solver.search.analysis import analyse
from nimmt.solver.search.game import deal_position

from naive import card_values as brute_force

P1, OPPONENT = "p1", "opponent"
TOL = 1e-9


# ---------------------------------------------------------------- the brute force
# naive.card_values, imported as brute_force


def test_brute_force_on_hand_solved_positions():
    """The brute force itself, on positions worked out by hand (tactical, 2 players;
    row 1 = 5,6,7,8,9 holds 2+1+1+1+1 = 6 cows, row 2 = 12 holds 1, 15,16: 3, 20: 3)."""
    rows = [[5, 6, 7, 8, 9], [12], [15, 16], [20]]
    # 1 and 2 are both low; 1 goes first: player 1 takes its cheapest row (12: 1 cow)
    # and 2 then follows 1. One cow in either model.
    p = Position.make(players=2, rows=rows, hand=[1], others={2: [2]},
                      gone=[3, 4, 10, 11, 13, 14, 17, 18, 19, 21, 22, 23, 24])
    assert brute_force(p, "random") == {1: 1}
    assert brute_force(p, "worst") == {1: 1}
    # Player 2's 2 goes first and is low. Random: rule-following takes 12 (1 cow), then
    # 10 is the sixth card of row 1: 6 cows. Worst: taking row 1 would let 10 follow 2
    # for free, so the adversary takes any other row: 6 cows.
    p = Position.make(players=2, rows=rows, hand=[10], others={2: [2]},
                      gone=[1, 3, 4, 11, 13, 14, 17, 18, 19, 21, 22, 23, 24])
    assert brute_force(p, "random") == {10: 6}
    assert brute_force(p, "worst") == {10: 6}
    # Two hidden hands of one card (3 players): the pool 5, 21 is the set played. 5 is
    # low, 21 follows 20, 25 follows 21: 0 cows whatever row 5 takes.
    p = Position.make(players=3, rows=[[10], [20], [30], [33]], hand=[25],
                      gone=[c for c in range(1, 35) if c not in (10, 20, 30, 33, 25, 5, 21)])
    assert p.pool == (5, 21)
    assert brute_force(p, "random") == {25: 0}
    assert brute_force(p, "worst") == {25: 0}


def test_brute_force_expectation_over_a_hidden_hand():
    """Standard, 2 players, 1 card left, the opponent's card hidden among 81 unseen cards.

    Player 1's 45 is lower than every row (last cards 50, 60, 70, 80). If the opponent's
    card x is below 45, x is placed first, takes a row (rule-following: a 3-cow row) and
    45 then follows x for free; if x is above 45, player 1 takes its cheapest row: 3 cows.
    Unseen cards above 45: 46..104 (59) minus the 8 on the table = 51, of 81 (104 less the
    8 on the rows, the hand, and the 14 taken: 4 + 2 x 9 cards have been played)."""
    p = Position.make(variant="standard", players=2, rows=[[46, 47, 48, 49, 50], [60], [70], [80]],
                      hand=[45], gone=range(1, 15))
    assert len(p.pool) == 81 and p.hidden_players == (1,)
    assert brute_force(p, "random")[45] == pytest.approx(3 * 51 / 81, abs=1e-12)
    assert brute_force(p, "worst")[45] == 3
    assert exact_values(p, "random")[45] == pytest.approx(3 * 51 / 81, abs=TOL)
    assert exact_values(p, "worst")[45] == pytest.approx(3, abs=TOL)


# ---------------------------------------------------------------- positions

def dealt(variant, players, placement, cards_left, seed):
    return deal_position(Rules(variant, players, placement), cards_left, seed)


def standard_known(players, cards_left, placement, seed):
    """A standard-deck position with every hand given (the pool does not matter)."""
    rng = random.Random(seed)
    limit = players * (10 - cards_left) + 4  # cards on the table: rows and gone
    while True:
        lengths = [rng.randint(1, 5) for _ in range(4)]
        if sum(lengths) <= limit:
            break
    cards = rng.sample(range(1, 105), sum(lengths) + players * cards_left)
    rows, at = [], 0
    for n in lengths:
        rows.append(sorted(cards[at:at + n]))
        at += n
    hands = [sorted(cards[at + i * cards_left: at + (i + 1) * cards_left]) for i in range(players)]
    # every card played is on a row or taken: the rest of them are gone
    gone = rng.sample([c for c in range(1, 105) if c not in cards], limit - sum(lengths))
    return Position.make(variant="standard", players=players, placement=placement, rows=rows,
                         hand=hands[0], others={i + 1: hands[i] for i in range(1, players)},
                         gone=gone)


def tactical_rest(players, rows, hand, others=None, pool=(), placement="normal",
                  variant="tactical"):
    """A tactical/logic position: every card not listed (nor in ``pool``) is gone."""
    listed = {c for r in rows for c in r} | set(hand) | set(pool)
    for h in (others or {}).values():
        listed |= set(h)
    gone = [c for c in range(1, 10 * players + 5) if c not in listed]
    return Position.make(variant=variant, players=players, placement=placement, rows=rows,
                         hand=hand, others=others, gone=gone)


# Hand-crafted: low cards (takes), sixth cards, professional ties, hidden hands.
CRAFTED = {
    # player 1 and player 2 both hold low cards and cards that would be a sixth card
    "low-and-sixth-2p": lambda: tactical_rest(
        2, [[5, 6, 7, 8, 9], [12], [15, 16], [20]], [1, 10, 21], {2: [2, 11, 22]}),
    # professional ties for player 1 (6: 4|8, 11: 9|13) and a left-end sixth card (19)
    "pro-ties-2p": lambda: tactical_rest(
        2, [[3, 4], [8, 9], [13, 15], [20, 21, 22, 23, 24]], [6, 11, 19], {2: [1, 12, 17]},
        placement="professional"),
    # two hidden opponents with low cards in the pool, a full row
    "hidden-low-3p": lambda: tactical_rest(
        3, [[10, 11, 12, 13, 14], [20], [25, 26], [30]], [1, 15, 27], pool=[2, 3, 16, 21, 31, 34]),
    # professional, three hidden hands: ties between a sixth card and a place (12: 9|15)
    "hidden-pro-ties-4p": lambda: tactical_rest(
        4, [[5, 6, 7, 8, 9], [15, 17], [30], [40, 41]], [12, 35], pool=[1, 2, 13, 22, 38, 44],
        placement="professional"),
    # professional: every row spans the cards in play, so no end is legal: takes
    "pro-takes-logic-3p": lambda: tactical_rest(
        3, [[1, 30], [2, 31], [3, 32], [4, 33]], [10, 34], {2: [5, 20], 3: [15, 25]},
        placement="professional", variant="logic"),
    # logic: every hand known, several low cards in one turn
    "logic-lows-3p": lambda: tactical_rest(
        3, [[10, 12], [16, 17, 18, 19, 21], [25], [30]], [2, 22, 31],
        {2: [1, 20, 26], 3: [3, 23, 34]}, variant="logic"),
    # standard, professional: a tie around 55 (7 cows) and big rows
    "standard-pro-55": lambda: Position.make(
        variant="standard", players=2, placement="professional",
        rows=[[50, 53], [57, 58], [60, 66, 70, 77, 88], [99]], hand=[1, 55, 89],
        others={2: [54, 56, 100]}, gone=range(2, 10)),
    # standard, 5 players, all known: four low cards in one turn
    "standard-5p-lows": lambda: Position.make(
        variant="standard", players=5, rows=[[10, 20, 30, 40, 50], [60], [70], [80]],
        hand=[5, 51], others={2: [3, 62], 3: [2, 71], 4: [1, 81], 5: [4, 52]},
        gone=[*range(11, 20), *range(21, 25), *range(82, 105)]),
}

DEALT = [  # (variant, players, placement, cards_left, seed)
    ("tactical", 2, "normal", 1, 3),
    ("tactical", 2, "normal", 2, 4),
    ("tactical", 2, "normal", 3, 5),
    ("tactical", 2, "normal", 4, 6),
    ("tactical", 2, "professional", 2, 7),
    ("tactical", 2, "professional", 3, 8),
    ("tactical", 2, "professional", 4, 9),
    ("tactical", 3, "normal", 2, 10),
    ("tactical", 3, "normal", 3, 11),
    ("tactical", 3, "professional", 2, 12),
    ("tactical", 3, "professional", 3, 13),
    ("tactical", 4, "normal", 2, 14),
    ("tactical", 4, "professional", 2, 15),
    ("tactical", 5, "normal", 1, 17),
    ("tactical", 5, "normal", 2, 18),
    ("tactical", 5, "professional", 2, 19),
    ("logic", 2, "normal", 4, 20),
    ("logic", 3, "normal", 3, 21),
    ("logic", 3, "professional", 3, 22),
    ("logic", 4, "normal", 2, 23),
    ("logic", 4, "professional", 3, 24),
    ("logic", 5, "normal", 2, 25),
    ("logic", 5, "professional", 2, 26),
    ("standard", 2, "normal", 1, 27),
    ("standard", 2, "normal", 2, 28),
    ("standard", 2, "professional", 2, 29),
    ("standard", 3, "normal", 1, 30),
    ("standard", 3, "professional", 1, 31),
]
STANDARD_KNOWN = [  # (players, cards_left, placement, seed)
    (2, 3, "normal", 1),
    (2, 4, "professional", 2),
    (3, 2, "normal", 3),
    (4, 2, "professional", 4),
    (5, 1, "normal", 5),
]

CASES = {f"crafted-{name}": make for name, make in CRAFTED.items()}
CASES.update({f"{v}-{n}p-{pl}-k{k}-s{s}": (lambda a=(v, n, pl, k, s): dealt(*a))
              for v, n, pl, k, s in DEALT})
CASES.update({f"standard-known-{n}p-{pl}-k{k}-s{s}":
              (lambda a=(n, k, pl, s): standard_known(*a)) for n, k, pl, s in STANDARD_KNOWN})


def test_cases_cover_the_ground():
    positions = [make() for make in CASES.values()]
    assert len(positions) >= 30
    assert {p.variant for p in positions} == {"standard", "tactical", "logic"}
    assert {p.players for p in positions} == {2, 3, 4, 5}
    assert {p.placement for p in positions} == {"normal", "professional"}
    assert {p.cards_left for p in positions} >= {1, 2, 3, 4}
    assert any(p.hidden_players for p in positions if p.variant == "tactical")
    assert any(p.hidden_players for p in positions if p.variant == "standard")


# ---------------------------------------------------------------- exact == brute force

def exact_values(position, model):
    result = analyse(position, opponents=model, method="exact")
    assert result.method == "exact" and result.opponents == model
    assert sorted(c.card for c in result.cards) == sorted(position.hand)
    return {c.card: c.value for c in result.cards}


# The brute force of these takes 1-4 s each (the others well under 1 s): their variant,
# players and placement are in the default run by other cases; `pytest -m slow` runs them.
SLOW_BRUTE = {("standard-2p-normal-k2-s28", "random"), ("standard-2p-normal-k2-s28", "worst"),
              ("tactical-3p-normal-k3-s11", "worst")}


@pytest.mark.parametrize("name,model", [
    pytest.param(name, model, id=f"{name}-{model}",
                 marks=[pytest.mark.slow] if (name, model) in SLOW_BRUTE else [])
    for name in CASES for model in ("random", "worst")])
def test_exact_matches_brute_force(name, model):
    position = CASES[name]()
    expected = brute_force(position, model)
    got = exact_values(position, model)
    for card in position.hand:
        assert got[card] == pytest.approx(expected[card], abs=TOL, rel=0), \
            (format_position(position), model, card, got, expected)


# the crafted positions do meet the situations they were made for
CRAFTED_EVENTS = {
    "low-and-sixth-2p": {("take", P1), ("take", OPPONENT), ("sixth", P1), ("sixth", OPPONENT)},
    "pro-ties-2p": {("tie", P1), ("sixth", P1)},
    "hidden-low-3p": {("take", P1), ("take", OPPONENT), ("sixth", P1)},
    "hidden-pro-ties-4p": {("tie", P1), ("sixth", P1), ("sixth", OPPONENT)},
    "pro-takes-logic-3p": {("take", P1), ("take", OPPONENT)},
    "logic-lows-3p": {("take", P1), ("take", OPPONENT)},
    "standard-pro-55": {("tie", P1), ("tie", OPPONENT), ("sixth", P1)},
    "standard-5p-lows": {("take", P1), ("take", OPPONENT)},
}


@pytest.mark.parametrize("name", list(CRAFTED_EVENTS))
def test_crafted_positions_meet_their_situations(name):
    events: set = set()
    brute_force(CRAFTED[name](), "worst", events)
    assert CRAFTED_EVENTS[name] <= events, events


@pytest.mark.slow
def test_dealt_positions_meet_every_situation():
    """Across the dealt positions: takes, ties and sixth cards for both sides. A check of
    the fixed cases above (the brute force of every one of them), not of the solver: run
    with `pytest -m slow`."""
    events: set = set()
    for v, n, pl, k, s in DEALT:
        brute_force(dealt(v, n, pl, k, s), "random", events)
    for situation in ("take", "tie", "sixth"):
        for who in (P1, OPPONENT):
            assert (situation, who) in events, (situation, who, events)


def test_exact_solver_on_the_docstring_position():
    p = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
                       "gone=1,2,4,5,6,8,9,10,11")
    for model in ("random", "worst"):
        assert exact_values(p, model) == pytest.approx(brute_force(p, model), abs=TOL)


# ---------------------------------------------------------------- Monte Carlo vs exact

MC_CASES = [  # (variant, players, placement, cards_left, seed)
    ("tactical", 2, "normal", 5, 40),
    ("tactical", 2, "professional", 4, 41),
    ("tactical", 3, "normal", 4, 42),
    ("tactical", 3, "professional", 3, 43),
    ("tactical", 4, "normal", 3, 44),
    ("tactical", 5, "professional", 2, 45),
    ("logic", 3, "normal", 4, 46),
    ("logic", 4, "professional", 3, 47),
    ("logic", 2, "professional", 5, 48),
    ("standard", 2, "normal", 2, 49),
    ("standard", 3, "professional", 1, 50),
    ("tactical", 3, "normal", 2, 51),
]
MC_SAMPLES = 400


@pytest.mark.parametrize("variant,players,placement,cards_left,seed", MC_CASES)
def test_montecarlo_interval_holds_the_exact_value(variant, players, placement, cards_left, seed):
    """With exact continuation from player 1's second card on, a sample's value has the
    exact random value as its expectation; the 99% interval holds it."""
    position = dealt(variant, players, placement, cards_left, seed)
    exact = exact_values(position, "random")
    mc = montecarlo.run_montecarlo(position, samples=MC_SAMPLES, seed=seed,
                                   exact_depth=cards_left - 1)
    assert mc.complete and mc.exact_depth == cards_left - 1
    assert [c.card for c in mc.cards] == list(position.hand)
    for c in mc.cards:
        assert c.samples == MC_SAMPLES
        low, high = c.interval(montecarlo.Z99)
        assert low - TOL <= exact[c.card] <= high + TOL, \
            (format_position(position), c.card, exact[c.card], c.value, c.stderr)


def test_montecarlo_cases_have_spread():
    """The MC comparison is not vacuous: most cards have a non-zero standard error."""
    spread = total = 0
    for variant, players, placement, cards_left, seed in MC_CASES[:6]:
        position = dealt(variant, players, placement, cards_left, seed)
        mc = montecarlo.run_montecarlo(position, samples=64, seed=seed,
                                       exact_depth=cards_left - 1)
        total += len(mc.cards)
        spread += sum(c.stderr > 0 for c in mc.cards)
    assert spread >= total // 2


# ---------------------------------------------------------------- worst >= random

@pytest.mark.parametrize("seed", range(12))
def test_guaranteed_cows_at_least_expected_cows(seed):
    rng = random.Random(seed)
    variant = rng.choice(["tactical", "logic", "standard"])
    players = rng.randint(2, 5) if variant != "standard" else rng.randint(2, 3)
    cards_left = rng.randint(1, 3 if variant != "standard" else 1 + (players == 2))
    placement = rng.choice(["normal", "professional"])
    position = dealt(variant, players, placement, cards_left, 100 + seed)
    worst = exact_values(position, "worst")
    rand = exact_values(position, "random")
    for card in position.hand:
        assert worst[card] >= rand[card] - TOL, (format_position(position), card)
    # and the best guaranteed value is at least the best expected value
    assert min(worst.values()) >= min(rand.values()) - TOL


# ---------------------------------------------------------------- budgets

def example(name):
    return parse_position(EXAMPLES[name])


def test_exact_over_budget_refuses_with_estimate_and_fix():
    position = example("example-standard")
    estimate = estimate_nodes(position)
    with pytest.raises(BudgetExceeded) as info:
        analyse(position, method="exact", max_nodes=1000)
    assert isinstance(info.value, NimmtError)
    message = str(info.value)
    assert f"{estimate:,}" in message or f"{estimate:.1e}" in message
    assert "max_nodes" in message and "montecarlo" in message  # Python: the parameters
    assert "--max-nodes" in cli_message(info.value)  # the CLI: the flags
    assert "\n" not in message


def test_worst_over_budget_refuses():
    with pytest.raises(BudgetExceeded) as info:
        analyse(example("example-standard"), opponents="worst", method="exact")
    assert "max_nodes" in str(info.value)
    assert "--max-nodes" in cli_message(info.value)
    # auto falls back (tests/search/test_budgets.py), saying why
    fell = analyse(example("example-standard"), opponents="worst", samples=20, seed=1)
    assert fell.opponents == "random" and fell.extra["fallback_from"] == "worst"


def test_auto_with_the_estimate_in_budget_gives_a_result():
    """DESIGN.md: auto is exact when its estimated cost fits the budget. Here it fits, although
    the search needs about 2.2 times the estimate (the search may overrun the budget 4x)."""
    position = dealt("logic", 4, "normal", 4, 3)
    estimate = estimate_nodes(position)
    result = analyse(position, opponents="worst", method="auto", max_nodes=estimate)
    assert result.method == "exact" and len(result.cards) == 4


def test_montecarlo_refuses_worst():
    with pytest.raises(NimmtError, match="random"):
        analyse(example("example"), opponents="worst", method="montecarlo")


def test_auto_picks_montecarlo_when_over_budget_and_exact_when_within():
    small = analyse(example("example"), method="auto")
    assert small.method == "exact" and "auto" in small.reason
    big = analyse(example("example-standard"), method="auto", samples=16, seed=3)
    assert big.method == "montecarlo" and "auto" in big.reason
    assert big.later_play


@pytest.mark.parametrize("kwargs", [
    {"opponents": "best"}, {"method": "fast"}, {"max_nodes": 0},
])
def test_bad_arguments(kwargs):
    with pytest.raises(NimmtError):
        analyse(example("example"), **kwargs)


def test_montecarlo_samples_at_least_two():
    with pytest.raises(NimmtError):
        analyse(example("example"), method="montecarlo", samples=1)


def test_time_limit_stops_montecarlo():
    position = example("example-standard")
    result = analyse(position, method="montecarlo", samples=10**6, seed=5, time_limit=0.05)
    assert result.method == "montecarlo"
    assert result.complete is False and result.extra["stopped"] == "time limit"
    assert sorted(c.card for c in result.cards) == sorted(position.hand)
    counts = {c.samples for c in result.cards}
    assert len(counts) == 1  # every card the same number of samples
    n = counts.pop()
    assert 2 <= n < 10**6
    for c in result.cards:
        assert math.isfinite(c.value) and math.isfinite(c.stderr)
    # the figures depend on the sample count only, not on when the clock stopped it
    again = analyse(position, method="montecarlo", samples=n, seed=5)
    assert again.complete
    assert {c.card: (c.value, c.stderr) for c in again.cards} == \
        {c.card: (c.value, c.stderr) for c in result.cards}


def test_montecarlo_deterministic():
    position = example("example-3p")
    a = analyse(position, method="montecarlo", samples=100, seed=9)
    b = analyse(position, method="montecarlo", samples=100, seed=9)
    assert a.to_json()["cards"] == b.to_json()["cards"]
    c = analyse(position, method="montecarlo", samples=100, seed=10)
    assert [x.value for x in a.cards] != [x.value for x in c.cards] or \
        [x.stderr for x in a.cards] != [x.stderr for x in c.cards]


def test_montecarlo_independent_of_batching():
    position = dealt("tactical", 4, "normal", 6, 77)
    runs = [montecarlo.run_montecarlo(position, samples=96, seed=2, batch=b) for b in (96, 32, 7)]
    first = [(c.card, c.value, c.stderr, c.cows_now) for c in runs[0].cards]
    for other in runs[1:]:
        assert [(c.card, c.value, c.stderr, c.cows_now) for c in other.cards] == first


# ---------------------------------------------------------------- the Analysis result

RESULT_CASES = [("example", "random", "exact"), ("example", "worst", "exact"),
                ("example-3p", "random", "exact"), ("example-pro", "worst", "exact"),
                ("example-logic", "random", "exact"), ("example-3p", "random", "montecarlo")]


@pytest.mark.parametrize("name,model,method", RESULT_CASES)
def test_analysis_result_shape(name, model, method):
    position = example(name)
    result = analyse(position, opponents=model, method=method, samples=64, seed=1)
    assert result.method == method and result.opponents == model
    values = [c.value for c in result.cards]
    assert values == sorted(values)  # best first
    assert sorted(c.card for c in result.cards) == sorted(position.hand)
    assert result.value == result.cards[0].value and result.best is result.cards[0]
    for c in result.cards:
        assert c.regret == pytest.approx(c.value - result.value, abs=TOL)
        assert c.regret >= 0
        assert 0 <= c.take_probability <= 1
        assert c.cows_now >= 0 and c.cows_later >= -TOL
    data = result.to_json()
    for key in ("position", "opponents", "method", "value", "cards"):
        assert key in data
    assert data["opponents"] == model and data["method"] == method
    assert data["value"] == result.value
    assert [c["card"] for c in data["cards"]] == [c.card for c in result.cards]
    for item, c in zip(data["cards"], result.cards):
        assert item["value"] == c.value and item["regret"] == c.regret
        if method == "montecarlo":
            assert item["stderr"] == c.stderr
            low, high = item["ci95"]
            assert low <= item["value"] <= high
            # cows: the normal interval, cut at 0 (never negative)
            assert high - item["value"] == pytest.approx(montecarlo.Z95 * c.stderr)
            assert low == pytest.approx(max(0.0, item["value"] - montecarlo.Z95 * c.stderr))
        else:
            assert "stderr" not in item and "ci95" not in item
    assert data["position"] == format_position(position)
    assert parse_position(data["position"]) == position
    assert format_position(parse_position(data["position"])) == data["position"]


def test_json_position_canonical_from_any_spelling():
    text = ("hand=22,13,18 gone=11,10,9,8,6,5,4,2,1 rows=3,7,12/14,16/19,20,21/23 "
            "players=2 variant=tactical placement=normal")
    position = parse_position(text)
    data = analyse(position, method="exact").to_json()
    assert data["position"] == format_position(position) != text
    assert parse_position(data["position"]) == position


def test_every_card_in_analysis_for_hidden_hands():
    position = dealt("tactical", 4, "professional", 3, 16)
    result = analyse(position, opponents="worst", method="exact")
    assert len(result.cards) == position.cards_left
    assert analysis.UNITS[result.opponents] in result.to_json()["unit"]
