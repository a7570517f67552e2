"""Hostile files: output paths, interrupted puzzle generation, files read, and
numba's cache when nothing beside the package or in the home folder can be written.

Every bad case is one line on stderr and exit status 2 (130 after Ctrl-C), and no file is
replaced or left half-written. The tests run as root too (as CI does): an unwritable folder
is /proc there, where even root cannot create a file."""
from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nimmt.puzzles import files
from nimmt.puzzles.records import PuzzleSet
from nimmt.solver.base import fileio
from nimmt.solver.base.rules import NimmtError
from nimmt.solver.kernels import kernel_cache

from cli_checks import assert_ok, assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

ROOT = Path(__file__).resolve().parents[2]
SET = "two-player-endgames"
EXPORT = ("puzzles", "export", SET, "--format", "markdown")
GENERATE = ("puzzles", "generate", "--players", "2", "--cards-left", "3", "--count", "2",
            "--seed", "3")


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(fileio.TEMP_PREFIX)]


@pytest.fixture
def no_generation(monkeypatch):
    """Fails the test if puzzle generation starts (the output must be refused first)."""
    import nimmt.puzzles.core  # noqa: F401
    from nimmt import puzzles

    calls = []
    monkeypatch.setattr(puzzles.core, "generate", lambda *a, **k: calls.append(a) or ([], 0))
    yield calls
    assert calls == [], "generation started before the output path was checked"


def export_text(runner) -> str:
    result = invoke(runner, *EXPORT)
    assert_ok(result)
    return result.output


# ---------------------------------------------------------------- special files and links

def test_a_device_is_refused_and_left_a_device(runner):
    result = invoke(runner, "puzzles", "export", SET, "--format", "html", "--output", "/dev/full")
    line = assert_one_line_error(result)
    assert "/dev/full" in line and "device" in line
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_fifo_is_refused_and_left_a_fifo(runner, tmp_path):
    fifo = tmp_path / "out.md"
    os.mkfifo(fifo)
    line = assert_one_line_error(invoke(runner, *EXPORT, "--output", fifo))
    assert "FIFO" in line
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


def test_a_link_to_a_device_is_refused(runner, tmp_path):
    link = tmp_path / "null.md"
    link.symlink_to("/dev/null")
    assert "device" in assert_one_line_error(invoke(runner, *EXPORT, "--output", link))
    assert link.is_symlink() and os.readlink(link) == "/dev/null"


def test_a_symlink_is_written_through_and_stays_a_link(runner, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "real.md"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(target)
    assert_ok(invoke(runner, *EXPORT, "--output", link))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") + "\n" == export_text(runner)  # echo adds one
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # a replaced file keeps its mode
    assert leftovers(tmp_path) == [] and leftovers(elsewhere) == []


def test_a_dangling_symlink_creates_its_target(runner, tmp_path):
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "new.md")
    assert_ok(invoke(runner, *EXPORT, "--output", link))
    assert link.is_symlink() and (tmp_path / "new.md").read_text(encoding="utf-8")


def test_a_symlink_loop_is_refused(runner, tmp_path):
    (tmp_path / "a.md").symlink_to(tmp_path / "b.md")
    (tmp_path / "b.md").symlink_to(tmp_path / "a.md")
    assert "loop" in assert_one_line_error(invoke(runner, *EXPORT, "--output", tmp_path / "a.md"))
    assert (tmp_path / "a.md").is_symlink() and (tmp_path / "b.md").is_symlink()


def test_dash_is_standard_output_for_export_only(runner, tmp_path, no_generation):
    result = invoke(runner, *EXPORT, "--output", "-")
    assert_ok(result)
    assert result.output == export_text(runner)
    assert "standard output" in assert_one_line_error(
        invoke(runner, "tree", "example", "--depth", "1", "--output", "-"))
    assert "standard output" in assert_one_line_error(invoke(runner, *GENERATE, "--output", "-"))
    assert not (tmp_path / "-").exists() and not Path("-").exists()


# ---------------------------------------------------------------- unwritable and odd paths

def bad_paths(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (path, a word the message must hold)."""
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    (tmp_path / "a-folder").mkdir()
    return {"proc": ("/proc/x.graphml", "/proc"),
            "empty": ("", "empty"),
            "missing folder": (str(tmp_path / "nope" / "x.graphml"), "mkdir -p"),
            "a folder": (str(tmp_path / "a-folder"), "folder"),
            "trailing slash": (str(tmp_path / "new") + "/", "folder"),
            "under a file": (str(tmp_path / "a-file" / "x.graphml"), "a-file"),
            "long name": (str(tmp_path / ("x" * 300 + ".graphml")), "too long")}


@pytest.mark.parametrize("case", ["proc", "empty", "missing folder", "a folder",
                                  "trailing slash", "under a file", "long name"])
def test_tree_refuses_an_unwritable_output_in_one_line(runner, tmp_path, case, monkeypatch):
    import nimmt.solver.search.tree  # noqa: F401
    from nimmt import solver

    path, word = bad_paths(tmp_path)[case]
    monkeypatch.setattr(solver.search.tree, "build_tree",
                        lambda *a, **k: pytest.fail("built a tree"))
    line = assert_one_line_error(invoke(runner, "tree", "example", "--depth", "1",
                                        "--output", path))
    assert word in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "a-folder"]


@pytest.mark.parametrize("case", ["proc", "empty", "missing folder", "a folder"])
def test_generate_checks_its_output_before_generating(runner, tmp_path, case, no_generation):
    path, word = bad_paths(tmp_path)[case]
    line = assert_one_line_error(invoke(runner, *GENERATE, "--output", path.replace(
        ".graphml", ".json")))
    assert word in line, line


def test_export_refuses_proc_and_empty(runner):
    assert "/proc" in assert_one_line_error(invoke(runner, *EXPORT, "--output", "/proc/x.md"))
    assert "empty" in assert_one_line_error(invoke(runner, *EXPORT, "--output", ""))


def test_check_output_path_proves_the_folder_takes_a_file(tmp_path):
    assert fileio.check_output_path(str(tmp_path / "x.json")) == str(tmp_path / "x.json")
    assert list(tmp_path.iterdir()) == []  # its probe file is gone
    with pytest.raises(NimmtError, match="cannot create a file in /proc"):
        fileio.check_output_path("/proc/x.json")  # not writable, root included


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only folder")
def test_a_read_only_folder_and_file_as_a_normal_user(runner, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "old.md").write_text("old", encoding="utf-8")
    (tmp_path / "ro-file.md").write_text("old", encoding="utf-8")
    (tmp_path / "ro-file.md").chmod(0o444)
    folder.chmod(0o555)
    try:
        assert "cannot create a file" in assert_one_line_error(
            invoke(runner, *EXPORT, "--output", folder / "old.md"))
        assert "read-only" in assert_one_line_error(
            invoke(runner, *EXPORT, "--output", tmp_path / "ro-file.md"))
    finally:
        folder.chmod(0o755)
    assert (folder / "old.md").read_text(encoding="utf-8") == "old"


def read_only_mount_works() -> bool:
    """A private mount namespace with a read-only bind mount: a folder nobody, root
    included, can write (the normal user's read-only folder, testable as root)."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind -o ro /tmp /tmp"],
                           capture_output=True)
    return probe.returncode == 0


def run_with_read_only(folder: Path, *args: str) -> subprocess.CompletedProcess:
    script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder),
                           sys.executable, "-c", "from nimmt import cli; cli.main()", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not read_only_mount_works(), reason="needs unshare and mount rights")
def test_a_read_only_folder_is_refused_before_any_work(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "old.md").write_text("old", encoding="utf-8")
    for args in [(*EXPORT, "--output", str(folder / "old.md")),
                 ("puzzles", "generate", "--players", "2", "--cards-left", "6", "--count",
                  "10000", "--output", str(folder / "new.json")),
                 ("tree", "example", "--output", str(folder / "t.graphml"))]:
        start = time.monotonic()
        result = run_with_read_only(folder, *args)
        assert time.monotonic() - start < 30  # refused at once, not after generating
        assert result.returncode == 2 and result.stdout == "", result
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("nimmt: error:"), result.stderr
        assert "Read-only file system" in lines[0] and str(folder) in lines[0]
    assert sorted(p.name for p in folder.iterdir()) == ["old.md"]
    assert (folder / "old.md").read_text(encoding="utf-8") == "old"


def test_a_failed_or_interrupted_write_leaves_the_target_as_it_was(tmp_path):
    target = tmp_path / "keep.json"
    target.write_text("old", encoding="utf-8")

    def fail(error):
        def write(tmp):
            Path(tmp).write_text("half", encoding="utf-8")
            raise error
        return write

    with pytest.raises(NimmtError, match="No space left"):
        fileio.atomic_write(str(target), fail(OSError(28, "No space left on device")))
    with pytest.raises(KeyboardInterrupt):
        fileio.atomic_write(str(target), fail(KeyboardInterrupt()))
    assert target.read_text(encoding="utf-8") == "old"
    assert leftovers(tmp_path) == []


# ---------------------------------------------------------------- interrupted generate

# Runs the real CLI; the only addition is a marker file made once a puzzle has been kept, so
# that the test interrupts a run that is generating (not one still importing).
WRAPPER = r"""
import sys
import nimmt.puzzles.core as core

marker = sys.argv.pop(1)
real = core.generate

def generate(settings, count, **kw):
    shown = kw.get("progress")

    def progress(kept, tried):
        if kept:
            open(marker, "a").close()
        if shown:
            shown(kept, tried)
    kw["progress"] = progress
    return real(settings, count, **kw)

core.generate = generate
from nimmt import cli

sys.argv[0] = "nimmt"
cli.main()
"""


def interrupt_generate(tmp_path: Path, output: Path, workers: int = 1):
    marker = tmp_path / "generating"
    args = [sys.executable, "-c", WRAPPER, str(marker), "puzzles", "generate", "--players", "2",
            "--cards-left", "3", "--count", "10000", "--seed", "11", "--workers", str(workers),
            "--output", str(output)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 240  # a cold numba cache compiles first
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), proc.communicate(timeout=30) if proc.poll() is not None \
            else "no puzzle kept in time"
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole process group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, out, err


def ten_puzzle_set() -> dict:
    data = files.load_set(SET).to_json()
    return {**data, "puzzles": data["puzzles"][:10]}


def assert_interrupted(code: int, out: str, err: str) -> str:
    assert code == 130, (code, out, err)
    assert "Traceback" not in err and out == ""
    # a first use's compile notice may come first (the kernels' cache may be cold)
    lines = [line for line in err.splitlines() if not line.startswith("nimmt: compiling")]
    assert len(lines) == 1 and lines[0].startswith("nimmt: interrupted"), err
    return lines[0]


def assert_incomplete(path: Path) -> PuzzleSet:
    data = files.load_set(str(path))
    assert data.complete is False and data.note is not None and "incomplete" in data.note
    assert 1 <= len(data.puzzles) < 10000 and data.stats is not None \
        and data.stats.kept == len(data.puzzles)
    return data


def test_ctrl_c_never_replaces_an_existing_set(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    keep = folder / "keep.json"
    keep.write_text(json.dumps(ten_puzzle_set(), indent=1), encoding="utf-8")
    before = keep.read_bytes()
    line = assert_interrupted(*interrupt_generate(tmp_path, keep))
    assert keep.read_bytes() == before and len(files.load_set(str(keep)).puzzles) == 10
    partial = folder / "keep.partial.json"
    assert str(partial) in line and "left as it was" in line and "incomplete" in line
    assert_incomplete(partial)
    assert sorted(p.name for p in folder.iterdir()) == ["keep.json", "keep.partial.json"]


def test_ctrl_c_with_workers_writes_a_new_file_marked_incomplete(tmp_path):
    out = tmp_path / "new.json"
    line = assert_interrupted(*interrupt_generate(tmp_path, out, workers=2))
    assert str(out) in line and "left as it was" not in line
    assert_incomplete(out)
    assert leftovers(tmp_path) == []


def test_a_finished_set_says_it_is_complete(runner, tmp_path):
    out = tmp_path / "done.json"
    assert_ok(invoke(runner, *GENERATE, "--output", out))
    assert files.load_set(str(out)).complete is True


# ---------------------------------------------------------------- files read

def hostile_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (a .json path, a word the message must hold)."""
    (tmp_path / "latin1.json").write_bytes('{"players": 2, "hand": "é"}'.encode("latin-1"))
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with open(tmp_path / "huge.json", "wb") as f:
        f.truncate(3 * 2**30)  # sparse: no disk used
    (tmp_path / "folder.json").mkdir()
    os.mkfifo(tmp_path / "fifo.json")  # opening it would block for ever
    (tmp_path / "mem.json").symlink_to("/proc/self/mem")  # unreadable, root included
    return {"not utf-8": (tmp_path / "latin1.json", "UTF-8"),
            "deep": (tmp_path / "deep.json", "nested too deeply"),
            "huge": (tmp_path / "huge.json", "3 GiB"),
            "folder": (tmp_path / "folder.json", "folder"),
            "fifo": (tmp_path / "fifo.json", "FIFO"),
            "unreadable": (tmp_path / "mem.json", "cannot read")}


CASES = ["not utf-8", "deep", "huge", "folder", "fifo", "unreadable"]


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_position_file_is_one_line(runner, tmp_path, case):
    path, word = hostile_inputs(tmp_path)[case]
    assert word in assert_one_line_error(invoke(runner, "show", path))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", [("list",), ("show",), ("check",),
                                     ("export", "--format", "html")], ids=lambda c: c[0])
def test_a_hostile_puzzle_file_is_one_line(runner, tmp_path, case, command):
    path, word = hostile_inputs(tmp_path)[case]
    assert word in assert_one_line_error(invoke(runner, "puzzles", command[0], path,
                                                *command[1:]))


def test_a_folder_without_suffix_is_not_read_as_a_position(runner, tmp_path):
    (tmp_path / "pos").mkdir()
    assert "folder" in assert_one_line_error(invoke(runner, "show", tmp_path / "pos"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_as_a_normal_user(runner, tmp_path):
    path = tmp_path / "secret.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0)
    assert "chmod u+r" in assert_one_line_error(invoke(runner, "show", path))
    assert "chmod u+r" in assert_one_line_error(invoke(runner, "puzzles", "list", path))


# ---------------------------------------------------------------- shipped names vs local files

@pytest.mark.parametrize("local", [SET, SET + ".json"])
def test_a_shipped_name_wins_over_a_local_file_and_says_so(runner, tmp_path, monkeypatch, local):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(fileio, "_NOTED", set())
    mine = {**ten_puzzle_set(), "puzzles": ten_puzzle_set()["puzzles"][:2]}
    (tmp_path / local).write_text(json.dumps(mine), encoding="utf-8")
    shipped = invoke(runner, "puzzles", "list", SET)
    assert shipped.exit_code == 0
    assert len(shipped.stdout.splitlines()) == 2 + len(files.load_set(SET).puzzles)
    note = shipped.stderr.splitlines()
    assert len(note) == 1 and note[0].startswith("nimmt: note:") and f"./{local}" in note[0]
    local_run = invoke(runner, "puzzles", "list", f"./{local}")
    assert_ok(local_run)
    assert len(local_run.stdout.splitlines()) == 2 + 2


def test_an_example_name_wins_over_a_local_file_and_says_so(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(fileio, "_NOTED", set())
    (tmp_path / "example").write_text("{}", encoding="utf-8")
    result = invoke(runner, "show", "example")
    assert result.exit_code == 0 and "5 cards left" in result.output
    assert result.stderr.count("\n") == 1 and "./example" in result.stderr
    assert "players" in assert_one_line_error(invoke(runner, "show", "./example"))


# ---------------------------------------------------------------- numba's cache

def read_only_copy(tmp_path: Path) -> Path:
    """The package copied with every ``__pycache__`` a plain file: numba cannot cache beside
    it (even as root, since a folder cannot be made where a file is)."""
    copy = tmp_path / "pkg"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("solver", "puzzles"):
        shutil.copytree(ROOT / name, copy / "nimmt" / name, ignore=ignore)
        for init in (copy / "nimmt" / name).rglob("__init__.py"):  # every package folder
            (init.parent / "__pycache__").write_text("not a folder", encoding="utf-8")
    shutil.copy(ROOT / "cli.py", copy / "nimmt" / "cli.py")
    return copy


def run_copy(copy: Path, tmp: Path, *args: str, code: str = "from nimmt import cli; cli.main()"):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", kernel_cache.NOTED)}
    env.update(HOME="/proc/no-home", TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=120)


def test_numba_falls_back_to_a_private_temporary_cache(tmp_path):
    copy, tmp = read_only_copy(tmp_path), tmp_path / "tmp"
    tmp.mkdir()
    result = run_copy(copy, tmp, *EXPORT)
    assert result.returncode == 0, result.stderr
    assert "cannot cache" not in result.stderr and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nimmt: note:"), result.stderr
    cache = tmp / f"nimmt-numba-cache-{os.geteuid()}"
    assert str(cache) in lines[0] and stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert result.stdout.startswith("#")
    probe = run_copy(copy, tmp, code="import nimmt.solver.kernels.engine as e, "
                                     "numba.core.config as c; "
                                     "print(e.CACHE, c.CACHE_DIR, e.__file__)")
    assert probe.stdout.split() == ["True", str(cache),
                                    str(copy / "nimmt/solver/kernels/engine.py")], \
        probe.stderr  # the copy's kernels, not the installed ones


@pytest.mark.parametrize("planted", [pytest.param("file", marks=pytest.mark.slow),  # -m slow
                                     "open folder"])
def test_numba_runs_uncached_when_no_safe_folder_exists(tmp_path, planted):
    copy, tmp = read_only_copy(tmp_path), tmp_path / "tmp"
    tmp.mkdir()
    cache = tmp / f"nimmt-numba-cache-{os.geteuid()}"
    if planted == "file":
        cache.write_text("x", encoding="utf-8")
    else:  # a folder others may write (its pickles could be planted): not trusted
        cache.mkdir()
        cache.chmod(0o777)
    result = run_copy(copy, tmp, code="import nimmt.solver.kernels.engine as e; "
                                      "import numpy as np; print(e.CACHE, e.rng_seed(7, 1) != 0)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "compiled on every run" in lines[0], result.stderr
    assert not any(cache.iterdir()) if cache.is_dir() else cache.read_text() == "x"


def test_numba_cache_is_left_alone_when_a_numba_folder_works(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    environ = {"NUMBA_CACHE_DIR": "/proc/nowhere", "HOME": "/proc/no-home"}
    assert kernel_cache.configure(str(source), environ, str(tmp_path)) is True
    assert environ == {"NUMBA_CACHE_DIR": "/proc/nowhere", "HOME": "/proc/no-home"}
    assert (source / "__pycache__").is_dir()  # numba's own first choice works
