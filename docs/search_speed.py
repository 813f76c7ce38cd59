"""Search players' speed, for BENCHMARKS.md: decisions per second and the share of their time outside the rollouts.

    .venv/bin/python docs/search_speed.py [--deals N] [--jobs 1] [--strategies search@16,...] [GAME ...]

For each game, `search` and `mcts` at 16 and 64 rollouts per option sit at seat 0 against the game's bench strategy
at 2 players, every game of the deals played as one batch (16 deals, 4 in Kunst Stücke and Witkacy, unless
`--deals`), after one warm-up batch that compiles what it needs. A decision is one game's searched decision: asked,
with more than one option. Decisions per second count the search's decisions over the seconds spent deciding them.
The rollouts are the worlds played on to their end: Search.played_out for `search`; for `mcts`, its waves less the
tree's own steps, the worlds' drawing and the rollout tables' making. The rest (drawing worlds, the shortlist, the
halving's or the tree's bookkeeping, showing the history to the rollouts' watchers) is the search's own overhead.
With `--jobs 2`, two worker processes play a batch each at once, and decisions per second count both.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from joblib import Parallel, delayed

from sim.registry import NAMES, get_game
from strategies import search

STRATEGIES = ("search@16", "search@64", "mcts@16", "mcts@64")
DEALS = {"kunst_stuecke": 4, "witkacy": 4}  # slow games; 16 elsewhere
TIMED = ("decide", "played_out", "wave", "descend", "world", "rollout_table")


def timed(method, totals: dict, key: str):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            totals[key] += time.perf_counter() - start

    return wrapper


def one_batch(name: str, strategy: str, deals: int, seed: int) -> dict:
    """Decisions, and seconds in each timed method, of one batch."""
    spec = get_game(name)
    params = spec.make_params(2, {})
    totals = dict.fromkeys(TIMED, 0.0) | {"decisions": 0}
    kept = {method: getattr(search.TreeSearch, method) for method in TIMED}
    decide = kept["decide"]

    def counted(self, decision, rng):
        kinds = spec.players.searched
        if kinds is None or decision.kind in kinds:
            mine = np.arange(len(decision.asked))[self.games]
            totals["decisions"] += int((decision.asked[mine] & (decision.legal[mine].sum(axis=1) > 1)).sum())
        return decide(self, decision, rng)

    for method in TIMED:
        setattr(search.TreeSearch if method in ("wave", "descend") else search.Search, method,
                timed(counted if method == "decide" else kept[method], totals, method))
    try:
        rng = np.random.default_rng(seed)
        lineups = np.array([[strategy, spec.players.bench]] * deals)
        spec.play(params, spec.rules.deal(params, rng, deals), lineups, rng)
    finally:
        for method in TIMED:
            setattr(search.TreeSearch if method in ("wave", "descend") else search.Search, method, kept[method])
    return totals


def measure(name: str, strategy: str, deals: int, jobs: int) -> dict:
    one_batch(name, strategy, 2, seed=99)  # the warm-up: compiles what the run needs
    if jobs == 1:
        runs = [one_batch(name, strategy, deals, seed=0)]
    else:
        runs = Parallel(n_jobs=jobs, backend="loky")(delayed(one_batch)(name, strategy, deals, seed)
                                                     for seed in range(jobs))
    total = {key: sum(run[key] for run in runs) for key in (*TIMED, "decisions")}
    wall = max(run["decide"] for run in runs)  # the workers decide at once
    rollouts = total["played_out"] + total["wave"] - total["descend"] - (total["world"] + total["rollout_table"]
                                                                          if total["wave"] else 0)
    return {"game": name, "strategy": strategy, "jobs": jobs, "decisions": total["decisions"],
            "decisions_per_s": round(total["decisions"] / wall, 1),
            "overhead_share": round(1 - rollouts / total["decide"], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(NAMES))
    parser.add_argument("--deals", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    args = parser.parse_args()
    for name in args.games:
        for strategy in args.strategies.split(","):
            deals = args.deals or DEALS.get(name, 16)
            print(json.dumps(measure(name, strategy, deals, args.jobs)), flush=True)


if __name__ == "__main__":
    main()
