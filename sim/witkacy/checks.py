"""Witkacy's test data (sim/checks.py): decks at the edges of what the deck check allows, the strategies and rule
switches the goldens and the differential test play."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

from sim.checks import Checks, Edge

PAINTINGS = "ABCDE"
UPPER, LOWER = ("UL", "UR"), ("LL", "LR")
SIDES_PER_DECK = 55  # the rulebook's "55 double-sided cards"


def side_grids(quarters: tuple[str, str], halves: str = PAINTINGS, rows=(0, 1), loose=(0, 1)) -> list:
    """Every side the deck check allows whose half is of one of `halves`, lies in one of `rows`, and whose two
    loose quarters are each quarters[i] for i in `loose`."""
    out = []
    for painting, row in itertools.product(halves, rows):
        others = [p for p in PAINTINGS if p != painting]
        for (q, r), a, b in itertools.product(itertools.permutations(others, 2), loose, loose):
            half, mixed = [f"{painting}.{quarters[0]}", f"{painting}.{quarters[1]}"], [f"{q}.{quarters[a]}",
                                                                                     f"{r}.{quarters[b]}"]
            out.append([half, mixed] if row == 0 else [mixed, half])
    return out


def write_deck(folder: Path, cards: list) -> str:
    """A deck file of (front, back) grids, named by its content (the deck check caches by path)."""
    text = "".join(f"[[card]]\nfront = {front}\nback = {back}\n\n" for front, back in cards).replace("'", '"')
    path = folder / f"deck-{hashlib.sha1(text.encode()).hexdigest()[:12]}.toml"
    path.write_text(text)
    return str(path)


def edge_decks() -> dict[str, list]:
    """Decks at the edges of the deck check, each of 55 distinct cards."""
    def pair(fronts, backs):
        return list(zip(fronts, itertools.cycle(backs), strict=False))[:SIDES_PER_DECK]

    return {
        "every half A": pair(side_grids(UPPER, "A"), side_grids(LOWER, "A")),
        "fronts A, backs B": pair(side_grids(UPPER, "A"), side_grids(LOWER, "B")),
        "every half in the top row": pair(side_grids(UPPER, rows=(0,)), side_grids(LOWER, rows=(0,))[::7]),
        "every half in the bottom row": pair(side_grids(UPPER, rows=(1,)), side_grids(LOWER, rows=(1,))[::5]),
        "only left loose quarters": pair(side_grids(UPPER, "ABC", loose=(0,)),
                                         side_grids(LOWER, "A", rows=(1,), loose=(0,))),
    }


def edges(folder: Path) -> list[Edge]:
    decks = [write_deck(folder, cards) for cards in edge_decks().values()]
    return [(None, {}), (3, {"advanced": True}), *((None, {"deck": deck}) for deck in decks)]


SWITCHES = {"rush_both": "optional", "gift_from": "display_and_deck", "stash_draw": "deck", "rush_draw": "any",
            "entirely": "card"}
CHECKS = Checks(
    lineups=("random", "completer", "popular", "saboteur", "random-no-gift", "completer-no-rush"),
    variants=({"advanced": True}, SWITCHES),
    edges=edges,
    differential=((2, 24, 1, {}), (3, 24, 2, {}), (4, 24, 3, {}), (3, 16, 4, {"advanced": True}),
                  (3, 16, 5, {**SWITCHES, "end_count": "deck", "start_distinct": "half"})),
)
