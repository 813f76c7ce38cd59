"""How much two readings matter: Broken and Beautiful's `trays_boxes_patterned` and Kaleido's
`hexagon_needs_full_boards`, on tables of the tournament pools (a lineup drawn per game and seat).

- Broken and Beautiful: the final tables of games played under the default, scored again with trays and boxes
  plain (the rule alone, the same play); and the same deals and seeds played under each reading (the strategies
  value a tray or box by its pattern, so the games themselves differ).
- Kaleido: the strategies do not read the switch, so both readings play the same games; only the end-game
  hexagons beside a board with an empty hole score differently.

A winner changes where the set of seats with a win share differs. Run: `.venv/bin/python docs/rule_switches.py`
(about two minutes).
"""

import numpy as np

from sim.broken_beautiful.rules import SCORED
from sim.game import play
from sim.registry import get_game
from strategies.common import Table

GAMES = 3000


def played(game, params, lineups, seed):
    """The final State of a batch, the deal drawn from `seed` and the strategies' choices from the same rng."""
    rng = np.random.default_rng(seed)
    deal = game.rules.deal(params, rng, len(lineups))
    table = Table(game.players, params, lineups, game.rules.secrets(game.rules.engine.init(params, deal)))
    return play(game.rules.engine, params, deal, table.choose, rng)


def changed(win_a, win_b) -> np.ndarray:
    return ((win_a > 0) != (win_b > 0)).any(axis=1)


def broken_beautiful() -> None:
    game = get_game("broken_beautiful")
    engine = game.rules.engine
    pool = ["random", "greedy", "collector", "banker", "hater"]
    print("| players | a live teapot counts a tray or box | winner changes, same tables | winner changes, "
          "played again | mean teapot points, patterned / plain |")
    print("|---:|---:|---:|---:|---:|")
    for players in (2, 3, 4):
        lineups = np.random.default_rng(players).choice(pool, size=(GAMES, players))
        patterned = game.make_params(players, {})
        plain = game.make_params(players, {"trays_boxes_patterned": False})
        state = played(game, patterned, lineups, players)
        by_type, _, _, _, _, win = engine.standing(patterned, state)
        plain_type, _, _, _, _, plain_win = engine.standing(plain, state)
        teapot = SCORED.index("teapot")
        counted = (by_type[..., teapot] > plain_type[..., teapot]).any(axis=1)
        again = engine.standing(plain, played(game, plain, lineups, players))
        print(f"| {players} | {counted.mean():.1%} | {changed(win, plain_win).mean():.1%} "
              f"| {changed(win, again[5]).mean():.1%} | {by_type[..., teapot].mean():.2f} / "
              f"{again[0][..., teapot].mean():.2f} |")


def kaleido() -> None:
    game = get_game("kaleido")
    pool = ["random", "greedy", "majority", "rotator", "hoarder"]
    print("| players | a hexagon beside an empty hole stops scoring | winner changes "
          "| mean end-game points per colour, off / on |")
    print("|---:|---:|---:|---:|")
    for players in (2, 3, 4, 5):
        lineups = np.random.default_rng(players).choice(pool, size=(GAMES, players))
        off, on = (game.make_params(players, {"hexagon_needs_full_boards": value}) for value in (False, True))
        state_off, state_on = played(game, off, lineups, players), played(game, on, lineups, players)
        assert np.array_equal(state_off.slots, state_on.slots)  # the same games
        win_off, win_on = (game.rules.engine.outcome(p, s).win for p, s in ((off, state_off), (on, state_on)))
        dropped = (state_on.endgame < state_off.endgame).any(axis=1)
        print(f"| {players} | {dropped.mean():.1%} | {changed(win_off, win_on).mean():.1%} "
              f"| {state_off.endgame.mean():.1f} / {state_on.endgame.mean():.1f} |")


if __name__ == "__main__":
    broken_beautiful()
    print()
    kaleido()
