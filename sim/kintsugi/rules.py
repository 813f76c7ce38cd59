"""Kintsugi: constants, component data, Params and the random deal.

Rulebook: ../shared/rules/kintsugi.txt. Component model (DESIGN.md): each fragment card is a 2x2 grid of
coloured fragments; cards lie on a square grid and each new card is offset diagonally by one cell from the
previous one, so it covers exactly one of its fragments. Colours: 0 blue, 1 yellow, 2 white, 3 red.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from sim.errors import AtelierError
from sim.game import read_toml

COLORS = ("blue", "yellow", "white", "red")
N_COLORS = len(COLORS)
PLAYER_COUNTS = (2, 3, 4)  # 2-3 on the box; 4 Pottery Color cards allow a fourth player (DESIGN.md)
DEFAULT_DECK = Path(__file__).with_name("cards.toml")
# The most cards a deck may hold. Card ids are int8, and the batched board takes (2N + 2)^2 cells per game:
# 4096 games of a 64-card deck at once peak near 300 MB, and memory grows with the square of the deck.
MAX_CARDS = 64

# A candidate placement is (offset, rotation): action = 4 * offset + rotation.
# Offsets move the card's top-left cell diagonally from the previous card's; rotation counts quarter turns
# counter-clockwise, as numpy.rot90(layout, rotation).
OFFSETS = np.array([(-1, -1), (-1, 1), (1, -1), (1, 1)], dtype=np.int16)
N_ROTATIONS = 4
N_ACTIONS = len(OFFSETS) * N_ROTATIONS
ACTION_OFFSET = np.arange(N_ACTIONS) // N_ROTATIONS  # (A,) index into OFFSETS
ACTION_ROTATION = np.arange(N_ACTIONS) % N_ROTATIONS  # (A,) quarter turns


@dataclass(frozen=True)
class Params:
    """What a Kintsugi experiment may vary."""

    players: int = field(default=3, metadata={"help": "number of players, 2-4"})
    connectivity: int = field(
        default=8,
        metadata={"help": "8: fragments touching corner to corner join one piece (rulebook: gold lacquer "
                          "'can even connect fragments corner to corner'); 4: only edge neighbours join",
                  "range": (4, 8)},
    )
    deck: str = field(
        default="", metadata={"file": DEFAULT_DECK, "help": f"path to an alternative deck TOML of 2 to {MAX_CARDS} "
                                                                   "cards; empty = sim/kintsugi/cards.toml"}
    )

    def validate(self) -> None:
        if self.connectivity not in (4, 8):
            raise AtelierError(f"parameter 'connectivity' must be 4 or 8, got {self.connectivity}")
        load_deck(self.deck)

    @property
    def cards(self) -> np.ndarray:
        """The deck's layouts, (N, 2, 2) int8."""
        return load_deck(self.deck)


@lru_cache(maxsize=16)
def load_deck(path: str = "") -> np.ndarray:
    """Read a deck file: a TOML list of `[[card]] layout = [[c, c], [c, c]]`. Returns (N, 2, 2) int8."""
    file = Path(path) if path else DEFAULT_DECK
    data = read_toml(file, "deck file")
    try:
        layouts = [card["layout"] for card in data["card"]]
        cards = np.array(layouts, dtype=np.int64)
    except (KeyError, TypeError, ValueError, OverflowError) as err:
        raise AtelierError(f"deck file {file} is malformed: {err}") from None
    if cards.ndim != 3 or cards.shape[1:] != (2, 2) or not 2 <= len(cards) <= MAX_CARDS:
        raise AtelierError(f"deck file {file} must list 2 to {MAX_CARDS} cards, each a 2x2 layout")
    if not all(type(c) is int for layout in layouts for row in layout for c in row):
        raise AtelierError(f"deck file {file} must give colours as whole numbers")
    if cards.min() < 0 or cards.max() >= N_COLORS:
        raise AtelierError(f"deck file {file} uses a colour outside 0..{N_COLORS - 1}")
    cards = cards.astype(np.int8)
    cards.flags.writeable = False
    return cards


def facts(params: Params) -> dict:
    """What the report needs to know of these rules, recorded in the manifest (reports import no rules)."""
    return {"colours": list(COLORS), "guess_chance": 1 / (N_COLORS - 1), "cards": len(params.cards)}


def rotated_layouts(cards: np.ndarray) -> np.ndarray:
    """(N, 4, 2, 2): every card under each rotation, as numpy.rot90(layout, rotation)."""
    return np.stack([np.rot90(cards, k, axes=(1, 2)) for k in range(N_ROTATIONS)], axis=1)


class Deal(NamedTuple):
    """n games' random set-up, batch axis first."""

    order: np.ndarray  # (n, N) int8: the deck from top to bottom; order[:, 0] is the starting card
    colors: np.ndarray  # (n, P) int8: each seat's secret Pottery Color card, all different (the rest set aside)


def deal(params: Params, rng: np.random.Generator, n: int) -> Deal:
    """Shuffle the deck and hand out secret colours for n games.

    Seat 0 is the start player, whom the rulebook chooses at random: the random colours make that the same.
    """
    order = rng.random((n, len(params.cards))).argsort(axis=1).astype(np.int8)
    colors = rng.random((n, N_COLORS)).argsort(axis=1)[:, : params.players].astype(np.int8)
    return Deal(order, colors)
