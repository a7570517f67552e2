"""`nimmt play` driven by scripted input: a whole round with a row
choice, hint, why, undo; quit and the end of input save the record."""
from __future__ import annotations

import pytest
from helpers import row_choice_deal

from nimmt.solver.base.rules import Rules, card_cows
from nimmt.solver.players.bots import BotSpec, parse_bot
from nimmt.solver.players.play import hint_model, rows_text
from nimmt.solver.players.records import load_record, replay
from nimmt.solver.players.seats import deal_cards

from cli_checks import assert_ok, assert_one_line_error, invoke

RULES = Rules("tactical", 2, one_round=True)


def play(runner, tmp_path, seed, lines):
    path = tmp_path / "game.json"
    result = invoke(runner, "play", "--players", 2, "--bots", "closest", "--one-round",
                    "--seed", seed, "--record", path, "--hint-time", 0.5,
                    input="".join(f"{line}\n" for line in lines))
    return result, path


def test_a_whole_round_with_a_row_choice_hint_why_and_undo(runner, tmp_path):
    seed, hand = row_choice_deal()
    low, other = hand[0], hand[1]
    rest = [c for c in hand if c != low]
    lines = ["hint", f"why {hand[-1]}", "99", other, "", "undo", low, "2"]
    for card in list(reversed(rest))[:-1]:  # the last card is played without asking
        lines += [card, ""]  # an empty line answers a row prompt with the rule's choice
    result, path = play(runner, tmp_path, seed, lines)
    assert_ok(result)
    out = result.output
    assert "expected cows" in out and "regret" in out  # the hint's table
    assert f"{hand[-1]}: " in out and "expected cows to the end" in out  # why
    assert "type a card of your hand" in out  # 99
    assert "undone: your last card" in out
    assert f"your {low} is lower than every row end: take a row" in out
    assert "you took row 2" in out
    assert "round 1: you" in out and "game over" in out
    assert f"nimmt review {path}" in out
    record = load_record(str(path))
    assert "complete" not in record
    turns = record["rounds"][0]["turns"]
    assert len(turns) == 10
    assert turns[0]["cards"][0] == low and turns[0]["take_rows"] == [1, -1]
    assert [t["cards"][0] for t in turns[1:]] == list(reversed(rest))
    assert record["names"] == ["you", "closest"]
    assert list(replay(record)[0].cows) == record["scores"]


def test_quit_and_end_of_input_save_the_record(runner, tmp_path):
    seed, hand = row_choice_deal()
    for lines in ([hand[-1], "", "quit"], [hand[-1], ""]):
        result, path = play(runner, tmp_path, seed, lines)
        assert_ok(result)
        record = load_record(str(path))
        assert record["complete"] is False
        assert [t["cards"][0] for t in record["rounds"][0]["turns"]] == [hand[-1]]


def test_play_bad_options(runner, tmp_path):
    line = assert_one_line_error(invoke(runner, "play", "--players", 3, "--bots",
                                        "closest,random,random"))
    assert "--bots names 3 bots for --players 3" in line
    assert "unknown bot" in assert_one_line_error(invoke(runner, "play", "--players", 2,
                                                         "--bots", "nobody"))


def test_ctrl_c_saves_the_record(runner, tmp_path, monkeypatch):
    """Ctrl-C (here: inside a hint) stops the game, saves the record, exit status 130."""
    from nimmt.solver.players import play as playing

    def interrupted(self, position):
        raise KeyboardInterrupt

    monkeypatch.setattr(playing.HumanGame, "hint", interrupted)
    seed, hand = row_choice_deal()
    result, path = play(runner, tmp_path, seed, [hand[-1], "", "hint"])
    assert result.exit_code == 130, result.output
    assert "saved the game record" in result.output
    assert result.stderr.splitlines()[-1] == "nimmt: interrupted"
    record = load_record(str(path))
    assert record["complete"] is False and len(record["rounds"][0]["turns"]) == 1


def test_the_row_prompt_shows_the_turn_and_offers_a_hint(runner, tmp_path):
    """The cards revealed this turn come before the row question (the chooser sees them);
    hint there values each option: the cows the row costs now plus the best card after."""
    seed, hand = row_choice_deal()
    low = hand[0]
    rows = deal_cards(RULES, seed, 0, 0)[0]
    result, path = play(runner, tmp_path, seed, [low, "hint", "2", "quit"])
    assert_ok(result)
    out = result.output
    theirs = load_record(str(path))["rounds"][0]["turns"][0]["cards"][1]
    shown = out.index(f"this turn: you {low}, closest {theirs}")
    assert shown < out.index(f"your {low} is lower than every row end") < out.index("option 1..4")
    table = out[out.index("later (best card after)"):].split("\n(")[0].splitlines()[2:]
    assert len(table) == 4  # one line per row to take
    values = []
    for line in table:
        row = int(line.split("take row ")[1].split()[0])
        now, later, value, regret = (float(x) for x in line.split()[-4:])
        assert now == card_cows(rows[row - 1])  # the row's one card: its cows
        assert value == pytest.approx(now + later, abs=2e-3) and regret >= 0
        values.append(value)
    assert values == sorted(values) and float(table[0].split()[-1]) == 0
    assert sum("(the rule's choice)" in line for line in table) == 1
    assert "hints value your cards against the closest bot" in out


@pytest.mark.parametrize("bots,model,said", [
    ("closest", "closest", "against the closest bot at every seat"),
    ("random", "random", "your opponents play random cards"),
    ("closest,random", "random", "different bots (closest, random)"),
    ("expecti", "random", "no quick model of the expecti bot")])
def test_hints_value_against_the_seated_bots_where_there_is_a_model(runner, tmp_path,
                                                                     monkeypatch, bots,
                                                                     model, said):
    from nimmt.solver.players import play as playing

    asked = []
    real = playing.analyse_any

    def spy(position, opponents, **options):
        asked.append(opponents)
        return real(position, "closest", **options)  # any model: the spy checks the name

    monkeypatch.setattr(playing, "analyse_any", spy)
    players = len(bots.split(",")) + 1
    result = invoke(runner, "play", "--players", players, "--bots", bots, "--one-round",
                    "--seed", 1, "--hint-time", 0.5, input="hint\nquit\n")
    assert_ok(result)
    assert asked == [model]
    assert hint_model([parse_bot(b) for b in bots.split(",")])[0] == model
    assert said in result.output.splitlines()[1]  # said at the start
    assert result.output.count(said) == 2         # and under the hint


def test_the_forced_last_card_is_played_for_you(runner, tmp_path):
    seed, hand = row_choice_deal()
    lines = []
    for card in reversed(hand[1:]):  # the lowest card stays for the last turn
        lines += [card, ""]  # "": a row prompt's rule choice, or a card prompt asked again
    result, path = play(runner, tmp_path, seed, lines + [""])  # the last card's row
    assert_ok(result)
    assert f"your hand: {hand[0]}\n" not in result.output  # never asked for it
    assert f"your last card: {hand[0]}" in result.output
    record = load_record(str(path))
    assert "complete" not in record
    turns = record["rounds"][0]["turns"]
    assert len(turns) == 10 and turns[-1]["cards"][0] == hand[0]


def test_cows_are_counted_in_words():
    text = rows_text([[1], [55], [10, 20], [3]])
    assert "(1 cow, room 4)" in text and "(7 cows, room 4)" in text
    assert "(6 cows, room 3)" in text and "1 cows" not in text
    assert hint_model([BotSpec("lowkeeper")] * 3)[0] == "lowkeeper"
