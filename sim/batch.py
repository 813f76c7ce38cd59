"""Helpers every batched engine shares: grouping a seat's games by strategy, and checking choices."""

from __future__ import annotations

import numpy as np

from sim.errors import IllegalMove


def strategy_groups(names: np.ndarray) -> list[tuple[str, np.ndarray | slice]]:
    """(strategy, games) for each distinct strategy among a seat's games; a slice when one plays them all."""
    groups = []
    for name in np.unique(names):
        idx = np.flatnonzero(names == name)
        groups.append((str(name), slice(None) if len(idx) == len(names) else idx))
    return groups


def check_choice(player, choice: np.ndarray, n: int, bound: int, what: str) -> np.ndarray:
    """A strategy's choices must be n integers in 0..bound-1; returns them, else raises IllegalMove."""
    if choice.shape != (n,) or not np.issubdtype(choice.dtype, np.integer):
        raise IllegalMove(player.name, f"{what} must be {n} integers, got shape {choice.shape} {choice.dtype}")
    bad = (choice < 0) | (choice >= bound)
    if bad.any():
        raise IllegalMove(player.name, f"{what} {int(choice[bad][0])} is outside 0..{bound - 1}")
    return choice


def seat_rows(lineups: np.ndarray, scores: np.ndarray, rank: np.ndarray, win: np.ndarray) -> dict[str, np.ndarray]:
    """The columns every game's `simulate` returns, one row per (game, seat), game-major."""
    batch, players = lineups.shape
    return {
        "game": np.repeat(np.arange(batch), players),
        "seat": np.tile(np.arange(players, dtype=np.int8), batch),
        "strategy": lineups.ravel().astype(str),
        "score": scores.ravel().astype(np.int32),
        "rank": rank.ravel(),
        "win": win.ravel(),
    }
