"""Helpers several test modules share: positions with the cows taken so far or a game's
scores, and two equilibria compared field by field. (The brute-force oracles are in
``naive.py``; the command line's checks in ``cli_checks.py``.)"""
from __future__ import annotations

import numpy as np
import pytest

from nimmt.solver.base.rules import card_cows
from nimmt.solver.kernels.table import COWS_SCALE
from nimmt.solver.positions.position import Position, format_position, parse_position


def with_taken(position: Position, taken) -> Position:
    return parse_position(format_position(position) + " taken=" + ",".join(map(str, taken)))


def split_gone(position: Position, seed: int) -> tuple[int, ...]:
    """Some split of the gone cards' cows between the players (for a ``taken=``)."""
    total = sum(card_cows(c) for c in position.gone)
    first = (seed * 7) % (total + 1)
    return (first, total - first) + (0,) * (position.players - 2)


def taken_of(position: Position) -> tuple[int, ...]:
    """The cows taken so far: given, or the gone cows split between players 1 and 2."""
    if position.taken_so_far is not None:
        return position.taken_so_far
    total = sum(card_cows(c) for c in position.gone)
    return (total // 2, total - total // 2) + (0,) * (position.players - 2)


def in_game(position: Position, scores, threshold=None) -> Position:
    """``position`` with its taken= (``taken_of``) and the game's scores (and threshold)."""
    text = format_position(position) + " scores=" + ",".join(map(str, scores))
    if position.taken is None:
        text += " taken=" + ",".join(map(str, taken_of(position)))
    if threshold is not None:
        text += f" threshold={threshold}"
    return parse_position(text)


# a state's cows are rounded to 1 / COWS_SCALE when stored, once for each level below
COWS_TOL = 10 * 0.5 / COWS_SCALE
FLOAT = 1e-12   # exploitability at float precision


def assert_same_equilibrium(new, old) -> None:
    assert new.value == old.value
    assert new.p1_frequency == old.p1_frequency and new.p2_frequency == old.p2_frequency
    assert new.p1_ev == old.p1_ev and new.p2_ev == old.p2_ev
    np.testing.assert_array_equal(new.matrix, old.matrix)
    assert new.p1_cows == pytest.approx(old.p1_cows, abs=COWS_TOL)
    assert new.exploitability < FLOAT and old.exploitability < FLOAT


def row_choice_deal() -> tuple[int, list[int]]:
    """A seed of a one-round two-player tactical game (``nimmt play``'s deal) whose first
    hand's lowest card is below every row and every card of the other hand: played first,
    it must take a row (a row choice); and that hand."""
    from nimmt.solver.base.rules import Rules
    from nimmt.solver.players.seats import deal_cards

    rules = Rules("tactical", 2, one_round=True)
    for seed in range(200):
        rows, hands = deal_cards(rules, seed, 0, 0)
        if min(hands[0]) < min(rows) and min(hands[0]) < min(hands[1]):
            return seed, hands[0]
    raise AssertionError("no such deal")


def wait_job(client, job, seconds=300):
    """Poll the board's job (its JSON, from a starlette TestClient) until it ends."""
    import time
    end = time.monotonic() + seconds
    while job["state"] in ("queued", "running"):
        assert time.monotonic() < end, job
        time.sleep(0.05)
        job = client.get(f"/api/jobs/{job['id']}").json()
    return job
