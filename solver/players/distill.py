"""Distilling a search into the learned policy (expert iteration).

Self-play tables of a search bot (``collect``: every seat the same bot, counted budgets) give
at each decision the features of every card in hand (``kernels.learned.card_features``) and
the search's value of each (its mean cows). ``fit_policy`` then fits a policy of the
``card_score`` layout, linear or with hidden units, to those values: the cross-entropy
between the policy and the softmax of minus the values over ``tau`` cows, by L-BFGS
(scipy), from weights drawn from the seed. A policy fitted so plays, without search, the
cards the search prefers, and as the playouts of that search it models opponents who play
like the search; fitted again on the new search's decisions, the two improve in turn.

The decisions are kept in a file (``DecisionSet``, numpy's npz) written after every piece of
rounds; a collection stopped anywhere goes on from the rounds it holds, and the same
arguments give the same decisions (each round's deal and bots come from the seed and the
round's number), so the result depends on the seed and the counts only.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from ..base.deck import HAND_SIZE
from ..base.errors import NimmtError
from ..base.rules import Rules
from ..kernels.engine import jit
from ..kernels.learned import FEATURES, card_features
from ..positions.position import Position
from .bots import make_policy, playout_arrays
from .policy import Bot, BotSpec, Decision, Seen
from .seats import Table, bot_seed, deal_cards

__all__ = ["DecisionSet", "collect", "fit_policy", "hand_features", "policy_loss",
           "policy_scores"]


@jit
def hand_features(table, hand, count, players, deck_size, professional):
    """The features of hand[:count] on ``table``, one row a card."""
    f = np.zeros((count, FEATURES))
    for i in range(count):
        card_features(table, hand, count, i, players, deck_size, professional, f[i])
    return f


@dataclass
class DecisionSet:
    """Decisions of a search: feats[d, i] the features of card i of decision d's hand (zero
    past its ``count``), values[d, i] the search's mean cows of that card, rounds[d] the
    round the decision was taken in; ``done`` rounds collected."""

    feats: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    rounds: np.ndarray
    done: int

    @classmethod
    def empty(cls) -> DecisionSet:
        return cls(np.zeros((0, HAND_SIZE, FEATURES)), np.zeros((0, HAND_SIZE)),
                   np.zeros(0, np.int64), np.zeros(0, np.int64), 0)

    @classmethod
    def load(cls, path: str) -> DecisionSet:
        """A set written by ``save``."""
        try:
            with np.load(path) as data:
                got = cls(data["feats"], data["values"], data["counts"], data["rounds"],
                          int(data["done"]))
        except (OSError, KeyError, ValueError) as e:
            raise NimmtError(f"{path} is not a decision set ({e}); remove it to start over"
                             ) from None
        if got.feats.shape[1:] != (HAND_SIZE, FEATURES):
            raise NimmtError(f"{path} holds features of another version of nimmt; remove it")
        return got

    def save(self, path: str) -> None:
        """Write atomically (a temporary file renamed over ``path``)."""
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".npz")
        os.close(fd)
        try:
            np.savez_compressed(tmp, feats=self.feats, values=self.values, counts=self.counts,
                                rounds=self.rounds, done=self.done)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def extend(self, feats: list[np.ndarray], values: list[np.ndarray],
               rounds: list[int], done: int) -> None:
        """Add decisions (one array of k rows or k values each) and set ``done``."""
        n = len(values)
        f = np.zeros((n, HAND_SIZE, FEATURES))
        v = np.zeros((n, HAND_SIZE))
        counts = np.zeros(n, np.int64)
        for d, (x, y) in enumerate(zip(feats, values)):
            counts[d] = len(y)
            f[d, :len(y)] = x
            v[d, :len(y)] = y
        self.feats = np.concatenate([self.feats, f])
        self.values = np.concatenate([self.values, v])
        self.counts = np.concatenate([self.counts, counts])
        self.rounds = np.concatenate([self.rounds, np.asarray(rounds, np.int64)])
        self.done = done


class _Recorder(Bot):
    """A search bot that keeps, at each decision with a choice, its hand's features and
    its values (``MonteCarloBot.values``), and plays its best card."""

    def __init__(self, spec: BotSpec, seed: int, sink: Callable[[np.ndarray, np.ndarray],
                                                                None]) -> None:
        super().__init__(spec, seed)
        self.inner = make_policy(spec, seed)
        if not hasattr(self.inner, "values"):
            raise NimmtError(f"{spec} gives no value per card; distil an mcs bot")
        self.sink = sink

    def see(self, history: Sequence[Seen]) -> None:
        self.inner.see(history)

    def choose(self, position: Position) -> Decision:
        if position.cards_left == 1:
            return Decision(position.hand[0])
        values = self.inner.values(position)  # type: ignore[attr-defined]
        _, _, _, table = playout_arrays(position)
        hand = np.asarray(position.hand, np.int64)
        self.sink(hand_features(table, hand, len(hand), position.players,
                                position.deck_size, position.professional),
                  np.asarray([values[c] for c in position.hand]))
        return Decision(min(values, key=lambda c: (values[c], c)))


def collect(spec: BotSpec, rules: Rules, rounds: int, seed: int, path: str,
            piece: int = 20, progress: Callable[[DecisionSet], None] | None = None
            ) -> DecisionSet:
    """Play rounds 0..rounds-1 of ``rules`` with every seat ``spec`` (round r's deal and
    bots from ``seed`` and r) and keep every decision with a choice in ``path``, written
    after each ``piece`` rounds and on Ctrl-C; rounds already in ``path`` are not played
    again."""
    data = DecisionSet.load(path) if os.path.exists(path) else DecisionSet.empty()
    pending: list[tuple[np.ndarray, np.ndarray, int]] = []  # decisions not yet in ``data``
    now = [data.done]  # the round in play

    def sink(f: np.ndarray, v: np.ndarray) -> None:
        pending.append((f, v, now[0]))

    def keep(done: int) -> None:
        whole = [d for d in pending if d[2] < done]  # whole rounds only
        data.extend([d[0] for d in whole], [d[1] for d in whole], [d[2] for d in whole], done)
        pending.clear()
        data.save(path)

    try:
        for r in range(data.done, rounds):
            now[0] = r
            rows, hands = deal_cards(rules, seed, r, 0)
            bots = [_Recorder(spec, bot_seed(seed, r, p), sink) for p in range(rules.players)]
            Table(rules, rows, hands, bots).play()
            if (r + 1) % piece == 0 or r + 1 == rounds:
                keep(r + 1)
                if progress:
                    progress(data)
    except KeyboardInterrupt:
        keep(now[0])
        raise
    return data


def _unpack(theta: np.ndarray, units: int) -> tuple[np.ndarray, ...]:
    """card_score's layout: linear part, input weights (FEATURES x units), biases, outputs."""
    d = FEATURES
    linear = theta[:d]
    inputs = theta[d:d + d * units].reshape(d, units)
    biases = theta[d + d * units:d + d * units + units]
    outputs = theta[d + d * units + units:]
    return linear, inputs, biases, outputs


def policy_scores(theta: np.ndarray, feats: np.ndarray, units: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``card_score`` of every card of ``feats`` (..., FEATURES) at once, and the hidden
    units' outputs."""
    linear, inputs, biases, outputs = _unpack(theta, units)
    hidden = np.maximum(feats @ inputs + biases, 0.0)
    return feats @ linear + hidden @ outputs, hidden


def policy_loss(theta: np.ndarray, data: DecisionSet, units: int, tau: float,
                l2: float = 1e-4) -> tuple[float, np.ndarray]:
    """The mean cross-entropy of the policy ``theta`` against softmax(-values / tau) over
    each decision's cards, plus ``l2`` times the squared weights; and its gradient."""
    outputs = _unpack(theta, units)[3]
    x, mask = data.feats, np.arange(HAND_SIZE)[None, :] < data.counts[:, None]
    score, hidden = policy_scores(theta, x, units)
    target = np.where(mask, -(data.values - np.where(mask, data.values, np.inf)
                              .min(1, keepdims=True)) / tau, -np.inf)
    target = np.exp(target - target.max(1, keepdims=True))
    target /= target.sum(1, keepdims=True)
    score = np.where(mask, score, -np.inf)
    score = score - score.max(1, keepdims=True)
    expo = np.exp(score)
    total = expo.sum(1, keepdims=True)
    logp = np.where(mask, score - np.log(total), 0.0)
    n = len(x)
    loss = -float((target * logp).sum()) / n + l2 * float(theta @ theta)
    g = -(target - expo / total) / n  # d loss / d score
    grad_hidden = g[:, :, None] * outputs * (hidden > 0)
    grad = np.concatenate([
        np.einsum("nk,nkd->d", g, x),
        np.einsum("nkd,nkh->dh", x, grad_hidden).ravel(),
        grad_hidden.sum((0, 1)),
        np.einsum("nk,nkh->h", g, hidden)]) + 2 * l2 * theta
    return loss, grad


def fit_policy(data: DecisionSet, units: int = 8, tau: float = 0.25, seed: int = 1,
               iterations: int = 1500, start: np.ndarray | None = None
               ) -> tuple[np.ndarray, float]:
    """Weights of ``card_score``'s layout with ``units`` hidden units fitted to ``data``
    (``policy_loss``, L-BFGS), from ``start`` or weights drawn from ``seed``; and the
    loss reached."""
    if not len(data.values):
        raise NimmtError("no decisions to fit: collect some first")
    rng = np.random.default_rng(seed)
    size = FEATURES + units * (FEATURES + 2)
    theta = start if start is not None else np.concatenate([
        np.zeros(FEATURES), rng.normal(0, 0.3, FEATURES * units), np.zeros(units),
        rng.normal(0, 0.3, units)])
    if theta.shape != (size,):
        raise NimmtError(f"start weights hold {theta.size} numbers, not {size}")
    result = minimize(policy_loss, theta, args=(data, units, tau), jac=True,
                      method="L-BFGS-B", options={"maxiter": iterations})
    return result.x, float(result.fun)
