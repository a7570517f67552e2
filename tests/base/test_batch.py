"""The batch layer (solver.base.batch): every batch command gives the same JSON for a
seed in process, on 2 local processes and on a 2-worker Dask LocalCluster; a worker killed
mid-run loses nothing; an unreachable scheduler is one line and exit status 2.

The LocalCluster runs in a child process (as a real cluster does: the command is only its
client), shared by the whole module; it is started with processes=True, so killing one of
its workers kills a real process.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path

import pytest

from nimmt.puzzles import core
from nimmt.solver.base import batch
from nimmt.solver.base.batch import Backend, run_units
from nimmt.solver.base.rules import Rules
from nimmt.solver.players.arena import run_arena
from nimmt.solver.players.bots import parse_bots

from cli_checks import assert_ok, assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

distributed = pytest.importorskip("distributed")  # the test extra installs it (CI runs these)

# Fields that measure time or memory or name what ran the units: everything else must be
# identical.
RUN_FIELDS = {"seconds", "mean_seconds", "median_seconds", "p95_seconds", "games_per_second",
              "kept_per_minute", "workers", "backend", "process_peak_bytes"}

CLUSTER = """
import sys
from distributed import LocalCluster

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                       dashboard_address=None)
print(cluster.scheduler_address, flush=True)
sys.stdin.read()  # until the tests close it
cluster.close()
"""


@pytest.fixture(scope="module")
def scheduler():
    """The address of a 2-worker LocalCluster in a child process, for the whole module."""
    here = Path(__file__).parent  # the workers import this module's helpers (and theirs)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(here), str(here.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen([sys.executable, "-c", CLUSTER], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        address = proc.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        yield address
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def without_run_fields(data):
    """The JSON without the fields of RUN_FIELDS (at any depth)."""
    if isinstance(data, dict):
        return {k: without_run_fields(v) for k, v in data.items() if k not in RUN_FIELDS}
    if isinstance(data, list):
        return [without_run_fields(v) for v in data]
    return data


def canonical(text: str) -> bytes:
    return json.dumps(without_run_fields(json.loads(text)), sort_keys=True).encode()


BACKENDS = (("--workers", "1"), ("--workers", "2"), "dask")


def run_each_backend(runner, scheduler: str, args: list, read) -> list[bytes]:
    """The command's canonical JSON on each backend; ``read(result, i)`` gives its text."""
    outputs = []
    for i, backend in enumerate(BACKENDS):
        flags = ["--scheduler", scheduler] if backend == "dask" else list(backend)
        result = invoke(runner, *[a.format(i=i) for a in args], *flags)
        assert_ok(result)
        outputs.append(canonical(read(result, i)))
    return outputs


def assert_identical(outputs: list[bytes]) -> None:
    assert len(outputs) == len(BACKENDS)
    for backend, output in zip(BACKENDS[1:], outputs[1:]):
        assert output == outputs[0], backend


def test_puzzles_generate_is_the_same_on_every_backend(runner, scheduler, tmp_path):
    args = ["puzzles", "generate", "--players", "2", "--cards-left", "3", "--count", "3",
            "--seed", "5", "--output", str(tmp_path / "set{i}.json")]
    outputs = run_each_backend(runner, scheduler, args,
                               lambda r, i: (tmp_path / f"set{i}.json").read_text())
    assert_identical(outputs)
    assert len(json.loads(outputs[0])["puzzles"]) == 3


@pytest.mark.slow  # the arena on a pool and on the cluster: the two killed-worker tests below
def test_arena_is_the_same_on_every_backend(runner, scheduler):
    args = ["arena", "--players", "3", "--bots", "closest,random,dumper", "--deals", "12",
            "--one-round", "--seed", "3", "--format", "json"]
    outputs = run_each_backend(runner, scheduler, args, lambda r, i: r.stdout)
    assert_identical(outputs)
    assert json.loads(outputs[0])["deals"] == 12


def test_simulate_kernels_are_the_same_on_every_backend(runner, scheduler):
    args = ["simulate", "--players", "3", "--bots", "random,closest,dumper", "--games", "5000",
            "--seed", "2", "--format", "json"]  # 5 units of 1024 games
    outputs = run_each_backend(runner, scheduler, args, lambda r, i: r.stdout)
    assert_identical(outputs)
    assert json.loads(outputs[0])["games"] == 5000


def test_simulate_game_loop_is_the_same_on_every_backend(runner, scheduler, tmp_path):
    """--save-games plays through the Python game loop; the saved records match too."""
    args = ["simulate", "--players", "2", "--bots", "closest,random", "--games", "6",
            "--one-round", "--seed", "8", "--format", "json",
            "--save-games", str(tmp_path / "games{i}")]
    outputs = run_each_backend(runner, scheduler, args, lambda r, i: r.stdout)
    assert_identical(outputs)
    saved = [{p.name: p.read_bytes() for p in (tmp_path / f"games{i}").iterdir()}
             for i in range(len(BACKENDS))]
    assert len(saved[0]) == 6 and saved[1] == saved[0] and saved[2] == saved[0]


def test_study_is_the_same_on_every_backend(runner, scheduler, tmp_path):
    args = ["study", "--players", "2", "--cards-left", "2..3", "--positions", "3",
            "--models", "random,worst", "--bots", "closest,dumper", "--seed", "1",
            "--output", str(tmp_path / "study{i}.json")]
    outputs = run_each_backend(runner, scheduler, args,
                               lambda r, i: (tmp_path / f"study{i}.json").read_text())
    assert_identical(outputs)
    assert len(json.loads(outputs[0])["positions"]) == 6


def test_solve_deal_batches_are_the_same_on_every_backend(runner, scheduler):
    """solve-deal --deals: its local processes are --jobs (--workers is one solve's threads)."""
    args = ["solve-deal", "--deals", "3", "--cards-left", "3", "--seed", "4", "--workers", "1",
            "--format", "json"]
    outputs = []
    for flags in (["--jobs", "1"], ["--jobs", "2"], ["--scheduler", scheduler]):
        result = invoke(runner, *args, *flags)
        assert_ok(result)
        outputs.append(canonical(result.stdout))
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    batch_json = json.loads(outputs[0])
    assert batch_json["finished"] == 3
    assert [u["index"] for u in batch_json["solutions"]] == [0, 1, 2]


def test_solve_deal_by_cell_is_the_same_on_every_backend(runner, scheduler):
    """solve-deal --by-cell: each root cell one unit; the solution is the same everywhere
    (and the shared table's)."""
    args = ["solve-deal", "--cards-left", "4", "--seed", "5", "--format", "json"]
    outputs = []
    for flags in ([], ["--by-cell"], ["--by-cell", "--jobs", "2"],
                  ["--by-cell", "--scheduler", scheduler]):
        result = invoke(runner, *args, *flags)
        assert_ok(result)
        solution = json.loads(result.stdout)["solution"]
        outputs.append({key: solution[key] for key in ("position", "value", "matrix",
                                                        "p1_strategy", "p2_strategy")})
    assert all(out == outputs[0] for out in outputs[1:])


def test_dask_local_starts_its_own_cluster(runner):
    args = ["simulate", "--players", "2", "--bots", "random,closest", "--games", "3000",
            "--seed", "4", "--format", "json"]
    here = invoke(runner, *args)
    local = invoke(runner, *args, "--dask-local", "2")
    assert_ok(here)
    assert_ok(local)
    assert canonical(local.stdout) == canonical(here.stdout)


# ---------------------------------------------------------------- faults

ARENA = (Rules("tactical", 3, threshold=30), "closest,random,dumper", 8, 9)  # short games


def arena_json(result) -> bytes:
    return canonical(json.dumps(result.to_json()))


def test_a_dask_worker_killed_mid_run_loses_nothing(scheduler):
    rules, bots, deals, seed = ARENA
    expected = arena_json(run_arena(rules, parse_bots(bots), deals, seed))
    killed: list[str] = []

    with distributed.Client(scheduler, set_as_default=False) as client:
        def kill_a_busy_worker(step: int) -> None:
            if killed:
                return
            busy = [w for w, keys in client.processing().items() if keys]
            if busy:  # a worker holding a unit: its pid, then SIGKILL
                pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed.append(busy[0])

        result = run_arena(rules, parse_bots(bots), deals, seed,
                           batch=Backend(scheduler=scheduler), progress=kill_a_busy_worker)
        assert killed, "no worker was busy when the first deal finished"
        assert killed[0] not in client.scheduler_info()["workers"]
        client.wait_for_workers(2, timeout=60)  # its nanny restarts it for the other tests
    assert result.complete and arena_json(result) == expected


def test_a_local_worker_process_killed_mid_run_loses_nothing():
    rules, bots, deals, seed = ARENA
    expected = arena_json(run_arena(rules, parse_bots(bots), deals, seed))
    killed: list[int] = []

    def kill_a_worker(step: int) -> None:
        children = multiprocessing.active_children()
        if not killed and children:
            os.kill(children[0].pid, signal.SIGKILL)
            killed.append(children[0].pid)

    result = run_arena(rules, parse_bots(bots), deals, seed, batch=Backend(workers=2),
                       progress=kill_a_worker)
    assert killed
    assert result.complete and arena_json(result) == expected


def scheduler_tasks(dask_scheduler) -> int:
    return len(dask_scheduler.tasks)


def test_ctrl_c_cancels_the_cluster_s_units_and_reports_what_finished(scheduler):
    """SIGINT to the command's process group, as Ctrl-C in a terminal, once its units are
    on the cluster: exit 130, one line, the deals finished reported, no unit left there."""
    args = [sys.executable, "-c", "from nimmt import cli; cli.main()", "arena", "--players",
            "2", "--bots", "closest,random", "--deals", "100000", "--seed", "1", "--format",
            "json", "--scheduler", scheduler]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    with distributed.Client(scheduler, set_as_default=False) as client:
        try:
            deadline = time.monotonic() + 120
            while not any(client.processing().values()) and time.monotonic() < deadline:
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.1)
            time.sleep(1.0)  # a few deals finish
            os.killpg(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert proc.returncode == 130, (out, err)
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("nimmt: interrupted: "), err
        report = json.loads(out)
        assert report["complete"] is False and 0 < report["deals"] < 100000
        assert lines[0].startswith(f"nimmt: interrupted: {report['deals']} of 100,000 deals")
        deadline = time.monotonic() + 10
        while client.run_on_scheduler(scheduler_tasks) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.run_on_scheduler(scheduler_tasks) == 0  # cancelled, not left running


def test_dask_s_own_warnings_stay_out_of_the_command_s_output():
    """Dask's configuration gives ``distributed.client`` a level of its own (it warns when
    Ctrl-C cuts a gather short); once the command quiets Dask, no Dask logger warns."""
    import logging

    from nimmt.solver.base import batchdask

    batchdask.quiet()
    names = ["distributed", "distributed.client", "distributed.worker",
             *(n for n in logging.root.manager.loggerDict if n.startswith("distributed."))]
    loud = [n for n in names if logging.getLogger(n).isEnabledFor(logging.WARNING)]
    assert not loud


def test_an_unreachable_scheduler_is_one_line_and_exit_2(runner):
    start = time.perf_counter()
    result = invoke(runner, "arena", "--players", "2", "--bots", "closest,random",
                    "--deals", "3", "--seed", "1", "--scheduler", "tcp://127.0.0.1:1")
    line = assert_one_line_error(result)
    assert time.perf_counter() - start < 8
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in line
    assert "--scheduler" in line


@pytest.mark.parametrize("address", [  # each a Client constructor failing: tls with -m slow
    "not a url", pytest.param("tls://127.0.0.1:1", marks=pytest.mark.slow)])
def test_a_scheduler_address_the_client_refuses_is_one_line_and_no_leftover(address):
    """A Client whose constructor fails is collected at once: left to the interpreter's exit,
    its __del__ waited 6 s and printed a traceback after the error line (a real process:
    the leftover shows only at its exit)."""
    proc = subprocess.run([sys.executable, "-c", "from nimmt import cli; cli.main()",
                           "simulate", "-n", "2", "--games", "10", "--scheduler", address],
                          capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"nimmt: error: cannot reach the Dask scheduler at {address} (")
    assert "--scheduler" in lines[0]


def test_without_dask_the_dask_backends_say_how_to_install_it(runner, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    monkeypatch.delitem(sys.modules, "nimmt.solver.base.batchdask", raising=False)
    monkeypatch.delattr(sys.modules["nimmt.solver.base"], "batchdask", raising=False)
    result = invoke(runner, "simulate", "--players", "2", "--games", "10", "--dask-local", "2")
    line = assert_one_line_error(result)
    assert 'pip install "nimmt[dask]"' in line


@pytest.mark.parametrize("flags", [["--workers", "2", "--dask-local", "2"],
                                   ["--scheduler", "tcp://127.0.0.1:1", "--dask-local", "2"]])
def test_backend_options_that_do_not_go_together(runner, flags):
    result = invoke(runner, "simulate", "--players", "2", "--games", "10", *flags)
    line = assert_one_line_error(result)
    assert "--workers" in line or "--dask-local" in line


# ---------------------------------------------------------------- the layer itself

def note_warm(folder: str) -> None:
    """A warm-up that leaves a file named after its process."""
    Path(folder, f"warm-{os.getpid()}").touch()


def warm_check(folder: str) -> tuple[int, bool]:
    """A unit: its process, and whether that process was warmed before it."""
    return os.getpid(), Path(folder, f"warm-{os.getpid()}").exists()


@pytest.mark.parametrize("backend", ["here", "pool", "dask"])
def test_each_worker_warms_once_before_its_units(backend, scheduler, tmp_path):
    chosen = {"here": Backend(), "pool": Backend(workers=2),
              "dask": Backend(scheduler=scheduler)}[backend]
    folder = str(tmp_path)
    steps: list[int] = []
    run = run_units(warm_check, [folder] * 40, chosen, warm=partial(note_warm, folder),
                    progress=steps.append)
    assert run.stopped is None and sorted(run.results) == list(range(40))
    assert steps == [1] * 40  # progress counts finished units
    assert all(warmed for _, warmed in run.results.values())
    warmed = {int(p.name.split("-")[1]) for p in tmp_path.iterdir()}
    ran = {pid for pid, _ in run.results.values()}
    assert ran <= warmed
    assert len(warmed) <= {"here": 1, "pool": 2, "dask": 2}[backend]  # once per worker


@pytest.mark.parametrize("backend", ["here", "pool", "dask"])
def test_a_time_limit_returns_the_units_finished(backend, scheduler):
    chosen = {"here": Backend(), "pool": Backend(workers=2),
              "dask": Backend(scheduler=scheduler)}[backend]
    start = time.perf_counter()
    run = run_units(time.sleep, [0.2] * 100, chosen, time_limit=1.0)
    assert run.stopped == "time limit"
    assert 1 <= len(run.results) < 100
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize("stop", ["time limit", "interrupted"])
def test_a_pool_stops_its_long_units_instead_of_waiting_for_them(stop):
    """A unit may take hours (a root cell of a whole deal): a time limit or Ctrl-C stops
    the worker processes running one, and the batch returns at once."""
    start = time.perf_counter()
    if stop == "interrupted":
        timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        run = run_units(time.sleep, [0.05] * 4 + [60.0] * 4, Backend(workers=2))
        timer.join()
    else:
        run = run_units(time.sleep, [0.05] * 4 + [60.0] * 4, Backend(workers=2),
                        time_limit=1.0)
    assert run.stopped == stop
    assert sorted(run.results) == [0, 1, 2, 3]
    assert time.perf_counter() - start < 10


def test_a_batch_whose_units_all_ran_is_complete_however_late_the_last_one():
    run = run_units(time.sleep, [0.05, 0.6], Backend(), time_limit=0.3)
    assert run.stopped is None and len(run.results) == 2
    run = run_units(time.sleep, [0.05, 0.6, 0.05], Backend(), time_limit=0.3)
    assert run.stopped == "time limit" and sorted(run.results) == [0, 1]


def test_enough_stops_a_batch_and_results_come_by_index():
    seen: list[int] = []
    run = run_units(abs, range(-50, 0), Backend(workers=2), window=4,
                    on_result=lambda i, r: seen.append(i), enough=lambda: len(seen) >= 10)
    assert run.stopped is None and 10 <= len(run.results) < 50
    assert run.ordered() == [abs(i - 50) for i in sorted(run.results)]


@pytest.mark.parametrize("backend", [Backend(), Backend(workers=2)])
def test_groups_of_units_report_each_unit(backend):
    steps: list[int] = []
    seen: list[int] = []
    run = run_units(abs, range(-50, 0), backend, group=7, progress=steps.append,
                    on_result=lambda i, r: seen.append(i))
    assert run.stopped is None and run.units == 50 and steps == [1] * 50
    assert sorted(seen) == list(range(50)) and run.ordered() == list(range(50, 0, -1))
    kept: list[int] = []
    early = run_units(abs, range(-50, 0), backend, group=7, window=2,
                      enough=lambda: len(kept) >= 3, on_result=lambda i, r: kept.append(i))
    assert early.stopped is None and 3 <= len(early.results) < 50


def test_generate_keeps_the_first_puzzles_by_index_whatever_the_window():
    settings = core.Settings("tactical", 2, "normal", 3, "worst", 1.0, False, 7)
    one, tried_one = core.generate(settings, 2)
    pool, tried_pool = core.generate(settings, 2, batch=Backend(workers=2))
    assert [p.to_json() for p in one] == [p.to_json() for p in pool]
    assert tried_one == tried_pool


def test_the_layer_imports_no_dask_until_a_dask_backend_runs():
    code = ("import sys; from nimmt.solver.base import batch; "
            "batch.run_units(abs, range(3)); print('distributed' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
    assert batch.DASK_MISSING.startswith("Dask is not installed")
