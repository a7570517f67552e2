"""nimmt engine: JSON-RPC 2.0 over stdin/stdout, in process and as a
subprocess: one reply per request, in order, with ids; analyse's result is exactly
``nimmt analyse --format json``; bad params keep it running; Ctrl-C and end of input."""
from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from nimmt import cli
from nimmt.solver.faces.protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Engine,
)
from nimmt.solver.players.bots import make_policy, moment_of
from nimmt.solver.players.review import review_card
from nimmt.solver.positions.position import load_position

from cli_checks import assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

ENGINE = [sys.executable, "-m", "nimmt.cli", "engine"]


def request(rid, method, /, **params):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})


def run_in_process(lines: list[bytes | str], **options) -> tuple[list, int]:
    """Every reply line (parsed) of an in-process engine fed ``lines``, and its status."""
    out = io.StringIO()
    engine = Engine(out, **options)
    data = b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines)
    status = engine.serve(io.BytesIO(data))
    return [json.loads(line) for line in out.getvalue().splitlines()], status


def replies_only(messages: list) -> list:
    """Replies (with an id), progress notifications left out."""
    return [m for m in messages if isinstance(m, list) or "id" in m]


# A burst of good and malformed lines: (line, expected reply: (id, "result"|error code) or
# None for no reply; a batch expects a list of them)
BURST = [
    (request(1, "info"), (1, "result")),
    ("this is not json", (None, PARSE_ERROR)),
    (request(2, "no_such_method"), (2, METHOD_NOT_FOUND)),
    (request(3, "analyse", position="example", samples=1), (3, INVALID_PARAMS)),
    (json.dumps({"jsonrpc": "2.0", "method": "info"}), None),          # a notification
    (json.dumps({"jsonrpc": "2.0", "method": "nope"}), None),          # also no reply
    (request("four", "analyse", position="example"), ("four", "result")),
    ('{"jsonrpc": "2.0", "id": 5, "method": "info"', (None, PARSE_ERROR)),  # cut short
    (json.dumps({"id": 6, "method": "info"}), (6, INVALID_REQUEST)),   # no "jsonrpc"
    ("[1, 2]", [(None, INVALID_REQUEST), (None, INVALID_REQUEST)]),
    ("[]", (None, INVALID_REQUEST)),
    ("[" + request(7, "info") + ", " + request(8, "bot", position="example") + "]",
     [(7, "result"), (8, INVALID_PARAMS)]),                             # no bot named
    (request(9, "bot", position="example", bot="closest", seed=4), (9, "result")),
    (request(10, "bot", position="example", bot="nobody"), (10, INVALID_PARAMS)),
    (request(11, "review", position="example", card=4), (11, "result")),
    (request(12, "review", position="example", card=99), (12, INVALID_PARAMS)),
    (request(13, "analyse", position="players=2 rows=1"), (13, INVALID_PARAMS)),
    (request(14, "analyse", position="example", both_sides=True), (14, INVALID_PARAMS)),
    (json.dumps({"jsonrpc": "2.0", "id": 15, "method": "info", "params": [1]}),
     (15, INVALID_PARAMS)),
    (json.dumps({"jsonrpc": "2.0", "id": [1], "method": "info"}), (None, INVALID_REQUEST)),
    (b"\xff\xfe not utf-8", (None, PARSE_ERROR)),
    ("", None),                                                         # blank: ignored
    ("[" * 100_000, (None, PARSE_ERROR)),                               # nested too deep
    (request(16, "analyse", position="example", unknown_option=3), (16, INVALID_PARAMS)),
    (request(17, "analyse", position="example", opponents="worst", format="table"),
     (17, INVALID_PARAMS)),
    (request(18, "info"), (18, "result")),
]


def check_burst(messages: list) -> None:
    expected = [e for _, e in BURST if e is not None]
    got = replies_only(messages)
    assert len(got) == len(expected), (len(got), len(expected), got)
    for reply, want in zip(got, expected):
        if isinstance(want, list):
            assert isinstance(reply, list) and len(reply) == len(want), reply
            pairs = list(zip(reply, want))
        else:
            pairs = [(reply, want)]
        for r, (rid, kind) in pairs:
            assert r["jsonrpc"] == "2.0" and r["id"] == rid, (r, rid)
            if kind == "result":
                assert "result" in r and "error" not in r, r
            else:
                assert r["error"]["code"] == kind, (r, kind)
                message = r["error"]["message"]
                assert message and "\n" not in message and "Traceback" not in message


def test_a_burst_in_process_gets_one_reply_per_request_in_order():
    messages, status = run_in_process([line for line, _ in BURST])
    assert status == 0
    check_burst(messages)


def test_a_burst_through_the_command_gets_one_reply_per_request_in_order():
    data = b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x, _ in BURST)
    done = subprocess.run(ENGINE, input=data, capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    check_burst([json.loads(line) for line in done.stdout.splitlines()])


def cli_json(*args) -> dict:
    result = invoke(CliRunner(), "analyse", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def without_time(data: dict) -> dict:
    """The JSON without its wall-clock seconds (the only field that differs run to run)."""
    return {k: v for k, v in data.items() if k != "seconds"}


# (params of the request, the same as nimmt analyse's arguments)
SAME_AS_CLI = [
    ({"position": "example"}, ["example"]),
    ({"position": "example", "opponents": "worst"}, ["example", "--opponents", "worst"]),
    ({"position": "example-3p", "max_nodes": 2_000_000},
     ["example-3p", "--max-nodes", "2000000"]),
    ({"position": "example-logic", "method": "exact"}, ["example-logic", "--method", "exact"]),
    ({"position": "example", "turn": [4, 13], "opponents": "worst"},
     ["example", "--turn", "4,13", "--opponents", "worst"]),
    ({"position": "example-standard", "method": "montecarlo", "samples": 60, "seed": 5},
     ["example-standard", "--method", "montecarlo", "--samples", "60", "--seed", "5"]),
    ({"position": "example-draft", "drafters": "fewest", "workers": 2},
     ["example-draft", "--drafters", "fewest", "-w", "2"]),
]


def test_analyse_result_is_nimmt_analyse_format_json():
    lines = [request(i, "analyse", **params) for i, (params, _) in enumerate(SAME_AS_CLI)]
    messages, _ = run_in_process(lines)
    replies = replies_only(messages)
    assert [r["id"] for r in replies] == list(range(len(SAME_AS_CLI)))
    for reply, (_, args) in zip(replies, SAME_AS_CLI):
        assert "result" in reply, reply
        assert without_time(reply["result"]) == without_time(cli_json(*args)), args


def test_bad_params_give_the_command_lines_reason_by_their_own_names_and_keep_it_running():
    """The reason is the command line's; the param is named as the request names it (its
    JSON key, or the library's name), never as a flag."""
    cases = [
        ({"position": "example", "samples": 1}, ["example", "--samples", "1"]),
        ({"position": "example", "verify": True}, ["example", "--verify"]),
        ({"position": "example", "opponents": "nash", "method": "montecarlo"},
         ["example", "--opponents", "nash", "--method", "montecarlo"]),
        ({"position": "example-draft", "opponents": "worst"},
         ["example-draft", "--opponents", "worst"]),
        ({"position": "example", "turn": "4,x"}, ["example", "--turn", "4,x"]),
        ({"position": "example", "memory": "12"}, ["example", "--memory", "12"]),
        ({"position": "example", "method": "exact", "max_nodes": 10},
         ["example", "--method", "exact", "--max-nodes", "10"]),
        ({"position": "hand=1,2"}, ["hand=1,2"]),
        ({"position": "example", "workers": 0}, ["example", "-w", "0"]),
        ({"position": "example", "seed": {"a": 1}}, None),
        ({"position": "example", "verify": "yes"}, None),
        ({"opponents": "worst"}, ["--opponents", "worst"]),
    ]
    lines = [request(i, "analyse", **p) for i, (p, _) in enumerate(cases)]
    lines.append(request("last", "info"))
    messages, status = run_in_process(lines)
    replies = replies_only(messages)
    assert status == 0 and [r["id"] for r in replies] == [*range(len(cases)), "last"]
    assert "result" in replies[-1]
    for reply, (params, args) in zip(replies, cases):
        assert reply["error"]["code"] == INVALID_PARAMS, reply
        if args is None:  # not a value the command line can be given
            continue
        message = reply["error"]["message"]
        assert "--" not in message and "'-w'" not in message, message
        line = assert_one_line_error(invoke(CliRunner(), "analyse", *args))
        expected = line.removeprefix("nimmt: error: ").split(" (see: nimmt")[0]
        expected = re.sub(r"'(-[a-z]|--[a-z-]+)'( / '-[a-z]')?", "'X'", expected)
        if "Invalid value for" in expected:  # click's: "for '--samples'" -> "for 'samples'"
            key = next(k for k in params if k != "position" and k in message)
            assert message.startswith(f"Invalid value for '{key}'"), message
            assert re.sub(r"'[a-z_-]+'", "'X'", message, count=1) == expected
        elif expected.startswith("Missing argument"):
            assert message.startswith("position is required")
        else:  # the library's: the same reason, up to the first param named
            reason = re.split(r"--|;", expected)[0]
            assert message.startswith(reason), (message, expected)


def test_bot_replies_as_the_bot_in_process():
    position = load_position("example-3p")
    for name in ("closest", "random", "mcs:playouts=40"):
        for seed, decisions in ((1, 0), (7, 3)):
            messages, _ = run_in_process([request(1, "bot", position="example-3p", bot=name,
                                                  seed=seed, decisions=decisions)])
            result = messages[-1]["result"]
            bot = make_policy(name, seed)
            bot.decisions = decisions
            decision = bot.choose(position)
            assert (result["card"], result["take_row"], result["tie_side"]) == (
                decision.card, decision.take_row, decision.tie_side)
            assert result["decisions"] == bot.decisions == decisions + 1
    # a row choice: the card 4 with no legal end, player 2's 13 placed after it
    messages, _ = run_in_process([request(2, "bot", position="example", bot="expecti",
                                          seed=2, turn=[4, 13])])
    result = messages[-1]["result"]
    bot = make_policy("expecti", 2)
    option = bot.choose_option(moment_of(load_position("example"), [4, 13]))
    assert result["option"] == option and result["options"][option] == [
        result["take_row"], result["tie_side"]]


def test_the_default_bot_and_the_time_limit():
    messages, _ = run_in_process([request(1, "bot", position="example")],
                                 default_bot="closest")
    assert messages[-1]["result"]["card"] == make_policy("closest").choose(
        load_position("example")).card
    messages, _ = run_in_process([request(1, "info")], time_limit=2.5)
    assert messages[-1]["result"]["time_limit"] == 2.5


def test_review_is_nimmt_reviews_judgement():
    messages, _ = run_in_process([request(1, "review", position="example", card=c, seed=1)
                                  for c in (4, 18)])
    for reply, card in zip(replies_only(messages), (4, 18)):
        decision = review_card(load_position("example"), card, seed=1)
        result = reply["result"]
        assert (result["regret"], result["label"], result["best"]) == (
            decision.regret, decision.label, decision.best)
    assert replies_only(messages)[0]["result"]["label"] == "inaccuracy"  # 0.825 cows
    assert replies_only(messages)[1]["result"]["label"] == "best"


def test_progress_notifications_carry_the_requests_id():
    messages, _ = run_in_process(
        [request("mc", "analyse", position="example-standard", method="montecarlo",
                 samples=200, seed=1)], progress_interval=0.0)
    notes = [m for m in messages if "id" not in m]
    assert notes and all(m["method"] == "progress" and m["params"]["id"] == "mc"
                         for m in notes)
    assert notes[-1]["params"]["done"] <= notes[-1]["params"]["total"] == 200
    assert messages[-1]["id"] == "mc" and messages[-1]["result"]["samples"] == 200


def test_a_failing_method_is_an_internal_error_and_it_keeps_running(monkeypatch):
    out = io.StringIO()
    engine = Engine(out)

    def broken(params, rid):
        raise RuntimeError("boom")

    engine.handlers["info"] = broken
    engine.serve(io.BytesIO((request(1, "info") + "\n" + request(2, "shutdown") + "\n"
                             + request(3, "shutdown") + "\n").encode()))
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies[0]["error"]["code"] == INTERNAL_ERROR and "boom" in replies[0]["error"][
        "message"]
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": None}
    assert len(replies) == 2  # nothing after shutdown


def test_shutdown_and_end_of_input_end_the_command_cleanly():
    done = subprocess.run(ENGINE, input=(request(1, "shutdown") + "\n" + request(2, "info")
                                         + "\n").encode(), capture_output=True, timeout=300)
    assert done.returncode == 0 and done.stderr == b""
    assert [json.loads(x)["id"] for x in done.stdout.splitlines()] == [1]
    done = subprocess.run(ENGINE, input=b"", capture_output=True, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_ctrl_c_answers_the_request_under_way_and_ends():
    process = subprocess.Popen([*ENGINE, "--progress-interval", "0"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write((request(1, "analyse", position="example-standard",
                                 method="montecarlo", samples=10**8, seed=1) + "\n").encode())
    process.stdin.flush()
    first = json.loads(process.stdout.readline())  # a progress notification: it runs
    assert first["method"] == "progress"
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    replies = replies_only([json.loads(x) for x in out.splitlines()])
    assert len(replies) == 1 and replies[0]["id"] == 1
    reply = replies[0]
    assert ("result" in reply and reply["result"]["complete"] is False) or \
        reply["error"]["code"] == -32001
    assert process.returncode == 130
    assert err.decode().strip().splitlines()[-1] == "nimmt: interrupted"
    assert b"Traceback" not in err


def test_engine_help_and_a_bad_default_bot():
    result = invoke(CliRunner(), "engine", "--default-bot", "nobody")
    assert "unknown bot" in assert_one_line_error(result)
    assert "JSON-RPC" in CliRunner().invoke(cli.cli, ["engine", "--help"]).output


def test_a_long_line_is_refused_and_the_next_answered():
    messages, _ = run_in_process(["x" * (2**20 + 10), request(1, "info")])
    assert messages[0]["error"]["code"] == INVALID_REQUEST and messages[0]["id"] is None
    assert messages[1]["id"] == 1 and "result" in messages[1]


def test_a_stopped_search_is_an_error_with_what_it_finished():
    """The data is what nimmt analyse --format json prints before its error line."""
    messages, status = run_in_process([
        request(1, "analyse", position="example", opponents="worst", method="exact",
                memory="1M"),
        request(2, "info")])
    stopped, after = replies_only(messages)
    assert status == 0 and "result" in after
    assert stopped["error"]["code"] == -32000
    result = invoke(CliRunner(), "analyse", "example", "--opponents", "worst", "--method",
                    "exact", "--memory", "1M", "--format", "json")
    line = assert_one_line_error_after_output(result)
    # the same message, the params named as the request names them, not as flags
    assert stopped["error"]["message"] == line.removeprefix("nimmt: error: ").replace(
        "raise --memory", "raise memory")
    data = stopped["error"]["data"]
    assert len(data["cards"]) == 2 and data["complete"] is False
    assert without_time(data) == without_time(json.loads(result.stdout))


def assert_one_line_error_after_output(result) -> str:
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nimmt: error: ")
    return lines[0]
