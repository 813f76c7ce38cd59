"""Every registered game's batched engine replayed decision by decision through its scalar reference.

The engine plays batches of mixed lineups (the game's declared `differential` cases and strategies,
tests/declared.py; by default 24 games at every player count, every whole strategy of its catalogue), and every
question it asks is recorded with its legal mask and the choices made. Each game is then played by the reference
with a decider that answers the recorded choices (tests/playback.py): at each decision the reference must put
the engine's question (its `question`: the same kind, seat and moment) with exactly the engine's legal mask, ask
no more and no fewer, and end with the same scores, the ranks and win shares following from them. The reference
derives legality from the rules, so agreement is evidence that both implement them. A game's own end (its board,
its own columns) is compared in its own tests, on the same replay.
"""

from __future__ import annotations

import numpy as np
import pytest
from declared import NAMES, differential, lineups
from playback import against_reference

from sim.registry import get_game

CASES = [(name, *case) for name in NAMES for case in differential(name)]


@pytest.mark.parametrize(("name", "players", "games", "seed", "overrides"), CASES)
def test_the_reference_asks_the_engines_questions_and_gives_its_standings(name, players, games, seed, overrides):
    spec = get_game(name)
    params = spec.make_params(players, overrides)
    rng = np.random.default_rng(seed)
    deal = spec.rules.deal(params, rng, games)
    pool = lineups(name)
    seated = rng.choice(pool, size=(games, players))
    if len(pool) > 1:
        assert (seated != seated[:, :1]).any(axis=1).mean() > 0.5  # most games mix strategies
    _, recorder = against_reference(name, params, deal, seated, rng)
    assert recorder.log and all(asked.asked.any() for asked in recorder.log)
