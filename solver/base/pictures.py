"""Pictures: the one place that imports matplotlib and sets its backend.

matplotlib is a dependency of nimmt, but an import of it can still fail (a broken or
stripped install, a platform without its wheels). Then the commands that draw (the review's
regret picture, the study report's figures, the board's Game tab) write everything else,
with ``NO_PICTURES`` where a picture would be, instead of failing."""
from __future__ import annotations

import importlib.util
from typing import Any

__all__ = ["NO_PICTURES", "have_pictures", "matplotlib_figure",
           "matplotlib_pyplot", "matplotlib_ticker"]

NO_PICTURES = "matplotlib cannot be imported: no picture (pip install matplotlib draws it)"


def have_pictures() -> bool:
    """Whether matplotlib can be imported (it is not imported here)."""
    return importlib.util.find_spec("matplotlib") is not None


def _agg() -> Any:
    """matplotlib, on its file-only Agg backend (no display is ever needed). Raises
    ImportError when it is not installed."""
    import matplotlib

    matplotlib.use("Agg")
    return matplotlib


def matplotlib_figure() -> Any:
    """matplotlib's ``Figure`` class, on the Agg backend (ImportError without it)."""
    _agg()
    from matplotlib.figure import Figure

    return Figure


def matplotlib_pyplot() -> Any:
    """``matplotlib.pyplot``, on the Agg backend (ImportError without it)."""
    _agg()
    import matplotlib.pyplot as plt

    return plt


def matplotlib_ticker() -> Any:
    """``matplotlib.ticker`` (ImportError without matplotlib)."""
    _agg()
    import matplotlib.ticker

    return matplotlib.ticker
