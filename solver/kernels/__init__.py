"""The kernel layer: numba functions over arrays that know no ``Position``.

The engine (rows, placement, a turn, the playout bots, random deals), the turn enumeration
shared by the searches, the state keys and the transposition table, the logic draft's
kernels, and where numba caches what it compiles. Imports only the base layer.
"""
