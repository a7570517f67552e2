"""Endgame studies: many positions dealt like puzzle candidates, each solved exactly in
every named model, and the patterns across them.

Position ``index`` of ``k`` cards left is dealt from a seed fixed by (seed, k, index) and
played forward by rule-of-thumb bots (``dealt_by``, one per seat in rotation, as the puzzle
candidates are), so a study is the same for a seed whatever the number of workers. Each
position records every card's exact value in every model (nash: its EV against player 2's
equilibrium, and the equilibrium frequencies), the card each named bot plays, and, when a
bot misses a best card of the first model, the puzzle themes of that miss.

``aggregate`` turns the positions into the figures of the report, per k, with 95%
intervals (``solver.base.intervals``): shares (Wilson), means (normal, cut at 0 for what is
never negative: regrets, spreads, costs, cows), quantiles (nearest rank, with the
distribution-free order-statistic interval).
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from typing import Any

from ..solver.base.batch import Backend, run_units
from ..solver.base.errors import NimmtError, param
from ..solver.base.intervals import Z95, share_interval
from ..solver.base.intervals import mean_interval as _mean_interval
from ..solver.base.names import Model, Placement, Variant
from ..solver.base.notice import work_clock
from ..solver.base.rules import HAND_SIZE, Rules, plural
from ..solver.players.bots import RULE_BOTS, make_policy, parse_bot
from ..solver.positions.position import Position, format_position
from ..solver.search.analysis import UNITS, analyse
from ..solver.search.game import deal_position
from .core import DEAL_BOTS, refutation, themes

__all__ = ["DEFAULT_BOTS", "DEFAULT_MODELS", "StudySettings", "Study", "aggregate",
           "check_study", "parse_cards_left", "position_of", "run_study", "solve_position",
           "quantile", "quantile_interval", "wilson", "mean_interval"]

DEFAULT_MODELS = (Model.RANDOM.value, Model.WORST.value, Model.NASH.value)
DEFAULT_BOTS = ("closest", "lowkeeper", "dumper", "expecti")
TOLERANCE = 1e-9
MAX_NODES = 50_000_000
QUANTILES = (0.5, 0.75, 0.9, 0.99)
# the floor of a model's values: cows are never negative; nash's game value (your cows
# minus player 2's) has either sign
VALUE_FLOOR: dict[str, float] = {Model.RANDOM: 0.0, Model.WORST: 0.0}
INSTRUCTIVE = 10


@dataclass(frozen=True)
class StudySettings:
    variant: str
    players: int
    cards_left: tuple[int, ...]
    positions: int
    seed: int
    placement: str = Placement.NORMAL.value
    models: tuple[str, ...] = DEFAULT_MODELS
    bots: tuple[str, ...] = DEFAULT_BOTS
    dealt_by: tuple[str, ...] = DEAL_BOTS

    def to_json(self) -> dict:
        return {"variant": self.variant, "players": self.players,
                "placement": self.placement, "cards_left": list(self.cards_left),
                "positions": self.positions, "seed": self.seed, "models": list(self.models),
                "bots": list(self.bots), "dealt_by": list(self.dealt_by)}


def parse_cards_left(text: str) -> tuple[int, ...]:
    """``2..6``, ``5`` or ``2,4``: the numbers of cards left to study, ascending.

    >>> parse_cards_left("2..4")
    (2, 3, 4)
    """
    text = text.strip()
    try:
        if ".." in text:
            low, high = text.split("..", 1)
            ks = list(range(int(low), int(high) + 1))
        else:
            ks = [int(part) for part in text.split(",")]
    except ValueError:
        raise NimmtError(f"{param('cards_left')} {text[:40]!r} is not a range: write it as "
                         "2..6, 5 or 2,4") from None
    if not ks:
        raise NimmtError(f"{param('cards_left')} {text[:40]!r} is empty: write it low..high, "
                         "as 2..6")
    return tuple(sorted(set(ks)))


def check_study(settings: StudySettings) -> None:
    """One line naming the parameter when the study cannot be solved exactly."""
    s = settings
    if s.variant == Variant.STANDARD:
        raise NimmtError("studies need a small deck (every card known); use "
                         f"{param('variant', 'tactical')} or logic")
    if not 2 <= s.players <= 4:
        raise NimmtError(f"{param('players')} must be 2..4 for a study (exact solving)")
    top = 6 if s.players == 2 else 4
    bad = [k for k in s.cards_left if not 2 <= k <= top]
    if bad:
        raise NimmtError(f"{param('cards_left')} {bad[0]} is outside 2..{top}: with "
                         f"{s.players} players every position is solved exactly in every "
                         f"model; use 2..{top}")
    if not 1 <= s.positions <= 1_000_000:
        raise NimmtError(f"{param('positions')} must be 1..1,000,000")
    if not s.models:
        raise NimmtError(f"{param('models')} names no model; use random, worst or nash")
    for m in s.models:
        if m not in DEFAULT_MODELS:
            raise NimmtError(f"{param('models')} {m[:40]!r} is not a model; use random, worst "
                             "or nash")
    if Model.NASH in s.models and s.players != 2:
        raise NimmtError(f"nash solves 2 players only (every hand known); drop nash from "
                         f"{param('models')} or use {param('players', 2)}")
    if not s.bots:
        raise NimmtError(f"{param('bots')} names no bot")
    for b in s.bots:
        parse_bot(b)  # NimmtError naming the bot
    for b in s.dealt_by:
        if b not in RULE_BOTS:
            raise NimmtError(f"{param('dealt_by')} {b[:40]!r} is not a rule-of-thumb bot; "
                             f"use {', '.join(RULE_BOTS)}")
    if not s.dealt_by:
        raise NimmtError(f"{param('dealt_by')} names no bot")


def position_of(settings: StudySettings, k: int, index: int) -> Position:
    """Position ``index`` of ``k`` cards left: a deal from a seed fixed by (seed, k, index),
    played forward by the ``dealt_by`` bots (one per seat, rotating with the index)."""
    digest = hashlib.sha256(f"{settings.seed}:{k}:{index}".encode()).digest()
    seed = int.from_bytes(digest[:8], "little") >> 1
    deal = settings.dealt_by
    bots = [deal[(index + p) % len(deal)] for p in range(settings.players)]
    rules = Rules(settings.variant, settings.players, settings.placement)
    return deal_position(rules, k, seed, bots)


def best_cards(values: dict[int, float]) -> list[int]:
    low = min(values.values())
    return sorted(c for c, v in values.items() if v - low <= TOLERANCE)


def solve_position(position: Position, models: Sequence[str], bots: Sequence[str],
                   k: int = 0, index: int = 0) -> dict:
    """Every number of one position: per model the cards' exact values (``analyse`` with
    method exact), the value and the best cards (nash: frequencies, pure or mixed); each
    bot's card; and, when a bot misses the first model's best card, the themes and the
    one-line explanation of that miss (the tempting card: the costliest wrong card a bot
    plays, then the one more bots play)."""
    record: dict[str, Any] = {"k": k, "index": index, "position": format_position(position),
                              "models": {}}
    for model in models:
        result = analyse(position, opponents=model, method="exact", max_nodes=MAX_NODES)
        values = {c.card: c.value for c in result.cards}
        entry: dict[str, Any] = {"value": result.value,
                                 "values": {str(c): values[c] for c in sorted(values)},
                                 "best": best_cards(values)}
        if model == Model.NASH:
            freq = {c.card: c.frequency or 0.0 for c in result.cards}
            entry["frequencies"] = {str(c): freq[c] for c in sorted(freq)}
            entry["pure"] = max(freq.values()) >= 1 - 1e-9
        record["models"][model] = entry
    record["bots"] = {bot: make_policy(bot).choose(position).card for bot in bots}
    main = models[0]
    values = {int(c): v for c, v in record["models"][main]["values"].items()}
    best = record["models"][main]["best"]
    wrong = [c for c in record["bots"].values() if c not in best]
    record["themes"], record["tempting"], record["explanation"] = [], None, None
    if wrong:
        tempting = max(set(wrong), key=lambda c: (values[c], wrong.count(c), -c))
        solution = best[0]
        line = refutation(position, tempting, main)
        record["themes"] = themes(position, solution, tempting, values, line, main)
        record["tempting"] = tempting
        record["explanation"] = explain(position, main, values, solution, tempting,
                                        record["bots"], line)
    return record


def explain(position: Position, model: str, values: dict[int, float], solution: int,
            tempting: int, bots: dict[str, int], line: Sequence[Any]) -> str:
    """One line: the best card, what the tempting card costs and why (its refutation)."""
    unit = "EV" if model == Model.NASH else UNITS[model]
    who = [b for b, c in bots.items() if c == tempting]
    text = (f"Play {solution} ({unit} {values[solution]:.4g}); {tempting} (what "
            f"{' and '.join(who)} play{'s' if len(who) == 1 else ''}) costs "
            f"{values[tempting] - values[solution]:.4g} more")
    hit = next((i for i, t in enumerate(line) if t.cows > 0), None)
    if line:
        text += f": after {line[0].opponents}"
        if hit is not None:
            turn = HAND_SIZE - position.cards_left + hit + 1
            text += f" you take {plural(line[hit].cows, 'cow')} on turn {turn}"
    return text + "."


def _solve(args: tuple[StudySettings, int, int]) -> dict:
    settings, k, index = args
    start = work_clock()
    record = solve_position(position_of(settings, k, index), settings.models, settings.bots,
                            k, index)
    record["seconds"] = work_clock() - start
    return record


@dataclass
class Study:
    settings: StudySettings
    records: list[dict] = field(default_factory=list)
    complete: bool = True
    stopped: str | None = None      # 'time limit' or 'interrupted'
    seconds: float = 0.0
    workers: int = 1
    backend: str = "in process"   # what ran the positions (solver.base.batch.Backend)


def run_study(settings: StudySettings, workers: int = 1, time_limit: float | None = None,
              progress: Callable[[int], None] | None = None,
              batch: Backend | None = None) -> Study:
    """Solve every position, each a unit of ``solver.base.batch`` (``batch``, else ``workers``
    local processes); positions go index by index across the k's, so a study stopped early
    (``time_limit``, Ctrl-C) holds about as many positions of each k. Stopped, it returns
    what finished, ``complete`` False and ``stopped`` saying why."""
    check_study(settings)
    backend = batch or Backend(workers)
    jobs = [(settings, k, i) for i in range(settings.positions) for k in settings.cards_left]
    study = Study(settings, workers=backend.workers, backend=backend.describe())
    run = run_units(_solve, jobs, backend, progress=progress, time_limit=time_limit,
                    warm=partial(_solve, (settings, min(settings.cards_left), 0)))
    study.records = run.ordered()
    study.stopped = run.stopped
    if study.stopped is None and len(study.records) < len(jobs):
        study.stopped = "time limit"
    study.complete = study.stopped is None
    study.seconds = run.seconds
    study.records.sort(key=lambda r: (r["k"], r["index"]))
    return study


# ---------------------------------------------------------------- statistics

def wilson(hits: int, n: int) -> list[float]:
    """The Wilson 95% interval of a share hits/n ([0, 1] when n is 0), as JSON keeps it."""
    return list(share_interval(hits, n))


def mean_interval(xs: Sequence[float], low: float | None = None) -> tuple[float, list[float]]:
    """The mean and its 95% interval (the sample's standard deviation, n - 1, and Student's
    t quantile), cut at ``low`` when the values are known never to fall below it."""
    mean, interval = _mean_interval(xs, low)
    return mean, list(interval)


def quantile(xs: Sequence[float], q: float) -> float:
    """The nearest-rank quantile: the ceil(q n)-th smallest value."""
    s = sorted(xs)
    if not s:
        return math.nan
    return s[max(0, math.ceil(q * len(s)) - 1)]


def quantile_interval(xs: Sequence[float], q: float) -> list[float]:
    """A distribution-free 95% interval of the q-quantile: order statistics at ranks
    n q -/+ 1.96 sqrt(n q (1 - q)) (rounded outwards, clamped to the sample)."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return [math.nan, math.nan]
    half = Z95 * math.sqrt(n * q * (1 - q))
    lo = max(1, math.floor(n * q - half))
    hi = min(n, math.ceil(n * q + half) + 1)
    return [s[lo - 1], s[hi - 1]]


def share(hits: int, n: int) -> dict:
    return {"count": hits, "of": n, "share": hits / n if n else math.nan,
            "ci95": wilson(hits, n)}


def mean_of(xs: Sequence[float], low: float | None = None) -> dict:
    """The mean and its 95% interval; ``low``: the values' floor (0 for regrets, spreads
    and costs: the interval then never goes below it)."""
    mean, ci = mean_interval(xs, low)
    return {"mean": mean, "ci95": ci}


def quantiles_of(xs: Sequence[float]) -> dict:
    return {f"q{round(100 * q)}": {"value": quantile(xs, q), "ci95": quantile_interval(xs, q)}
            for q in QUANTILES}


def histogram(xs: Sequence[float], bins: int = 12) -> dict:
    if not xs:
        return {"edges": [], "counts": []}
    lo, hi = min(xs), max(xs)
    if hi - lo < 1e-12:
        hi = lo + 1.0
    width = (hi - lo) / bins
    edges = [lo + i * width for i in range(bins + 1)]
    counts = [0] * bins
    for x in xs:
        counts[min(bins - 1, int((x - lo) / width))] += 1
    return {"edges": edges, "counts": counts}


def aggregate(settings: StudySettings, records: Sequence[dict]) -> dict:
    """The figures per k (keys: k as a string), from the position records."""
    out: dict[str, Any] = {}
    for k in settings.cards_left:
        rs = [r for r in records if r["k"] == k]
        n = len(rs)
        entry: dict[str, Any] = {"positions": n, "models": {}}
        for m in settings.models:
            entry["models"][m] = _model_figures(settings, rs, m)
        entry["agreement"] = _agreement(settings, rs)
        if Model.NASH in settings.models:
            entry["nash_pure"] = share(sum(r["models"][Model.NASH]["pure"] for r in rs), n)
        entry["themes"] = theme_figures(settings, rs)
        entry["instructive"] = instructive(settings, rs)
        out[str(k)] = entry
    return out


def _model_figures(settings: StudySettings, rs: Sequence[dict], m: str) -> dict:
    """Model ``m``'s figures over the records ``rs`` (one k): how often the card matters,
    the spread and the value of the cards, and each bot's share of best cards and regret."""
    n = len(rs)
    spreads, values = [], []
    bots: dict[str, dict[str, list]] = {b: {"best": [], "regret": []} for b in settings.bots}
    for r in rs:
        vals = r["models"][m]["values"]
        spreads.append(max(vals.values()) - min(vals.values()))
        values.append(r["models"][m]["value"])
        low = min(vals.values())
        for b in settings.bots:
            regret = vals[str(r["bots"][b])] - low
            bots[b]["best"].append(regret <= TOLERANCE)
            bots[b]["regret"].append(regret)
    matters = sum(s > TOLERANCE for s in spreads)
    return {
        "unit": UNITS[m],
        "matters": share(matters, n),
        "spread": {**mean_of(spreads, 0.0), **quantiles_of(spreads)},
        "spread_when_matters": quantiles_of([s for s in spreads if s > TOLERANCE]),
        "value": {**mean_of(values, VALUE_FLOOR.get(m)), **quantiles_of(values),
                  "min": min(values) if values else math.nan,
                  "max": max(values) if values else math.nan,
                  "histogram": histogram(values)},
        "bots": {b: {"best": share(sum(d["best"]), n),
                     "regret": {**mean_of(d["regret"], 0.0),
                                "q90": {"value": quantile(d["regret"], 0.9),
                                        "ci95": quantile_interval(d["regret"], 0.9)}}}
                 for b, d in bots.items()}}


def _agreement(settings: StudySettings, rs: Sequence[dict]) -> dict:
    """How often each pair of models (and, with more than two, all of them) share a best
    card over the records ``rs``."""
    n = len(rs)
    found = {}
    for a, b in combinations(settings.models, 2):
        hits = sum(bool(set(r["models"][a]["best"]) & set(r["models"][b]["best"]))
                   for r in rs)
        found[f"{a}-{b}"] = share(hits, n)
    if len(settings.models) > 2:
        hits = sum(bool(set.intersection(*(set(r["models"][m]["best"])
                                          for m in settings.models))) for r in rs)
        found["all"] = share(hits, n)
    return found


def theme_figures(settings: StudySettings, rs: Sequence[dict]) -> dict:
    """Per theme (of the first model's misses): how many positions, their share of all, and
    the cost of the tempting card (its regret) when it is played."""
    main = settings.models[0]
    found: dict[str, list[float]] = {}
    for r in rs:
        if r["tempting"] is None:
            continue
        vals = r["models"][main]["values"]
        cost = vals[str(r["tempting"])] - min(vals.values())
        for theme in r["themes"] or ["(none)"]:
            found.setdefault(theme, []).append(cost)
    return {t: {**share(len(costs), len(rs)), "cost": mean_of(costs, 0.0)}
            for t, costs in sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0]))}


def instructive(settings: StudySettings, rs: Sequence[dict],
                count: int = INSTRUCTIVE) -> list[dict]:
    """The positions where a bot's card costs most in the first model, largest first."""
    main = settings.models[0]
    rows = []
    for r in rs:
        if r["tempting"] is None:
            continue
        vals = r["models"][main]["values"]
        low = min(vals.values())
        worst_bot = max(settings.bots, key=lambda b: vals[str(r["bots"][b])])
        rows.append({"position": r["position"], "k": r["k"], "index": r["index"],
                     "model": main, "bot": worst_bot, "card": r["bots"][worst_bot],
                     "best": r["models"][main]["best"],
                     "regret": vals[str(r["bots"][worst_bot])] - low,
                     "themes": r["themes"], "explanation": r["explanation"]})
    rows.sort(key=lambda x: (-x["regret"], x["index"]))
    return rows[:count]
