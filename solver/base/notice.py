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

- keeps Ctrl-C: LLVM calls back into Python while it compiles and while numba starts its
  runtime (at the first kernel a process loads, cached or not), and a KeyboardInterrupt
  raised inside such a callback is printed and dropped, so the compile (and the command)
  would go on. While a kernel compiles on the main thread, SIGINT is also noted; a compile
  that ends with an interrupt noted and none propagating raises KeyboardInterrupt then.
  A KeyboardInterrupt dropped outside a compile is delivered to the main thread again a
  moment later (``_thread.interrupt_main``), so it is raised in the Python code after the
  callback.

numba holds one lock for every compile in a process, so compiles never overlap: nested
events (a kernel compiling the kernels it calls) count once, from the outermost.
This module imports numba only inside ``install``, so importing it costs nothing.
"""
from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["compile_seconds", "compiling", "install", "on_compile", "work_clock"]

on_compile: Callable[[], None] | None = None  # called once, before the first compile
_state: dict = {"installed": False, "fired": False, "depth": 0, "since": 0.0, "total": 0.0,
                "interrupted": False, "previous": None, "watching": False, "hook": None}
_lock = threading.Lock()
REDELIVER_SECONDS = 0.01  # a dropped Ctrl-C raised again after this long


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


def _on_sigint(signum, frame) -> None:
    """SIGINT while a kernel compiles: noted, then handled as before (by default a
    KeyboardInterrupt, which an LLVM callback may drop)."""
    _state["interrupted"] = True
    previous = _state["previous"]
    if callable(previous):
        previous(signum, frame)
    else:
        raise KeyboardInterrupt


def _watch_sigint() -> None:
    """From the outermost compile's start on the main thread: note SIGINT."""
    if threading.current_thread() is not threading.main_thread():
        return
    _state["previous"] = signal.getsignal(signal.SIGINT)
    if _state["previous"] in (signal.SIG_IGN, None):
        return
    _state["interrupted"], _state["watching"] = False, True
    signal.signal(signal.SIGINT, _on_sigint)


def _keep_interrupt(unraisable) -> None:
    """``sys.unraisablehook`` once installed: a KeyboardInterrupt that a callback from C
    dropped is not reported (its "Exception ignored" traceback on stderr is left out) but
    kept: while a kernel compiles on the main thread it was noted (``_on_sigint``) and is
    raised when the compile ends; otherwise it is delivered to the main thread again.
    Anything else is reported as before."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        if not _state["watching"]:
            threading.Thread(target=_interrupt_again, daemon=True).start()
        return
    hook = _state["hook"] or sys.__unraisablehook__
    hook(unraisable)


def _interrupt_again() -> None:
    """A dropped KeyboardInterrupt, raised again in the main thread a moment later (from
    this thread: raised from the hook itself, it would be dropped with the hook's call);
    dropped again by a later callback, it comes back again."""
    time.sleep(REDELIVER_SECONDS)
    _thread.interrupt_main()


def _unwatch_sigint(failed: bool) -> None:
    """At the outermost compile's end: the handler before it back, and a KeyboardInterrupt
    when SIGINT came and no exception is on its way out already."""
    if not _state["watching"]:
        return
    _state["watching"] = False
    signal.signal(signal.SIGINT, _state["previous"])
    if _state["interrupted"] and not failed:
        _state["interrupted"] = False
        raise KeyboardInterrupt


def _started() -> None:
    with _lock:
        _state["depth"] += 1
        outermost = _state["depth"] == 1
        if outermost:
            _state["since"] = time.perf_counter()
        first = not _state["fired"] and on_compile is not None
        if first:
            _state["fired"] = True
    if outermost:
        _watch_sigint()
    if first and on_compile is not None:
        on_compile()


def _ended(failed: bool = False) -> None:
    with _lock:
        _state["depth"] = max(_state["depth"] - 1, 0)
        outermost = _state["depth"] == 0
        if outermost:
            _state["total"] += time.perf_counter() - _state["since"]
    if outermost:
        _unwatch_sigint(failed)


def install() -> None:
    """Listen for numba's compile events (idempotent)."""
    if _state["installed"]:
        return
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev) -> None:
            _started()

        def on_end(self, ev) -> None:
            # whether an exception is on its way out (numba 0.6x's Event.is_failed answers
            # the opposite, so the details it keeps are read instead)
            _ended(getattr(ev, "_exc_details", None) is not None)

    event.register("numba:compile", Listener())
    _state["hook"] = sys.unraisablehook
    sys.unraisablehook = _keep_interrupt
    _state["installed"] = True
