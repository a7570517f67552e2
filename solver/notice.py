"""One notice when numba compiles a kernel, so that a slow first run explains itself.

numba compiles a kernel on its first call and caches it on disk; a compile happens only
on a cache miss (first use, or the source changed). ``engine`` calls ``install`` when it
loads; a front end sets ``on_compile`` (the CLI prints one line on a terminal). This module
imports numba only inside ``install``, so setting the callback costs nothing.
"""
from __future__ import annotations

from collections.abc import Callable

__all__ = ["install", "on_compile"]

on_compile: Callable[[], None] | None = None  # called once, before the first compile
_state = {"installed": False, "fired": False}


def _compiling() -> None:
    if on_compile is not None and not _state["fired"]:
        _state["fired"] = True
        on_compile()


def install() -> None:
    """Listen for numba's compile events (idempotent)."""
    if _state["installed"]:
        return
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev) -> None:
            _compiling()

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", Listener())
    _state["installed"] = True
