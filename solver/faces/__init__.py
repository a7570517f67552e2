"""The face layer: what the command line and the engine protocol share.

The questions both faces answer (analyse, a bot's decision, a review) with their options
checked once, the engine's JSON-RPC protocol, and the pictures of a position. ``cli.py`` and
``puzzles/`` sit above this layer.
"""
