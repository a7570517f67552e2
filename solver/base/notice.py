"""numba's compiles: announced once, and kept out of every time budget.

numba compiles a kernel on its first call and caches it on disk; a compile happens only
on a cache miss (first use, or the source changed). ``engine`` calls ``install`` when it
loads; from then on this module
- calls ``on_compile()`` once, before the first compile (a front end says it: the CLI prints
  one line);
- keeps the seconds spent compiling, so that ``work_clock`` (``time.perf_counter`` less
  them) is the clock of every budget and every reported time: ``--time-limit``, auto's share
  for exact search, a bot's ``time=``. A first run's compile then never eats a search's time,
  and a budget starts, in effect, when its kernels are loaded.

numba holds one lock for every compile in a process, so compiles never overlap: nested
events (a kernel compiling the kernels it calls) count once, from the outermost.
This module imports numba only inside ``install``, so importing it costs nothing.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["compile_seconds", "compiling", "install", "on_compile", "work_clock"]

on_compile: Callable[[], None] | None = None  # called once, before the first compile
_state: dict = {"installed": False, "fired": False, "depth": 0, "since": 0.0, "total": 0.0}
_lock = threading.Lock()


def compile_seconds() -> float:
    """Seconds this process has spent compiling kernels so far (a compile in progress too)."""
    with _lock:
        ongoing = time.perf_counter() - _state["since"] if _state["depth"] else 0.0
        return _state["total"] + ongoing


def compiling() -> bool:
    """True while a kernel compiles."""
    return bool(_state["depth"])


def work_clock() -> float:
    """``time.perf_counter()`` less the seconds spent compiling: it stands still while a
    kernel compiles. Differences of it are work time."""
    return time.perf_counter() - compile_seconds()


def _started() -> None:
    with _lock:
        _state["depth"] += 1
        if _state["depth"] == 1:
            _state["since"] = time.perf_counter()
        first = not _state["fired"] and on_compile is not None
        if first:
            _state["fired"] = True
    if first and on_compile is not None:
        on_compile()


def _ended() -> None:
    with _lock:
        _state["depth"] = max(_state["depth"] - 1, 0)
        if _state["depth"] == 0:
            _state["total"] += time.perf_counter() - _state["since"]


def install() -> None:
    """Listen for numba's compile events (idempotent)."""
    if _state["installed"]:
        return
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev) -> None:
            _started()

        def on_end(self, ev) -> None:
            _ended()

    event.register("numba:compile", Listener())
    _state["installed"] = True
