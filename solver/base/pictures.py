"""Pictures (matplotlib) are an optional part of nimmt: ``pip install 'nimmt[pictures]'``.

matplotlib and what it pulls in (fontTools, Pillow, ...) add half to the time ``pip install
.`` takes (measured: 27.9 s with it, 18.5 s without, mostly byte-compiling), and only the
review's regret picture and the study report's figures need it. Without it those commands
still write everything else, with ``NO_PICTURES`` where a picture would be; the board says
the same on its Game tab. This is the one place that imports matplotlib and sets its
backend."""
from __future__ import annotations

import importlib.util
from typing import Any

__all__ = ["NO_PICTURES", "PICTURES_EXTRA", "have_pictures", "matplotlib_figure",
           "matplotlib_pyplot", "matplotlib_ticker"]

PICTURES_EXTRA = "pip install 'nimmt[pictures]'"
NO_PICTURES = f"matplotlib is not installed: no picture ({PICTURES_EXTRA} draws it)"


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
