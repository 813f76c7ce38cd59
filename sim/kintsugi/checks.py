"""Kintsugi's test data (sim/checks.py): the strategies to seat (its catalogue lists policies and guessers apart),
decks at the edges of what validation allows, the rule switch the differential test also plays."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.checks import Checks, Edge


def deck_toml(layouts: list) -> str:
    """A Kintsugi deck file holding these 2x2 layouts."""
    return "".join(f"[[card]]\nlayout = {layout}\n" for layout in layouts)


def edges(folder: Path) -> list[Edge]:
    """The fewest cards (2) and the most (64)."""
    rng = np.random.default_rng(0)
    small, large = folder / "two.toml", folder / "sixty_four.toml"
    small.write_text(deck_toml(rng.integers(0, 4, (2, 2, 2)).tolist()))
    large.write_text(deck_toml(rng.integers(0, 4, (64, 2, 2)).tolist()))
    return [(None, {"deck": str(small), "connectivity": 4}), (None, {"deck": str(large)})]


CHECKS = Checks(
    lineups=("random+uniform", "greedy+tracker", "greedy+bayes", "camouflage+tracker", "spoiler+bayes",
             "camouflage+bayes", "spoiler+uniform", "random+bayes"),
    edges=edges,
    differential=((2, 60, 1, {}), (3, 60, 2, {}), (4, 60, 3, {}), (3, 40, 4, {"connectivity": 4})),
)
