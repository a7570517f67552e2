"""Distilling a search into the learned policy (solver/players/distill.py): the decisions
collected against the search's own values and the reference features, resumed collections
against whole ones, the loss's gradient against finite differences, and a fit that finds a
known policy again."""
from __future__ import annotations

import numpy as np
import pytest

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.rules import HAND_SIZE, Rules
from nimmt.solver.kernels.learned import FEATURES, card_score
from nimmt.solver.players.distill import DecisionSet, collect, fit_policy, policy_loss
from nimmt.solver.players.policy import parse_bot

import naive

SPEC = parse_bot("mcs:playouts=8,playout=learned")


def test_a_collection_keeps_each_decision_s_features_and_values(tmp_path):
    rules = Rules("tactical", 3)
    data = collect(SPEC, rules, 2, 5, str(tmp_path / "d.npz"), piece=1)
    assert data.done == 2 and len(data.values) == 2 * 3 * (HAND_SIZE - 1)
    assert sorted(set(data.rounds.tolist())) == [0, 1]
    for d in range(len(data.values)):
        k = int(data.counts[d])
        assert 2 <= k <= HAND_SIZE
        assert np.all(data.feats[d, k:] == 0) and np.all(data.values[d, k:] == 0)
        assert np.all(data.values[d, :k] >= 0)  # mean cows
    first = data.feats[0, :HAND_SIZE]  # seat 1's first decision: the dealt hand on the rows
    from nimmt.solver.players.seats import deal_cards
    rows, hands = deal_cards(rules, 5, 0, 0)
    hand = sorted(hands[0])
    for i, card in enumerate(hand):
        assert first[i] == pytest.approx(naive.learned_features(
            card, hand, [[r] for r in rows], 3, rules.deck_size, False), abs=1e-12)


def test_a_stopped_collection_resumes_to_the_same_decisions(tmp_path):
    rules = Rules("tactical", 2)
    whole = collect(SPEC, rules, 3, 7, str(tmp_path / "whole.npz"), piece=3)
    part = str(tmp_path / "part.npz")
    collect(SPEC, rules, 1, 7, part, piece=1)
    assert DecisionSet.load(part).done == 1
    resumed = collect(SPEC, rules, 3, 7, part, piece=1)
    for name in ("feats", "values", "counts", "rounds"):
        assert np.array_equal(getattr(resumed, name), getattr(whole, name)), name
    (tmp_path / "bad.npz").write_text("no")
    with pytest.raises(NimmtError, match="is not a decision set"):
        DecisionSet.load(str(tmp_path / "bad.npz"))


def synthetic(units: int, seed: int, tau: float) -> tuple[DecisionSet, np.ndarray]:
    """Decisions whose values are minus tau times a known policy's scores: fitting them
    should give that policy's probabilities back."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, 1, FEATURES + units * (FEATURES + 2))
    data = DecisionSet.empty()
    feats, values = [], []
    for _ in range(300):
        k = int(rng.integers(2, HAND_SIZE + 1))
        f = rng.uniform(0, 1, (k, FEATURES))
        feats.append(f)
        values.append(np.asarray([-tau * card_score(truth, f[i]) for i in range(k)]))
    data.extend(feats, values, [0] * len(values), 1)
    return data, truth


@pytest.mark.parametrize("units", [0, 3])
def test_the_gradient_is_the_loss_s(units):
    data, _ = synthetic(units, 1, 0.5)
    theta = np.random.default_rng(2).normal(0, 0.5, FEATURES + units * (FEATURES + 2))
    loss, grad = policy_loss(theta, data, units, 0.5)
    for j in range(0, theta.size, 7):
        step = np.zeros_like(theta)
        step[j] = 1e-6
        numeric = (policy_loss(theta + step, data, units, 0.5)[0]
                   - policy_loss(theta - step, data, units, 0.5)[0]) / 2e-6
        assert grad[j] == pytest.approx(numeric, rel=1e-4, abs=1e-7), j


def test_a_fit_finds_a_linear_policy_again():
    data, truth = synthetic(0, 3, 0.25)
    weights, loss = fit_policy(data, units=0, tau=0.25, iterations=500)
    best, _ = policy_loss(truth, data, 0, 0.25, l2=0.0)
    assert loss <= best + 0.01  # as good as the truth (up to the small L2)
    for d in range(20):
        k = int(data.counts[d])
        fitted = [card_score(weights, data.feats[d, i]) for i in range(k)]
        want = [card_score(truth, data.feats[d, i]) for i in range(k)]
        p, q = np.exp(fitted - np.max(fitted)), np.exp(want - np.max(want))
        assert p / p.sum() == pytest.approx(q / q.sum(), abs=0.05)
    with pytest.raises(NimmtError, match="no decisions"):
        fit_policy(DecisionSet.empty())
