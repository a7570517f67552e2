"""Puzzle sets (DESIGN.md section 4): generation, the set file, checking, the quiz, export,
and the shipped sets (package data that must load from an installed wheel too).

Generation is kept tiny here (2 or 3 players, 3 or 4 cards left, 3 puzzles) so the file runs
quickly once numba's cache is warm."""
from __future__ import annotations

import base64
import copy
import json
import os
import re
import shutil
import site
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from nimmt.puzzles import files, render
from nimmt.puzzles.core import DEFAULT_MARGIN, Settings, check_puzzle, check_settings, generate
from nimmt.puzzles.records import Puzzle, PuzzleSet
from nimmt.solver.base.rules import NimmtError
from nimmt.solver.faces.report import rows_svg
from nimmt.solver.positions.position import format_position, parse_position
from nimmt.solver.search.analysis import analyse

from cli_checks import assert_ok, assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

ROOT = Path(__file__).resolve().parents[2]
SETS_DIR = ROOT / "puzzles" / "sets"
SVG_NS = "{http://www.w3.org/2000/svg}"
# DESIGN.md section 4: "each puzzle has at least ..."
DESIGN_KEYS = ("id", "position", "model", "solution", "values", "margin", "themes",
               "difficulty", "explanation")
EPS = 1e-9

CASES = {
    "worst-2p-k3": Settings("tactical", 2, "normal", 3, "worst", DEFAULT_MARGIN["worst"], False, 1),
    "worst-2p-k4": Settings("tactical", 2, "normal", 4, "worst", DEFAULT_MARGIN["worst"], False, 7),
    "random-2p-k4": Settings("tactical", 2, "normal", 4, "random", DEFAULT_MARGIN["random"],
                             False, 2),
    "nash-2p-k3": Settings("tactical", 2, "normal", 3, "nash", DEFAULT_MARGIN["nash"], False, 3),
    "worst-3p-k3-hidden": Settings("tactical", 3, "normal", 3, "worst", DEFAULT_MARGIN["worst"],
                                   False, 1),
    "worst-2p-k3-logic-professional": Settings("logic", 2, "professional", 3, "worst",
                                               DEFAULT_MARGIN["worst"], False, 4),
}
COUNT = 3
_generated: dict[tuple[Settings, int], list[Puzzle]] = {}


def puzzles_for(settings: Settings, count: int = COUNT) -> list[Puzzle]:
    """Generate once per settings for the whole module (deep copies, so tests may tamper)."""
    key = (settings, count)
    if key not in _generated:
        found, tried = generate(settings, count)
        assert len(found) == count, f"only {len(found)} puzzles from {tried} candidates"
        _generated[key] = found
    return copy.deepcopy(_generated[key])


def as_set(puzzles: list[Puzzle], command: str = "nimmt puzzles generate --seed 1") -> dict:
    """The set file's JSON."""
    return {"format": files.FORMAT, "version": files.VERSION, "command": command,
            "puzzles": [p.to_json() for p in puzzles]}


@pytest.fixture(scope="module")
def set_dir(tmp_path_factory):
    """A folder with a small valid set (worst, 2 players, 4 cards left) as set.json."""
    folder = tmp_path_factory.mktemp("puzzleset")
    data = as_set(puzzles_for(CASES["worst-2p-k4"]),
                  command="nimmt puzzles generate --players 2 --cards-left 4 <&> \"quoted\"")
    files.save_set(data, str(folder / "set.json"))
    return folder


@pytest.fixture
def set_file(set_dir, tmp_path):
    """A private copy of the small set (tests may tamper with it)."""
    path = tmp_path / "set.json"
    shutil.copy(set_dir / "set.json", path)
    return path


def read_set(path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_set(path, data) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)


# ---------------------------------------------------------------- generation

@pytest.mark.parametrize("name", list(CASES))
def test_generated_puzzles_hold_on_re_solving(name):
    settings = CASES[name]
    puzzles = puzzles_for(settings)
    assert len(puzzles) == COUNT
    assert len({p.id for p in puzzles}) == COUNT, "ids must be unique"
    for p in puzzles:
        for key in DESIGN_KEYS + files.REQUIRED:
            assert key in p.to_json(), f"{p.id}: missing {key}"
        position = parse_position(p.position)
        assert format_position(position) == p.position, "position is stored canonically"
        assert position.players == settings.players
        assert position.variant == settings.variant
        assert position.placement == settings.placement
        assert position.cards_left == settings.cards_left
        assert p.model == settings.model
        # values: every card in hand, nothing else
        assert sorted(int(c) for c in p.values) == sorted(position.hand)
        analysis = analyse(position, opponents=p.model, method="exact")
        solved = {c.card: c.value for c in analysis.cards}
        assert sorted(solved) == sorted(position.hand)
        for card, value in p.values.items():
            assert abs(solved[int(card)] - value) <= EPS, (p.id, card, value, solved)
        ranked = sorted(solved.values())
        best, runner_up = ranked[0], ranked[1]
        assert p.solution in position.hand
        assert abs(solved[p.solution] - best) <= EPS
        # unique best: every other card is worse by at least the margin
        others = [v for c, v in solved.items() if c != p.solution]
        assert min(others) - solved[p.solution] > 0
        assert abs((runner_up - best) - p.margin) <= EPS, (p.id, p.margin, ranked)
        assert abs((min(others) - solved[p.solution]) - p.margin) <= EPS
        assert p.margin >= settings.min_margin - EPS
        assert isinstance(p.themes, tuple) and all(isinstance(t, str) for t in p.themes)
        assert isinstance(p.difficulty, int) and p.difficulty >= 1
        assert isinstance(p.explanation, str) and str(p.solution) in p.explanation
        json.dumps(p.to_json())  # storable as JSON as is
        assert Puzzle.from_json(json.loads(json.dumps(p.to_json())), "set", 1) == p
        assert check_puzzle(p) == []
        if settings.players > 2:
            assert "hidden-hands" in p.themes
        if settings.placement == "professional":
            assert "professional" in p.themes


def test_same_seed_gives_the_same_set():
    settings = CASES["worst-2p-k4"]
    first, tried_first = generate(settings, COUNT)
    second, tried_second = generate(settings, COUNT)
    assert json.dumps(as_set(first), sort_keys=True) == json.dumps(as_set(second), sort_keys=True)
    assert tried_first == tried_second
    # the kept puzzles are the first by candidate index: a smaller count is a prefix
    fewer, _ = generate(settings, COUNT - 1)
    assert json.dumps(as_set(fewer), sort_keys=True) == \
        json.dumps(as_set(first[:COUNT - 1]), sort_keys=True)
    # and another seed gives other puzzles
    other, _ = generate(Settings(**{**settings.__dict__, "seed": settings.seed + 1}), COUNT)
    assert [p.position for p in other] != [p.position for p in first]


def test_two_workers_give_the_same_set_as_one():
    settings = CASES["random-2p-k4"]
    one, tried_one = generate(settings, COUNT, workers=1)
    two, tried_two = generate(settings, COUNT, workers=2)
    assert json.dumps(as_set(two), sort_keys=True) == json.dumps(as_set(one), sort_keys=True)
    assert tried_two == tried_one


@pytest.mark.parametrize("change, message", [
    ({"variant": "standard"}, "small deck"),
    ({"model": "nash", "players": 3}, "2 players"),
    ({"cards_left": 7}, "cards_left"),  # the parameter (the CLI: --cards-left)
    ({"cards_left": 1}, "cards_left"),
    ({"players": 5}, "4 players"),
    ({"players": 3, "cards_left": 5}, "4 cards"),
    ({"min_margin": -0.5}, "negative"),
])
def test_settings_out_of_range_are_refused(change, message):
    settings = Settings(**{**CASES["worst-2p-k4"].__dict__, **change})
    with pytest.raises(NimmtError, match=message):
        check_settings(settings)
    with pytest.raises(NimmtError):
        generate(settings, 1)


# ---------------------------------------------------------------- checking

def test_check_puzzle_catches_tampering():
    puzzles = puzzles_for(CASES["worst-2p-k4"])
    for p in puzzles:
        assert check_puzzle(p) == []
        hand = [int(c) for c in p.values]
        # another card as the solution
        wrong = next(c for c in hand if c != p.solution)
        problems = check_puzzle(replace(p, solution=wrong))
        assert problems and any(str(wrong) in m and str(p.solution) in m for m in problems)
        # one tampered value (of a card that is not the solution: the ranking stays)
        values = dict(p.values)
        values[wrong] += 0.25
        problems = check_puzzle(replace(p, values=values))
        assert problems and any(f"card {wrong}" in m for m in problems), problems
        # a tampered value of the solution
        values = dict(p.values)
        values[p.solution] -= 1.0
        assert check_puzzle(replace(p, values=values))
        # a tampered margin
        assert check_puzzle(replace(p, margin=p.margin + 1.0))
        # a position that does not parse
        problems = check_puzzle(replace(p, position="players=2 rows=1/2/3"))
        assert problems and problems[0].startswith("cannot re-solve")


def test_check_puzzle_reports_a_card_missing_from_values():
    p = puzzles_for(CASES["worst-2p-k4"])[0]
    missing = next(c for c in p.values if int(c) != p.solution)
    values = {c: v for c, v in p.values.items() if c != missing}
    assert check_puzzle(replace(p, values=values)) != []


def test_check_command_passes_an_untampered_set(runner, set_file):
    result = invoke(runner, "puzzles", "check", set_file)
    assert_ok(result)
    assert f"{COUNT} of {COUNT} puzzles hold" in result.stdout


def test_check_command_reports_a_tampered_solution(runner, set_file):
    data = read_set(set_file)
    target = data["puzzles"][1]
    wrong = next(int(c) for c in target["values"] if int(c) != target["solution"])
    target["solution"] = wrong
    write_set(set_file, data)
    result = invoke(runner, "puzzles", "check", set_file)
    assert result.exit_code == 1, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit)
    reported = [line for line in result.stdout.splitlines() if line.startswith(target["id"] + ":")]
    assert len(reported) == 1 and f"stored solution {wrong}" in reported[0]
    assert f"{COUNT - 1} of {COUNT} puzzles hold" in result.stdout
    # the other puzzles are not reported
    for p in data["puzzles"]:
        if p is not target:
            assert p["id"] + ":" not in result.stdout


def test_check_command_reports_a_tampered_value(runner, set_file):
    data = read_set(set_file)
    target = data["puzzles"][0]
    card = next(c for c in target["values"] if int(c) != target["solution"])
    target["values"][card] += 3.0
    write_set(set_file, data)
    result = invoke(runner, "puzzles", "check", set_file)
    assert result.exit_code == 1, (result.output, result.exception)
    assert f"{target['id']}: " in result.stdout and f"card {card}" in result.stdout
    assert f"{COUNT - 1} of {COUNT} puzzles hold" in result.stdout


# ---------------------------------------------------------------- quiz

def hand_of(p) -> list[int]:
    return [int(c) for c in p["values"]]


def test_quiz_correct_answer(runner, set_file):
    p = read_set(set_file)["puzzles"][0]
    result = invoke(runner, "puzzles", "quiz", set_file, "--count", "1",
                    input=f"{p['solution']}\n")
    assert_ok(result)
    assert "correct" in result.stdout.lower()
    assert "not quite" not in result.stdout
    assert p["explanation"] in result.stdout  # the solution is shown after the answer
    assert "final score: 1/1" in result.stdout


def test_quiz_wrong_answer_shows_the_explanation(runner, set_file):
    p = read_set(set_file)["puzzles"][0]
    wrong = next(c for c in hand_of(p) if c != p["solution"])
    result = invoke(runner, "puzzles", "quiz", set_file, "--count", "1", input=f"{wrong}\n")
    assert_ok(result)
    assert "correct!" not in result.stdout
    assert "not quite" in result.stdout
    assert p["explanation"] in result.stdout
    regret = p["values"][str(wrong)] - p["values"][str(p["solution"])]
    assert f"{regret:.3g}" in result.stdout
    assert "final score: 0/1" in result.stdout


def test_quiz_invalid_answers_are_asked_again(runner, set_file):
    p = read_set(set_file)["puzzles"][0]
    not_in_hand = next(c for c in range(1, 105) if c not in hand_of(p))
    answers = [str(not_in_hand), "abc", "", str(p["solution"])]
    result = invoke(runner, "puzzles", "quiz", set_file, "--count", "1",
                    input="\n".join(answers) + "\n")
    assert_ok(result)
    assert f"'{not_in_hand}' is not in your hand" in result.stdout
    assert "'abc' is not in your hand" in result.stdout
    prompt = f"your card ({', '.join(map(str, hand_of(p)))})"
    assert result.stdout.count(prompt) >= 3  # asked again after each invalid answer
    assert result.stdout.count("correct!") == 1
    assert "final score: 1/1" in result.stdout


def test_quiz_end_of_input_prints_the_final_score(runner, set_file):
    puzzles = read_set(set_file)["puzzles"]
    first, second = puzzles[0], puzzles[1]
    wrong = next(c for c in hand_of(second) if c != second["solution"])
    # right, wrong, then the input ends at the third puzzle
    result = invoke(runner, "puzzles", "quiz", set_file, input=f"{first['solution']}\n{wrong}\n")
    assert_ok(result)
    assert "Traceback" not in result.stderr
    assert result.stdout.count("correct!") == 1
    assert result.stdout.count("not quite") == 1
    assert "score: 1/1" in result.stdout and "score: 1/2" in result.stdout
    assert result.stdout.rstrip().endswith("final score: 1/2")
    assert result.stdout.count("final score") == 1


def test_quiz_score_counts_every_answer(runner, set_file):
    puzzles = read_set(set_file)["puzzles"]
    answers = [puzzles[0]["solution"],
               next(c for c in hand_of(puzzles[1]) if c != puzzles[1]["solution"]),
               puzzles[2]["solution"]]
    result = invoke(runner, "puzzles", "quiz", set_file,
                    input="".join(f"{a}\n" for a in answers))
    assert_ok(result)
    assert [line for line in result.stdout.splitlines() if line.startswith("score:")] == \
        ["score: 1/1", "score: 1/2", "score: 2/3"]
    assert result.stdout.rstrip().endswith("final score: 2/3")


def test_quiz_empty_input_scores_zero_of_zero(runner, set_file):
    result = invoke(runner, "puzzles", "quiz", set_file, input="")
    assert_ok(result)
    assert result.stdout.rstrip().endswith("final score: 0/0")


# ---------------------------------------------------------------- show and list

def test_show_by_id_and_by_number(runner, set_file):
    puzzles = read_set(set_file)["puzzles"]
    by_id = invoke(runner, "puzzles", "show", set_file, puzzles[1]["id"], "--solution")
    by_number = invoke(runner, "puzzles", "show", set_file, "2", "--solution")
    assert_ok(by_id)
    assert_ok(by_number)
    assert by_id.stdout == by_number.stdout
    assert puzzles[1]["id"] in by_id.stdout and puzzles[1]["explanation"] in by_id.stdout
    assert f"solution: {puzzles[1]['solution']}" in by_id.stdout
    plain = invoke(runner, "puzzles", "show", set_file, "2")
    assert_ok(plain)
    assert "solution:" not in plain.stdout and puzzles[1]["explanation"] not in plain.stdout
    assert_one_line_error(invoke(runner, "puzzles", "show", set_file, "no-such-id"))
    assert_one_line_error(invoke(runner, "puzzles", "show", set_file, str(COUNT + 1)))


def test_list_a_set_file(runner, set_file):
    result = invoke(runner, "puzzles", "list", set_file)
    assert_ok(result)
    for p in read_set(set_file)["puzzles"]:
        assert p["id"] in result.stdout


# ---------------------------------------------------------------- export

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class StrictHTML(HTMLParser):
    """Records an error for any end tag that does not close the innermost open element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def check_html(text: str, puzzles: list[dict]) -> None:
    parser = StrictHTML()
    parser.feed(text)
    parser.close()
    assert parser.errors == [], parser.errors[:5]
    assert parser.stack == [], f"unclosed: {parser.stack}"
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert parser.tags.count("section") == len(puzzles)
    assert parser.tags.count("h2") == len(puzzles)
    assert "script" not in parser.tags  # the command string from the file is escaped
    svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
    assert len(svgs) == len(puzzles)
    for svg, p in zip(svgs, puzzles):
        root = ET.fromstring(svg)
        assert root.tag == SVG_NS + "svg"
        drawn = {t.text for t in root.iter(SVG_NS + "text")}
        position = parse_position(p["position"])
        for card in position.hand:
            assert str(card) in drawn
    for p in puzzles:
        assert p["id"] in text
        assert f"<strong>{p['solution']}</strong>" in text


def check_markdown(text: str, puzzles: list[dict]) -> None:
    lines = text.splitlines()
    assert lines[0].startswith("# ")
    headings = [line for line in lines if line.startswith("## ")]
    assert len(headings) == len(puzzles)
    for n, (heading, p) in enumerate(zip(headings, puzzles), 1):
        assert heading.startswith(f"## {n}. ") and p["id"] in heading
    assert sum(1 for line in lines if line.startswith("```")) % 2 == 0
    assert text.count("<details>") == text.count("</details>") == len(puzzles)
    uris = re.findall(r"\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", text)
    assert len(uris) == len(puzzles)
    for uri, p in zip(uris, puzzles):
        svg = base64.b64decode(uri, validate=True)
        root = ET.fromstring(svg)
        assert root.tag == SVG_NS + "svg"
        assert svg.decode("utf-8") == rows_svg(parse_position(p["position"]))


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_export_is_well_formed(runner, set_file, fmt):
    puzzles = read_set(set_file)["puzzles"]
    result = invoke(runner, "puzzles", "export", set_file, "--format", fmt)
    assert_ok(result)
    (check_html if fmt == "html" else check_markdown)(result.stdout, puzzles)


@pytest.mark.parametrize("name", ["nash-2p-k3", "worst-3p-k3-hidden", "random-2p-k4",
                                  "worst-2p-k3-logic-professional"])
def test_export_functions_for_every_model(name):
    puzzles = puzzles_for(CASES[name])
    data = PuzzleSet(tuple(puzzles), command="nimmt puzzles generate --seed 1")
    check_html(render.export_html(data), as_set(puzzles)["puzzles"])
    check_markdown(render.export_markdown(data), as_set(puzzles)["puzzles"])
    for p in puzzles:  # the text renderings name the solution too
        assert str(p.solution) in render.solution(p)
        assert p.id in render.board(p)


@pytest.mark.parametrize("fmt, suffix", [("html", ".html"), ("markdown", ".md")])
def test_export_output_is_written_atomically(runner, set_file, fmt, suffix):
    out = set_file.parent / f"puzzles{suffix}"
    result = invoke(runner, "puzzles", "export", set_file, "--format", fmt, "--output", out)
    assert_ok(result)
    assert out.is_file()
    assert sorted(os.listdir(set_file.parent)) == sorted(["set.json", out.name])
    text = out.read_text(encoding="utf-8")
    stdout = invoke(runner, "puzzles", "export", set_file, "--format", fmt).stdout
    assert text == stdout.removesuffix("\n")
    # overwriting works and still leaves nothing behind
    assert_ok(invoke(runner, "puzzles", "export", set_file, "--format", fmt, "--output", out))
    assert sorted(os.listdir(set_file.parent)) == sorted(["set.json", out.name])
    # a missing folder is a one-line error and writes nothing
    assert_one_line_error(invoke(runner, "puzzles", "export", set_file, "--format", fmt,
                                 "--output", set_file.parent / "nowhere" / out.name))


def test_rows_svg_draws_only_the_cards_on_the_table_and_in_hand():
    position = parse_position("variant=tactical players=2 rows=3,7,12/20/14/17 hand=1,15,22 "
                              "gone=2,4,5,6,8,9,10,11,13,16,18,19")
    root = ET.fromstring(rows_svg(position))
    numbers = [t.text for t in root.iter(SVG_NS + "text") if t.get("font-size") == "18"]
    expected = [str(c) for row in position.rows for c in row] + [str(c) for c in position.hand]
    assert numbers == expected


# ---------------------------------------------------------------- the set file

def test_generate_command_writes_the_set_file(runner, tmp_path):
    out = tmp_path / "mine.json"
    result = invoke(runner, "puzzles", "generate", "--players", "2", "--cards-left", "4",
                    "--count", "2", "--seed", "7", "--output", out)
    assert_ok(result)
    assert os.listdir(tmp_path) == ["mine.json"]  # no temporary file left behind
    data = read_set(out)
    assert data["format"] == "nimmt-puzzles" and data["version"] == 1
    assert isinstance(data["command"], str) and data["command"].startswith("nimmt puzzles generate")
    assert "--seed 7" in data["command"]
    assert len(data["puzzles"]) == 2
    for p in data["puzzles"]:
        for key in DESIGN_KEYS:
            assert key in p
    # the same as the library with the same settings
    settings = Settings("tactical", 2, "normal", 4, "worst", DEFAULT_MARGIN["worst"], False, 7)
    assert data["puzzles"] == as_set(puzzles_for(settings, 2))["puzzles"]
    assert files.load_set(str(out)).to_json() == data
    # the recorded command reproduces the set
    args = data["command"].split()[1:] + ["--output", str(tmp_path / "again.json")]
    assert_ok(invoke(runner, *args))
    assert read_set(tmp_path / "again.json")["puzzles"] == data["puzzles"]


def test_generate_command_refuses_bad_settings(runner, tmp_path):
    out = tmp_path / "x.json"
    assert_one_line_error(invoke(runner, "puzzles", "generate", "--players", "3", "--model", "nash",
                                 "--cards-left", "3", "--output", out))
    assert_one_line_error(invoke(runner, "puzzles", "generate", "--players", "2",
                                 "--variant", "standard", "--output", out))
    assert_one_line_error(invoke(runner, "puzzles", "generate", "--players", "2",
                                 "--min-margin", "-1", "--output", out))
    assert not out.exists()


def test_save_set_writes_format_version_and_command(tmp_path):
    data = as_set(puzzles_for(CASES["worst-2p-k4"]))
    path = tmp_path / "s.json"
    files.save_set(data, str(path))
    assert os.listdir(tmp_path) == ["s.json"]
    written = read_set(path)
    assert written["format"] == "nimmt-puzzles" and written["version"] == 1
    assert isinstance(written["command"], str)
    assert written == data
    assert files.load_set(str(path)).to_json() == data


@pytest.mark.parametrize("change, message", [
    ({"format": "something-else"}, "not a nimmt puzzle set"),
    ({"format": None}, "not a nimmt puzzle set"),
    ({"version": 2}, "version"),
    ({"version": "1"}, "version"),
    ({"puzzles": "none"}, "no puzzle list"),
])
def test_load_set_rejects_a_wrong_header(tmp_path, change, message):
    data = {**as_set(puzzles_for(CASES["worst-2p-k4"])), **change}
    path = tmp_path / "s.json"
    write_set(path, data)
    with pytest.raises(NimmtError, match=message):
        files.load_set(str(path))
    with pytest.raises(NimmtError):
        files.save_set(data, str(tmp_path / "t.json"))
    assert not (tmp_path / "t.json").exists()


def test_load_set_rejects_a_puzzle_without_a_required_key(tmp_path):
    data = as_set(puzzles_for(CASES["worst-2p-k4"]))
    del data["puzzles"][1]["solution"]
    path = tmp_path / "s.json"
    write_set(path, data)
    with pytest.raises(NimmtError, match="puzzle 2 lacks solution"):
        files.load_set(str(path))


def test_load_set_rejects_non_json_and_missing_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(NimmtError, match="cannot read"):
        files.load_set(str(bad))
    with pytest.raises(NimmtError, match="no puzzle set"):
        files.load_set(str(tmp_path / "missing.json"))
    with pytest.raises(NimmtError, match="no puzzle set"):
        files.load_set("no-such-shipped-set")


COMMANDS = [("list",), ("show",), ("quiz",), ("check",), ("export", "--format", "html"),
            ("export", "--format", "markdown")]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c))
@pytest.mark.parametrize("kind", ["missing", "bad-json", "wrong-format", "wrong-version",
                                  "empty", "directory"])
def test_commands_on_a_bad_file_fail_in_one_line(runner, tmp_path, command, kind):
    path = tmp_path / "s.json"
    if kind == "bad-json":
        path.write_text('{"format": "nimmt-puzzles", "version": 1, "puzzles": [', encoding="utf-8")
    elif kind == "wrong-format":
        write_set(path, {"format": "nimmt-game", "version": 1, "puzzles": []})
    elif kind == "wrong-version":
        write_set(path, {"format": "nimmt-puzzles", "version": 99, "puzzles": []})
    elif kind == "empty":
        path.write_text("", encoding="utf-8")
    elif kind == "directory":
        path.mkdir()
    result = invoke(runner, "puzzles", command[0], path, *command[1:], input="")
    assert_one_line_error(result)


MALFORMED = ("unknown-model", "non-numeric-value-key")


def _malformed_cases():
    for kind in MALFORMED:
        for command in COMMANDS[1:]:
            yield pytest.param(command, kind, id=f"{kind}-{'-'.join(command)}")


@pytest.mark.parametrize("command, kind", list(_malformed_cases()))
def test_commands_on_a_malformed_puzzle_fail_cleanly(runner, set_file, command, kind):
    """A set whose header is right but one puzzle is malformed: a one-line error (exit 2), or,
    for check, that puzzle reported as not holding (exit 1); never an uncaught exception."""
    data = read_set(set_file)
    target = data["puzzles"][0]
    if kind == "unknown-model":
        target["model"] = "foo"
    else:
        target["values"]["x"] = 1.0
    write_set(set_file, data)
    args = list(command) + (["--solution"] if command == ("show",) else [])
    result = invoke(runner, "puzzles", args[0], set_file, *args[1:],
                    input=f"{target['solution']}\n")
    if command == ("check",) and result.exit_code == 1:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
        assert any(line.startswith(target["id"] + ":") for line in result.stdout.splitlines())
    else:
        assert_one_line_error(result)


# ---------------------------------------------------------------- shipped sets

def checkout_set_names() -> list[str]:
    return sorted(p.stem for p in SETS_DIR.glob("*.json"))


def test_shipped_sets_are_there_with_at_least_30_puzzles_each():
    shipped = files.shipped_sets()
    assert len(shipped) >= 3, f"shipped sets: {sorted(shipped)}"
    assert sorted(shipped) == checkout_set_names()
    for name in shipped:
        data = files.load_set(name).to_json()
        assert data["format"] == "nimmt-puzzles" and data["version"] == 1
        assert isinstance(data["command"], str) and data["command"].startswith("nimmt puzzles")
        assert len(data["puzzles"]) >= 30, (name, len(data["puzzles"]))
        assert len({p["id"] for p in data["puzzles"]}) == len(data["puzzles"])
        for p in data["puzzles"]:
            for key in DESIGN_KEYS:
                assert key in p, (name, p.get("id"), key)
            assert sorted(int(c) for c in p["values"]) == \
                sorted(parse_position(p["position"]).hand)
    # the set named in the help examples exists
    assert "two-player-endgames" in shipped


def test_list_without_a_file_lists_the_shipped_sets(runner):
    shipped = files.shipped_sets()
    assert len(shipped) >= 3
    result = invoke(runner, "puzzles", "list")
    assert_ok(result)
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:]
            if line.strip()}
    assert sorted(rows) == sorted(shipped)
    for name in shipped:
        count = int(rows[name][1])
        assert count == len(json.loads(shipped[name])["puzzles"]) and count >= 30


# `puzzles check` re-solves every puzzle of a set (2-8 s a set): the default run checks
# these two sets (the equilibrium's and the professional placement's), `pytest -m slow`
# every set shipped
CHECKED_BY_DEFAULT = ("professional", "two-player-equilibrium")


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[] if name in CHECKED_BY_DEFAULT else [pytest.mark.slow])
    for name in files.shipped_sets()])
def test_check_passes_on_every_shipped_set(runner, name):
    assert set(CHECKED_BY_DEFAULT) <= set(files.shipped_sets())
    n = len(json.loads(files.shipped_sets()[name])["puzzles"])
    result = invoke(runner, "puzzles", "check", name)
    assert_ok(result)
    assert f"{n} of {n} puzzles hold" in result.stdout, (name, result.stdout)


def test_shipped_sets_show_and_export(runner):
    for name in files.shipped_sets():
        data = files.load_set(name)
        result = invoke(runner, "puzzles", "show", name, "1", "--solution")
        assert_ok(result)
        assert data.puzzles[0].explanation in result.stdout
        check_html(render.export_html(data), data.to_json()["puzzles"])


def _copy_source(destination: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    destination.mkdir()
    for name in ("pyproject.toml", "README.md", "cli.py"):
        shutil.copy2(ROOT / name, destination / name)
    for package in ("solver", "puzzles"):
        shutil.copytree(ROOT / package, destination / package, ignore=ignore)


def _build_wheel(source: Path, out: Path) -> Path:
    """pip wheel --no-deps; without build isolation when the venv has what the build needs."""
    base = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
            "-w", str(out), str(source)]
    attempts = [base[:5] + ["--no-build-isolation"] + base[5:], base]
    log = []
    for command in attempts:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
        wheels = list(out.glob("nimmt-*.whl"))
        if proc.returncode == 0 and wheels:
            return wheels[0]
        log.append(f"$ {' '.join(command)}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    pytest.fail("could not build the wheel:\n" + "\n".join(log))


def test_shipped_sets_load_from_an_installed_wheel(tmp_path):
    source = tmp_path / "src"
    _copy_source(source)  # build from a copy: no build/ folder appears in the checkout
    names = sorted(p.stem for p in (source / "puzzles" / "sets").glob("*.json"))
    assert len(names) >= 3
    wheel = _build_wheel(source, tmp_path / "dist")
    with zipfile.ZipFile(wheel) as z:
        members = z.namelist()
        z.extractall(tmp_path / "installed")
    in_wheel = sorted(m.removeprefix("nimmt/puzzles/sets/").removesuffix(".json") for m in members
                      if re.fullmatch(r"nimmt/puzzles/sets/[^/]+\.json", m))
    assert in_wheel == names
    assert "nimmt/puzzles/files.py" in members and "nimmt/cli.py" in members
    # every import name lives under nimmt: nothing generic (solver, puzzles, cli) at the top
    dist_info = wheel.name.split("-py")[0] + ".dist-info"
    assert {m.split("/")[0] for m in members} == {"nimmt", dist_info}

    site_dirs = [d for d in site.getsitepackages() if os.path.isdir(d)]
    code = textwrap.dedent("""
        import json, sys
        root = sys.argv[1]
        sys.path[:0] = [root]
        sys.path += json.loads(sys.argv[2])
        import nimmt.puzzles.files as f
        assert f.__file__.startswith(root), f.__file__
        sets = f.shipped_sets()
        counts = {name: len(f.load_set(name).puzzles) for name in sets}
        print(json.dumps({"file": f.__file__, "counts": counts}))
    """)
    # unpacked as pip installs it (nimmt is a namespace package: zipimport cannot import
    # one from the wheel file itself, and no installer does)
    for root in (tmp_path / "installed",):
        # -I: no current folder or PYTHON* variables; -S: no .pth files, so not the editable
        # install of the checkout (site-packages are added by hand for the dependencies)
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(root),
                               json.dumps(site_dirs)],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["file"].startswith(str(root)) and str(ROOT) not in out["file"]
        assert sorted(out["counts"]) == names
        assert all(n >= 30 for n in out["counts"].values()), out["counts"]
