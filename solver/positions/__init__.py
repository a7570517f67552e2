"""The position layer: the values the searches take.

``Position`` (notation, JSON, checks, applying a turn), the logic draft's position, and the
win objective over a game (totals, threshold, what the end of a round is worth). Imports the
base and kernel layers.
"""
