"""Determinisations: the hidden hands dealt from the pool, uniformly or weighted by beliefs.

A search that cannot see the other hands plays many deals of them (determinisations).
``deal_hidden`` deals every hidden hand uniformly from the pool: every split of the pool is
as likely as any other, whatever the players have done so far this round.
``history_log_likelihood`` is how likely a hidden player was to play what it did play at
the turns seen this round, holding the hand a deal gives it (its hand at an earlier turn
is its hand now plus the cards it has played since), each card played by the learned
policy (``kernels.learned``) with probability ``trust`` and at random otherwise: the model
of how people play. ``belief_deals`` draws deals from the posterior over the hidden hands
with that likelihood, by Markov chains of card swaps (``players.bots.belief_sample`` is
the bots' way in).
"""
from __future__ import annotations

import numpy as np

from ..base.deck import HAND_SIZE
from .engine import jit, jit_inline, rng_below, rng_seed
from .learned import FEATURES, play_probs

__all__ = ["belief_deals", "deal_hidden", "history_log_likelihood", "likelihood_work",
           "player_log_likelihood"]


@jit_inline
def deal_hidden(hands, hidden, pool, n, k, rng):
    """A determinisation: deal k cards to every hidden player p (hidden[p] = 1) into
    hands[p, :k], drawn without replacement from ``pool`` (shuffled in place) by ``rng``."""
    remaining = pool.shape[0]
    for p in range(n):
        if hidden[p]:
            for c in range(k):
                x = rng_below(rng, remaining)
                hands[p, c] = pool[x]
                remaining -= 1
                pool[x] = pool[remaining]


@jit_inline
def history_log_likelihood(weights, trust, hands, p, n, k, deck_size, professional,
                           past_tables, past_cards, seen, hand, feats, probs):
    """The log-probability that player p, holding hands[p, :k] now, played past_cards[t, p]
    at each seen turn t < ``seen`` on the rows past_tables[t] (the row table before that
    turn), each card played by the learned policy (``weights``) with probability ``trust``
    and uniformly at random otherwise: at turn t its hand was hands[p, :k] and
    past_cards[t:seen, p]. ``hand``, ``feats`` and ``probs`` are work areas (HAND_SIZE,
    (HAND_SIZE, FEATURES), HAND_SIZE)."""
    total = 0.0
    for t in range(seen):
        count = k + seen - t
        for i in range(k):
            hand[i] = hands[p, i]
        for u in range(t, seen):
            hand[k + u - t] = past_cards[u, p]
        play_probs(weights, past_tables[t], hand, count, n, deck_size, professional, feats,
                   probs)
        # hand[k] is the card played at t
        total += np.log(max(trust * probs[k] + (1.0 - trust) / count, 1e-300))
    return total


@jit
def player_log_likelihood(weights, trust, hands, p, n, k, deck_size, professional,
                          past_tables, past_cards, seen, hand, feats, probs):
    """``history_log_likelihood`` of player p as one compiled call, with the work areas
    ``likelihood_work()`` makes. ``belief_deals`` calls it at three places: each place
    of an inlined copy cost numba's compiler a copy of the policy's code (compiling the
    beliefs took 67 s with three copies, 26 s with this one, at the same speed)."""
    return history_log_likelihood(weights, trust, hands, p, n, k, deck_size, professional,
                                  past_tables, past_cards, seen, hand, feats, probs)


def likelihood_work() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The work areas ``player_log_likelihood`` takes: hand, feats and probs."""
    return np.zeros(HAND_SIZE, np.int64), np.zeros((HAND_SIZE, FEATURES)), np.zeros(HAND_SIZE)


@jit
def belief_deals(hands0, hidden, pool0, n, k, deck_size, professional, weights, trust,
                 past_tables, past_cards, seen, seed, chains, burn, thin, dealt, accepted):
    """Deals of the hidden hands drawn from the beliefs by Markov chain Monte Carlo, into
    dealt (M, n, HAND_SIZE), the known hands as in ``hands0``: ``chains`` chains, chain c
    on stream (seed, c), each starting from a deal of the pool (``deal_hidden``), making
    ``burn`` steps, then keeping a deal every ``thin`` steps, M / chains deals a chain.

    A step swaps one card of a hidden player's hand (each slot alike) with one card of the
    pool outside that hand (each alike: another hidden player's, or one no player holds), a
    proposal as likely as its reverse, and accepts it with probability min(1, the ratio of
    the likelihoods after and before) (Metropolis), the likelihood being the product of the
    hidden players' ``history_log_likelihood`` over the ``seen`` turns of ``past_tables``
    and ``past_cards`` (every player's card at each turn, player 1 first) with ``trust``;
    the deals kept are drawn, as the chains grow, from the posterior over the hidden
    hands. accepted[0] = the share of steps accepted."""
    m_count = dealt.shape[0]
    per_chain = m_count // chains
    size = pool0.shape[0]
    hands = np.empty_like(hands0)
    pool = np.empty_like(pool0)
    where = np.zeros(size, np.int64)    # slot of pool[x]: p * HAND_SIZE + i, or -1 (no one)
    logl = np.zeros(n)
    who = np.zeros(n * HAND_SIZE, np.int64)  # hidden slots as p * HAND_SIZE + i
    rng = np.zeros(1, np.uint64)
    hand = np.zeros(HAND_SIZE, np.int64)
    feats = np.zeros((HAND_SIZE, FEATURES))
    probs = np.zeros(HAND_SIZE)
    slots = 0
    for p in range(n):
        if hidden[p]:
            for i in range(k):
                who[slots] = p * HAND_SIZE + i
                slots += 1
    steps, taken, out = 0, 0, 0
    for c in range(chains):
        rng[0] = rng_seed(seed, c)
        hands[:, :] = hands0
        pool[:] = pool0
        deal_hidden(hands, hidden, pool, n, k, rng)
        # the pool's cards in order: the hidden hands' first, then the rest (where -1)
        x = 0
        for s in range(slots):
            p, i = who[s] // HAND_SIZE, who[s] % HAND_SIZE
            pool[x] = hands[p, i]
            where[x] = who[s]
            x += 1
        for y in range(size):  # the cards no hidden hand holds, after the held ones
            card = pool0[y]
            held = False
            for s in range(slots):
                if pool[s] == card:
                    held = True
                    break
            if not held:
                pool[x] = card
                where[x] = -1
                x += 1
        for p in range(n):
            if hidden[p]:
                logl[p] = player_log_likelihood(weights, trust, hands, p, n, k, deck_size,
                                                professional, past_tables, past_cards,
                                                seen, hand, feats, probs)
        total_steps = burn + thin * per_chain
        for step in range(total_steps):
            a = rng_below(rng, slots)            # a hidden slot: pool[a], held by where[a]
            b = rng_below(rng, size - k)         # a card of the pool outside that hand
            p = where[a] // HAND_SIZE
            # skip the k positions of p's own hand in the pool's order
            y = 0
            count = -1
            while True:
                if where[y] < 0 or where[y] // HAND_SIZE != p:
                    count += 1
                    if count == b:
                        break
                y += 1
            q = where[y] // HAND_SIZE if where[y] >= 0 else -1
            i, j = where[a] % HAND_SIZE, where[y] % HAND_SIZE
            old = logl[p] + (logl[q] if q >= 0 else 0.0)
            hands[p, i] = pool[y]
            if q >= 0:
                hands[q, j] = pool[a]
            new_p = player_log_likelihood(weights, trust, hands, p, n, k, deck_size,
                                          professional, past_tables, past_cards, seen, hand,
                                          feats, probs)
            new_q = 0.0
            if q >= 0:
                new_q = player_log_likelihood(weights, trust, hands, q, n, k, deck_size,
                                              professional, past_tables, past_cards, seen,
                                              hand, feats, probs)
            delta = new_p + new_q - old
            u = (rng_below(rng, 1 << 30) + 0.5) / (1 << 30)
            steps += 1
            if delta >= 0.0 or u < np.exp(delta):
                taken += 1
                logl[p] = new_p
                if q >= 0:
                    logl[q] = new_q
                card = pool[a]  # position a stays p's slot i, y stays where it was
                pool[a] = pool[y]
                pool[y] = card
            else:
                hands[p, i] = pool[a]
                if q >= 0:
                    hands[q, j] = pool[y]
            if step >= burn and (step - burn) % thin == thin - 1 and out < m_count:
                dealt[out, :, :] = hands
                out += 1
    while out < m_count:  # M not a multiple of chains: the last deals again
        dealt[out, :, :] = dealt[out - per_chain if out >= per_chain else 0]
        out += 1
    accepted[0] = taken / max(1, steps)
