"""Writing files so that nothing half-written is ever left behind."""
from __future__ import annotations

import os
import tempfile
from typing import Callable

from .rules import NimmtError


def atomic_write(path: str, write: Callable[[str], None]) -> None:
    """Call ``write(tmp)`` on a temporary file in the target folder, then rename it to
    ``path``; on any failure (Ctrl-C included) the temporary file is removed."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise NimmtError(f"folder {folder} does not exist; create it or choose another path")
    fd, tmp = tempfile.mkstemp(prefix=".nimmt-", suffix=os.path.splitext(path)[1], dir=folder)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual mode
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str, text: str) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    atomic_write(path, write)
