"""ismcts keeps its tree between decisions and clears each node as it adds it: the same
visits as a tree allocated cleared for the whole budget, whatever the buffers held before."""
from __future__ import annotations

import numpy as np
import pytest

from nimmt.solver.base.rules import Rules
from nimmt.solver.players import bots
from nimmt.solver.players.bots import make_policy
from nimmt.solver.positions.objective import playout_goal
from nimmt.solver.search.game import deal_position


def cleared_tree(position, iterations: int, seed: int, buckets: int = bots.CHILD_BUCKETS,
                 playout: str = "random"):
    """The tree search as before: every node's cells cleared up front, one kernel call;
    each node's children in ``buckets`` lists."""
    n, k = position.players, position.cards_left
    hands, hidden, pool, table = bots.playout_arrays(position)
    size, deck = iterations + 1, position.deck_size + 1
    stats = np.zeros((size, n, deck, 3))
    links = np.full((size, buckets + 2), -1, np.int64)
    links[0, -1] = 0  # the root's row of statistics
    actions = np.zeros((size, n), np.int64)
    used = np.ones(2, np.int64)
    bots.ismcts_iterations(table, hands, hidden, pool, n, k, position.deck_size,
                           position.professional, seed,
                           np.int64(0), np.int64(iterations), stats, links, actions, used,
                           playout_goal(position, "cows"), bots.ISMCTS_C, bots.REWARD_SCALE,
                           bots.PLAYOUT_CODES[playout], np.stack([bots.shipped_weights()] * 2),
                           bots.NO_DEALS, 0, 0, 0)
    return stats, links, actions, int(used[0]), int(used[1])


@pytest.mark.parametrize("rules, k, seed", [(Rules("tactical", 4), 10, 1),
                                            (Rules("standard", 5), 7, 2),
                                            (Rules("tactical", 2), 9, 3)])
def test_child_lists_by_joint_turn_find_the_children_one_list_finds(rules, k, seed):
    """A node's children kept in many lists (by ``turn_bucket``) is a faster way to find
    a child, not a different search: every node's statistics and joint turn, and the
    number of nodes, are those of one list of all children (the layout before)."""
    p = deal_position(rules, k, seed=seed)
    one = cleared_tree(p, 1500, 77, buckets=1, playout="learned")
    for buckets in (bots.CHILD_BUCKETS, 5):
        many = cleared_tree(p, 1500, 77, buckets=buckets, playout="learned")
        assert many[3] == one[3] > 1000  # most iterations added a node
        assert many[4] == one[4]
        np.testing.assert_array_equal(many[0][:one[4]], one[0][:one[4]])
        np.testing.assert_array_equal(many[2][:one[3]], one[2][:one[3]])
    lists = many[1][0, :5]
    assert (lists >= 0).sum() == 5  # the root's children are spread over every list


def test_turn_bucket_spreads_a_roots_children_evenly():
    """The root's children in a 4-player tactical tree land in each of the 32 lists
    about equally often: no list holds more than twice its share."""
    p = deal_position(Rules("tactical", 4), 10, seed=6)
    _, links, actions, used, _ = cleared_tree(p, 3000, 5)
    counts = np.zeros(bots.CHILD_BUCKETS, np.int64)
    for b in range(bots.CHILD_BUCKETS):
        child = links[0, b]
        while child >= 0:
            assert bots.turn_bucket(actions[child], 4, bots.CHILD_BUCKETS) == b
            counts[b] += 1
            child = links[child, bots.CHILD_BUCKETS]
    assert counts.sum() > 2000  # nearly every iteration made a new child of the root
    assert counts.max() < 2 * counts.sum() / bots.CHILD_BUCKETS


def test_a_dirty_buffer_builds_the_same_tree_as_a_cleared_one():
    """The kernel clears every node and row of statistics it adds: garbage in the buffers
    (NaN statistics, links pointing anywhere) gives the same tree, node for node, as
    cleared arrays."""
    p = deal_position(Rules("tactical", 3), 6, seed=4)
    iterations, seed = 400, 12345
    want_stats, want_links, want_actions, want_used, rows = cleared_tree(p, iterations, seed)
    bot = make_policy("ismcts", seed=0)
    assert isinstance(bot, bots.TreeSearchBot)
    n, deck = p.players, p.deck_size + 1
    stats, links, actions = bot.tree(iterations + 1, n, deck)
    stats[1:] = np.nan
    links[1:] = 7
    actions[1:] = 99
    hands, hidden, pool, table = bots.playout_arrays(p)
    used = np.ones(2, np.int64)
    bots.ismcts_iterations(table, hands, hidden, pool, n, p.cards_left, p.deck_size,
                           p.professional, seed,
                           np.int64(0), np.int64(iterations), stats, links, actions, used,
                           playout_goal(p, "cows"), bots.ISMCTS_C, bots.REWARD_SCALE,
                           bots.PLAYOUT_CODES["random"], np.stack([bots.shipped_weights()] * 2),
                           bots.NO_DEALS, 0, 0, 0)
    assert int(used[0]) == want_used > 100  # the tree grew: many nodes were added
    assert int(used[1]) == rows > 1
    u = want_used
    np.testing.assert_array_equal(stats[:rows], want_stats[:rows])
    np.testing.assert_array_equal(links[:u], want_links[:u])
    np.testing.assert_array_equal(actions[:u], want_actions[:u])


def test_a_bot_reusing_its_tree_decides_as_fresh_bots_do():
    """One bot over positions of 2, 3 and 4 players (its buffers reused, grown, left
    dirty by the decision before) gives each position the visits of a fresh bot with the
    same decision seed, and those of a tree cleared up front."""
    positions = [deal_position(Rules("tactical", n), k, seed=s)
                 for n, k, s in ((4, 8, 1), (2, 7, 2), (3, 5, 3), (4, 4, 4), (2, 9, 5))]
    reused = make_policy("ismcts:iterations=300", seed=21)
    for i, p in enumerate(positions):
        got = reused.visits(p)
        fresh = make_policy("ismcts:iterations=300", seed=21)
        fresh.decisions = i  # the same decision seed: next_seed counts decisions
        assert fresh.visits(p) == got
        fresh.decisions = i
        stats, _, _, _, _ = cleared_tree(p, 300, fresh.next_seed())
        assert got == {c: float(stats[0, 0, c, 0]) for c in p.hand}
        assert sum(got.values()) == 300
    assert reused.buffers[0].size >= 301 * 4 * (positions[0].deck_size + 1) * 3


def tree_sizes(monkeypatch) -> list[int]:
    """The sizes of the trees the tree bots make from now on (no spare arrays, a first
    tree of 16 nodes): the list ``TreeSearchBot.tree`` appends each size to."""
    monkeypatch.setattr(bots.SpareTrees, "spare", [])
    monkeypatch.setattr(bots, "TREE_START", 16)
    sizes: list[int] = []
    tree = bots.TreeSearchBot.tree

    def recorded(self, size, *args, **kwargs):
        sizes.append(size)
        return tree(self, size, *args, **kwargs)

    monkeypatch.setattr(bots.TreeSearchBot, "tree", recorded)
    return sizes


def test_a_tree_grown_as_it_searches_is_the_tree_allocated_up_front(monkeypatch):
    """With a time budget, from a tree of 16 nodes, doubled as the search adds nodes (the
    nodes so far kept), the visits are those of a tree of the whole budget cleared up
    front (the time, far away, never binds)."""
    sizes = tree_sizes(monkeypatch)
    p = deal_position(Rules("standard", 4), 9, seed=7)
    bot = make_policy("ismcts:iterations=1500,time=1000", seed=5)
    got = bot.visits(p)
    bot.decisions = 0
    stats, _, _, used, _ = cleared_tree(p, 1500, bot.next_seed())
    assert used > 16 * 2 ** 4 and len(sizes) > 4  # it grew several times
    assert got == {c: float(stats[0, 0, c, 0]) for c in p.hand}


def test_a_counted_budget_takes_its_whole_tree_at_once(monkeypatch):
    """Without a time budget the tree is the budget's from the start, made once (a tree
    grown by doubling copied its nodes and made the first decisions at ten players take
    up to twice as long); the same visits as a tree cleared up front."""
    sizes = tree_sizes(monkeypatch)
    p = deal_position(Rules("standard", 4), 9, seed=7)
    bot = make_policy("ismcts:iterations=1500", seed=5)
    got = bot.visits(p)
    assert sizes == [1501]
    bot.decisions = 0
    stats, _, _, _, _ = cleared_tree(p, 1500, bot.next_seed())
    assert got == {c: float(stats[0, 0, c, 0]) for c in p.hand}


def test_the_tree_stops_growing_at_the_bots_memory(monkeypatch):
    """A budget of iterations far past the memory (here 100 nodes' worth) neither
    allocates past it nor fails: the tree stops growing and the iterations go on below
    its leaves; a time budget with a huge count allocates only what it uses."""
    p = deal_position(Rules("standard", 4), 9, seed=8)
    node = bots.TreeSearchBot.node_bytes(4, p.deck_size + 1)
    monkeypatch.setattr(bots.SpareTrees, "spare", [])  # no larger arrays of other tests
    monkeypatch.setattr(bots, "BOT_MEMORY", 100 * node)
    monkeypatch.setattr(bots, "TREE_START", 16)
    bot = make_policy("ismcts:iterations=2000", seed=1)
    visits = bot.visits(p)
    assert sum(visits.values()) == 2000  # every iteration ran, through the root
    assert sum(b.nbytes for b in bot.buffers) <= 100 * node
    monkeypatch.undo()
    timed = make_policy("ismcts:iterations=10000000,time=0.05", seed=1)
    timed.choose(p)
    assert sum(b.nbytes for b in timed.buffers) <= bots.BOT_MEMORY


def test_a_new_bot_borrows_the_arrays_of_the_last_tree_and_decides_the_same(monkeypatch):
    """A decision gives its tree arrays back to the process (``SpareTrees``); the next
    bot's decision borrows them, dirty, and finds the visits of a tree cleared up front.
    Two decisions at once (two threads) never share a set."""
    monkeypatch.setattr(bots.SpareTrees, "spare", [])
    p = deal_position(Rules("tactical", 4), 8, seed=3)
    first = make_policy("ismcts:iterations=2000", seed=4)
    first.visits(p)
    lent = first.buffers
    assert bots.SpareTrees.spare and bots.SpareTrees.spare[0][0] is lent[0]
    second = make_policy("ismcts:iterations=700", seed=9)
    got = second.visits(deal_position(Rules("tactical", 4), 6, seed=5))
    assert second.buffers[0] is lent[0]  # borrowed, not allocated
    second.decisions = 0
    q = deal_position(Rules("tactical", 4), 6, seed=5)
    stats, _, _, _, _ = cleared_tree(q, 700, second.next_seed())
    assert got == {c: float(stats[0, 0, c, 0]) for c in q.hand}
    taken = bots.SpareTrees.borrow(bots.SpareTrees.EMPTY)
    assert bots.SpareTrees.borrow(bots.SpareTrees.EMPTY) is bots.SpareTrees.EMPTY  # none left
    bots.SpareTrees.give_back(taken)
    bots.SpareTrees.give_back(taken)  # given twice, kept once
    assert len(bots.SpareTrees.spare) == 1


def test_a_tree_the_time_cannot_pay_for_grows_between_decisions(monkeypatch):
    """With a ``time`` budget a decision grows its tree only when the time left pays for
    the fresh memory; here it never does (a second a byte), so the decision runs every
    iteration in its first 16 nodes and the process records what it wanted; the table's
    next ``see`` to a tree bot grows the arrays to it (touched there), and the next
    decision searches in them the tree a counted budget builds."""
    monkeypatch.setattr(bots.SpareTrees, "spare", [])
    monkeypatch.setattr(bots.SpareTrees, "wanted", None)
    monkeypatch.setattr(bots, "TREE_START", 16)
    monkeypatch.setattr(bots, "FRESH_SECONDS_PER_BYTE", 1.0)
    p = deal_position(Rules("standard", 4), 9, seed=7)
    n, deck = 4, p.deck_size + 1
    bot = make_policy("ismcts:iterations=3000,time=1000", seed=5)
    visits = bot.visits(p)
    assert sum(visits.values()) == 3000  # every iteration, through the root
    assert bot.nodes_held(n, deck) == 16  # not grown in the decision
    assert bots.SpareTrees.wanted == (3001, n, deck)
    make_policy("ismcts", seed=1).see(())  # any tree bot of the process, between decisions
    assert bots.SpareTrees.wanted is None
    bot.buffers = bots.SpareTrees.borrow(bot.buffers)
    assert bot.nodes_held(n, deck) >= 3001
    assert not bot.buffers[0][16 * n * deck * 3:].any()  # written once, with zeros
    monkeypatch.setattr(bots, "FRESH_SECONDS_PER_BYTE", 2e-9)
    held = bot.buffers[0]
    got = bot.visits(p)
    assert bot.buffers[0] is held and bots.SpareTrees.wanted is None  # no growth in it
    bot.decisions = 1  # the seed of its second decision
    stats, _, _, used, _ = cleared_tree(p, 3000, bot.next_seed())
    assert used > 16
    assert got == {c: float(stats[0, 0, c, 0]) for c in p.hand}



def test_a_borrowed_set_is_no_longer_spare_and_the_largest_want_is_kept(monkeypatch):
    """A decision that borrows its own arrays takes them out of the spare sets (no other
    thread can borrow them meanwhile); of several trees wanted, the largest in bytes is
    the one grown between decisions."""
    monkeypatch.setattr(bots.SpareTrees, "spare", [])
    monkeypatch.setattr(bots.SpareTrees, "wanted", None)
    big = (np.empty(100), np.empty(10, np.int64), np.empty(10, np.int64))
    small = (np.empty(50), np.empty(5, np.int64), np.empty(5, np.int64))
    bots.SpareTrees.give_back(big)
    bots.SpareTrees.give_back(small)
    assert bots.SpareTrees.borrow(big) is big
    assert [s[0] for s in bots.SpareTrees.spare] == [small[0]]
    bots.SpareTrees.want(1000, 4, 105)
    bots.SpareTrees.want(2000, 2, 25)  # fewer bytes: 2,000 small nodes
    assert bots.SpareTrees.wanted == (1000, 4, 105)
    bots.SpareTrees.want(1000, 6, 105)
    assert bots.SpareTrees.wanted == (1000, 6, 105)


@pytest.mark.parametrize("rules, k, most", [(Rules("standard", 4), 10, 0.2),
                                            (Rules("standard", 6), 8, 0.05),
                                            (Rules("tactical", 2), 9, 1.0)])
def test_a_node_gets_statistics_when_first_entered(rules, k, most):
    """Only the nodes an iteration enters get a row of statistics: every node with a row
    has been entered (its availability counts are set), every row belongs to one node,
    and at four players and more most nodes are added by a visit that ends there and
    never get one."""
    p = deal_position(rules, k, seed=3)
    stats, links, actions, nodes, rows = cleared_tree(p, 2000, 9)
    given = links[:nodes, -1]
    assert sorted(given[given >= 0].tolist()) == list(range(rows))
    assert given[0] == 0
    for r in range(rows):
        assert stats[r, 0, :, 2].sum() > 0  # entered: its cards' availability counted
    assert rows <= most * nodes + 1
