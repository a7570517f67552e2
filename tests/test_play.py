"""`nimmt play` (issue 14, item 3) driven by scripted input: a whole round with a row
choice, hint, why, undo; quit and the end of input save the record."""
from __future__ import annotations

from nimmt.solver.arena import deal_cards
from nimmt.solver.records import load_record, replay
from nimmt.solver.rules import Rules

from cli_checks import assert_ok, assert_one_line_error, invoke

RULES = Rules("tactical", 2, one_round=True)


def a_deal() -> tuple[int, list[int]]:
    """A seed whose first hand's lowest card is below every row and every card of the
    other hand: played first, it must take a row (a row choice)."""
    for seed in range(200):
        rows, hands = deal_cards(RULES, seed, 0, 0)
        if min(hands[0]) < min(rows) and min(hands[0]) < min(hands[1]):
            return seed, hands[0]
    raise AssertionError("no such deal")


def play(runner, tmp_path, seed, lines):
    path = tmp_path / "game.json"
    result = invoke(runner, "play", "--players", 2, "--bots", "closest", "--one-round",
                    "--seed", seed, "--record", path, "--hint-time", 0.5,
                    input="".join(f"{line}\n" for line in lines))
    return result, path


def test_a_whole_round_with_a_row_choice_hint_why_and_undo(runner, tmp_path):
    seed, hand = a_deal()
    low, other = hand[0], hand[1]
    rest = [c for c in hand if c != low]
    lines = ["hint", f"why {hand[-1]}", "99", other, "", "undo", low, "2"]
    for card in reversed(rest):
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
    seed, hand = a_deal()
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
    from nimmt.solver import play as playing

    def interrupted(self, position):
        raise KeyboardInterrupt

    monkeypatch.setattr(playing.HumanGame, "hint", interrupted)
    seed, hand = a_deal()
    result, path = play(runner, tmp_path, seed, [hand[-1], "", "hint"])
    assert result.exit_code == 130, result.output
    assert "saved the game record" in result.output
    assert result.stderr.splitlines()[-1] == "nimmt: interrupted"
    record = load_record(str(path))
    assert record["complete"] is False and len(record["rounds"][0]["turns"]) == 1
