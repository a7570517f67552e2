"""The before/after benchmarks run a checkout's code in child processes that import it as
the top-level package ``solver``. numba caches a kernel under its source file and records
the importing module's name: a kernel cached by ``solver.engine`` and then loaded by the
installed ``nimmt.solver.engine`` failed with "No module named 'solver'" (a traceback from
any nimmt command after ``benchmarks/nash.py --goal``). So such children compile into a
cache folder of their own (benchmarks/checkouts.py), and the benchmarks' own process
imports ``nimmt.solver`` only."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from checkouts import checkout_env, source_digest  # noqa: E402


def test_child_cache_folder_follows_the_sources(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT / "solver", copy / "solver",
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = checkout_env(str(copy))["NUMBA_CACHE_DIR"]
    assert before != os.environ.get("NUMBA_CACHE_DIR") and source_digest(str(copy)) in before
    assert checkout_env(str(copy))["NUMBA_CACHE_DIR"] == before  # the same code: the same
    table = copy / "solver" / "table.py"
    table.write_text(table.read_text() + "\n# an edit\n")
    assert checkout_env(str(copy))["NUMBA_CACHE_DIR"] != before


def test_every_child_importing_solver_gets_its_own_cache():
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        text = script.read_text()
        if "from solver." in text or "import solver" in text:
            assert "env=checkout_env(" in text, f"{script.name}: a child without its cache"


def test_nimmt_still_loads_its_kernels_after_a_benchmark_plan():
    plan = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "nash.py"), "--goal", "4",
                           "--plan-only"], capture_output=True, text=True, cwd=ROOT)
    assert plan.returncode == 0 and "k=4, seed 10" in plan.stdout, plan.stderr
    after = subprocess.run([sys.executable, "-c",
                            "from nimmt.solver.game import deal_position\n"
                            "from nimmt.solver.rules import Rules\n"
                            "print(deal_position(Rules('tactical', 2), 4, seed=10).cards_left)"],
                           capture_output=True, text=True, cwd=ROOT)
    assert after.returncode == 0 and after.stdout.strip() == "4", after.stderr
