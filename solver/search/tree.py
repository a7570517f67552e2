"""Decision trees: the search behind an analysis as a networkx graph, and its writers.

Node kinds (attribute ``actor``):

    p1         player 1 chooses a card (one edge per card, with that card's value)
    chance     model random: the opponents' cards, each set with its probability
    opponents  model worst / nash: the adversary's or player 2's cards
    choice     a row choice inside a turn (low card, professional tie); ``owner`` says whose
    leaf       the end of the round

Every node has ``position`` (the notation of the state at the last turn boundary, or of the
state after the turn for p1 nodes and leaves), ``value`` (in the model's unit, player 1's
view, from that node to the end of the round) and ``cows_in`` (player 1's cows taken on the
way in from the root). Every edge has ``label``, ``cows`` (player 1's cows taken on it;
``cows_opponents`` the others'),
``best`` (an optimal choice for whoever acts), and ``probability`` where the model gives
one. The graph attribute ``root`` names the root node. A p1 node has ``turn``, the round's
turn number (turn 6 of 10 at 5 cards left each, as ``show`` says it), whatever turn the tree
starts from; the text and DOT labels show it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field

import networkx as nx

from ..base.defaults import DEFAULT_MEMORY
from ..base.errors import NimmtError, command, param
from ..base.fileio import atomic_write, atomic_write_text
from ..base.rules import HAND_SIZE, MODELS
from ..kernels import turns
from ..positions.owners import estimate_nodes, opponent_set_count
from ..positions.position import Position, format_position
from .exact import solve_exact
from .line import Play, opponent_sets
from .nash import (
    check_nash_position,
    estimate_bytes,
    estimate_states,
    largest_fitting_k,
    solve_nash,
)

__all__ = ["FORMATS", "build_tree", "count_nodes", "format_tree_text", "tree_nested",
           "write_tree"]

EPS = 1e-9
FORMATS = (".graphml", ".gexf", ".json", ".dot", ".svg", ".png")
# Every p1 node's value comes from an exact search of the rest of the round (the root's
# is the largest): a tree is refused at once when that search's estimate passes this
# (analysis.HOPELESS times its default budget), and the search itself stops at 10**9.
SEARCH_NODES = 160_000_000
SEARCH_STOP = 10**9
# The options that cut a tree, as its messages name them.
_CUTS = (f"{param('depth')}, {param('best_only')}, {param('min_probability')} or "
         f"{param('merge')}")


@dataclass
class _Build:
    """One tree build: the options, the solve cache and the graph being made."""

    model: str
    depth: int
    min_probability: float
    best_only: bool
    merge: bool
    emit: bool
    limit: int
    graph: nx.DiGraph = field(default_factory=nx.DiGraph)
    count: int = 0
    solved: dict = field(default_factory=dict)
    merged: dict = field(default_factory=dict)

    def solve(self, position: Position) -> dict:
        """Per-card values (and nash strategies) of a turn-boundary position, cached."""
        key = format_position(position)
        if key not in self.solved:
            if self.model == "nash":
                n = solve_nash(position)
                self.solved[key] = {"value": n.value, "ev": dict(zip(n.p1_cards, n.p1_ev)),
                                    "p1": dict(zip(n.p1_cards, n.p1_frequency)),
                                    "p2": dict(zip(n.p2_cards, n.p2_frequency))}
            else:
                e = solve_exact(position, self.model, max_nodes=SEARCH_STOP)
                ev = {c.card: c.value for c in e.cards}
                self.solved[key] = {"value": min(ev.values()), "ev": ev}
        return self.solved[key]

    def node(self, **attrs) -> str | None:
        self.count += 1
        if self.count > self.limit:
            raise _TooBig()
        if not self.emit:
            return None
        name = f"n{self.count - 1}"
        self.graph.add_node(name, **{k: v for k, v in attrs.items() if v is not None})
        return name

    def edge(self, a, b, **attrs) -> None:
        if self.emit and a is not None:
            self.graph.add_edge(a, b, **{k: v for k, v in attrs.items() if v is not None})


class _TooBig(Exception):
    pass


def _set_label(plays: tuple[Play, ...]) -> str:
    """The opponents' cards as an edge's label: ``p2 17, hidden 3, 9``."""
    named = [f"p{p.player} {p.card}" for p in plays if not p.hidden]
    hidden = [str(p.card) for p in plays if p.hidden]
    return ", ".join(named + ([f"hidden {', '.join(hidden)}"] if hidden else []))


def _turn(b: _Build, position: Position, cards: list[int], choices: dict[int, tuple[int, int]],
          turn_index: int, cows_in: float, parent, edge_attrs: dict, taken: tuple) -> float:
    """Resolve the turn (``cards[p]`` per player) from the first card whose option is not
    yet in ``choices`` (player -> (take_row, tie_side), -1 for none); make choice nodes where
    an owner has a choice. Returns the value
    (player 1's view) from here; links ``parent`` to what it makes with ``edge_attrs``."""
    for p in sorted(range(len(cards)), key=lambda p: cards[p]):
        if p in choices:
            continue
        made_take, made_tie = zip(*(choices.get(q, (-1, -1)) for q in range(len(cards))))
        rows = turns.rows_met(position.rows, cards, position.professional, made_take, made_tie,
                              p)
        options = turns.option_choices(rows, cards[p], position.professional)
        mine = p == 0
        if len(options) == 1 or (not mine and b.model == "random"):
            choices = {**choices, p: (-1, -1)}
            continue
        return _choice_node(b, position, cards, choices, p, options, turn_index, cows_in,
                            parent, edge_attrs, taken)
    after, outcome = position.apply_turn(cards, [choices[p][0] for p in range(len(cards))],
                                         [choices[p][1] for p in range(len(cards))])
    delta = outcome.cows[0] - (outcome.cows[1] if b.model == "nash" else 0)  # model's unit
    edge_attrs = {**edge_attrs, "cows": outcome.cows[0],
                  "cows_opponents": sum(outcome.cows[1:]), "_delta": delta}
    taken = tuple(t + c for t, c in zip(taken, outcome.cows))
    return delta + _state(b, after, turn_index + 1, cows_in + outcome.cows[0], parent,
                          edge_attrs, taken)


def _choice_node(b, position, cards, choices, p, option_choices, turn_index, cows_in, parent,
                 edge_attrs, taken) -> float:
    """A row choice of player p's card; ``option_choices`` its options as (take_row,
    tie_side), from turns.option_choices."""
    options = len(option_choices)
    kind = "take a row" if options == 4 else "professional tie"
    owner = "p1" if p == 0 else f"p{p + 1}" if position.hands[p] is not None else "opponent"
    me = b.node(actor="choice", owner=owner, position=format_position(position),
                cows_in=cows_in, card=cards[p], choice=kind)
    labels = [f"{cards[p]}: take row {o + 1}" if options == 4 else
              f"{cards[p]}: {'right' if o == 0 else 'left'} end" for o in range(options)]
    if b.best_only and p == 0:  # value every option first, then expand only the best
        scratch = _Build(b.model, b.depth, b.min_probability, b.best_only, False, False,
                         10**12, solved=b.solved)
        trial = [_turn(scratch, position, cards, {**choices, p: option_choices[o]},
                       turn_index, cows_in, None, {}, taken) for o in range(options)]
        keep = [o for o in range(options) if trial[o] - min(trial) <= EPS]
    else:
        keep = list(range(options))
    results = [_turn(b, position, cards, {**choices, p: option_choices[o]}, turn_index,
                     cows_in, me, {"label": labels[o], "cows": 0}, taken) for o in keep]
    pick = min(results) if p == 0 else max(results)
    if b.emit:
        for child in b.graph.successors(me):
            data = b.graph.edges[me, child]
            data["best"] = abs(data["_value"] - pick) <= EPS
        b.graph.nodes[me]["value"] = pick
    b.edge(parent, me, **edge_attrs, _value=pick)
    return pick


def _state(b: _Build, position: Position, turn_index: int, cows_in: float, parent,
           edge_attrs: dict, taken: tuple) -> float:
    """A turn boundary: a p1 node (or a leaf at the round's end). Returns its value."""
    delta = edge_attrs.get("_delta", 0)
    if position.cards_left == 0:
        cows = {f"cows_p{i + 1}": c for i, c in enumerate(taken)
                if position.hands[i] is not None}
        if position.hidden_players:
            cows["cows_hidden"] = sum(taken[i] for i in position.hidden_players)
        me = b.node(actor="leaf", position=format_position(position), value=0.0,
                    cows_in=cows_in, **cows)
        b.edge(parent, me, **edge_attrs, _value=delta)
        return 0.0
    key = format_position(position)
    if b.merge and key in b.merged:
        me, value = b.merged[key]
        b.edge(parent, me, **edge_attrs, _value=value + delta)
        return value
    solved = b.solve(position)
    value = solved["value"]
    me = b.node(actor="p1", position=key, value=value, cows_in=cows_in,
                turn=HAND_SIZE + 1 - position.cards_left)  # the round's turn, as show says it
    b.edge(parent, me, **edge_attrs, _value=value + delta)
    if b.merge:
        b.merged[key] = (me, value)
    if turn_index >= b.depth:
        return value
    best_ev = min(solved["ev"].values())
    for card in position.hand:
        ev = solved["ev"][card]
        best = ev - best_ev <= EPS
        if b.best_only and not best:
            continue
        freq = solved.get("p1", {}).get(card)
        _opponents(b, position, card, ev, turn_index, cows_in, me,
                   {"label": f"play {card}", "cows": 0, "best": best, "probability": freq,
                    "value": ev}, taken)
    return value


def _opponents(b: _Build, position: Position, card: int, value: float, turn_index: int,
               cows_in: float, parent, edge_attrs: dict, taken: tuple) -> None:
    actor = "chance" if b.model == "random" else "opponents"
    me = b.node(actor=actor, position=format_position(position), value=value,
                cows_in=cows_in, card=card)
    b.edge(parent, me, **edge_attrs, _value=value)
    sets = opponent_sets(position)
    if b.model == "nash":
        freq = b.solve(position)["p2"]
        probabilities = [freq[s[0].card] for s in sets]
    elif b.model == "random":
        probabilities = [1.0 / len(sets)] * len(sets)
    else:
        probabilities = [None] * len(sets)
    values: list[float | None] = []
    for s, prob in zip(sets, probabilities):
        if prob is not None and prob < b.min_probability:
            values.append(None)
            continue
        cards = [card] + [0] * (position.players - 1)
        for play in s:
            cards[play.player - 1] = play.card
        values.append(_turn(b, position, cards, {}, turn_index, cows_in, me,
                            {"label": _set_label(s), "cows": 0, "probability": prob}, taken))
    if b.emit and b.model == "worst":  # the adversary's choice: probability 1 on its first max
        top = max(v for v in values if v is not None)
        chosen = False
        for child in b.graph.successors(me):
            data = b.graph.edges[me, child]
            data["best"] = abs(data["_value"] - top) <= EPS
            data["probability"] = 1.0 if data["best"] and not chosen else 0.0
            chosen = chosen or data["best"]
    elif b.emit:
        for child in b.graph.successors(me):
            data = b.graph.edges[me, child]
            data["best"] = data.get("probability", 0.0) > 0.0


def build_tree(position: Position, opponents: str = "random", depth: int | None = None,
               min_probability: float = 0.0, best_only: bool = False, merge: bool = False,
               max_nodes: int = 10_000) -> nx.DiGraph:
    """The decision tree of the rest of the round (or ``depth`` turns) as a DiGraph.

    >>> from nimmt.solver.positions.position import load_position
    >>> g = build_tree(load_position("example"), depth=1, best_only=True)
    >>> g.nodes[g.graph["root"]]["actor"], round(g.nodes[g.graph["root"]]["value"], 3)
    ('p1', 0.908)
    """
    if opponents not in MODELS:
        raise NimmtError(f"unknown opponents {opponents!r}; use random, worst or nash")
    if depth is not None and depth < 1:
        raise NimmtError(f"{param('depth')} must be at least 1 (turns to expand)")
    if not 0.0 <= min_probability <= 1.0:
        raise NimmtError(f"{param('min_probability')} must be between 0 and 1")
    turns = position.cards_left if depth is None else min(depth, position.cards_left)
    _refuse_hopeless(position, opponents, min_probability, best_only, max_nodes)
    counter = _Build(opponents, turns, min_probability, best_only, merge, False, 100 * max_nodes)
    try:
        _state(counter, position, 0, 0.0, None, {}, (0,) * position.players)
    except _TooBig:
        raise NimmtError(f"this tree has more than {100 * max_nodes:,} nodes (counting stopped "
                         f"there); use {_CUTS}, or raise {param('max_nodes')}") from None
    if counter.count > max_nodes:
        raise NimmtError(f"this tree would have {counter.count:,} nodes, over "
                         f"{param('max_nodes', max_nodes)}; use {_CUTS}, or raise "
                         f"{param('max_nodes')}")
    b = _Build(opponents, turns, min_probability, best_only, merge, True, max_nodes,
               solved=counter.solved)
    _state(b, position, 0, 0.0, None, {}, (0,) * position.players)
    for _, _, data in b.graph.edges(data=True):
        data.pop("_value", None)
        data.pop("_delta", None)
    b.graph.graph.update(root="n0", opponents=opponents, position=format_position(position),
                         depth=turns)
    return b.graph


def _refuse_hopeless(position: Position, opponents: str, min_probability: float,
                     best_only: bool, max_nodes: int) -> None:
    """Refuse at once (one line) a tree whose first turn alone passes ``max_nodes``, or
    whose values need a search too large, before counting (which solves every state)."""
    sets = opponent_set_count(position)
    if opponents == "random":
        kept = 0 if 1.0 / sets < min_probability else sets
    elif opponents == "nash":
        kept = sets if min_probability == 0 else 0  # frequencies are known only once solved
    else:
        kept = sets
    first_turn = 1 + (1 if best_only else position.cards_left) * (1 + kept)
    if first_turn > max_nodes:
        hints = []
        if not best_only and 2 + kept <= max_nodes:
            hints.append(param("best_only"))
        if opponents == "random" and kept:
            hints.append(f"{param('min_probability')} (each set has probability {1 / sets:.2g})")
        elif opponents == "nash" and kept:
            hints.append(f"{param('min_probability')} (player 2's unlikely cards)")
        raise NimmtError(
            f"this tree would have at least {first_turn:,} nodes (its first turn alone: "
            f"{sets:,} opponent card sets after each card), over "
            f"{param('max_nodes', max_nodes)}; "
            + (f"use {' or '.join(hints)}, or raise {param('max_nodes')}" if hints else
               f"raise {param('max_nodes')} ({param('depth')} cannot cut the first turn)"))
    k = position.cards_left
    if opponents == "nash":
        check_nash_position(position)
        if estimate_bytes(position) > DEFAULT_MEMORY:
            raise NimmtError(
                f"a nash tree needs the equilibrium of the rest of the round: at {k} cards "
                f"each about {estimate_states(position):,} states "
                f"(~{estimate_bytes(position) / 2**30:.0f} GiB), over the "
                f"{DEFAULT_MEMORY / 2**30:.0f} GiB a tree may use, whatever {param('depth')}, "
                f"{param('best_only')} or {param('min_probability')}; build it from a position "
                "with at most "
                f"{largest_fitting_k(position, DEFAULT_MEMORY)} cards left")
        return
    estimate = estimate_nodes(position)
    if estimate > SEARCH_NODES:
        raise NimmtError(
            f"the tree's values need an exact search ({opponents}) of the rest of the round, "
            f"about {estimate:.1e} nodes, over the {SEARCH_NODES:.1e} a tree may take, whatever "
            f"{param('depth')}, {param('best_only')}, {param('min_probability')} or "
            f"{param('max_nodes')}; build it from a position with fewer cards left "
            f"({command('analyse', method='montecarlo')} estimates this one)")


def count_nodes(position: Position, **options) -> int:
    """How many nodes ``build_tree`` would make with these options (no graph is built)."""
    b = _Build(options.get("opponents", "random"),
               min(options.get("depth") or position.cards_left, position.cards_left),
               options.get("min_probability", 0.0), options.get("best_only", False),
               options.get("merge", False), False, 10**12)
    _state(b, position, 0, 0.0, None, {}, (0,) * position.players)
    return b.count


# ---------------------------------------------------------------- writers

def _dot_ready(graph: nx.DiGraph) -> nx.DiGraph:
    """A copy with DOT labels and quoted attribute values (pydot needs strings)."""
    g = nx.DiGraph()
    for n, d in graph.nodes(data=True):
        text = d["actor"] if d["actor"] != "p1" else f"p1 turn {d['turn']} of {HAND_SIZE}"
        if "card" in d and d["actor"] != "p1":
            text += f" ({d['card']})"
        g.add_node(n, label=f'"{text}\\n{d["value"]:.3f}"',
                   shape="box" if d["actor"] == "p1" else "ellipse",
                   tooltip=f'"{d["position"]}"')
    for a, c, d in graph.edges(data=True):
        text = d.get("label", "")
        if "probability" in d:
            text += f" p={d['probability']:.2f}"
        if d.get("cows"):
            text += f" +{d['cows']} cows"
        if d.get("cows_opponents"):
            text += f" (opponents +{d['cows_opponents']})"
        g.add_edge(a, c, label=f'"{text}"', penwidth="2.5" if d.get("best") else "1")
    return g


def write_tree(graph: nx.DiGraph, path: str) -> None:
    """Write by the path's suffix: .graphml .gexf .json (node-link) .dot .svg .png."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise NimmtError(f"unknown output suffix {suffix or '(none)'!r}; use one of "
                         f"{', '.join(FORMATS)}")
    if suffix == ".graphml":
        atomic_write(path, lambda tmp: nx.write_graphml(graph, tmp))
    elif suffix == ".gexf":
        atomic_write(path, lambda tmp: nx.write_gexf(graph, tmp))
    elif suffix == ".json":
        data = nx.node_link_data(graph, edges="edges")

        atomic_write_text(path, json.dumps(data, indent=1))
    elif suffix == ".dot":
        atomic_write(path, lambda tmp: nx.nx_pydot.write_dot(_dot_ready(graph), tmp))
    else:
        dot = shutil.which("dot")
        if dot is None:
            raise NimmtError(f"writing {suffix} needs Graphviz's dot program, which is not "
                             "installed; install graphviz (apt-get install graphviz, brew install "
                             "graphviz) or write a .dot, .graphml, .gexf or .json file")
        source = nx.nx_pydot.to_pydot(_dot_ready(graph)).to_string()

        def render(tmp):
            subprocess.run([dot, f"-T{suffix[1:]}", "-o", tmp], input=source.encode(),
                           check=True, capture_output=True)
        atomic_write(path, render)


def format_tree_text(graph: nx.DiGraph) -> str:
    """An indented view of the tree for the terminal."""
    lines: list[str] = []
    seen = set()

    def walk(node, indent, via):
        d = graph.nodes[node]
        what = d["actor"] if d["actor"] != "p1" else f"p1 (turn {d['turn']} of {HAND_SIZE})"
        if "owner" in d:
            what += f" by {d['owner']}"
        lines.append(f"{'  ' * indent}{via}{what}  value {d['value']:.3f}")
        if node in seen:
            return
        seen.add(node)
        for child in graph.successors(node):
            e = graph.edges[node, child]
            mark = "* " if e.get("best") else "  "
            extra = f" p={e['probability']:.3f}" if "probability" in e else ""
            extra += f" +{e['cows']} cows" if e.get("cows") else ""
            extra += f" (opponents +{e['cows_opponents']})" if e.get("cows_opponents") else ""
            walk(child, indent + 1, f"{mark}{e.get('label', '')}{extra} -> ")

    walk(graph.graph["root"], 0, "")
    return "\n".join(lines)


def tree_nested(graph: nx.DiGraph) -> dict:
    """The tree as nested JSON from its root, for a page to draw: each node its ``id``,
    ``actor``, ``value`` (and ``turn``, ``owner`` where it has them) and ``children``, a
    list of edges (``label``, ``cows``, ``best``, ``probability`` where the model gives one)
    each with its ``node``. A node reached a second time (``merge``) is given by its id
    only (``"ref"``), so the JSON stays a tree."""
    seen: set = set()

    def node(n) -> dict:
        d = graph.nodes[n]
        out = {"id": n, "actor": d["actor"], "value": d["value"]}
        for key in ("turn", "owner"):
            if key in d:
                out[key] = d[key]
        if n in seen:
            return {**out, "ref": True}
        seen.add(n)
        out["children"] = []
        for child in graph.successors(n):
            e = graph.edges[n, child]
            edge = {"label": e.get("label", ""), "cows": e.get("cows", 0),
                    "best": bool(e.get("best")), "node": node(child)}
            if "probability" in e:
                edge["probability"] = e["probability"]
            out["children"].append(edge)
        return out

    return node(graph.graph["root"])
