"""Choosing puzzles by theme and difficulty (the quiz and the board), and a reviewed game's
mistakes made into a puzzle set (``nimmt review --puzzles``)."""
from __future__ import annotations

import json

import pytest

from nimmt.puzzles import files
from nimmt.puzzles.core import check_puzzle
from nimmt.puzzles.mistakes import mistake_puzzles
from nimmt.puzzles.records import PuzzleSet
from nimmt.solver.base.errors import NimmtError
from nimmt.solver.players.records import load_record
from nimmt.solver.players.review import review_game
from nimmt.solver.positions.position import parse_position
from nimmt.solver.search.analysis import analyse

from cli_checks import assert_ok, assert_one_line_error, invoke

SHIPPED = "two-player-endgames"


# ---------------------------------------------------------------- selection

def test_difficulty_ranges_read_as_written():
    assert files.parse_difficulty("3") == (3, 3)
    assert files.parse_difficulty(" 2..5 ") == (2, 5)
    assert files.parse_difficulty("4..") == (4, None)
    assert files.parse_difficulty("..3") == (None, 3)
    for bad in ("", "..", "x", "5..2", "2...3", "-1"):
        with pytest.raises(NimmtError):
            files.parse_difficulty(bad)


def test_selection_keeps_any_theme_inside_the_range():
    data = files.load_set(SHIPPED)
    themes = files.set_themes(data)
    assert len(themes) >= 2
    a, b = themes[0], themes[1]
    both = files.select_puzzles(data, [a, b])
    assert both == [p for p in data.puzzles if a in p.themes or b in p.themes]
    assert {p.id for p in both} >= {p.id for p in files.select_puzzles(data, [a])}
    levels = sorted({p.difficulty for p in data.puzzles})
    low = levels[len(levels) // 2]
    ranged = files.select_puzzles(data, (), (low, None))
    assert ranged == [p for p in data.puzzles if p.difficulty >= low]
    assert files.select_puzzles(data) == list(data.puzzles)
    with pytest.raises(NimmtError, match="its themes are"):
        files.select_puzzles(data, ["no-such-theme"])


def test_quiz_asks_only_the_chosen_puzzles(runner):
    data = files.load_set(SHIPPED)
    theme = files.set_themes(data)[-1]
    chosen = files.select_puzzles(data, [theme], (None, 99))
    answers = "".join(f"{p.solution}\n" for p in chosen)
    result = invoke(runner, "puzzles", "quiz", SHIPPED, "--theme", theme,
                    "--difficulty", "..99", input=answers)
    assert_ok(result)
    assert f"final score: {len(chosen)}/{len(chosen)}" in result.stdout
    assert result.stdout.count("correct!") == len(chosen)


def test_quiz_refuses_an_empty_choice_in_one_line(runner):
    result = invoke(runner, "puzzles", "quiz", SHIPPED, "--difficulty", "1000..")
    assert "widen" in assert_one_line_error(result)
    result = invoke(runner, "puzzles", "quiz", SHIPPED, "--theme", "nonsense")
    assert "its themes are" in assert_one_line_error(result)
    result = invoke(runner, "puzzles", "quiz", SHIPPED, "--difficulty", "3..x")
    assert "not a range" in assert_one_line_error(result)
    result = invoke(runner, "puzzles", "quiz", SHIPPED, "--difficulty", "")
    assert "is empty" in assert_one_line_error(result)


# ---------------------------------------------------------------- mistakes as puzzles

@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    """One round of two-player tactical, random against closest (random errs often)."""
    from click.testing import CliRunner

    folder = tmp_path_factory.mktemp("games")
    result = invoke(CliRunner(), "simulate", "--variant", "tactical", "--players", "2",
                    "--bots", "random,closest", "--games", "1", "--one-round", "--seed", "5",
                    "--save-games", str(folder))
    assert_ok(result)
    return str(next(folder.glob("*.json")))


def test_mistakes_become_exact_puzzles_of_the_card_played(game_file):
    review = review_game(load_record(game_file), [0], "worst", first_turn=5)
    wrong = [d for d in review.decisions
             if d.kind == "card" and d.label in ("mistake", "blunder")]
    assert wrong, "the fixture's random player made no mistake: pick another seed"
    made = mistake_puzzles(review)
    assert len(made.puzzles) + len(made.skipped) == len(wrong)
    assert made.puzzles
    for puzzle in made.puzzles:
        origin = puzzle.extra["from_game"]
        d = next(d for d in wrong if (d.round, d.turn) == (origin["round"], origin["turn"]))
        assert puzzle.position == d.position
        assert puzzle.tempting == origin["played"] == int(d.played)
        position = parse_position(puzzle.position)
        exact = {c.card: c.value for c in analyse(position, opponents="worst",
                                                  method="exact").cards}
        assert puzzle.values == pytest.approx(exact)
        assert exact[puzzle.solution] == min(exact.values())
        assert exact[puzzle.tempting] - exact[puzzle.solution] >= 1.0 - 1e-9  # a mistake
        assert puzzle.refutation and puzzle.refutation[0].you == puzzle.tempting
        assert check_puzzle(puzzle) == []
    # the set file round-trips
    data = made.puzzle_set("test").to_json()
    assert PuzzleSet.from_json(json.loads(json.dumps(data)), "x").puzzles == tuple(made.puzzles)


def test_mistakes_need_a_model_a_puzzle_is_solved_in(game_file):
    review = review_game(load_record(game_file), [0], "closest", first_turn=8)
    with pytest.raises(NimmtError, match="random or worst"):
        mistake_puzzles(review)


def test_review_writes_the_puzzles_and_the_quiz_replays_them(runner, game_file, tmp_path):
    out = tmp_path / "mine.json"
    result = invoke(runner, "review", game_file, "--player", "1", "--opponents", "worst",
                    "--from-turn", "5", "--puzzles", str(out))
    assert result.exit_code == 0, (result.output, result.stderr)
    assert "review of a tactical game" in result.stdout  # the review, on stdout as before
    assert f"wrote {out}" in result.stderr  # the note on stderr, so stdout stays the review
    data = files.load_set(str(out))
    assert data.puzzles
    first = data.puzzles[0]
    result = invoke(runner, "puzzles", "quiz", str(out), "--count", "1",
                    input=f"{first.tempting}\n")
    assert_ok(result)
    assert "not quite" in result.stdout
    assert "final score: 0/1" in result.stdout


def test_review_puzzles_refuses_standard_output(runner, game_file, tmp_path):
    result = invoke(runner, "review", game_file, "--opponents", "worst", "--puzzles", "-")
    assert "standard output holds the review" in assert_one_line_error(result)


def test_review_puzzles_refuses_a_bot_model_before_reviewing(runner, game_file, tmp_path):
    out = tmp_path / "mine.json"
    result = invoke(runner, "review", game_file, "--opponents", "closest",
                    "--puzzles", str(out))
    assert "random or worst" in assert_one_line_error(result)
    assert not out.exists()
