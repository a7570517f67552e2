"""The brute forces: slow, obvious oracles written from docs/RULES.md and docs/DESIGN.md
on ``solver/base/reference.py``, shared by the tests and the benchmarks.

They import nothing from the searches (solver.search.exact, solver.search.nash,
solver.search.montecarlo, solver.search.tree) or the kernels (solver.kernels.engine), so a
search checked against them is checked against an independent implementation. One
function (or class) per oracle:

* ``card_values`` / ``card_values_plain``: every card's expected (model ``random``) or
  guaranteed (``worst``) cows for player 1 to the end of the round, by enumeration
  (memoised / plain, the benchmark's baseline);
* ``brute_values``: every card's value for an objective (cows, margin, win) by plain
  recursion (tests/search/test_objectives.py and the win with hidden hands).
* ``brute_win`` and ``brute_splits``: the win objective with two or more hidden hands,
  turn by turn and from the splits of the hidden hands.
* ``NashBrute``: the two-player equilibrium game by recursion over matrix games, solved by
  ``game_value`` (a pure saddle point, else scipy's HiGHS via ``lp_game``);
  ``highs_batch`` solves many matrix games in one LP;
* ``perft``: every history of the rest of a round, the final row states, the placements;
* ``tree_node_counts`` and ``turn_cows``: the analysis tree's nodes by actor, one turn's
  cows under given choices;
* ``replay_cows``: logged games replayed; ``logic_draft``: the logic variant's draft of
  deterministic bots;
* ``careful_risks``: the ``careful`` bot's expected cows of every card, from its rule.
* ``learned_features``, ``learned_probs``, ``learned_card``: the learned policy's features,
  probabilities and greedy card (solver/kernels/learned.py), from its docstring.

Tests import it as ``naive`` (pytest puts tests/ on sys.path); benchmarks add the tests
folder to sys.path first.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict

import numpy as np

from nimmt.solver.base import reference
from nimmt.solver.base.rules import card_cows, deck_size
from nimmt.solver.positions.position import Position

P1, OPPONENT = "p1", "opponent"  # owners in card_values' events
NASH_P1, NASH_P2 = 1, 2  # owners in NashBrute's events


# ---------------------------------------------------------------- card values (analysis)

def card_values(position: Position, model: str, events: set | None = None) -> dict[int, float]:
    """Every card's value (model 'random': expected cows; 'worst': guaranteed cows)
    for player 1 from now to the end of the round. ``events`` (optional) collects
    (situation, owner) pairs met on the way: 'take', 'tie', 'sixth'; owner P1 or OPPONENT.

    A memoised recursion over the rest of the round: at a turn boundary player 1 picks
    the card that minimises its cows; for a card of player 1 every opponent action is
    enumerated (one card from each known hand, every set of h cards from the pool; only
    the set matters, and every set is equally likely): ``random`` averages, ``worst``
    maximises; inside a turn the cards are placed lowest first and an owner with several
    options chooses when its card is placed: player 1 minimises, the ``worst`` adversary
    maximises, a ``random`` opponent follows ``reference.rule_following``.
    (tests/search/test_analysis.py's oracle)"""
    assert model in ("random", "worst")
    professional = position.professional
    hidden = len(position.hidden_players)
    memo: dict = {}

    def freeze(rows):
        return tuple(tuple(r) for r in rows)

    def turn(rows, cards, i, after):
        """Player 1's cows from placing cards[i:] (sorted) to the end of the round."""
        if i == len(cards):
            return state_value(freeze(rows), *after)
        card, who = cards[i]
        opts = reference.options(rows, card, professional)
        if events is not None:
            if opts[0].kind == "take":
                events.add(("take", who))
            elif len(opts) > 1:
                events.add(("tie", who))
            if any(o.kind == "sixth" for o in opts):
                events.add(("sixth", who))

        def go(option):
            new_rows, cows = reference.apply_option(rows, card, option)
            return (cows if who == P1 else 0) + turn(new_rows, cards, i + 1, after)

        if len(opts) == 1:
            return go(opts[0])
        if who == P1:
            return min(go(o) for o in opts)
        if model == "worst":
            return max(go(o) for o in opts)
        return go(reference.rule_following(rows, opts))

    def card_value(rows, hand, known, pool, card):
        outcomes = []
        for known_cards in itertools.product(*known):
            for hidden_cards in itertools.combinations(pool, hidden):
                cards = sorted([(card, P1)] + [(c, OPPONENT) for c in known_cards + hidden_cards])
                after = (tuple(c for c in hand if c != card),
                         tuple(tuple(c for c in h if c != played)
                               for h, played in zip(known, known_cards)),
                         tuple(c for c in pool if c not in hidden_cards))
                outcomes.append(turn(rows, cards, 0, after))
        if model == "random":
            return sum(outcomes) / len(outcomes)
        return max(outcomes)

    def state_value(rows, hand, known, pool):
        if not hand:
            return 0
        key = (rows, hand, known, pool)
        if key not in memo:
            memo[key] = min(card_value(rows, hand, known, pool, c) for c in hand)
        return memo[key]

    rows = freeze(position.rows)
    known = tuple(h for h in position.hands[1:] if h is not None)
    pool = tuple(position.pool) if hidden else ()
    return {c: card_value(rows, position.hand, known, pool, c) for c in position.hand}


def card_values_plain(position, model: str) -> dict[int, float]:
    """Plain recursion on the reference engine, no memo: the baseline.

    The values of ``card_values`` without its memo (benchmarks/analysis.py times the
    exact search against it)."""
    known = [h for h in position.hands[1:] if h is not None]
    hidden = len(position.hidden_players)
    pick = max if model == "worst" else (lambda xs: sum(xs) / len(xs))

    def place(rows, turn, i, hands, pool):
        if i == len(turn):
            return state(rows, hands, pool)
        card, mine = turn[i]
        opts = reference.options(rows, card, position.professional)
        if len(opts) > 1 and not mine and model == "random":
            opts = [reference.rule_following(rows, opts)]
        values = []
        for o in opts:
            new, cows = reference.apply_option(rows, card, o)
            values.append((cows if mine else 0) + place(new, turn, i + 1, hands, pool))
        return min(values) if mine else max(values)

    def card_value(rows, c, hands, pool):
        outcomes = []
        for combo in itertools.product(*hands[1:], itertools.combinations(pool, hidden)):
            opp = list(combo[:len(hands) - 1]) + list(combo[-1])
            turn = sorted([(c, True)] + [(x, False) for x in opp])
            new_hands = [tuple(x for x in h if x != pick_) for h, pick_ in zip(hands, [c] + opp)]
            outcomes.append(place(rows, turn, 0, new_hands,
                                  tuple(x for x in pool if x not in opp)))
        return pick(outcomes)

    def state(rows, hands, pool):
        if not hands[0]:
            return 0.0
        return min(card_value(rows, c, hands, pool) for c in hands[0])

    hands = [position.hand] + known
    rows = [list(r) for r in position.rows]
    return {c: card_value(rows, c, hands, position.pool) for c in position.hand}


# ---------------------------------------------------------------- matrix games by HiGHS

def lp_game(P: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal strategies of the game P whose ROW player minimises, by HiGHS:
    minimise v subject to P^T x <= v, sum x = 1, x >= 0 (y from the duals)."""
    from scipy.optimize import linprog

    m, n = P.shape
    c = np.r_[np.zeros(m), 1.0]
    a_ub = np.c_[P.T, -np.ones(n)]
    a_eq = np.r_[np.ones(m), 0.0][None, :]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    assert res.status == 0, res.message
    y = -res.ineqlin.marginals
    return float(res.fun), res.x[:m], y


def game_value(P: np.ndarray) -> float:
    """A pure saddle point if there is one (exact), otherwise HiGHS."""
    upper = P.max(axis=1).min()   # the minimiser's pure guarantee
    lower = P.min(axis=0).max()   # the maximiser's pure guarantee
    if upper == lower:
        return float(upper)
    return lp_game(P)[0]


def highs_batch(mats: list[np.ndarray]) -> np.ndarray:
    """The values of many games at once: one block-diagonal LP (minimise the sum of
    the independent v_g), so each v_g at the optimum is game g's value."""
    from scipy import sparse
    from scipy.optimize import linprog

    vals, rows, cols = [], [], []
    eq_rows, eq_cols = [], []
    v_index = []
    var = r_ub = 0
    for g, P in enumerate(mats):
        m, n = P.shape
        xs = np.arange(var, var + m)
        v = var + m
        v_index.append(v)
        jj, ii = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
        rows += [(r_ub + jj).ravel(), r_ub + np.arange(n)]
        cols += [xs[ii].ravel(), np.full(n, v)]
        vals += [P.T.ravel(), -np.ones(n)]
        eq_rows.append(np.full(m, g))
        eq_cols.append(xs)
        var += m + 1
        r_ub += n
    a_ub = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(r_ub, var))
    eq_cols = np.concatenate(eq_cols)
    a_eq = sparse.csr_array((np.ones(len(eq_cols)), (np.concatenate(eq_rows), eq_cols)),
                            shape=(len(mats), var))
    c = np.zeros(var)
    c[v_index] = 1.0
    bounds = np.c_[np.zeros(var), np.full(var, np.inf)]
    bounds[v_index, 0] = -np.inf
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(r_ub), A_eq=a_eq, b_eq=np.ones(len(mats)),
                  bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return res.x[v_index]


# ---------------------------------------------------------------- the equilibrium game

class NashBrute:
    """The nash game of a 2-player, both-hands-known position, on solver.base.reference.

    ``mode``: 'nash' (matrix games), 'p1_first' (player 1 commits first: min_a max_b,
    an upper bound) or 'p2_first' (max_b min_a, a lower bound).
    ``events`` collects (situation, owner) met: 'take', 'tie', 'sixth' (owner NASH_P1 or
    NASH_P2).

    D = player 1's cows - player 2's cows over the rest of the round; player 1 minimises
    D, player 2 maximises it. value(state) = value of the k-by-k matrix game whose cell
    (a, b) places both cards lowest first, each owner choosing its row when its card is
    placed (having seen both cards), plus the next state's value; 0 with no cards left.
    The matrix games are solved by ``game_value`` (tests/search/test_nash.py's oracle).
    """

    def __init__(self, position: Position, mode: str = "nash"):
        assert position.players == 2 and position.all_known
        assert mode in ("nash", "p1_first", "p2_first")
        self.professional = position.professional
        self.mode = mode
        self.rows = tuple(tuple(r) for r in position.rows)
        self.h1, self.h2 = tuple(position.hands[0]), tuple(position.hands[1])
        self.memo: dict = {}
        self.events: set = set()
        self.lp_calls = 0

    def cell(self, rows, a, b, h1, h2) -> float:
        """D from playing a (player 1) against b (player 2) to the end of the round."""
        cards = sorted([(a, NASH_P1), (b, NASH_P2)])
        after = (tuple(c for c in h1 if c != a), tuple(c for c in h2 if c != b))

        def place(rows, i, d):
            if i == 2:
                return d + self.value(tuple(tuple(r) for r in rows), *after)
            card, who = cards[i]
            opts = reference.options(rows, card, self.professional)
            if opts[0].kind == "take":
                self.events.add(("take", who))
            elif len(opts) > 1:
                self.events.add(("tie", who))
            if any(o.kind == "sixth" for o in opts):
                self.events.add(("sixth", who))
            outcomes = []
            for o in opts:
                new, cows = reference.apply_option(rows, card, o)
                outcomes.append(place(new, i + 1, d + (cows if who == NASH_P1 else -cows)))
            return min(outcomes) if who == NASH_P1 else max(outcomes)

        return place([list(r) for r in rows], 0, 0.0)

    def matrix(self, rows, h1, h2) -> np.ndarray:
        return np.array([[self.cell(rows, a, b, h1, h2) for b in h2] for a in h1])

    def value(self, rows, h1, h2) -> float:
        if not h1:
            return 0.0
        key = (rows, h1, h2)
        if key not in self.memo:
            P = self.matrix(rows, h1, h2)
            if self.mode == "p1_first":
                v = float(P.max(axis=1).min())
            elif self.mode == "p2_first":
                v = float(P.min(axis=0).max())
            else:
                v = game_value(P)
                self.lp_calls += P.max(axis=1).min() != P.min(axis=0).max()
            self.memo[key] = v
        return self.memo[key]

    def root_value(self) -> float:
        return self.value(self.rows, self.h1, self.h2)

    def root_matrix(self) -> np.ndarray:
        return self.matrix(self.rows, self.h1, self.h2)


# ---------------------------------------------------------------- perft

def after_turn(hands, combo):
    """The hands after a turn: each player's card of ``combo`` taken out."""
    return [[c for c in h if c != played] for h, played in zip(hands, combo)]


def perft(rows, hands, professional):
    """(histories, set of final row states, Counter of placements by kind): every way the
    rest of the round can go with all hands known, each player any card of its hand each
    turn and a card with several options branching once per option, walked with
    ``reference.options``/``apply_option`` (tests/kernels/test_perft.py's oracle)."""
    events = Counter()
    states = set()

    def place(rows, cards):  # every way to place ``cards`` (ascending), one per option sequence
        if not cards:
            yield rows
            return
        opts = reference.options(rows, cards[0], professional)
        for opt in opts:
            if opt.kind == "take":
                events["takes"] += 1
            elif len(opts) > 1:
                events["ties"] += 1
            if opt.kind == "sixth":
                events["sixths"] += 1
            new, _ = reference.apply_option(rows, cards[0], opt)
            yield from place(new, cards[1:])

    def walk(rows, hands):
        if not hands[0]:
            states.add(tuple(tuple(r) for r in rows))
            return 1
        total = 0
        for combo in itertools.product(*hands):
            for new in place(rows, sorted(combo)):
                total += walk(new, after_turn(hands, combo))
        return total

    histories = walk([list(r) for r in rows], [list(h) for h in hands])
    return histories, states, events


# ---------------------------------------------------------------- the analysis tree

def tree_node_counts(position, model, depth=None):
    """How many nodes of each actor the full tree has, enumerated on solver/base/reference.py.

    A p1 node per turn boundary (a leaf at the end of the round); under it one chance /
    opponents node per card of player 1, and under that, for every set of opponent cards
    (one card of each known hand, any set of cards from the pool for the hidden hands), the
    turn resolved lowest card first: a choice node wherever the card's owner has several
    options and chooses (player 1 always; opponents under worst and nash; under random they
    follow reference.rule_following), one branch per option. (tests/search/test_tree.py's oracle)
    """
    k = position.cards_left
    depth = k if depth is None else min(depth, k)
    hidden = len(position.hidden_players)
    counts = Counter()
    opponent_actor = "chance" if model == "random" else "opponents"

    def boundary(rows, hands, pool, turn):
        if not hands[0]:
            counts["leaf"] += 1
            return
        counts["p1"] += 1
        if turn >= depth:
            return
        known = [i for i in range(1, len(hands)) if hands[i] is not None]
        for card in hands[0]:
            counts[opponent_actor] += 1
            for picks in itertools.product(*(hands[i] for i in known)):
                for hidden_cards in itertools.combinations(pool, hidden):
                    plays = ([(0, card)] + list(zip(known, picks))
                             + [("hidden", c) for c in hidden_cards])
                    plays.sort(key=lambda pc: pc[1])
                    place(rows, plays, 0, hands, pool, turn)

    def place(rows, plays, i, hands, pool, turn):
        if i == len(plays):
            played = {c for _, c in plays}
            new_hands = [None if h is None else tuple(c for c in h if c not in played)
                         for h in hands]
            boundary(rows, new_hands, tuple(c for c in pool if c not in played), turn + 1)
            return
        owner, card = plays[i]
        opts = reference.options(rows, card, position.professional)
        if len(opts) == 1:
            chosen = opts
        elif owner == 0 or model != "random":
            counts["choice"] += 1
            chosen = opts
        else:
            chosen = [reference.rule_following(rows, opts)]
        for option in chosen:
            new_rows, _ = reference.apply_option(rows, card, option)
            place(new_rows, plays, i + 1, hands, pool, turn)

    boundary([list(r) for r in position.rows], list(position.hands), tuple(position.pool), 0)
    return counts


def turn_cows(position, cards, choices):
    """Player 1's cows of one turn (reference), with ``choices`` picking among options."""
    plays = sorted(enumerate(cards), key=lambda pc: pc[1])
    rows = [list(r) for r in position.rows]
    total = 0
    for owner, card in plays:
        opts = reference.options(rows, card, position.professional)
        rows, cows = reference.apply_option(rows, card, choices(owner, rows, opts))
        total += cows if owner == 0 else 0
    return total


# ---------------------------------------------------------------- whole games

def replay_cows(log, g, rounds, professional):
    """Cows per round and player, by replaying the logged rounds with the reference."""
    per_round = []
    for rnd in range(rounds):
        rows = [[int(c)] for c in log.rows[g, rnd]]
        hands = [sorted(int(c) for c in h) for h in log.hands[g, rnd]]
        played = [sorted(int(c) for c in log.plays[g, rnd, :, p]) for p in range(len(hands))]
        assert played == hands, "a player did not play out exactly its hand"
        total = [0] * len(hands)
        for turn in range(10):
            rows, cows = reference.resolve_turn(
                rows, [int(c) for c in log.plays[g, rnd, turn]], professional)
            total = [a + b for a, b in zip(total, cows)]
        per_round.append(total)
    return per_round


def logic_draft(n, start, bots):
    """The logic draft of deterministic bots (fewest cows, ties the lowest card), round
    robin from ``start``: returns (sorted hands, rows)."""
    pool = sorted(range(1, deck_size("tactical", n) + 1), key=lambda c: (card_cows(c), c))
    hands = [[] for _ in range(n)]
    for pick in range(10 * n):
        hands[(start + pick) % n].append(pool.pop(0))
    return [sorted(h) for h in hands], sorted(pool)


def brute_values(position: Position, model: str, objective: str) -> dict[int, float]:
    """Every card's value for ``objective`` by plain recursion over the rest of the round
    (no memo): player 1 minimises its cost at every card and row choice; opponents' cards
    are every card of each known hand and every set of cards from the pool (averaged:
    random; the maximum cost: worst); a random opponent's row choice is rule-following, the
    worst adversary's maximises the cost. Cost at the end of the round, from the cows each
    seat took (seat 0 player 1, then known opponents, then the hidden hands as one seat):
    cows: player 1's; margin: player 1's minus the others' divided by players - 1; win:
    1 - player 1's share of the fewest cows over the whole round (``taken`` included).
    Values: cost, or for win 1 - cost (the probability of winning)."""
    known = [h for h in position.hands[1:] if h is not None]
    hidden = len(position.hidden_players)
    seats = 1 + len(known) + (1 if hidden else 0)
    taken = position.taken_so_far if objective == "win" else (0,) * position.players
    assert taken is not None
    start = [0] * seats
    if objective == "win":
        assert hidden <= 1
        order = [0] + [p for p, h in enumerate(position.hands) if p and h is not None] + \
            list(position.hidden_players)
        start = [taken[p] for p in order]

    def end_cost(cows):
        if objective == "cows":
            return cows[0] - start[0]
        if objective == "margin":
            return cows[0] - sum(cows[1:]) / (position.players - 1)
        fewest = min(cows)
        share = 1 / cows.count(fewest) if cows[0] == fewest else 0.0
        return 1.0 - share

    def place(rows, turn, i, hands, pool, cows):
        if i == len(turn):
            return state(rows, hands, pool, cows)
        card, seat = turn[i]
        opts = reference.options(rows, card, position.professional)
        if len(opts) > 1 and seat and model == "random":
            opts = [reference.rule_following(rows, opts)]
        values = []
        for o in opts:
            new, got = reference.apply_option(rows, card, o)
            more = list(cows)
            more[seat] += got
            values.append(place(new, turn, i + 1, hands, pool, more))
        return min(values) if seat == 0 else max(values)

    def card_value(rows, c, hands, pool, cows):
        outcomes = []
        for combo in itertools.product(*hands[1:], itertools.combinations(pool, hidden)):
            turn = [(c, 0)] + [(x, 1 + j) for j, x in enumerate(combo[:len(hands) - 1])]
            turn += [(x, seats - 1) for x in combo[-1]]
            after = [tuple(x for x in h if x != played) for h, (played, _) in zip(hands, turn)]
            rest = tuple(x for x in pool if x not in combo[-1])
            outcomes.append(place(rows, sorted(turn), 0, after, rest, cows))
        return sum(outcomes) / len(outcomes) if model == "random" else max(outcomes)

    def state(rows, hands, pool, cows):
        if not hands[0]:
            return end_cost(cows)
        return min(card_value(rows, c, hands, pool, cows) for c in hands[0])

    hands = [position.hand, *known]
    pool = tuple(position.pool) if hidden else ()
    rows = [list(r) for r in position.rows]
    costs = {c: card_value(rows, c, hands, pool, start) for c in position.hand}
    return {c: 1.0 - v if objective == "win" else v for c, v in costs.items()}


# ---------------------------------------------------------------- win with hidden seats

def seat_order(position: Position) -> list[int]:
    """Players by seat: player 1, the known opponents, the hidden players (goal_array's)."""
    known = [p for p, h in enumerate(position.hands) if p and h is not None]
    return [0, *known, *position.hidden_players]


def win_cost(cows) -> float:
    """1 - player 1's share of the fewest cows (seat 0 is player 1)."""
    fewest = min(cows)
    return 1.0 - (1.0 / cows.count(fewest) if cows[0] == fewest else 0.0)


def place_win_turn(rows, turn, i, cows, professional, model, leaf, p1_rule=False):
    """The turn's cards (card, seat), ascending, from card i on: player 1 minimises at its
    row choices (rule-following with ``p1_rule``), the worst adversary maximises at its, a
    random opponent's is rule-following; ``leaf(rows, cows)`` once the turn is placed."""
    if i == len(turn):
        return leaf(rows, cows)
    card, seat = turn[i]
    opts = reference.options(rows, card, professional)
    if len(opts) > 1 and (seat or p1_rule) and model == "random":
        opts = [reference.rule_following(rows, opts)]
    values = []
    for o in opts:
        new, got = reference.apply_option(rows, card, o)
        more = list(cows)
        more[seat] += got
        values.append(place_win_turn(new, turn, i + 1, more, professional, model, leaf, p1_rule))
    return min(values) if seat == 0 else max(values)


def brute_win(position: Position, model: str, p1_rule: bool = False) -> dict[int, float]:
    """Every card's probability of winning the round (random) or guaranteed share (worst),
    by plain recursion: each turn every card of each known hand and every ordered tuple of
    distinct pool cards for the hidden players (hidden player t plays the tuple's t-th).
    ``p1_rule``: player 1's row choices rule-following too (Monte Carlo's playouts)."""
    order = seat_order(position)
    assert position.taken_so_far is not None
    start = [position.taken_so_far[p] for p in order]
    known_hands = [position.hands[p] for p in order[1:] if position.hands[p] is not None]
    nk, nh = len(known_hands), len(position.hidden_players)

    def card_value(rows, c, hands, pool, cows):
        outcomes = []
        for combo in itertools.product(*hands[1:]):
            for tup in itertools.permutations(pool, nh):
                turn = [(c, 0)] + [(x, 1 + j) for j, x in enumerate(combo)]
                turn += [(x, 1 + nk + t) for t, x in enumerate(tup)]
                after = [tuple(x for x in h if x != played)
                         for h, played in zip(hands, (c, *combo))]
                rest = tuple(x for x in pool if x not in tup)
                outcomes.append(place_win_turn(
                    rows, sorted(turn), 0, cows, position.professional, model,
                    lambda r, w, a=after, p=rest: state(r, a, p, w), p1_rule))
        return sum(outcomes) / len(outcomes) if model == "random" else max(outcomes)

    def state(rows, hands, pool, cows):
        if not hands[0]:
            return win_cost(cows)
        return min(card_value(rows, c, hands, pool, cows) for c in hands[0])

    hands = [position.hand, *known_hands]
    rows = [list(r) for r in position.rows]
    return {c: 1.0 - card_value(rows, c, hands, tuple(position.pool), start)
            for c in position.hand}


def brute_splits(position: Position) -> dict[int, float]:
    """The random model's win probabilities with two cards left, from the splits: every
    way to deal the hidden hands (two cards each) from the pool and every card each
    opponent may play now, equally likely; after this turn's cards are revealed player 1
    chooses its rows knowing only what it saw (the splits that agree with it, equally
    likely), then the last turn is forced but for its row choices."""
    assert position.cards_left == 2
    order = seat_order(position)
    assert position.taken_so_far is not None
    start = [position.taken_so_far[p] for p in order]
    known_hands = [position.hands[p] for p in order[1:] if position.hands[p] is not None]
    nk, nh = len(known_hands), len(position.hidden_players)
    prof = position.professional

    def splits(pool, n):
        if n == 0:
            yield ()
            return
        for hand in itertools.combinations(pool, 2):
            rest = tuple(x for x in pool if x not in hand)
            for more in splits(rest, n - 1):
                yield (hand, *more)

    rows0 = [list(r) for r in position.rows]
    result = {}
    for c in position.hand:
        last = next(x for x in position.hand if x != c)
        # what player 1 sees this turn -> the other players' last cards, one per split and play
        seen: dict[tuple, list[tuple]] = defaultdict(list)
        for split in splits(tuple(position.pool), nh):
            for now in itertools.product(*known_hands, *split):
                later = tuple(next(x for x in h if x != played)
                              for h, played in zip((*known_hands, *split), now))
                seen[now].append(later)
        total = sum(len(v) for v in seen.values())
        value = 0.0
        for now, laters in seen.items():
            turn = sorted([(c, 0)] + [(x, 1 + s) for s, x in enumerate(now)])

            def after_turn(rows, cows, laters=laters, last=last):
                costs = [place_win_turn(rows, sorted([(last, 0)] + [(x, 1 + s) for s, x in
                                                          enumerate(later)]),
                               0, cows, prof, "random", lambda r, w: win_cost(w))
                         for later in laters]
                return sum(costs) / len(costs)

            value += len(laters) * place_win_turn(rows0, turn, 0, start, prof, "random", after_turn)
        result[c] = 1.0 - value / total
    assert nk + nh == position.players - 1
    return result


def careful_risks(hand, rows, professional: bool, players: int, deck: int
                  ) -> dict[int, tuple[float, int]]:
    """Every card's (expected cows this turn, distance) by the ``careful`` bot's rule
    (docs/guide/bots.md), on the reference engine's options: a card with no row takes the
    rule-following row; a card joining a right end at distance d of a row of L cards is
    its sixth when exactly 5 - L of the other players' cards land in between, each with
    probability (d - 1) / deck, taking the row's cows and 1.6 per card landed; a left end
    (professional) takes only a full row; with both at one distance, the lesser."""
    others = players - 1
    risks = {}
    for card in hand:
        opts = reference.options(rows, card, professional)
        if opts[0].kind == "take":
            chosen = reference.rule_following(rows, opts)
            risks[card] = (float(reference.row_cows(rows[chosen.row_index])), deck)
            continue
        options = []
        for o in opts:
            row = rows[o.row_index]
            distance = card - row[-1] if o.side == "right" else row[0] - card
            if o.side == "left":
                options.append((float(reference.row_cows(row)) if len(row) == 5 else 0.0,
                                distance))
                continue
            need = 5 - len(row)
            q = min(1.0, (distance - 1) / deck)
            p = (math.comb(others, need) * q ** need * (1 - q) ** (others - need)
                 if need <= others else 0.0)
            options.append((p * (reference.row_cows(row) + 1.6 * need), distance))
        risks[card] = min(options)
    return risks


def learned_features(card: int, hand: list[int], rows: list[list[int]], players: int,
                    deck: int, professional: bool) -> list[float]:
    """The learned policy's features of ``card`` (solver/kernels/learned.py's docstring), on
    the reference engine's options; FEATURES = 14 of them."""
    f = [0.0] * 14
    left = len(hand) / 10
    opts = reference.options(rows, card, professional)
    if opts[0].kind == "take":
        chosen = reference.rule_following(rows, opts)
        cost = reference.row_cows(rows[chosen.row_index]) / 10
        f[0], f[1], f[2], f[11] = 1.0, cost, cost, left
    else:
        # on a professional tie the right end describes the card (risk: the lesser)
        option = next((o for o in opts if o.side == "right"), opts[0])
        row = rows[option.row_index]
        gap = card - row[-1] if option.side == "right" else row[0] - card
        f[2] = careful_risks([card], rows, professional, players, deck)[card][0] / 10
        if option.side == "right":
            f[4] = 1.0 / gap
        f[3] = gap / deck
        f[5] = len(row) / 5
        f[6] = reference.row_cows(row) / 10
        f[7] = 1.0 if len(row) == 5 else 0.0
        f[12] = left * gap / deck
    rank = sum(1 for c in hand if c < card)
    f[8] = card / deck
    f[9] = rank / max(1, len(hand) - 1)
    f[10] = f[9] * left
    f[13] = f[8] * left
    return f


def learned_score(weights, f) -> float:
    """A card's score from its features f: weights . f for the first len(f) weights, and
    where more follow, a hidden layer of H rectified units written out as its own lists:
    H input weights for each feature, then H biases, then H output weights."""
    d = len(f)
    score = sum(w * x for w, x in zip(weights[:d], f))
    units = (len(weights) - d) // (d + 2)
    rest = list(weights[d:])
    inputs = [rest[j * units:(j + 1) * units] for j in range(d)]
    biases = rest[d * units:(d + 1) * units]
    outputs = rest[(d + 1) * units:]
    for h in range(units):
        a = biases[h] + sum(f[j] * inputs[j][h] for j in range(d))
        score += outputs[h] * max(0.0, a)
    return score


def learned_probs(weights, hand, rows, players, deck, professional) -> list[float]:
    """The learned policy's probabilities of the cards of ``hand``: a softmax of
    ``learned_score``."""
    scores = [learned_score(weights, learned_features(c, hand, rows, players, deck,
                                                      professional)) for c in hand]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


def learned_card(weights, hand, rows, players, deck, professional) -> int:
    """The learned policy's greedy card: the most likely (ties: the first in ``hand``)."""
    probs = learned_probs(weights, hand, rows, players, deck, professional)
    return hand[max(range(len(hand)), key=lambda i: (probs[i], -i))]
