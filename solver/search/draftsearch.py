"""The logic variant's draft: which card to draft, draft bots, whole logic rounds.

``analyse_draft`` answers, for every card player 1 may draft now, player 1's expected
cows in the round that follows, when the rest of the draft is made by named *drafters*
(one per seat; player 1's own later picks by its seat's drafter) and the round is played
by named *play bots* (engine.py's numba bots, rule-following row choices). Two methods:

* ``montecarlo`` — per card, samples of the rest of the draft and the round, each from
  its own stream (seed, card, sample), so results do not depend on batching or on where
  a time limit stopped them; standard errors and 95% intervals per card.
* ``exact`` — enumeration of every remaining pick, memoised by the hands: a ``random``
  drafter averages over the pool, ``cheap`` over the pool's fewest-cow cards, ``fewest``
  takes its one card, ``optimal`` the card that minimises its own cows (ties: the lowest
  card). It applies when the round is deterministic (no ``random`` play bot), no seat
  drafts by ``evaluate``, and the enumeration fits ``max_nodes`` rounds.

``auto`` takes exact where it applies, else Monte Carlo. Drafters:

* ``random`` — a uniformly random card of the pool;
* ``fewest`` — the engine's rule: the fewest cows, ties to the lowest card (deterministic);
* ``cheap`` — the fewest cows, ties at random (the default: a player avoiding cows,
  without other preference);
* ``evaluate`` — drafts by this evaluation with a small budget: for each card of the pool,
  16 samples of the rest (``cheap`` drafters, the round by the play bots; the same
  samples for every card) and the card with the fewest own cows;
* ``optimal`` — exact enumeration only: each such drafter minimises its own cows.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.defaults import DEFAULT_SAMPLES
from ..base.errors import BudgetExceeded, NimmtError, SearchInterrupted, param
from ..base.intervals import bounded_interval
from ..base.notice import work_clock
from ..base.rules import HAND_SIZE, ROW_COUNT, Rules, card_cows
from ..kernels import draftkernels as dk
from ..kernels import engine
from ..positions.draft import DraftPosition, format_draft, hand_sizes_after, pick_order
from ..positions.position import Position

__all__ = ["DEFAULT_DRAFTER", "DEFAULT_MAX_ROUNDS", "DEFAULT_ROUND_BOT", "DRAFTERS",
           "DraftAnalysis", "DraftCard", "LogicRound", "analyse_draft", "deal_draft",
           "deal_logic_position", "draft_round", "drafted_round", "drafter_codes",
           "estimate_rounds", "exact_applies", "play_logic_games", "play_logic_round", "seat_names"]

DRAFTERS = ("random", "fewest", "cheap", "evaluate", "optimal")
DRAFT_CODES = {"random": dk.DRAFT_RANDOM, "fewest": dk.DRAFT_FEWEST, "cheap": dk.DRAFT_CHEAP,
               "evaluate": dk.DRAFT_EVALUATE}
OPTIMAL = "optimal"
DEFAULT_DRAFTER = "cheap"
DEFAULT_ROUND_BOT = "closest"
DEFAULT_MAX_ROUNDS = 50_000  # exact enumeration: rounds played (about 50 us each)
UNIT = "expected cows"


def seat_names(names: Sequence[str] | str | None, players: int, what: str,
               default: str, known: Sequence[str]) -> tuple[str, ...]:
    """One name per seat: a single name fills every seat; unknown names are refused."""
    if names is None:
        names = [default]
    elif isinstance(names, str):
        names = [b.strip() for b in names.split(",") if b.strip()]
    names = list(names)
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise NimmtError(f"{param(what)} names {len(names)} bots for {players} players; name "
                         "one per seat (or one for every seat)")
    unknown = [b for b in names if b not in known]
    if unknown:
        raise NimmtError(f"unknown {what} bot {unknown[0]!r}; use one of {', '.join(known)}")
    return tuple(names)


def drafter_codes(names: Sequence[str]) -> np.ndarray:
    """Drafter names -> kernel codes (``optimal`` has none: exact enumeration only)."""
    if OPTIMAL in names:
        raise NimmtError(f"the optimal drafter exists only in exact enumeration; use "
                         f"{param('method', 'exact')} or another drafter")
    unknown = [b for b in names if b not in DRAFT_CODES]
    if unknown:
        raise NimmtError(f"unknown drafter {unknown[0]!r}; use one of {', '.join(DRAFTERS)}")
    return np.array([DRAFT_CODES[b] for b in names], np.int64)


def _round_bots(names: Sequence[str] | str | None, players: int) -> tuple[str, ...]:
    return seat_names(names, players, "round", DEFAULT_ROUND_BOT, tuple(engine.BOT_CODES))


def _drafters(names: Sequence[str] | str | None, players: int) -> tuple[str, ...]:
    return seat_names(names, players, "drafters", DEFAULT_DRAFTER, DRAFTERS)


# ---------------------------------------------------------------- results

@dataclass(frozen=True)
class DraftCard:
    """One card player 1 may draft: its expected cows in the round, best first."""

    card: int
    value: float
    regret: float
    others: float                 # the other players' mean expected cows
    stderr: float | None = None   # montecarlo
    ci95: tuple[float, float] | None = None
    samples: int | None = None
    regret_stderr: float | None = None


@dataclass(frozen=True)
class DraftAnalysis:
    """What ``analyse_draft`` found: every card of the open pool, best first."""

    draft: DraftPosition
    drafters: tuple[str, ...]
    round_bots: tuple[str, ...]
    method: str           # 'exact' or 'montecarlo'
    reason: str
    cards: tuple[DraftCard, ...]
    seconds: float
    complete: bool = True
    seed: int | None = None
    rounds: int = 0       # rounds played: exact's leaves, or samples in all
    extra: dict = field(default_factory=dict)

    @property
    def value(self) -> float:
        return self.cards[0].value

    @property
    def best(self) -> DraftCard:
        return self.cards[0]

    @property
    def quantity(self) -> str:
        return ("player 1's expected cows in the round after the draft, player 1 drafting "
                "the card now; the rest of the draft by the drafters (player 1's later picks "
                "too), the round by the play bots (player 1's cards too)")

    def to_json(self) -> dict:
        cards = []
        for c in self.cards:
            item: dict[str, Any] = {"card": c.card, "value": c.value, "regret": c.regret,
                                    "others_cows": c.others}
            if c.stderr is not None:
                assert c.ci95 is not None
                item.update(stderr=c.stderr, ci95=list(c.ci95), samples=c.samples,
                            regret_stderr=c.regret_stderr)
            cards.append(item)
        data = {"position": format_draft(self.draft), "phase": "draft", "opponents": "bots",
                "drafters": list(self.drafters), "round": list(self.round_bots),
                "method": self.method, "value": self.value, "cards": cards,
                "reason": self.reason, "unit": UNIT, "quantity": self.quantity,
                "rounds": self.rounds, "seconds": self.seconds, "complete": self.complete}
        if self.method == "montecarlo":
            data.update(seed=self.seed, samples=self.cards[0].samples)
        data.update(self.extra)
        return data


# ---------------------------------------------------------------- state arrays

def _arrays(draft: DraftPosition) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(pool, hands[n, 10], counts, pickers of every pick) of a draft position."""
    hands = np.zeros((draft.players, HAND_SIZE), np.int64)
    counts = np.zeros(draft.players, np.int64)
    for p, hand in enumerate(draft.hands):
        hands[p, :len(hand)] = hand
        counts[p] = len(hand)
    pickers = np.array(pick_order(draft.players, draft.start, draft.order), np.int64)
    return np.array(draft.pool, np.int64), hands, counts, pickers


# ---------------------------------------------------------------- exact enumeration

def _deterministic_round(round_bots: Sequence[str]) -> bool:
    return "random" not in round_bots


def estimate_rounds(draft: DraftPosition, drafters: Sequence[str]) -> int:
    """Rounds an exact enumeration plays at most: per card of the pool, the fewer of the
    pick sequences and the distinct final hands. A ``fewest`` drafter has one choice, a
    ``cheap`` one as many as the pool's fewest-cow cards (known while only such drafters
    have picked: they always take from the cheapest class), the others the whole pool."""
    pool = len(draft.pool)
    pickers = draft.next_pickers[1:]
    left = [HAND_SIZE - s for s in (len(h) for h in draft.hands)]
    left[0] -= 1
    distinct = math.comb(pool - 1, ROW_COUNT) * math.factorial(sum(left))
    for c in left:
        distinct //= math.factorial(c)
    total = 0
    for card in draft.pool:
        classes: dict[int, int] = {}
        for c in draft.pool:
            if c != card:
                classes[card_cows(c)] = classes.get(card_cows(c), 0) + 1
        known, paths = True, 1
        for i, p in enumerate(pickers):
            size = pool - 1 - i
            if drafters[p] in ("fewest", "cheap") and known:
                least = min(k for k, v in classes.items() if v)
                paths *= classes[least] if drafters[p] == "cheap" else 1
                classes[least] -= 1
            else:
                known = False
                paths *= size
            if paths > distinct:
                break
        total += min(paths, distinct)
    return total


def exact_applies(draft: DraftPosition, drafters: Sequence[str], round_bots: Sequence[str],
                  max_rounds: int = DEFAULT_MAX_ROUNDS) -> str | None:
    """Why exact enumeration does not apply here (None when it does)."""
    if not _deterministic_round(round_bots):
        return "the round is not deterministic (a random play bot)"
    if "evaluate" in drafters:
        return "the evaluate drafter samples"
    estimate = estimate_rounds(draft, drafters)
    if estimate > max_rounds:
        shown = f"{estimate:,}" if estimate < 10**12 else f"{estimate:.1e}"
        return f"it would play about {shown} rounds, over the budget of {max_rounds:,}"
    return None


def _exact(draft: DraftPosition, drafters: Sequence[str], round_bots: Sequence[str],
           progress: Callable[[int], None] | None) -> tuple[list[tuple[int, np.ndarray]], int]:
    """Exact expected cows (every player) after player 1 drafts each card of the pool."""
    n, professional = draft.players, draft.professional
    bots = engine.bot_codes(round_bots)
    pickers = pick_order(n, draft.start, draft.order)
    total = HAND_SIZE * n
    deck = range(1, draft.deck_size + 1)
    memo: dict[tuple[int, ...], np.ndarray] = {}
    leaves = [0]

    def value(masks: tuple[int, ...], pick: int) -> np.ndarray:
        if pick == total:
            leaves[0] += 1
            hands = np.array([[c for c in deck if m >> c & 1] for m in masks], np.int64)
            left = np.array([c for c in deck if not any(m >> c & 1 for m in masks)], np.int64)
            return dk.round_once(left, hands, n, professional, bots, 0).astype(float)
        found = memo.get(masks)
        if found is not None:
            return found
        p = pickers[pick]
        held = 0
        for m in masks:
            held |= m
        pool = [c for c in deck if not held >> c & 1]
        code = drafters[p]
        if code == "fewest":
            choices = [min(pool, key=lambda c: (card_cows(c), c))]
        elif code == "cheap":
            least = min(map(card_cows, pool))
            choices = [c for c in pool if card_cows(c) == least]
        else:
            choices = pool

        def after(c: int) -> np.ndarray:
            return value(masks[:p] + (masks[p] | 1 << c,) + masks[p + 1:], pick + 1)

        if code == OPTIMAL:
            result = min((after(c) for c in choices), key=lambda v: v[p])  # first: lowest
        else:
            result = sum((after(c) for c in choices), np.zeros(n)) / len(choices)
        memo[masks] = result
        return result

    masks = tuple(sum(1 << c for c in h) for h in draft.hands)
    found = []
    for card in draft.pool:
        found.append((card, value((masks[0] | 1 << card,) + masks[1:], draft.picks_done + 1)))
        if progress:
            progress(1)
    return found, leaves[0]


# ---------------------------------------------------------------- Monte Carlo

def _montecarlo(draft: DraftPosition, drafters: Sequence[str], round_bots: Sequence[str],
                samples: int, seed: int, time_limit: float | None,
                progress: Callable[[int], None] | None, workers: int = 1, batch: int = 64,
                ) -> tuple[list[tuple[int, np.ndarray, np.ndarray]], bool, float]:
    """Per card of the pool: (card, player 1's cows per sample, the others' mean), whether
    every sample ran, and the seconds the sampling took (after the kernel loaded). With
    ``workers`` > 1, threads share each sweep over the cards (the kernels release the
    GIL); a sample's stream depends on (seed, card, sample) only, so the figures do not
    depend on the workers."""
    from concurrent.futures import ThreadPoolExecutor

    pool, hands, counts, pickers = _arrays(draft)
    codes, bots = drafter_codes(drafters), engine.bot_codes(round_bots)
    n, first, professional = draft.players, draft.picks_done, draft.professional
    values = [[] for _ in draft.pool]  # type: list[list[np.ndarray]]
    others = [[] for _ in draft.pool]  # type: list[list[np.ndarray]]

    def run(ci: int, card: int, start: int, size: int) -> None:
        v, o = np.zeros(size, np.int64), np.zeros(size)
        dk.analysis_samples(pool, hands, counts, pickers, first, card, card << 32, codes, n,
                            professional, bots, seed, start, v, o)
        values[ci].append(v)
        others[ci].append(o)

    run(0, draft.pool[0], 0, 0)  # load (or compile) the kernel before timing
    done, complete = 0, True
    pool_of_threads = ThreadPoolExecutor(workers) if workers > 1 else None
    start = work_clock()
    try:
        while done < samples:
            size = min(batch, samples - done)
            t0 = work_clock()
            if pool_of_threads is None:
                for ci, card in enumerate(draft.pool):
                    run(ci, card, done, size)
            else:
                jobs = [pool_of_threads.submit(run, ci, card, done, size)
                        for ci, card in enumerate(draft.pool)]
                for job in jobs:
                    job.result()
            done += size
            if progress:
                progress(size)
            if work_clock() - t0 < 0.05 and batch < 1 << 16:
                batch *= 2
            if time_limit is not None and work_clock() - start > time_limit:
                complete = done >= samples
                break
    except KeyboardInterrupt:
        complete = False
        interrupted = True
    else:
        interrupted = False
    finally:
        if pool_of_threads is not None:
            pool_of_threads.shutdown(wait=True, cancel_futures=True)
    done = min(sum(len(x) for x in v) for v in values)  # every card as far as all went
    sampled = [(card, np.concatenate(values[ci])[:done], np.concatenate(others[ci])[:done])
               for ci, card in enumerate(draft.pool)]
    return _sampled(sampled, done, complete, interrupted, start)


def _sampled(sampled: list[tuple[int, np.ndarray, np.ndarray]], done: int, complete: bool,
             interrupted: bool, start: float
             ) -> tuple[list[tuple[int, np.ndarray, np.ndarray]], bool, float]:
    """A sampling's return, or on Ctrl-C its interrupt, never a result as if nothing
    happened (a caller looping over analyses would go on): the samples finished ride on
    it as ``partial`` (``(sampled, seconds)``; None under two per card)."""
    seconds = work_clock() - start
    if interrupted:
        raise SearchInterrupted(f"sampling interrupted after {done:,} samples per card",
                                partial=(sampled, seconds) if done >= 2 else None)
    if done < 2:
        raise NimmtError("stopped before two samples per card; allow more time")
    return sampled, complete, seconds


# A round played outside the kernels (the arena's game loop with any bots): the 4 row cards,
# each seat's hand (seat 0 is player 1) and a seed; returns each seat's cows.
RoundPlayer = Callable[[list[int], list[list[int]], int], Sequence[int]]


def _montecarlo_played(draft: DraftPosition, drafters: Sequence[str], play_round: RoundPlayer,
                       samples: int, seed: int, time_limit: float | None,
                       progress: Callable[[int], None] | None,
                       ) -> tuple[list[tuple[int, np.ndarray, np.ndarray]], bool, float]:
    """``_montecarlo`` with the round played by ``play_round`` (slow: a Python game loop).
    Sample s of a card: the rest of the draft by the drafters' kernel from the stream
    (seed, card, s), then the round with seed derived from the same three numbers."""
    pool0, hands0, counts0, pickers = _arrays(draft)
    codes = drafter_codes(drafters)
    closest = engine.bot_codes([DEFAULT_ROUND_BOT] * draft.players)
    n, first, last = draft.players, draft.picks_done, HAND_SIZE * draft.players
    values: dict[int, list[int]] = {card: [] for card in draft.pool}
    others: dict[int, list[float]] = {card: [] for card in draft.pool}
    complete, start = True, work_clock()
    try:
        for s in range(samples):
            for card in draft.pool:
                pool = pool0[pool0 != card].copy()
                hands, counts = hands0.copy(), counts0.copy()
                hands[0, counts[0]] = card
                counts[0] += 1
                stream = (card << 32) + s
                rng = np.array([engine.rng_seed(seed, stream)], np.uint64)
                left = dk.draft_rest(pool, len(pool), hands, counts, pickers, first + 1, last,
                                     codes, n, draft.professional, closest, rng)
                cows = play_round(sorted(int(c) for c in pool[:left]),
                                  [hands[p, :counts[p]].tolist() for p in range(n)],
                                  int(engine.rng_seed(seed + 1, stream) >> np.uint64(1)))
                values[card].append(int(cows[0]))
                others[card].append(sum(cows[1:]) / (n - 1))
            if progress:
                progress(1)
            if time_limit is not None and work_clock() - start > time_limit:
                complete = s + 1 >= samples
                break
    except KeyboardInterrupt:
        complete = False
        interrupted = True
    else:
        interrupted = False
    done = min(len(v) for v in values.values())
    return _sampled([(card, np.array(values[card][:done], np.int64),
                      np.array(others[card][:done])) for card in draft.pool],
                    done, complete, interrupted, start)


# ---------------------------------------------------------------- the analysis

def analyse_draft(draft: DraftPosition, drafters: Sequence[str] | str | None = None,
                  round_bots: Sequence[str] | str | None = None, method: str = "auto",
                  samples: int = DEFAULT_SAMPLES, seed: int = 0, time_limit: float | None = None,
                  max_rounds: int = DEFAULT_MAX_ROUNDS,
                  progress: Callable[[int], None] | None = None,
                  workers: int = 1,
                  exact_progress: Callable[[int], None] | None = None,
                  play_round: RoundPlayer | None = None) -> DraftAnalysis:
    """For every card of the open pool: player 1's expected cows in the round after the
    draft if it drafts that card now (module docstring: the drafters and methods).

    ``progress(n)``: n more Monte Carlo samples per card; ``exact_progress(n)``: n more
    cards enumerated exactly.
    ``workers``: Monte Carlo threads (the figures do not depend on them).
    ``play_round``: the round played outside the kernels (any bots, e.g. search-backed
    ones, through the arena's game loop; ``round_bots`` then only names them): Monte Carlo
    only, one sample at a time, far slower.

    >>> from nimmt.solver.positions.draft import parse_draft
    >>> d = parse_draft("variant=logic players=2 phase=draft hand=1,2,3,4,6,7,8,9,12 "
    ...                 "p2=13,14,16,17,18,19,21,23,24")
    >>> a = analyse_draft(d, drafters="fewest")
    >>> a.method, [(c.card, c.value) for c in a.cards][:2]
    ('exact', [(5, 9.0), (10, 9.0)])
    """
    n = draft.players
    drafters = _drafters(drafters, n)
    round_bots = _round_labels(round_bots, n, play_round)
    _check_draft_options(method, samples, max_rounds)
    why_not = ("the round is played by search-backed bots" if play_round is not None
               else exact_applies(draft, drafters, round_bots, max_rounds))
    _check_draft_method(method, why_not, drafters)
    if method == "exact" or (method == "auto" and not why_not):
        return _exact_analysis(draft, drafters, round_bots, method, exact_progress)
    return _sampled_analysis(draft, drafters, round_bots, method, why_not, samples, seed,
                             time_limit, progress, workers, play_round)


def _round_labels(round_bots: Sequence[str] | str | None, n: int,
                  play_round: RoundPlayer | None) -> tuple[str, ...]:
    """The round's bot per seat; with ``play_round`` labels only (the caller's round
    player plays them): one name for every seat, or one per seat."""
    if play_round is None:
        return _round_bots(round_bots, n)
    labels = [round_bots] if isinstance(round_bots, str) else list(round_bots or ["bots"])
    return tuple(labels * n if len(labels) == 1 else labels)


def _check_draft_options(method: str, samples: int, max_rounds: int) -> None:
    """Refuse an unknown method, fewer than 2 samples (Monte Carlo) or a budget below 1."""
    if method not in ("auto", "exact", "montecarlo"):
        raise NimmtError(f"unknown method {method!r}; use auto, exact or montecarlo")
    if samples < 2 and method != "exact":
        raise NimmtError(f"{param('samples')} must be at least 2 (a standard error needs two)")
    if max_rounds < 1:
        raise NimmtError(f"{param('max_nodes', beside=True)} must be at least 1")


def _check_draft_method(method: str, why_not: str | None, drafters: tuple[str, ...]) -> None:
    """Refuse exact enumeration where it does not apply (``why_not``; over the budget:
    BudgetExceeded), and Monte Carlo for the optimal drafter."""
    if method == "exact" and why_not:
        raise (BudgetExceeded if "budget" in why_not else NimmtError)(
            f"exact enumeration does not apply: {why_not}; raise "
            f"{param('max_nodes', beside=True)} or use {param('method', 'montecarlo')}"
            if "budget" in why_not else
            f"exact enumeration does not apply: {why_not}; use "
            f"{param('method', 'montecarlo')}")
    if method == "montecarlo" and OPTIMAL in drafters:
        drafter_codes(drafters)  # raises: optimal is exact only


def _exact_analysis(draft: DraftPosition, drafters: tuple[str, ...],
                    round_bots: tuple[str, ...], method: str,
                    exact_progress: Callable[[int], None] | None) -> DraftAnalysis:
    """Every card by exact enumeration of the rest of the draft (the round kernel loaded
    first, so the time is the enumeration's)."""
    n = draft.players
    dealt = np.arange(1, draft.deck_size + 1, dtype=np.int64)  # load the kernel first
    dk.round_once(dealt[-ROW_COUNT:], dealt[:HAND_SIZE * n].reshape(n, HAND_SIZE), n,
                  draft.professional, engine.bot_codes(round_bots), 0)
    start = work_clock()
    values, leaves = _exact(draft, drafters, round_bots, exact_progress)
    best = min(v[0] for _, v in values)
    cards = tuple(sorted((DraftCard(c, float(v[0]), float(v[0] - best),
                                    float((v.sum() - v[0]) / (n - 1))) for c, v in values),
                         key=lambda c: (c.value, c.card)))
    reason = ("exact enumeration as asked" if method == "exact" else
              "auto: exact enumeration of the rest of the draft (a deterministic round)")
    return DraftAnalysis(draft, drafters, round_bots, "exact",
                         f"{reason}; {leaves:,} rounds played", cards,
                         work_clock() - start, rounds=leaves,
                         extra={"estimated_rounds": estimate_rounds(draft, drafters)})


def _sampled_analysis(draft: DraftPosition, drafters: tuple[str, ...],
                      round_bots: tuple[str, ...], method: str, why_not: str | None, samples: int,
                      seed: int, time_limit: float | None,
                      progress: Callable[[int], None] | None, workers: int,
                      play_round: RoundPlayer | None) -> DraftAnalysis:
    """Every card by Monte Carlo (in the kernels, or one sample at a time through
    ``play_round``); Ctrl-C's samples as its ``partial``."""
    if OPTIMAL in drafters:
        raise NimmtError(f"the optimal drafter needs exact enumeration, which does not apply: "
                         f"{why_not}")
    if workers < 1:
        raise NimmtError(f"{param('workers')} must be at least 1")
    reason = ("Monte Carlo as asked" if method == "montecarlo" else
              f"auto: exact enumeration does not apply ({why_not}); Monte Carlo")
    try:
        if play_round is not None:
            sampled, complete, seconds = _montecarlo_played(draft, drafters, play_round,
                                                            samples, seed, time_limit, progress)
        else:
            sampled, complete, seconds = _montecarlo(draft, drafters, round_bots, samples,
                                                     seed, time_limit, progress, workers)
    except SearchInterrupted as stop:  # the samples taken, as this function's result
        if stop.partial is not None:
            taken, spent = stop.partial
            stop.partial = _from_samples(draft, drafters, round_bots, reason, taken, spent,
                                         False, seed, "interrupted")
        raise
    return _from_samples(draft, drafters, round_bots, reason, sampled, seconds, complete,
                         seed, None if complete else "time limit")


def _from_samples(draft: DraftPosition, drafters: tuple[str, ...],
                  round_bots: tuple[str, ...], reason: str,
                  sampled: list[tuple[int, np.ndarray, np.ndarray]], seconds: float,
                  complete: bool, seed: int, stopped: str | None) -> DraftAnalysis:
    """A Monte Carlo draft analysis from its samples (``stopped``: why it has fewer than
    asked, None when it has them all)."""
    means = {card: float(v.mean()) for card, v, _ in sampled}
    errors = {card: float(v.std(ddof=1) / math.sqrt(len(v))) for card, v, _ in sampled}
    top = min(means, key=lambda c: (means[c], c))
    cards = tuple(sorted(
        (DraftCard(card, means[card], means[card] - means[top], float(o.mean()),
                   errors[card],  # expected cows: the interval cut at 0
                   bounded_interval(means[card], errors[card], len(v), 0.0), len(v),
                   0.0 if card == top else math.hypot(errors[card], errors[top]))
         for card, v, o in sampled), key=lambda c: (c.value, c.card)))
    total = sum(len(v) for _, v, _ in sampled)
    return DraftAnalysis(draft, drafters, round_bots, "montecarlo", reason, cards, seconds,
                         complete, seed, total, extra={"stopped": stopped} if stopped else {})


# ---------------------------------------------------------------- whole logic rounds

@dataclass(frozen=True)
class LogicRound:
    """One logic round played by bots: the picks in order, the position after the draft
    (turn 1), the cards played per turn and each player's cows."""

    picks: tuple[int, ...]
    pickers: tuple[int, ...]       # 0-based, per pick
    position: Position
    plays: tuple[tuple[int, ...], ...]
    cows: tuple[int, ...]


def _rules(rules: Rules) -> None:
    if rules.variant != "logic":
        raise NimmtError("only the logic variant is drafted; use variant='logic'")


def play_logic_games(rules: Rules, drafters: Sequence[str], bots: Sequence[str],
                     first_game: int, game_count: int, seed: int, max_rounds: int = 10_000,
                     record_rounds: int = 0):
    """Logic games first_game.. with a drafter and a play bot per seat (the interface a
    simulation or an arena calls): (totals[game, player], rounds[game]) and, when
    record_rounds > 0, (rows, hands, plays, picks) of each game's first rounds. Game g's
    randomness depends only on (seed, g); with the drafters the engine derives from its
    bots (random for the random bot, else fewest) the games are ``engine.play_games``'s."""
    _rules(rules)
    n = rules.players
    codes = drafter_codes(seat_names(drafters, n, "drafters", DEFAULT_DRAFTER, DRAFTERS))
    play = engine.bot_codes(seat_names(bots, n, "bots", DEFAULT_ROUND_BOT,
                                       tuple(engine.BOT_CODES)))
    totals = np.zeros((game_count, n), np.int64)
    rounds = np.zeros(game_count, np.int64)
    logged = game_count if record_rounds else 0
    logs = (np.zeros((logged, record_rounds, ROW_COUNT), np.int64),
            np.zeros((logged, record_rounds, n, HAND_SIZE), np.int64),
            np.zeros((logged, record_rounds, HAND_SIZE, n), np.int64),
            np.zeros((logged, record_rounds, HAND_SIZE * n), np.int64))
    dk.play_logic_games(first_game, game_count, n, rules.professional, rules.threshold,
                        rules.one_round, max_rounds, codes, play, seed, totals, rounds, *logs)
    if record_rounds:
        return totals, rounds, logs
    return totals, rounds


def engine_drafters(bots: Sequence[str]) -> tuple[str, ...]:
    """The drafters the engine's own deal uses for these play bots."""
    return tuple("random" if b == "random" else "fewest" for b in bots)


def play_logic_round(rules: Rules, drafters: Sequence[str] | str | None = None,
                     bots: Sequence[str] | str | None = None, seed: int = 0) -> LogicRound:
    """One whole logic round (draft from player 1, then the 10 turns) by named drafters
    and play bots, one per seat (a single name fills every seat; defaults: the engine's
    drafters for the bots, ``closest`` play).

    >>> r = play_logic_round(Rules("logic", 2), "cheap", "closest", seed=1)
    >>> len(r.picks), r.position.cards_left, len(r.plays)
    (20, 10, 10)
    """
    _rules(rules)
    n = rules.players
    play = seat_names(bots, n, "bots", DEFAULT_ROUND_BOT, tuple(engine.BOT_CODES))
    draft = engine_drafters(play) if drafters is None else \
        seat_names(drafters, n, "drafters", DEFAULT_DRAFTER, DRAFTERS)
    totals, _, (rows, hands, plays, picks) = play_logic_games(
        Rules("logic", n, rules.placement, one_round=True), draft, play, 0, 1, seed,
        record_rounds=1)
    position = Position.make(players=n, rows=[[int(c)] for c in rows[0, 0]],
                             hand=hands[0, 0, 0].tolist(), variant="logic",
                             placement=rules.placement,
                             others={p + 1: hands[0, 0, p].tolist() for p in range(1, n)})
    return LogicRound(tuple(int(c) for c in picks[0, 0]), pick_order(n), position,
                      tuple(tuple(int(c) for c in t) for t in plays[0, 0]),
                      tuple(int(c) for c in totals[0]))


def draft_round(rules: Rules, drafters: Sequence[str] | str, start: int = 0, seed: int = 0,
                ) -> tuple[list[int], list[list[int]]]:
    """A whole logic draft (``drafted_round``): the 4 row cards and each seat's hand."""
    rows, hands, _ = drafted_round(rules, drafters, start, seed)
    return rows, hands


def drafted_round(rules: Rules, drafters: Sequence[str] | str, start: int = 0, seed: int = 0,
                  ) -> tuple[list[int], list[list[int]], list[int]]:
    """A whole logic draft, round robin from seat ``start`` (0-based), one drafter per seat
    (or one for all): the 4 row cards (ascending) and each seat's hand. Random choices come
    from ``seed``; an ``evaluate`` drafter models the round with the ``closest`` bot. The
    arena's logic deal. Also the cards in pick order (pick i by seat (start + i) mod n).

    >>> rows, hands, picks = drafted_round(Rules("logic", 2), "fewest", start=1, seed=3)
    >>> len(rows), [len(h) for h in hands], sorted(rows + hands[0] + hands[1]) == list(range(1, 25))
    (4, [10, 10], True)
    >>> sorted(picks[1::2]) == hands[0]  # seat 2 picked first, then seat 1, ...
    True
    """
    _rules(rules)
    n = rules.players
    names = seat_names(drafters, n, "drafters", DEFAULT_DRAFTER, DRAFTERS)
    if "optimal" in names:
        raise NimmtError("the optimal drafter only enumerates the rest of a draft position; "
                         "name random, fewest, cheap or evaluate")
    if not 0 <= start < n:
        raise NimmtError(f"start={start} is outside 0..{n - 1}")
    pool, hands, counts, _ = _arrays(DraftPosition.make(players=n, placement=rules.placement))
    pickers = np.array([(start + pick) % n for pick in range(HAND_SIZE * n)], np.int64)
    rng = np.array([engine.rng_seed(seed, 0)], np.uint64)
    left = dk.draft_rest(pool, len(pool), hands, counts, pickers, 0, HAND_SIZE * n,
                         drafter_codes(names), n, rules.professional,
                         engine.bot_codes([DEFAULT_ROUND_BOT] * n), rng)
    rows = sorted(int(c) for c in pool[:left])
    taken = [0] * n  # the kernel fills each hand in pick order
    picks = []
    for p in pickers:
        picks.append(int(hands[p, taken[p]]))
        taken[p] += 1
    return rows, [sorted(int(c) for c in hands[p, :counts[p]]) for p in range(n)], picks


def deal_logic_position(rules: Rules, cards_left: int = HAND_SIZE, seed: int = 0,
                        drafters: Sequence[str] | str | None = None,
                        bots: Sequence[str] | str | None = None) -> Position:
    """A logic position drafted by ``drafters`` and played by ``bots`` until each holds
    ``cards_left`` cards (as game.deal_position, with named drafters)."""
    if not 1 <= cards_left <= HAND_SIZE:
        raise NimmtError(f"cards-left={cards_left} is outside 1..10")
    played = play_logic_round(rules, drafters, bots or "random", seed)
    position = played.position
    for turn in range(HAND_SIZE - cards_left):
        position, _ = position.apply_turn(list(played.plays[turn]))
    return position


def deal_draft(rules: Rules, picks_done: int, seed: int = 0,
               drafters: Sequence[str] | str | None = None, order: str = "round-robin",
               ) -> DraftPosition:
    """A draft position after ``picks_done`` picks of a draft from player 1 in ``order``
    by ``drafters`` (default: random, as ``deal`` drafts). The seats are numbered so that
    the player to pick is player 1 (``start`` says who picked first); with round-robin
    order the picks are those of ``deal_logic_position`` with the same seed.

    >>> d = deal_draft(Rules("logic", 3), 4, seed=2)
    >>> d.picks_done, d.start, len(d.pool)
    (4, 3, 30)
    """
    _rules(rules)
    n = rules.players
    if not 0 <= picks_done < HAND_SIZE * n:
        raise NimmtError(f"{param('picks_done')} must be 0..{HAND_SIZE * n - 1} (the draft has "
                         f"{HAND_SIZE * n} picks)")
    names = seat_names(drafters, n, "drafters", "random", DRAFTERS)
    pickers = pick_order(n, 1, order)
    start = DraftPosition.make(players=n, order=order, placement=rules.placement)
    pool, hands, counts, _ = _arrays(start)
    rng = np.array([engine.rng_seed(seed, 0)], np.uint64)
    dk.draft_rest(pool, len(pool), hands, counts, np.array(pickers, np.int64), 0, picks_done,
                  drafter_codes(names), n, rules.professional,
                  engine.bot_codes([DEFAULT_ROUND_BOT] * n), rng)
    assert tuple(counts) == hand_sizes_after(picks_done, n, 1, order)
    me = pickers[picks_done]  # the seat to pick becomes player 1
    seats = [(me + i) % n for i in range(n)]
    return DraftPosition.make(players=n, hands=[hands[s, :counts[s]].tolist() for s in seats],
                              start=(n - me) % n + 1, order=order, placement=rules.placement)
