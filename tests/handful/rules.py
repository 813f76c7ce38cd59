"""Handful's Params and deal."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from sim.errors import AtelierError

PLAYER_COUNTS = (2, 3, 4)


@dataclass(frozen=True)
class Params:
    """Knobs of Handful."""

    players: int = field(default=2, metadata={"help": "number of players"})
    cards: int = field(default=16, metadata={"help": "cards in the deck, 0 to cards - 1", "range": (2, 64)})
    hand: int = field(default=4, metadata={"help": "cards dealt to each seat, and so tricks played", "range": (1, 16)})

    def validate(self) -> None:
        if self.players * self.hand > self.cards:
            raise AtelierError(f"{self.players} hands of {self.hand} need {self.players * self.hand} cards; "
                               f"the deck has {self.cards}")


class Deal(NamedTuple):
    hands: np.ndarray  # (n, P, hand) the cards dealt to each seat


def deal(params: Params, rng: np.random.Generator, n: int) -> Deal:
    order = rng.permuted(np.tile(np.arange(params.cards), (n, 1)), axis=1)
    return Deal(order[:, : params.players * params.hand].reshape(n, params.players, params.hand))


def leader(params: Params, trick: int) -> int:
    """The seat that leads a trick: seat 0 the first, then each seat in turn."""
    return trick % params.players


def secrets(state) -> np.ndarray:
    """(B, P): each seat's hand as dealt, which only it knows."""
    return state.dealt


def unseen(params: Params, dealt: Deal, seat: int, rng: np.random.Generator) -> Deal:
    """The other seats' hands dealt again from the cards `seat` does not hold; a card shows once it is played."""
    hands = dealt.hands.copy()
    for game, mine in enumerate(dealt.hands[:, seat]):
        others = rng.permutation(np.setdiff1d(np.arange(params.cards), mine))
        rest = [s for s in range(params.players) if s != seat]
        hands[game, rest] = others[: len(rest) * params.hand].reshape(len(rest), params.hand)
    return Deal(hands)
