"""Bots: one policy interface for every player that chooses a card and its row choices.

A bot is built from a name that may carry parameters, ``expecti:samples=500,time=0.2``
(``make_policy``), and answers two questions, always from its own seat's view (a
``Position`` whose player 1 is the bot: its own hand, the rows, the cards gone; hidden
hands form the pool in tactical and standard, every hand is known in logic):

* ``choose(position) -> Decision``: the card to play, with the row choices it would make
  for that card on the rows as they are (which row to take if the card has no legal end,
  which end on a professional tie; -1 is the rule-following choice of docs/RULES.md);
* ``choose_option(moment) -> int``: the choice to make now that the turn's cards are
  revealed and its card has reached the rows with more than one option (a ``Moment``:
  the position before the turn, every card of the turn, the choices made before it and
  the rows it meets). The answer is an option of ``turns.option_choices`` (0..count-1), or
  -1 for the rule-following choice.

Bots (README's bot table):

* ``random``, ``closest``, ``lowkeeper``, ``dumper``, ``careful``: the engine's rule-of-thumb
  kernels (``engine.bot_card``), rule-following row choices; ``careful`` plays the card
  of fewest expected cows this turn (``engine._careful_index``);
* ``learned``: the learned policy (``kernels/learned.py``): a softmax over features of each
  card, trained by self-play (``players/training.py``, the shipped weights); its most
  likely card, or with ``play=sampled`` a card drawn from it. No search;
* ``expecti``: the card ``analyse`` ranks best against the random model; exact search when
  the estimate fits ``nodes`` (stopping at ``nodes``), Monte Carlo with ``samples`` per card
  otherwise; its row choices minimise this turn's cows plus the best value of the position
  after the turn (the same model);
* ``paranoid``: the best card against the worst model (cows it can guarantee) when exact
  search fits ``nodes``, ``expecti`` before; row choices likewise;
* ``nash``: two players with both hands known and at most ``k`` cards left (default 7):
  a card drawn from its equilibrium strategy (``nash.solve_nash``), row choices by the
  zero-sum value (this turn's cows minus the opponent's, plus the game value after);
  ``expecti`` otherwise;
* ``mcs``: flat Monte Carlo: for each card, ``playouts`` playouts of the rest of the round
  with every player (itself included) playing the cards of ``playout`` (uniformly random
  by default; a rule bot, ``closest``, ``lowkeeper``, ``dumper`` or ``careful``;
  ``mix``, a rule bot drawn for each player and playout; or ``learned``, the learned
  policy, a card drawn from its probabilities) and rule-following rows, the
  hidden hands dealt from the pool; the card with the fewest mean cows (a numba kernel over
  the engine's rule steps). Row choices rule-following.
* ``ismcts``: information-set Monte Carlo tree search for simultaneous moves: each of
  ``iterations`` iterations deals the hidden hands from the pool, descends a tree of joint
  turns where every player picks its card by UCB over its own statistics at the node
  (decoupled UCT, availability-counted), adds a node, plays the rest as ``mcs``'s
  playouts do (``playout``) and backs up each player's own cows; the most visited card
  at the root (a numba kernel). Row choices rule-following.

Objectives (``objective=``): ``expecti``, ``paranoid``, ``mcs`` and ``ismcts`` play
for ``cows`` (default), ``margin`` (own cows minus the others' mean) or ``win`` (the share of
the fewest cows at the end of the round, cows taken so far included: the seat's view needs
``taken``); ``nash``'s equilibrium is the zero-sum margin game, its ``expecti`` part uses the
objective. Search results are turned into costs (lower is better, ``costs``).

Every bot is deterministic for its seed when its budget is counted (nodes, samples,
playouts); a ``time`` budget makes a decision depend on the machine's speed. Budgets are
bounds: a counted budget is never passed, and with ``time=T`` the whole
decision (its row choices too) comes within max(10%, 50 ms) of T once the kernels are
loaded (``benchmarks/budgets.py`` measures it): exact searches are stopped by a watcher
thread, Monte Carlo sizes its batches to the time left, kernels run in ``ChunkSizer``
chunks with the clock read between them.
"""
from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..base.defaults import (
    BELIEF_BURN,
    BELIEF_CHAINS,
    BELIEF_DEALS,
    BELIEF_THIN,
    BELIEF_TRUST,
    BOT_MEMORY,
    DEFAULT_MAX_NODES,
    DEFAULT_SAMPLES,
)
from ..base.errors import NimmtError, SearchStopped, param
from ..base.notice import work_clock
from ..base.rules import HAND_SIZE, ROW_COUNT
from ..kernels import engine, turns
from ..kernels.beliefs import belief_deals, deal_hidden
from ..kernels.engine import jit, jit_inline, rng_below, rng_seed
from ..kernels.learned import (
    POLICY_GREEDY,
    POLICY_LEARNED,
    policy_card,
    policy_card_untried,
    policy_scratch,
)
from ..kernels.objective import G_TAKEN, playout_cost
from ..positions.objective import as_costs, playout_goal, round_end_cost, turn_cost
from ..positions.owners import estimate_nodes
from ..positions.position import Position
from ..search.analysis import analyse
from ..search.auto import AutoBudget, run_auto
from ..search.exact import solve_exact
from ..search.nash import solve_nash
from .policy import (
    BOT_NAMES,
    PARAMETERS,
    RULE_BOTS,
    SEARCH_BOTS,
    Bot,
    BotSpec,
    Decision,
    Moment,
    Policy,
    Seen,
    parse_bot,
    parse_bots,
    split_bot_list,
)
from .training import load_weights

__all__ = ["BOT_NAMES", "Bot", "BotSpec", "ChunkSizer", "DETERMINISTIC", "Decision", "Moment",
           "NO_DEALS", "belief_sample",
           "PARAMETERS", "Policy", "RULE_BOTS", "RowOption", "SEARCH_BOTS", "deadline_of",
           "is_deterministic", "kernel_card", "kernel_code", "make_policy",
           "moment_of", "parse_bot", "parse_bots", "playout_arrays", "rank_row_options",
           "row_choices", "seconds_left", "shipped_weights", "split_bot_list", "bot_weights"]

class RuleBot(Bot):
    """A rule-of-thumb bot: the engine's kernel (``engine.bot_card``)."""

    def choose(self, position: Position) -> Decision:
        return planned(position, engine.bot_card(
            self.spec.name, position.hand, position.rows, position.professional,
            seed=self.next_seed(), players=position.players, deck_size=position.deck_size))


# Bots whose card is a function of their hand, the rows and the table (no random number).
DETERMINISTIC = ("closest", "lowkeeper", "dumper", "careful", "learned:play=greedy")


def kernel_code(spec: BotSpec) -> int:
    """The code ``learned.policy_card`` plays ``spec`` by inside a kernel: a rule bot's
    engine code or the learned policy's (greedy or sampled); -1 for a search."""
    if spec.name == "learned":
        return POLICY_GREEDY if spec.params["play"] == "greedy" else POLICY_LEARNED
    return engine.BOT_CODES.get(spec.name, -1)


def is_deterministic(spec: BotSpec) -> bool:
    """Whether ``spec``'s card is a function of its hand and the rows (DETERMINISTIC)."""
    return spec.name in DETERMINISTIC or kernel_code(spec) == POLICY_GREEDY


def kernel_card(spec: BotSpec, hand: Sequence[int], rows: Sequence[Sequence[int]],
                professional: bool, players: int, deck_size: int, seed: int = 0) -> int:
    """The card a bot that plays inside kernels (``kernel_code`` >= 0) plays from ``hand``
    on these rows; random draws from stream (seed, 0)."""
    cards = np.asarray(hand, np.int64)
    rng = np.array([rng_seed(seed, 0)], np.uint64)
    index = policy_card(kernel_code(spec), bot_weights(spec), cards, len(cards),
                        engine.row_table(rows), professional, rng, players, deck_size,
                        policy_scratch())
    return int(cards[index])


class LearnedBot(Bot):
    """The learned policy (``kernels.learned``, the shipped weights) as a player: its most
    likely card (``play=greedy``, the default) or a card drawn from its probabilities
    (``play=sampled``, from the bot's seed). No search: a decision takes microseconds."""

    def choose(self, position: Position) -> Decision:
        return planned(position, kernel_card(self.spec, position.hand, position.rows,
                                             position.professional, position.players,
                                             position.deck_size, self.next_seed()))


def _best(values: Mapping[int, float]) -> int:
    return min(values, key=lambda c: (values[c], c))


def planned(position: Position, card: int) -> Decision:
    """``card`` with the rule-following row choices it would make met alone on the rows as
    they are, spelled out (which row, which end); the choice a bot really makes waits for
    the turn's cards (``choose_option``)."""
    options = turns.option_choices(position.rows, card, position.professional)
    if len(options) < 2:
        return Decision(card)
    step = engine.resolve_turn(position.rows, [card], position.professional).steps[0]
    if len(options) == ROW_COUNT:
        return Decision(card, take_row=step.row_index)
    return Decision(card, tie_side=0 if step.side == "right" else 1)


SEARCH_SHARE = 0.5   # with a time budget: a first, finer search gets this share of it
# the bots' auto policy (search.auto): exact search only when its estimate fits the node
# budget, never past it, unbounded in time without a deadline, SEARCH_SHARE of one
BOT_AUTO = AutoBudget(hopeless=1, overrun=1, seconds=None, share=SEARCH_SHARE)
MIN_SECONDS = 0.002  # what a stage is given when its share has run out


def deadline_of(seconds: float | None) -> float | None:
    """The ``work_clock()`` value a decision must be made by (None: no time budget)."""
    return None if seconds is None else work_clock() + seconds


def seconds_left(deadline: float | None, share: float = 1.0) -> float | None:
    """``share`` of the time left before ``deadline`` (at least MIN_SECONDS), or None."""
    if deadline is None:
        return None
    return max(share * (deadline - work_clock()), MIN_SECONDS)


class ExpectiBot(Bot):
    """The card ``analyse`` ranks best against the random model (module docstring), for
    its ``objective``.

    Budgets are bounds: exact search stops at ``nodes`` nodes (its estimate must fit them
    first), Monte Carlo at ``samples`` per card; with ``time`` the whole decision (row
    choices too) is made by a deadline: exact search gets SEARCH_SHARE of it, Monte Carlo
    what is left."""

    model = "random"

    def values(self, position: Position, deadline: float | None = None,
               share: float = 1.0) -> dict[int, float]:
        """Every card's cost (``as_costs``) in the random model within this bot's budget
        (``share`` of its samples; by ``deadline``): the auto policy (``search.auto``) with
        the bot's bounds, ``BOT_AUTO``."""
        nodes = self.params["nodes"]
        objective = self.params["objective"]

        def sample(*_: object) -> dict[int, float]:
            samples = max(2, int(self.params["samples"] * share))
            sampled = analyse(position, "random", method="montecarlo", samples=samples,
                              seed=self.next_seed(), time_limit=seconds_left(deadline),
                              max_nodes=nodes, objective=objective)
            return as_costs({c.card: c.value for c in sampled.cards}, objective)

        def solve(seconds: float | None) -> dict[int, float]:
            result = solve_exact(position, "random", max_nodes=BOT_AUTO.exact_nodes(nodes),
                                 time_limit=seconds, objective=objective)
            return as_costs({c.card: c.value for c in result.cards}, objective)

        if not BOT_AUTO.tries_exact(estimate_nodes(position), nodes):
            return sample()
        return run_auto(solve, sample, seconds_left(deadline), BOT_AUTO, SearchStopped)

    def choose(self, position: Position) -> Decision:
        if position.cards_left == 1:
            return planned(position, position.hand[0])
        return planned(position, _best(self.values(position, deadline_of(self.params["time"]))))

    def option_values(self, moment: Moment, deadline: float | None) -> dict[int, float]:
        """Each option's turn cost plus the best cost after the turn (``turn_cost``,
        ``end_cost``); the options share the samples and the time left."""
        objective = self.params["objective"]
        count = len(moment.options)
        values = {}
        for o in range(count):
            after, cows = moment.after(o)
            part = _part(deadline, 1.0 / (count - o))
            later = (min(self.values(after, part, 1.0 / count).values()) if after.cards_left
                     else round_end_cost(objective, after))
            values[o] = turn_cost(objective, cows) + later
        return values

    def choose_option(self, moment: Moment) -> int:
        return _best(self.option_values(moment, deadline_of(self.params["time"])))


def _part(deadline: float | None, share: float) -> float | None:
    """A deadline ``share`` of the way from now to ``deadline``."""
    left = seconds_left(deadline, share)
    return None if left is None else work_clock() + left


class ParanoidBot(ExpectiBot):
    """The worst model's best card where exact search fits, ``expecti`` before (with a
    time budget: the worst-model search gets SEARCH_SHARE of it, ``expecti`` the rest)."""

    def worst_values(self, position: Position, deadline: float | None
                     ) -> dict[int, float] | None:
        """Every card's cost in the worst model when exact search fits the bot's bounds by
        ``deadline`` (the auto policy, ``BOT_AUTO`` with the whole time), else None."""
        nodes = self.params["nodes"]
        if not BOT_AUTO.tries_exact(estimate_nodes(position), nodes):
            return None
        objective = self.params["objective"]

        def solve(seconds: float | None) -> dict[int, float] | None:
            result = solve_exact(position, "worst", max_nodes=BOT_AUTO.exact_nodes(nodes),
                                 time_limit=seconds, objective=objective)
            return as_costs({c.card: c.value for c in result.cards}, objective)

        return run_auto(solve, lambda *_: None, seconds_left(deadline),
                        replace(BOT_AUTO, share=1.0), SearchStopped)

    def choose(self, position: Position) -> Decision:
        if position.cards_left == 1:
            return planned(position, position.hand[0])
        deadline = deadline_of(self.params["time"])
        worst = self.worst_values(position, _part(deadline, SEARCH_SHARE))
        if worst is not None:
            return planned(position, _best(worst))
        return planned(position, _best(self.values(position, deadline)))

    def choose_option(self, moment: Moment) -> int:
        deadline = deadline_of(self.params["time"])
        values = {}
        count = len(moment.options)
        for o in range(count):
            after, cows = moment.after(o)
            objective = self.params["objective"]
            later = (self.worst_values(after, _part(deadline, SEARCH_SHARE / (count - o)))
                     if after.cards_left else {0: round_end_cost(objective, after)})
            if later is None:
                return _best(self.option_values(moment, deadline))
            values[o] = turn_cost(objective, cows) + min(later.values())
        return _best(values)


class NashBot(ExpectiBot):
    """Two players, known hands, at most ``k`` cards: a card drawn from the equilibrium;
    ``expecti`` otherwise (with a time budget: the equilibrium gets SEARCH_SHARE of it,
    ``expecti`` the rest when it does not finish)."""

    def fits(self, position: Position) -> bool:
        return (position.players == 2 and position.all_known
                and position.cards_left <= self.params["k"])

    def choose(self, position: Position) -> Decision:
        if not self.fits(position):
            return super().choose(position)
        if position.cards_left == 1:
            return planned(position, position.hand[0])
        deadline = deadline_of(self.params["time"])
        try:
            r = solve_nash(position, workers=1,
                           time_limit=seconds_left(deadline, SEARCH_SHARE))
        except SearchStopped:  # over its time: expecti's card
            return planned(position, _best(self.values(position, deadline)))
        rng = np.random.default_rng(self.next_seed())
        weights = np.clip(np.asarray(r.p1_frequency, float), 0.0, None)
        card = r.p1_cards[int(rng.choice(len(weights), p=weights / weights.sum()))]
        return planned(position, int(card))

    def choose_option(self, moment: Moment) -> int:
        if not self.fits(moment.position):
            return super().choose_option(moment)
        deadline = deadline_of(self.params["time"])
        values = {}
        count = len(moment.options)
        for o in range(count):
            after, cows = moment.after(o)
            try:
                later = solve_nash(after, workers=1, time_limit=seconds_left(
                    deadline, SEARCH_SHARE / (count - o))).value if after.cards_left else 0.0
            except SearchStopped:
                return _best(self.option_values(moment, deadline))
            values[o] = cows[0] - cows[1] + later
        return _best(values)


def playout_arrays(position: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernels' view of a position for playouts: hands[n, 10] (known hands' first k
    cards), hidden[n] (1 where a hand is drawn from the pool), the pool, the row table."""
    k, n = position.cards_left, position.players
    hands = np.zeros((n, HAND_SIZE), np.int64)
    hidden = np.zeros(n, np.int64)
    for p, h in enumerate(position.hands):
        if h is None:
            hidden[p] = 1
        else:
            hands[p, :k] = h
    return hands, hidden, np.asarray(position.pool, np.int64), engine.row_table(position.rows)


NO_DEALS = np.zeros((0, 1, HAND_SIZE), np.int64)  # the kernels then deal uniformly


def belief_sample(position: Position, history: Sequence[Seen], seed: int,
                  deals: int = BELIEF_DEALS, trust: float = BELIEF_TRUST,
                  chains: int = BELIEF_CHAINS, burn: int = BELIEF_BURN,
                  thin: int = BELIEF_THIN, weights: np.ndarray | None = None
                  ) -> tuple[np.ndarray, float]:
    """``deals`` deals of the hidden hands drawn from the beliefs (kernels/beliefs.py,
    ``belief_deals``: ``chains`` Markov chains of card swaps, ``burn`` steps, then a deal
    every ``thin``): the likelihood of what every hidden player played at the turns of
    ``history`` (this round's as the position's player 1 saw them; the last ones where
    more are given than the round holds), a card played by the learned policy with
    probability ``trust`` and at random otherwise (``weights``: the policy's, by default
    the shipped ones).

    Returns the deals, (deals, players, HAND_SIZE) with the known hands as they are, and
    the share of swaps accepted. With no hidden hand or no turn seen: no deals
    (``NO_DEALS``: the kernels deal the pool uniformly) and 1.0."""
    k, n = position.cards_left, position.players
    hands, hidden, pool, _ = playout_arrays(position)
    seen = min(len(history), HAND_SIZE - k)
    if not hidden.any() or seen == 0 or k == 0:
        return NO_DEALS, 1.0
    past = list(history)[len(history) - seen:]
    if any(len(s.cards) != n for s in past):
        raise NimmtError(f"a turn seen has {len(past[0].cards)} cards; the position has "
                         f"{n} players")
    past_tables = np.stack([engine.row_table(s.rows) for s in past])
    past_cards = np.asarray([s.cards for s in past], np.int64)
    dealt = np.zeros((deals, n, HAND_SIZE), np.int64)
    accepted = np.zeros(1)
    belief_deals(hands, hidden, pool, n, k, position.deck_size, position.professional,
                 shipped_weights() if weights is None else weights, trust, past_tables,
                 past_cards, seen, seed,
                 min(chains, deals), burn, thin, dealt, accepted)
    return dealt, float(accepted[0])


# The playouts' policies (``playout=``): the engine's rule bots by their codes, MIX, and the
# learned policy (``kernels.learned``: drawn from its probabilities, with the shipped weights).
PLAYOUT_MIX = len(engine.BOT_CODES)
PLAYOUT_CODES = {**engine.BOT_CODES, "mix": PLAYOUT_MIX, "learned": POLICY_LEARNED}


@functools.cache
def shipped_weights() -> np.ndarray:
    """The learned policy's weights the package ships (read once a process)."""
    return load_weights()


@functools.cache
def _weights_file(path: str) -> np.ndarray:
    return load_weights(path)


def bot_weights(spec: BotSpec) -> np.ndarray:
    """The learned policy's weights ``spec`` plays with: its ``weights`` file's (read once
    a process), else the shipped ones."""
    path = spec.params.get("weights")
    return shipped_weights() if path is None else _weights_file(path)


@jit_inline
def draw_policies(policy, playout, n, rng):
    """Each player's rule bot for one playout: ``playout`` for every player, or with
    PLAYOUT_MIX one of the engine's rule bots drawn uniformly for each player (only then
    is a number drawn, so the other policies keep the playouts' random streams)."""
    for p in range(n):
        policy[p] = rng_below(rng, PLAYOUT_MIX) if playout == PLAYOUT_MIX else playout


class ChunkSizer:
    """Kernel calls in chunks with the clock looked at between them (a kernel cannot read
    it cheaply): with a deadline, a chunk is sized from the last chunk's rate to take at
    most half the time left, so the last one ends near the deadline, not a doubling past
    it. Without one, chunks are as asked."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline, self.rate, self.t0 = deadline, 0.0, work_clock()

    def size(self, wanted: int) -> int:
        """The next chunk: ``wanted`` items, fewer when the time left calls for it."""
        self.t0 = work_clock()
        if self.deadline is None or self.rate <= 0:
            return wanted
        return max(1, min(wanted, int(0.5 * (self.deadline - self.t0) / self.rate)))

    def done(self, size: int) -> bool:
        """After a chunk of ``size``: True when the deadline has passed."""
        now = work_clock()
        self.rate = (now - self.t0) / size
        return self.deadline is not None and now >= self.deadline


class PlayoutBot(Bot):
    """What ``mcs`` and ``ismcts`` share: the deals of the hidden hands their playouts use."""

    def deals(self, position: Position, seed: int) -> np.ndarray:
        """With ``belief=learned`` and turns seen this round, the deals ``belief_sample``
        draws with the bot's ``trust`` (from a stream of its own beside the decision's
        ``seed``); else ``NO_DEALS`` (the kernels deal the pool uniformly)."""
        if self.params.get("belief", "none") == "none":
            return NO_DEALS
        stream = int(np.random.SeedSequence([seed, 1]).generate_state(1, np.uint64)[0] >> 1)
        return belief_sample(position, self.history, stream, trust=self.params["trust"],
                             weights=bot_weights(self.spec))[0]

    def playout_weights(self) -> np.ndarray:
        """The learned policy's weights for the playouts (``bot_weights``): row 0 for the
        bot's own cards, divided by its ``temperature``; row 1 for the other players',
        divided by ``others_temperature`` (by default the same)."""
        weights = bot_weights(self.spec)
        own = self.params["temperature"]
        others = self.params.get("others_temperature")
        return np.stack([weights / own, weights / (own if others is None else others)])


class MonteCarloBot(PlayoutBot):
    """Flat Monte Carlo with playouts by its ``playout`` policy for everyone, for its
    objective."""

    def values(self, position: Position) -> dict[int, float]:
        """Every card's mean playout cost (``playout_cost``; lower is better)."""
        k, n = position.cards_left, position.players
        objective = self.params["objective"]
        goal = playout_goal(position, objective)
        hands, hidden, pool, table = playout_arrays(position)
        sums = np.zeros(k)
        playouts, seconds = self.params["playouts"], self.params["time"]
        seed = self.next_seed()
        deadline, done, chunk = deadline_of(seconds), 0, 64
        deals = self.deals(position, seed)
        weights = self.playout_weights()
        sizer = ChunkSizer(deadline)
        while done < playouts:
            size = sizer.size(min(chunk, playouts - done))
            mcs_playouts(table, hands, hidden, pool, n, k, position.deck_size,
                         position.professional, seed, done, size, sums, goal,
                         PLAYOUT_CODES[self.params["playout"]], weights, deals)
            done += size
            chunk *= 2
            if sizer.done(size):
                break
        return {c: float(sums[i] / done) for i, c in enumerate(position.hand)}

    def choose(self, position: Position) -> Decision:
        if position.cards_left == 1:
            return planned(position, position.hand[0])
        return planned(position, _best(self.values(position)))


@jit
def mcs_playouts(table0, hands0, hidden, pool0, n, k, deck_size, professional, seed, first,
                 count, sums, goal, playout, weights, deals):
    """Playouts first..first+count-1 for every card of player 1's hand (hands0[0, :k]):
    the hidden hands (hidden[p] = 1) dealt from pool0, then every player plays the cards
    of the rule bot ``playout`` (a PLAYOUT_CODES code: random, a rule of thumb, or a rule
    bot drawn for each player, ``draw_policies``) with rule-following rows; sums[i] +=
    player 1's playout_cost after card i (``goal``: the objective,
    positions.objective.playout_goal); ``weights``: the learned policy's, read when
    ``playout`` is PLAYOUT_CODES["learned"] (row 0 player 1's, row 1 the other players',
    ``PlayoutBot.playout_weights``); ``deals``: when not empty, playout j takes every
    hand from deals[j mod len(deals)] (``belief_sample``) instead of dealing the pool.
    Playout j draws from stream (seed, j) whatever the card (common random numbers)."""
    got = np.zeros(n, np.int64)
    table = np.empty_like(table0)
    hands = np.empty_like(hands0)
    pool = np.empty_like(pool0)
    cards = np.zeros(n, np.int64)
    owners = np.zeros(n, np.int64)
    policy = np.zeros(n, np.int64)
    rng = np.zeros(1, np.uint64)
    scratch = policy_scratch()
    for j in range(first, first + count):
        for i in range(k):
            rng[0] = rng_seed(seed, j)
            table[:, :] = table0
            if deals.shape[0]:
                hands[:, :] = deals[j % deals.shape[0]]
            else:
                hands[:, :] = hands0
                pool[:] = pool0
                deal_hidden(hands, hidden, pool, n, k, rng)
            draw_policies(policy, playout, n, rng)
            for p in range(n):
                got[p] = np.int64(goal[G_TAKEN + p])
            for turn in range(k):
                left = k - turn
                for p in range(n):
                    if p == 0 and turn == 0:
                        x = i
                    else:
                        if policy[p] < POLICY_LEARNED:
                            x = engine.pick_card(policy[p], hands[p], left, table,
                                                 professional, rng, n, deck_size)
                        else:
                            x = policy_card(policy[p], weights[min(p, 1)], hands[p], left,
                                            table, professional, rng, n, deck_size, scratch)
                    cards[p] = hands[p, x]
                    owners[p] = p
                    hands[p, x] = hands[p, left - 1]
                turns.sort_turn(cards, owners, n)
                for a in range(n):
                    got[owners[a]] += turns.play_option(table, cards[a], professional,
                                                        turns.RULE_OPTION)
            sums[i] += playout_cost(goal, got, np.int64(0))


EXPAND_CODES = {"random": 0, "policy": 1}  # ismcts's expand= (policy.py)
EXPAND_POLICY = EXPAND_CODES["policy"]
OTHERS_CODES = {"search": 0, "playout": 1}  # ismcts's others= (policy.py)
OTHERS_PLAYOUT = OTHERS_CODES["playout"]
LOOP_CODES = {"closed": 0, "open": 1}  # ismcts's loop= (policy.py)
LOOP_OPEN = LOOP_CODES["open"]
ISMCTS_C = 0.7       # UCB exploration constant, rewards in tens of cows (-cows / 10)
REWARD_SCALE = 10.0
# the reward is -playout_cost / scale: cows and margin in tens of cows, win a share (0..1)
REWARD_SCALES = {"cows": REWARD_SCALE, "margin": REWARD_SCALE, "win": 1.0}
ISMCTS_C_WIN = 0.7   # UCB exploration constant for win rewards (docs/PERFORMANCE.md)
TREE_START = 4096    # nodes of a bot's first tree (TreeSearchBot)
CHILD_BUCKETS = 32   # a tree node's children are kept in this many lists, by joint turn
SPARE_TREES = 2      # tree arrays a process keeps for its next decisions (SpareTrees)
# seconds a byte of fresh memory costs a decision that grows its tree into it (first touches
# and the copy; measured on this project's machine, docs/PERFORMANCE.md "Budgets")
FRESH_SECONDS_PER_BYTE = 2e-9


class SpareTrees:
    """The tree arrays of this process that no decision is using: a tree search borrows
    the largest set at its start and gives it back at its end (``TreeSearchBot``), so that
    memory once touched serves the next decision, of this bot or of a new one. At most
    SPARE_TREES sets are kept (the largest); a lock keeps two threads from taking one
    set."""

    EMPTY = (np.empty(0), np.empty(0, np.int64), np.empty(0, np.int64))
    spare: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    lock = threading.Lock()
    # (nodes, players, deck) the last tree decision wanted and could not pay for in its time
    wanted: tuple[int, int, int] | None = None

    @classmethod
    def borrow(cls, own: tuple[np.ndarray, np.ndarray, np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The largest spare set, or ``own`` when none is spare (or ``own`` is larger);
        the set returned is no longer spare, so no other decision can borrow it."""
        with cls.lock:
            if cls.spare and _bytes(cls.spare[0]) > _bytes(own):
                return cls.spare.pop(0)
            cls.spare = [s for s in cls.spare if s[0] is not own[0]]
            return own

    @classmethod
    def want(cls, nodes: int, n: int, deck: int) -> None:
        """Record that a decision wanted a tree of ``nodes`` nodes (``n`` players, ``deck``
        cards) and could not pay for it in its time; of several, the largest is kept."""
        with cls.lock:
            if cls.wanted is None or (nodes * TreeSearchBot.node_bytes(n, deck)
                                      > cls.wanted[0] * TreeSearchBot.node_bytes(
                                          *cls.wanted[1:])):
                cls.wanted = (nodes, n, deck)

    @classmethod
    def make_room(cls, bot: TreeSearchBot) -> None:
        """Grow the process's tree arrays (``bot``'s, or the largest spare set) to the
        nodes its last tree decision wanted and did not have the time to grow into
        (``wanted``), every new byte touched now rather than in a decision: fresh memory is
        what made a new process's first decisions overrun their budget. Called between
        decisions (``TreeSearchBot.see``); nothing when the last decision had what it
        wanted."""
        with cls.lock:
            wanted, cls.wanted = cls.wanted, None
        if wanted is None:
            return
        nodes, n, deck = wanted
        bot.buffers = cls.borrow(bot.buffers)
        try:
            if bot.nodes_held(n, deck) < nodes:
                bot.tree(nodes, n, deck, touch=True)
        finally:
            cls.give_back(bot.buffers)

    @classmethod
    def give_back(cls, buffers: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Keep ``buffers`` for the next decision (the SPARE_TREES largest sets)."""
        with cls.lock:
            if any(s[0] is buffers[0] for s in cls.spare) or not _bytes(buffers):
                return
            cls.spare.append(buffers)
            cls.spare.sort(key=_bytes, reverse=True)
            del cls.spare[SPARE_TREES:]


def _bytes(buffers: tuple[np.ndarray, ...]) -> int:
    return sum(b.nbytes for b in buffers)


class TreeSearchBot(PlayoutBot):
    """Information-set Monte Carlo tree search for simultaneous moves (module docstring).

    The tree's arrays outlive a decision (``tree``): fresh memory is slow to touch the
    first time (a page fault per node or two, and a grown tree's nodes copied), which made
    the first decisions of a new bot overrun a time budget by up to 0.75 s; so a decision
    borrows the arrays of the process's last tree decision (``SpareTrees``) and gives them
    back when done, and a new bot in an arena's next game finds them already touched. A
    node's cells are cleared by the kernel when it creates the node, not for the whole
    budget up front (a large ``iterations`` with ``time``). A counted budget takes its
    whole tree at once, ``iterations`` + 1 nodes or BOT_MEMORY bytes, whichever is fewer
    (its pages are touched only as nodes are made, and no grown tree is copied). With a
    ``time`` budget the tree grows as the search adds nodes, from TREE_START nodes (or what
    the borrowed arrays hold), doubling, up to the same bound; a full tree stops
    growing and the iterations go on below its leaves by playouts. With a ``time`` budget a
    decision grows its tree only when the time left pays twice for the fresh memory
    (FRESH_SECONDS_PER_BYTE); otherwise it goes on in the tree it has, and the arrays grow
    to what it wanted between decisions, when the table next tells a tree bot the turns
    (``see``, outside any decision's clock: ``SpareTrees.make_room``). No search is done
    there, only memory made ready.
    So a bot makes one decision at a time (do not share one between threads; two bots in
    two threads borrow two sets of arrays)."""

    def __init__(self, spec: BotSpec, seed: int = 0) -> None:
        super().__init__(spec, seed)
        self.buffers: tuple[np.ndarray, np.ndarray, np.ndarray] = SpareTrees.EMPTY

    def see(self, history: Sequence[Seen]) -> None:
        """The turns so far (``Bot.see``); between decisions, so the process's tree arrays
        grow here to what its last decision wanted (``SpareTrees.make_room``)."""
        super().see(history)
        SpareTrees.make_room(self)

    @classmethod
    def affords(cls, nodes: int, n: int, deck: int, deadline: float | None) -> bool:
        """Whether a decision with ``deadline`` can grow its tree to ``nodes`` nodes: the
        time left pays twice for the new arrays' fresh memory (always, without one)."""
        left = seconds_left(deadline)
        return left is None or left >= 2 * FRESH_SECONDS_PER_BYTE * nodes * cls.node_bytes(
            n, deck)

    def nodes_held(self, n: int, deck: int) -> int:
        """How many nodes of ``n`` players and ``deck`` cards this bot's arrays hold."""
        shapes = (n * deck * 3, CHILD_BUCKETS + 2, n)
        return min(b.size // size for b, size in zip(self.buffers, shapes))

    @staticmethod
    def node_bytes(n: int, deck: int) -> int:
        """Bytes of one node of ``tree``'s arrays (with its row of statistics, which only
        the nodes a search enters get and touch)."""
        return 8 * (n * deck * 3 + CHILD_BUCKETS + 2 + n)

    def tree(self, size: int, n: int, deck: int, keep: int = 0, touch: bool = False
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A tree of ``size`` nodes for ``n`` players and cards 0..deck-1: links[node] =
        (the first child of each of CHILD_BUCKETS lists, the next sibling in its list, its
        row of statistics or -1), actions[node], and ``size`` rows of statistics,
        stats[row, p, card] = (visits, reward sum, availability) (``ismcts_iterations``);
        views of this bot's buffers (grown when too small). With ``keep`` = 0 a new tree:
        only the root (node 0, row 0) cleared (``ismcts_iterations`` clears each node and
        row it adds); else the tree so far grown, its first ``keep`` nodes and rows kept
        (a node's cells come first to last in each buffer, so they are a prefix of it; a
        tree has no more rows than nodes). ``touch``: new memory written once now, so
        that no decision pays its first touches (``make_room``)."""
        shapes = ((size, n, deck, 3), (size, CHILD_BUCKETS + 2), (size, n))
        buffers: list[np.ndarray] = list(self.buffers)
        for i, shape in enumerate(shapes):
            need = math.prod(shape)
            if buffers[i].size < need:
                grown = np.empty(need, buffers[i].dtype)
                kept = keep * math.prod(shape[1:])
                grown[:kept] = buffers[i][:kept]
                if touch:
                    grown[kept:] = 0
                buffers[i] = grown
        self.buffers = (buffers[0], buffers[1], buffers[2])
        stats, links, actions = (b[:math.prod(shape)].reshape(shape)
                                 for b, shape in zip(buffers, shapes))
        if not keep:
            stats[0] = 0.0
            links[0] = -1
            links[0, CHILD_BUCKETS + 1] = 0  # the root's statistics: row 0
            actions[0] = 0
        return stats, links, actions

    def visits(self, position: Position) -> dict[int, float]:
        """Each card's visits at the root after the search (the most visited is played)."""
        deadline = deadline_of(self.params["time"])  # the tree's allocation counts too
        n, deck = position.players, position.deck_size + 1
        limit = min(self.params["iterations"] + 1,
                    max(2, BOT_MEMORY // self.node_bytes(n, deck)))
        self.buffers = SpareTrees.borrow(self.buffers)
        try:
            return self._search(position, deadline, limit)
        finally:
            SpareTrees.give_back(self.buffers)

    def _search(self, position: Position, deadline: float | None, limit: int
                ) -> dict[int, float]:
        """``visits``'s search in the arrays it borrowed."""
        iterations = self.params["iterations"]
        k, n = position.cards_left, position.players
        objective = self.params["objective"]
        goal = playout_goal(position, objective)
        explore = self.params["c"]
        if explore is None:
            explore = ISMCTS_C_WIN if objective == "win" else ISMCTS_C
        hands, hidden, pool, table = playout_arrays(position)
        deck = position.deck_size + 1
        # a counted budget takes its whole tree at once (its pages are touched only as
        # nodes are made, so nothing is paid for the nodes never made, and no grown tree
        # is copied); a time budget grows its tree while the time pays for the memory
        capacity = limit if deadline is None else min(limit, max(TREE_START,
                                                                 self.nodes_held(n, deck)))
        stats, links, actions = self.tree(capacity, n, deck)
        used = np.ones(2, np.int64)  # nodes, rows of statistics: the root's
        seed = self.next_seed()
        deals = self.deals(position, seed)
        weights = self.playout_weights()
        done, chunk, short = 0, 64, 0
        sizer = ChunkSizer(deadline)
        while done < iterations:
            count = sizer.size(min(chunk, iterations - done))
            if capacity < limit and int(used[0]) + count > capacity:  # at most a node each
                grown = min(limit, max(int(used[0]) + count, 2 * capacity))
                if self.affords(grown, n, deck, deadline):
                    capacity = grown
                    stats, links, actions = self.tree(capacity, n, deck, keep=int(used[0]))
                else:
                    short = max(short, grown)
            ismcts_iterations(table, hands, hidden, pool, n, k, position.deck_size,
                              position.professional, seed, done, count, stats, links, actions,
                              used,
                              goal, explore, REWARD_SCALES[objective],
                              PLAYOUT_CODES[self.params["playout"]], weights, deals,
                              EXPAND_CODES[self.params["expand"]],
                              OTHERS_CODES[self.params["others"]],
                              LOOP_CODES[self.params["loop"]])
            done += count
            chunk *= 2
            if sizer.done(count):
                break
        if short:  # grown between decisions (make_room): a node for each iteration done
            SpareTrees.want(max(short, min(limit, done + 1)), n, deck)
        return {c: float(stats[0, 0, c, 0]) for c in position.hand}

    def choose(self, position: Position) -> Decision:
        if position.cards_left == 1:
            return planned(position, position.hand[0])
        visits = self.visits(position)
        return planned(position, max(visits, key=lambda c: (visits[c], -c)))


@jit
def turn_bucket(cards, n, buckets):
    """Which of a node's ``buckets`` child lists holds the joint turn cards[:n]."""
    h = np.uint64(0)
    for p in range(n):
        h = (h ^ np.uint64(cards[p])) * np.uint64(0x100000001B3)
    return np.int64((h >> np.uint64(17)) % np.uint64(buckets))


@jit_inline
def _stats_row(links, node, buckets, used, stats):
    """The row of statistics of tree node ``node`` (``ismcts_iterations``' layout); a new
    row, cleared, when an iteration enters the node for the first time."""
    row = links[node, buckets + 1]
    if row < 0:
        row = used[1]
        used[1] += 1
        stats[row] = 0.0  # its cells may hold an older tree's
        links[node, buckets + 1] = row
    return row


@jit_inline
def _count_untried(player_stats, hand, left):
    """How many of hand[:left] the player has not yet tried at the node (player_stats:
    the player's statistics there, by card); each card's availability counts this visit."""
    untried = 0
    for i in range(left):
        c = hand[i]
        player_stats[c, 2] += 1.0
        if player_stats[c, 0] == 0.0:
            untried += 1
    return untried


@jit_inline
def _untried_card(player_stats, hand, left, pick):
    """Index into hand[:left] of the ``pick``-th card (from 0) not yet tried at the node."""
    for i in range(left):
        if player_stats[hand[i], 0] == 0.0:
            if pick == 0:
                return i
            pick -= 1
    return 0


@jit_inline
def _ucb_card(player_stats, hand, left, explore):
    """Index into hand[:left] of the card of the highest UCB score (mean reward plus
    ``explore`` x sqrt(log availability / visits)), every card tried; ties to the first."""
    best, best_score = 0, -1e300
    for i in range(left):
        c = hand[i]
        v = player_stats[c, 0]
        score = player_stats[c, 1] / v + explore * np.sqrt(np.log(player_stats[c, 2]) / v)
        if score > best_score:
            best, best_score = i, score
    return best


@jit_inline
def _next_node(links, actions, used, node, cards, n, keyed, buckets, capacity):
    """The child of ``node`` that the turn cards[:n] leads to, told apart by the first
    ``keyed`` players' cards (``turn_bucket``'s list, then its siblings); when there is
    none, a new node for it (no statistics until entered) while the tree has room, and -1
    (the iteration leaves the tree: the rest is a playout); -1 also when the tree is full."""
    bucket = turn_bucket(cards, keyed, buckets)
    child = links[node, bucket]
    while child >= 0:
        same = True
        for p in range(keyed):
            if actions[child, p] != cards[p]:
                same = False
                break
        if same:
            return child
        child = links[child, buckets]
    if used[0] < capacity:
        child = used[0]
        used[0] += 1
        for p in range(n):
            actions[child, p] = cards[p]
        links[child, :buckets] = -1
        links[child, buckets + 1] = -1  # no statistics until entered
        links[child, buckets] = links[node, bucket]
        links[node, bucket] = child
    return -1


@jit
def ismcts_iterations(table0, hands0, hidden, pool0, n, k, deck_size, professional, seed,
                      first, count, stats, links, actions, used, goal, explore, scale, playout,
                      weights, deals, expand, others, loop):
    """Iterations first..first+count-1 of the tree search: each deals the hidden hands
    from the pool (a determinisation), descends the tree of joint turns choosing each
    player's card by UCB over that player's own statistics at the node (decoupled UCT;
    a card's availability counts the visits where its owner held it), adds one node,
    plays the rest by the players' playout policies (rule-following rows), and backs each
    player's cows up the path. links[node, :B] = the first child in each of B lists
    (B = links.shape[1] - 2; a child is in list ``turn_bucket`` of its joint turn, so
    finding it scans about 1/B of the node's children), links[node, B] = the next sibling
    in its list, links[node, B + 1] = the node's row of ``stats`` (-1: none yet);
    actions[node] the joint turn that leads to it; stats[row, p, card] = (visits, reward
    sum, availability). A node gets its row, cleared, when an iteration first enters it,
    not when it is added: most nodes are added by a visit that ends there and never
    entered again (95% at four players standard, nearly all at six or more), and a row is
    n x deck cells (10 KB at four players standard) where a node's links are 300 bytes.
    The statistics, and so the search, are those of a row for every node. used[0] nodes,
    used[1] rows (the root, node 0 with row 0, set by the caller; each node added and each
    row given is cleared here).
    Each player's reward: -playout_cost / scale (``goal``: the objective,
    positions.objective.playout_goal); ``explore``: the UCB constant; ``playout``: the
    playouts' policy below the tree (a PLAYOUT_CODES code and ``weights``, a row for player
    1 and a row for the others, as in ``mcs_playouts``); ``deals``: the hands of iteration
    j from deals[j mod len(deals)] when not empty, as in ``mcs_playouts``. A node plays
    each player's untried cards first, one per visit: drawn uniformly, or with ``expand`` =
    EXPAND_POLICY (and the learned playouts) from the policy's probabilities over those
    cards (``policy_card_untried``).
    ``others`` = OTHERS_PLAYOUT: the other players (1..n-1) play their playout policy in
    the tree too, not UCB, so the tree searches player 1's cards against the policy's
    likely replies (their statistics are then neither kept nor read). ``loop`` =
    LOOP_OPEN: a node's children are told apart by player 1's card alone (open loop: a
    node stands for the bot's own cards so far, whatever the others played), not by the
    joint turn; each player's statistics at a node are kept as before."""
    table = np.empty_like(table0)
    hands = np.empty_like(hands0)
    pool = np.empty_like(pool0)
    cards = np.zeros(n, np.int64)
    owners = np.zeros(n, np.int64)
    cows = np.zeros(n, np.int64)
    reward = np.zeros(n)
    path = np.zeros(k, np.int64)
    path_cards = np.zeros((k, n), np.int64)
    policy = np.zeros(n, np.int64)
    rng = np.zeros(1, np.uint64)
    scratch = policy_scratch()
    buckets = links.shape[1] - 2
    for j in range(first, first + count):
        rng[0] = rng_seed(seed, j)
        table[:, :] = table0
        if deals.shape[0]:
            hands[:, :] = deals[j % deals.shape[0]]
        else:
            hands[:, :] = hands0
            pool[:] = pool0
            deal_hidden(hands, hidden, pool, n, k, rng)
        draw_policies(policy, playout, n, rng)
        for p in range(n):
            cows[p] = np.int64(goal[G_TAKEN + p])
        node = 0
        depth = 0
        row = 0
        for turn in range(k):
            left = k - turn
            in_tree = node >= 0
            if in_tree:
                row = _stats_row(links, node, buckets, used, stats)
            for p in range(n):
                if in_tree and (p == 0 or others != OTHERS_PLAYOUT):
                    untried = _count_untried(stats[row, p], hands[p], left)
                    if untried and expand == EXPAND_POLICY and policy[p] >= POLICY_LEARNED:
                        x = policy_card_untried(weights[min(p, 1)], hands[p], left, table,
                                                professional, rng, n, deck_size, scratch,
                                                stats[row, p, :, 0])
                    elif untried:
                        x = _untried_card(stats[row, p], hands[p], left,
                                          rng_below(rng, untried))
                    else:
                        x = _ucb_card(stats[row, p], hands[p], left, explore)
                else:
                    if policy[p] < POLICY_LEARNED:
                        x = engine.pick_card(policy[p], hands[p], left, table, professional,
                                             rng, n, deck_size)
                    else:
                        x = policy_card(policy[p], weights[min(p, 1)], hands[p], left, table,
                                        professional, rng, n, deck_size, scratch)
                cards[p] = hands[p, x]
                hands[p, x] = hands[p, left - 1]
            if in_tree:
                path[depth] = row
                for p in range(n):
                    path_cards[depth, p] = cards[p]
                depth += 1
                keyed = 1 if loop == LOOP_OPEN else n  # the players whose cards tell children
                node = _next_node(links, actions, used, node, cards, n, keyed, buckets,
                                  stats.shape[0])
            for p in range(n):
                owners[p] = p
            turns.sort_turn(cards, owners, n)
            for a in range(n):
                cows[owners[a]] += turns.play_option(table, cards[a], professional,
                                                     turns.RULE_OPTION)
        for p in range(n):
            reward[p] = -playout_cost(goal, cows, p) / scale
        searched = 1 if others == OTHERS_PLAYOUT else n
        for d in range(depth):
            for p in range(searched):
                c = path_cards[d, p]
                stats[path[d], p, c, 0] += 1.0
                stats[path[d], p, c, 1] += reward[p]


BOT_CLASSES: dict[str, type[Bot]] = {
    **{name: RuleBot for name in RULE_BOTS}, "learned": LearnedBot,
    "expecti": ExpectiBot, "paranoid": ParanoidBot, "nash": NashBot, "mcs": MonteCarloBot,
    "ismcts": TreeSearchBot,
}


def make_policy(spec: BotSpec | str, seed: int = 0) -> Bot:
    """A bot from its spec or name (``parse_bot``), seeded.

    >>> from nimmt.solver.positions.position import load_position
    >>> make_policy("closest").choose(load_position("example")).card
    14
    """
    if not isinstance(spec, BotSpec):
        spec = parse_bot(spec)
    return BOT_CLASSES[spec.name](spec, seed)



# ---------------------------------------------------------------- row choices

@dataclass(frozen=True)
class RowOption:
    """One row choice of player 1's card: this turn's cows, the value of the position
    after the turn in the model (its best card), their sum, and the regret."""

    option: int
    take_row: int   # 0..3 (a low card), or -1
    tie_side: int   # 0 right / 1 left (a professional tie), or -1
    label: str      # "take row 2", "right end of row 3"
    cows_now: float
    later: float
    value: float
    regret: float
    rule: bool      # the rule-following choice


def moment_of(position: Position, turn: Sequence[int],
              take_rows: Sequence[int] | None = None,
              tie_sides: Sequence[int] | None = None) -> Moment:
    """The moment player 1's card (``turn[0]``) reaches the rows in the turn ``turn`` (one
    card per player, player 1 first): the lower cards placed first, their owners' choices
    ``take_rows``/``tie_sides`` (per player, -1: rule-following; the default). A NimmtError
    when that card has only one place to go."""
    n = position.players
    if len(turn) != n:
        raise NimmtError(f"{param('turn')} needs one card per player ({n}), "
                         f"player 1 first; got {len(turn)}")
    take = [-1] * n if take_rows is None else [int(t) for t in take_rows]
    tie = [-1] * n if tie_sides is None else [int(t) for t in tie_sides]
    if len(take) != n or len(tie) != n:
        raise NimmtError(f"take_rows and tie_sides need one entry per "
                         f"player ({n}), -1 where there is no choice")
    position.apply_turn(turn)  # every card checked: in its hand (or the pool), no repeats
    mine = turn[0]
    lower = sorted((p for p in range(n) if turn[p] < mine), key=lambda p: turn[p])
    for p in range(n):
        if p not in lower and (take[p] != -1 or tie[p] != -1):
            raise NimmtError(f"player {p + 1}'s card {turn[p]} is placed after player 1's: "
                             f"its choice is not made yet; give -1 in take_rows "
                             f"and tie_sides")
    rows = turns.rows_met(position.rows, turn, position.professional, take, tie, 0)
    options = turns.option_choices(rows, mine, position.professional)
    if len(options) < 2:
        raise NimmtError(f"player 1's card {mine} has one place to go in this turn; there is "
                         f"no row to choose (give a card with no legal end in {param('turn')})")
    return Moment(position, tuple(int(c) for c in turn), tuple(take), tuple(tie), rows,
                  options)


def _label(moment: Moment, option: int) -> str:
    take, tie = moment.options[option]
    if take >= 0:
        return f"take row {take + 1}"
    return "right end" if tie == 0 else "left end"


def row_choices(position: Position, turn: Sequence[int] | None = None,
                opponents: str = "random", max_nodes: int = DEFAULT_MAX_NODES,
                samples: int = DEFAULT_SAMPLES,
                seed: int = 0) -> tuple[RowOption, ...]:
    """Each row choice of player 1's card in the turn ``turn`` (player 1's card first;
    default the position's own ``turn``, the notation's turn= key), best first: the cows
    it takes now plus the value of the position after the turn (``analyse``'s best card;
    random: expected cows, worst: guaranteed cows; nash: this turn's cows minus player 2's
    plus the game value after). The later owners' choices in
    the same turn are rule-following.

    >>> from nimmt.solver.positions.position import load_position
    >>> choices = row_choices(load_position("example"), [4, 13], "worst")
    >>> [(r.label, r.cows_now, r.value, r.rule) for r in choices][:2]
    [('take row 4', 3.0, 3.0, False), ('take row 1', 2.0, 5.0, True)]
    """
    if turn is None:
        if not position.turn:
            raise NimmtError("give the turn's cards (turn=CARDS in the position, yours first)")
        turn = position.turn

    def value_after(after: Position, cows: Sequence[int]) -> tuple[float, float]:
        if opponents == "nash":
            return (float(cows[0] - cows[1]),
                    solve_nash(after, workers=1).value if after.cards_left else 0.0)
        if not after.cards_left:
            return float(cows[0]), 0.0
        result = analyse(after, opponents, max_nodes=max_nodes, samples=samples, seed=seed)
        if result.extra.get("fallback_from"):  # one model for every option, or none
            raise NimmtError(f"row choices under {opponents}: {result.reason.split(';')[0]}"
                             f"; use {param('opponents', 'random')}")
        return float(cows[0]), result.best.value

    return rank_row_options(moment_of(position, turn), value_after)


def rank_row_options(moment: Moment,
                     value_after: Callable[[Position, Sequence[int]], tuple[float, float]]
                     ) -> tuple[RowOption, ...]:
    """Each row option of ``moment`` (``Moment.after``: the later cards' owners
    rule-following), best first: ``value_after(position after the turn, each player's cows
    this turn)`` gives (this turn's part, the part after), whose sum is the option's value
    (lower is better). ``row_choices`` values them in a model; ``nimmt play``'s row hint
    against the game's own opponents, the choices before player 1's as they were made."""
    values = []
    for o in range(len(moment.options)):
        now, later = value_after(*moment.after(o))
        values.append((now + later, o, now, later))
    rule_step = moment.after(-1)[0]
    best = min(values)[0]
    out = []
    for value, o, now, later in sorted(values):
        take, tie = moment.options[o]
        out.append(RowOption(o, take, tie, _label(moment, o), now, later, value, value - best,
                             moment.after(o)[0] == rule_step))
    return tuple(out)
