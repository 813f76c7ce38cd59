"""Every game's compiled kernels under numba's bounds checking, on the data at the edges validation allows.

For each game a subprocess with NUMBA_BOUNDSCHECK=1 plays a few games of every player count with both engines
(the batched engine and the reference, whose strategies call the same kernels on a batch of one), over a pool
of strategies (its declared lineups, tests/declared.py), and its compiled playouts where it has them, on each edge
case of its data (`Checks.edges`, declared in its package): an index out of bounds raises IndexError there instead
of corrupting memory. The subprocesses keep their compiled kernels in a
cache of their own (.pytest_cache/d/numba-boundscheck), apart from the unchecked ones.
Only the generic contract is used: get_game, GameRules, the engine's steps and strategies.common.Table, and the
game's declared test data.

Run as a script, `python tests/test_boundscheck.py GAME CASES` plays the cases (a JSON list of
[players, overrides]) and exits non-zero on any error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from declared import NAMES, checks
from declared import lineups as strategies_of
from numba import njit

from sim.game import play, take
from sim.registry import get_game
from strategies.common import Table

ROOT = Path(__file__).resolve().parents[1]
BATCH = 6  # engine games per case: enough for each seat to meet several strategies


def play_cases(name: str, cases: list) -> None:
    """Play each case's games with the batched engine and with the reference, for every player count."""
    try:
        poke(np.zeros(2), 5)
        sys.exit("numba's bounds checks are off")
    except IndexError:
        pass
    spec = get_game(name)
    rules, seated = spec.rules, strategies_of(name)
    rng = np.random.default_rng(1)
    for players, overrides in cases:
        for count in rules.player_counts if players is None else [players]:
            params = spec.make_params(count, overrides)
            deal = rules.deal(params, rng, BATCH)
            lineups = rng.choice(seated, size=(BATCH, count))
            table = Table(spec.players, params, lineups, rules.secrets(rules.engine.init(params, deal)))
            rules.engine.outcome(params, play(rules.engine, params, deal, table.choose, rng))
            if spec.players.uniform and hasattr(rules.engine, "random_playout"):  # the compiled random playout
                spec.play(params, deal, np.full((BATCH, count), sorted(spec.players.uniform)[0]), rng)
            for strategy in spec.players.fused:  # and each strategy's (Catalogue.fused)
                spec.play(params, deal, np.full((BATCH, count), strategy), rng)
            one = take(deal, [0])
            secrets = rules.secrets(rules.engine.init(params, one))
            rules.play_reference(params, one, Table(spec.players, params, lineups[:1], secrets).choose, rng)


@njit
def poke(array, i):
    array[i] = 1


@pytest.fixture(scope="module")
def checked_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The selected games' subprocesses, started at once so that their first compiles share the cores; each
    writes its errors to a file of its own."""
    selected = {item.callspec.params["name"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")}
    cache = request.config.cache.mkdir("numba-boundscheck")
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_OPT": "0", "NUMBA_CACHE_DIR": str(cache)}  # opt 0: compiles
    # in two thirds of the time, and many bounds-checked kernels cannot be cached
    runs = {}
    for name in sorted(selected):
        folder = tmp_path_factory.mktemp(name)
        command = [sys.executable, __file__, name, json.dumps(checks(name).edges(folder))]
        with (folder / "stderr.txt").open("w") as errors:  # the subprocess keeps its own copy of the file
            runs[name] = (subprocess.Popen(command, env=env, cwd=ROOT, stdout=errors, stderr=errors), folder)
    yield runs
    for process, _ in runs.values():
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize("name", NAMES)
def test_the_kernels_stay_in_bounds_on_the_edges_of_the_data(name: str, checked_runs: dict) -> None:
    process, folder = checked_runs[name]
    code = process.wait(timeout=900)
    errors = (folder / "stderr.txt").read_text()
    assert code == 0, f"exit {code}:\n{errors[-3000:]}"
    assert "IndexError" not in errors


if __name__ == "__main__":
    play_cases(sys.argv[1], json.loads(sys.argv[2]))
