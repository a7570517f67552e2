"""Monte Carlo for positions too large for exact search (model ``random``).

Per candidate card and sample: the opponents' cards of each turn are drawn as the
model says (known hands: one card each, uniformly; hidden hands: a uniform set of
cards from the pool). Player 1 plays its later cards by a *policy* until it holds
``exact_depth`` cards or fewer after a turn; the row choice of that turn is optimal
and the sample's value from there on is the exact expected value (its conditional
expectation, not a draw), from an exact search whose memo serves the whole run.

The policy, ``rollouts`` > 0: for each card in hand, ``rollouts`` playouts of the
rest of the round (the same opponent draws for every card; player 1's cards after it
by the ``closest`` bot, exact from ``exact_depth`` cards on), and the card with the
fewest cows is played; ``rollouts == 0``: the ``closest`` bot. ``plan`` picks
(exact_depth, rollouts) from the position and a work budget.
Row choices before the exact part follow the rule-following choice (turns
``RULE_OPTION``). A policy is a strategy player 1 may use in the model, so
a card's estimate is an *upper bound* on its exact value, up to sampling noise;
only when ``exact_depth >= cards_left - 1`` (no policy turn) is it the exact
``random`` value itself, which the tests check. ``MonteCarloResult.quantity``
says which.

Each sample draws from its own stream (seed, card, sample index), the policy from
streams of its own, so a result does not depend on batching or on where a time
limit stopped it. Cards' samples are independent: the standard error of a difference
between two cards is sqrt(se1^2 + se2^2).
"""
from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..base.defaults import DEFAULT_MAX_NODES, DEFAULT_SAMPLES
from ..base.errors import NimmtError, SearchInterrupted, param
from ..base.intervals import Z95, bounded_interval
from ..base.notice import work_clock
from ..base.rules import HAND_SIZE, MAX_PLAYERS
from ..kernels.engine import (
    BOT_CLOSEST,
    compiled_for,
    copy_row,
    copy_table,
    jit,
    landing,
    pick_card,
    rng_below,
    rng_seed,
    row_table,
)
from ..kernels.exactsearch import (
    ABORTED,
    FIRST_SLOTS,
    HITS,
    MODEL_RANDOM,
    RESOLVED,
    STAT_SLOTS,
    STOP,
    TIME_LIMIT,
    attribution,
    cards_of,
    memo_find,
    memo_layout,
    memo_store,
    new_memo,
    pack_memo_key,
    search_state,
    seat_of,
    sort_hidden_seats,
)
from ..kernels.objective import G_HIDDEN_SEATS, G_TAKEN, cost_of_cows, end_cost
from ..kernels.statekey import L_WIDTH, OWNER_GONE, OWNER_P1, OWNER_POOL
from ..kernels.turns import RULE_OPTION, card_options, play_found_option, play_option, sort_turn
from ..positions.objective import goal_array, objective_value, win_word
from ..positions.owners import CHOICE_FACTOR, ROW_FACTOR, estimate_nodes, owner_array
from ..positions.position import Position

__all__ = ["MonteCarloResult", "SampledCard", "Z95", "later_play_text", "plan", "policy_text",
           "quantity_text", "run_montecarlo"]

Z99 = 2.5758293035489004
ROLLOUT_CHOICES = (32, 16)  # playouts per card at a policy turn (8: no better than the
                           # closest bot on 4-player standard positions, docs/PERFORMANCE.md)
# Planning constants, measured (benchmarks/montecarlo.py; docs/PERFORMANCE.md, "Monte
# Carlo"): a playout turn costs 1-2 us; an exact lookup 1-2 us when the memo has the state
# and 10-20 us when it does not (a search call); estimate_nodes counts about twice the
# nodes; the samples
# visit 0.17-0.94 of an exact tail's estimate with rollouts, 0.03-0.12 with the closest
# bot; a policy turn by 16 (32) rollouts leaves about 0.25 (0.2) of the closest bot's excess.
LEAF_COST = 10
ESTIMATE_SHARE = 0.5
TAIL_SHARE_CLOSEST, TAIL_SHARE_ROLLOUTS = 0.15, 0.5
POLICY_WEIGHT = {0: 1.0, 16: 0.25, 32: 0.2}
POLICY_STREAM = 1 << 62  # the policy's draws: streams (seed, POLICY_STREAM + card, sample)


def new_run_memo(layout: np.ndarray):
    """An empty exact-continuation memo (exactsearch.new_memo) for keys of ``layout``; one memo
    serves a whole run."""
    return new_memo(int(layout[L_WIDTH]), FIRST_SLOTS)


@jit
def _exact_value(table, owner, deck_size, known_count, hidden_count, professional, memo,
                 layout, stats, max_resolved, words, result, goal, held, attribute):
    """The exact random value (objective ``goal``, seats' cows so far ``held``) of a
    turn-boundary state, player 1 to choose its card: from the memo, or searched and then
    memoised under its own key (exactsearch.search_state memoises the states below its root, not
    the root). ``goal`` is the sample's own copy: its taken slots become ``held``."""
    order = np.zeros(4, np.int64)
    width = layout[L_WIDTH]
    sort_hidden_seats(goal, held, known_count)  # interchangeable: the canonical key
    pack_memo_key(table, owner, deck_size, layout, words, order, held)
    entries = memo[0]
    values = entries.view(np.float64)
    found, value = memo_find(entries, values, words, width)
    if found:
        stats[HITS] += 1
        return value
    for s in range(MAX_PLAYERS):
        goal[G_TAKEN + s] = held[s]
    search_state(table, owner, deck_size, known_count, hidden_count, professional,
                 np.int64(MODEL_RANDOM), np.int64(-1), memo, layout, stats, max_resolved, result,
                 goal, attribute)
    if not stats[ABORTED]:
        entries = memo[0]  # maybe doubled by the search
        memo_store(memo, entries, entries.view(np.float64), words, width, result[0], stats)
    return result[0]


@jit
def hidden_tag(goal, known_count, t):
    """The owner code of a turn's t-th drawn hidden card: the pool's, or with hidden seats
    told apart (exact "hidden seats") hidden seat t's (a uniform ordered draw from the pool
    is a uniform attribution)."""
    if goal[G_HIDDEN_SEATS] != 0.0:
        return OWNER_P1 + 1 + known_count + t
    return OWNER_POOL


@jit
def _play_rule(table, cards, tags, first, last, professional, goal, held, known_count):
    """Cards first..last-1 of a turn placed by the rule-following choice; their cows into
    ``held`` by seat; returns their cost (objective.cost_of_cows)."""
    cost = 0.0
    for a in range(first, last):
        cows = play_option(table, cards[a], professional, RULE_OPTION)
        held[seat_of(tags[a], known_count)] += cows
        cost += cost_of_cows(goal, tags[a] == OWNER_P1, cows)
    return cost


@jit
def _turn_with_choice(table, owner, cards, tags, width, deck_size, known_count, hidden_count,
                      professional, exact_child, memo, layout, stats, max_resolved, words, result,
                      goal, held, attribute):
    """Resolve one turn (cards sorted ascending, tags: owner of each).

    If exact_child, player 1's row choice minimises the turn's cost (objective.cost_of_cows
    under ``goal``) plus the exact value after the turn, and that sum is returned.
    Otherwise every card, player 1's too, follows the rule-following choice
    (turns.RULE_OPTION: fewest cows, ties to the row whose last card is lowest): the turn
    kernels of solver/kernels/turns.py, as in every search. Returns (total, player 1's cows now),
    leaves ``table`` as the line played and adds the seats' cows to ``held``."""
    for a in range(width):
        owner[cards[a]] = OWNER_GONE
    mine_at = np.int64(0)  # not a literal 0: _play_rule would compile once more for it
    for a in range(width):
        if tags[a] == OWNER_P1:
            mine_at = a
    # cards below player 1's: rule-following owners
    before = _play_rule(table, cards, tags, np.int64(0), mine_at, professional, goal, held,
                        known_count)
    if not exact_child:
        mine = held[0]
        total = before + _play_rule(table, cards, tags, mine_at, width, professional, goal, held,
                                    known_count)
        return total, float(held[0] - mine)
    options, kind, row_a, row_b = card_options(table, cards[mine_at], professional)
    best_total, best_now = math.inf, 0.0
    best_table = table.copy()
    best_held = held.copy()
    line_held = held.copy()
    for o in range(options):
        line = table.copy()
        copy_row(line_held, held)
        cows = play_found_option(line, cards[mine_at], kind, row_a, row_b, o)
        line_held[0] += cows
        total = cost_of_cows(goal, True, cows) + _play_rule(
            line, cards, tags, mine_at + 1, width, professional, goal, line_held, known_count)
        total += _exact_value(line, owner, deck_size, known_count, hidden_count, professional,
                              memo, layout, stats, max_resolved, words, result, goal, line_held,
                              attribute)
        if total < best_total:
            best_total, best_now = total, float(cows)
            copy_table(best_table, line)
            copy_row(best_held, line_held)
    copy_table(table, best_table)
    copy_row(held, best_held)
    return before + best_total, best_now


@jit
def _scratch(deck_size, known_count, hidden_count, key_width):
    """Work arrays for one playout: (hand, known hands, pool, turn cards, their owners,
    key words, search result)."""
    width = known_count + hidden_count + 1
    return (np.zeros(HAND_SIZE, np.int64), np.zeros((max(known_count, 1), HAND_SIZE), np.int64),
            np.zeros(deck_size, np.int64), np.zeros(width, np.int64), np.zeros(width, np.int64),
            np.zeros(key_width, np.int64), np.zeros(3))


@jit
def _play_turn(table, owner, card, deck_size, known_count, hidden_count, professional,
               exact_child, rng, memo, layout, stats, max_resolved, scratch, goal, held,
               attribute):
    """One turn: player 1 plays ``card``, the opponents' cards are drawn from ``rng`` as
    the model says (known hands: one card each, uniformly; hidden hands: a uniform set
    from the pool). Returns (player 1's value, its cows now); see _turn_with_choice."""
    _, known, pool, cards, tags, words, result = scratch
    width = known_count + hidden_count + 1
    cards[0] = card
    tags[0] = OWNER_P1
    for j in range(known_count):
        size = cards_of(owner, deck_size, 2 + j, known[j])
        cards[1 + j] = known[j, rng_below(rng, size)]
        tags[1 + j] = 2 + j
    if hidden_count:
        pool_count = cards_of(owner, deck_size, np.int64(OWNER_POOL), pool)
        for t in range(hidden_count):  # partial Fisher-Yates
            u = t + rng_below(rng, pool_count - t)
            pool[t], pool[u] = pool[u], pool[t]
            cards[1 + known_count + t] = pool[t]
            tags[1 + known_count + t] = hidden_tag(goal, known_count, t)
    sort_turn(cards, tags, width)
    return _turn_with_choice(table, owner, cards, tags, width, deck_size,
                             known_count, hidden_count, professional, exact_child, memo, layout,
                             stats, max_resolved, words, result, goal, held, attribute)


@jit
def _playout(table, owner, card, deck_size, known_count, hidden_count, professional,
             exact_depth, rng, bot_rng, memo, layout, stats, max_resolved, scratch, goal, held,
             attribute):
    """Play the rest of the round from a turn boundary, player 1 playing ``card`` now and
    its later cards by the ``closest`` bot, until the exact continuation takes over
    (player 1 holds at most exact_depth cards after a turn). Changes table, owner and the
    seats' cows ``held``. Returns (player 1's cost to the end of the round under ``goal``
    (cows: its cows), its cows this turn)."""
    hand = scratch[0]
    total, first_now = 0.0, 0.0
    turn = 0
    while True:
        k = cards_of(owner, deck_size, np.int64(OWNER_P1), hand)
        if turn > 0:
            card = hand[pick_card(np.int64(BOT_CLOSEST), hand, k, table, professional, bot_rng,
                                  1 + known_count + hidden_count, deck_size)]
        exact_child = k - 1 <= exact_depth
        value, now = _play_turn(table, owner, card, deck_size, known_count, hidden_count,
                                professional, exact_child and k > 1, rng, memo, layout, stats,
                                max_resolved, scratch, goal, held, attribute)
        if turn == 0:
            first_now = now
        total += value
        turn += 1
        if exact_child and k > 1:
            return total, first_now
        if k == 1:  # the round's last turn, not searched: its end cost here
            return total + end_cost(goal, held), first_now


@jit
def _rollout_index(hand, k, table, owner, deck_size, known_count, hidden_count, professional,
                   exact_depth, rollouts, policy_rng, memo, layout, stats, max_resolved, scratch,
                   goal, held, attribute):
    """Index into ``hand`` of the card with the fewest cows to the end of the round over
    ``rollouts`` playouts each (the same opponent draws for every card: see _playout);
    ties: the closest bot's order (cows if played alone, gap to the row end, lowest)."""
    q = np.zeros(k)
    line = table.copy()
    kept = owner.copy()
    line_held = held.copy()
    rng = np.zeros(1, np.uint64)
    base_rng = np.zeros(1, np.uint64)
    for _r in range(rollouts):
        stream = rng_below(policy_rng, 1 << 31)
        for h in range(k):
            copy_table(line, table)
            copy_row(kept, owner)
            copy_row(line_held, held)
            rng[0] = rng_seed(stream, 0)
            base_rng[0] = rng_seed(stream, 1)
            q[h] += _playout(line, kept, hand[h], deck_size, known_count, hidden_count,
                             professional, exact_depth, rng, base_rng, memo, layout, stats,
                             max_resolved, scratch, goal, line_held, attribute)[0]
    best, best_cost, best_gap = 0, 1 << 30, 1 << 30
    for h in range(k):
        _, gap, cost = landing(table, hand[h], professional)
        if h == 0 or q[h] < q[best] or (q[h] == q[best] and (
                cost < best_cost or (cost == best_cost and (
                    gap < best_gap or (gap == best_gap and hand[h] < hand[best]))))):
            best, best_cost, best_gap = h, cost, gap
    return best


@jit
def _montecarlo(table0, owner0, deck_size, known_count, hidden_count, professional, card,
                card_index, first_sample, sample_count, exact_depth, rollouts, seed, memo,
                layout, stats, max_resolved, values, cows_now, goal0, attribute):
    """Samples first_sample.. of ``card``: values[i] = player 1's cost to the end of the
    round under the objective ``goal0`` (positions.objective.goal_array; cows: its
    cows), cows_now[i] = its cows this turn. Later cards: rollouts (rollouts > 0) or the
    closest bot (0)."""
    goal = goal0.copy()  # _exact_value writes the seats' cows so far into its taken slots
    held0 = np.zeros(MAX_PLAYERS, np.int64)
    for s in range(MAX_PLAYERS):
        held0[s] = np.int64(goal0[G_TAKEN + s])
    held = held0.copy()
    rng = np.zeros(1, np.uint64)
    policy_rng = np.zeros(1, np.uint64)
    owner = owner0.copy()
    table = table0.copy()
    scratch = _scratch(deck_size, known_count, hidden_count, layout[L_WIDTH])
    inner = _scratch(deck_size, known_count, hidden_count, layout[L_WIDTH])
    hand = scratch[0]
    for i in range(sample_count):
        stream = (card_index << 40) + first_sample + i
        rng[0] = rng_seed(seed, stream)
        policy_rng[0] = rng_seed(seed, POLICY_STREAM + stream)
        copy_row(owner, owner0)
        copy_table(table, table0)
        copy_row(held, held0)
        if rollouts == 0:
            values[i], cows_now[i] = _playout(table, owner, card, deck_size, known_count,
                                              hidden_count, professional, exact_depth, rng,
                                              policy_rng, memo, layout, stats, max_resolved,
                                              scratch, goal, held, attribute)
            continue
        total, turn = 0.0, 0
        while True:
            k = cards_of(owner, deck_size, np.int64(OWNER_P1), hand)
            if turn > 0 and k > 1:
                card_now = hand[_rollout_index(hand, k, table, owner, deck_size, known_count,
                                               hidden_count, professional, exact_depth,
                                               rollouts, policy_rng, memo, layout, stats,
                                               max_resolved, inner, goal, held, attribute)]
            else:
                card_now = card if turn == 0 else hand[0]
            exact_child = k - 1 <= exact_depth
            value, now = _play_turn(table, owner, card_now, deck_size, known_count,
                                    hidden_count, professional, exact_child and k > 1, rng,
                                    memo, layout, stats, max_resolved, scratch, goal, held,
                                    attribute)
            if turn == 0:
                cows_now[i] = now
            total += value
            turn += 1
            if exact_child and k > 1:
                break
            if k == 1:  # the round's last turn, not searched: its end cost here
                total += end_cost(goal, held)
                break
        values[i] = total


@jit
def _montecarlo_batch(table0, owner0, deck_size, known_count, hidden_count, professional,
                      cards, first_sample, sample_count, exact_depth, rollouts, seed, memo, layout,
                      stats, values, cows_now, goal, attribute):
    """Samples first_sample.. of every card (values[i, s], cows_now[i, s]); ``memo``
    holds the exact continuation's values across batches; ``attribute``:
    exactsearch.attribution(goal), which of the exact search's kernels continues."""
    for i in range(cards.shape[0]):
        _montecarlo(table0, owner0, deck_size, known_count, hidden_count, professional,
                    cards[i], i, first_sample, sample_count, exact_depth, rollouts, seed,
                    memo, layout, stats, np.int64(1 << 62), values[i], cows_now[i], goal,
                    attribute)


FIRST_TIMED_BATCH = 2  # with a time limit the first batch is this small, then grows
FALLBACK_SAMPLES = 64  # the closest bot's playouts when a timed plan gave no two samples
TIMED_SHARE = 0.5      # a later batch is sized to take at most this share of the time left


def _stop_at(deadline: float, stats: np.ndarray) -> threading.Timer:
    """A timer thread that sets the stop flag at ``deadline`` (the exact continuation looks
    at it every 1,024 nodes; the batches run in the caller's thread, the kernel releasing
    the GIL). One thread per run: cancel it when the run ends."""
    timer = threading.Timer(max(deadline - work_clock(), 0.0),
                            lambda: stats.__setitem__(STOP, TIME_LIMIT))
    timer.daemon = True
    timer.start()
    return timer


# the range of a sampled value per objective: cows never negative, win a probability,
# margin (your cows minus the others' mean) of either sign
OBJECTIVE_RANGE: dict[str, tuple[float | None, float | None]] = {
    "cows": (0.0, None), "win": (0.0, 1.0), "margin": (None, None)}


@dataclass(frozen=True)
class SampledCard:
    card: int
    samples: int
    value: float      # mean cows to the end of the round
    stderr: float
    cows_now: float   # mean cows this turn
    take_probability: float

    def interval(self, z: float = Z95, objective: str = "margin") -> tuple[float, float]:
        """The value's interval at ``z`` standard errors, inside the range of the
        ``objective``'s values (``OBJECTIVE_RANGE``; margin: unbounded, the normal one)."""
        return bounded_interval(self.value, self.stderr, self.samples,
                                *OBJECTIVE_RANGE[objective], z=z)


@dataclass(frozen=True)
class MonteCarloResult:
    cards: tuple[SampledCard, ...]
    exact_depth: int
    seconds: float
    complete: bool  # False if a time limit or Ctrl-C stopped it early
    nodes: int      # exact-continuation nodes resolved
    cards_left: int = 0
    rollouts: int = 0
    objective: str = "cows"
    win_word: str = "win round"  # win: what is won (positions.objective.win_word)
    stopped: str | None = None  # why it is incomplete: 'time limit' or 'interrupted'

    @property
    def later_exact(self) -> bool:
        """True if no later turn is played by the policy: the figures then estimate the
        exact random value itself."""
        return self.exact_depth >= self.cards_left - 1

    @property
    def later_play(self) -> str:
        return later_play_text(self.exact_depth, self.cards_left, self.rollouts)

    @property
    def quantity(self) -> str:
        text = quantity_text(self.exact_depth, self.cards_left, self.rollouts)
        if self.objective == "win":
            return (text.replace("expected cows", f"P({self.win_word})")
                    .replace("an upper bound", "a lower bound")
                    .replace("takes at most this", "wins at least this often"))
        if self.objective == "margin":
            return (text.replace("expected cows", "expected margin")
                    .replace("takes at most this", "does at least this well"))
        return text

    def difference(self, card: int, other: int) -> tuple[float, float]:
        """(mean, standard error) of card's value minus other's (independent samples)."""
        a, b = (next(c for c in self.cards if c.card == x) for x in (card, other))
        return a.value - b.value, math.hypot(a.stderr, b.stderr)


def policy_text(rollouts: int) -> str:
    if rollouts <= 0:
        return "the 'closest' bot"
    return (f"rollouts ({rollouts} playouts per card in hand, the card with the fewest cows; "
            "in a playout your next cards are the 'closest' bot's)")


def later_play_text(exact_depth: int, cards_left: int, rollouts: int) -> str:
    """How player 1's later turns are played inside the samples."""
    if exact_depth >= cards_left - 1:
        return ("your later turns: optimal, by exact search from the next turn on (exact "
                "values; your row choice this turn optimal too)")
    rows = "row choices rule-following (fewest cows, ties to the lowest last card)"
    if exact_depth <= 0:
        return f"your later cards: {policy_text(rollouts)}; {rows}"
    return (f"your later cards: {policy_text(rollouts)} while you hold more than "
            f"{exact_depth} cards, then optimal by exact search (exact values from "
            f"{exact_depth} cards left); {rows} until then")


def quantity_text(exact_depth: int, cards_left: int, rollouts: int) -> str:
    """What the Monte Carlo figures estimate."""
    if exact_depth >= cards_left - 1:
        return ("expected cows: the random model's value (your later turns played "
                "optimally), up to sampling noise")
    policy = "rollouts" if rollouts > 0 else "the 'closest' bot"
    until = (f" while you hold more than {exact_depth} cards, then optimally"
             if exact_depth > 0 else "")
    return (f"expected cows with your later cards played by {policy}{until}: an upper bound "
            "on the random model's value (optimal play takes at most this, up to sampling "
            "noise)")


def tail_estimate(position: Position, exact_depth: int) -> int:
    """Estimated nodes of exact search over every state reachable from ``position`` in
    which player 1 holds at most ``exact_depth`` cards: the turns of
    ``owners.estimate_nodes`` from that point on."""
    k = position.cards_left
    known = sum(1 for h in position.hands[1:] if h is not None)
    hidden = len(position.hidden_players)
    pool = len(position.pool)
    tree, total = 1, 0
    for d in range(k):  # d turns played
        kd = k - d
        joint = kd * kd ** known * math.comb(max(pool - hidden * d, 0), hidden)
        if kd <= exact_depth:
            card_sets = math.comb(k, d) ** (1 + known) * math.comb(max(pool, 0), hidden * d)
            total += min(tree, card_sets * ROW_FACTOR) * joint
        tree *= joint
    return CHOICE_FACTOR * total


def policy_turns(cards_left: int, exact_depth: int) -> range:
    """Hand sizes at which the policy chooses player 1's card (2 or more cards)."""
    return range(max(exact_depth + 1, 2), cards_left)


def leaves_per_sample(cards_left: int, exact_depth: int, rollouts: int) -> int:
    """Exact lookups of one sample: its own, and one per playout."""
    if exact_depth < 1:
        return 0
    return 1 + sum(m * rollouts for m in policy_turns(cards_left, exact_depth))


def rollout_work(cards_left: int, exact_depth: int, rollouts: int) -> int:
    """Playout turns of one sample's policy turns: at a turn with m cards, m x rollouts
    playouts of m - exact_depth turns (exact_depth >= 1) or m turns (0)."""
    return sum(m * rollouts * (m - exact_depth if exact_depth >= 1 else m)
               for m in policy_turns(cards_left, exact_depth))


def plan_cost(position: Position, exact_depth: int, rollouts: int) -> float:
    """Planned work of DEFAULT_SAMPLES samples per card, in nodes (an exact-search node and a
    playout turn take about a microsecond each, a memo lookup LEAF_COST of them): the
    exact continuation's nodes (the samples share one memo: at most TAIL_SHARE of its
    tail, at most one fresh state per lookup, ESTIMATE_SHARE of its estimate) plus the
    lookups and the playout turns."""
    samples = DEFAULT_SAMPLES * position.cards_left
    k = position.cards_left
    lookups = samples * leaves_per_sample(k, exact_depth, rollouts)
    share = TAIL_SHARE_CLOSEST if rollouts == 0 and exact_depth < k - 1 else TAIL_SHARE_ROLLOUTS
    nodes = 0.0
    if exact_depth >= 1:
        nodes = min(share * tail_estimate(position, exact_depth),
                    ESTIMATE_SHARE * lookups * estimate_nodes(position,
                                                                    cards_left=exact_depth))
    return nodes + LEAF_COST * lookups + samples * rollout_work(k, exact_depth, rollouts)


def plan_bias(cards_left: int, exact_depth: int, rollouts: int) -> float:
    """How far above the exact value a plan is expected to land, in units of one turn
    played by the closest bot: its policy turns times POLICY_WEIGHT (0: exact)."""
    if exact_depth >= cards_left - 1:
        return 0.0
    return POLICY_WEIGHT[rollouts] * len(policy_turns(cards_left, exact_depth))


def plan(position: Position, budget: int = DEFAULT_MAX_NODES) -> tuple[int, int]:
    """(exact_depth, rollouts) within ``budget``: of the plans whose plan_cost fits, the
    one with the least plan_bias (then the deeper exact continuation, then more
    rollouts). A function of the position and the budget only, never of the sample
    count or a time limit, so figures depend only on (seed, samples, budget)."""
    k = position.cards_left
    plans = [(0, 0)] + [(depth, rollouts) for rollouts in (0, *ROLLOUT_CHOICES)
                        for depth in range(k - 1) if policy_turns(k, depth) or rollouts == 0
                        if plan_cost(position, depth, rollouts) <= budget]
    if k > 1 and plan_cost(position, k - 1, 0) <= budget:
        plans.append((k - 1, 0))  # exact from the next turn: no policy turn
    return min(plans, key=lambda p: (plan_bias(k, *p), -p[0], -p[1]))


def run_montecarlo(position: Position, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                   time_limit: float | None = None, exact_depth: int | None = None,
                   progress: Callable[[int], None] | None = None,
                   batch: int = 64, rollouts: int | None = None,
                   node_budget: int = DEFAULT_MAX_NODES,
                   objective: str = "cows") -> MonteCarloResult:
    """Estimate every card's expected cows (model random) by sampling; or its value for
    another ``objective`` (positions.objective.goal_array: margin, or the probability of
    winning).

    Cards are sampled round robin in batches, so a time limit or Ctrl-C leaves every
    card with about the same number of samples; each sample's stream is fixed by
    (seed, card, sample index). ``exact_depth`` and ``rollouts`` (0: later cards by
    the closest bot) default to ``plan(position, node_budget)``.
    """
    clock = work_clock()  # a time limit counts from here (a kernel's load too)
    if samples < 2:
        raise NimmtError(f"{param('samples')} must be at least 2 (a standard error needs two)")
    if rollouts is not None and rollouts < 0:
        raise NimmtError("rollouts must be 0 or more")
    goal = goal_array(position, objective)
    owner, known, hidden = owner_array(position)
    table = row_table(position.rows)
    layout = memo_layout(owner, position.professional,
                               position.players if objective == "win" else 0)
    depth, rollouts = _sampling_plan(position, exact_depth, rollouts, node_budget)
    stats = np.zeros(STAT_SLOTS, np.int64)
    hand = position.hand
    # the kernel's arguments before the batch's own: the deal, the plan, the memo
    deal = (table, owner, position.deck_size, known, hidden, position.professional,
            np.asarray(hand, np.int64))
    batches: list[tuple[np.ndarray, np.ndarray]] = []  # ([card, sample] values, cows now)
    warm = (*deal, 0, 0, depth, rollouts, seed, new_run_memo(layout), layout, stats.copy(),
            np.zeros((len(hand), 0)), np.zeros((len(hand), 0)), goal, attribution(goal))
    if not compiled_for(_montecarlo_batch, *warm):
        _montecarlo_batch(*warm)  # compile or load first: times are the sampling's
    memo = new_run_memo(layout)
    start = work_clock()
    deadline = None if time_limit is None else clock + time_limit
    if deadline is not None:
        batch = min(batch, FIRST_TIMED_BATCH)
    timer = None if deadline is None else _stop_at(deadline, stats)
    try:
        done, complete = _sample_batches(
            deal, (depth, rollouts, seed, memo, layout, stats), goal, samples, batch, deadline,
            progress, batches)
    except KeyboardInterrupt:
        # never a result as if nothing happened (a caller looping over searches would go
        # on): the samples finished ride on the interrupt, for the command to report
        done = sum(v.shape[1] for v, _ in batches)  # what finished, even if Ctrl-C came late
        partial = None if done < 2 else _sampled(position, batches, done, depth, rollouts,
                                                 stats, objective, start, "interrupted")
        raise SearchInterrupted(f"Monte Carlo interrupted after {done:,} samples per card",
                                partial=partial) from None
    finally:
        if timer is not None:
            timer.cancel()
    if done < 2 and deadline is not None and (depth, rollouts) != (0, 0):
        # the plan's exact part did not give two samples in time: the closest bot's
        # playouts (no search, microseconds a sample) answer at once, labelled as such
        return run_montecarlo(position, samples=min(samples, FALLBACK_SAMPLES), seed=seed,
                              exact_depth=0, rollouts=0, progress=progress)
    if done < 2:
        raise NimmtError("stopped before two samples per card; allow more time")
    return _sampled(position, batches, done, depth, rollouts, stats, objective, start,
                    None if complete else "time limit")


def _sampling_plan(position: Position, exact_depth: int | None, rollouts: int | None,
                   node_budget: int) -> tuple[int, int]:
    """(exact_depth, rollouts) of a run: ``plan``'s, or for a given depth the most
    rollouts whose plan_cost fits ``node_budget``; a given ``rollouts`` stays, and none
    when no later card is chosen by a policy."""
    if exact_depth is None:
        depth, planned = plan(position, node_budget)
    else:
        depth = exact_depth
        planned = next((r for r in ROLLOUT_CHOICES
                        if plan_cost(position, depth, r) <= node_budget), 0)
    rollouts = planned if rollouts is None else rollouts
    if not policy_turns(position.cards_left, depth):
        rollouts = 0  # no later card is chosen by a policy
    return depth, rollouts


def _sample_batches(deal: tuple, run: tuple, goal: np.ndarray, samples: int, batch: int,
                    deadline: float | None, progress: Callable[[int], None] | None,
                    batches: list[tuple[np.ndarray, np.ndarray]]) -> tuple[int, bool]:
    """Sample every card in batches, appending each finished batch's (values, cows now) to
    ``batches``, until ``samples`` per card or ``deadline``; batches double while they are
    quick, and with a deadline fit the time left. ``deal`` and ``run`` (depth, rollouts,
    seed, memo, layout, stats) are the kernel's arguments around the batch's own. Returns
    (samples per card finished, whether they are all)."""
    stats = run[-1]
    hand_size = len(deal[-1])
    done = 0
    complete = True
    rate = 0.0  # seconds a sample (every card) took in the last batch
    while done < samples:
        size = min(batch, samples - done)
        if deadline is not None and rate > 0:  # a batch that fits the time left
            size = max(1, min(size, int(TIMED_SHARE * (deadline - work_clock()) / rate)))
        t0 = work_clock()
        values = np.zeros((hand_size, size))
        now = np.zeros((hand_size, size))
        args = (*deal, done, size, *run, values, now, goal, attribution(goal))
        _montecarlo_batch(*args)
        if stats[ABORTED]:  # stopped at the deadline inside the batch: dropped
            return done, False
        batches.append((values, now))
        done += size
        spent = work_clock() - t0
        rate = spent / size
        if spent < 0.05 and batch < 8192:
            batch *= 2  # fewer kernel calls, while time limits stay responsive
        if progress:
            progress(size)
        if deadline is not None and work_clock() >= deadline:
            complete = done >= samples
            break
    return done, complete


def _sampled(position: Position, batches: list[tuple[np.ndarray, np.ndarray]], done: int,
             depth: int, rollouts: int, stats: np.ndarray, objective: str, start: float,
             stopped: str | None) -> MonteCarloResult:
    """The result of the first ``done`` samples per card (``stopped``: why it has no
    more, None when it has them all)."""
    values = np.hstack([v for v, _ in batches])
    now = np.hstack([n for _, n in batches])
    cards = []
    for ci, card in enumerate(position.hand):
        v = values[ci, :done]
        cards.append(SampledCard(card, done, objective_value(objective, float(v.mean())),
                                 float(v.std(ddof=1) / math.sqrt(done)),
                                 float(now[ci, :done].mean()),
                                 float((now[ci, :done] > 0).mean())))
    return MonteCarloResult(tuple(cards), depth, work_clock() - start, stopped is None,
                            int(stats[RESOLVED]), position.cards_left, rollouts, objective,
                            win_word(position), stopped)
