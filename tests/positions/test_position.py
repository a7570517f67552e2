"""The position notation (DESIGN.md section 2): parse, format, validate, the derived pool,
JSON input, and apply_turn."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.solver.base.rules import PLACEMENTS, VARIANTS, NimmtError, Rules, card_cows
from nimmt.solver.kernels.engine import TurnOutcome
from nimmt.solver.positions.position import (
    Position,
    format_position,
    load_position,
    parse_position,
    problems,
)
from nimmt.solver.search.game import deal_position

# The README / docstring example: tactical, 2 players, 3 cards left, p2 derived.
BASE = "players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 gone=1,2,4,5,6,8,9,10,11"

# Hand-written positions: (input, canonical form).
CANONICAL = [
    # tactical, 2 players, p2 derived from the deck
    (BASE,
     "variant=tactical players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 p2=15,17,24 "
     "gone=1,2,4,5,6,8,9,10,11"),
    # tactical, 2 players, p2 given, tokens shuffled, cards unsorted, scores
    ("gone=11,10,9,8,6,5,4,2,1 p2=24,15,17 hand=22,13,18 scores=12,40 "
     "rows=3,7,12/14,16/19,20,21/23 players=2 variant=tactical",
     "variant=tactical players=2 rows=3,7,12/14,16/19,20,21/23 hand=13,18,22 p2=15,17,24 "
     "gone=1,2,4,5,6,8,9,10,11 scores=12,40"),
    # tactical, 3 players, professional, hidden hands
    ("variant=tactical players=3 placement=professional rows=6,13,19,20,28/7,27,29,30,32/"
     "4,5,18,22,26/11 hand=8,9,23,34 gone=3,10,12,15,16,17 scores=0,5,61",
     "variant=tactical players=3 placement=professional rows=6,13,19,20,28/7,27,29,30,32/"
     "4,5,18,22,26/11 hand=8,9,23,34 gone=3,10,12,15,16,17 scores=0,5,61"),
    # tactical, 4 players, p2 known, p3 and p4 hidden
    ("variant=tactical players=4 rows=2,4,17/30,33,40,42/39/5,11,24,28 hand=6,12,14,31,36,41 "
     "p2=1,7,8,9,10,15 gone=3,13,18,22,23,25,26,35",
     "variant=tactical players=4 rows=2,4,17/30,33,40,42/39/5,11,24,28 hand=6,12,14,31,36,41 "
     "p2=1,7,8,9,10,15 gone=3,13,18,22,23,25,26,35"),
    # tactical, 3 players, p2 known: the one hidden hand (p3) is derived
    ("variant=tactical players=3 rows=6,13,19,20,28/7,27,29,30,32/4,5,18,22,26/11 "
     "hand=8,9,23,34 p2=1,2,14,21 gone=3,10,12,15,16,17",
     "variant=tactical players=3 rows=6,13,19,20,28/7,27,29,30,32/4,5,18,22,26/11 "
     "hand=8,9,23,34 p2=1,2,14,21 p3=24,25,31,33 gone=3,10,12,15,16,17"),
    # logic, 3 players, every hand given
    ("variant=logic players=3 rows=3,5,24,29/4,12,16,17,22/30,31/1,9,10,20 "
     "hand=6,11,13,23,25 p2=2,15,21,27,32 p3=8,18,19,26,33 gone=7,14,28,34",
     "variant=logic players=3 rows=3,5,24,29/4,12,16,17,22/30,31/1,9,10,20 "
     "hand=6,11,13,23,25 p2=2,15,21,27,32 p3=8,18,19,26,33 gone=7,14,28,34"),
    # logic, 4 players, professional, scores
    ("variant=logic players=4 placement=professional rows=13,15,20,30,32/1,6,23,31,33/21,22/5,25 "
     "hand=8,26,40 p2=2,19,29 p3=4,10,17 p4=7,28,41 "
     "gone=3,9,11,12,14,16,18,24,27,34,35,36,37,38,39,42,43,44 scores=3,0,60,1",
     "variant=logic players=4 placement=professional rows=13,15,20,30,32/1,6,23,31,33/21,22/5,25 "
     "hand=8,26,40 p2=2,19,29 p3=4,10,17 p4=7,28,41 "
     "gone=3,9,11,12,14,16,18,24,27,34,35,36,37,38,39,42,43,44 scores=3,0,60,1"),
    # logic, 2 players, p2 omitted: derived
    ("variant=logic players=2 rows=1/2/3/4 hand=5,7,9,11,13,15,17,19,21,23",
     "variant=logic players=2 rows=1/2/3/4 hand=5,7,9,11,13,15,17,19,21,23 "
     "p2=6,8,10,12,14,16,18,20,22,24"),
    # standard, 4 players, professional, hidden hands, no gone
    ("variant=standard players=4 placement=professional rows=1,19,39,42/16,18,24,50,65/97,99,101/"
     "35,44,56,98 hand=17,23,38,46,75,88,92",
     "variant=standard players=4 placement=professional rows=1,19,39,42/16,18,24,50,65/97,99,101/"
     "35,44,56,98 hand=17,23,38,46,75,88,92"),
    # standard, 2 players, gone, scores, p2 known
    ("variant=standard players=2 rows=6,11/90/2,16,79/30,31,64 hand=95,27 p2=100,3 "
     "gone=4,10,13,14,19,40,45,63,88,92,98 scores=0,17",
     "variant=standard players=2 rows=6,11/90/2,16,79/30,31,64 hand=27,95 p2=3,100 "
     "gone=4,10,13,14,19,40,45,63,88,92,98 scores=0,17"),
    # standard, 10 players, start of a round, explicit defaults (dropped in canonical form)
    ("variant=standard players=10 placement=normal rows=10/20/30/40 "
     "hand=1,2,3,4,5,6,7,8,9,11 scores=0,0,0,0,0,0,0,0,0,0",
     "variant=standard players=10 rows=10/20/30/40 hand=1,2,3,4,5,6,7,8,9,11"),
    # tactical, 10 players, 2 cards left
    ("variant=tactical players=10 rows=75,80,83,87/44,47,63,74,93/94,96,98,99,100/51,58,60,65 "
     "hand=31,64 gone=3,4,5,6,8,9,10,12,13,14,15,16,17,18,19,20,21,22,25,26,27,28,29,30,32,33,"
     "34,35,37,38,39,40,41,42,45,46,50,52,54,55,56,57,59,61,62,66,67,68,69,70,71,72,73,76,78,"
     "81,82,84,85,88,89,90,92,95,97,101",
     "variant=tactical players=10 rows=75,80,83,87/44,47,63,74,93/94,96,98,99,100/51,58,60,65 "
     "hand=31,64 gone=3,4,5,6,8,9,10,12,13,14,15,16,17,18,19,20,21,22,25,26,27,28,29,30,32,33,"
     "34,35,37,38,39,40,41,42,45,46,50,52,54,55,56,57,59,61,62,66,67,68,69,70,71,72,73,76,78,"
     "81,82,84,85,88,89,90,92,95,97,101"),
]


@pytest.mark.parametrize("text,canonical", CANONICAL)
def test_format_is_canonical_and_round_trips(text, canonical):
    p = parse_position(text)
    assert format_position(p) == canonical
    assert format_position(parse_position(canonical)) == canonical  # idempotent
    assert parse_position(format_position(p)) == p
    assert parse_position(canonical) == p


def test_the_cases_cover_every_variant_and_placement():
    seen = {(parse_position(t).variant, parse_position(t).placement) for t, _ in CANONICAL}
    assert seen == {(v, pl) for v in VARIANTS for pl in PLACEMENTS}


def test_parsed_fields():
    p = parse_position(CANONICAL[1][0])
    assert p.variant == "tactical" and p.players == 2 and p.placement == "normal"
    assert p.rows == ((3, 7, 12), (14, 16), (19, 20, 21), (23,))
    assert p.hand == (13, 18, 22) and p.hands[1] == (15, 17, 24)
    assert p.gone == (1, 2, 4, 5, 6, 8, 9, 10, 11)
    assert p.scores == (12, 40)
    assert p.cards_left == 3 and p.deck_size == 24 and not p.professional
    q = parse_position(CANONICAL[2][0])
    assert q.professional and q.scores == (0, 5, 61) and q.hidden_players == (1, 2)
    assert parse_position("variant=standard players=3 rows=1/2/3/4 "
                          "hand=5,6,7,8,9,10,11,12,13,14").scores == (0, 0, 0)


def test_positions_with_different_content_differ():
    a = parse_position(BASE)
    assert a != parse_position(BASE + " scores=1,0")
    assert a != parse_position(BASE.replace("players=2", "players=2 placement=professional"))


# ---------------------------------------------------------------- dealt positions

@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(VARIANTS), players=st.integers(2, 10),
       placement=st.sampled_from(PLACEMENTS), cards_left=st.integers(1, 10),
       seed=st.integers(0, 2**40))
def test_dealt_positions_round_trip_and_account_for_every_card(variant, players, placement,
                                                                cards_left, seed):
    p = deal_position(Rules(variant, players, placement), cards_left, seed)
    assert (p.variant, p.players, p.placement) == (variant, players, placement)
    text = format_position(p)
    q = parse_position(text)
    assert q == p
    assert format_position(q) == text
    assert len(p.hand) == cards_left
    assert all(h is None or len(h) == cards_left for h in p.hands)
    assert p.scores == (0,) * players
    # every card played so far is on the table or gone
    on_table = [c for r in p.rows for c in r]
    assert len(on_table) + len(p.gone) == players * (10 - cards_left) + 4
    places = on_table + list(p.gone) + list(p.pool) + [c for h in p.hands if h is not None
                                                       for c in h]
    assert len(places) == len(set(places))  # no card in two places
    if variant == "standard":
        assert set(places) <= set(range(1, 105))
        assert set(p.pool) == set(range(1, 105)) - (set(places) - set(p.pool))
        assert len(p.pool) >= cards_left * len(p.hidden_players)
    else:
        assert sorted(places) == list(range(1, 10 * players + 5))  # exactly one place each
        assert len(p.pool) == cards_left * len(p.hidden_players)
    if variant == "logic" or players == 2 and variant == "tactical":
        assert p.all_known and p.pool == ()


def test_deal_rejects_cards_left_outside_1_to_10():
    for k in (0, 11):
        with pytest.raises(NimmtError, match="cards-left"):
            deal_position(Rules("tactical", 2), k, 1)


# ---------------------------------------------------------------- JSON input

def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_json_file_with_lists(tmp_path):
    data = {"variant": "tactical", "players": 2, "rows": [[3, 7, 12], [14, 16], [19, 20, 21], [23]],
            "hand": [22, 13, 18], "gone": [1, 2, 4, 5, 6, 8, 9, 10, 11], "scores": [12, 40]}
    p = load_position(_write(tmp_path, "pos.json", data))
    assert p == parse_position(BASE + " scores=12,40")
    assert p.hands[1] == (15, 17, 24)


def test_json_file_with_known_hands_and_professional(tmp_path):
    text, canonical = CANONICAL[6]
    expected = parse_position(text)
    data = {"variant": "logic", "players": 4, "placement": "professional",
            "rows": [list(r) for r in expected.rows], "hand": list(expected.hand),
            "p2": list(expected.hands[1]), "p3": list(expected.hands[2]),
            "p4": list(expected.hands[3]), "gone": list(expected.gone),
            "scores": list(expected.scores)}
    p = load_position(_write(tmp_path, "logic.json", data))
    assert p == expected
    assert format_position(p) == canonical


def test_json_file_may_use_notation_strings(tmp_path):
    data = {"players": "2", "rows": "3,7,12/14,16/19,20,21/23", "hand": "13,18,22",
            "gone": "1,2,4,5,6,8,9,10,11"}
    assert load_position(_write(tmp_path, "strings.json", data)) == parse_position(BASE)


def test_load_position_passes_notation_through():
    assert load_position(BASE) == parse_position(BASE)


@pytest.mark.parametrize("content,message", [
    ("{players: 2", "not valid JSON"),
    ("", "not valid JSON"),
    ("[1, 2, 3]", "JSON object"),
    ('"players=2"', "JSON object"),
    (json.dumps({"players": 2, "rows": [[3], [20], [41], [50]], "hand": [1], "colour": "red"}),
     "unknown key 'colour'"),
    (json.dumps({"players": 2, "rows": [[3], [20], [41], 50], "hand": [1]}), "rows"),
    (json.dumps({"players": 2, "rows": [[3], [20], [41], ["x"]], "hand": [1]}), "rows"),
    (json.dumps({"players": 2, "rows": [[3], [20], [41], [50]], "hand": 5}), "hand"),
    (json.dumps({"players": 2, "rows": [[3], [20], [41], [50]], "hand": [1, "2"]}), "hand"),
    (json.dumps({"players": [2], "rows": [[3], [20], [41], [50]], "hand": [1]}), "players"),
    (json.dumps({"players": 2, "rows": [[3, 7, 12], [14, 16], [19, 20, 21], [23]],
                 "hand": [13, 18, 22], "gone": [1, 2, 4, 5, 6, 8, 9, 10, 11], "scores": 5}),
     "scores"),
    (json.dumps({"players": 2, "rows": [[3, 7, 12], [14, 16], [19, 20, 21], [23]],
                 "hand": [13, 18, 22], "gone": [1, 2, 4, 5, 6, 8, 9, 10, 11], "scores": None}),
     "scores"),
    (json.dumps({"players": 2, "rows": [[3, 7, 12], [14, 16], [19, 20, 21], [23]],
                 "hand": [13, 18, 22], "gone": [1, 2, 4, 5, 6, 8, 9, 10, 11],
                 "scores": [1, "x"]}), "scores"),
])
def test_bad_json_files(tmp_path, content, message):
    with pytest.raises(NimmtError, match=message):
        load_position(_write(tmp_path, "bad.json", content))


def test_missing_json_file(tmp_path):
    with pytest.raises(NimmtError, match="cannot read"):
        load_position(str(tmp_path / "nowhere.json"))


# ---------------------------------------------------------------- the derived pool

def test_two_player_tactical_fills_p2():
    p = parse_position(BASE)
    assert p.hands[1] == (15, 17, 24)
    assert p.all_known and p.pool == () and p.hidden_players == ()
    # the same position with p2 given explicitly is equal
    assert p == parse_position(BASE + " p2=15,17,24")


def test_three_player_tactical_hidden_hands_pool():
    p = parse_position(CANONICAL[2][0])
    seen = {c for r in p.rows for c in r} | set(p.gone) | set(p.hand)
    assert p.hidden_players == (1, 2)
    assert len(p.pool) == p.cards_left * 2 == 8
    assert set(p.pool) == set(range(1, 35)) - seen
    assert list(p.pool) == sorted(p.pool)


def test_four_player_tactical_pool_excludes_known_hands():
    p = parse_position(CANONICAL[3][0])
    assert p.hidden_players == (2, 3)
    assert len(p.pool) == 2 * 6
    assert not set(p.pool) & set(p.hands[1])


def test_standard_pool_is_104_minus_everything_seen():
    p = parse_position(CANONICAL[9][0])  # standard, 2 players, p2 known
    seen = {c for r in p.rows for c in r} | set(p.gone) | set(p.hand) | set(p.hands[1])
    assert set(p.pool) == set(range(1, 105)) - seen
    assert len(p.pool) == 104 - len(seen)
    q = parse_position(CANONICAL[8][0])  # standard, 4 players, hidden hands
    seen = {c for r in q.rows for c in r} | set(q.hand)
    assert set(q.pool) == set(range(1, 105)) - seen and len(q.pool) == 104 - 23
    assert q.hands[1:] == (None, None, None)  # never filled in the standard game


def test_logic_with_one_hidden_hand_derives_it():
    text = ("variant=logic players=3 rows=3,5,24,29/4,12,16,17,22/30,31/1,9,10,20 "
            "hand=6,11,13,23,25 p2=2,15,21,27,32 gone=7,14,28,34")
    assert parse_position(text).hands[2] == (8, 18, 19, 26, 33)


# ---------------------------------------------------------------- apply_turn

def test_apply_turn_returns_new_position_and_outcome():
    p = parse_position(BASE)
    before = format_position(p)
    q, outcome = p.apply_turn([13, 15])
    assert isinstance(q, Position) and isinstance(outcome, TurnOutcome)
    assert format_position(p) == before  # the original is unchanged
    assert p.hand == (13, 18, 22) and p.rows[0] == (3, 7, 12)
    assert outcome.cows == (0, 0)
    assert q.rows == ((3, 7, 12, 13, 15), (14, 16), (19, 20, 21), (23,))
    assert q.hand == (18, 22) and q.hands[1] == (17, 24)
    assert q.gone == p.gone and q.scores == p.scores
    assert parse_position(format_position(q)) == q


# tactical, 2 players, 2 cards left: row 1 is full
FULL_ROW = ("players=2 rows=1,2,3,4,5/10/15/20 hand=6,21 p2=7,22 "
            "gone=8,9,11,12,13,14,16,17,18,19,23,24")


def test_apply_turn_sixth_card_moves_taken_cards_to_gone():
    p = parse_position(FULL_ROW)
    q, outcome = p.apply_turn([6, 7])
    assert outcome.cows == (sum(card_cows(c) for c in (1, 2, 3, 4, 5)), 0) == (6, 0)
    assert q.rows == ((6, 7), (10,), (15,), (20,))
    assert set(q.gone) == set(p.gone) | {1, 2, 3, 4, 5}
    assert list(q.gone) == sorted(q.gone)
    assert q.hand == (21,) and q.hands[1] == (22,)
    assert p.rows[0] == (1, 2, 3, 4, 5)  # unchanged


def test_apply_turn_playing_the_last_cards_empties_the_hands():
    p = parse_position(FULL_ROW)
    q, _ = p.apply_turn([6, 7])
    r, outcome = q.apply_turn([21, 22])
    assert outcome.cows == (0, 0)
    assert r.hands == ((), ())
    assert r.cards_left == 0
    assert r.rows == ((6, 7), (10,), (15,), (20, 21, 22))
    cards = [c for row in r.rows for c in row] + list(r.gone)
    assert sorted(cards) == list(range(1, 25))


def test_apply_turn_low_card_follows_the_rule_or_the_given_choice():
    # turn 1 (rows and gone must hold every card played: 10 cards each, nothing played yet)
    p = parse_position("variant=standard players=2 rows=5/10/15/20 hand=3,50,51,52,53,54,55,56,"
                       "57,58 p2=60,70,71,72,73,74,75,76,77,78")
    # rule-following: fewest cows (5 and 15 both 2 cows), tie to the lowest last card: row 1
    q, outcome = p.apply_turn([3, 60])
    assert outcome.cows == (2, 0)
    assert q.rows == ((3,), (10,), (15,), (20, 60)) and q.gone == (5,)
    # explicit choice: take row 4 (20: 3 cows); 60 then follows 15
    q, outcome = p.apply_turn([3, 60], take_rows=[3, -1])
    assert outcome.cows == (3, 0)
    assert q.rows == ((5,), (10,), (15, 60), (3,)) and q.gone == (20,)


def test_apply_turn_with_hidden_hands_draws_from_the_pool():
    p = parse_position(CANONICAL[2][0])  # 3 players, hidden hands, pool of 8
    a, b = p.pool[0], p.pool[-1]
    q, _ = p.apply_turn([p.hand[0], a, b])
    assert q.hidden_players == (1, 2)
    assert len(q.pool) == 2 * q.cards_left == 6
    assert a not in q.pool and b not in q.pool
    with pytest.raises(NimmtError, match="nor in the pool"):
        p.apply_turn([p.hand[0], p.hand[1], a])


def test_apply_turn_rejects_bad_cards():
    p = parse_position(BASE)
    with pytest.raises(NimmtError, match="player 1 cannot play 15"):
        p.apply_turn([15, 17])
    with pytest.raises(NimmtError, match="player 2 cannot play 13"):
        p.apply_turn([18, 13])
    with pytest.raises(NimmtError, match="one card per player"):
        p.apply_turn([13])
    with pytest.raises(NimmtError, match="same card"):
        p.apply_turn([13, 13])
    assert p == parse_position(BASE)


# ---------------------------------------------------------------- malformed positions

LOGIC3 = ("variant=logic players=3 rows=3,5,24,29/4,12,16,17,22/30,31/1,9,10,20 "
          "hand=6,11,13,23,25 gone=7,14,28,34")
ROWS = "rows=3,7,12/14,16/19,20,21/23"
GONE = "gone=1,2,4,5,6,8,9,10,11"

MALFORMED = [
    ("unknown key", BASE + " colour=red", "unknown key 'colour'"),
    ("unknown key p1", BASE + " p1=13,18,22", "unknown key 'p1'"),
    ("unknown key p11", BASE + " p11=1", "unknown key 'p11'"),
    ("token without =", BASE + " oops", "'oops' is not key=value"),
    ("token with empty key", BASE + " =5", "is not key=value"),
    ("duplicate key", BASE + " players=2", "players is given twice"),
    ("duplicate card in two places", BASE + ",13", "card 13 appears twice"),
    ("duplicate card in a hand", f"players=2 {ROWS} hand=13,13,22 {GONE}",
     "card 13 appears twice"),
    ("duplicate card row and hand", f"players=2 {ROWS} hand=13,18,23 {GONE}",
     "card 23 appears twice"),
    ("card outside the tactical deck", f"players=2 {ROWS} hand=13,18,25 {GONE}",
     r"card 25 in hand is outside the tactical deck 1\.\.24"),
    ("card 0", f"players=2 {ROWS} hand=0,18,22 {GONE}", "card 0 in hand is outside"),
    ("negative card", f"players=2 {ROWS} hand=-3,18,22 {GONE}", "card -3 in hand is outside"),
    ("card outside the standard deck", "variant=standard players=2 rows=3/20/41/105 hand=1",
     r"card 105 in rows is outside the standard deck 1\.\.104"),
    ("3 rows", f"players=2 rows=3,7,12/14,16/19,20,21,23 hand=13,18,22 {GONE}",
     "rows has 3 rows; give exactly 4"),
    ("5 rows", f"players=2 rows=3,7,12/14,16/19,20/21/23 hand=13,18,22 {GONE}",
     "rows has 5 rows; give exactly 4"),
    ("empty row", f"players=2 rows=3,7,12//19,20,21/23 hand=13,18,22 {GONE}", "row 2 is empty"),
    ("trailing slash", f"players=2 rows=3,7,12/14,16/19,20,21/23/ hand=13,18,22 {GONE}",
     "rows has 5 rows"),
    ("row longer than 5", "players=2 rows=1,2,3,4,5,6/10/15/20 hand=7,21 p2=8,22 "
     "gone=9,11,12,13,14,16,17,18,19,23,24", "row 1 holds 6 cards"),
    ("row out of order", f"players=2 rows=3,12,7/14,16/19,20,21/23 hand=13,18,22 {GONE}",
     r"row 1 \(3,12,7\) is out of order"),
    ("hands of different sizes", BASE + " p2=15,17", "p2 holds 2 cards but hand holds 3"),
    ("hands of different sizes, 3 players",
     "variant=tactical players=3 rows=6,13,19,20,28/7,27,29,30,32/4,5,18,22,26/11 "
     "hand=8,9,23,34 p2=1,2,14 gone=3,10,12,15,16,17", "p2 holds 3 cards but hand holds 4"),
    ("hand of 11", "variant=standard players=2 rows=1/2/3/4 hand=5,6,7,8,9,10,11,12,13,14,15",
     "hand holds 11 cards"),
    ("empty hand", f"players=2 {ROWS} hand= {GONE}", "hand is empty"),
    ("tactical pool too big", f"players=2 {ROWS} hand=13,18,22 gone=1,2,4,5,6,8,9,10",
     "leaves 4 unplaced cards, but 1 hidden hand.* need 3"),
    ("tactical pool too small", f"players=2 {ROWS} hand=13,18,22 {GONE},15",
     "leaves 2 unplaced cards, but 1 hidden hand.* need 3"),
    ("tactical pool, 3 players",
     "variant=tactical players=3 rows=6,13,19,20,28/7,27,29,30,32/4,5,18,22,26/11 "
     "hand=8,9,23,34 gone=3,10,12,15,16", "leaves 9 unplaced cards, but 2 hidden hand.* need 8"),
    ("too few unseen cards (standard)",
     "variant=standard players=10 rows=1/2/3/4 hand=5,6,7,8,9,10,11,12,13,14 "
     "gone=21,22,23,24,25,26,27,28,29,30", "only 80 unseen cards for 9 hidden hands of 10"),
    ("more played than possible (standard)",
     "variant=standard players=2 rows=1/2/3/4 hand=5,6,7,8,9,10,11,12,13,14 gone=50",
     "at most 4 can have been played"),
    ("players=1", f"players=1 {ROWS} hand=13,18,22 {GONE}", r"players=1 is outside 2\.\.10"),
    ("players=11", f"players=11 {ROWS} hand=13,18,22 {GONE}", r"players=11 is outside 2\.\.10"),
    ("players=0", f"players=0 {ROWS} hand=13,18,22", r"outside 2\.\.10"),
    ("players not a number", f"players=two {ROWS} hand=13,18,22", "players='two' is not a whole"),
    ("non-numeric card", f"players=2 {ROWS} hand=13,x,22 {GONE}",
     "hand='13,x,22': cards are numbers"),
    ("non-numeric row card", f"players=2 rows=3,7,12/14,a/19,20,21/23 hand=13,18,22 {GONE}",
     "rows='14,a': cards are numbers"),
    ("double comma", f"players=2 {ROWS} hand=13,,22 {GONE}", "cards are numbers"),
    ("missing rows", f"players=2 hand=13,18,22 {GONE}", "missing rows="),
    ("missing hand", f"players=2 {ROWS} {GONE}", "missing hand="),
    ("missing players", f"{ROWS} hand=13,18,22 {GONE}", "missing players="),
    ("empty position", "   ", "empty position"),
    ("p5 with players=3",
     "variant=tactical players=3 rows=6,13,19,20,28/7,27,29,30,32/4,5,18,22,26/11 "
     "hand=8,9,23,34 p5=1,2,14,21 gone=3,10,12,15,16,17", "p5 given but players=3"),
    ("logic, 3 players, hidden hands", LOGIC3, "logic variant: every hand is drafted face up"),
    ("negative score", BASE + " scores=-1,0", "scores must not be negative"),
    ("too many scores", BASE + " scores=1,2,3", "scores lists 3 totals for 2 players"),
    ("too few scores", BASE + " scores=5", "scores lists 1 totals for 2 players"),
    ("non-numeric score", BASE + " scores=1,x", "scores='1,x'"),
    ("unknown variant", "variant=classic " + BASE, "unknown variant 'classic'"),
    ("unknown placement", "placement=left " + BASE, "unknown placement 'left'"),
]


def test_enough_malformed_cases():
    assert len(MALFORMED) >= 20


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in MALFORMED],
                         ids=[name for name, _, _ in MALFORMED])
def test_malformed_positions_name_the_problem(text, message):
    with pytest.raises(NimmtError, match=message) as info:
        parse_position(text)
    assert "\n" not in str(info.value)  # one line


def test_malformed_cases_are_otherwise_valid():
    """The fixtures the malformed cases are built from parse, so each case fails for its
    one named problem."""
    for text in (BASE, FULL_ROW, LOGIC3.replace("gone=", "p2=2,15,21,27,32 gone=")):
        parse_position(text)


def test_nimmt_error_is_a_value_error():
    assert issubclass(NimmtError, ValueError)


# ---------------------------------------------------------------- every position is checked

def fields_of(p: Position) -> dict:
    """``Position.make``'s (and ``problems``') keyword arguments for ``p``."""
    return {"variant": p.variant, "players": p.players, "placement": p.placement,
            "rows": [list(r) for r in p.rows], "hand": list(p.hand),
            "others": {i: list(h) for i, h in enumerate(p.hands[1:], 2) if h is not None},
            "gone": list(p.gone), "scores": list(p.scores)}


def test_problems_lists_every_problem_at_once():
    found = problems(players=2, rows=[[3, 7, 12], [16, 14], [], [23], [30]],
                     hand=[13, 18, 13], others={2: [15, 17]}, gone=[1, 2, 99],
                     scores=[5, -1, 0])
    assert found == [
        "rows has 5 rows; give exactly 4 rows separated by '/'",
        "row 2 (16,14) is out of order; list a row's cards in table order, ascending",
        "row 3 is empty; every row holds 1 to 5 cards",
        "p2 holds 2 cards but hand holds 3; every player holds the same number of cards",
        "scores lists 3 totals for 2 players; give one total per player, player 1 first",
        "scores must not be negative; give each player's cows so far",
        "card 30 in rows is outside the tactical deck 1..24 for 2 players",
        "card 99 in gone is outside the tactical deck 1..24 for 2 players",
        "card 13 appears twice (hand and hand); every card is in one place",
    ]
    with pytest.raises(NimmtError) as info:
        Position.make(players=2, rows=[[3, 7, 12], [16, 14], [], [23], [30]],
                      hand=[13, 18, 13], others={2: [15, 17]}, gone=[1, 2, 99],
                      scores=[5, -1, 0])
    assert str(info.value) == found[0]  # construction raises the first


def test_problems_of_the_rules_and_the_input():
    assert problems(players=11, rows=[[1]], hand=[2], variant="classic", placement="left") == [
        "unknown variant 'classic'; use one of standard, tactical, logic",
        "players=11 is outside 2..10; give a player count from 2 to 10",
        "unknown placement 'left'; use one of normal, professional"]
    assert problems(players="2", rows=[[1]], hand=[2]) == [
        "players='2' is not a whole number; give e.g. players=3"]
    found = problems(players=3, rows=[[1], [2], [3], [4]], hand=[], others={5: [6]})
    assert found[:2] == ["p5 given but players=3; give hands only for p2..p3",
                         "hand is empty; give player 1's cards, e.g. hand=1,15,22"]


def test_problems_is_empty_for_valid_positions():
    for text, _ in CANONICAL:
        assert problems(**fields_of(parse_position(text))) == []


def test_every_constructor_path_refuses_an_invalid_value(tmp_path, monkeypatch):
    p = parse_position(BASE)
    twice = "card 13 appears twice"
    with pytest.raises(NimmtError, match=twice):  # the dataclass itself
        Position(p.variant, p.players, p.placement, p.rows, p.hand, p.other_hands,
                 p.gone + (13,), p.scores)
    with pytest.raises(NimmtError, match=twice):
        dataclasses.replace(p, gone=p.gone + (13,))
    with pytest.raises(NimmtError, match=twice):
        Position.make(**{**fields_of(p), "gone": list(p.gone) + [13]})
    with pytest.raises(NimmtError, match=twice):
        parse_position(BASE + ",13")
    with pytest.raises(NimmtError, match=twice):
        load_position(_write(tmp_path, "twice.json", {
            "players": 2, "rows": [list(r) for r in p.rows], "hand": list(p.hand),
            "gone": list(p.gone) + [13]}))
    with pytest.raises(NimmtError, match="other_hands lists 2 hands for p2..p2"):
        Position(p.variant, p.players, p.placement, p.rows, p.hand, (None, None), p.gone,
                 p.scores)
    with pytest.raises(NimmtError, match="scores lists 0 totals"):
        Position(p.variant, p.players, p.placement, p.rows, p.hand, p.other_hands, p.gone, ())
    with pytest.raises(NimmtError, match="card '13' in hand is not a card number"):
        Position(p.variant, p.players, p.placement, p.rows, ("13", "18", "22"),
                 p.other_hands, p.gone, p.scores)
    # apply_turn builds its result through the same checks: a turn that lost a card fails
    import nimmt.solver.kernels.engine  # noqa: F401
    from nimmt import solver

    real = solver.kernels.engine.resolve_turn

    def losing_a_card(*args, **kwargs):
        outcome = real(*args, **kwargs)
        return dataclasses.replace(outcome, rows=outcome.rows[:3] + ((24,),))  # 23 lost

    monkeypatch.setattr(solver.kernels.engine, "resolve_turn", losing_a_card)
    with pytest.raises(NimmtError):
        p.apply_turn([13, 15])


def test_positions_are_frozen_and_normalised():
    p = parse_position(BASE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.hand = (1,)  # type: ignore[misc]
    q = Position("tactical", 2, "normal", [[3, 7, 12], [14, 16], [19, 20, 21], [23]],
                 [22, 13, 18], [None], [11, 10, 9, 8, 6, 5, 4, 2, 1], [0, 0])
    assert q == p and q.hand == (13, 18, 22) and q.hands[1] == (15, 17, 24) and q.pool == ()
    assert isinstance(q.rows[0], tuple) and q.gone == tuple(sorted(q.gone))


CORRUPTIONS = ("duplicate", "outside", "drop gone", "add gone", "negative score",
               "score count", "row order", "empty row", "fifth row", "short hand", "variant")


def corrupt(fields: dict, how: str, rng) -> dict | None:
    """``fields`` with one fault, or None when ``how`` does not apply to them."""
    f = {**fields, "rows": [list(r) for r in fields["rows"]], "gone": list(fields["gone"]),
         "others": {i: list(h) for i, h in fields["others"].items()},
         "scores": list(fields["scores"])}
    top = 104 if f["variant"] == "standard" else 10 * f["players"] + 4
    if how == "duplicate":
        f["gone"].append(rng.choice(f["hand"] + [c for r in f["rows"] for c in r]))
    elif how == "outside":
        f["gone"].append(rng.choice([0, -1, top + 1, top + 50]))
    elif how == "drop gone":
        if not f["gone"]:
            return None
        f["gone"].remove(rng.choice(f["gone"]))
    elif how == "add gone":
        unseen = sorted(set(range(1, top + 1)) - {c for r in f["rows"] for c in r}
                        - set(f["gone"]) - set(f["hand"])
                        - {c for h in f["others"].values() for c in h})
        if not unseen:
            return None
        f["gone"].append(rng.choice(unseen))
    elif how == "negative score":
        f["scores"][rng.randrange(f["players"])] = -rng.randint(1, 99)
    elif how == "score count":
        f["scores"] = f["scores"][:-1] if rng.random() < 0.5 else f["scores"] + [0]
    elif how == "row order":
        long_rows = [r for r in f["rows"] if len(r) > 1]
        if not long_rows:
            return None
        rng.choice(long_rows).reverse()
    elif how == "empty row":
        f["rows"][rng.randrange(4)] = []
    elif how == "fifth row":
        f["rows"].append([f["gone"].pop()] if f["gone"] else [])
    elif how == "short hand":
        if not f["others"]:
            return None
        f["others"][rng.choice(sorted(f["others"]))].pop()
    elif how == "variant":
        f["variant"] = rng.choice(["classic", "Tactical", ""])
    return f


@settings(max_examples=80, deadline=None)
@given(variant=st.sampled_from(VARIANTS), players=st.integers(2, 10),
       placement=st.sampled_from(PLACEMENTS), cards_left=st.integers(1, 10),
       seed=st.integers(0, 2**40), how=st.sampled_from(CORRUPTIONS), salt=st.integers(0, 99))
def test_dealt_positions_have_no_problems_and_corruptions_have_some(variant, players, placement,
                                                                     cards_left, seed, how, salt):
    p = deal_position(Rules(variant, players, placement), cards_left, seed)
    fields = fields_of(p)
    assert problems(**fields) == []
    assert parse_position(format_position(p)) == p == Position.make(**fields)
    bad = corrupt(fields, how, random.Random(salt))
    if bad is None:
        return
    found = problems(**bad)
    assert found, (how, bad)
    assert all(m and "\n" not in m for m in found)
    with pytest.raises(NimmtError) as info:
        Position.make(**bad)
    assert str(info.value) == found[0]
