"""First use from an empty numba cache: each main command's first run, in order, for this
checkout and (``--old DIR``) another one, side by side in one run; with ``--install`` also
``pip install . && nimmt analyse example`` in a new virtual environment, the new user's
first command.

    python benchmarks/compile.py [--old DIR] [--install] [--only NAME ...]

Each side runs its commands one after another in child processes, sharing one empty cache
folder of its own (``NUMBA_CACHE_DIR``), so a command pays only for the kernels the earlier
ones did not compile: the sum is the whole first-use cost. The figures are wall seconds and
CPU seconds (user + system of the child); CPU seconds hardly move with other work on the
machine, wall seconds do. A checkout is run as the package ``nimmt`` through a folder
holding a link to it (an old checkout need not be installed). ``answer`` is the method line
of ``analyse example``: on a first run it must be exact (a compile is not search time).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from tabulate import tabulate

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# The main commands, each a first use: name, arguments
COMMANDS = [
    ("analyse example", ("analyse", "example")),
    ("Monte Carlo", ("analyse", "example-standard", "--samples", "200", "--seed", "1")),
    ("nash", ("analyse", "example", "--opponents", "nash")),
    ("simulate", ("simulate", "-n", "4", "--games", "2", "--seed", "1")),
    ("deal", ("deal", "-n", "2", "--seed", "1")),
    ("search bots", ("arena", "-n", "3", "--bots", "expecti:samples=4,mcs:playouts=4,"
                     "ismcts:iterations=8", "--deals", "1", "--one-round", "--seed", "1")),
    ("draft", ("analyse", "example-draft", "--samples", "8", "--seed", "1")),
]


def run_timed(argv: list[str], env: dict[str, str], cwd: str | None = None
              ) -> tuple[float, float, str, int]:
    """Wall seconds, CPU seconds (user + system), stdout, exit status of one child."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             env=env, cwd=cwd, text=True)
    out = child.stdout.read() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime, out,
            child.returncode)


def side_env(root: str, cache: str) -> dict[str, str]:
    """The environment that imports ``root`` as the package nimmt, with an empty cache."""
    link_folder = tempfile.mkdtemp(prefix="nimmt-first-use-")
    os.symlink(root, os.path.join(link_folder, "nimmt"))
    return {**os.environ, "PYTHONPATH": link_folder, "NUMBA_CACHE_DIR": cache,
            "COLUMNS": "200"}


def method_line(out: str) -> str:
    """'exact' or 'montecarlo (auto: ...)' from analyse's output."""
    for line in out.splitlines():
        if line.startswith("method: "):
            return line[len("method: "):].split(";")[0][:60]
    return "?"


def first_uses(root: str, names: list[str]) -> dict[str, tuple[float, float, str]]:
    """Each command's first use, in order, sharing one empty cache."""
    env = side_env(root, tempfile.mkdtemp(prefix="nimmt-first-use-cache-"))
    figures = {}
    for name, args in COMMANDS:
        if name not in names:
            continue
        wall, cpu, out, code = run_timed([sys.executable, "-m", "nimmt.cli", *args], env)
        answer = method_line(out) if name == "analyse example" else ""
        figures[name] = (wall, cpu, answer if code == 0 else f"exit {code}")
        print(f"  {os.path.basename(root)}: {name}: {wall:.1f} s wall, {cpu:.1f} s CPU",
              file=sys.stderr, flush=True)
    return figures


def install_and_analyse(root: str) -> tuple[float, float, float, float, str]:
    """``pip install . && nimmt analyse example`` in a new venv: each step's wall and CPU."""
    venv = tempfile.mkdtemp(prefix="nimmt-first-use-venv-")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    env = {**os.environ, "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="nimmt-cache-"),
           "COLUMNS": "200"}
    env.pop("PYTHONPATH", None)
    pip_wall, pip_cpu, _, code = run_timed([os.path.join(venv, "bin", "pip"), "install", "-q",
                                           "."], env, cwd=root)
    if code:
        raise SystemExit(f"pip install failed in {root}")
    wall, cpu, out, _ = run_timed([os.path.join(venv, "bin", "nimmt"), "analyse", "example"],
                                  env, cwd=venv)
    return pip_wall, pip_cpu, wall, cpu, method_line(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", metavar="DIR", help="another checkout, run beside this one")
    parser.add_argument("--install", action="store_true",
                        help="also time pip install . && nimmt analyse example")
    parser.add_argument("--only", nargs="*", default=[name for name, _ in COMMANDS],
                        help="commands by name (default: all)")
    args = parser.parse_args()
    sides = [("new", ROOT)] + ([("old", os.path.abspath(args.old))] if args.old else [])
    results = {label: first_uses(root, args.only) for label, root in sides}
    headers = ["command"]
    for label, _ in sides:
        headers += [f"{label} wall s", f"{label} CPU s", f"{label} answer"]
    if args.old:
        headers.append("CPU new/old")
    rows = []
    for name in args.only:
        row: list = [name]
        for label, _ in sides:
            wall, cpu, answer = results[label][name]
            row += [f"{wall:.1f}", f"{cpu:.1f}", answer]
        if args.old:
            row.append(f"{results['new'][name][1] / results['old'][name][1]:.2f}")
        rows.append(row)
    total: list = ["sum"]
    for label, _ in sides:
        total += [f"{sum(v[0] for v in results[label].values()):.1f}",
                  f"{sum(v[1] for v in results[label].values()):.1f}", ""]
    if args.old:
        new_cpu, old_cpu = (sum(v[1] for v in results[side].values()) for side in ("new", "old"))
        total.append(f"{new_cpu / old_cpu:.2f}")
    rows.append(total)
    print("First use of each command from an empty numba cache (one after another):")
    print(tabulate(rows, headers=headers, tablefmt="github"))
    if args.install:
        rows = []
        for label, root in sides:
            pip_wall, pip_cpu, wall, cpu, answer = install_and_analyse(root)
            rows.append([label, f"{pip_wall:.1f}", f"{wall:.1f}", f"{pip_wall + wall:.1f}",
                         f"{cpu:.1f}", answer])
        print("\npip install . && nimmt analyse example (new venv, empty cache; goal 45 s):")
        print(tabulate(rows, headers=["side", "pip install s", "analyse s", "in all s",
                                      "analyse CPU s", "answer"], tablefmt="github"))


if __name__ == "__main__":
    main()
