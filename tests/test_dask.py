"""The dask backend (`atelier run --backend dask`): the same data as loky's, on a local cluster over loopback, and
when a worker dies mid-run."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from sim import runner
from sim.experiment import load_experiment

EXPERIMENTS = {  # two games, so that the run warms each up before its chunks (runner.Schedule)
    "kintsugi_dask": 'game = "kintsugi"\nplayers = [2, 3]\ngames = 600\nseed = 3\nchunk = 50\n'
                     'pool = ["random+uniform", "greedy+tracker"]\n',
    "witkacy_dask": 'game = "witkacy"\nplayers = [2]\ngames = 240\nseed = 4\nchunk = 20\n'
                    'pool = ["random", "completer"]\n',
}


def experiments(folder: Path) -> list:
    folder.mkdir(exist_ok=True)
    paths = []
    for name, text in EXPERIMENTS.items():
        path = folder / f"{name}.toml"
        path.write_text(f'name = "{name}"\n{text}')
        paths.append(path)
    return [load_experiment(path) for path in paths]


def parts(results: Path) -> dict:
    """Every part of every experiment in a results folder, as the manifest records it: rows, bytes and SHA-256."""
    return {name: json.loads((results / name / "manifest.json").read_text())["finished"] for name in EXPERIMENTS}


@pytest.fixture(scope="module")
def loky_parts(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("loky")
    runner.run_all(experiments(folder), folder / "results", jobs=2, progress=False)
    return parts(folder / "results")


@pytest.fixture
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) \
            as local:
        yield local


def test_a_local_dask_cluster_plays_the_very_data_loky_plays(tmp_path: Path, loky_parts: dict) -> None:
    """`--backend dask` with no scheduler starts a LocalCluster of --jobs workers for the run: the same parts, byte
    for byte, as loky's two workers write."""
    runner.run_all(experiments(tmp_path), tmp_path / "results", jobs=2, progress=False, backend=runner.Backend("dask"))
    assert parts(tmp_path / "results") == loky_parts


def test_a_dask_worker_killed_mid_run_loses_no_data(tmp_path: Path, loky_parts: dict, cluster) -> None:
    """A worker of the cluster at --scheduler killed (SIGKILL) while it plays a chunk: the scheduler plays the chunk
    again on a worker (the nanny starts a new one), and the run ends with loky's very parts."""
    with Client(cluster, set_as_default=False) as client:
        pids = client.run(os.getpid)
        killed: list[int] = []

        def kill_one_at_work() -> None:
            deadline = time.monotonic() + 120
            while not killed and time.monotonic() < deadline:
                busy = [worker for worker, tasks in client.processing().items() if tasks]
                done = list((tmp_path / "results").glob("*/parts/**/*.parquet"))
                if busy and done:  # a part is written, and a worker plays a chunk now
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.append(pids[busy[0]])
                time.sleep(0.01)

        killer = threading.Thread(target=kill_one_at_work, daemon=True)
        killer.start()
        runner.run_all(experiments(tmp_path), tmp_path / "results", jobs=2, progress=False,
                       backend=runner.Backend("dask", cluster.scheduler_address))
        killer.join()
    assert killed, "no worker was killed mid-run: the test did not test"
    assert parts(tmp_path / "results") == loky_parts


def test_a_local_cluster_beside_another_says_nothing(tmp_path: Path) -> None:
    """A LocalCluster's HTTP server listens on a free loopback port: distributed's default, 8787, may be another
    cluster's (another run, a notebook), and it would warn about it on stderr."""
    taken = socket.socket()
    try:
        taken.bind(("0.0.0.0", 8787))
        taken.listen()
    except OSError:
        pass  # someone else holds it: as good
    try:
        name = experiments(tmp_path)[0].name
        ran = subprocess.run([sys.executable, "-c", "from sim.cli import app; app()", "run", tmp_path / f"{name}.toml",
                              "--out", tmp_path / "out", "--jobs", "2", "--quiet", "--backend", "dask"],
                             capture_output=True, text=True, timeout=300)
    finally:
        taken.close()
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""
