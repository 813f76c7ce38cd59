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
        legal = view.hand[self.games] & _legal_of(view, self.games)
        if self.name == "low":
            return legal.argmax(axis=1)
        if self.name == "high":
            return legal.shape[1] - 1 - legal[:, ::-1].argmax(axis=1)
        weights = legal * rng.random(legal.shape)
        return weights.argmax(axis=1)


def _legal_of(view, games) -> np.ndarray:
    """The cards the rule allows: above the trick's highest, where the hand holds any."""
    hand = view.hand[games]
    above = np.arange(hand.shape[1]) > view.played[games].max(axis=1, keepdims=True)
    return np.where((hand & above).any(axis=1, keepdims=True), above, True)


def check_strategy(name: str) -> None:
    if name not in STRATEGIES:
        raise AtelierError(f"unknown Handful strategy '{name}'; known: {', '.join(STRATEGIES)}")


def make_player(name: str, *, seat: int, params, games, secret) -> Player:
    return Player(name, games)


PLAYERS = Catalogue(STRATEGIES, "high", make_player, check_strategy)
