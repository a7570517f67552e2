"""Training the learned policy: reproducible from its seed, resumable from a checkpoint to the
very weights of an uninterrupted run, and it learns (a few hundred steps already play far
better than random); the shipped weights file and bad files."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nimmt.solver.base.errors import NimmtError
from nimmt.solver.kernels.learned import FEATURE_NAMES, FEATURES
from nimmt.solver.players import training
from nimmt.solver.players.training import (
    POLICY_FILE,
    TrainState,
    evaluate_seat,
    load_weights,
    train,
    weights_document,
)


def test_a_run_is_reproducible_and_resumes_to_the_same_weights(tmp_path, monkeypatch):
    monkeypatch.setattr(training, "ROUNDS_PER_STEP", 20)
    whole = train(seed=3, steps=8)
    again = train(seed=3, steps=8)
    assert np.array_equal(whole.weights, again.weights) and whole.step == 8
    checkpoint = str(tmp_path / "ck.json")
    half = train(seed=3, steps=5, checkpoint=checkpoint, checkpoint_every=2)
    assert TrainState.from_file(checkpoint).step == half.step == 5
    resumed = train(seed=3, steps=8, checkpoint=checkpoint)
    assert np.array_equal(resumed.weights, whole.weights)
    assert np.array_equal(resumed.second, whole.second)
    other = train(seed=4, steps=8)
    assert not np.array_equal(other.weights, whole.weights)


def test_an_interrupted_run_leaves_its_last_step_in_the_checkpoint(tmp_path, monkeypatch):
    monkeypatch.setattr(training, "ROUNDS_PER_STEP", 20)
    checkpoint = str(tmp_path / "ck.json")

    def stop(state, mean):
        if state.step == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(seed=1, steps=10, checkpoint=checkpoint, progress=stop)
    assert TrainState.from_file(checkpoint).step == 3
    assert np.array_equal(train(seed=1, steps=10, checkpoint=checkpoint).weights,
                          train(seed=1, steps=10).weights)


def test_a_checkpoint_of_another_seed_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(training, "ROUNDS_PER_STEP", 10)
    checkpoint = str(tmp_path / "ck.json")
    train(seed=1, steps=1, checkpoint=checkpoint)
    with pytest.raises(NimmtError, match="seed 1, not 2"):
        train(seed=2, steps=2, checkpoint=checkpoint)


def test_training_learns():
    """300 steps from zero weights: the policy, sampled, takes far fewer cows than a random
    player among `careful` players (4 players, standard deck, the same deals)."""
    state = train(seed=5, steps=300)
    learned = evaluate_seat(state.weights, "learned", 4, 104, 2000)
    random_seat = evaluate_seat(state.weights, "random", 4, 104, 2000)
    assert learned < random_seat - 3.0, (learned, random_seat)


def test_the_shipped_weights_beat_careful_among_careful_players():
    """What the shipped file was trained for: one seat on it takes fewer cows than a
    `careful` seat among `careful` players, in the standard and the tactical 4-player game."""
    weights = load_weights()
    for deck in (104, 44):
        assert evaluate_seat(weights, "greedy", 4, deck, 3000) < \
            evaluate_seat(weights, "careful", 4, deck, 3000)


def test_the_weights_file_round_trips_and_bad_files_are_one_error(tmp_path):
    state = TrainState.start(2)
    state.weights = np.arange(FEATURES, dtype=float) / 7
    path = tmp_path / "w.json"
    path.write_text(weights_document(state))
    assert load_weights(str(path)) == pytest.approx(state.weights, abs=1e-6)
    shipped = json.loads(open(POLICY_FILE).read())
    assert shipped["features"] == list(FEATURE_NAMES) and shipped["steps"] > 0
    path.write_text(json.dumps({"features": ["x"], "weights": [1.0]}))
    with pytest.raises(NimmtError, match="not a weights file"):
        load_weights(str(path))
    path.write_text(json.dumps({"features": list(FEATURE_NAMES), "weights": [1.0]}))
    with pytest.raises(NimmtError, match=f"expected {FEATURES} finite weights"):
        load_weights(str(path))
    units = 3
    net = np.linspace(-1, 1, FEATURES + units * (FEATURES + 2))
    path.write_text(json.dumps({"features": list(FEATURE_NAMES), "hidden_units": units,
                                "weights": net.tolist()}))
    assert load_weights(str(path)) == pytest.approx(net)
    path.write_text(json.dumps({"features": list(FEATURE_NAMES), "hidden_units": units,
                                "weights": net[:-1].tolist()}))
    with pytest.raises(NimmtError, match=f"expected {net.size} finite weights, {FEATURES} "
                                         f"linear, then {units} hidden units"):
        load_weights(str(path))
    path.write_text(json.dumps({"features": list(FEATURE_NAMES), "hidden_units": "x",
                                "weights": net.tolist()}))
    with pytest.raises(NimmtError, match="hidden_units must be a whole number"):
        load_weights(str(path))
    bad = tmp_path / "ck.json"
    bad.write_text("{}")
    with pytest.raises(NimmtError, match="not a training checkpoint"):
        TrainState.from_file(str(bad))
