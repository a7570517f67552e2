"""Every default budget in one place: what a search may use when nothing is said.

The command line's flags, the engine protocol's fields and the library's keyword
arguments all default to these (``docs/reference`` shows them as the flags' defaults).
"""
from __future__ import annotations

__all__ = ["BELIEF_BURN", "BELIEF_CHAINS", "BELIEF_DEALS", "BELIEF_THIN", "BELIEF_TRUST",
           "BOARD_ORPHAN_SECONDS", "BOARD_TIME_LIMIT", "BOARD_TREE_NODES", "BOT_MEMORY",
           "DEFAULT_MAX_NODES", "DEFAULT_MEMORY", "DEFAULT_SAMPLES", "LINE_NODES",
           "memory_flag"]

# bytes the tables of a search may hold: exact search's memo, the equilibrium's tables,
# a decision tree (--memory; the command line lowers it to the machine's RAM)
DEFAULT_MEMORY = 8 * 2**30
# bytes a bot's own tables may hold (``ismcts``'s tree): a bot is one seat of many at a table
BOT_MEMORY = 2**30
# a bot's beliefs (``belief=learned``): the deals of the hidden hands drawn from them, which
# its playouts cycle through; the Markov chains that draw them, each one's first steps
# (dropped) and the steps between two deals kept
BELIEF_DEALS = 1024
BELIEF_CHAINS = 16
BELIEF_BURN = 100
BELIEF_THIN = 4
# the share of a player's cards the beliefs take as the learned policy's; the rest at random
BELIEF_TRUST = 0.5
# analyse's node budget: auto's exact search and Monte Carlo's planned work (--max-nodes)
DEFAULT_MAX_NODES = 5_000_000
# Monte Carlo samples per card (--samples)
DEFAULT_SAMPLES = 2000
# seconds an analysis asked from the board may run when the page gives no time limit
BOARD_TIME_LIMIT = 60.0
# seconds a board job runs on once no page asks after it (a tab closed mid-search)
BOARD_ORPHAN_SECONDS = 30.0
# a principal line (``nimmt play``'s why, the board's line after a card) is searched only
# where the exact search's estimate is at most this
LINE_NODES = 2_000_000
# nodes a decision tree drawn on the board may have (the page shows it as nested lists)
BOARD_TREE_NODES = 2_000


def memory_flag(size: int = DEFAULT_MEMORY) -> str:
    """A size as the --memory flag spells it.

    >>> memory_flag()
    '8G'
    """
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return str(size)
