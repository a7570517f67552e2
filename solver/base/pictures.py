"""Pictures: the one place that imports matplotlib and sets its backend.

matplotlib is a dependency of nimmt, but an import of it can still fail (a broken or
stripped install, a platform without its wheels). Then the commands that draw (the review's
regret picture, the study report's figures, the board's Game tab) write everything else,
with ``NO_PICTURES`` where a picture would be, instead of failing."""
from __future__ import annotations

import importlib.util
import io
import os
from collections.abc import Mapping
from typing import Any

from .fileio import atomic_write

__all__ = ["NO_PICTURES", "figure_bytes", "have_pictures", "matplotlib_figure",
           "matplotlib_pyplot", "matplotlib_ticker", "write_beside"]

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


def figure_bytes(fig: Any, fmt: str, dpi: int = 110) -> bytes:
    """A figure saved as ``fmt`` ('svg' or 'png'), tight, with no date in an SVG (the same
    bytes every run)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, bbox_inches="tight", dpi=dpi,
                metadata={"Date": None} if fmt == "svg" else None)
    return buffer.getvalue()


def write_beside(path: str, pngs: Mapping[str, bytes]) -> dict[str, str]:
    """Each PNG as PATH-STEM-NAME.png beside the report ``path``, atomically; returns the
    file name (not the path) of each by name, as the report links them."""
    stem, names = os.path.splitext(path)[0], {}
    for name, png in pngs.items():
        target = f"{stem}-{name}.png"

        def put(tmp: str, png: bytes = png) -> None:
            with open(tmp, "wb") as f:
                f.write(png)
        atomic_write(target, put)
        names[name] = os.path.basename(target)
    return names
