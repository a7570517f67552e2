"""Running a checkout's code in a child process, for the before/after benchmarks.

A before/after benchmark runs each side in its own process that imports the checkout's
``solver`` folder as the top-level package ``solver`` (an old checkout is not installed).
numba keys its on-disk cache on the source file, not on the module's name, and records the
module name in what it caches: a kernel cached by ``solver.engine`` and then loaded by the
installed ``nimmt.solver.engine`` fails with "No module named 'solver'". So every such
child compiles into a cache folder of its own (``checkout_env``), keyed on a digest of the
checkout's solver sources: numba checks only a kernel's own file, not the files of the
kernels it inlines, so a folder kept across edits could also serve stale code.
"""
from __future__ import annotations

import hashlib
import os
import tempfile

__all__ = ["checkout_env", "source_digest"]


def source_digest(root: str) -> str:
    """A digest of the checkout's path and its solver sources (12 hex digits)."""
    root = os.path.abspath(root)
    digest = hashlib.sha1(root.encode())
    folder = os.path.join(root, "solver")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as source:
                digest.update(name.encode() + source.read())
    return digest.hexdigest()[:12]


def checkout_env(root: str) -> dict[str, str]:
    """The environment for a child importing ``root``'s code as ``solver``: this one, with
    numba's cache in a folder of that code's own."""
    cache = os.path.join(tempfile.gettempdir(), "nimmt-bench-numba", source_digest(root))
    return {**os.environ, "NUMBA_CACHE_DIR": cache}
