"""`atelier bench`: the batched engine against the scalar reference, same strategies, same run."""

from __future__ import annotations

import time
from collections.abc import Callable
from statistics import median

import numpy as np

Session = Callable[[np.random.Generator], tuple[Callable[[], object], Callable[[], object]]]


def compare(game: str, players: int, strategy: str, games: int, reference_games: int, repeats: int,
            session: Session) -> dict:
    """Games per second of both engines; medians over `repeats`, each repeat seeded by its number.

    `session(rng)` prepares one repeat and returns two calls: one plays `games` games with the batched
    engine, the other plays `reference_games` games one by one with the reference."""
    engine_rates, reference_rates = [], []
    for repeat in range(repeats):
        play_engine, play_reference = session(np.random.default_rng(repeat))
        engine_rates.append(games / _seconds(play_engine))
        reference_rates.append(reference_games / _seconds(play_reference))
    engine_rate, reference_rate = median(engine_rates), median(reference_rates)
    return {"game": game, "players": players, "strategy": strategy, "engine_games": games,
            "reference_games": reference_games, "repeats": repeats, "engine_games_per_s": round(engine_rate, 1),
            "reference_games_per_s": round(reference_rate, 1), "ratio": round(engine_rate / reference_rate, 1)}


def in_parallel(jobs: int, games: int, repeats: int, play: Callable[[int], object]) -> dict:
    """Games per second of `jobs` worker processes each playing `games` games with the batched engine at once
    (`play(seed)` plays one batch), the median over `repeats` after one warm-up round that starts the workers."""
    from joblib import Parallel, delayed  # here: importing joblib would add to every command's start-up

    parallel = Parallel(n_jobs=jobs, backend="loky")
    rates = []
    for repeat in range(repeats + 1):
        seeds = range(repeat * jobs, (repeat + 1) * jobs)
        rates.append(jobs * games / _seconds(lambda seeds=seeds: parallel(delayed(play)(seed) for seed in seeds)))
    rate = median(rates[1:])
    return {"jobs": jobs, "engine_jobs_games_per_s": round(rate, 1)}


def _seconds(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start
