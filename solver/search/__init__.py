"""The search layer: every way nimmt values a card, and what is built directly on them.

Exact search (expectimax / minimax), Monte Carlo, the equilibrium (nash), the draft's
search, principal lines and decision trees, whole games played by kernel bots, the
``Analysis`` every search result is adapted into (``analyse``: the one entry point), and
solved deals. Imports the base, kernel and position layers.
"""
