"""The player layer: bots and what they play.

The one policy interface and every bot, opponent models built from bots, the duplicate
arena, bots in another process, game records, reviews and a game at the terminal. Imports
the layers below it.
"""
