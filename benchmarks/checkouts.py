"""Running a checkout's code in a child process, for the before/after benchmarks.

A before/after benchmark runs each side in its own process that imports the checkout's
``solver`` folder as the top-level package ``solver`` (an old checkout is not installed).
numba keys its on-disk cache on the source file, not on the module's name, and records the
module name in what it caches: a kernel cached by ``solver.kernels.engine`` and then loaded
by the installed ``nimmt.solver.kernels.engine`` fails with "No module named 'solver'". So
every such child compiles into a cache folder of its own (``checkout_env``), keyed on a
digest of the checkout's solver sources: numba checks only a kernel's own file, not the files of the
kernels it inlines, so a folder kept across edits could also serve stale code.

Checkouts come in two layouts: the layers' folders (``solver/search/exact.py``) and the flat
folder of older code (``solver/exact.py``); ``checkout_module`` and ``module_path`` find a
module in either, so a benchmark can compare code across the move. A child process gets
them by ``CHILD_PRELUDE`` (this folder appended to its path, ``module`` bound).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import tempfile
from types import ModuleType

__all__ = ["CHILD_PRELUDE", "LAYER_FOLDERS", "checkout_env", "checkout_module", "load_package",
           "module_path", "source_digest"]

LAYER_FOLDERS = ("base", "kernels", "positions", "search", "players", "faces")
HERE = os.path.dirname(os.path.abspath(__file__))
# the first lines of a child's code: ``module(package, name)`` finds a module in either layout
CHILD_PRELUDE = (f"import sys; sys.path.append({HERE!r}); "
                 "from checkouts import checkout_module as module\n")


def module_path(root: str, name: str) -> str:
    """The file of the solver module ``name`` in the checkout ``root`` (either layout)."""
    for folder in LAYER_FOLDERS:
        path = os.path.join(root, "solver", folder, f"{name}.py")
        if os.path.exists(path):
            return path
    return os.path.join(root, "solver", f"{name}.py")


def checkout_module(package: str, name: str) -> ModuleType:
    """The module ``name`` of the imported package ``package`` (``solver``, or another
    checkout's package loaded by ``load_package``), in either layout."""
    root = os.path.dirname(os.path.abspath(importlib.import_module(package).__file__ or ""))
    for folder in LAYER_FOLDERS:
        if os.path.exists(os.path.join(root, folder, f"{name}.py")):
            return importlib.import_module(f"{package}.{folder}.{name}")
    return importlib.import_module(f"{package}.{name}")


def load_package(root: str, name: str) -> ModuleType:
    """Another checkout's ``solver`` package, imported under ``name`` (its kernels cache
    beside its own files), so that both run in one process."""
    init = os.path.join(os.path.abspath(root), "solver", "__init__.py")
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[os.path.dirname(init)])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    return package


def source_digest(root: str) -> str:
    """A digest of the checkout's path and its solver sources (12 hex digits)."""
    root = os.path.abspath(root)
    digest = hashlib.sha1(root.encode())
    folder = os.path.join(root, "solver")
    for current, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(current, name), "rb") as source:
                    relative = os.path.relpath(os.path.join(current, name), folder)
                    digest.update(relative.encode() + source.read())
    return digest.hexdigest()[:12]


def checkout_env(root: str) -> dict[str, str]:
    """The environment for a child importing ``root``'s code as ``solver``: this one, with
    numba's cache in a folder of that code's own."""
    cache = os.path.join(tempfile.gettempdir(), "nimmt-bench-numba", source_digest(root))
    return {**os.environ, "NUMBA_CACHE_DIR": cache}
