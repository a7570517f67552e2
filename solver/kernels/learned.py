"""The learned card policy: a softmax over features of each card in hand, trained by self-play.

A card's features (``card_features``, FEATURES of them) say where it lands on the row table
and what that costs: whether it takes a row and the cows of the rule-following take, the
expected cows of landing (the ``careful`` rule of thumb's risk), the gap to the end it joins,
that row's length and cows, whether it is the sixth card, the card's height and its rank in
the hand, and some of these again times the share of the round still to play. The policy
plays card i with probability proportional to exp(score_i) (``policy_probs``): the score is
weights . features_i, plus, where the weights hold one, a small network's output on the same
features (``card_score``).
The weights are trained by REINFORCE in self-play (``self_play_gradient``; the loop, the
checkpoints and the shipped weights file are in ``solver/players/training.py``).

``policy_card`` is the one place the playouts of ``mcs`` and ``ismcts`` pick a card: a rule
bot by its engine code, or POLICY_LEARNED (sampled from the softmax) and POLICY_GREEDY (its
most likely card). The weights travel as an argument (a float64 array of FEATURES), never
as a global, so a kernel cached by numba can never hold stale weights.
"""
from __future__ import annotations

import numpy as np

from ..base.deck import HAND_SIZE, ROW_COUNT, ROW_LIMIT
from . import engine
from .engine import (
    COWS_COLUMN,
    END_LEFT,
    END_TAKE,
    END_TIE,
    FIRST,
    LAST,
    LENGTH,
    deal_round,
    end_cost,
    find_end,
    jit,
    jit_inline,
    rng_below,
    rng_seed,
    row_risk,
    rule_take_row,
)
from .turns import RULE_OPTION, play_option, sort_turn

__all__ = ["FEATURES", "FEATURE_NAMES", "POLICY_GREEDY", "POLICY_LEARNED", "card_features",
           "card_score", "hidden_units", "linear_score", "play_probs", "policy_card",
           "policy_card_untried", "policy_probs", "policy_rounds", "policy_scratch",
           "self_play_gradient"]

FEATURE_NAMES = ("takes a row", "cows of the take", "expected cows", "gap",
                 "closeness (1 / gap)", "row length", "row cows", "sixth card",
                 "card height", "rank in hand", "rank x round left", "take x round left",
                 "gap x round left", "height x round left")
FEATURES = len(FEATURE_NAMES)
# Codes beside the engine's rule bots (engine.BOT_CODES are 0..4; bots.PLAYOUT_MIX is 5).
POLICY_LEARNED, POLICY_GREEDY = 6, 7
# a card whose score is this far below the best is drawn with probability 0 (_learned_card)
FAR_BELOW = 50.0


@jit_inline
def _landing(table, hand, count, i, players, deck_size, professional):
    """Where hand[i] lands, as its features see it: (its rank in hand[:count], the end's
    kind and row (find_end), the gap to that end (0 for a take), the expected cows of
    landing: the rule-following take's cows, a left end's (professional) cows now, or
    ``careful``'s risk of a right end (the smaller of the two on a tie))."""
    card = hand[i]
    rank = 0
    for j in range(count):
        if hand[j] < card:
            rank += 1
    kind, a, b = find_end(table, card, professional)
    if kind == END_TAKE:
        return rank, kind, a, 0, float(table[rule_take_row(table), COWS_COLUMN])
    if kind == END_LEFT:
        return rank, kind, a, table[a, FIRST] - card, float(end_cost(table, a))
    gap = card - table[a, LAST]
    risk = row_risk(table, a, gap, players - 1, deck_size)
    if kind == END_TIE:
        risk = min(risk, float(end_cost(table, b)))
    return rank, kind, a, gap, risk


@jit_inline
def card_features(table, hand, count, i, players, deck_size, professional, f):
    """Fill f[:FEATURES] with the features of hand[i] (module docstring) on ``table``
    with ``count`` cards in hand at a table of ``players``, cards 1..deck_size."""
    card = hand[i]
    left = count / HAND_SIZE
    for j in range(FEATURES):
        f[j] = 0.0
    rank, kind, a, gap, risk = _landing(table, hand, count, i, players, deck_size,
                                        professional)
    if kind == END_TAKE:
        cost = risk / 10.0
        f[0], f[1], f[2], f[11] = 1.0, cost, cost, left
    else:
        if kind != END_LEFT:
            f[4] = 1.0 / gap
        f[2] = risk / 10.0
        f[3] = gap / deck_size
        f[5] = table[a, LENGTH] / ROW_LIMIT
        f[6] = table[a, COWS_COLUMN] / 10.0
        f[7] = 1.0 if table[a, LENGTH] == ROW_LIMIT else 0.0
        f[12] = left * gap / deck_size
    f[8] = card / deck_size
    f[9] = rank / max(1, count - 1)
    f[10] = f[9] * left
    f[13] = f[8] * left


def hidden_units(size: int) -> int:
    """The hidden units of a weights vector of ``size`` numbers (``card_score``'s layout):
    0 for a linear policy (FEATURES numbers); -1 when no layout has that size."""
    units, rest = divmod(size - FEATURES, FEATURES + 2)
    return units if size >= FEATURES and rest == 0 else -1


@jit_inline
def card_score(weights, f):
    """A card's score (its log-probability up to a constant) from its features f.
    weights[:FEATURES] is a linear part, weights . f; a longer vector adds a network of
    one hidden layer of H rectified linear units (``hidden_units``): after the linear part
    come the input weights W[d, h] (FEATURES x H, row by row), the biases b[h] and the
    output weights v[h], and the score gains sum_h v[h] max(0, b[h] + sum_d f[d] W[d, h])
    (rectified, not tanh: with a tanh a card's score took about 5 times as long)."""
    s = 0.0
    for j in range(FEATURES):
        s += weights[j] * f[j]
    units = (weights.shape[0] - FEATURES) // (FEATURES + 2)
    bias = FEATURES + FEATURES * units
    for h in range(units):
        a = weights[bias + h]
        for j in range(FEATURES):
            a += f[j] * weights[FEATURES + j * units + h]
        if a > 0.0:
            s += weights[bias + units + h] * a
    return s


@jit_inline
def linear_score(weights, table, hand, count, i, players, deck_size, professional):
    """``card_score(weights, f)`` of a linear policy (FEATURES weights), f the
    ``card_features`` of hand[i], without writing the features: the same terms added in
    the same order, those of features that are zero left out (adding a zero changes no
    sum), so the score is the same to the last bit (a test holds the two together on
    random tables). The playouts' hot path: about half the time of the two steps."""
    card = hand[i]
    left = count / HAND_SIZE
    rank, kind, a, gap, risk = _landing(table, hand, count, i, players, deck_size,
                                        professional)
    height = card / deck_size
    order = rank / max(1, count - 1)
    s = 0.0
    if kind == END_TAKE:
        cost = risk / 10.0
        s += weights[0] * 1.0
        s += weights[1] * cost
        s += weights[2] * cost
        s += weights[8] * height
        s += weights[9] * order
        s += weights[10] * (order * left)
        s += weights[11] * left
        s += weights[13] * (height * left)
        return s
    s += weights[2] * (risk / 10.0)
    s += weights[3] * (gap / deck_size)
    if kind != END_LEFT:
        s += weights[4] * (1.0 / gap)
    s += weights[5] * (table[a, LENGTH] / ROW_LIMIT)
    s += weights[6] * (table[a, COWS_COLUMN] / 10.0)
    if table[a, LENGTH] == ROW_LIMIT:
        s += weights[7] * 1.0
    s += weights[8] * height
    s += weights[9] * order
    s += weights[10] * (order * left)
    s += weights[12] * (left * gap / deck_size)
    s += weights[13] * (height * left)
    return s


@jit_inline
def _softmax(probs, count, top):
    """probs[:count] (scores, the largest ``top``) made a softmax in place."""
    total = 0.0
    for i in range(count):
        probs[i] = np.exp(probs[i] - top)
        total += probs[i]
    for i in range(count):
        probs[i] /= total


@jit_inline
def policy_probs(weights, table, hand, count, players, deck_size, professional, feats,
                 probs):
    """probs[:count] = the policy's probabilities of hand[:count] (a softmax of
    ``card_score``); feats[i] = the features of hand[i]."""
    top = -1e300
    for i in range(count):
        card_features(table, hand, count, i, players, deck_size, professional, feats[i])
        s = card_score(weights, feats[i])
        probs[i] = s
        top = max(top, s)
    _softmax(probs, count, top)


@jit_inline
def _score(weights, table, hand, count, i, players, deck_size, professional, feats):
    """The score of hand[i] where nothing needs its features: ``linear_score`` for a
    linear policy; a network's ``card_score`` of the features, written to feats[i]
    (``_network_score``; no view of the work area is made for a linear policy: its
    reference counting costs, once a card)."""
    if weights.shape[0] == FEATURES:
        return linear_score(weights, table, hand, count, i, players, deck_size, professional)
    return _network_score(weights, table, hand, count, i, players, deck_size, professional,
                          feats)


@jit
def _network_score(weights, table, hand, count, i, players, deck_size, professional, feats):
    """``_score`` of a policy with hidden units: ``card_score`` of hand[i]'s features,
    written to feats[i]. A call, not inlined: the shipped policy is linear, so the
    playouts' hot path is ``linear_score``, and the network's features (``_landing``
    again, with every rule step under it) are not copied into each kernel that scores a
    card (numba's inliner re-runs a callee's front end at each site: compile time)."""
    card_features(table, hand, count, i, players, deck_size, professional, feats[i])
    return card_score(weights, feats[i])


@jit_inline
def play_probs(weights, table, hand, count, players, deck_size, professional, feats, probs):
    """``policy_probs``'s probabilities, the same to the last bit, where nothing needs the
    features (``_score``; feats a work area)."""
    top = -1e300
    for i in range(count):
        s = _score(weights, table, hand, count, i, players, deck_size, professional, feats)
        probs[i] = s
        top = max(top, s)
    _softmax(probs, count, top)


@jit_inline
def _draw(probs, count, rng, total=1.0):
    """An index drawn with probabilities probs[:count] / ``total`` (one random number:
    u in (0, 1) against the running sum, times ``total``; 1.0 leaves u as it is)."""
    u = (rng_below(rng, 1 << 30) + 0.5) / (1 << 30) * total
    acc = 0.0
    for i in range(count - 1):
        acc += probs[i]
        if u < acc:
            return i
    return count - 1


@jit
def policy_scratch():
    """The work area ``policy_card`` needs: made once per kernel call, not per card (an
    allocation per card made the learned playouts a third slower)."""
    return np.empty((HAND_SIZE + 1, FEATURES))


@jit_inline
def policy_card(code, weights, hand, count, table, professional, rng, players, deck_size,
                scratch):
    """Index into hand[:count] of the card a playout's player plays: the rule bot of engine
    code ``code`` (engine.pick_card), or the learned policy (POLICY_LEARNED: drawn from
    its probabilities; POLICY_GREEDY: the most likely card, ties to the first).
    ``scratch``: a ``policy_scratch()`` work area. The playout loops of ``mcs`` and
    ``ismcts`` test ``code < POLICY_LEARNED`` themselves and call ``engine.pick_card``
    directly for a rule bot: with this function inlined in their loops (even the same
    branch) random playouts ran 1.1-2x slower than before the learned policy existed
    (benchmarks/playouts.py, old and new side by side); with the test at the call site
    they run as fast as before."""
    if code < POLICY_LEARNED or count == 1:
        return engine.pick_card(code, hand, count, table, professional, rng, players, deck_size)
    return _learned_card(code, weights, hand, count, table, professional, rng, players,
                         deck_size, scratch)


@jit
def _learned_card(code, weights, hand, count, table, professional, rng, players, deck_size,
                  scratch):
    """policy_card's learned branch (codes POLICY_LEARNED and POLICY_GREEDY): the cards'
    scores (``_score``); the greedy card is the best score (ties to the first), a drawn
    one is drawn from the scores' softmax without normalising it (one random number, as
    ``_draw`` takes; a score FAR_BELOW the best counts as probability 0: exp(-50) is
    2e-22, far below the draw's resolution of 2^-30), the same cards as ``policy_probs``
    and ``_draw`` give but for rounding at a boundary, in about 0.6 of the time."""
    scores = scratch[HAND_SIZE]
    top, best = -1e300, 0
    for i in range(count):
        s = _score(weights, table, hand, count, i, players, deck_size, professional, scratch)
        scores[i] = s
        if s > top:
            top, best = s, i
    if code != POLICY_LEARNED:
        return best
    total = 0.0
    for i in range(count):
        d = scores[i] - top
        e = np.exp(d) if d > -FAR_BELOW else 0.0
        scores[i] = e
        total += e
    return _draw(scores, count, rng, total)


@jit
def policy_card_untried(weights, hand, count, table, professional, rng, players, deck_size,
                        scratch, tried):
    """Index into hand[:count] of a card not yet tried (``tried[card]`` is 0; at least one
    card is not), drawn from the learned policy's probabilities renormalised over the cards
    not yet tried: the order in which a node of the tree search first plays a player's
    cards when its playouts are the learned policy's, instead of uniformly at random.
    ``scratch``: a ``policy_scratch()`` work area."""
    feats = scratch[:HAND_SIZE]
    probs = scratch[HAND_SIZE]
    top = -1e300
    for i in range(count):
        if tried[hand[i]] == 0.0:
            probs[i] = _score(weights, table, hand, count, i, players, deck_size, professional,
                              feats)
            top = max(top, probs[i])
    total = 0.0
    last = 0
    for i in range(count):
        if tried[hand[i]] == 0.0:
            probs[i] = np.exp(probs[i] - top)
            last = i
        else:
            probs[i] = 0.0
        total += probs[i]
    u = (rng_below(rng, 1 << 30) + 0.5) / (1 << 30) * total
    acc = 0.0
    for i in range(last):
        acc += probs[i]
        if u < acc:
            return i
    return last


@jit
def self_play_gradient(weights, rounds, n, deck_size, professional, seed, grad):
    """Play ``rounds`` rounds (stream (seed, g) for round g) with every seat on the learned
    policy (sampled; a linear one: ``weights`` of FEATURES numbers) and add to
    grad[:FEATURES] the REINFORCE gradient of the mean reward,
    per round and seat: sum over turns t of (features of the card played - their
    expectation) x advantage, the advantage being minus the cows the seat takes from
    turn t on, less the seats' mean of the same, in tens of cows. Returns the cows a seat
    takes in a round, on average."""
    rng = np.zeros(1, np.uint64)
    table = np.zeros((ROW_COUNT, 4), np.int64)
    hands = np.zeros((n, HAND_SIZE), np.int64)
    deck = np.zeros(deck_size, np.int64)
    bots = np.zeros(n, np.int64)
    feats = np.zeros((HAND_SIZE, FEATURES))
    probs = np.zeros(HAND_SIZE)
    moved = np.zeros((n, HAND_SIZE, FEATURES))  # played card's features less the mean
    took = np.zeros((n, HAND_SIZE))
    cards = np.zeros(n, np.int64)
    owners = np.zeros(n, np.int64)
    total = 0.0
    for g in range(rounds):
        rng[0] = rng_seed(seed, g)
        deal_round(n, deck_size, False, 0, bots, table, hands, deck, rng)
        took[:, :] = 0.0
        for t in range(HAND_SIZE):
            count = HAND_SIZE - t
            for p in range(n):
                policy_probs(weights, table, hands[p], count, n, deck_size, professional,
                             feats, probs)
                x = _draw(probs, count, rng)
                for j in range(FEATURES):
                    mean = 0.0
                    for i in range(count):
                        mean += probs[i] * feats[i, j]
                    moved[p, t, j] = feats[x, j] - mean
                cards[p] = hands[p, x]
                owners[p] = p
                hands[p, x] = hands[p, count - 1]
            sort_turn(cards, owners, n)
            for a in range(n):
                took[owners[a], t] += play_option(table, cards[a], professional, RULE_OPTION)
        for p in range(n):
            for t in range(HAND_SIZE - 2, -1, -1):  # cows from turn t on
                took[p, t] += took[p, t + 1]
            total += took[p, 0]
        for t in range(HAND_SIZE):
            base = 0.0
            for p in range(n):
                base += took[p, t]
            base /= n
            for p in range(n):
                advantage = (base - took[p, t]) / 10.0
                for j in range(FEATURES):
                    grad[j] += advantage * moved[p, t, j]
    return total / (rounds * n)


@jit
def policy_rounds(codes, weights, rounds, n, deck_size, professional, seed, cows):
    """Play ``rounds`` rounds (stream (seed, g) for round g), seat p by ``policy_card``'s
    code codes[p]; cows[p] += what seat p takes. Rule-following row choices."""
    rng = np.zeros(1, np.uint64)
    table = np.zeros((ROW_COUNT, 4), np.int64)
    hands = np.zeros((n, HAND_SIZE), np.int64)
    deck = np.zeros(deck_size, np.int64)
    cards = np.zeros(n, np.int64)
    owners = np.zeros(n, np.int64)
    scratch = policy_scratch()
    for g in range(rounds):
        rng[0] = rng_seed(seed, g)
        deal_round(n, deck_size, False, 0, codes, table, hands, deck, rng)
        for t in range(HAND_SIZE):
            count = HAND_SIZE - t
            for p in range(n):
                x = policy_card(codes[p], weights, hands[p], count, table, professional, rng,
                                n, deck_size, scratch)
                cards[p] = hands[p, x]
                owners[p] = p
                hands[p, x] = hands[p, count - 1]
            sort_turn(cards, owners, n)
            for a in range(n):
                cows[owners[a]] += play_option(table, cards[a], professional, RULE_OPTION)
