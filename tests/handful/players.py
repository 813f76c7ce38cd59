"""Handful's players: each plays one of its legal cards."""

from __future__ import annotations

import numpy as np

from sim.errors import AtelierError
from strategies.common import Catalogue

STRATEGIES = {
    "random": "any legal card, uniformly",
    "low": "the lowest legal card",
    "high": "the highest legal card",
}


class Player:
    def __init__(self, name: str, games):
        self.name, self.games = name, games

    def play(self, view, rng: np.random.Generator) -> np.ndarray:
        legal = view.legal[self.games]
        if self.name == "low":
            return legal.argmax(axis=1)
        if self.name == "high":
            return legal.shape[1] - 1 - legal[:, ::-1].argmax(axis=1)
        weights = legal * rng.random(legal.shape)
        return weights.argmax(axis=1)


def check_strategy(name: str) -> None:
    if name not in STRATEGIES:
        raise AtelierError(f"unknown Handful strategy '{name}'; known: {', '.join(STRATEGIES)}")


def make_player(name: str, *, seat: int, params, games, secret) -> Player:
    return Player(name, games)


PLAYERS = Catalogue(STRATEGIES, "high", make_player, check_strategy)
