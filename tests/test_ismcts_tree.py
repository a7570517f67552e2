"""ismcts's tree grows as it fills (issue 12 item 6: a large iteration budget must not cost
its whole tree up front): the same visits, card for card, as a tree allocated at full size."""
from __future__ import annotations

import numpy as np
import pytest

from nimmt.solver import bots
from nimmt.solver.bots import IsmctsTree, make_policy, parse_bot
from nimmt.solver.position import load_position


def test_room_for_keeps_every_row_and_fills_new_links_with_minus_one():
    tree = IsmctsTree(3, 2, 5)
    tree.stats[:] = np.arange(tree.stats.size).reshape(tree.stats.shape)
    tree.links[:] = [[1, 2], [-1, 0], [4, -1]]
    tree.actions[:] = [[1, 2], [3, 4], [5, 6]]
    before = (tree.stats.copy(), tree.links.copy(), tree.actions.copy())
    stats, links, actions = tree.room_for(4)
    assert stats.shape[0] == links.shape[0] == actions.shape[0] == 6  # doubled
    assert (stats[:3] == before[0]).all() and (stats[3:] == 0).all()
    assert (links[:3] == before[1]).all() and (links[3:] == -1).all()
    assert (actions[:3] == before[2]).all() and (actions[3:] == 0).all()
    assert tree.room_for(5)[0] is stats  # room enough: the same arrays


@pytest.mark.parametrize("name", ["example", "example-3p"])
def test_a_grown_tree_gives_the_visits_of_a_full_size_one(name, monkeypatch):
    position = load_position(name)
    spec = parse_bot("ismcts:iterations=3000")
    grown = make_policy(spec, seed=7).visits(position)
    monkeypatch.setattr(bots, "FIRST_TREE_NODES", 10**6)
    full = make_policy(spec, seed=7).visits(position)
    monkeypatch.setattr(bots, "FIRST_TREE_NODES", 16)  # many doublings
    small = make_policy(spec, seed=7).visits(position)
    assert grown == full == small
    assert sum(full.values()) == 3000  # every iteration visits the root once
