"""Where numba caches the compiled kernels, decided before the first kernel is defined.

numba looks for a writable cache folder in this order: ``$NUMBA_CACHE_DIR``, ``__pycache__``
beside the source, then the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``, ``/numba``);
with none writable (a read-only site-packages and a read-only home) every ``cache=True``
function fails with "cannot cache function ...: no locator available". ``configure`` checks the
same folders the same way (create it, create a temporary file in it); when none is writable it
points ``NUMBA_CACHE_DIR`` at a private folder under the temporary directory
(``nimmt-numba-cache-<uid>``, mode 0700, owned by the user), or, when that is impossible too,
turns caching off. Either way it says so in one line on stderr, once a run (worker processes
inherit NOTED). The private folder's note is shown once for that folder: a marker file in it
(NOTED_MARKER) says it was, and later runs that find it stay quiet, since only the first
run pays for the compilation. Compiling on every run is said on every run: it costs minutes
each time, which the user can end by setting NUMBA_CACHE_DIR.
"""
from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import MutableMapping
from typing import Any

__all__ = ["NOTED_MARKER", "configure", "numba_candidates", "private_folder"]

NOTED = "NIMMT_NUMBA_CACHE_NOTED"  # set once the notice is shown; worker processes inherit it
NOTED_MARKER = ".nimmt-fallback-noted"  # in the private folder once its note was shown


def _writable(folder: str) -> bool:
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def _subpath(source_dir: str) -> str:
    """numba's folder name for a source folder inside a cache folder."""
    return "_".join([os.path.basename(source_dir), hashlib.sha1(source_dir.encode()).hexdigest()])


def numba_candidates(source_dir: str, environ: MutableMapping[str, str]) -> list[str]:
    """The folders numba would try, in its order."""
    folders = []
    if environ.get("NUMBA_CACHE_DIR"):
        folders.append(os.path.join(environ["NUMBA_CACHE_DIR"], _subpath(source_dir)))
    folders.append(os.path.join(source_dir, "__pycache__"))
    home = environ.get("HOME")
    user = environ.get("XDG_CACHE_HOME") or (os.path.join(home, ".cache") if home
                                            else os.path.expanduser("~/.cache"))
    folders.append(os.path.join(user, "numba", _subpath(source_dir)))
    return folders


def private_folder(root: str) -> str | None:
    """``root/nimmt-numba-cache-<uid>``, created 0700; None unless it is a real folder owned
    by this user that nobody else may write (numba's cache holds pickles: a folder another
    user controls must not be trusted) and that can be written."""
    folder = os.path.join(root, f"nimmt-numba-cache-{os.geteuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return None
    return folder if _writable(folder) else None


def configure(source_dir: str | None = None, environ: MutableMapping[str, str] | None = None,
              temp_root: str | None = None) -> bool:
    """Make sure numba has a writable cache folder; return False when kernels must be
    compiled uncached. Call before the first ``njit(cache=True)``."""
    source_dir = os.path.dirname(os.path.abspath(__file__)) if source_dir is None else source_dir
    environ = os.environ if environ is None else environ
    tried = numba_candidates(source_dir, environ)
    if any(_writable(f) for f in tried):
        return True
    where = " or ".join(os.path.dirname(f) if f.endswith(_subpath(source_dir)) else f
                        for f in tried)
    try:
        root = tempfile.gettempdir() if temp_root is None else temp_root
    except OSError:  # no usable temporary folder at all
        root = None
    folder = private_folder(root) if root else None
    if folder is not None:
        environ["NUMBA_CACHE_DIR"] = folder
        config: Any = sys.modules.get("numba.core.config")  # a module: attributes unknown
        if config is not None:  # numba already imported: it read the environment then
            config.CACHE_DIR = folder
        marker = os.path.join(folder, NOTED_MARKER)
        if not os.path.exists(marker):  # said once for this folder, not on every run
            _notice(f"numba cannot write its cache in {where}; compiled kernels are cached "
                    f"in {folder} instead (set NUMBA_CACHE_DIR to choose)", environ)
            try:
                with open(marker, "w", encoding="utf-8") as f:
                    f.write("nimmt said once that numba's kernels are cached here\n")
            except OSError:  # the note comes again next run: harmless
                pass
        return True
    _notice(f"numba cannot write its cache in {where} nor in a private temporary folder; "
            "kernels are compiled on every run (a minute or two): set NUMBA_CACHE_DIR to a "
            "writable folder", environ)
    return False


def _notice(message: str, environ: MutableMapping[str, str]) -> None:
    if not environ.get(NOTED):
        environ[NOTED] = "1"
        print(f"nimmt: note: {message}", file=sys.stderr)
