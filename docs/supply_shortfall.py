"""How much Broken and Beautiful depends on `supply_shortfall`: greedy tables under both readings.

Steps the engine by hand (the contract's steppable State) to see the supply after every decision, which no
result column records. Run: `.venv/bin/python docs/supply_shortfall.py` (about 20 s).
"""

import numpy as np

from sim.registry import get_game
from strategies.common import Table

GAMES = 4000
game = get_game("broken_beautiful")
engine = game.rules.engine
print("| supply_shortfall | players | supply ran dry during the game | empty or below 0 at the end | mean score |")
print("|---|---:|---:|---:|---:|")
for rule in ("partial", "unlimited"):
    for players in (2, 3, 4):
        params = game.make_params(players, {"supply_shortfall": rule})
        rng = np.random.default_rng(1)
        table = Table(game.players, params, np.full((GAMES, players), "greedy"), None)
        state = engine.init(params, game.rules.deal(params, rng, GAMES))
        lowest = state.supply.copy()
        while not engine.terminal(params, state):
            state = engine.step(params, state, table.choose(engine.decision(params, state), rng))
            lowest = np.minimum(lowest, state.supply)
        scores = engine.outcome(params, state).scores
        print(f"| {rule} | {players} | {(lowest <= 0).mean():.1%} | {(state.supply <= 0).mean():.1%} "
              f"| {scores.mean():.1f} |")
