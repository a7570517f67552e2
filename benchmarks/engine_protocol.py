"""`nimmt engine` against one `nimmt analyse` process per position, side by side.

    python benchmarks/engine_protocol.py [--positions 10] [--players 2,3]

For k = 3, 4, 5 cards left, the same positions (dealt by `nimmt deal`'s function with
rule-of-thumb bots, fixed seeds) are analysed twice, both through the public command line:
  * one warm `nimmt engine` process: an `analyse` request per position, one at a time;
    latency is from writing the request line to reading its reply line (the engine is
    warmed first by one request per k, not timed);
  * one `nimmt analyse POSITION --format json` process per position (start-up included).
Per k: the median and 95th percentile latency (nearest rank), the median of the search's
own time (the result's `seconds`: the rest is the protocol and the engine's overhead),
requests per second, and the same for the processes, with their ratio. Each reply is
checked against the process's JSON (all fields but `seconds`). The goal: an engine median
under 20 ms once warm. Prints a table (tabulate) and the machine's load. Nothing here is
asserted by the tests.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

from tabulate import tabulate

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from nimmt.solver.base.rules import Rules  # noqa: E402
from nimmt.solver.positions.position import format_position  # noqa: E402
from nimmt.solver.search.game import deal_position  # noqa: E402

NIMMT = [shutil.which("nimmt") or sys.executable, *([] if shutil.which("nimmt")
                                                    else ["-m", "nimmt.cli"])]
BOTS = ["closest", "lowkeeper", "dumper", "random"]


def positions(k: int, count: int, n: int) -> list[str]:
    """``count`` positions with ``k`` cards left, tactical, ``n`` players."""
    out = []
    for i in range(count):
        position = deal_position(Rules("tactical", n), k, seed=1000 * k + i,
                                 bots=[BOTS[(i + s) % len(BOTS)] for s in range(n)])
        out.append(format_position(position))
    return out


def quantile(values: list[float], q: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


class EngineClient:
    """`nimmt engine` as a subprocess: one request at a time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([*NIMMT, "engine"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)
        self.next = 0

    def analyse(self, position: str) -> tuple[dict, float]:
        self.next += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next, "method": "analyse",
                           "params": {"position": position, "seed": 1}})
        assert self.process.stdin is not None and self.process.stdout is not None
        start = time.perf_counter()
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        while True:
            reply = json.loads(self.process.stdout.readline())
            if reply.get("id") == self.next:
                break
        seconds = time.perf_counter() - start
        if "result" not in reply:
            raise SystemExit(f"engine error: {reply}")
        return reply["result"], seconds

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def cli_analyse(position: str) -> tuple[dict, float]:
    start = time.perf_counter()
    done = subprocess.run([*NIMMT, "analyse", position, "--format", "json", "--seed", "1"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout), time.perf_counter() - start


def same(a: dict, b: dict) -> bool:
    return {k: v for k, v in a.items() if k != "seconds"} == \
        {k: v for k, v in b.items() if k != "seconds"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10, help="positions per k")
    parser.add_argument("--players", default="2", help="player counts (rows for each)")
    args = parser.parse_args()
    players = tuple(int(p) for p in args.players.split(","))
    load_before = os.getloadavg()
    engine = EngineClient()
    rows = []
    mismatches = 0
    differing: set[str] = set()
    try:
        for n, k in [(n, k) for n in players for k in (3, 4, 5)]:
            batch = positions(k, args.positions, n)
            engine.analyse(batch[0])  # warm: kernels loaded, this k's path compiled/loaded
            engine_times, cli_times, search_times = [], [], []
            for position in batch:
                result, seconds = engine.analyse(position)
                engine_times.append(seconds)
                search_times.append(result["seconds"])
                expected, cli_seconds = cli_analyse(position)
                cli_times.append(cli_seconds)
                if not same(result, expected):
                    mismatches += 1
                    differing |= {key for key in set(result) | set(expected)
                                  if key != "seconds" and result.get(key) != expected.get(key)}
                    differing.add(f"method {result['method']}/{expected['method']}")
            e_total, c_total = sum(engine_times), sum(cli_times)
            rows.append([n, k, len(batch), f"{1000 * quantile(engine_times, 0.5):.1f}",
                         f"{1000 * quantile(engine_times, 0.95):.1f}",
                         f"{1000 * quantile(search_times, 0.5):.1f}",
                         f"{len(batch) / e_total:,.1f}",
                         f"{1000 * quantile(cli_times, 0.5):.0f}",
                         f"{1000 * quantile(cli_times, 0.95):.0f}",
                         f"{len(batch) / c_total:,.2f}", f"{c_total / e_total:,.0f}x"])
    finally:
        engine.close()
    print(tabulate(rows, headers=["players", "k", "positions", "engine median ms",
                                  "engine p95 ms", "search median ms",
                                  "engine req/s", "process median ms", "process p95 ms",
                                  "process req/s", "ratio (time)"],
                   tablefmt="github", disable_numparse=True))
    print(f"\ntactical, model random, method auto, --seed 1; replies equal to "
          f"nimmt analyse --format json (but seconds): "
          f"{'all' if not mismatches else f'{mismatches} differ'}"
          + (f" (in {', '.join(sorted(differing))})" if differing else "") + "; load average "
          f"{load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after "
          f"({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
