"""The base layer: plain Python that every other layer may use, with no numba and no position.

Names (variants, models, placements, methods), errors and how messages name parameters, the
rules as data (deck, cows, thresholds, hand size), the compile clock and notice, 95%
intervals, safe file reading and writing, the pure-Python reference engine (the oracle the
kernels are held against), and the batch layer that runs units of work in processes or on
Dask. Imports nothing of nimmt outside this folder.
"""
