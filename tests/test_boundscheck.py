"""Every game's compiled kernels under numba's bounds checking, on the data at the edges validation allows.

For each game a subprocess with NUMBA_BOUNDSCHECK=1 plays a few games of every player count with both engines
(the batched engine and the reference, whose strategies call the same kernels on a batch of one), over a pool
of strategies, and its compiled playouts where it has them, on each edge case of its data: an index out of
bounds raises IndexError there instead of corrupting memory. The subprocesses keep their compiled kernels in a
cache of their own (.pytest_cache/d/numba-boundscheck), apart from the unchecked ones.
Only the generic contract is used: get_game, GameRules, the engine's steps and strategies.common.Table.

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
from numba import njit
from test_data_edges import POOLS, components_toml, deck_toml, largest_components, smallest_components
from test_kunst_stuecke_data import EDGES, write_shapes
from test_witkacy_data import edge_decks, write_deck

from sim.game import play, take
from sim.registry import GAMES, get_game
from strategies.common import Table

ROOT = Path(__file__).resolve().parents[1]
BATCH = 6  # engine games per case: enough for each seat to meet several strategies


def edge_cases(name: str, folder: Path) -> list[tuple[int | None, dict]]:
    """(players or None for every count, overrides): the game's data and Params at the edges validation allows."""
    if name == "kintsugi":
        rng = np.random.default_rng(0)
        small, large = folder / "two.toml", folder / "sixty_four.toml"
        small.write_text(deck_toml(rng.integers(0, 4, (2, 2, 2)).tolist()))
        large.write_text(deck_toml(rng.integers(0, 4, (64, 2, 2)).tolist()))
        return [(None, {"deck": str(small), "connectivity": 4}), (None, {"deck": str(large)})]
    if name == "broken_beautiful":
        big, one = folder / "largest.toml", folder / "one_card.toml"
        big.write_text(components_toml(**largest_components()))
        one.write_text(components_toml(**smallest_components()))
        return [(None, {"components": str(big), "new_player_ingots": 2500}),
                (None, {"components": str(big), "supply_shortfall": "unlimited", "tie_items_count_broken": False}),
                (None, {"components": str(one)})]
    if name == "kaleido":
        top = {"first": 1_000_000, "second": 1_000_000, "tie_pool": 1_000_000, "monochrome": 1_000_000}
        return [(None, top), (None, {**dict.fromkeys(top, 0), "monochrome_with_white": True})]
    if name == "kunst_stuecke":
        shapes = [write_shapes(folder / f"edge{i}.toml", edge) for i, edge in enumerate(EDGES.values())]
        return [(None, {}), *((3, {"shapes": path, "board": 8, "chips": 6, "mirror": True}) for path in shapes),
                *((3, {"shapes": path, "contact": "turn", "slide_again": True}) for path in shapes)]
    if name == "witkacy":
        decks = [write_deck(folder, cards) for cards in edge_decks().values()]
        return [(None, {}), (3, {"advanced": True}), *((None, {"deck": deck}) for deck in decks)]
    return [(None, {})]


def pool(spec) -> list[str]:
    """The strategies to seat: every whole strategy the catalogue lists (Kintsugi's lists the two parts of its
    POLICY+GUESSER players apart: they are paired in test_data_edges.POOLS)."""
    if spec.name == "kintsugi":
        return POOLS["kintsugi"]
    return [s for s in spec.players.strategies if " " not in s and s == s.lower()]


def play_cases(name: str, cases: list) -> None:
    """Play each case's games with the batched engine and with the reference, for every player count."""
    try:
        poke(np.zeros(2), 5)
        sys.exit("numba's bounds checks are off")
    except IndexError:
        pass
    spec = get_game(name)
    rules, seated = spec.rules, pool(spec)
    rng = np.random.default_rng(1)
    for players, overrides in cases:
        for count in rules.player_counts if players is None else [players]:
            params = spec.make_params(count, overrides)
            deal = rules.deal(params, rng, BATCH)
            lineups = rng.choice(seated, size=(BATCH, count))
            table = Table(spec.players, params, lineups, rules.secrets(deal))
            rules.engine.outcome(params, play(rules.engine, params, deal, table.choose, rng))
            if spec.players.uniform and hasattr(rules.engine, "random_playout"):  # the compiled random playout
                spec.play(params, deal, np.full((BATCH, count), sorted(spec.players.uniform)[0]), rng)
            for strategy in spec.players.fused:  # and each strategy's (Catalogue.fused)
                spec.play(params, deal, np.full((BATCH, count), strategy), rng)
            one = take(deal, [0])
            rules.play_reference(params, one, Table(spec.players, params, lineups[:1], rules.secrets(one)).choose, rng)


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
        command = [sys.executable, __file__, name, json.dumps(edge_cases(name, folder))]
        with (folder / "stderr.txt").open("w") as errors:  # the subprocess keeps its own copy of the file
            runs[name] = (subprocess.Popen(command, env=env, cwd=ROOT, stdout=errors, stderr=errors), folder)
    yield runs
    for process, _ in runs.values():
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_kernels_stay_in_bounds_on_the_edges_of_the_data(name: str, checked_runs: dict) -> None:
    process, folder = checked_runs[name]
    code = process.wait(timeout=900)
    errors = (folder / "stderr.txt").read_text()
    assert code == 0, f"exit {code}:\n{errors[-3000:]}"
    assert "IndexError" not in errors


if __name__ == "__main__":
    play_cases(sys.argv[1], json.loads(sys.argv[2]))
