"""Opponent models from bots: player 1's expected cows when every opponent plays like a bot.

``analyse_bots(position, "closest")`` values every card of player 1's hand when each
opponent plays like the named bot (``bots.parse_bot``: a name with parameters), from its
own seat's view (its hand, the rows, the cards gone; hidden hands hidden to it as well).
The hidden hands are every consistent split of the pool, equally likely.

What player 1 does after its first card (the convention of the random model's exact
search, where player 1 plays on knowing only what it has seen):

* ``exact`` (deterministic bots: ``DETERMINISTIC``): an enumeration over every split.
  Player 1 plays on **optimally with the information it has** -- its hand, the rows and
  the cards revealed, never the split itself: at each turn it picks the card (and, once
  the turn's cards are revealed, the row) minimising its expected cows over the splits
  still consistent with what it has seen (the splits grouped by the opponents' revealed
  cards). Not a best response per split (that would let player 1 see hidden hands and
  value the cards too low). The opponents' row choices are the rule-following ones (what
  the rule-of-thumb bots do).
* ``montecarlo`` (any bot; stochastic and search-backed ones, or too many splits): per
  sample a split drawn uniformly and the bots' streams fixed by (seed, sample, seat); the
  same sample for every card (common random numbers, so a card's regret has a paired
  standard error). Player 1's later cards are played by the ``closest`` bot and its row
  choices are rule-following -- a strategy it may use, so with cards left after this
  one the figures are an **upper bound** on the exact value (the unit says so), as with
  the random model's Monte Carlo policy. Search-backed opponents play through the arena's
  checked game loop (``seats.Table``), rule-of-thumb ones in one numba kernel
  (``bot_round_samples``, run in chunks with the clock read between them).
* ``auto``: exact when the bot is deterministic and the enumeration's estimated steps
  (``estimate_steps``) times ``STEP_NODES`` fit ``max_nodes``, within auto's time budget;
  Monte Carlo otherwise, and the reason says which and why.

A model name (``random``, ``worst``, ``nash``) is the existing model: ``analyse_any``
dispatches either kind (plain ``nash`` is the equilibrium model; the ``nash`` bot is
named with a parameter, ``nash:k=7``).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.defaults import DEFAULT_MAX_NODES, DEFAULT_SAMPLES
from ..base.errors import BudgetExceeded, NimmtError, SearchInterrupted, param
from ..base.intervals import bounded_interval
from ..base.names import Method
from ..base.notice import work_clock
from ..base.rules import Rules
from ..kernels import engine, turns
from ..kernels.beliefs import deal_hidden
from ..kernels.engine import jit, pick_card, rng_seed
from ..kernels.learned import policy_card, policy_scratch
from ..positions.position import Position
from ..search.analysis import (
    BOUND_UNIT,
    OPPONENTS,
    Analysis,
    CardAnalysis,
    analyse,
    auto_budget,
)
from ..search.auto import run_auto
from .bots import (
    BOT_NAMES,
    DETERMINISTIC,
    SEARCH_BOTS,
    BotSpec,
    ChunkSizer,
    Decision,
    bot_weights,
    is_deterministic,
    kernel_card,
    kernel_code,
    parse_bot,
    playout_arrays,
)
from .seats import Table, bot_seed

__all__ = ["STEP_NODES", "analyse_any", "analyse_bots", "estimate_steps",
           "exact_bot_values", "is_model", "opponent_spec", "split_count", "splits"]

# an enumeration step (a bot's card, a turn resolved) counted as this many search nodes
# against max_nodes: a step (Python over the engine's turn) costs about 0.1-0.3 ms, a node
# about 1 us
STEP_NODES = 250
LATER_BOT = "closest"  # player 1's later cards inside Monte Carlo samples
TIME_CHECK = 256       # the enumeration looks at the clock every this many steps
FIRST_CAPACITY = 1024  # samples per card the sampling arrays first hold (they grow)
# Search-backed opponents (expecti, mcs, ...) decide in Python, tens of milliseconds a card,
# so the default 2,000 samples ran for minutes with no output: without a time limit their
# sampling stops after this many seconds, and the reason says so.
SEARCH_SECONDS = 30.0


def is_model(opponents: str) -> bool:
    """True for a model name (random, worst, nash), False for a bot."""
    return str(opponents) in OPPONENTS


def opponent_spec(text: str) -> BotSpec:
    """The bot of ``--opponents BOT``; one NimmtError naming the models and bots otherwise.

    >>> str(opponent_spec("lowkeeper"))
    'lowkeeper'
    """
    try:
        return parse_bot(text)
    except NimmtError as e:
        if str(text).partition(":")[0].strip() in BOT_NAMES:
            raise  # a bot's parameter is wrong: its own message
        bots = ", ".join(b for b in BOT_NAMES if b not in OPPONENTS)
        raise NimmtError(f"unknown opponents {str(text)[:40]!r}; use {', '.join(OPPONENTS)} "
                         f"or a bot: {bots} (e.g. expecti:samples=500)") from e


# ---------------------------------------------------------------- splits

def splits(position: Position) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every consistent split: the opponents' hands (player 2 first), known hands as they
    are, hidden ones dealt from the pool (k cards each; in standard the rest undealt)."""
    k = position.cards_left
    hidden = position.hidden_players

    def deal(pool: tuple[int, ...], left: int) -> Iterator[tuple[tuple[int, ...], ...]]:
        if left == 0:
            yield ()
            return
        for hand in itertools.combinations(pool, k):
            rest = tuple(c for c in pool if c not in hand)
            for more in deal(rest, left - 1):
                yield (hand,) + more

    for dealt in deal(tuple(position.pool), len(hidden)):
        given = iter(dealt)
        yield tuple(h if h is not None else next(given) for h in position.other_hands)


def split_count(position: Position) -> int:
    """How many splits ``splits`` yields."""
    pool, k, count = len(position.pool), position.cards_left, 1
    for _ in position.hidden_players:
        count *= math.comb(pool, k)
        pool -= k
    return count


def estimate_steps(position: Position) -> int:
    """An upper estimate of the enumeration's steps: every split along every order of
    player 1's cards, a step per turn and player (row choices widen it, counted 2x)."""
    k = position.cards_left
    paths = sum(math.perm(k, t) for t in range(1, k + 1))
    return 2 * split_count(position) * paths * position.players


# ---------------------------------------------------------------- one turn

def _player1_options(rows: tuple[tuple[int, ...], ...], cards: Sequence[int],
                     professional: bool) -> tuple[tuple[int, int], ...]:
    """Player 1's options when its card reaches the rows (the lower cards placed first,
    rule-following): ((-1, -1),) when it has one place to go."""
    rule = [-1] * len(cards)
    at = turns.rows_met(rows, cards, professional, rule, rule, 0)
    options = turns.option_choices(at, cards[0], professional)
    return options if len(options) > 1 else ((-1, -1),)


class _Stopped(Exception):
    """The enumeration passed its step budget or its time."""

    def __init__(self, reason: str, steps: int) -> None:
        super().__init__(reason)
        self.reason, self.steps = reason, steps


def exact_bot_values(position: Position, bot: BotSpec, max_steps: int | None = None,
                     deadline: float | None = None) -> tuple[dict[int, tuple[float, float, float]],
                                                             int]:
    """({card: (expected cows, cows this turn, P(take this turn))}, steps) for a
    deterministic rule-of-thumb ``bot`` (``DETERMINISTIC``), by enumerating every split
    with player 1 playing on optimally on what it sees (module docstring). Raises
    ``_Stopped`` past ``max_steps`` or the ``deadline`` (a ``notice.work_clock`` value)."""
    if not is_deterministic(bot):
        raise NimmtError(f"exact enumeration needs a deterministic bot ({', '.join(DETERMINISTIC)})"
                         f"; {bot} is not: use {param('method', 'montecarlo')}")
    professional = position.professional
    picks: dict[tuple, int] = {}
    memo: dict[tuple, float] = {}
    steps = [0]

    def step() -> None:
        steps[0] += 1
        if max_steps is not None and steps[0] > max_steps:
            raise _Stopped("steps", steps[0])
        if (deadline is not None and steps[0] % TIME_CHECK == 0
                and work_clock() > deadline):
            raise _Stopped("time limit", steps[0])

    def pick(hand: tuple[int, ...], rows: tuple[tuple[int, ...], ...]) -> int:
        key = (hand, rows)
        if key not in picks:
            step()
            picks[key] = kernel_card(bot, hand, rows, professional, position.players,
                                     position.deck_size)
        return picks[key]

    def best(rows, hand, worlds) -> float:
        if not hand:
            return 0.0
        key = (rows, hand, worlds)
        if key not in memo:
            memo[key] = min(card(rows, hand, worlds, c)[0] for c in hand)
        return memo[key]

    def card(rows, hand, worlds, c) -> tuple[float, float, float]:
        groups: dict[tuple[int, ...], list] = {}
        for w in worlds:
            groups.setdefault(tuple(pick(h, rows) for h in w), []).append(w)
        rest = tuple(x for x in hand if x != c)
        total = now = took = 0.0
        for played, group in groups.items():
            cards = (c,) + played
            after_worlds = tuple(tuple(tuple(x for x in h if x != o) for h, o in zip(w, played))
                                 for w in group)
            options = []
            for take, tie in _player1_options(rows, cards, professional):
                step()
                take_rows = [take] + [-1] * len(played)
                tie_sides = [tie] + [-1] * len(played)
                out = engine.resolve_turn(rows, cards, professional, take_rows, tie_sides)
                options.append((out.cows[0] + best(out.rows, rest, after_worlds), out.cows[0]))
            value, cows = min(options)
            total += len(group) * value
            now += len(group) * cows
            took += len(group) * (cows > 0)
        n = len(worlds)
        return total / n, now / n, took / n

    worlds = tuple(splits(position))
    values = {c: card(position.rows, position.hand, worlds, c) for c in position.hand}
    return values, steps[0]


# ---------------------------------------------------------------- sampling

class _Scripted:
    """Player 1 inside a sample: ``first``, then the LATER_BOT's cards; rows rule-following."""

    def __init__(self, first: int, spec: BotSpec) -> None:
        self.first, self.spec, self.played = first, spec, 0

    def choose(self, position: Position) -> Decision:
        self.played += 1
        if self.played == 1:
            return Decision(self.first)
        return Decision(engine.bot_card(LATER_BOT, position.hand, position.rows,
                                        position.professional, players=position.players,
                                        deck_size=position.deck_size))

    def choose_option(self, moment: Any) -> int:
        return -1


def _sample_split(position: Position, rng: np.random.Generator) -> tuple[tuple[int, ...], ...]:
    """One split drawn uniformly (each hidden hand k cards of a shuffled pool)."""
    pool = list(rng.permutation(np.asarray(position.pool, np.int64)))
    k = position.cards_left
    hands = []
    for h in position.other_hands:
        if h is None:
            hands.append(tuple(sorted(int(c) for c in pool[:k])))
            pool = pool[k:]
        else:
            hands.append(h)
    return tuple(hands)


@jit
def bot_round_samples(table0, hands0, hidden, pool0, n, k, deck_size, professional, seed,
                      first, count, bot, later, values, nows, weights):
    """Samples first..first+count-1 of every card of player 1's hand (hands0[0, :k]):
    sample j deals the hidden hands (hidden[p] = 1) from pool0 by stream (seed, j), the
    same deal for every card (common random numbers); player 1 plays card i, then the
    ``later`` bot's cards; every opponent the ``bot``'s (``learned.policy_card`` codes,
    ``weights`` the learned policy's); rows
    rule-following. values[i, j] = player 1's cows to the end of the round, nows[i, j]
    its cows this turn (the whole arrays are passed: a slice of them would be C- or
    A-ordered depending on the chunk, and numba would compile the kernel for each)."""
    table = np.empty_like(table0)
    hands = np.empty_like(hands0)
    pool = np.empty_like(pool0)
    cards = np.zeros(n, np.int64)
    owners = np.zeros(n, np.int64)
    rng = np.zeros(1, np.uint64)
    scratch = policy_scratch()
    for j in range(first, first + count):
        for i in range(k):
            rng[0] = rng_seed(seed, j)
            table[:, :] = table0
            hands[:, :] = hands0
            pool[:] = pool0
            deal_hidden(hands, hidden, pool, n, k, rng)
            cows = 0
            for turn in range(k):
                left = k - turn
                for p in range(n):
                    if p == 0:
                        x = i if turn == 0 else pick_card(later, hands[0], left, table,
                                                          professional, rng, n, deck_size)
                    else:
                        x = policy_card(bot, weights, hands[p], left, table, professional, rng,
                                        n, deck_size, scratch)
                    cards[p] = hands[p, x]
                    owners[p] = p
                    hands[p, x] = hands[p, left - 1]
                turns.sort_turn(cards, owners, n)
                for a in range(n):
                    taken = turns.play_option(table, cards[a], professional, turns.RULE_OPTION)
                    if owners[a] == 0:
                        cows += taken
                if turn == 0:
                    nows[i, j] = cows
            values[i, j] = cows


def _table_round(position: Position, spec: BotSpec, first: int,
                 opponents: tuple[tuple[int, ...], ...], seed: int, sample: int
                 ) -> tuple[int, int]:
    """The same through the arena's checked game loop (search-backed opponents)."""
    from .bots import make_policy

    rules = Rules(position.variant, position.players, position.placement,
                  position.game_threshold)
    policies: list[Any] = [_Scripted(first, parse_bot(LATER_BOT))]
    policies += [make_policy(spec, seed=bot_seed(seed, sample, s))
                 for s in range(1, position.players)]
    table = Table(rules, [r[0] for r in position.rows], [position.hand, *opponents], policies,
                  scores=position.scores, labels=["player 1"] + [str(spec)] * len(opponents))
    table.rows = position.rows
    table.in_game = position.in_game
    table.gone = list(position.gone)
    taken = position.taken_so_far
    table.taken_known = taken is not None
    table.cows = list(taken) if taken is not None else [0] * position.players
    before = table.cows[0]
    table.play_turn()
    first_cows = table.cows[0] - before
    table.play(position.cards_left - 1)
    return table.cows[0] - before, first_cows


def sample_bot_values(position: Position, spec: BotSpec, samples: int, seed: int,
                      deadline: float | None = None,
                      progress: Callable[[int], None] | None = None
                      ) -> tuple[np.ndarray, np.ndarray, bool]:
    """(cows[card, sample], cows this turn[card, sample], complete): sample s draws its
    split from stream (seed, s); every card meets the same samples. Rule-of-thumb bots by
    the kernel, search-backed ones through the arena's game loop."""
    hand = position.hand
    # the arrays grow with the samples taken: --samples is a bound (a time limit or Ctrl-C
    # may stop far below it), and a billion would not fit in memory at once
    values = np.zeros((len(hand), min(samples, FIRST_CAPACITY)))
    now = np.zeros_like(values)
    done = 0
    if kernel_code(spec) >= 0:  # rule-of-thumb or learned opponents: the kernel, in chunks
        return _kernel_samples(position, spec, samples, seed, deadline, progress, values, now)
    try:
        for s in range(samples):
            values, now = _room(values, now, s + 1)
            world = _sample_split(position, np.random.default_rng([seed, s]))
            for i, c in enumerate(hand):
                values[i, s], now[i, s] = _table_round(position, spec, c, world, seed, s)
            done += 1
            if progress:
                progress(1)
            if deadline is not None and work_clock() > deadline and done >= 2:
                break
    except KeyboardInterrupt:
        raise _interrupted(values, now, done) from None
    return values[:, :done], now[:, :done], done == samples


def _room(values: np.ndarray, now: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``values`` and ``now`` with room for ``size`` samples (doubled when short)."""
    if size <= values.shape[1]:
        return values, now
    wider = max(size, 2 * values.shape[1])
    grown = [np.zeros((values.shape[0], wider)) for _ in (values, now)]
    for old, new in zip((values, now), grown):
        new[:, :old.shape[1]] = old
    return grown[0], grown[1]


def _interrupted(values: np.ndarray, now: np.ndarray, done: int) -> SearchInterrupted:
    """Ctrl-C during sampling: the interrupt, never a result (a caller looping over
    analyses would go on), carrying the samples finished (``partial``: (values, now), None
    under two)."""
    return SearchInterrupted(f"sampling interrupted after {done:,} samples per card",
                             partial=(values[:, :done], now[:, :done]) if done >= 2 else None)


def _kernel_samples(position: Position, spec: BotSpec, samples: int, seed: int,
                    deadline: float | None, progress: Callable[[int], None] | None,
                    values: np.ndarray, now: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """``bot_round_samples`` in chunks, the clock read between them (``ChunkSizer``)."""
    hands, hidden, pool, table = playout_arrays(position)
    code, later = kernel_code(spec), engine.BOT_CODES[LATER_BOT]
    k, n = position.cards_left, position.players
    sizer = ChunkSizer(deadline)
    done, chunk = 0, 64
    try:
        while done < samples:
            size = sizer.size(min(chunk, samples - done))
            values, now = _room(values, now, done + size)
            bot_round_samples(table, hands, hidden, pool, n, k, position.deck_size,
                              position.professional, seed, done, size, code, later,
                              values, now, bot_weights(spec))
            done += size
            chunk *= 2
            if progress:
                progress(size)
            if sizer.done(size) and done >= 2:
                break
    except KeyboardInterrupt:
        raise _interrupted(values, now, done) from None
    return values[:, :done], now[:, :done], done == samples


# ---------------------------------------------------------------- the analysis

def _ranked(items: list[dict]) -> tuple[CardAnalysis, ...]:
    items = sorted(items, key=lambda c: (c["value"], c["card"]))
    best = items[0]["value"]
    return tuple(CardAnalysis(regret=c["value"] - best, **c) for c in items)


def _from_samples(position: Position, spec: BotSpec, values: np.ndarray, now: np.ndarray,
                  complete: bool, reason: str, seconds: float, seed: int, steps: int,
                  split_total: int, stopped: str | None = None) -> Analysis:
    n = values.shape[1]
    means = values.mean(axis=1)
    top = min(range(len(position.hand)), key=lambda i: (means[i], position.hand[i]))
    items = []
    for i, c in enumerate(position.hand):
        se = float(values[i].std(ddof=1) / math.sqrt(n))
        diff = values[i] - values[top]
        items.append({"card": c, "value": float(means[i]), "cows_now": float(now[i].mean()),
                      "take_probability": float((now[i] > 0).mean()), "stderr": se,
                      # expected cows, never negative: the interval cut at 0
                      "ci95": bounded_interval(float(means[i]), se, n, 0.0),
                      "samples": n,
                      "regret_stderr": float(diff.std(ddof=1) / math.sqrt(n))})
    later = position.cards_left > 1
    later_play = (f"your later cards: the '{LATER_BOT}' bot; row choices rule-following"
                  if later else "no later cards")
    extra = {"opponent_model": _model_json(spec, split_total), "samples": n, "seed": seed,
             "later_exact": not later,
             "quantity": (f"expected cows with your later cards played by the '{LATER_BOT}' "
                          "bot: an upper bound on the value of playing on optimally"
                          if later else "expected cows"),
             "unit": BOUND_UNIT if later else "expected cows"}
    if stopped:  # why the figures use fewer samples than asked
        extra["stopped"] = stopped
    return Analysis(position, str(spec), Method.MONTECARLO.value, reason, _ranked(items), None,
                    steps, seconds, complete=complete, later_play=later_play, extra=extra)


def _splits(count: int) -> str:
    return f"{count:,} split{'s' if count != 1 else ''}"


def _model_json(spec: BotSpec, split_total: int) -> dict[str, Any]:
    return {"kind": "bot", "bot": str(spec), "deterministic": is_deterministic(spec),
            "splits": split_total}


@dataclass(frozen=True)
class _Enumeration:
    """What exact enumeration would take for this position and bot: the splits, the
    estimated steps, whether they fit ``max_nodes`` and whether the bot allows it."""

    position: Position
    spec: BotSpec
    max_nodes: int
    total: int
    estimate: int

    @classmethod
    def of(cls, position: Position, spec: BotSpec, max_nodes: int) -> _Enumeration:
        return cls(position, spec, max_nodes, split_count(position), estimate_steps(position))

    @property
    def fits(self) -> bool:
        return self.estimate * STEP_NODES <= self.max_nodes

    @property
    def allowed(self) -> bool:
        return is_deterministic(self.spec)

    def check_exact(self) -> None:
        """``method='exact'``'s refusals: a bot that is not deterministic, a budget too small."""
        if not self.allowed:
            raise NimmtError(f"exact enumeration needs a deterministic bot "
                             f"({', '.join(DETERMINISTIC)}); {self.spec} draws random numbers "
                             f"or searches: use {param('method', 'montecarlo')}")
        if not self.fits:
            raise BudgetExceeded(
                f"exact enumeration over {_splits(self.total)} would take about "
                f"{self.estimate:,} steps ({STEP_NODES} nodes each), over the budget of "
                f"{self.max_nodes:,} nodes; raise {param('max_nodes', beside=True)} or use "
                f"{param('method', 'montecarlo')}")

    def run(self, deadline: float | None, how: str, start: float) -> Analysis:
        """The enumeration by ``deadline`` (a work_clock value; raises ``_Stopped``), as an
        Analysis whose reason begins with ``how``."""
        values, steps = exact_bot_values(self.position, self.spec,
                                         2 * self.max_nodes // STEP_NODES, deadline)
        items = [{"card": c, "value": v, "cows_now": now, "take_probability": took}
                 for c, (v, now, took) in values.items()]
        return Analysis(self.position, str(self.spec), Method.EXACT.value,
                        f"{how}; {_splits(self.total)}, your later play optimal on what you "
                        "see", _ranked(items), None, steps, work_clock() - start,
                        extra={"opponent_model": _model_json(self.spec, self.total),
                               "estimated_steps": self.estimate, "unit": "expected cows"})

    def why_not(self) -> str:
        """auto's reason for Monte Carlo without trying the enumeration."""
        if not self.allowed:
            return (f"auto: {self.spec} is not deterministic (it draws random numbers or "
                    "searches); Monte Carlo")
        return (f"auto: exact enumeration of {_splits(self.total)} would take about "
                f"{self.estimate:,} steps x {STEP_NODES}, over the budget of "
                f"{self.max_nodes:,} nodes; Monte Carlo")


def _sampled(position: Position, spec: BotSpec, samples: int, seed: int,
             deadline: float | None, progress: Callable[[int], None] | None, reason: str,
             start: float, total: int) -> Analysis:
    """Monte Carlo over the bot's play by ``deadline``, as an Analysis (interrupted: the
    samples taken ride on the interrupt)."""
    try:
        sampled, now, complete = sample_bot_values(position, spec, samples, seed, deadline,
                                                   progress)
    except SearchInterrupted as stop:  # the samples taken, as this function's result
        if stop.partial is not None:
            taken, taken_now = stop.partial
            stop.partial = _from_samples(position, spec, taken, taken_now, False, reason,
                                         work_clock() - start, seed, 0, total, "interrupted")
        raise
    return _from_samples(position, spec, sampled, now, complete, reason,
                         work_clock() - start, seed, 0, total,
                         None if complete else "time limit")


def _check_bots_request(method: str, samples: int) -> None:
    if method not in tuple(Method):
        raise NimmtError(f"unknown method {method!r}; use one of {', '.join(Method)}")
    if samples < 2:
        raise NimmtError(f"{param('samples')} must be at least 2 (a standard error needs two)")


def analyse_bots(position: Position, opponents: str | BotSpec, method: str = "auto",
                 samples: int = DEFAULT_SAMPLES, seed: int = 0, time_limit: float | None = None,
                 max_nodes: int = DEFAULT_MAX_NODES,
                 progress: Callable[[int], None] | None = None) -> Analysis:
    """Every card's expected cows when every opponent plays like the bot ``opponents``
    (module docstring: methods, player 1's later play, auto's choice: the auto policy of
    ``search.auto`` with analyse's budgets).

    Search-backed bots (``BotSpec.searches``) are sampled within ``time_limit``, or
    SEARCH_SECONDS when none is given (``math.inf``: no bound); the reason says so.

    >>> from nimmt.solver.positions.position import load_position
    >>> a = analyse_bots(load_position("example"), "closest")
    >>> a.method, a.opponents, a.best.card
    ('exact', 'closest', 14)
    """
    spec = opponents if isinstance(opponents, BotSpec) else opponent_spec(opponents)
    _check_bots_request(method, samples)
    start = work_clock()
    default_budget = spec.name in SEARCH_BOTS and time_limit is None
    if default_budget:
        time_limit = SEARCH_SECONDS
    deadline = None if time_limit is None else start + time_limit
    plan = _Enumeration.of(position, spec, max_nodes)
    note = (f"; within the default time budget of {SEARCH_SECONDS:g} s for a search-backed "
            "opponent (give a time limit for another)") if default_budget else ""

    def sample(reason: str) -> Analysis:
        return _sampled(position, spec, samples, seed, deadline, progress, reason + note,
                        start, plan.total)

    if method == Method.EXACT:
        plan.check_exact()
        try:
            return plan.run(deadline, "exact enumeration as asked", start)
        except _Stopped as stopped:
            raise NimmtError(f"exact enumeration stopped ({stopped.reason}) after "
                             f"{stopped.steps:,} steps in {work_clock() - start:.3g} s; allow "
                             f"more time or use {param('method', 'montecarlo')}") from None
    if method == Method.MONTECARLO:
        return sample("Monte Carlo as asked")
    if not (plan.allowed and plan.fits):
        return sample(plan.why_not())

    def solve(seconds: float | None) -> Analysis:
        return plan.run(None if seconds is None else work_clock() + seconds,
                        f"auto: {spec} is deterministic and the enumeration fits (estimated "
                        f"{plan.estimate:,} steps x {STEP_NODES} <= {max_nodes:,} nodes)", start)

    def fall_back(stopped: _Stopped, spent: float, _left: float | None) -> Analysis:
        return sample(f"auto: exact enumeration of {_splits(plan.total)} did not finish in "
                      f"{work_clock() - start:.3g} s (stopped by its {stopped.reason} after "
                      f"{stopped.steps:,} steps); Monte Carlo")

    return run_auto(solve, fall_back, time_limit, auto_budget(), _Stopped)


def analyse_any(position: Position, opponents: str = "random", **options: Any) -> Analysis:
    """``analysis.analyse`` for a model name, ``analyse_bots`` for a bot; the options
    each takes (``method``, ``samples``, ``seed``, ``time_limit``, ``max_nodes``,
    ``progress``; models also ``memory``, ``workers``, ``exact_progress``)."""
    if is_model(opponents):
        return analyse(position, opponents, **options)
    bot_options = {k: v for k, v in options.items()
                   if k in ("method", "samples", "seed", "time_limit", "max_nodes", "progress")}
    return analyse_bots(position, opponents, **bot_options)
