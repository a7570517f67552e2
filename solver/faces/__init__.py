"""The face layer: what the command line, the engine protocol and the board share.

The questions every face answers (analyse, a bot's decision, a review) with their options
checked once (``queries``, ``options``), the engine's JSON-RPC protocol (``protocol``), the
analysis board in the browser (``boardserver``: its guard, jobs and views; ``board``: the app
and the position view; ``boardgame`` and ``boardplay``: a game reviewed, a game played; the
page in ``board_static/``), and the pictures of a position and the reports (``report``).
``cli.py`` and ``puzzles/`` sit above this layer (the puzzles view of the board among them).
"""
