"""Training the learned card policy by self-play, and the weights the package ships.

``train`` runs REINFORCE with Adam on ``kernels.learned.self_play_gradient``: step s plays
ROUNDS_PER_STEP self-play rounds of the setting SETTINGS[s % len(SETTINGS)] (players and deck
size: every player count 2-10 of the tactical and standard decks comes round) from the
random stream (seed, s). The result depends on the seed and the number of steps only, so a
run stopped (Ctrl-C, a lost machine) and resumed from its checkpoint ends with the very
weights of an uninterrupted run: the checkpoint holds the weights, Adam's moments and the
step, written atomically every ``checkpoint_every`` steps.

The shipped weights (POLICY_FILE) were made by ``python benchmarks/train_policy.py`` with the
seed and step count written in the file; ``load_weights`` reads them (or a file of the same
form given to a bot as ``weights=FILE``).
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..base.errors import NimmtError
from ..base.fileio import atomic_write_text, read_json
from ..kernels import engine
from ..kernels.learned import (
    FEATURE_NAMES,
    FEATURES,
    POLICY_GREEDY,
    POLICY_LEARNED,
    policy_rounds,
    self_play_gradient,
)

__all__ = ["POLICY_CODES", "POLICY_FILE", "ROUNDS_PER_STEP", "SETTINGS", "TrainState",
           "evaluate_seat", "load_weights", "train", "weights_document"]

POLICY_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "learned_policy.json")
ROUNDS_PER_STEP = 500
# (players, deck size): tactical decks 10n + 4 and the standard 104, 2 to 10 players
SETTINGS = ((4, 104), (4, 44), (2, 24), (3, 34), (5, 104), (6, 104), (3, 104), (5, 54),
            (10, 104), (2, 104), (6, 64), (8, 104))
LEARNING_RATE, BETA1, BETA2, EPSILON = 0.05, 0.9, 0.999, 1e-8
MAX_FILE = 1 << 20
MAX_UNITS = 256  # hidden units a weights file may hold (kernels.learned.card_score)
# The policies a playout or a seat can follow, by the code ``learned.policy_card`` reads.
POLICY_CODES = {**engine.BOT_CODES, "learned": POLICY_LEARNED, "greedy": POLICY_GREEDY}


@dataclass
class TrainState:
    """Where a training run stands: the weights, Adam's two moments, the steps done."""

    seed: int
    step: int
    weights: np.ndarray
    first: np.ndarray
    second: np.ndarray

    @classmethod
    def start(cls, seed: int) -> TrainState:
        """A run from zero weights."""
        zeros = np.zeros(FEATURES)
        return cls(seed, 0, zeros.copy(), zeros.copy(), zeros.copy())

    def to_json(self) -> str:
        """The checkpoint's text."""
        return json.dumps({"seed": self.seed, "step": self.step,
                           "weights": self.weights.tolist(), "first": self.first.tolist(),
                           "second": self.second.tolist()})

    @classmethod
    def from_file(cls, path: str) -> TrainState:
        """A checkpoint written by ``to_json``."""
        data = read_json(path, "training checkpoint", MAX_FILE)
        try:
            return cls(int(data["seed"]), int(data["step"]),
                       *(_vector(data[key], path) for key in ("weights", "first", "second")))
        except (KeyError, TypeError, ValueError) as e:
            raise NimmtError(f"{path} is not a training checkpoint ({e}); remove it to start "
                             "over") from None


def _vector(values: object, path: str, units: int = 0) -> np.ndarray:
    """``values`` as the weights of a policy with ``units`` hidden units
    (``kernels.learned.card_score``'s layout), or one clear error."""
    size = FEATURES + units * (FEATURES + 2)
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.zeros(0)
    if array.shape != (size,) or not np.all(np.isfinite(array)):
        what = (f"one per feature ({', '.join(FEATURE_NAMES)})" if not units else
                f"{FEATURES} linear, then {units} hidden units' {FEATURES + 2} each")
        raise NimmtError(f"{path}: expected {size} finite weights, {what}")
    return array


def train_step(state: TrainState) -> float:
    """One step of REINFORCE with Adam, in place; returns the mean cows a round."""
    n, deck = SETTINGS[state.step % len(SETTINGS)]
    grad = np.zeros(FEATURES)
    mean = self_play_gradient(state.weights, ROUNDS_PER_STEP, n, deck, False,
                              state.seed * 1_000_003 + state.step, grad)
    grad /= ROUNDS_PER_STEP
    state.step += 1
    state.first = BETA1 * state.first + (1 - BETA1) * grad
    state.second = BETA2 * state.second + (1 - BETA2) * grad ** 2
    first = state.first / (1 - BETA1 ** state.step)
    second = state.second / (1 - BETA2 ** state.step)
    state.weights = state.weights + LEARNING_RATE * first / (np.sqrt(second) + EPSILON)
    return float(mean)


def train(seed: int, steps: int, checkpoint: str | None = None, checkpoint_every: int = 500,
          progress: Callable[[TrainState, float], None] | None = None) -> TrainState:
    """Train to ``steps`` steps from seed ``seed``, resuming from ``checkpoint`` when it
    exists (its seed must match) and writing it every ``checkpoint_every`` steps and at the
    end; ``progress(state, mean cows)`` after each step. A KeyboardInterrupt writes the
    checkpoint of the last finished step before it goes on up."""
    state = TrainState.start(seed)
    if checkpoint and os.path.exists(checkpoint):
        state = TrainState.from_file(checkpoint)
        if state.seed != seed:
            raise NimmtError(f"{checkpoint} was made with seed {state.seed}, not {seed}: train "
                             f"with seed {state.seed} to resume it, or name another checkpoint")
    try:
        while state.step < steps:
            mean = train_step(state)
            if progress is not None:
                progress(state, mean)
            if checkpoint and state.step % checkpoint_every == 0:
                atomic_write_text(checkpoint, state.to_json())
    finally:
        if checkpoint:
            atomic_write_text(checkpoint, state.to_json())
    return state


def weights_document(state: TrainState) -> str:
    """The weights file's text: the weights by feature name, with how they were made."""
    return json.dumps({
        "policy": "softmax over card features (solver/kernels/learned.py)",
        "made_by": "python benchmarks/train_policy.py",
        "seed": state.seed, "steps": state.step, "rounds_per_step": ROUNDS_PER_STEP,
        "features": list(FEATURE_NAMES),
        "weights": [round(float(w), 6) for w in state.weights]}, indent=1) + "\n"


def load_weights(path: str | None = None) -> np.ndarray:
    """The policy's weights from a weights file (default: the shipped POLICY_FILE): a
    linear policy's FEATURES numbers, or with ``hidden_units`` H a network's (the layout of
    ``kernels.learned.card_score``)."""
    path = POLICY_FILE if path is None else path
    data = read_json(path, "policy weights", MAX_FILE)
    if not isinstance(data, dict) or data.get("features") != list(FEATURE_NAMES):
        raise NimmtError(f"{path} is not a weights file of this version of nimmt (its "
                         f"features must be {', '.join(FEATURE_NAMES)}); make one with "
                         "python benchmarks/train_policy.py")
    units = data.get("hidden_units", 0)
    if not isinstance(units, int) or isinstance(units, bool) or not 0 <= units <= MAX_UNITS:
        raise NimmtError(f"{path}: hidden_units must be a whole number 0..{MAX_UNITS}")
    return _vector(data.get("weights"), path, units)


def evaluate_seat(weights: np.ndarray, seat: str, players: int, deck_size: int, rounds: int,
                  seed: int = 99, others: str = "careful") -> float:
    """The cows a round of seat 1 played by ``seat`` (a POLICY_CODES name) among
    ``others``, over ``rounds`` rounds from ``seed`` (the deals do not depend on ``seat``)."""
    codes = np.full(players, POLICY_CODES[others], np.int64)
    codes[0] = POLICY_CODES[seat]
    cows = np.zeros(players, np.int64)
    policy_rounds(codes, weights, rounds, players, deck_size, False, seed, cows)
    return float(cows[0]) / rounds
