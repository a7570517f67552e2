"""The checkout stays clean under ruff and mypy (both configured in pyproject.toml).

mypy sees the checkout's folders under their installed names (nimmt.cli, nimmt.solver,
nimmt.puzzles) through a symlink ``nimmt`` -> the checkout, built in pytest's tmp_path.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _shown(result) -> str:
    return f"exit status {result.returncode}\n{result.stdout}{result.stderr}"


def test_ruff_is_clean():
    result = _run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], cwd=ROOT)
    assert result.returncode == 0, _shown(result)


def test_mypy_is_clean(tmp_path):
    (tmp_path / "nimmt").symlink_to(ROOT, target_is_directory=True)
    env = {**os.environ, "MYPYPATH": str(tmp_path)}
    result = _run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                   "--cache-dir", str(tmp_path / ".mypy_cache"),
                   "-p", "nimmt.solver", "-p", "nimmt.puzzles", "-m", "nimmt.cli"],
                  cwd=tmp_path, env=env)
    assert result.returncode == 0, _shown(result)
