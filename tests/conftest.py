import fcntl
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings

import pytest
from click.testing import CliRunner


@pytest.fixture
def runner():
    return CliRunner()


def _share_compiles_between_workers() -> None:
    """pytest-xdist workers start with the same cold numba cache and need mostly the same
    kernels, so each compiled them all (measured: most of a worker's compile time was a
    kernel the other worker compiled too). Here a worker compiles a cached kernel holding
    a file lock named after the function; the other worker, needing it meanwhile, waits
    for the lock and then loads it from the on-disk cache instead of compiling it again.
    Different kernels still compile side by side. Locks are taken inside numba's own
    compiler lock (one compile at a time per process) and at most once per function per
    process (a nested compile of the same function reuses the held lock). The call graph of
    cached kernels has no cycles (numba cannot cache recursion), so the locks cannot
    deadlock. Nothing changes in what is compiled or run: only who compiles it first."""
    try:
        from numba.core.caching import NullCache
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # a numba without these internals: compile as usual
        return
    original = Dispatcher.compile
    folder = os.path.join(tempfile.gettempdir(), f"nimmt-test-compile-locks-{os.geteuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    held: set[str] = set()

    def compile(self, sig):
        cache = getattr(self, "_cache", None)
        func = getattr(self, "py_func", None)
        if cache is None or isinstance(cache, NullCache) or func is None:
            return original(self, sig)
        code = func.__code__
        key = hashlib.sha1(f"{code.co_filename}:{func.__qualname__}".encode()).hexdigest()
        with global_compiler_lock:
            if key in held:
                return original(self, sig)
            with open(os.path.join(folder, key), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                held.add(key)
                try:
                    return original(self, sig)
                finally:
                    held.discard(key)
                    fcntl.flock(lock, fcntl.LOCK_UN)

    Dispatcher.compile = compile


if os.environ.get("PYTEST_XDIST_WORKER"):
    _share_compiles_between_workers()


def pytest_configure(config):
    """Before pytest-xdist starts its workers, ``nimmt compile`` compiles (or, on a warm
    cache, loads) every engine's kernels, one engine per core, longest first. On a cold
    cache the workers used to compile them while running tests, each waiting on the lock
    of the kernel the other was compiling (above), so the two cores were seldom both busy;
    here they are, and the workers start on a warm cache. Only the run's controller does
    it, and only with workers (``-n``); a failed compile is reported and the tests go on
    (each kernel then compiles on its first use, as before)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", None):
        return
    if config.option.collectonly:
        return
    start = time.perf_counter()
    sys.stderr.write("tests: compiling nimmt's kernels first (nimmt compile) ...\n")
    sys.stderr.flush()
    done = subprocess.run([sys.executable, "-m", "nimmt.cli", "compile"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)
    status = "done" if done.returncode == 0 else f"failed ({done.returncode}): {done.stdout[-400:]}"
    sys.stderr.write(f"tests: kernels {status} in {time.perf_counter() - start:.0f} s\n")


@pytest.fixture(scope="session")
def compiled_kernels():
    """Every engine's kernels compiled (or loaded) in this worker, under the lock above,
    before a test starts ``nimmt`` in child processes: a child compiles outside the lock,
    so on a cold cache it would compile a kernel a worker compiles too, and a Ctrl-C sent
    to it while it compiles waits for the compile to end (``notice``). The jobs are
    ``nimmt compile``'s, run in this process."""
    from nimmt import cli

    runner = CliRunner()
    jobs = list(cli.COMPILE_JOBS.items())
    # each worker in its own order: the same order would keep one worker waiting on the
    # lock of each kernel the other compiles, one after another
    start = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    start = start * len(jobs) // 2 % len(jobs)
    for name, args in jobs[start:] + jobs[:start]:
        result = runner.invoke(cli.cli, list(args))
        assert result.exit_code == 0, (name, result.output, result.exception)


@pytest.fixture(autouse=True)
def _default_ctrl_c():
    """Each test starts with Ctrl-C as Python sets it up: the default handler, SIGINT not
    blocked. A worker process runs many tests, and a child process inherits an ignored or
    blocked SIGINT: on a cold numba cache, workers were seen passing an ignored one on
    after the in-process Ctrl-C tests (cause not found yet), and every later test that
    sends Ctrl-C to a child then failed. A change found here is reported as a warning."""
    if threading.current_thread() is threading.main_thread():
        handler = signal.getsignal(signal.SIGINT)
        blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
        if handler is not signal.default_int_handler or blocked:
            warnings.warn(f"SIGINT was left {'blocked' if blocked else handler!r}; reset",
                          stacklevel=1)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    yield


@pytest.fixture(autouse=True)
def _no_tree_wanted_by_another_test():
    """A timed tree decision of one test may leave the process a tree it wanted
    (``SpareTrees.wanted``); a later test's ``see`` would grow the arrays to it. Each test
    starts without one (when the bots are loaded at all)."""
    bots = sys.modules.get("nimmt.solver.players.bots")
    if bots is not None:
        bots.SpareTrees.wanted = None
    yield
