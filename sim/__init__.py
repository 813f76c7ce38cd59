"""atelier: a Monte Carlo balance lab for tabletop games.

Layers, from the bottom (import-linter checks them): the results format (dataset.py, which the reports read
too) and the contract (game.py, scoring.py, errors.py); the
games' rules, engines and references (one package each); the players (the top-level `strategies` package);
the wiring (registry.py, experiment.py, runner.py, results.py, bench.py, cli.py).
"""

import warnings

from sim.memory import keep_freed_memory

# joblib warns on import where it cannot make a semaphore (no usable /dev/shm); `run` says so itself, in one line
warnings.filterwarnings("ignore", message=".*joblib will operate in serial mode", category=UserWarning)
keep_freed_memory()  # every process that plays (the CLI, its workers, the tests) reuses its freed pages
