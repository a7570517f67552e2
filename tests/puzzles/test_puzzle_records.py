"""Typed puzzle records: sets read and written as exactly the JSON they were, checks
on load that name the puzzle and the field, and the search-level principal line that makes the
refutations (it reproduces every stored one)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from nimmt.puzzles import files
from nimmt.puzzles.core import refutation
from nimmt.puzzles.records import Puzzle, PuzzleSet, RefutationTurn, SetStats, Settings
from nimmt.solver.base.rules import MODELS, NimmtError
from nimmt.solver.positions.position import parse_position
from nimmt.solver.search.analysis import OPPONENTS
from nimmt.solver.search.line import LineTurn, Play, RowChoice, opponent_sets, principal_line

from cli_checks import assert_one_line_error, invoke

SHIPPED = sorted(files.shipped_sets())
SAMPLE = 10  # puzzles per shipped set whose refutation is made again in the default run


def shipped_puzzles(every: int) -> list:
    params = []
    for name in SHIPPED:
        puzzles = files.load_set(name).puzzles
        step = max(1, len(puzzles) // every) if every else 1
        params += [pytest.param(p, id=f"{name}-{p.id}") for p in puzzles[::step][:every or None]]
    return params


# ---------------------------------------------------------------- JSON, byte for byte

def test_the_model_names_puzzles_check_are_the_analysis_models():
    assert MODELS == OPPONENTS

@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_sets_round_trip_byte_identical(name, tmp_path):
    text = files.shipped_sets()[name]
    puzzle_set = files.load_set(name)
    assert isinstance(puzzle_set, PuzzleSet) and all(isinstance(p, Puzzle)
                                                     for p in puzzle_set.puzzles)
    assert json.dumps(puzzle_set.to_json(), indent=1) + "\n" == text
    path = tmp_path / f"{name}.json"
    files.save_set(puzzle_set, str(path))
    assert path.read_text(encoding="utf-8") == text
    assert files.load_set(str(path)) == puzzle_set


def test_records_have_typed_fields():
    p = files.load_set("two-player-endgames").puzzles[0]
    assert all(isinstance(c, int) for c in p.values) and p.cards == tuple(p.values)
    assert p.solution in p.values and isinstance(p.themes, tuple)
    assert all(isinstance(t, RefutationTurn) for t in p.refutation)
    settings = files.load_set("two-player-endgames").settings
    assert isinstance(settings, Settings) and settings.model == p.model
    assert isinstance(files.load_set("two-player-endgames").stats, SetStats)


def test_a_generated_set_keeps_its_key_order_and_unknown_keys(tmp_path):
    base = files.load_set("professional")
    made = replace(base, puzzles=base.puzzles[:2], complete=False, note="incomplete: test",
                   extra={"mine": [1, 2]})
    data = made.to_json()
    assert list(data) == ["format", "version", "command", "complete", "settings", "stats",
                          "puzzles", "note", "mine"]
    path = tmp_path / "s.json"
    files.save_set(made, str(path))
    again = files.load_set(str(path))
    assert again == made and again.extra == {"mine": [1, 2]}
    text = path.read_text(encoding="utf-8")
    files.save_set(again, str(path))
    assert path.read_text(encoding="utf-8") == text
    # a puzzle without the generator's fields writes none of them
    bare = replace(base.puzzles[0], runner_up=None, tempting=None, refutation=None, bots=None,
                   bots_failing=None, refutation_depth=None)
    assert list(bare.to_json()) == list(files.REQUIRED)


# ---------------------------------------------------------------- checked on load

def _set_with(change) -> dict:
    data = files.load_set("professional").to_json()
    data["puzzles"] = data["puzzles"][:3]
    change(data)
    return data


MALFORMED = {
    "themes": (lambda d: d["puzzles"][1].update(themes="dump-high"), "puzzle 2 needs themes"),
    "difficulty": (lambda d: d["puzzles"][2].update(difficulty="3"),
                   "puzzle 3 needs difficulty"),
    "margin": (lambda d: d["puzzles"][0].update(margin=None), "puzzle 1 needs margin"),
    "id": (lambda d: d["puzzles"][0].update(id=7), "puzzle 1 needs id"),
    "refutation": (lambda d: d["puzzles"][1]["refutation"][0].pop("cows"),
                   "puzzle 2 needs refutation"),
    "bots": (lambda d: d["puzzles"][0].update(bots=["closest"]), "puzzle 1 needs bots"),
    "tempting": (lambda d: d["puzzles"][0].update(tempting=2.5), "puzzle 1 needs tempting"),
    "value key": (lambda d: d["puzzles"][0]["values"].update({"07": 1.0}),
                  "puzzle 1 needs values"),
    "value": (lambda d: d["puzzles"][0]["values"].update({"7": True}), "puzzle 1 needs values"),
    "model": (lambda d: d["puzzles"][2].update(model="best"), "puzzle 3 has unknown model"),
    "missing": (lambda d: d["puzzles"][1].pop("explanation"), "puzzle 2 lacks explanation"),
    "settings": (lambda d: d["settings"].update(variant="huge"), "settings has unknown variant"),
    "settings key": (lambda d: d["settings"].pop("seed"), "settings lacks seed"),
    "stats": (lambda d: d["stats"].update(kept="30"), "stats needs kept"),
    "command": (lambda d: d.update(command=["nimmt"]), "needs command"),
    "complete": (lambda d: d.update(complete="yes"), "needs complete"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_set_names_the_puzzle_and_the_field(runner, tmp_path, case):
    change, message = MALFORMED[case]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_set_with(change)), encoding="utf-8")
    with pytest.raises(NimmtError, match=message) as info:
        files.load_set(str(path))
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert message in assert_one_line_error(invoke(runner, "puzzles", "list", path))


def test_save_set_refuses_a_record_that_would_not_load(tmp_path):
    puzzle_set = files.load_set("professional")
    bad = replace(puzzle_set, puzzles=(replace(puzzle_set.puzzles[0], model="best"),))
    with pytest.raises(NimmtError, match="puzzle 1 has unknown model"):
        files.save_set(bad, str(tmp_path / "s.json"))
    assert not (tmp_path / "s.json").exists()


# ---------------------------------------------------------------- the principal line

def _check_line(puzzle: Puzzle) -> None:
    position = parse_position(puzzle.position)
    assert refutation(position, puzzle.tempting, puzzle.model) == puzzle.refutation


@pytest.mark.parametrize("puzzle", shipped_puzzles(SAMPLE))
def test_the_principal_line_reproduces_stored_refutations(puzzle):
    _check_line(puzzle)


@pytest.mark.slow
@pytest.mark.parametrize("puzzle", shipped_puzzles(0))
def test_the_principal_line_reproduces_every_stored_refutation(puzzle):
    _check_line(puzzle)


def test_the_principal_line_is_made_of_legal_turns():
    """Replaying the line's cards and row choices with apply_turn gives its cows; the first
    card is the one asked for; the line runs to the end of the round."""
    for name in SHIPPED:
        for puzzle in files.load_set(name).puzzles[:6]:
            position = parse_position(puzzle.position)
            line = principal_line(position, puzzle.tempting, puzzle.model)
            assert all(isinstance(t, LineTurn) for t in line)
            assert line[0].card == puzzle.tempting and len(line) == position.cards_left
            for turn in line:
                assert turn.opponents in opponent_sets(position)
                cards = [turn.card] + [0] * (position.players - 1)
                for play in turn.opponents:
                    cards[play.player - 1] = play.card
                takes = [-1] * position.players
                sides = [-1] * position.players
                for choice in turn.choices:
                    assert isinstance(choice, RowChoice) and cards[choice.player - 1] == choice.card
                    if choice.take_row is not None:
                        takes[choice.player - 1] = choice.take_row
                    else:
                        sides[choice.player - 1] = ("right", "left").index(choice.tie_side)
                position, outcome = position.apply_turn(cards, takes, sides)
                assert outcome.cows[0] == turn.cows
            assert position.cards_left == 0


def test_the_line_records_row_choices():
    """A low card's owner chooses the row it takes: the line says which."""
    seen = [c for name in SHIPPED for p in files.load_set(name).puzzles[:10]
            for t in principal_line(parse_position(p.position), p.tempting, p.model)
            for c in t.choices]
    assert any(c.take_row is not None for c in seen)
    assert all(c.take_row in (None, 0, 1, 2, 3) and c.tie_side in (None, "right", "left")
               for c in seen)


def test_labels_name_known_seats_then_the_hidden_cards():
    turn = LineTurn(5, (Play(2, 17), Play(3, 9, hidden=True), Play(4, 12, hidden=True)), (), 0)
    assert turn.label == "p2 17, hidden 9, 12"


def test_principal_line_refuses_a_bad_card_or_model():
    position = parse_position("players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 "
                              "gone=1,2,4,5,6,8,9,10,11")
    with pytest.raises(NimmtError, match="not in player 1's hand"):
        principal_line(position, 15, "worst")
    with pytest.raises(NimmtError, match="unknown model"):
        principal_line(position, 13, "best")
    assert len(principal_line(position, 13, "worst", max_turns=1)) == 1


def _tree_line(position, card: int, model: str) -> list[tuple[int, str, int]]:
    """The line read off decision trees of depth 1, as puzzles made it before the principal
    line: an independent route to the same turns (the trees' own row-choice search)."""
    from nimmt.solver.search.tree import build_tree

    line = []
    while position.cards_left:
        graph = build_tree(position, opponents=model, depth=1, max_nodes=10**6)
        root = graph.graph["root"]
        if not line:
            move = next(n for n in graph.successors(root) if graph.nodes[n]["card"] == card)
        else:
            best = [n for n in graph.successors(root) if graph.edges[root, n]["best"]]
            move = min(best, key=lambda n: graph.nodes[n]["card"])
        replies = [(graph.edges[move, n], n) for n in graph.successors(move)]
        if model == "nash":
            replies = [r for r in replies if r[0]["probability"] > 0] or replies

        def value(reply):
            edge, node = reply
            mine = edge.get("cows", 0)
            return mine - (edge.get("cows_opponents", 0) if model == "nash" else 0) \
                + graph.nodes[node]["value"]  # noqa: B023 (used within the iteration)

        data, node = max(replies, key=value)
        cows, label = data["cows"], data["label"]
        while graph.nodes[node]["actor"] == "choice":
            data, node = next((graph.edges[node, n], n) for n in graph.successors(node)
                              if graph.edges[node, n]["best"])
            cows += data["cows"]
        line.append((graph.nodes[move]["card"], label, cows))
        if graph.nodes[node]["actor"] == "leaf":
            break
        position = parse_position(graph.nodes[node]["position"])
    return line


@pytest.mark.parametrize("settings", [
    Settings("tactical", 2, "professional", 4, "random", 0.5, False, 12),
    Settings("tactical", 3, "normal", 3, "random", 0.5, False, 13),
    Settings("logic", 3, "professional", 3, "worst", 1.0, False, 15),
    Settings("tactical", 2, "professional", 3, "nash", 0.5, False, 16),
], ids=lambda s: f"{s.model}-{s.players}p-{s.placement}")
def test_the_principal_line_follows_the_decision_tree(settings):
    from nimmt.puzzles.core import candidate

    for index in range(2):
        position = candidate(settings, index)
        for card in position.hand:
            line = principal_line(position, card, settings.model)
            assert [(t.card, t.label, t.cows) for t in line] == \
                _tree_line(position, card, settings.model), (index, card)
