"""`nimmt review`: labels on a game built with a known blunder and a
known best move, regrets equal to `analyse` on the same views, row choices, formats."""
from __future__ import annotations

import json
import os
import random
import sys

import pytest

from nimmt.solver.base.errors import SearchInterrupted
from nimmt.solver.base.pictures import NO_PICTURES
from nimmt.solver.base.rules import Rules
from nimmt.solver.players.arena import simulate_bots
from nimmt.solver.players.bots import parse_bots, row_choices
from nimmt.solver.players.records import build_record
from nimmt.solver.players.review import (
    LABELS,
    Decision,
    GameReview,
    label_of,
    regret_figure,
    review_game,
)
from nimmt.solver.players.seats import deal_cards
from nimmt.solver.positions.position import Position, parse_position
from nimmt.solver.search.analysis import analyse

from cli_checks import assert_ok, assert_one_line_error, invoke

RULES = Rules("tactical", 2, one_round=True)


def built_game() -> tuple[dict, int, int]:
    """A deal where player 1 plays its lowest card except: in turn 7 the card with the
    largest regret against the worst model (3 cows or more), in turn 8 the best card.
    Player 2 always plays its lowest card. Returns (record, blunder card, best card)."""
    for seed in range(40):
        rows, hands = deal_cards(RULES, seed, 0, 0)
        position = Position.make(players=2, rows=[[c] for c in rows], hand=hands[0],
                                 others={2: hands[1]})
        turns, special = [], []
        for t in range(10):
            h1, h2 = position.hands
            assert h1 is not None and h2 is not None
            card = min(h1)
            if t in (6, 7):
                a = analyse(position, "worst")
                card = a.cards[-1].card if t == 6 else a.best.card
                if t == 6 and a.cards[-1].regret < 3:
                    break
                special.append(card)
            cards = [card, min(h2)]
            turns.append({"cards": cards})
            position, _ = position.apply_turn(cards)
        else:
            record = build_record("tactical", 2, "normal", ["me", "lowest"],
                                  [{"rows": rows, "hands": hands, "turns": turns}],
                                  one_round=True)
            return record, special[0], special[1]
    raise AssertionError("no deal with a blunder of 3 cows in 40 seeds")


@pytest.fixture(scope="module")
def game():
    return built_game()


def test_the_blunder_and_the_best_move_are_labelled(game):
    record, blunder, best = game
    review = review_game(record, [0], "worst", first_turn=7)
    cards = {d.turn: d for d in review.decisions if d.kind == "card"}
    assert cards[7].played == str(blunder) and cards[7].label == "blunder"
    assert cards[7].regret is not None and cards[7].regret >= 3
    assert cards[8].played == str(best) and cards[8].label == "best"
    assert cards[8].regret == 0
    assert 10 not in cards  # the last card is forced: no decision
    summary = review.summaries()[0]
    assert summary.costliest[0].turn == 7
    assert summary.decisions == len([d for d in review.decisions if d.regret is not None])


@pytest.mark.parametrize("opponents", ["worst", "random"])
def test_regret_equals_analyse_on_the_same_views(game, opponents):
    record = game[0]
    review = review_game(record, None, opponents, first_turn=6)
    assert {d.seat for d in review.decisions} == {0, 1}
    for d in review.decisions:
        view = parse_position(d.position)
        if d.kind == "card":
            a = analyse(view, opponents)
            mine = next(c for c in a.cards if c.card == int(d.played))
            assert d.regret == pytest.approx(mine.regret, abs=1e-12)
            assert d.best == str(a.best.card)
            assert d.label == label_of(mine.regret)


def test_row_choices_match_row_choices():
    """A game with row choices: each reviewed row choice has the value row_choices gives
    (the earlier cards' owners following the rule, as in the recorded game)."""
    games: list = []
    simulate_bots(Rules("tactical", 2, one_round=True), parse_bots("random,random"), 6, seed=11,
                  on_game=games.append)
    checked = 0
    for g in games:
        review = review_game(g.record, None, "worst", first_turn=6)
        for d in review.decisions:
            if d.kind != "row":
                continue
            view = parse_position(d.position)
            turn = g.record["rounds"][0]["turns"][d.turn - 1]["cards"]
            mine = [turn[d.seat], turn[1 - d.seat]]
            options = row_choices(view, mine, "worst")
            by_label = {o.label: o for o in options}
            assert d.best == options[0].label or by_label[d.best].regret == 0
            assert d.regret == pytest.approx(by_label[d.played].regret)
            checked += 1
    assert checked >= 1


def test_cli_review_formats(runner, tmp_path, game):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game[0]))
    result = invoke(runner, "review", path, "--player", 1, "--opponents", "worst",
                    "--from-turn", 7, "--format", "json")
    assert_ok(result)
    data = json.loads(result.output)
    assert data["players"] == [1] and data["complete"]
    assert [d["label"] for d in data["decisions"] if d["turn"] == 7 and d["kind"] == "card"] \
        == ["blunder"]
    for fmt, name in (("markdown", "r.md"), ("html", "r.html"), ("table", "r.txt")):
        result = invoke(runner, "review", path, "--opponents", "worst", "--from-turn", 8,
                        "--format", fmt, "--output", tmp_path / name)
        assert_ok(result)
        text = (tmp_path / name).read_text()
        assert "blunder" in text or "best" in text
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    assert "r.png" in (tmp_path / "r.md").read_text()
    assert "<svg" in (tmp_path / "r.html").read_text()


def test_cli_review_without_matplotlib_writes_the_rest_and_says_so(runner, tmp_path, game,
                                                                   monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game[0]))
    for fmt, name in (("markdown", "r.md"), ("html", "r.html")):
        result = invoke(runner, "review", path, "--opponents", "worst", "--from-turn", 8,
                        "--format", fmt, "--output", tmp_path / name)
        assert_ok(result)
        text = (tmp_path / name).read_text()
        assert NO_PICTURES in text and ("blunder" in text or "best" in text)
    assert sorted(os.listdir(tmp_path)) == ["game.json", "r.html", "r.md"]
    assert "<svg" not in (tmp_path / "r.html").read_text()


def test_cli_review_bad_input(runner, tmp_path, game):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game[0]))
    assert "players 1..2" in assert_one_line_error(invoke(runner, "review", path, "--player", 3))
    assert "game record" in assert_one_line_error(invoke(runner, "review", tmp_path / "none"))
    (tmp_path / "x.json").write_text("[1]")
    assert "not a JSON object" in assert_one_line_error(invoke(runner, "review",
                                                               tmp_path / "x.json"))


def test_ctrl_c_keeps_what_was_reviewed(game):
    """Ctrl-C (a KeyboardInterrupt from inside the work) stops the review, never returns as
    if it had finished, and carries the decisions so far."""
    calls = []

    def progress(step: int) -> None:
        calls.append(step)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(SearchInterrupted) as stop:
        review_game(game[0], [0], "worst", first_turn=6, progress=progress)
    review = stop.value.partial
    assert not review.complete
    assert {d.turn for d in review.decisions} == {6, 7}
    assert review.total == 4 and review.done == 2
    assert review.to_json()["turns_reviewed"] == 2


def a_review(rounds: list[int], first_turn: int, seed: int = 0) -> GameReview:
    """A review of two players from ``first_turn`` in ``rounds``: a card decision per
    turn 1..9 and a row choice now and then, regrets drawn at random (the picture does
    not care where they come from)."""
    rng = random.Random(seed)
    decisions = []
    for r in rounds:
        for t in range(first_turn, 10):
            for s in (0, 1):
                regret = rng.choice([0.0, 0.0, rng.uniform(0, 1), rng.uniform(0, 8)])
                decisions.append(Decision(r, t, s, "card", "17", "17", regret, 0.0, regret,
                                          None, "exact", label_of(regret), ""))
                if rng.random() < 0.2:
                    decisions.append(Decision(r, t, s, "row", "take row 1", "take row 1",
                                              0.0, 0.0, 0.0, None, "exact", "best", ""))
    return GameReview({"names": ["me", "lowest"]}, (0, 1), "worst", decisions)


def drawn_picture(review: GameReview, monkeypatch):
    """The figure regret_figure saves, drawn (its texts' places known)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    saved = []
    save = Figure.savefig

    def keep(fig, *args, **kwargs):
        saved.append(fig)
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    assert regret_figure(review, "png")[:4] == b"\x89PNG"
    fig = saved[0]
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    return fig, fig.axes[0], renderer


@pytest.mark.parametrize("rounds,first_turn", [([1], 7), ([1], 1), ([2, 3, 4], 4),
                                               ([1, 2, 3, 4, 5, 6, 7, 8], 4)])
def test_the_picture_fits_the_reviewed_turns(monkeypatch, rounds, first_turn):
    """The threshold labels sit just right of the axes, beside their lines, apart from
    each other; the plot fills the picture (no empty band of unreviewed turns or floating
    labels); the x axis spans the reviewed turns only."""
    review = a_review(rounds, first_turn)
    fig, ax, renderer = drawn_picture(review, monkeypatch)
    box = ax.get_window_extent(renderer)
    names = {name for _, name in LABELS}
    labels = [t for t in ax.texts if t.get_text() in names]
    assert sorted(t.get_text() for t in labels) == sorted(names)
    extents = sorted((t.get_window_extent(renderer) for t in labels), key=lambda e: e.y0)
    for e in extents:
        assert box.x1 <= e.x0 <= box.x1 + 0.05 * box.width  # just right of the plot
        assert box.y0 <= e.y0 and e.y1 <= box.y1
    for low, high in zip(extents, extents[1:]):
        assert low.y1 <= high.y0 + 1  # no two labels overlap
    whole = fig.get_tightbbox(renderer)  # inches
    assert box.width / fig.dpi > 0.8 * whole.width
    left, right = ax.get_xlim()
    reviewed = right - left
    if len(rounds) == 1:
        assert first_turn - 1 < left < first_turn and 9 < right < 10
    else:  # the rounds side by side, each its reviewed turns and a gap
        assert reviewed <= len(rounds) * (9 - first_turn + 2)
        assert [t.get_text() for t in ax.get_xticklabels()] == [str(r) for r in rounds]
