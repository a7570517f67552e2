"""The board in a real headless Chromium: `nimmt board example` started as a user starts it,
the page's badges read and held against `nimmt analyse --format json`, a card clicked, a
bad position pasted, and Ctrl-C on the terminal; `nimmt board GAME` stepped through a game
and its review's marks held against `nimmt review --format json`, a puzzle answered by a
click, and the review's mistakes opened as puzzles. Debian's chromium is needed (.ci/run
installs it); without it the module is skipped, saying so."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium "
                                "(apt-get install chromium; .ci/run installs it)")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = os.environ.get("NIMMT_BOARD_SCREENSHOTS")  # a folder: the docs' screenshots are made


def start_board(source):
    """``nimmt board SOURCE --no-browser`` as a user starts it: the process and its address."""
    process = subprocess.Popen([sys.executable, "-m", "nimmt.cli", "board", source,
                                "--no-browser"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    url = re.search(r"http://\S+", line)
    assert url, (line, process.stderr.read() if process.poll() is not None else "")
    return process, url.group(0)


def stop(process):
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def board(compiled_kernels):
    process, url = start_board("example")
    yield process, url
    stop(process)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


def open_page(browser, url, height=760):
    # the page forbids eval (its CSP); the test's own waits evaluate expressions
    page = browser.new_page(viewport={"width": 1200, "height": height}, bypass_csp=True)
    page.set_default_timeout(120_000)   # a loaded machine compiles and searches slowly
    page.goto(url)
    return page


@pytest.fixture(scope="module")
def page(board, browser):
    page = open_page(browser, board[1])
    yield page
    page.close()


def cli_json(*args):
    done = subprocess.run([sys.executable, "-m", "nimmt.cli", "analyse", *args, "--format",
                           "json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_example_s_cards_are_badged_with_the_cli_s_values(page):
    page.wait_for_selector("body[data-state=done]", timeout=120_000)
    badges = page.eval_on_selector_all(
        "#hand .badge", "els => els.map(e => [Number(e.parentElement.dataset.card), "
        "Number(e.dataset.value), Number(e.dataset.regret)])")
    theirs = cli_json("example", "--seed", "1")
    assert sorted(map(tuple, badges)) == sorted((c["card"], c["value"], c["regret"])
                                    for c in theirs["cards"])
    best = min(theirs["cards"], key=lambda c: c["regret"])["card"]
    assert page.inner_text(f"#hand .card[data-card='{best}'] .badge").endswith("best")
    page.click(f"#hand .card[data-card='{best}']")
    assert f"card {best}" in page.inner_text("#detail")
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "board-position.png"))


def test_a_card_is_played_out_and_the_tree_drawn(page):
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.line import principal_line

    page.wait_for_selector("body[data-state=done]", timeout=120_000)
    page.click("#hand .card[data-card='14']")
    page.click("#play-out")
    page.wait_for_selector("#line table", timeout=120_000)
    rows = page.eval_on_selector_all(
        "#line table tr", "els => els.slice(1).map(e => [...e.cells].map(c => c.innerText))")
    line = principal_line(load_position("example"), 14, "random")
    assert [(int(r[1]), r[2].split("\n")[0], int(r[3] or 0)) for r in rows] == \
        [(t.card, t.label, t.cows) for t in line]
    page.select_option("#tree-depth", "1")
    page.click("#tree-go")
    page.wait_for_selector("#tree details", timeout=120_000)
    assert page.eval_on_selector_all("#tree > details > details, #tree > details > div",
                                     "els => els.length") == 5   # a card each
    assert "★ play 18" in page.inner_text("#tree")   # the best card, as the badges say


def test_a_position_is_edited_by_clicking(page):
    page.select_option("#examples", "example")
    page.wait_for_function("document.querySelectorAll('#hand .card').length == 5")
    page.click("#edit-box summary")
    page.wait_for_selector("#edit-palette .card[data-card='24']")
    page.check("input[name=edit-target][value=gone]")
    page.click("#edit-palette .card[data-card='4']")    # from the hand
    page.click("#edit-apply")
    page.wait_for_selector("#error:not([hidden])")       # the hands differ now: refused
    assert "every player holds the same number of cards" in page.inner_text("#error")
    page.click("#edit-palette .card[data-card='2']")    # from player 2's hand
    page.click("#edit-apply")
    page.wait_for_function("document.querySelectorAll('#hand .card').length == 4")
    assert page.input_value("#notation") == (
        "variant=tactical players=2 rows=3,6/5,10/8,11,21/16,19,23 hand=14,15,18,20 "
        "p2=13,17,22,24 gone=1,2,4,7,9,12")
    assert page.is_hidden("#error")


def test_a_pasted_bad_position_shows_the_cli_s_line(page):
    page.fill("#notation", "variant=tactical players=2 rows=1/2/3 hand=9")
    page.click("#load button")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "rows has 3 rows; give exactly 4 rows separated by '/'"
    page.select_option("#examples", "example-3p")
    page.wait_for_function("document.querySelector('#notation').value.includes('players=3')")
    assert page.is_hidden("#error"), page.inner_text("#error")


def test_monte_carlo_on_the_board_matches_the_cli(page):
    page.select_option("#examples", "example-3p")
    page.wait_for_function("document.querySelector('#notation').value.includes('players=3')")
    page.select_option("#method", "montecarlo")
    page.fill("#samples", "300")
    page.fill("#seed", "7")
    page.click("#go")
    page.wait_for_function("document.body.dataset.state == 'done' && "
                           "document.querySelectorAll('#hand .badge[data-value]').length == 4",
                           timeout=120_000)
    badges = page.eval_on_selector_all(
        "#hand .badge", "els => els.map(e => [Number(e.parentElement.dataset.card), "
        "Number(e.dataset.value)])")
    theirs = cli_json("example-3p", "--method", "montecarlo", "--samples", "300", "--seed", "7")
    assert sorted(map(tuple, badges)) == sorted((c["card"], c["value"]) for c in theirs["cards"])
    assert "±" in page.inner_text("#hand")


def test_a_row_choice_badges_each_row(page):
    example = ("variant=tactical players=2 rows=3,6/5,10/8,11,21/16,19,23 hand=4,14,15,18,20 "
               "p2=2,13,17,22,24 gone=1,7,9,12 turn=4,13")
    page.fill("#notation", example)
    page.click("#load button")
    page.wait_for_function("document.querySelector('#facts').textContent.includes('row choice')")
    page.select_option("#opponents", "worst")
    page.click("#go")
    page.wait_for_function("document.querySelectorAll('#rows .badge.choice').length == 4",
                           timeout=120_000)
    rows = page.eval_on_selector_all(
        "#rows .row", "els => els.map(e => Number(e.querySelector('.badge.choice')"
        ".dataset.value))")
    theirs = cli_json(example, "--opponents", "worst")["choices"]
    assert rows == [next(c["value"] for c in theirs if c["take_row"] == r) for r in range(4)]
    assert page.inner_text("#rows .row:nth-child(4) .badge.choice").endswith("best")
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "board-row-choice.png"))


def test_ctrl_c_on_the_terminal_stops_the_board_with_130(board, page):
    process, _ = board
    process.send_signal(signal.SIGINT)
    try:
        code = process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
    assert code == 130 and process.stderr.read().strip().endswith("nimmt: interrupted")
    time.sleep(0.1)


# ---------------------------------------------------------------- a game and puzzles

@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games")
    subprocess.run([sys.executable, "-m", "nimmt.cli", "simulate", "--variant", "tactical",
                    "--players", "2", "--bots", "random,closest", "--games", "1",
                    "--one-round", "--seed", "5", "--save-games", str(folder)],
                   check=True, capture_output=True)
    return str(next(folder.glob("*.json")))


@pytest.fixture(scope="module")
def game_page(compiled_kernels, game_file, browser):
    process, url = start_board(game_file)
    page = open_page(browser, url, height=900)
    yield page
    page.close()
    stop(process)


def test_a_game_step_shows_the_turn_and_the_review_s_marks(game_page, game_file):
    page = game_page
    page.wait_for_selector("#game-seats .seat")
    assert page.is_visible("#view-game") and page.is_hidden("#view-position")
    record = json.loads(open(game_file).read())
    for turn in range(3):   # step by step: each seat's played card is the record's
        played = page.eval_on_selector_all("#game-seats .card.played",
                                           "els => els.map(e => Number(e.dataset.card))")
        assert played == record["rounds"][0]["turns"][turn]["cards"]
        page.click("#game-next")
    page.select_option("#review-opponents", "worst")
    page.fill("#review-from", "5")
    page.click("#review-go")
    page.wait_for_function("document.body.dataset.review == 'done'", timeout=300_000)
    done = subprocess.run([sys.executable, "-m", "nimmt.cli", "review", game_file,
                           "--opponents", "worst", "--from-turn", "5", "--seed", "0",
                           "--format", "json"], capture_output=True, text=True, check=True)
    theirs = json.loads(done.stdout)["decisions"]
    page.click("#game-last")
    for _ in range(4):
        page.click("#game-prev")   # turn 6: a card each, judged
    assert "turn 6 of 10" in page.inner_text("#game-where")
    marks = page.eval_on_selector_all(
        "#game-seats .seat", "els => els.map(e => [Number(e.dataset.player), "
        "e.querySelector('.card.played .badge.mark')?.dataset.label])")
    assert marks == [[d["player"], d["label"]] for d in theirs
                     if d["turn"] == 6 and d["kind"] == "card"]
    assert page.is_visible("#review-picture")
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "board-game.png"))


def test_a_puzzle_is_answered_by_a_click(game_page):
    from nimmt.puzzles.files import load_set

    page = game_page
    page.click("#tabs button[data-view=puzzles]")
    page.wait_for_selector("#puzzle-hand .card")
    shown = load_set(page.input_value("#puzzle-set"))
    number = int(page.inner_text("#puzzle-number"))
    puzzle = shown.puzzles[number - 1]
    wrong = next(c for c in puzzle.cards if puzzle.values[c] > puzzle.values[puzzle.solution])
    page.click(f"#puzzle-hand .card[data-card='{wrong}']")
    page.wait_for_selector(".verdict")
    loss = puzzle.values[wrong] - puzzle.values[puzzle.solution]
    assert page.inner_text(".verdict") == \
        f"Not quite: {wrong} costs {loss:.3f} more than {puzzle.solution}."
    assert puzzle.explanation in page.inner_text("#puzzle-answer")
    assert page.inner_text(f"#puzzle-hand .card[data-card='{puzzle.solution}'] .badge") \
        .endswith("best")
    page.click("#puzzle-next")
    number = int(page.inner_text("#puzzle-number"))
    puzzle = shown.puzzles[number - 1]
    page.click(f"#puzzle-hand .card[data-card='{puzzle.solution}']")
    page.wait_for_selector(".verdict.right")
    assert page.inner_text("#puzzle-score") == "score: 1/2"


def test_the_puzzles_chosen_by_theme_and_difficulty(game_page):
    from nimmt.puzzles.files import load_set, select_puzzles, set_themes

    page = game_page
    page.select_option("#puzzle-set", "two-player-endgames")
    page.wait_for_function("document.querySelector('#puzzle-count').textContent"
                           ".endsWith('of two-player-endgames')")
    data = load_set("two-player-endgames")
    themes = set_themes(data)[:2]
    for theme in themes:
        page.check(f"#puzzle-themes input[value='{theme}']")
    page.fill("#puzzle-difficulty", "3..")
    page.click("#puzzle-filter button")
    chosen = select_puzzles(data, themes, (3, None))
    page.wait_for_function(f"document.querySelector('#puzzle-count').textContent"
                           f".startsWith('{len(chosen)} of')")
    assert int(page.inner_text("#puzzle-number")) == data.puzzles.index(chosen[0]) + 1
    if SHOTS:
        page.click(f"#puzzle-hand .card[data-card='{chosen[0].solution}']")
        page.wait_for_selector(".verdict")
        page.screenshot(path=os.path.join(SHOTS, "board-puzzles.png"))


def test_the_review_s_mistakes_open_as_puzzles(game_page):
    page = game_page
    page.click("#tabs button[data-view=game]")
    page.click("#review-puzzles")
    page.wait_for_function("document.body.dataset.view == 'puzzles'", timeout=300_000)
    assert page.input_value("#puzzle-set") == "mistakes"
    assert "from the game" in page.inner_text("#puzzle-facts")
    assert page.is_visible("#puzzle-save")


def test_a_game_is_played_against_a_bot_with_a_hint(game_page):
    page = game_page
    page.click("#tabs button[data-view=play]")
    page.fill("#play-bots", "closest")
    page.check("#play-one-round")
    page.fill("#play-seed", "4")
    page.click("#play-start")
    page.wait_for_function("document.body.dataset.play == 'card'")
    assert page.eval_on_selector_all("#play-hand .card", "els => els.length") == 10
    page.click("#play-hint")
    page.wait_for_function("document.querySelectorAll('#play-hand .badge[data-value]')"
                           ".length == 10", timeout=120_000)
    notation = page.evaluate("fetch('/api/play', {headers: {'X-Nimmt-Token': "
                             "new URLSearchParams(location.search).get('token')}})"
                             ".then(r => r.json()).then(s => s.notation)")
    theirs = cli_json(notation, "--opponents", "closest", "--time-limit", "10", "--seed", "1")
    badges = page.eval_on_selector_all(
        "#play-hand .badge", "els => els.map(e => [Number(e.parentElement.dataset.card), "
        "Number(e.dataset.value)])")
    assert sorted(map(tuple, badges)) == sorted((c["card"], c["value"]) for c in theirs["cards"])
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "board-play.png"))
    for _ in range(40):   # the first card each turn, the first option at a row choice
        kind = page.evaluate("document.body.dataset.play")
        if kind == "over":
            break
        page.click("#play-hand .card >> nth=0" if kind == "card" else
                   "#play-options button >> nth=0")
        page.wait_for_function(f"document.body.dataset.play != '{kind}' || "
                               "document.querySelector('#play-hint').disabled == false")
    assert page.evaluate("document.body.dataset.play") == "over"
    assert "game over" in page.inner_text("#play-log")
    page.click("#play-review")
    page.wait_for_function("document.body.dataset.view == 'game'")
    assert "you, closest" in page.inner_text("#game-title")
    assert "step 1 of 10" in page.inner_text("#game-where")
