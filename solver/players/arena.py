"""Bots against bots: a Python game loop over the policy interface, and the arena.

``Table`` plays rounds with one policy (``solver.players.bots``) per seat. Every decision is asked
from the seat's own view (a ``Position`` whose player 1 is that seat: its hand, the rows,
the cards gone, its score first; hidden hands form the pool except in logic) and checked
by the engine: a card not in the hand, a row option that does not exist or a bot that
raises is an ``ArenaError`` naming the bot, the seat and the position, never replaced.
A card with more than one option (a low card, a professional tie) is settled when it
reaches the rows, by its owner's ``choose_option``.

``run_arena`` plays duplicate deals: deal d's rounds are dealt from (seed, d, round) and
replayed once per rotation, bot b sitting at seat (b + r) mod n in rotation r, so each bot
holds each hand (``duplicate=False``: one rotation, d mod n). Bots are seeded from
(seed, d, r, b), so a result depends only on the seed and the deal indices, never on
the number of worker processes. Statistics treat the deal as the unit: per deal each
bot's mean over its rotations, then the mean over deals with a 95% interval inside the
range (``solver.base.intervals``: cows cut at 0, win shares Wilson). The rating is a
Bradley–Terry fit (scipy's BFGS on the likelihood of the pairwise results, a tie counting
half a win each way, with one virtual tie per pair so that an unbeaten bot keeps a finite
rating) on the Elo scale (400 log10 of the strength ratio), one bot anchored at 0, with
95% intervals from a bootstrap over deals.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from ..base.batch import Backend, run_units
from ..base.errors import NimmtError, param
from ..base.names import Variant
from ..base.notice import work_clock
from ..base.rules import HAND_SIZE, ROW_COUNT, Rules
from ..kernels import engine, turns
from ..positions.draft import ROUND_ROBIN
from ..positions.position import Position, format_position
from ..search.draftsearch import DEFAULT_DRAFTER, DRAFTERS, draft_round, drafted_round, seat_names
from ..search.game import Estimate, SeatStats, SimulationResult, win_shares
from .bots import Bot, BotSpec, Moment, make_policy
from .external import close_engines, policy_for
from .records import GameRecorder

__all__ = ["ArenaError", "ArenaResult", "BotSummary", "GameRecord", "Table", "bot_labels",
           "bot_seed", "deal_cards", "deal_round", "deal_with_bots", "play_deal", "rating",
           "round_player", "run_arena", "simulate_bots"]

MAX_ROUNDS = 200  # a game to a threshold ends by then whatever the bots do
BOOTSTRAP = 200   # resamples of the deals for the rating's intervals
RULE_GROUP = 8    # deals of rule-of-thumb bots per batch task (unit_group)


class ArenaError(NimmtError):
    """A bot broke the rules or failed: which bot, which seat, which position."""


def deal_cards(rules: Rules, seed: int, deal: int, round_index: int,
               drafters: Sequence[str] | None = None) -> tuple[list[int], list[list[int]]]:
    """The 4 starting row cards and the hands of round ``round_index`` of deal ``deal``,
    from (seed, deal, round) alone. The logic variant's hands are dealt the same way (an
    open draft by players picking at random gives every split with the same chance) unless
    ``drafters`` names a drafter per seat: then they draft, round robin from seat
    round_index mod n, as the engine's games do."""
    if drafters is not None:
        return draft_round(rules, drafters, round_index % rules.players,
                           bot_seed(seed, deal, round_index))
    rng = np.random.default_rng([seed, deal, round_index])
    cards = (rng.permutation(rules.deck_size) + 1).tolist()
    n = rules.players
    hands = [sorted(cards[HAND_SIZE * p:HAND_SIZE * (p + 1)]) for p in range(n)]
    return cards[HAND_SIZE * n:HAND_SIZE * n + ROW_COUNT], hands


def deal_round(rules: Rules, seed: int, deal: int, round_index: int,
               drafters: Sequence[str] | None = None
               ) -> tuple[list[int], list[list[int]], dict | None]:
    """``deal_cards``, with the draft as a game record keeps it when ``drafters`` draft
    (``{"start": seat 1-based, "order": "round-robin", "picks": cards in pick order}``),
    else None."""
    if drafters is None:
        return (*deal_cards(rules, seed, deal, round_index), None)
    start = round_index % rules.players
    rows, hands, picks = drafted_round(rules, drafters, start,
                                       bot_seed(seed, deal, round_index))
    return rows, hands, {"start": start + 1, "order": ROUND_ROBIN, "picks": picks}


def bot_seed(*words: int) -> int:
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0] >> 1)


class Table:
    """A round in play: rows, every hand, the cards gone, the scores before it."""

    # ---- game records (issue 14): when set, told every resolved turn
    recorder: GameRecorder | None = None
    # ---- end game records

    def __init__(self, rules: Rules, rows: Sequence[int], hands: Sequence[Sequence[int]],
                 policies: Sequence[Bot], scores: Sequence[int] | None = None,
                 labels: Sequence[str] | None = None) -> None:
        self.rules = rules
        self.rows: tuple[tuple[int, ...], ...] = tuple((int(c),) for c in rows)
        self.hands = [sorted(int(c) for c in h) for h in hands]
        self.policies = list(policies)
        self.labels = list(labels) if labels else [str(p.spec) for p in policies]
        self.scores = list(scores) if scores is not None else [0] * rules.players
        self.gone: list[int] = []
        self.cows = [0] * rules.players
        # False for a table set up mid-round whose cows taken before are unknown: the views
        # then carry no taken= (the win objective refuses them)
        self.taken_known = True
        # True in a whole game (not one round): the views carry the threshold, so that a
        # bot with the win objective plays for the game (docs/DESIGN.md section 3)
        self.in_game = False
        self.times: list[list[float]] = [[] for _ in range(rules.players)]

    def view(self, seat: int) -> Position:
        """The position as ``seat`` sees it (that seat is player 1)."""
        n = self.rules.players
        order = [(seat + j) % n for j in range(n)]
        known = self.rules.variant == Variant.LOGIC
        others = {j + 1: self.hands[order[j]] for j in range(1, n)} if known else None
        return Position.make(players=n, rows=self.rows, hand=self.hands[seat],
                             variant=self.rules.variant, placement=self.rules.placement,
                             others=others, gone=self.gone,
                             scores=[self.scores[s] for s in order],
                             taken=([self.cows[s] for s in order] if self.taken_known
                                    else None),
                             threshold=self.rules.threshold if self.in_game else None)

    def _fail(self, seat: int, position: Position, what: str) -> ArenaError:
        return ArenaError(f"bot {self.labels[seat]} (seat {seat + 1}) {what}; position: "
                          f"{format_position(position)}")

    def _ask(self, seat: int, position: Position, ask: Callable[[], object]) -> object:
        try:
            return ask()
        except KeyboardInterrupt:
            raise
        except Exception as e:  # a bot's failure is reported, never replaced
            detail = str(e) or type(e).__name__
            raise self._fail(seat, position, f"failed: {type(e).__name__}: {detail}") from e

    def play_turn(self) -> None:
        """One turn: every seat's card, then the row choices as the cards reach the rows."""
        n, professional = self.rules.players, self.rules.professional
        views = [self.view(s) for s in range(n)]
        cards = []
        forced = len(self.hands[0]) == 1
        for s in range(n):
            t0 = work_clock()
            decision = self._ask(s, views[s], partial(self.policies[s].choose, views[s]))
            if not forced:
                self.times[s].append(work_clock() - t0)
            card = getattr(decision, "card", None)
            if card not in self.hands[s]:
                raise self._fail(s, views[s], f"played {card!r}, which is not in its hand")
            cards.append(int(card))
        take, tie = [-1] * n, [-1] * n
        order = sorted(range(n), key=lambda s: cards[s])
        for i, s in enumerate(order):
            before = order[:i]
            rows = self.rows if not before else engine.resolve_turn(
                self.rows, [cards[q] for q in before], professional,
                [take[q] for q in before], [tie[q] for q in before]).rows
            options = turns.option_choices(rows, cards[s], professional)
            if len(options) < 2:
                continue
            seats = [(s + j) % n for j in range(n)]
            moment = Moment(views[s], tuple(cards[q] for q in seats),
                            tuple(take[q] if q in before else -1 for q in seats),
                            tuple(tie[q] if q in before else -1 for q in seats),
                            rows, options)
            t0 = work_clock()
            option = self._ask(s, views[s], partial(self.policies[s].choose_option, moment))
            if self.times[s] and not forced:
                self.times[s][-1] += work_clock() - t0
            if not isinstance(option, (int, np.integer)) or not -1 <= option < len(options):
                raise self._fail(s, views[s], f"chose row option {option!r} for {cards[s]}; "
                                 f"it has options 0..{len(options) - 1} (or -1)")
            if option >= 0:
                take[s], tie[s] = options[int(option)]
        outcome = engine.resolve_turn(self.rows, cards, professional, take, tie)
        if self.recorder is not None:  # ---- game records
            self.recorder.turn(cards, take, tie, outcome.cows)
        on_table = {c for r in outcome.rows for c in r}
        self.gone += [c for c in [*(c for r in self.rows for c in r), *cards]
                      if c not in on_table]
        self.rows = outcome.rows
        for s in range(n):
            self.cows[s] += outcome.cows[s]
            self.hands[s].remove(cards[s])

    def play(self, turns_to_play: int | None = None) -> list[int]:
        """Play the round out (or that many turns); returns each seat's cows."""
        for _ in range(turns_to_play if turns_to_play is not None else len(self.hands[0])):
            self.play_turn()
        return self.cows


@dataclass(frozen=True)
class GameRecord:
    """One game: which bot sat where, its total, its rounds, its decision times."""

    deal: int
    rotation: int
    seat_of: tuple[int, ...]         # seat_of[b]: bot b's seat
    totals: tuple[int, ...]          # per bot
    rounds: int
    times: tuple[tuple[float, ...], ...]  # per bot: seconds of each decision
    record: dict | None = None       # ---- game records: the game (records.py), if kept


def play_game(rules: Rules, specs: Sequence[BotSpec], seed: int, deal: int, rotation: int,
              seat_of: Sequence[int], drafters: Sequence[str] | None = None,
              keep: bool = False) -> GameRecord:
    """One game of deal ``deal``, bot b at seat seat_of[b]; in the logic variant bot b
    drafts as drafters[b] when drafters are named (else the hands are dealt); ``keep``:
    with its record."""
    n = rules.players
    bot_at = [0] * n
    for b, s in enumerate(seat_of):
        bot_at[s] = b
    labels = bot_labels(specs)
    policies = [policy_for(specs[bot_at[s]], bot_seed(seed, deal, rotation, bot_at[s]))
                for s in range(n)]  # (external bots: solver/players/external.py)
    totals = [0] * n  # per seat
    times: list[list[float]] = [[] for _ in range(n)]
    rounds = 0
    recorder = GameRecorder(rules.variant, n, rules.placement, rules.threshold,
                            rules.one_round, [labels[bot_at[s]] for s in range(n)], seed=seed,
                            deal=deal, rotation=rotation) if keep else None  # ---- records
    while True:
        rows, hands, draft = deal_round(rules, seed, deal, rounds,
                                        None if drafters is None
                                        else [drafters[bot_at[s]] for s in range(n)])
        table = Table(rules, rows, hands, policies, totals,
                      [labels[bot_at[s]] for s in range(n)])
        table.in_game = not rules.one_round
        if recorder is not None:  # ---- game records
            recorder.start_round(rows, hands, draft)
            table.recorder = recorder
        cows = table.play()
        if recorder is not None:
            recorder.end_round()
        rounds += 1
        for s in range(n):
            totals[s] += cows[s]
            times[s] += table.times[s]
        if rules.one_round or max(totals) >= rules.threshold or rounds >= MAX_ROUNDS:
            break
    return GameRecord(deal, rotation, tuple(seat_of), tuple(totals[seat_of[b]] for b in range(n)),
                      rounds, tuple(tuple(times[seat_of[b]]) for b in range(n)),
                      recorder.finish() if recorder is not None else None)


def bot_labels(specs: Sequence[BotSpec]) -> list[str]:
    """Each bot's name as written, numbered where a name repeats (closest#2)."""
    names = [str(s) for s in specs]
    return [name if names.count(name) == 1 else f"{name}#{names[:i + 1].count(name)}"
            for i, name in enumerate(names)]


def play_deal(args: tuple[Rules, tuple[BotSpec, ...], int, int, bool, tuple[str, ...] | None,
                          bool]) -> list[GameRecord]:
    """Every game of deal d: all rotations (duplicate) or rotation d mod n. ``args``:
    (rules, specs, seed, deal, duplicate, drafters per bot or None, keep the game records)."""
    rules, specs, seed, deal, duplicate, drafters, keep = args
    n = rules.players
    rotations = range(n) if duplicate else [deal % n]
    return [play_game(rules, specs, seed, deal, r, [(b + r) % n for b in range(n)], drafters,
                      keep)
            for r in rotations]


def check_drafters(rules: Rules, drafters: Sequence[str] | str | None
                   ) -> tuple[str, ...] | None:
    """One drafter per bot (a single name for all), for the logic variant only."""
    if drafters is None:
        return None
    if rules.variant != Variant.LOGIC:
        raise NimmtError(f"{param('drafters')} apply to the logic variant (the drafted "
                         "variant)")
    names = tuple(seat_names(drafters, rules.players, "drafters", DEFAULT_DRAFTER, DRAFTERS))
    if "optimal" in names:
        raise NimmtError(f"{param('drafters', 'optimal')} only enumerates the rest of a draft "
                         "position; name random, fewest, cheap or evaluate")
    return names


# ---------------------------------------------------------------- statistics

@dataclass(frozen=True)
class BotSummary:
    bot: str
    cows_per_round: Estimate
    win_rate: Estimate
    rating: float
    rating_low: float
    rating_high: float
    decisions: int
    mean_seconds: float
    p95_seconds: float
    median_seconds: float = math.nan


@dataclass
class ArenaResult:
    rules: Rules
    bots: tuple[str, ...]
    seed: int
    deals_asked: int
    duplicate: bool
    games: list[GameRecord]
    seconds: float
    anchor: str = ""
    summaries: list[BotSummary] = field(default_factory=list)
    pairwise: list[list[Estimate | None]] = field(default_factory=list)
    drafters: tuple[str, ...] | None = None  # per bot (logic), None: hands dealt

    @property
    def deals(self) -> int:
        return len({g.deal for g in self.games})

    @property
    def complete(self) -> bool:
        return self.deals == self.deals_asked

    def to_json(self) -> dict:
        def est(e: Estimate | None) -> dict | None:
            return None if e is None else {"mean": e.mean, "ci95": [e.low, e.high]}

        return {"variant": self.rules.variant, "players": self.rules.players,
                "placement": self.rules.placement, "one_round": self.rules.one_round,
                "threshold": self.rules.threshold, "seed": self.seed,
                "duplicate": self.duplicate, "drafters": self.drafters, "deals": self.deals,
                "deals_asked": self.deals_asked, "games": len(self.games),
                "complete": self.complete, "seconds": self.seconds,
                "rating": {"model": "Bradley-Terry, Elo scale", "anchor": self.anchor,
                           "interval": f"bootstrap over deals, {BOOTSTRAP} resamples"},
                "bots": [{"bot": s.bot, "cows_per_round": est(s.cows_per_round),
                          "win_rate": est(s.win_rate), "rating": s.rating,
                          "rating_ci95": [s.rating_low, s.rating_high],
                          "decisions": s.decisions, "mean_seconds": s.mean_seconds,
                          "median_seconds": s.median_seconds,
                          "p95_seconds": s.p95_seconds} for s in self.summaries],
                # none before a deal finished (Ctrl-C at once): every pair unknown
                "pairwise": {a: {b: est(self.pairwise[i][j]) if self.pairwise else None
                                 for j, b in enumerate(self.bots) if i != j}
                             for i, a in enumerate(self.bots)}}


def _by_deal(games: Sequence[GameRecord]) -> dict[int, list[GameRecord]]:
    out: dict[int, list[GameRecord]] = {}
    for g in games:
        out.setdefault(g.deal, []).append(g)
    return dict(sorted(out.items()))


def _pair_score(g: GameRecord, a: int, b: int) -> float:
    return 1.0 if g.totals[a] < g.totals[b] else 0.5 if g.totals[a] == g.totals[b] else 0.0


def fit_bradley_terry(wins: np.ndarray, anchor: int) -> np.ndarray:
    """Log-strengths from wins[a, b] (a's wins over b, ties as halves), ``anchor`` at 0,
    by scipy's BFGS on the negative log-likelihood; one virtual tie per pair."""
    from scipy.optimize import minimize

    n = wins.shape[0]
    w = wins + 0.5 * (1 - np.eye(n))
    free = [i for i in range(n) if i != anchor]

    def full(x: np.ndarray) -> np.ndarray:
        theta = np.zeros(n)
        theta[free] = x
        return theta

    def loss(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta = full(x)
        d = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        value = -float(np.sum(w * np.log(p)))
        grad_full = -(np.sum(w * (1 - p), axis=1) - np.sum(w * (1 - p), axis=0))
        return value, grad_full[free]

    result = minimize(loss, np.zeros(n - 1), jac=True, method="BFGS")
    return full(result.x)


def rating(games: Sequence[GameRecord], n: int, anchor: int, seed: int = 0
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Elo-scale Bradley–Terry ratings, anchor 0, with bootstrap 95% bounds over deals."""
    deals = list(_by_deal(games).values())
    per_deal = np.zeros((len(deals), n, n))
    for d, group in enumerate(deals):
        for g in group:
            for a in range(n):
                for b in range(n):
                    if a != b:
                        per_deal[d, a, b] += _pair_score(g, a, b)
    scale = 400.0 / math.log(10.0)
    point = scale * fit_bradley_terry(per_deal.sum(axis=0), anchor)
    rng = np.random.default_rng([seed, 7])
    boots = np.array([scale * fit_bradley_terry(
        per_deal[rng.integers(0, len(deals), len(deals))].sum(axis=0), anchor)
        for _ in range(BOOTSTRAP if len(deals) > 1 else 0)]).reshape(-1, n)
    if len(boots):
        low, high = np.percentile(boots, 2.5, axis=0), np.percentile(boots, 97.5, axis=0)
    else:
        low = high = np.full(n, math.nan)
    return point, low, high


def choose_anchor(labels: Sequence[str]) -> int:
    """``random`` when it plays, else the first rule-of-thumb bot, else the last bot."""
    for name in ("random", "closest", "lowkeeper", "dumper"):
        if name in labels:
            return labels.index(name)
    return len(labels) - 1


def summarise(result: ArenaResult) -> ArenaResult:
    n = len(result.bots)
    deals = list(_by_deal(result.games).values())
    result.anchor = result.bots[choose_anchor(result.bots)]
    if not deals:
        return result
    cows = np.array([[np.mean([g.totals[b] / g.rounds for g in group]) for b in range(n)]
                     for group in deals])
    wins = np.array([np.mean([win_shares(np.array([g.totals]))[0] for g in group], axis=0)
                     for group in deals])
    points, low, high = rating(result.games, n, choose_anchor(result.bots), result.seed)
    result.summaries = []
    for b in range(n):
        times = np.array([t for g in result.games for t in g.times[b]])
        result.summaries.append(BotSummary(
            result.bots[b], Estimate.of_cows(cows[:, b]), Estimate.of_shares(wins[:, b]),
            float(points[b]), float(low[b]), float(high[b]), len(times),
            float(times.mean()) if len(times) else math.nan,
            float(np.percentile(times, 95)) if len(times) else math.nan,
            float(np.median(times)) if len(times) else math.nan))
    result.pairwise = [[None if a == b else Estimate.of_shares(np.array(
        [np.mean([_pair_score(g, a, b) for g in group]) for group in deals]))
        for b in range(n)] for a in range(n)]
    return result


def run_arena(rules: Rules, specs: Sequence[BotSpec], deals: int, seed: int = 0,
              duplicate: bool = True, workers: int = 1,
              progress: Callable[[int], None] | None = None,
              drafters: Sequence[str] | str | None = None,
              on_game: Callable[[GameRecord], None] | None = None,
              batch: Backend | None = None) -> ArenaResult:
    """Play ``deals`` deals (every rotation of each when ``duplicate``), each deal a unit of
    ``solver.base.batch`` (``batch``, else ``workers`` local processes); Ctrl-C stops and
    returns the deals finished. Results depend on (seed, deal) only, not on what ran them.
    Logic variant: ``drafters`` (one per bot, it follows the bot's seat) draft the hands.
    ``on_game``: called with each finished game, its ``record`` filled in (records.py)."""
    if len(specs) != rules.players:
        raise NimmtError(f"{len(specs)} bots for {rules.players} players; name one bot per "
                         "seat")
    if deals < 1:
        raise NimmtError("deals must be at least 1")
    specs = tuple(specs)
    draft = check_drafters(rules, drafters)
    keep = on_game is not None
    jobs = ((rules, specs, seed, d, duplicate, draft, keep) for d in range(deals))

    def hand_on(index: int, records: list[GameRecord]) -> None:
        for g in records:  # ---- game records: handed on, not kept
            if on_game is not None:
                on_game(g)
        records[:] = [replace(g, record=None) for g in records]

    try:
        run = run_units(play_deal, jobs, batch or Backend(workers), progress=progress,
                        on_result=hand_on, warm=partial(play_deal, warm_deal(rules, specs, draft)),
                        group=unit_group(rules, specs, draft))
    finally:
        close_engines()  # external bots (the workers close theirs as they end)
    games = [g for records in run.ordered() for g in records]
    result = ArenaResult(rules, tuple(bot_labels(specs)), seed, deals, duplicate, games,
                         run.seconds, drafters=draft)
    return summarise(result)


def unit_group(rules: Rules, specs: Sequence[BotSpec], draft: Sequence[str] | None) -> int:
    """Deals (or games) per task of ``solver.base.batch``: rule-of-thumb bots play a one-round
    deal in milliseconds, far less than a process pool's or a cluster's cost per task, so
    those deals go in groups of ``RULE_GROUP``; any other deal is a task of its own."""
    short = rules.one_round and draft is None and not any(s.searches for s in specs)
    return RULE_GROUP if short else 1


def warm_deal(rules: Rules, specs: tuple[BotSpec, ...], draft: tuple[str, ...] | None
              ) -> tuple[Rules, tuple[BotSpec, ...], int, int, bool, tuple[str, ...] | None,
                         bool]:
    """A one-round, one-rotation deal of these bots: ``play_deal`` on it loads the kernels
    the arena's deals use, once per worker."""
    one_round = Rules(rules.variant, rules.players, rules.placement, rules.threshold, True)
    return one_round, specs, 0, 0, False, draft, False


# ---------------------------------------------------------------- simulate, deal

def simulate_bots(rules: Rules, specs: Sequence[BotSpec], games: int, seed: int = 0,
                  progress: Callable[[int], None] | None = None,
                  drafters: Sequence[str] | str | None = None,
                  on_game: Callable[[GameRecord], None] | None = None,
                  batch: Backend | None = None) -> SimulationResult:
    """``game.simulate`` for any bots, through the Python game loop (slower than the
    kernels): game g is deal g with the bots at their seats (logic: drafted by
    ``drafters`` when named), each game a unit of ``solver.base.batch`` (``batch``; in process
    by default). Ctrl-C stops and reports. ``on_game``: called with each finished game,
    its ``record`` filled in (records.py)."""
    if len(specs) != rules.players:
        raise NimmtError(f"{len(specs)} bots for {rules.players} players; name one bot per "
                         "seat (or a single bot for every seat)")
    if games < 1:
        raise NimmtError("games must be at least 1")
    n = rules.players
    draft = check_drafters(rules, drafters)
    keep = on_game is not None

    def hand_on(index: int, game: GameRecord) -> None:
        if on_game:  # ---- game records: handed on, not kept
            on_game(game)

    run = run_units(play_seated, ((rules, specs, seed, g, draft, keep) for g in range(games)),
                    batch or Backend(), progress=progress, on_result=hand_on,
                    warm=partial(play_deal, warm_deal(rules, tuple(specs), draft)),
                    group=unit_group(rules, specs, draft))
    records = [replace(r, record=None) for r in run.ordered()]
    seconds = run.seconds
    totals = np.array([r.totals for r in records], np.int64).reshape(-1, n)
    rounds = np.array([r.rounds for r in records], np.int64)
    shares = win_shares(totals) if len(records) else np.zeros((0, n))
    labels = [str(s) for s in specs]
    seats = tuple(SeatStats(p + 1, labels[p],
                            Estimate.of_cows(totals[:, p] / np.maximum(rounds, 1)),
                            Estimate.of_cows(totals[:, p].astype(float)),
                            Estimate.of_shares(shares[:, p]))
                  for p in range(n))
    return SimulationResult(rules, tuple(labels), seed, len(records), games, seconds,
                            float(rounds.mean()) if len(records) else math.nan, seats, draft)


def play_seated(args: tuple[Rules, Sequence[BotSpec], int, int, tuple[str, ...] | None, bool]
                ) -> GameRecord:
    """Game g of ``simulate_bots``: deal g, each bot at its own seat. ``args``: (rules,
    specs, seed, g, drafters or None, keep the game record)."""
    rules, specs, seed, g, draft, keep = args
    return play_game(rules, specs, seed, g, 0, list(range(rules.players)), draft, keep)


def round_player(rules: Rules, specs: Sequence[BotSpec]
                 ) -> Callable[[list[int], list[list[int]], int], list[int]]:
    """A round played by these bots through the game loop, for ``analyse_draft``'s
    ``play_round``: (rows, hands per seat, seed) -> each seat's cows."""
    def play(rows: list[int], hands: list[list[int]], seed: int) -> list[int]:
        policies = [make_policy(s, bot_seed(seed, p)) for p, s in enumerate(specs)]
        return Table(rules, rows, hands, policies).play()

    return play


def deal_with_bots(rules: Rules, cards_left: int, seed: int, specs: Sequence[BotSpec],
                   drafters: Sequence[str] | str | None = None) -> Position:
    """``game.deal_position`` with any bots: the rule-of-thumb ones through the kernels
    (the same position as before for a seed), others through this module's game loop
    (logic: the hands drafted by ``drafters`` when named)."""
    from ..search.game import deal_position

    if not 1 <= cards_left <= HAND_SIZE:
        raise NimmtError(f"cards_left={cards_left} is outside 1..10")
    draft = check_drafters(rules, drafters)
    if draft is None and all(not s.searches for s in specs):
        return deal_position(rules, cards_left, seed, [s.name for s in specs])
    rows, hands = deal_cards(rules, seed, 0, 0, draft)
    policies = [make_policy(s, bot_seed(seed, p)) for p, s in enumerate(specs)]
    table = Table(rules, rows, hands, policies)
    table.play(HAND_SIZE - cards_left)
    return table.view(0)

