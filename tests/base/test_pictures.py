"""matplotlib is imported in one place, and nimmt works where it cannot be imported (the
commands that draw say there is no picture; see the review, study and board tests)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _sources():
    yield os.path.join(ROOT, "cli.py")
    for top in ("solver", "puzzles"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            yield from (os.path.join(folder, f) for f in files if f.endswith(".py"))


def test_matplotlib_is_imported_in_one_place():
    importers = sorted(os.path.relpath(p, ROOT) for p in _sources()
                       if re.search(r"^\s*(import|from) matplotlib\b", open(p).read(), re.M))
    assert importers == [os.path.join("solver", "base", "pictures.py")]


def test_analyse_and_the_board_s_modules_work_without_matplotlib(compiled_kernels):
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "import nimmt.solver.faces.board, nimmt.solver.faces.boardgame\n"
            "import nimmt.puzzles.studyreport, nimmt.solver.players.review\n"
            "from nimmt.solver.base.pictures import have_pictures\n"
            "assert not have_pictures()\n"
            "from nimmt.cli import main\n"
            "sys.argv = ['nimmt', 'analyse', 'example']\n"
            "main()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "best: 18" in done.stdout
