"""The board in a real headless Chromium: `nimmt board example` started as a user starts it,
the page's badges read and held against `nimmt analyse --format json`, a card clicked, a
bad position pasted, and Ctrl-C on the terminal. Debian's chromium is needed (.ci/run
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


@pytest.fixture(scope="module")
def board(compiled_kernels):
    process = subprocess.Popen([sys.executable, "-m", "nimmt.cli", "board", "example",
                                "--no-browser"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    url = re.search(r"http://\S+", line)
    assert url, (line, process.stderr.read() if process.poll() is not None else "")
    yield process, url.group(0)
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def page(board):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        # the page forbids eval (its CSP); the test's own waits evaluate expressions
        page = browser.new_page(viewport={"width": 1200, "height": 760}, bypass_csp=True)
        page.goto(board[1])
        yield page
        browser.close()


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


def test_a_pasted_bad_position_shows_the_cli_s_line(page):
    page.fill("#notation", "variant=tactical players=2 rows=1/2/3 hand=9")
    page.click("#load button")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "rows has 3 rows; give exactly 4 rows separated by '/'"
    page.select_option("#examples", "example-3p")
    page.wait_for_function("document.querySelectorAll('#hand .card').length == 4")
    assert page.is_hidden("#error")


def test_monte_carlo_on_the_board_matches_the_cli(page):
    page.select_option("#examples", "example-3p")
    page.wait_for_function("document.querySelectorAll('#hand .card').length == 4")
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
