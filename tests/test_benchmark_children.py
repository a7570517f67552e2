"""The before/after benchmarks run a checkout's code in child processes that import it as
the top-level package ``solver``. numba caches a kernel under its source file and records
the importing module's name: a kernel cached by ``solver.kernels.engine`` and then loaded
by the installed ``nimmt.solver.kernels.engine`` failed with "No module named 'solver'" (a
traceback from any nimmt command after ``benchmarks/nash.py --goal``). So such children
compile into a cache folder of their own (benchmarks/checkouts.py), and the benchmarks' own process
imports ``nimmt.solver`` only."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _benchmark_module(name: str):
    """A module of benchmarks/ loaded from its file: putting benchmarks/ on sys.path would
    hand it to every process this test process starts (multiprocessing's spawn copies
    sys.path), where a script's name could stand for a package of the same name."""
    spec = importlib.util.spec_from_file_location(f"_benchmarks_{name}",
                                                  ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_checkouts = _benchmark_module("checkouts")
checkout_env, source_digest = _checkouts.checkout_env, _checkouts.source_digest


def test_child_cache_folder_follows_the_sources(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT / "solver", copy / "solver",
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = checkout_env(str(copy))["NUMBA_CACHE_DIR"]
    assert before != os.environ.get("NUMBA_CACHE_DIR") and source_digest(str(copy)) in before
    assert checkout_env(str(copy))["NUMBA_CACHE_DIR"] == before  # the same code: the same
    table = copy / "solver" / "kernels" / "table.py"
    table.write_text(table.read_text() + "\n# an edit\n")
    assert checkout_env(str(copy))["NUMBA_CACHE_DIR"] != before


def test_every_child_importing_solver_gets_its_own_cache():
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        text = script.read_text()
        if "CHILD_PRELUDE +" in text or "import solver" in text:
            assert "env=checkout_env(" in text, f"{script.name}: a child without its cache"


def test_nimmt_still_loads_its_kernels_after_a_benchmark_plan():
    plan = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "nash.py"), "--goal", "4",
                           "--plan-only"], capture_output=True, text=True, cwd=ROOT)
    assert plan.returncode == 0 and "k=4, seed 10" in plan.stdout, plan.stderr
    after = subprocess.run([sys.executable, "-c",
                            "from nimmt.solver.search.game import deal_position\n"
                            "from nimmt.solver.base.rules import Rules\n"
                            "print(deal_position(Rules('tactical', 2), 4, seed=10).cards_left)"],
                           capture_output=True, text=True, cwd=ROOT)
    assert after.returncode == 0 and after.stdout.strip() == "4", after.stderr


def test_no_benchmark_script_shadows_an_importable_module():
    """``python benchmarks/X.py`` puts benchmarks/ first on sys.path: a script named like a
    package (benchmarks/distributed.py once did, for dask's) is imported in its place, by
    the script itself and by every process started from it."""
    # the checkout's own folders are not installed under their names (they are nimmt.*);
    # ``python -m pytest`` puts the working directory on sys.path, which would find them,
    # and pytest puts the test folders there (a benchmark's process never sees them)
    tests = (ROOT / "tests").resolve()
    installed = [p for p in sys.path
                 if p and Path(p).resolve() not in (ROOT.resolve(), Path.cwd().resolve())
                 and not Path(p).resolve().is_relative_to(tests)]
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        found = (importlib.util.find_spec(script.stem) if script.stem in sys.builtin_module_names
                 else importlib.machinery.PathFinder.find_spec(script.stem, installed))
        origin = getattr(found, "origin", None)
        assert found is None or (origin and Path(origin).parent == ROOT / "benchmarks"), \
            f"benchmarks/{script.name} shadows the module {script.stem} ({origin})"


def test_the_hidden_hands_benchmark_resumes_without_playing_a_deal_twice(tmp_path):
    """benchmarks/hidden.py keeps each finished piece of deals; run again with more deals
    it plays only the missing ones (a torn last line and a deal short of its rotations
    are played again), and its table holds every deal once."""
    check_hidden_hands_resume(tmp_path, third_run=False)


@pytest.mark.slow
def test_the_hidden_hands_benchmark_with_every_deal_kept_plays_none(tmp_path):
    """As above, and a third run of the same command finds nothing left to play and prints
    the same table (one more run of the benchmark: with the slow checks)."""
    check_hidden_hands_resume(tmp_path, third_run=True)


def check_hidden_hands_resume(tmp_path: Path, third_run: bool) -> None:
    run = [sys.executable, str(ROOT / "benchmarks" / "hidden.py"), "--table", "careful;closest",
           "--variant", "tactical", "--players", "2", "--piece", "2", "--workers", "1",
           "--checkpoint", str(tmp_path)]
    first = subprocess.run([*run, "--deals", "3"], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    (saved,) = tmp_path.iterdir()
    lines = saved.read_text().splitlines()
    assert len(lines) == 6  # 3 deals, 2 rotations each
    saved.write_text("\n".join(lines[:-1]) + '\n{"deal": 2, "rot')  # deal 2 torn
    second = subprocess.run([*run, "--deals", "4"], capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert "deals 2..3" in second.stderr and "deals 0..1" not in second.stderr
    assert "4 duplicate deals (8 games)" in second.stdout
    assert "| careful " in second.stdout and "(reference)" in second.stdout
    # the torn line cut; deal 2's lone rotation stays, superseded by the replay of deal 2
    assert len(saved.read_text().splitlines()) == 5 + 4
    if third_run:
        third = subprocess.run([*run, "--deals", "4"], capture_output=True, text=True)
        assert third.returncode == 0 and "deals" not in third.stderr  # nothing left to play
        assert third.stdout == second.stdout
    # --pool reads the table back: its difference as the table printed it, over 4 deals;
    # the same table twice pools 8 deals with the same mean
    (closest,) = [line for line in second.stdout.splitlines() if line.startswith("| closest")]
    diff = closest.split("|")[4].strip()
    pooled = subprocess.run([*run[:2], "--pool", str(saved), f"{saved}:1"],
                            capture_output=True, text=True)
    assert pooled.returncode == 0, pooled.stderr
    rows = [[cell.strip() for cell in line.split("|")[1:-1]]
            for line in pooled.stdout.splitlines()[2:]]
    assert rows[0][2:4] == ["4", diff] and rows[1][2:4] == ["4", diff]
    assert rows[2][0] == "pooled" and rows[2][2] == "8"
    assert rows[2][3].split(" [")[0] == diff.split(" [")[0]
