"""Files written safely and files read defensively.

Writing: ``check_output_path`` proves, before any work starts, that a path can be written
(it creates and removes a temporary file in the target's folder); ``atomic_write`` writes a
temporary file beside the target and renames it onto the target, so a reader never sees a
half-written file. A symbolic link is written through: the file it points to is replaced and
the link stays a link. Devices, FIFOs, sockets and folders are refused, never replaced.

Reading: ``read_text`` / ``read_json`` read a regular UTF-8 file of bounded size and turn every
failure (a folder, a device, an unreadable or huge file, bytes that are not UTF-8, JSON nested
too deeply) into one ``NimmtError`` line.
"""
from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from .errors import NimmtError

__all__ = ["STDIN", "TEMP_PREFIX", "DuplicateKey", "atomic_write", "atomic_write_text",
           "check_output_path", "loads_strict", "note", "output_target", "partial_path",
           "parse_json", "read_json", "read_stdin", "read_text", "unique_keys"]

TEMP_PREFIX = ".nimmt-"
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _why(e: OSError) -> str:
    return e.strerror or str(e)


def output_target(path: str) -> str:
    """The file that writing ``path`` replaces: symbolic links followed to their end (a
    dangling link's target is created). Raises NimmtError for an empty path, a link loop,
    a folder or a special file (device, FIFO, socket)."""
    if not path or not path.strip():
        raise NimmtError("the output path is empty; give a file name such as out.json")
    if "\0" in path:
        raise NimmtError("the output path contains a NUL character; give a plain file name")
    if path.endswith(("/", os.sep)) or os.path.basename(path) in (".", ".."):
        raise NimmtError(f"output {path} names a folder; give a file name inside it, e.g. "
                         f"{os.path.join(path, 'out.json')}")
    target = os.path.realpath(path)
    if os.path.islink(target):
        raise NimmtError(f"output {path} is a symbolic link that loops; remove the link or "
                         "choose another path")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return target
    except OSError as e:
        raise NimmtError(f"cannot use output {path}: {_why(e)}; choose another path") from None
    if stat.S_ISDIR(st.st_mode):
        raise NimmtError(f"output {path} is a folder; give a file name inside it, e.g. "
                         f"{os.path.join(path, 'out.json')}")
    if not stat.S_ISREG(st.st_mode):
        via = f" (via the link to {target})" if target != os.path.abspath(path) else ""
        raise NimmtError(f"output {path} is {_kind(st.st_mode)}{via}, not a regular file; "
                         "nimmt writes files atomically and never replaces special files: "
                         "give a regular file's path")
    return target


def _folder_of(path: str, target: str) -> str:
    folder = os.path.dirname(target)
    if not os.path.exists(folder):
        raise NimmtError(f"cannot write {path}: folder {folder} does not exist; create it "
                         f"(mkdir -p {folder}) or choose another path")
    if not os.path.isdir(folder):
        raise NimmtError(f"cannot write {path}: {folder} is not a folder; choose another path")
    return folder


def check_output_path(path: str) -> str:
    """Check, before any work, that ``path`` can be written; return the file that will be
    replaced (symbolic links followed). Creates and removes a temporary file in the target's
    folder, so an unwritable folder (read-only, /proc, a full disk's inode table ...) is found
    now, not after the work. Raises NimmtError with one line naming the problem and the fix."""
    target = output_target(path)
    folder = _folder_of(path, target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".check", dir=folder)
    except OSError as e:
        raise NimmtError(f"cannot write {path}: cannot create a file in {folder} ({_why(e)}); "
                         "choose a writable folder") from None
    os.close(fd)
    os.unlink(tmp)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise NimmtError(f"cannot write {path}: folder {folder} is not writable; choose a "
                         "writable folder")
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise NimmtError(f"cannot write {path}: the file is read-only; make it writable "
                         "(chmod u+w) or choose another path")
    return target


def atomic_write(path: str, write: Callable[[str], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside the target, then rename it onto the
    target; on any failure (Ctrl-C included) the temporary file is removed and the target is
    left as it was. A symbolic link is written through (its target is replaced, the link
    stays); special files and folders are refused. OS errors become one NimmtError line."""
    target = output_target(path)
    folder = _folder_of(path, target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=os.path.splitext(target)[1],
                                   dir=folder)
    except OSError as e:
        raise NimmtError(f"cannot write {path}: cannot create a file in {folder} ({_why(e)}); "
                         "choose a writable folder") from None
    try:
        os.close(fd)
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)  # replacing: keep the file's mode
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask  # mkstemp makes 0600; give a new file the usual mode
        os.chmod(tmp, mode)
        write(tmp)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError):
            raise NimmtError(f"cannot write {path}: {_why(e)}; nothing was replaced") from None
        raise


def atomic_write_text(path: str, text: str) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    atomic_write(path, write)


def partial_path(target: str) -> str:
    """Where an incomplete result goes when ``target`` already exists: ``keep.json`` ->
    ``keep.partial.json`` beside it."""
    stem, suffix = os.path.splitext(target)
    return f"{stem}.partial{suffix or '.json'}"


# ---------------------------------------------------------------- reading

def read_text(path: str, what: str, limit: int) -> str:
    """The text of a regular UTF-8 file of at most ``limit`` bytes (a BOM is allowed).
    ``what`` names the file in messages ("position file", "puzzle set")."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise NimmtError(f"cannot read {what} {path}: {_why(e)}; {_read_fix(e)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise NimmtError(f"{what} {path} is a folder; give the path of a JSON file")
    if not stat.S_ISREG(st.st_mode):
        raise NimmtError(f"{what} {path} is {_kind(st.st_mode)}, not a regular file; save it "
                         "to a file and give that file's path")
    if st.st_size > limit:
        raise NimmtError(f"{what} {path} is {_size(st.st_size)}, more than the {_size(limit)} "
                         f"a {what} may have; is it the right file?")
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)  # /proc files report size 0: bound the read itself
    except OSError as e:
        raise NimmtError(f"cannot read {what} {path}: {_why(e)}; {_read_fix(e)}") from None
    if len(raw) > limit:
        raise NimmtError(f"{what} {path} is more than the {_size(limit)} a {what} may have; "
                         "is it the right file?")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NimmtError(f"{what} {path} is not UTF-8 text (byte 0x{raw[e.start]:02x} at "
                         f"offset {e.start}); save it as UTF-8") from None


STDIN = "-"  # a POSITION of "-": read it from standard input
_stdin_read: tuple[object, str] | None = None  # (the stream, its text): read once


def read_stdin(what: str, limit: int) -> str:
    """The UTF-8 text on standard input, at most ``limit`` bytes (a BOM is allowed), with
    ``read_text``'s messages. Read once per stream: a second call (a command that reads the
    argument twice, e.g. to tell a draft position from a bad one) gets the same text."""
    global _stdin_read
    stream = sys.stdin
    if _stdin_read is not None and _stdin_read[0] is stream:
        return _stdin_read[1]
    if stream is None:
        raise NimmtError(f"cannot read {what} from standard input: it is closed; pipe the "
                         "position in (... | nimmt analyse -) or give it as an argument")
    source = getattr(stream, "buffer", stream)
    try:
        raw = source.read(limit + 1)
    except OSError as e:
        raise NimmtError(f"cannot read {what} from standard input: {_why(e)}; pipe the "
                         "position in or give it as an argument") from None
    if isinstance(raw, str):  # a text stream without a buffer (a test's, an IDE's)
        raw = raw.encode("utf-8")
    if len(raw) > limit:
        raise NimmtError(f"{what} on standard input is more than the {_size(limit)} a {what} "
                         "may have; is it the right input?")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NimmtError(f"{what} on standard input is not UTF-8 text (byte "
                         f"0x{raw[e.start]:02x} at offset {e.start}); send it as UTF-8") from None
    _stdin_read = (stream, text)
    return text


class DuplicateKey(ValueError):
    """A JSON object names one key twice (``json`` would keep the last one silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"key {json.dumps(key)} appears twice in one object; keep one of them")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook`` that refuses a key given twice: the notation refuses
    a repeated key, and a JSON object must not silently keep the last of two values."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads_strict(text: str) -> Any:
    """``json.loads`` with every object's keys unique (else ``DuplicateKey``)."""
    return json.loads(text, object_pairs_hook=unique_keys)


def read_json(path: str, what: str, limit: int) -> Any:
    """``read_text`` then JSON; a syntax error, a key given twice in one object or nesting
    too deep is one NimmtError."""
    return parse_json(read_text(path, what, limit), f"{what} {path}")


def parse_json(text: str, source: str) -> Any:
    """JSON from ``text`` (``source`` names it in errors, e.g. "the position on standard
    input"); a syntax error, a key given twice in one object or nesting too deep is one
    NimmtError."""
    try:
        return loads_strict(text)
    except DuplicateKey as e:
        raise NimmtError(f"cannot read {source}: {e}") from None
    except json.JSONDecodeError as e:
        raise NimmtError(f"cannot read {source}: not valid JSON (line {e.lineno}, column "
                         f"{e.colno}): {e.msg}") from None
    except RecursionError:
        raise NimmtError(f"cannot read {source}: its JSON is nested too deeply; is it "
                         "the right file?") from None


def _read_fix(e: OSError) -> str:
    if isinstance(e, FileNotFoundError):
        return "check the path"
    if isinstance(e, PermissionError):
        return "make it readable (chmod u+r) or give another file"
    return "give another file"


def _size(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


_NOTED: set[str] = set()


def note(message: str) -> None:
    """One line on stderr, ``nimmt: note: ...``, at most once per message and process."""
    if message not in _NOTED:
        _NOTED.add(message)
        print(f"nimmt: note: {message}", file=sys.stderr)
