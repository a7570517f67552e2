"""Bots against bots: a Python game loop over the policy interface, and the arena.

Games are played at ``solver.players.table``'s ``Table``, one policy per seat, every
decision asked from the seat's own view and checked (an ``ArenaError`` names the bot, the
seat and the position).

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
from ..base.rules import HAND_SIZE, Rules, win_shares
from ..positions.position import Position
from ..search.draftsearch import DEFAULT_DRAFTER, DRAFTERS, seat_names
from ..search.game import Estimate, SeatStats, SimulationResult
from .bots import BotSpec, make_policy
from .external import close_engines, policy_for
from .records import GameRecorder
from .seats import Table, bot_seed, deal_cards, deal_round

__all__ = ["ArenaResult", "BotSummary", "GameRecord", "bot_labels", "deal_with_bots",
           "play_deal", "rating", "round_player", "run_arena", "simulate_bots"]

MAX_ROUNDS = 200  # a game to a threshold ends by then whatever the bots do
BOOTSTRAP = 200   # resamples of the deals for the rating's intervals
RULE_GROUP = 8    # deals of rule-of-thumb bots per batch task (unit_group)


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
        if rules.game_over(totals) or rounds >= MAX_ROUNDS:
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
              batch: Backend | None = None, first: int = 0) -> ArenaResult:
    """Play ``deals`` deals, numbered from ``first`` (so a long run can go on in pieces),
    every rotation of each when ``duplicate``, each deal a unit of
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
    jobs = ((rules, specs, seed, d, duplicate, draft, keep) for d in range(first, first + deals))

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

